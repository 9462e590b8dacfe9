package verification

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/nodes/ball"
	"github.com/cosimgo/cosim/nodes/table"
)

// A monolithic fixed-step run of the ball with its contact event,
// checkpointed to a file between bounces and restored into a fresh
// graph, continues bit for bit: the event state (which events are armed)
// travels with the integrator's memory.
func TestBallFixedStepCheckpoint(t *testing.T) {
	build := func() *graph.Sim {
		p := ball.DefaultParams()
		p.InitialPosition, p.Elasticity, p.Gravity = 10, 0.9, -9.81
		b, err := ball.New(p)
		if err != nil {
			t.Fatal(err)
		}
		tb, _ := table.New(table.DefaultParams())
		gr := graph.New()
		gr.Add("ball", b)
		gr.Add("table", tb)
		gr.Connect("table.position", "ball.table_position")
		s, err := gr.Build()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	m, _ := integrators.ByName(integrators.MethodGeneralizedAlpha)
	run := func(s *graph.Sim, end float64) {
		if _, err := s.RunMonolithic(context.Background(), m, nil, graph.Settings{Dt: 0.01, End: end}); err != nil {
			t.Fatal(err)
		}
	}
	ref := build()
	run(ref, 10)
	for _, at := range []float64{1.4, 1.5, 4.0} { // before and after the first impact (1.43 s), after the second (4.00 s)
		a := build()
		run(a, at)
		path := filepath.Join(t.TempDir(), "ball.ckpt")
		if err := a.Checkpoint().WriteFile(path); err != nil {
			t.Fatal(err)
		}
		cp, err := graph.ReadCheckpoint(path)
		if err != nil {
			t.Fatal(err)
		}
		b := build()
		if err := b.Restore(cp); err != nil {
			t.Fatal(err)
		}
		run(b, 10)
		x, y := ref.State(nil), b.State(nil)
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
				t.Fatalf("checkpoint at %v: restored run ends at %v, the uninterrupted one at %v", at, y, x)
			}
		}
		if ref.Time() != b.Time() || x[0] < 0 {
			t.Errorf("times %v and %v, h = %v", ref.Time(), b.Time(), x[0])
		}
	}
}
