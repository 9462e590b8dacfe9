package graph_test

import (
	"errors"
	"math"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
)

// scalarLambda is a node of one state x and one input u (default 0) with
// x' = f(x, u) and no analytic Jacobian: the graph differences it.
func scalarLambda(f func(x, u float64) float64) *lambdaNode {
	return &lambdaNode{
		spec: node.NewSpec(node.Spec{Type: "scalarfn",
			State:  []node.Field{{Name: "x", Units: "1"}},
			Inputs: []node.Input{{Name: "u", Units: "1", Default: []float64{0}}},
		}),
		f: func(x []float64, in node.Inputs, dst []float64) { dst[0] = f(x[0], in.Values[0]) },
	}
}

// scalarLambdaJacobian returns ∂f/∂x of scalarLambda(f) at x, as the graph
// differences it (step h = 10⁻⁶·max(1, |x|), with the mode-switch check).
func scalarLambdaJacobian(t *testing.T, f func(x, u float64) float64, x float64) (float64, error) {
	t.Helper()
	sys := soloSystem(t, "n", scalarLambda(f))
	J := make([]float64, 1)
	err := sys.Jacobian(0.5, []float64{x}, J)
	return J[0], err
}

// A function finite at the point but infinite at both of the difference
// points x ± h (the same infinity on both sides, or opposite ones) has no
// usable difference: the Jacobian is an error wrapping node.ErrNonFinite
// naming the node, the row and the time, not a NaN or infinite column.
func TestJacobianInfiniteBothSides(t *testing.T) {
	for _, c := range []struct {
		name         string
		above, below float64
	}{
		{"+Inf on both sides", math.Inf(1), math.Inf(1)},
		{"+Inf above, -Inf below", math.Inf(1), math.Inf(-1)},
	} {
		f := func(x, _ float64) float64 {
			switch {
			case x > 0:
				return c.above
			case x < 0:
				return c.below
			}
			return 0
		}
		got, err := scalarLambdaJacobian(t, f, 0)
		var se *node.StateError
		if !errors.Is(err, node.ErrNonFinite) || !errors.As(err, &se) || se.Node != "n" || se.Field != "x" || se.Time != 0.5 {
			t.Errorf("%s: ∂f/∂x = %v, err %v; want an error wrapping ErrNonFinite naming n, x, t = 0.5", c.name, got, err)
		}
	}
}

// A function flat up to rounding noise — f₀ = 1024 at the point and
// 1024·(1 + 4·2⁻⁵²) beside it, 4 units in the last place, the rounding a
// few floating-point operations leave — is smooth: its one-sided
// differences differ by 8·2⁻⁵²·1024/h, within the documented rounding
// allowance 4·2⁻⁵²·(|f₊| + |f₀| + |f₋|)/h ≈ 12·2⁻⁵²·1024/h, so the
// Jacobian is the central difference, exactly 0 (f₊ = f₋), and not a
// mode switch.
func TestJacobianRoundingNoiseIsSmooth(t *testing.T) {
	bump := 1024 * (1 + 4*0x1p-52)
	f := func(x, _ float64) float64 {
		if x == 0 {
			return 1024
		}
		return bump
	}
	got, err := scalarLambdaJacobian(t, f, 0)
	if err != nil || got != 0 {
		t.Errorf("∂f/∂x = %v, err %v; want 0 without error", got, err)
	}
}

// A stiff smooth function, f = k(x + x²) with k = 10⁶ at x = 0, is
// linearised, not reported as a switch: its one-sided differences,
// k(1 ± h), differ by 2kh = 2 at h = 10⁻⁶, far within switchRel = 10⁻³
// of the slope k. The central difference of a quadratic is exact up to
// rounding: ∂f/∂x = k, to 10⁻⁹ relative.
func TestJacobianStiffSmoothRow(t *testing.T) {
	const k = 1e6
	got, err := scalarLambdaJacobian(t, func(x, _ float64) float64 { return k * (x + x*x) }, 0)
	if err != nil || math.Abs(got-k) > 1e-9*k {
		t.Errorf("∂f/∂x = %v, err %v; want %v", got, err, k)
	}
}

// A kink at the point in the node's first row, f = |x| at x = 0: the
// one-sided slopes are +1 and −1 however small the step, so the node
// cannot be linearised there: a *SwitchError naming the node, the
// function, the row and the column (both x), and the time.
func TestJacobianKinkInFirstRow(t *testing.T) {
	got, err := scalarLambdaJacobian(t, func(x, _ float64) float64 { return math.Abs(x) }, 0)
	var se *graph.SwitchError
	if !errors.As(err, &se) || !errors.Is(err, graph.ErrNotDifferentiable) || se.Node != "n" || se.Function != "Derivatives" ||
		se.Wrt != "x" || se.Of != "x" || se.Time != 0.5 {
		t.Errorf("∂|x|/∂x at 0 = %v, err %v (%+v); want a *SwitchError for n, Derivatives, ∂x/∂x, t = 0.5", got, err, se)
	}
}

// When the function switches with respect to a state value and an input
// alike (f = |x| + |u| at x = u = 0), the error names the first column
// differenced in the order of the node's local Jacobian [A B], its state
// before its inputs: x, whatever the input does.
func TestJacobianSwitchNamesStateFirst(t *testing.T) {
	_, err := scalarLambdaJacobian(t, func(x, u float64) float64 { return math.Abs(x) + math.Abs(u) }, 0)
	var se *graph.SwitchError
	if !errors.As(err, &se) || se.Wrt != "x" {
		t.Errorf("err %v (%+v); want a *SwitchError with respect to x, the state column", err, se)
	}
}
