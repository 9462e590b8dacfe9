package graph_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/nodes/constant"
	"github.com/cosimgo/cosim/nodes/masspoint"
)

// TestAdditiveSumInConnectionOrder (issue #22, gap 3): graph/doc.go and
// docs/scenes.md promise that an additive input sums its edges in the
// order they were connected. Three constant loads 1, 1e16 and −1e16 N
// (x components) into one masspoint.force, one step of dt = 1 s on a
// 1 kg mass at rest: in connection order the float64 sum is
// (1 + 1e16) − 1e16 = 1e16 − 1e16 = 0 (1 + 1e16 rounds to 1e16, the
// spacing of float64 there being 2), so the velocity after the step is
// exactly 0; any other order gives 1 (−1e16 first, or 1 last) or 0 by
// another route, which the reversed order below tells apart. Under
// every coupling scheme the sum is the same, since the gather is.
func TestAdditiveSumInConnectionOrder(t *testing.T) {
	loads := []float64{1, 1e16, -1e16}
	for _, c := range []struct {
		order []int
		want  float64
	}{
		{[]int{0, 1, 2}, 0}, // (1 + 1e16) − 1e16 = 0
		{[]int{2, 1, 0}, 1}, // (−1e16 + 1e16) + 1 = 1
		{[]int{1, 2, 0}, 1}, // (1e16 − 1e16) + 1 = 1
		{[]int{0, 2, 1}, 0}, // (1 − 1e16) + 1e16 = 0 (1 − 1e16 rounds to −1e16)
	} {
		for _, st := range []*coupling.Strategy{nil, {Scheme: coupling.GaussSeidel},
			{Scheme: coupling.Iterative}, {Rates: map[string]int{"m": 2}}} {
			name := fmt.Sprintf("order %v, %v", c.order, st)
			g := graph.New()
			m, err := masspoint.New(masspoint.Params{Mass: 1})
			if err != nil {
				t.Fatal(err)
			}
			g.Add("m", m)
			for _, i := range c.order {
				src := fmt.Sprintf("f%d", i)
				k, err := constant.New(constant.Params{Value: [3]float64{loads[i], 0, 0}, Units: "N"})
				if err != nil {
					t.Fatal(err)
				}
				g.Add(src, k)
				g.Connect(src+".value", "m.force")
			}
			sim, err := g.Build()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := sim.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Coupling: st}, Dt: 1, Steps: 1}); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			v, err := sim.Value("m.velocity")
			if err != nil {
				t.Fatal(err)
			}
			if v[0] != c.want || v[1] != 0 || v[2] != 0 {
				t.Errorf("%s: velocity %v, want exactly [%v 0 0]", name, v, c.want)
			}
		}
	}
}
