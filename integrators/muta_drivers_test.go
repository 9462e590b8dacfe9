package integrators

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// jacSysA is a system with an analytic Jacobian (row-major), for tests
// that need to control what the Newton iteration sees.
type jacSysA struct {
	n   int
	f   func(t float64, y, d []float64)
	jac func(t float64, y, d []float64)
}

func (s jacSysA) Dim() int { return s.n }
func (s jacSysA) Func(t float64, y, d []float64) error {
	s.f(t, y, d)
	return nil
}
func (s jacSysA) Jacobian(t float64, y, d []float64) error {
	s.jac(t, y, d)
	return nil
}

// decayA is y' = −y (n components), Jacobian −I.
func decayA(n int) jacSysA {
	return jacSysA{n: n,
		f: func(_ float64, y, d []float64) {
			for i := range y {
				d[i] = -y[i]
			}
		},
		jac: func(_ float64, _, d []float64) {
			clear(d)
			for i := 0; i < n; i++ {
				d[i*n+i] = -1
			}
		}}
}

// jumpA is y' = 0 up to t0 and 1e10 after it (f does not depend on y,
// so Newton converges at once): a step from t0 has a local error of
// about 1e10·h, which the error test refuses down to steps of 1e-16 and
// less, far more failures than a step may have.
func jumpA(t0 float64) jacSysA {
	return jacSysA{n: 1,
		f: func(t float64, _, d []float64) {
			d[0] = 0
			if t > t0 {
				d[0] = 1e10
			}
		},
		jac: func(_ float64, _, d []float64) { d[0] = 0 }}
}

// wrongJacA is the stiff y' = −1e8·(y − 1) with a Jacobian the user got
// wrong (zero): the Newton iteration is then a fixed-point iteration,
// which diverges for every step above 1e-8, far below where ten
// quarterings from 0.1 reach.
func wrongJacA() jacSysA {
	return jacSysA{n: 1,
		f:   func(_ float64, y, d []float64) { d[0] = -1e8 * (y[0] - 1) },
		jac: func(_ float64, _, d []float64) { d[0] = 0 }}
}

func stepErrA(t *testing.T, err error) *StepError {
	t.Helper()
	var se *StepError
	if !errors.As(err, &se) {
		t.Fatalf("error %v (%T), want a *StepError", err, err)
	}
	return se
}

// adaptiveImplicitA returns the adaptive implicit methods with step
// control c.
func adaptiveImplicitA(c StepControl) []AdaptiveMethod {
	return []AdaptiveMethod{BDF{}.WithControl(c), ESDIRK43{}.WithControl(c), ESDIRK32{}.WithControl(c)}
}

// A step that would reach tMax within a relative 1e-10 lands on tMax
// exactly (Driver.Step: the step ends no later than tMax, and a sliver
// of a step is not left over): from t = 0 with the initial step h,
// Step(h·(1 + 1e-10)) and Step(h·(1 + 5e-11)) both end at their tMax;
// Step(h·(1 + 1e-9)) takes the step h. Every first step here is accepted
// (y' = −y, h = 0.01: BDF-1's local error h²/2 = 5e-5 is within RTol = ATol = 1e-3), checked by Work.
func TestAdaptiveImplicitLandsOnTMaxA(t *testing.T) {
	const h = 0.01
	for _, m := range adaptiveImplicitA(StepControl{RTol: 1e-3, ATol: 1e-3, InitialStep: h}) {
		for _, c := range []struct {
			rel  float64
			land bool
		}{{1e-10, true}, {5e-11, true}, {1e-9, false}} {
			d, err := m.NewDriver(decayA(1), nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Init(0, []float64{1}); err != nil {
				t.Fatal(err)
			}
			tMax := 0 + h*(1+c.rel)
			rep, err := d.Step(tMax)
			if err != nil {
				t.Fatal(err)
			}
			if w := d.Work(); w.Rejected != 0 {
				t.Fatalf("%s: first step rejected (%+v): the test needs it accepted", m.Name(), w)
			}
			want := h
			if c.land {
				want = tMax
			}
			if rep.T1 != want || rep.Event != -1 {
				t.Errorf("%s: Step(h·(1+%g)) ended at %.17g (event %d), want %.17g (event −1)", m.Name(), c.rel, rep.T1, rep.Event, want)
			}
		}
	}
}

// MaxSteps bounds the trials of one Step: a first trial of 1 on
// y' = −1000y is rejected by the error test, and with MaxSteps = 1 the
// Step fails with MaxStepsReached at t0, naming no component (Index −1,
// StepError's "none") and the step it would have tried next.
func TestAdaptiveImplicitMaxStepsErrorA(t *testing.T) {
	stiff := jacSysA{n: 1, f: func(_ float64, y, d []float64) { d[0] = -1000 * y[0] },
		jac: func(_ float64, _, d []float64) { d[0] = -1000 }}
	for _, m := range adaptiveImplicitA(StepControl{RTol: 1e-6, ATol: 1e-9, InitialStep: 1}) {
		d, err := m.NewDriver(stiff, &DriverOptions{MaxSteps: 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Init(0, []float64{1}); err != nil {
			t.Fatal(err)
		}
		_, err = d.Step(10)
		se := stepErrA(t, err)
		if se.Status != MaxStepsReached || se.Index != -1 || se.T != 0 || !(se.Dt > 0 && se.Dt < 1) {
			t.Errorf("%s: %+v, want MaxStepsReached at t = 0, Index −1, the next step in (0, 1)", m.Name(), se)
		}
	}
}

// An error test that cannot be passed ends the step with StepTooSmall
// (Index −1): BDF after bdfMaxNef = 7 error-test failures (a jump of f
// to 1e10 right after t0 = 1; each failure cuts the step by at most a
// factor 10 from 0.01, so seven fail well before the smallest step),
// each counted in Work.Rejected; ESDIRK when the step falls below
// MinStep (0.2 per failure from 0.01 to below MinStep = 1e-4).
func TestAdaptiveImplicitErrorTestGivesUpA(t *testing.T) {
	d, err := BDF{InitialStep: 0.01}.NewDriver(jumpA(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Init(1, []float64{0}); err != nil {
		t.Fatal(err)
	}
	_, err = d.Step(2)
	se := stepErrA(t, err)
	if w := d.Work(); se.Status != StepTooSmall || se.Index != -1 || se.T != 1 || w.Rejected != 7 || w.Steps != 0 ||
		!strings.Contains(se.Detail, "failed at 7 trials") {
		t.Errorf("BDF: %+v after %+v, want StepTooSmall at t = 1 after 7 rejections", se, w)
	}
	for _, m := range []AdaptiveMethod{ESDIRK43{InitialStep: 0.01, MinStep: 1e-4}, ESDIRK32{InitialStep: 0.01, MinStep: 1e-4}} {
		d, err := m.NewDriver(jumpA(1), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Init(1, []float64{0}); err != nil {
			t.Fatal(err)
		}
		_, err = d.Step(2)
		se := stepErrA(t, err)
		if w := d.Work(); se.Status != StepTooSmall || se.Index != -1 || se.T != 1 || !(se.Dt < 1e-4) || w.Rejected < 2 {
			t.Errorf("%s: %+v after %+v, want StepTooSmall at t = 1 below MinStep 1e-4", m.Name(), se, w)
		}
	}
}

// A step at exactly the smallest step allowed that fails is the last:
// BDF gives up when h ≤ MinStep·(1 + 1e-10), so a first step of exactly
// MinStep·(1 + 1e-10) that fails its error test (the jump of jumpA) or
// its Newton iteration (wrongJacA) ends the Step at that one trial,
// with the step in the error. Not at the bound (a first step of
// 2·MinStep), the Newton failure cuts the step to MinStep itself
// (max(0.25, MinStep/h)) and fails there: two trials, Dt = MinStep.
func TestBDFGivesUpAtMinStepA(t *testing.T) {
	const hmin = 1e-3
	hb := hmin * (1 + 1e-10)
	for _, c := range []struct {
		name   string
		sys    jacSysA
		h0     float64
		status Termination
		trials int
		dt     float64
	}{
		{"error test at the bound", jumpA(1), hb, StepTooSmall, 1, hb},
		{"Newton at the bound", wrongJacA(), hb, NewtonFailure, 1, hb},
		{"Newton from 2·MinStep", wrongJacA(), 2 * hmin, NewtonFailure, 2, hmin},
	} {
		d, err := BDF{InitialStep: c.h0, MinStep: hmin}.NewDriver(c.sys, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Init(1, []float64{0}); err != nil {
			t.Fatal(err)
		}
		_, err = d.Step(2)
		se := stepErrA(t, err)
		w := d.Work()
		if se.Status != c.status || w.Rejected != c.trials || math.Abs(se.Dt-c.dt) > 1e-15*c.dt {
			t.Errorf("%s: %+v after %d rejections, want %v after %d with Dt %.17g", c.name, se, w.Rejected, c.status, c.trials, c.dt)
		}
	}
}

// A Newton iteration that cannot converge (wrongJacA) ends BDF's Step
// after bdfMaxNcf = 10 convergence failures, each a rejected trial, with
// a NewtonFailure naming the count; ESDIRK's after 10 consecutive ones.
func TestAdaptiveImplicitNewtonGivesUpA(t *testing.T) {
	for _, m := range adaptiveImplicitA(StepControl{InitialStep: 0.1}) {
		d, err := m.NewDriver(wrongJacA(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Init(1, []float64{0}); err != nil {
			t.Fatal(err)
		}
		_, err = d.Step(2)
		se := stepErrA(t, err)
		w := d.Work()
		want := "Newton failed at 10 "
		if se.Status != NewtonFailure || !strings.Contains(se.Detail, want) || w.Rejected < 10 || w.Steps != 0 {
			t.Errorf("%s: %+v after %+v, want NewtonFailure %q after at least 10 rejections", m.Name(), se, w, want)
		}
		if m.Name() == MethodBDF && w.Rejected != 10 {
			t.Errorf("BDF: %d rejections, want 10 (one per failed trial)", w.Rejected)
		}
	}
}
