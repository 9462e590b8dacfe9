package integrators

import (
	"math"
	"strings"
	"testing"
)

// The ESDIRK driver's step-size controller is the PI controller its
// documentation states (Gustafsson; Hairer & Wanner II, §IV.8): after an
// accepted step of size h with error norm err (the RMS over components
// of LocalError/(ATol + RTol·max(|y_n|, |y_{n+1}|))),
// h_new = h·0.9·err^(−0.7/k)·err_old^(0.4/k), k = embedded order + 1,
// the factor clamped to [0.2, 5], at most 1 after a rejection, and 1
// when within [1, 1.2]; err_old = max(err, 1e-4), 1 before the first
// step; a step that landed on tMax does not shrink the next one. This
// test recomputes that from what the driver reports (LocalError, the
// states, Work.Rejected) on a damped oscillator with three components
// of different scales, and checks NextStep after every step to 1e-9
// relative: the recomputation sums the estimate Σ dᵢ·kᵢ, which cancels
// to about 1e-4 of its terms, in another order (measured: 3e-12).
func TestESDIRKControllerA(t *testing.T) {
	sys := jacSysA{n: 3,
		f: func(_ float64, y, d []float64) {
			d[0], d[1], d[2] = y[1], -y[0]-0.1*y[1], -5*(y[2]-y[0])
		},
		jac: func(_ float64, _, d []float64) {
			copy(d, []float64{0, 1, 0, -1, -0.1, 0, 5, 0, -5})
		}}
	const rtol, atol, tEnd = 1e-5, 1e-7, 7.3
	for _, m := range []AdaptiveMethod{ESDIRK43{RTol: rtol, ATol: atol}, ESDIRK32{RTol: rtol, ATol: atol}} {
		k := 4.0
		if m.Name() == MethodESDIRK32 {
			k = 3
		}
		d, err := m.NewDriver(sys, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Init(0, []float64{1, 0, 3}); err != nil {
			t.Fatal(err)
		}
		est := d.(ErrorEstimator)
		errOld := 1.0
		y0, e := make([]float64, 3), make([]float64, 3)
		checked := 0
		for tc := 0.0; tc < tEnd; {
			_, y := d.State()
			copy(y0, y)
			hBefore, rejBefore := d.NextStep(), d.Work().Rejected
			rep, err := d.Step(tEnd)
			if err != nil {
				t.Fatal(err)
			}
			tc = rep.T1
			est.LocalError(e)
			_, y1 := d.State()
			s := 0.0
			for i := range e {
				v := e[i] / (atol + rtol*math.Max(math.Abs(y0[i]), math.Abs(y1[i])))
				s += v * v
			}
			en := math.Sqrt(s / 3)
			rejected := d.Work().Rejected > rejBefore
			fac := 0.9 * math.Pow(math.Max(en, 1e-10), -0.7/k) * math.Pow(errOld, 0.4/k)
			fac = math.Max(0.2, math.Min(5, fac))
			if rejected {
				fac = math.Min(fac, 1)
			}
			if fac >= 1 && fac <= 1.2 {
				fac = 1
			}
			want := rep.H * fac
			last := rep.T1 == tEnd
			if last {
				if rejected {
					break // the step it would keep is the rejected trial's
				}
				want = math.Max(want, hBefore)
			}
			if got := d.NextStep(); math.Abs(got-want) > 1e-9*want {
				t.Errorf("%s: after the step [%.6g, %.6g] (h %.6g, err %.4g, rejected %v, last %v): next step %.17g, want %.17g",
					m.Name(), rep.T0, rep.T1, rep.H, en, rejected, last, got, want)
			}
			checked++
			errOld = math.Max(en, 1e-4)
		}
		if checked < 10 {
			t.Errorf("%s: only %d steps checked", m.Name(), checked)
		}
	}
}

// The ESDIRK driver's dense output is the cubic Hermite interpolant of
// the step's end values and slopes, exact for a cubic: on y' = 3t²
// (y = t³, which both methods integrate exactly: a quadrature of a
// quadratic) Dense inside a step of 0.5 from t = 1 equals t³ to 1e-12.
func TestESDIRKDenseCubicA(t *testing.T) {
	sys := jacSysA{n: 1, f: func(t float64, _, d []float64) { d[0] = 3 * t * t },
		jac: func(_ float64, _, d []float64) { d[0] = 0 }}
	for _, m := range []AdaptiveMethod{ESDIRK43{InitialStep: 0.5}, ESDIRK32{InitialStep: 0.5}} {
		d, err := m.NewDriver(sys, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Init(1, []float64{1}); err != nil {
			t.Fatal(err)
		}
		rep, err := d.Step(10)
		if err != nil {
			t.Fatal(err)
		}
		y := []float64{0}
		for _, s := range []float64{0.1, 0.37, 0.5, 0.9} {
			tt := rep.T0 + s*(rep.T1-rep.T0)
			d.Dense(tt, y)
			if want := tt * tt * tt; math.Abs(y[0]-want) > 1e-12 {
				t.Errorf("%s: Dense(%v) = %.17g, want %.17g", m.Name(), tt, y[0], want)
			}
		}
	}
}

// A step that an event truncated counts as a step (Work.Steps) and
// bounds the next one to 5 times its own length (as in the
// Dormand–Prince driver): y' = 1 from (2, 2) with an InitialStep of 1,
// an event at y = 2.01; the step is exact (error 0), so the controller
// alone would grow the step fivefold to 5, and the instant at 2.01
// leaves 5·0.01 = 0.05.
func TestESDIRKEventTruncatedStepA(t *testing.T) {
	sys := unitRateA(func(_ float64, y, d []float64) error { d[0] = y[0] - 2.01; return nil }, 1)
	for _, m := range []AdaptiveMethod{ESDIRK43{InitialStep: 1}, ESDIRK32{InitialStep: 1}} {
		d, err := m.NewDriver(sys, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Init(2, []float64{2}); err != nil {
			t.Fatal(err)
		}
		rep, err := d.Step(10)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Event != 0 || math.Abs(rep.T1-2.01) > 1e-9 || d.Work().Steps != 1 {
			t.Fatalf("%s: %+v after %+v, want one step ending on the event at 2.01", m.Name(), rep, d.Work())
		}
		if h, want := d.NextStep(), 5*(rep.T1-rep.T0); math.Abs(h-want) > 1e-12 {
			t.Errorf("%s: next step %v, want 5·(te − T0) = %v", m.Name(), h, want)
		}
	}
}

// MinStep is the smallest step allowed, itself allowed: a first step of
// exactly MinStep is taken (y' = −y, well inside the tolerance).
func TestESDIRKStepAtMinStepA(t *testing.T) {
	for _, m := range []AdaptiveMethod{ESDIRK43{InitialStep: 1e-3, MinStep: 1e-3}, ESDIRK32{InitialStep: 1e-3, MinStep: 1e-3}} {
		d, err := m.NewDriver(decayA(1), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Init(0, []float64{1}); err != nil {
			t.Fatal(err)
		}
		rep, err := d.Step(1)
		if err != nil || rep.H != 1e-3 {
			t.Errorf("%s: step %v, error %v; want the step 1e-3", m.Name(), rep.H, err)
		}
	}
}

// ESDIRK's Newton failures end the Step with the time the failed trial
// reached (StepError.T = t + h) and say which limit was hit: a first
// step at exactly MinStep that fails gives up at once ("the last with
// step"); one whose quartered step falls below MinStep gives up there
// ("down to the smallest step allowed").
func TestESDIRKNewtonFailureAtMinStepA(t *testing.T) {
	for _, c := range []struct {
		h0, hmin float64
		detail   string
	}{
		{0.05, 0.05, "Newton failed at 1 consecutive trials, the last with step"},
		{0.1, 0.05, "down to the smallest step allowed"},
	} {
		for _, m := range []AdaptiveMethod{ESDIRK43{InitialStep: c.h0, MinStep: c.hmin}, ESDIRK32{InitialStep: c.h0, MinStep: c.hmin}} {
			d, err := m.NewDriver(wrongJacA(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Init(1, []float64{0}); err != nil {
				t.Fatal(err)
			}
			_, err = d.Step(2)
			se := stepErrA(t, err)
			if se.Status != NewtonFailure || !(se.T > 1 && se.T <= 1+c.h0) || !strings.Contains(se.Detail, c.detail) {
				t.Errorf("%s from %v, MinStep %v: %+v, want NewtonFailure after t = 1 with %q", m.Name(), c.h0, c.hmin, se, c.detail)
			}
		}
	}
}

// An event exactly at the end of a step does not truncate it, so the
// step proposed next is the controller's: y' = 1 from (0, 0) with an
// InitialStep of 1 (exact steps: the controller grows the step fivefold
// to 5), then Step(1.1), a step of 0.1 landing on tMax, where the event
// g = t − 1.1 is exactly zero. The landing step keeps the proposal 5.
func TestESDIRKEventAtStepEndA(t *testing.T) {
	sys := unitRateA(func(t float64, _, d []float64) error { d[0] = t - 1.1; return nil }, 1)
	for _, m := range []AdaptiveMethod{ESDIRK43{InitialStep: 1}, ESDIRK32{InitialStep: 1}} {
		d, err := m.NewDriver(sys, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Init(0, []float64{0}); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Step(10); err != nil {
			t.Fatal(err)
		}
		if h := d.NextStep(); h != 5 {
			t.Fatalf("%s: next step %v after an exact first step of 1, want 5", m.Name(), h)
		}
		rep, err := d.Step(1.1)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Event != 0 || rep.T1 != 1.1 || d.NextStep() != 5 {
			t.Errorf("%s: %+v, next step %v; want the event at 1.1 and the next step 5", m.Name(), rep, d.NextStep())
		}
	}
}

// After a rejected trial the ESDIRK driver retries with
// h·max(0.2, 0.9·err^(−1/k)) (Hairer & Wanner's controller; k the
// embedded order + 1). The error norm of the rejected trial is made
// known in advance: on y' = −y the stages of a step are the same at any
// tolerance (linear, exact Jacobian: Newton is exact), so the estimate
// LocalError of an accepted step of h = 0.5 at a loose RTol, rescaled to
// a tolerance RTol' chosen to make the norm exactly 2, is the norm the
// same trial has at RTol'. With MaxSteps = 1 the Step then fails with
// MaxStepsReached, its Dt the step the driver would retry with (checked
// to 1e-9 relative: the two runs' stages differ only by rounding).
func TestESDIRKRejectionFactorA(t *testing.T) {
	const h, atol = 0.5, 1e-12
	for _, c := range []struct {
		m func(rtol float64) AdaptiveMethod
		k float64
	}{
		{func(r float64) AdaptiveMethod { return ESDIRK43{RTol: r, ATol: atol, InitialStep: h} }, 4},
		{func(r float64) AdaptiveMethod { return ESDIRK32{RTol: r, ATol: atol, InitialStep: h} }, 3},
	} {
		d, err := c.m(0.1).NewDriver(decayA(1), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Init(0, []float64{1}); err != nil {
			t.Fatal(err)
		}
		rep, err := d.Step(10)
		if err != nil || rep.H != h || d.Work().Rejected != 0 {
			t.Fatalf("%s: first step %+v, %v: the test needs the step 0.5 accepted", c.m(0.1).Name(), rep, err)
		}
		e := []float64{0}
		d.(ErrorEstimator).LocalError(e)
		_, y1 := d.State()
		scale := math.Max(1, math.Abs(y1[0]))
		rtol := (math.Abs(e[0])/2 - atol) / scale // the norm |e|/(ATol + RTol'·max(|y0|, |y1|)) = 2
		d2, err := c.m(rtol).NewDriver(decayA(1), &DriverOptions{MaxSteps: 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := d2.Init(0, []float64{1}); err != nil {
			t.Fatal(err)
		}
		_, err = d2.Step(10)
		se := stepErrA(t, err)
		want := h * math.Max(0.2, 0.9*math.Pow(2, -1/c.k))
		if se.Status != MaxStepsReached || math.Abs(se.Dt-want) > 1e-9*want {
			t.Errorf("%s: %+v, want MaxStepsReached with the retry step %.17g", c.m(rtol).Name(), se, want)
		}
	}
}
