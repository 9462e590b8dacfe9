package spring_test

import (
	"context"
	"fmt"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/spring"
)

// A 1 kg mass hanging from a ground pivot on a spring of rest length 1 m
// and stiffness 100 N/m settles where the tension balances gravity:
// ℓ = 1 + 9.81/100 = 1.0981 m (damping 5 N·s/m; 20 s of co-simulation).
func Example() {
	m, _ := masspoint.New(masspoint.Params{Mass: 1, Gravity: [3]float64{0, -9.81, 0}, InitialPosition: [3]float64{0, -1, 0}})
	g := graph.New()
	g.Add("bob", m)
	p := spring.DefaultParams()
	p.Stiffness, p.Damping, p.RestLength = 100, 5, 1
	spring.Connect(g, "rod", p, node.GroundAt([3]float64{}), node.Body("bob"))
	s, _ := g.Build()
	s.Run(context.Background(), graph.Settings{Dt: 1e-3, End: 20})
	l, _ := s.Field("rod.length")
	f, _ := s.Field("rod.tension")
	lv, _ := l.At(0)
	fv, _ := f.At(0)
	fmt.Printf("length %.4f m, tension %.3f N\n", lv, fv)
	// Output: length 1.0981 m, tension 9.810 N
}
