package graph_test

import (
	"context"
	"fmt"
	"log"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/nodes/ball"
	"github.com/cosimgo/cosim/nodes/table"
)

// One entry point, three modes: Settings.Mode chooses co-simulation,
// fixed-step monolithic RK4 or adaptive Dormand–Prince, each with its own
// options, and every run returns the same Result. The ball (h0 = 10 m, e = 0.9) meets the table
// once before 3 s, at t1 = √(2·10/9.81) = 1.43 s; the monolithic modes
// locate and count that impact, the co-simulated ball resolves it inside
// its own Update.
func ExampleSim_Run_modes() {
	for _, mode := range []graph.Mode{
		graph.CoSimulation{},                        // each node steps itself (the zero Mode)
		graph.Monolithic{Method: integrators.RK4{}}, // one system, fixed step Dt
		graph.MonolithicAdaptive{Method: integrators.DormandPrince{RTol: 1e-10, ATol: 1e-12}},
	} {
		p := ball.DefaultParams()
		p.InitialPosition, p.Elasticity = 10, 0.9
		b, _ := ball.New(p)
		tb, _ := table.New(table.DefaultParams())
		g := graph.New()
		g.Add("ball", b)
		g.Add("table", tb)
		g.Connect("table.position", "ball.table_position")
		sim, err := g.Build()
		if err != nil {
			log.Fatal(err)
		}
		res, err := sim.Run(context.Background(), graph.Settings{Mode: mode, Dt: 1e-3, End: 3})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-21v %-14s %v at t = %.4g: %d steps, %d events\n", res.Mode, res.Method, res.Status, res.Time, res.Steps, res.Events)
	}
	// Output:
	// co-simulation         jacobi         EndReached at t = 3: 3000 steps, 0 events
	// monolithic            rk4            EndReached at t = 3: 3000 steps, 1 events
	// monolithic (adaptive) dormand-prince EndReached at t = 3: 6 steps, 1 events
}
