package graph_test

import (
	"context"
	"fmt"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/nodes/ball"
	"github.com/cosimgo/cosim/nodes/table"
)

// A ball dropped from 1 m bounces once before T = 0.8 s. Its height at T
// depends on the drop height through the contact time too: ∂x(T)/∂h =
// +0.5892 (MADD-ANO-021's exact value, where differences of fixed-step
// runs give 0); ∂x(T)/∂e = √(2gh)·(T − t₁) = 1.5436 with t₁ = √(2h/g)
// the contact time, which comes 1/√(2gh) = 0.2258 s later per metre of
// drop.
func ExampleSim_Sensitivities() {
	p := ball.DefaultParams()
	p.InitialPosition = 1
	b, _ := ball.New(p)
	tb, _ := table.New(table.DefaultParams())
	g := graph.New()
	g.Add("ball", b)
	g.Add("table", tb)
	g.Connect("table.position", "ball.table_position")
	s, _ := g.Build()
	res, err := s.Sensitivities(context.Background(), []string{"ball.initial_position", "ball.elasticity"}, &graph.SensitivityOptions{
		End: 0.8, Output: []float64{0.8},
		Mode: graph.MonolithicAdaptive{Method: integrators.DormandPrince{RTol: 1e-12, ATol: 1e-12}, Options: &integrators.DriverOptions{EventTol: 1e-14}},
	})
	if err != nil {
		panic(err)
	}
	dh, _ := res.At(0, "ball.position", "ball.initial_position")
	de, _ := res.At(0, "ball.position", "ball.elasticity")
	fmt.Printf("∂x(0.8)/∂h = %.4f, ∂x(0.8)/∂e = %.4f\n", dh, de)
	fmt.Printf("%s at t = %.4f: ∂t/∂h = %.4f\n", res.Events[0].Name, res.Events[0].T, res.Events[0].DT[0])
	// Output:
	// ∂x(0.8)/∂h = 0.5892, ∂x(0.8)/∂e = 1.5436
	// ball.contact at t = 0.4515: ∂t/∂h = 0.2258
}
