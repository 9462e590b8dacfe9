package graph_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// Sim.Run reports the connectors whose stable step dt exceeds in
// Result.Warnings, and a run that then blows up returns an error that
// carries the hint once and still unwraps to the *node.StateError.
func TestRunWarnsAboveStableStep(t *testing.T) {
	build := func() *graph.Sim {
		g := graph.New()
		p := masspoint.DefaultParams()
		p.InitialPosition = [3]float64{0.1, 0, 0}
		m, err := masspoint.New(p)
		if err != nil {
			t.Fatal(err)
		}
		g.Add("m", m)
		sp := springdamper.DefaultParams()
		sp.Stiffness = [3]float64{1e4, 1e4, 1e4} // stable step 2·√(1/1e4) = 0.02 s
		if _, err := springdamper.Connect(g, "s", sp, "", [3]float64{}, "m", [3]float64{}); err != nil {
			t.Fatal(err)
		}
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	res, err := build().Run(context.Background(), graph.Settings{Dt: 0.01, Steps: 10})
	if err != nil || len(res.Warnings) != 0 {
		t.Fatalf("dt = 0.01 s below the limit: warnings %v, err %v", res.Warnings, err)
	}
	res, err = build().Run(context.Background(), graph.Settings{Dt: 0.05, Steps: 100000})
	if res == nil || len(res.Warnings) != 1 || res.Warnings[0].Node != "s" {
		t.Fatalf("dt = 0.05 s above the limit: result %+v", res)
	}
	var se *node.StateError
	if !errors.As(err, &se) || !errors.Is(err, node.ErrNonFinite) {
		t.Fatalf("err = %v, want a non-finite *node.StateError", err)
	}
	if n := strings.Count(err.Error(), "exceeds the stable step"); n != 1 {
		t.Errorf("the hint appears %d times in %q", n, err)
	}
	if again := graph.WithStepHint(err, res.Warnings); again != err {
		t.Errorf("WithStepHint wrapped a hinted error again: %v", again)
	}
}
