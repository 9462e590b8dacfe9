package integrators

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
)

// adaptiveImplicit lists the adaptive implicit methods with options o.
func adaptiveImplicit(rtol, atol float64, lin LinearOptions) []AdaptiveMethod {
	return []AdaptiveMethod{
		BDF{RTol: rtol, ATol: atol, Linear: lin},
		ESDIRK43{RTol: rtol, ATol: atol, Linear: lin},
		ESDIRK32{RTol: rtol, ATol: atol, Linear: lin},
	}
}

// linearSolvers are the linear solvers every implicit method offers.
var linearSolvers = []struct {
	name string
	lin  LinearOptions
}{
	{"dense", LinearOptions{Solver: LinearDense}},
	{"banded", LinearOptions{Solver: LinearBanded}},
	{"gmres+block-jacobi", LinearOptions{Solver: LinearGMRES}},
	{"gmres+ilu0", LinearOptions{Solver: LinearGMRES, Preconditioner: PrecondILU0}},
	{"gmres", LinearOptions{Solver: LinearGMRES, Preconditioner: PrecondNone}},
	{"matrix-free+ilu0", LinearOptions{Solver: LinearGMRES, Preconditioner: PrecondILU0, MatrixFree: true}},
	{"matrix-free", LinearOptions{Solver: LinearGMRES, Preconditioner: PrecondNone, MatrixFree: true}},
}

// Every adaptive implicit method runs with every linear solver on a
// stiff chain (20 masses, k = 1e4, c = 10: ω_max·t_end ≈ 4) from a
// displaced first mass, and every run ends within its accuracy of the
// chain's solution, computed by BDF at RTol 1e-12, ATol 1e-14 (which
// ESDIRK43 at those tolerances reproduces to 5e-11): RTol 1e-6 and
// ATol 1e-8 bound the error of a step, the global error after some
// sixty steps of an oscillation is within 1000 times that,
// 1e3·(RTol·0.01 + ATol) = 2e-5 here. The Jacobian is reused:
// evaluated at most once per 5 steps.
func TestAdaptiveImplicitLinearSolvers(t *testing.T) {
	sys := chainSystem{n: 20, k: 1e4, c: 10}
	y0 := make([]float64, sys.Dim())
	y0[0] = 0.01
	exact, err := Integrate(BDF{RTol: 1e-12, ATol: 1e-14}, sys, 0, y0, 0.02, nil)
	if err != nil {
		t.Fatal(err)
	}
	ref := exact.Y
	for _, m0 := range adaptiveImplicit(1e-6, 1e-8, LinearOptions{}) {
		for _, ls := range linearSolvers {
			nm := m0.(NewtonMethod)
			n, _ := nm.Solver()
			m := nm.WithSolver(n, ls.lin).(AdaptiveMethod)
			res, err := Integrate(m, sys, 0, y0, 0.02, nil)
			if err != nil {
				t.Errorf("%s %s: %v", m.Name(), ls.name, err)
				continue
			}
			w := res.Work
			t.Logf("%s %-18s steps %4d rejected %3d RHS %5d Jacobians %2d factorizations %3d Newton %5d GMRES %5d", m.Name(), ls.name, w.Steps, w.Rejected, w.FuncEvals, w.JacEvals, w.Factorize, w.NewtonIters, w.LinearIters)
			if d := maxDiff(res.Y, ref); !numtest.AtMost(d, 2e-5) {
				t.Errorf("%s %s: error %.3g at the end", m.Name(), ls.name, d)
			}
			if !ls.lin.MatrixFree || ls.lin.Preconditioner != PrecondNone {
				if w.JacEvals == 0 || w.JacEvals*5 > w.Steps {
					t.Errorf("%s %s: %d Jacobians for %d steps", m.Name(), ls.name, w.JacEvals, w.Steps)
				}
			}
		}
	}
}

func maxDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

// The adaptive drivers meet their tolerance on a stiff problem with an
// exact solution (λ up to 1e6), at the end and on the dense output in
// between: every sample error within 100·(RTol·|y| + ATol), the usual
// ratio of global error to a per-step tolerance, and the work falls as
// the tolerance loosens.
func TestAdaptiveImplicitAccuracy(t *testing.T) {
	sys := linearDecay{lambda: []float64{1, 1e3, 1e6}}
	y0 := []float64{2, 0, 3}
	var out []float64
	for k := 1; k <= 50; k++ {
		out = append(out, 0.02*float64(k))
	}
	for _, tol := range []float64{1e-4, 1e-8} {
		for _, m := range adaptiveImplicit(tol, tol, LinearOptions{}) {
			res, err := Integrate(m, sys, 0, y0, 1, &DriverOptions{Output: out})
			if err != nil {
				t.Fatalf("%s: %v", m.Name(), err)
			}
			want := make([]float64, 3)
			worst := 0.0
			for _, s := range append(res.Samples, Sample{T: res.T, Y: res.Y}) {
				sys.exact(s.T, y0, want)
				for i := range want {
					worst = math.Max(worst, math.Abs(s.Y[i]-want[i])/(tol*math.Abs(want[i])+tol))
				}
			}
			t.Logf("%s tol %g: %d steps, %d RHS, worst error %.3g tolerances", m.Name(), tol, res.Steps, res.FuncEvals, worst)
			if !numtest.AtMost(worst, 100) {
				t.Errorf("%s tol %g: error %.3g tolerances", m.Name(), tol, worst)
			}
			if len(res.Samples) != len(out) {
				t.Errorf("%s: %d samples, want %d", m.Name(), len(res.Samples), len(out))
			}
		}
	}
}

// Events are located on the dense output of the adaptive implicit
// drivers as on Dormand–Prince's: the bouncing ball's impacts against
// the closed form, to 1e-6 s (the ball's motion is piecewise quadratic,
// which BDF of order ≥ 2 and the cubic Hermite output of the ESDIRK
// pairs represent exactly up to the Newton and rounding errors; after
// each reset BDF restarts at order 1, whose first steps are not exact,
// hence the bound).
func TestAdaptiveImplicitEvents(t *testing.T) {
	const h0, g, e = 10, 9.81, 0.9
	want := analyticImpacts(h0, g, e, 4)
	for _, m := range adaptiveImplicit(1e-10, 1e-10, LinearOptions{}) {
		res, err := Integrate(m, &ball{g: g, e: e}, 0, []float64{h0, 0}, 8.5, nil)
		if err != nil {
			t.Fatalf("%s: %v", m.Name(), err)
		}
		if len(res.Events) != 4 {
			t.Fatalf("%s: %d events, want 4", m.Name(), len(res.Events))
		}
		for i, ev := range res.Events {
			if d := math.Abs(ev.T - want[i]); !numtest.AtMost(d, 1e-6) {
				t.Errorf("%s: impact %d at %.10f, analytic %.10f", m.Name(), i, ev.T, want[i])
			}
			if ev.Before[1] >= 0 || ev.After[1] <= 0 {
				t.Errorf("%s: impact %d: velocity %v before, %v after", m.Name(), i, ev.Before[1], ev.After[1])
			}
		}
	}
}

// A model that leaves its domain (y' = −1, f not finite below y = ½, so
// that no step past t = ½ has a finite corrector residual) ends the run
// with NewtonFailure naming the method, the time, the step size and why
// — never with an accepted step: the steps shrink towards t = ½ until
// one fails at the smallest step; a solution that blows up (y' = y²,
// y(0) = 1, singular at t = 1) ends with StepTooSmall or NewtonFailure,
// never reaching the end. (An implicit stage equation has a second
// root past the pole, so a large step may land beyond it; the steps then
// shrink to nothing there instead, as the test's log shows.)
func TestAdaptiveImplicitFailures(t *testing.T) {
	sign := SystemFunc{N: 1, F: func(_ float64, y, d []float64) error {
		d[0] = -1
		if y[0] < 0.5 {
			d[0] = math.NaN()
		}
		return nil
	}}
	blowup := SystemFunc{N: 1, F: func(_ float64, y, d []float64) error { d[0] = y[0] * y[0]; return nil }}
	for _, m := range adaptiveImplicit(1e-6, 1e-9, LinearOptions{}) {
		res, err := Integrate(m, sign, 0, []float64{1}, 1, nil)
		var se *StepError
		if !errors.As(err, &se) || se.Status != NewtonFailure {
			t.Fatalf("%s domain: %v, want a NewtonFailure", m.Name(), err)
		}
		if se.Method != m.Name() || !strings.Contains(err.Error(), "at t=") || !strings.Contains(err.Error(), "non-finite residual") ||
			res.Status != NewtonFailure || !(res.T < 0.5) || res.Y[0] < 0.5 {
			t.Errorf("%s domain: %v (status %v, stopped at t = %v, y = %v)", m.Name(), err, res.Status, res.T, res.Y)
		}
		t.Logf("%s: %v", m.Name(), err)

		res, err = Integrate(m, blowup, 0, []float64{1}, 2, nil)
		if st := TerminationOf(err); st != StepTooSmall && st != NewtonFailure || !(res.T < 1.01) {
			t.Errorf("%s blow-up: %v at t = %v, want StepTooSmall or NewtonFailure near t = 1", m.Name(), err, res.T)
		}
		t.Logf("%s: %v", m.Name(), err)
	}
	// MinStep is in force.
	_, err := Integrate(BDF{MinStep: 1e-3}, vanDerPol{1e6}, 0, []float64{2, 0}, 2, nil)
	if !errors.Is(err, ErrStepTooSmall) {
		t.Errorf("MinStep 1e-3 on van der Pol: %v, want StepTooSmall", err)
	}
}

// Once running, a step of an adaptive implicit driver allocates nothing,
// with every linear solver (stepping towards an infinite end, which also
// checks that the first step is chosen without one).
func TestAdaptiveImplicitNoAllocs(t *testing.T) {
	chain := chainSystem{n: 10, k: 1e4, c: 10}
	y0 := make([]float64, chain.Dim())
	y0[0] = 0.01
	for _, ls := range linearSolvers {
		if ls.name == "dense" {
			continue // chainSystem's dense Jacobian is built with make; linearDecay below
		}
		for _, m0 := range adaptiveImplicit(1e-6, 1e-8, ls.lin) {
			checkDriverAllocs(t, m0, chain, y0, ls.name)
		}
	}
	for _, m0 := range adaptiveImplicit(1e-6, 1e-8, LinearOptions{Solver: LinearDense}) {
		checkDriverAllocs(t, m0, linearDecay{lambda: []float64{1, 1e3, 1e6}}, []float64{2, 0, 3}, "dense")
	}
}

func checkDriverAllocs(t *testing.T, m AdaptiveMethod, sys System, y0 []float64, what string) {
	t.Helper()
	d, err := m.NewDriver(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Init(0, y0); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ { // past the start: the Jacobian and first factorization
		if _, err := d.Step(math.Inf(1)); err != nil { // no end: the first step from the derivatives alone
			t.Fatal(err)
		}
	}
	if a := testing.AllocsPerRun(20, func() {
		if _, err := d.Step(math.Inf(1)); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("%s %s: %v allocations per step", m.Name(), what, a)
	}
}

// A driver restored from a checkpoint steps on bit for bit like the one
// that was never stopped: the Newton solver's Jacobian and factorization
// are rebuilt where they were, BDF's Nordsieck history and order restored.
func TestAdaptiveImplicitCheckpoint(t *testing.T) {
	chain := chainSystem{n: 10, k: 1e4, c: 10}
	y0 := make([]float64, chain.Dim())
	y0[0] = 0.01
	for _, ls := range []LinearOptions{{Solver: LinearDense}, {Solver: LinearGMRES, Preconditioner: PrecondILU0}, {Solver: LinearBanded}} {
		for _, m := range adaptiveImplicit(1e-6, 1e-8, ls) {
			run := func(d Driver, steps int) {
				for i := 0; i < steps; i++ {
					if _, err := d.Step(1); err != nil {
						t.Fatal(err)
					}
				}
			}
			ref, _ := m.NewDriver(chain, nil)
			ref.Init(0, y0)
			run(ref, 60)
			a, _ := m.NewDriver(chain, nil)
			a.Init(0, y0)
			run(a, 25)
			cp := a.Checkpoint()
			b, _ := m.NewDriver(chain, nil)
			if err := b.Restore(cp); err != nil {
				t.Fatalf("%s %v: %v", m.Name(), ls.Solver, err)
			}
			run(b, 35)
			tr, yr := ref.State()
			tb, yb := b.State()
			if tr != tb || maxDiff(yr, yb) != 0 || ref.Work() != b.Work() {
				t.Errorf("%s %v: resumed run at t = %v differs from the uninterrupted one at %v by %g; work %+v, want %+v",
					m.Name(), ls.Solver, tb, tr, maxDiff(yr, yb), b.Work(), ref.Work())
			}
		}
	}
}

// A step never crosses a time event: the adaptive implicit drivers land
// on it (f jumps there: y' = 1 before t = 0.5, −1 after) and restart,
// so the kink is resolved exactly: y(1) = 0 to rounding.
func TestAdaptiveImplicitTimeEvents(t *testing.T) {
	for _, m := range adaptiveImplicit(1e-6, 1e-9, LinearOptions{}) {
		res, err := Integrate(m, kink{}, 0, []float64{0}, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !numtest.Within(res.Y[0], 0, 1e-12) {
			t.Errorf("%s: y(1) = %v, want 0", m.Name(), res.Y[0])
		}
	}
}

type kink struct{}

func (kink) Dim() int { return 1 }
func (kink) Func(t float64, _, d []float64) error {
	d[0] = 1
	if t >= 0.5 {
		d[0] = -1
	}
	return nil
}
func (kink) NextTimeEvent(t float64) float64 {
	if t < 0.5 {
		return 0.5
	}
	return math.Inf(1)
}

// BenchmarkAdaptiveImplicitStep is one accepted step of each adaptive
// implicit driver on the stiff chain (100 masses, sparse Jacobian), per
// linear solver, after the start: the work of a step with the Jacobian
// and factorization reused, and its allocations (none).
func BenchmarkAdaptiveImplicitStep(b *testing.B) {
	sys := chainSystem{n: 100, k: 1e4, c: 10}
	y0 := make([]float64, sys.Dim())
	for i := range sys.n {
		y0[2*i] = 0.01 * math.Sin(math.Pi*float64(i+1)/float64(sys.n+1))
	}
	for _, ls := range linearSolvers[1:] { // the sparse ones; dense LU of 200 unknowns is not the point
		for _, m := range adaptiveImplicit(1e-6, 1e-9, ls.lin) {
			b.Run(m.Name()+"/"+ls.name, func(b *testing.B) {
				d, err := m.NewDriver(sys, nil)
				if err != nil {
					b.Fatal(err)
				}
				if err := d.Init(0, y0); err != nil {
					b.Fatal(err)
				}
				for range 5 {
					if _, err := d.Step(math.Inf(1)); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					if _, err := d.Step(math.Inf(1)); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// An option a driver does not use is refused, not ignored: Newton.Tol
// (the fixed-step test) by the adaptive drivers, the step control and
// NewtonCoef by the fixed-step Steppers.
func TestAdaptiveImplicitOptionsApply(t *testing.T) {
	sys := linearDecay{lambda: []float64{1}}
	for _, m := range []AdaptiveMethod{BDF{Newton: NewtonOptions{Tol: 1e-8}}, ESDIRK43{Newton: NewtonOptions{Tol: 1e-8}}, ESDIRK32{Newton: NewtonOptions{Tol: 1e-8}}} {
		if _, err := m.NewDriver(sys, nil); !errors.Is(err, ErrNotApplicable) || !strings.Contains(err.Error(), "Newton.Tol") {
			t.Errorf("%s driver with Newton.Tol: %v", m.Name(), err)
		}
	}
	for _, m := range []Method{BDF{RTol: 1e-8}, ESDIRK43{MaxStep: 1}, ESDIRK32{NewtonCoef: 0.5}} {
		if _, err := NewStepper(m, sys, nil); !errors.Is(err, ErrNotApplicable) {
			t.Errorf("%s fixed-step with a driver option: %v", m.Name(), err)
		}
	}
	for _, m := range []Method{BDF{MaxOrder: 6}, BDF{MaxOrder: -1}} {
		if _, err := NewStepper(m, sys, nil); err == nil || !strings.Contains(err.Error(), "MaxOrder") {
			t.Errorf("%+v: %v", m, err)
		}
	}
}

// The fixed-step Steppers of the new methods locate events like every
// fixed-step method (by re-stepping): the bouncing ball to t = 10 with
// dt = 5 ms reaches the closed-form state after its fourth impact,
// h(10) = 2.1006464 m and v(10) = −6.5759398 m/s (events_test.go), within
// 1e-6 (the ball's motion is piecewise quadratic; the bound is the
// located impacts' EventTol and the Newton tolerance, amplified by the
// rebounds), and a checkpoint taken at t = 5 resumes bit for bit.
func TestImplicitFixedStepEvents(t *testing.T) {
	for _, m := range []Method{BDF{}, BDF{MaxOrder: 2}, ESDIRK43{}, ESDIRK32{}} {
		run := func(st Stepper, n int) {
			for i := 0; i < n; i++ {
				if err := st.Step(0.005); err != nil {
					t.Fatalf("%s: %v", m.Name(), err)
				}
			}
		}
		st, err := NewStepper(m, &ball{g: 9.81, e: 0.9}, nil)
		if err != nil {
			t.Fatal(err)
		}
		st.Init(0, []float64{10, 0})
		run(st, 1000)
		cp := st.(Checkpointer).Checkpoint()
		run(st, 1000)
		tt, y := st.State()
		if !numtest.Within(tt, 10, 1e-12) || !numtest.Within(y[0], 2.1006464, 1e-6) || !numtest.Within(y[1], -6.5759398, 1e-6) || st.Work().EventsHandled != 4 {
			t.Errorf("%s: at t = %v: %v with %d events, want [2.1006464 −6.5759398] after 4", m.Name(), tt, y, st.Work().EventsHandled)
		}
		again, _ := NewStepper(m, &ball{g: 9.81, e: 0.9}, nil)
		if err := again.(Checkpointer).Restore(cp); err != nil {
			t.Fatalf("%s: %v", m.Name(), err)
		}
		run(again, 1000)
		if _, y2 := again.State(); maxDiff(y, y2) != 0 {
			t.Errorf("%s: resumed at t = 5, ends %v from the uninterrupted run", m.Name(), maxDiff(y, y2))
		}
	}
}
