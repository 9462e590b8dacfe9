package integrators

import (
	"math"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
)

// Tolerance convention (STYLE 16): every comparison in these tests is
// absolute, |got − want| ≤ tol (numtest.ExpectWithin, which also fails on
// NaN and infinite values), with the tolerance and its reason stated at
// the call site. Relative scales are written out explicitly where used.

// oscillator is ẍ = −x as y = [x, v], Partitioned and with an
// analytic Jacobian. Exact solution from (1, 0): x = cos t, v = −sin t.
type oscillator struct{ evals int }

func (o *oscillator) Dim() int { return 2 }
func (o *oscillator) Func(t float64, y, dst []float64) error {
	o.evals++
	dst[0] = y[1]
	dst[1] = -y[0]
	return nil
}
func (o *oscillator) Pairs() (pos, vel []int) { return []int{0}, []int{1} }
func (o *oscillator) Jacobian(t float64, y, dst []float64) error {
	dst[0], dst[1], dst[2], dst[3] = 0, 1, -1, 0
	return nil
}

// plainOscillator hides the optional capabilities of oscillator.
type plainOscillator struct{ o oscillator }

func (p *plainOscillator) Dim() int                               { return 2 }
func (p *plainOscillator) Func(t float64, y, dst []float64) error { return p.o.Func(t, y, dst) }

// expSin is y' = y·cos t (not autonomous, no pairs). Exact:
// y = y0·exp(sin t).
var expSin = SystemFunc{N: 1, F: func(t float64, y, dst []float64) error {
	dst[0] = y[0] * math.Cos(t)
	return nil
}}

func expSinExact(t, y0 float64) float64 {
	return y0 * math.Exp(math.Sin(t))
}

// runFixed integrates with a fixed-step Stepper of method m over [0, T]
// in n steps and returns the final state.
func runFixed(t *testing.T, m Method, sys System, y0 []float64, T float64, n int) []float64 {
	t.Helper()
	st, err := m.New(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Init(0, y0); err != nil {
		t.Fatal(err)
	}
	dt := T / float64(n)
	for i := 0; i < n; i++ {
		if err := st.Step(dt); err != nil {
			t.Fatal(err)
		}
	}
	tt, y := st.State()
	numtest.ExpectWithin(t, m.Name()+" final time", tt, T, 1e-12*T)
	return append([]float64(nil), y...)
}

// observedOrder returns log2(e(n)/e(2n)) for the finest pair of errors
// measured at n, 2n, 4n, ...
func observedOrder(errs []float64) float64 {
	k := len(errs)
	return math.Log2(errs[k-2] / errs[k-1])
}

// The tests below that predate per-method options describe a run with
// the flat settings (the union of DormandPrince's, the Newton and linear
// options and DriverOptions); these helpers split them as a caller does.

// dp returns DormandPrince with the controller fields of s.
func (s *settings) dp() DormandPrince {
	if s == nil {
		return DormandPrince{}
	}
	return DormandPrince{RTol: s.RTol, ATol: s.ATol, InitialStep: s.InitialStep, MinStep: s.MinStep, MaxStep: s.MaxStep, FixedStep: s.FixedStep}
}

// driver returns the DriverOptions of s.
func (s *settings) driver() *DriverOptions {
	if s == nil {
		return nil
	}
	return &DriverOptions{Output: s.Output, MaxSteps: s.MaxSteps, EventTol: s.EventTol, ZenoLimit: s.ZenoLimit, ZenoSpacing: s.ZenoSpacing,
		Positions: s.Positions, Velocities: s.Velocities, IDs: s.IDs}
}

// with returns m with the Newton and linear options of s; it panics if m
// has none and s sets some.
func (s *settings) with(m Method) Method {
	if s == nil {
		return m
	}
	n := NewtonOptions{Tol: s.NewtonTol, MaxIter: s.NewtonMaxIter}
	l := LinearOptions{Solver: s.LinearSolver, Preconditioner: s.Preconditioner, KrylovTol: s.KrylovTol, KrylovRestart: s.KrylovRestart,
		KrylovMaxIter: s.KrylovMaxIter, Forcing: s.Forcing, MatrixFree: s.MatrixFree, JacobianMaxAge: s.JacobianMaxAge}
	if nm, ok := m.(NewtonMethod); ok {
		return nm.WithSolver(n, l)
	}
	if n != (NewtonOptions{}) || l != (LinearOptions{}) {
		panic("test: Newton options for " + m.Name())
	}
	return m
}

func integrateS(sys System, t0 float64, y0 []float64, tEnd float64, s *settings) (*Outcome, error) {
	return Integrate(s.dp(), sys, t0, y0, tEnd, s.driver())
}

func newAdaptiveS(sys System, s *settings) (*Adaptive, error) {
	return NewAdaptive(s.dp(), sys, s.driver())
}

func newS(m Method, sys System, s *settings) (Stepper, error) {
	return NewStepper(s.with(m), sys, s.driver())
}

// isSecondOrder reports whether m is of the Newmark family.
func isSecondOrder(m Method) bool { _, ok := m.(SecondOrderMethod); return ok }
