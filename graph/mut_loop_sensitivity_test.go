package graph_test

import (
	"context"
	"math"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/nodes/ball"
	srcnodes "github.com/cosimgo/cosim/nodes/source"
)

// rampBall is a ball dropped from h onto a floor rising as 0.5·t (a ramp
// source driving ball.table_position): the contact event's function
// depends on time through the ball's input.
func rampBall(t *testing.T, h float64) *graph.Sim {
	t.Helper()
	p := ball.DefaultParams()
	p.InitialPosition, p.Elasticity = h, 0.8
	b, err := ball.New(p)
	if err != nil {
		t.Fatal(err)
	}
	r, err := srcnodes.NewRamp(srcnodes.RampParams{Slope: []float64{0.5}, Units: "m"})
	if err != nil {
		t.Fatal(err)
	}
	g := graph.New()
	g.Add("ball", b)
	g.Add("floor", r)
	g.Connect("floor.value", "ball.table_position")
	return mustBuild(t, g)
}

// The sensitivity of the ball's position after the bounce to the drop
// height, through an event whose function moves with time (the floor's
// rate enters the event time's sensitivity, ∂t*/∂h = −g_h/(dg/dt), with
// dg/dt = v − 0.5): against central differences of two runs at
// h ± 1e-4 (truncation ~1e-8, the runs' tolerances 1e-12: 1e-6 relative
// asserted).
func TestMutSensitivityMovingFloor(t *testing.T) {
	const h, dh, T = 1.0, 1e-4, 0.8
	mode := graph.MonolithicAdaptive{Method: sensTightDP, Options: sensTightEvents}
	res, err := rampBall(t, h).Sensitivities(context.Background(), []string{"ball.initial_position"}, &graph.SensitivityOptions{End: T, Output: []float64{T}, Mode: mode})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Events) == 0 {
		t.Fatal("no bounce before T")
	}
	got, ok := res.At(0, "ball.position", "ball.initial_position")
	if !ok {
		t.Fatal("no ∂ball.position/∂ball.initial_position")
	}
	x := func(h float64) float64 {
		s := rampBall(t, h)
		if _, err := s.Run(context.Background(), graph.Settings{End: T, Mode: mode}); err != nil {
			t.Fatal(err)
		}
		return value(t, s, "ball.position")
	}
	want := (x(h+dh) - x(h-dh)) / (2 * dh)
	if math.Abs(got-want) > 1e-6*math.Abs(want) {
		t.Errorf("∂x(%v)/∂h = %.10g, central differences %.10g", T, got, want)
	}
}
