package graph_test

import (
	"errors"
	"github.com/cosimgo/cosim/node"
	"math"
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

// drainTank is a tank draining by Torricelli's law, ḣ = −√h: its
// derivative is not defined below h = 0, so a difference of it taken at
// h = 0 meets NaN at h − δ.
type drainTank struct{ spec *node.Spec }

func (n *drainTank) Spec() *node.Spec           { return n.spec }
func (n *drainTank) InitialState(dst []float64) { dst[0] = 0 }
func (n *drainTank) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = x[0] - dt*math.Sqrt(x[0])
	return nil
}
func (n *drainTank) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = -math.Sqrt(x[0])
	return nil
}

// TestJacobianNonFiniteDifference: a node whose function is NaN on one
// side of the point (the tank at h = 0) cannot be differenced there. The
// column used to be NaN, written into the Jacobian for the caller to
// find; it is now an error naming the node, the field and the time that
// wraps node.ErrNonFinite.
func TestJacobianNonFiniteDifference(t *testing.T) {
	g := graph.New()
	g.Add("tank", &drainTank{spec: node.NewSpec(node.Spec{
		Type:  "draintank",
		State: []node.Field{{Name: "h", Units: "m", Description: "level"}},
	})})
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	sys, err := s.System()
	if err != nil {
		t.Fatal(err)
	}
	J := make([]float64, 1)
	err = sys.Jacobian(0.5, []float64{0}, J)
	var se *node.StateError
	if !errors.Is(err, node.ErrNonFinite) || !errors.As(err, &se) || se.Node != "tank" || se.Field != "h" || se.Time != 0.5 {
		t.Fatalf("Jacobian at h = 0: err = %v, J = %v; want an error wrapping ErrNonFinite naming tank, h, t = 0.5", err, J)
	}
	if err := sys.Jacobian(0.5, []float64{0.25}, J); err != nil || !numtest.Within(J[0], -1, 1e-8) {
		t.Errorf("Jacobian at h = 0.25: %v, err %v; want −1/(2√h) = −1", J, err)
	}
}
