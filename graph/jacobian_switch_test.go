package graph_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/graphtest"
	"github.com/cosimgo/cosim/internal/numtest"
)

// TestJacobianAcrossModeSwitch: the floor mass (graphtest.FloorMass: a
// 1 kg mass over a penalty floor at x = 0, no analytic Jacobian)
// linearised by differences (step h = 10⁻⁶) at a height within h of the
// floor. Before the check,
// the central difference straddled the switch: ∂v̇/∂x = −k·(h − |x|)/(2h)
// at |x| < h, e.g. −k/4 at x = 5·10⁻⁷ — the slope of neither mode. Now:
//
//   - above the floor (x = 5·10⁻⁷, open contact): 0, the free mode's slope;
//   - below it (x = −5·10⁻⁷, closed): −k, the contact's;
//   - exactly at it (x = 0): a *SwitchError naming the node, the rows and
//     time, errors.Is ErrNotDifferentiable;
//   - far from it (x = 0.5): 0, and a smooth nonlinear row is untouched.
//
// Tolerance 1e-6·k: the differences of a piecewise-linear function are
// exact up to rounding once the step does not straddle the switch.
func TestJacobianAcrossModeSwitch(t *testing.T) {
	const k = 1e4
	for _, c := range []struct {
		x0, want float64
		fails    bool
	}{
		{5e-7, 0, false},
		{-5e-7, -k, false},
		{0.5, 0, false},
		{-0.5, -k, false},
		{0, 0, true},
	} {
		J, err := graphtest.FloorJacobian(t, k, c.x0, 0.25)
		if c.fails {
			var se *graph.SwitchError
			if !errors.As(err, &se) || !errors.Is(err, graph.ErrNotDifferentiable) || se.Node != "ball" || se.Wrt != "x" || se.Of != "v" || se.Time != 0.25 ||
				!strings.Contains(err.Error(), "node ball cannot be linearised at t = 0.25") {
				t.Errorf("x = 0: err = %v (%+v), want a *SwitchError for ball, ∂v/∂x, t = 0.25", err, se)
			}
			continue
		}
		if err != nil {
			t.Fatalf("x = %v: %v", c.x0, err)
		}
		if got := J[1*2+0]; !numtest.Within(got, c.want, 1e-6*k) {
			t.Errorf("x = %v: ∂v̇/∂x = %v, want %v (the active mode's slope)", c.x0, got, c.want)
		}
		if J[0*2+1] != 1 || J[0] != 0 {
			t.Errorf("x = %v: ∂ẋ/∂(x, v) = %v, %v, want 0, 1", c.x0, J[0], J[1])
		}
	}
}
