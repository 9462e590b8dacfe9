package integrators

import (
	"math"
	"testing"
)

// TestBandedMatchesDenseOnLongChain: banded LU solves the same Newton
// systems as dense LU, so on a stiff chain long enough that its set-up
// zeroes the band storage in several chunks (80 masses, 160 unknowns,
// against 64 columns a chunk) and re-factors the matrix at every step
// (JacobianMaxAge 1, so stale storage from the previous factorization
// would show), backward Euler and BDF with banded LU end where they do
// with dense LU: to 1e-10 relative to the state's size (the Newton
// tolerance is 1e-12 here; both are direct solvers and differ by
// rounding only). The chain starts with the first mass displaced, and
// a pulled chain is diagonally dominant only weakly, so pivots matter.
func TestBandedMatchesDenseOnLongChain(t *testing.T) {
	sys := chainSystem{n: 80, k: 1e4, c: 5}
	y0 := make([]float64, sys.Dim())
	y0[0], y0[3] = 1, -2
	for _, m := range []NewtonMethod{BackwardEuler{}, BDF{MaxOrder: 2}} {
		var ys [2][]float64
		for k, l := range []LinearOptions{{Solver: LinearDense}, {Solver: LinearBanded, JacobianMaxAge: 1}} {
			mm := m.WithSolver(NewtonOptions{Tol: 1e-12}, l).(Method)
			ys[k] = runFixed(t, mm, sys, y0, 0.05, 25)
		}
		scale := 0.0
		for _, v := range ys[0] {
			scale = math.Max(scale, math.Abs(v))
		}
		if d := maxDiff(ys[0], ys[1]); d > 1e-10*scale {
			t.Errorf("%s: banded differs from dense by %.3g (state size %.3g)", m.(Method).Name(), d, scale)
		}
	}
}
