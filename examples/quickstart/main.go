package main

import (
	"context"
	"fmt"
	"log"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/nodes/ball"
	"github.com/cosimgo/cosim/nodes/table"
)

func main() {
	p := ball.DefaultParams()
	p.InitialPosition, p.Elasticity = 10, 0.9
	b, err := ball.New(p)
	if err != nil {
		log.Fatal(err) // e.g. `ball: parameter "elasticity" = 1.5 is out of range; valid: [0, 1]`
	}
	tb, _ := table.New(table.DefaultParams())

	g := graph.New()
	g.Add("ball", b)
	g.Add("table", tb)
	// Names resolve to offsets in Build, which reports every wiring
	// problem at once, with suggestions for misspelled names.
	g.Connect("table.position", "ball.table_position")
	sim, err := g.Build()
	if err != nil {
		log.Fatal(err)
	}
	res, err := sim.Run(context.Background(), graph.Settings{
		Dt: 1e-4, End: 10, Record: []string{"ball.position"}, RecordEvery: 100,
	})
	if err != nil {
		log.Fatal(err) // e.g. `node ball.position: step 812 at t=8.12: ball: Update at t=8.12: new position = NaN: value is not finite`
	}
	// Every way of running returns one *graph.Result: Stats, a Status
	// saying how the run ended, and the parts of its mode.
	x, _ := sim.Value("ball.position")
	fmt.Printf("%v: %v, %d steps, h(10 s) = %.4f m\n", res.Status, res.Mode, res.Steps, x[0])
}
