package graph_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
)

// floorMass is a 1 kg mass over a penalty floor at x = 0 of stiffness k,
// with no Jacobian: ẋ = v, v̇ = −k·min(x, 0) + F. Its Derivatives switch
// mode at x = 0 (contact open above, closed below), like a ball on a
// table.
type floorMass struct {
	spec *node.Spec
	k    float64
	x0   float64
}

func newFloorMass(k, x0 float64) *floorMass {
	return &floorMass{k: k, x0: x0, spec: node.NewSpec(node.Spec{
		Type: "floormass",
		State: []node.Field{
			{Name: "x", Units: "m", Description: "height above the floor", Role: node.Position, Rate: "v"},
			{Name: "v", Units: "m/s", Description: "velocity", Role: node.Velocity},
		},
		Inputs: []node.Input{{Name: "force", Units: "N", Description: "force", Combine: node.Additive, Default: []float64{0}}},
	})}
}

func (n *floorMass) Spec() *node.Spec           { return n.spec }
func (n *floorMass) InitialState(dst []float64) { dst[0], dst[1] = n.x0, 0 }
func (n *floorMass) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	v := x[1] + dt*(-n.k*min(x[0], 0)+in.Values[0])
	dst[0], dst[1] = x[0]+dt*v, v
	return nil
}
func (n *floorMass) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0], dst[1] = x[1], -n.k*min(x[0], 0)+in.Values[0]
	return nil
}

// TestJacobianAcrossModeSwitch: the floor mass linearised by differences
// (step h = 10⁻⁶) at a height within h of the floor. Before the check,
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
		g := graph.New()
		g.Add("ball", newFloorMass(k, c.x0))
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		sys, err := s.System()
		if err != nil {
			t.Fatal(err)
		}
		J := make([]float64, 4)
		err = sys.Jacobian(0.25, s.State(nil), J)
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
		if got := J[1*2+0]; math.Abs(got-c.want) > 1e-6*k {
			t.Errorf("x = %v: ∂v̇/∂x = %v, want %v (the active mode's slope)", c.x0, got, c.want)
		}
		if J[0*2+1] != 1 || J[0] != 0 {
			t.Errorf("x = %v: ∂ẋ/∂(x, v) = %v, %v, want 0, 1", c.x0, J[0], J[1])
		}
	}
}
