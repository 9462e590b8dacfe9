package graph_test

import (
	"context"
	"math"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
)

// restDP is the integration of cosim's bouncing-ball-events scene
// (Dormand–Prince 5(4), rtol 1e-9, atol 1e-12): the ball (h0 = 10,
// e = 0.9) comes to rest on the table at t ≈ 27.13 after 114 contacts.
var restDP = integrators.DormandPrince{RTol: 1e-9, ATol: 1e-12}

// The sensitivities of a ball resting on the table are those of the
// table: ∂position/∂table.position = 1 and ∂velocity/∂table.position = 0,
// ∂/∂elasticity = 0, and they stay so while it rests (they grew to 4e8 by
// t = 40 when the table's height was differenced through the ball's
// resting test, which a lowered table switches to free fall). The
// reference is central finite differences of the state at the same
// times, integrated with the same method (step 1e-6 in the table's
// height: the resting ball sits on the table exactly, so the difference
// is 1 and 0 to rounding, 1e-9), and in flight, before the first contact
// (t = 1), the closed form: ∂x/∂z = 0 there (the ball has not met the
// table), and after it (t = 2, one bounce, 1e-6: differences of an
// event-located trajectory).
func TestSensitivitiesAtRest(t *testing.T) {
	ctx := context.Background()
	times := []float64{1, 2, 27.2, 30, 40}
	s := sensBall(t, 10, 0.9)
	res, err := s.Sensitivities(ctx, []string{"table.position", "ball.elasticity"}, &graph.SensitivityOptions{End: 40, Output: times, Mode: graph.MonolithicAdaptive{Method: restDP}})
	if err != nil {
		t.Fatal(err)
	}
	// fd runs the ball with the table raised by dz and samples the state.
	fd := func(dz float64) [][]float64 {
		t.Helper()
		r := sensBall(t, 10, 0.9)
		tb, _ := r.Node("table")
		if err := tb.(node.Tunable).SetParams(map[string]any{"position": dz}); err != nil {
			t.Fatal(err)
		}
		out, err := r.Run(ctx, graph.Settings{Mode: graph.MonolithicAdaptive{Method: restDP, Options: &integrators.DriverOptions{Output: times}}, End: 40, Record: []string{"ball.position", "ball.velocity"}})
		if err != nil {
			t.Fatal(err)
		}
		return out.History.Rows
	}
	const h = 1e-6
	up, down := fd(h), fd(-h)
	for i, tm := range times {
		for k, col := range []string{"ball.position", "ball.velocity"} {
			got, _ := res.At(i, col, "table.position")
			want := (up[i][k] - down[i][k]) / (2 * h)
			tol := 1e-6
			if tm > 27.13 {
				tol = 1e-9
			}
			if !numtest.Within(got, want, tol*math.Max(1, math.Abs(want))) {
				t.Errorf("t = %v: ∂%s/∂table.position = %v, finite differences %v", tm, col, got, want)
			}
		}
	}
	for i, tm := range times[2:] {
		i += 2
		dx, _ := res.At(i, "ball.position", "table.position")
		dv, _ := res.At(i, "ball.velocity", "table.position")
		ex, _ := res.At(i, "ball.position", "ball.elasticity")
		ev, _ := res.At(i, "ball.velocity", "ball.elasticity")
		if dx != 1 || dv != 0 || ex != 0 || ev != 0 {
			t.Errorf("t = %v, resting: ∂x/∂z = %v, ∂v/∂z = %v, ∂x/∂e = %v, ∂v/∂e = %v; want 1, 0, 0, 0", tm, dx, dv, ex, ev)
		}
	}
}
