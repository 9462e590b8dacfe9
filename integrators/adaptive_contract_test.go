package integrators

import (
	"context"
	"errors"
	"math"
	"testing"
)

// TestStepControlCheckEdges: the edges of StepControl.Check's documented
// contract. The zero StepControl is every default and is accepted; MinStep
// equal to MaxStep is "at most MaxStep" and accepted (a fixed step size
// the controller may not leave), while MinStep one ulp above MaxStep is
// refused naming MinStep.
func TestStepControlCheckEdges(t *testing.T) {
	if err := (StepControl{}).Check(); err != nil {
		t.Errorf("zero StepControl (all defaults): %v", err)
	}
	if err := (StepControl{MinStep: 0.25, MaxStep: 0.25}).Check(); err != nil {
		t.Errorf("MinStep = MaxStep: %v", err)
	}
	err := (StepControl{MinStep: math.Nextafter(0.25, 1), MaxStep: 0.25}).Check()
	var ce *ControlError
	if !errors.As(err, &ce) || ce.Field != "MinStep" {
		t.Errorf("MinStep just above MaxStep: %v, want a ControlError naming MinStep", err)
	}
}

// TestIntegrateEmptyInterval: Integrate requires tEnd after t0; tEnd = t0
// is refused with Status Failure (its documented contract), not taken as
// a run of no steps.
func TestIntegrateEmptyInterval(t *testing.T) {
	res, err := Integrate(DormandPrince{}, stiffish, 1, []float64{0}, 1, nil)
	if err == nil || res.Status != Failure {
		t.Errorf("tEnd = t0: err %v, status %v; want an error with Status Failure", err, res.Status)
	}
}

// TestRunMaxStepsCountsThisRun: DriverOptions.MaxSteps bounds the trial
// steps (accepted + rejected) of one Run call, counted from that call's
// start. A driver that has already taken accepted and rejected steps (3
// steps; an InitialStep of 1 on the stiff problem forces rejections) runs
// with MaxSteps = 50 towards a time it cannot reach in 50 steps: the second
// Run takes exactly 50 trial steps (its Work is that call's work), ends
// with MaxStepsReached, and its StepError has Index −1 (no component is
// to blame).
func TestRunMaxStepsCountsThisRun(t *testing.T) {
	for _, m := range []AdaptiveMethod{DormandPrince{InitialStep: 1}, ESDIRK43{InitialStep: 1}} {
		d, err := m.NewDriver(stiffish, &DriverOptions{MaxSteps: 50})
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Init(0, []float64{0}); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 3; i++ {
			if _, err := d.Step(1000); err != nil {
				t.Fatalf("%s: step %d: %v", d.Method(), i, err)
			}
		}
		w0 := d.Work()
		if w0.Steps == 0 || w0.Rejected == 0 {
			t.Fatalf("%s: first run took %+v; the test needs accepted and rejected steps before the second", d.Method(), w0)
		}
		res, err := d.Run(context.Background(), 1000, nil)
		var se *StepError
		if !errors.As(err, &se) || res.Status != MaxStepsReached {
			t.Fatalf("%s: second run: %v %v, want MaxStepsReached", d.Method(), err, res.Status)
		}
		if n := res.Work.Steps + res.Work.Rejected; n != 50 {
			t.Errorf("%s: second run took %d trial steps (%+v), want MaxSteps = 50", d.Method(), n, res.Work)
		}
		if se.Index != -1 {
			t.Errorf("%s: MaxStepsReached names component %d, want -1", d.Method(), se.Index)
		}
	}
}

// TestDenseSlack: Dense accepts a time in the last step to a few ulp —
// the documented slack is 4 ulp (4·2⁻⁵² relative) of the larger of |t0|,
// |t1| on either side — and panics outside it. The step starts at 0, so
// the lower edge is −slack; one far from 0 (t near 1e6) checks that the
// slack scales with the time rather than being absolute.
func TestDenseSlack(t *testing.T) {
	for _, t0 := range []float64{0, 1e6} {
		a, err := NewAdaptive(DormandPrince{InitialStep: 0.5, MaxStep: 0.5}, stiffish, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Init(t0, []float64{0}); err != nil {
			t.Fatal(err)
		}
		rep, err := a.Step(t0 + 10)
		if err != nil {
			t.Fatal(err)
		}
		t1 := rep.T1
		slack := 4 * 0x1p-52 * math.Max(math.Abs(t0), math.Abs(t1))
		dst := make([]float64, 1)
		for _, tt := range []float64{t0 - slack, t1 + slack, t0, t1} {
			if p := panics(func() { a.Dense(tt, dst) }); p {
				t.Errorf("t0=%v: Dense(%v) panics within the slack of [%v, %v]", t0, tt, t0, t1)
			}
		}
		for _, tt := range []float64{t0 - 1e-3*(t1-t0), t1 + 1e-3*(t1-t0)} {
			if p := panics(func() { a.Dense(tt, dst) }); !p {
				t.Errorf("t0=%v: Dense(%v) outside [%v, %v] does not panic", t0, tt, t0, t1)
			}
		}
	}
}

// panics reports whether f panics.
func panics(f func()) (p bool) {
	defer func() { p = recover() != nil }()
	f()
	return false
}

// TestInitNonFiniteFirstComponent: a NaN in the first component of the
// initial state is a *StepError NonFinite naming component 0 for the
// implicit adaptive drivers (BDF, ESDIRK), as for any other component.
func TestInitNonFiniteFirstComponent(t *testing.T) {
	for _, m := range []AdaptiveMethod{BDF{}, ESDIRK43{}} {
		d, err := m.NewDriver(linearDecay{lambda: []float64{-1, -2}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		err = d.Init(0, []float64{math.NaN(), 1})
		var se *StepError
		if !errors.As(err, &se) || se.Status != NonFinite || se.Index != 0 {
			t.Errorf("%s: Init with y0[0] = NaN: %v, want NonFinite at index 0", d.Method(), err)
		}
	}
}

// TestStepMaxTrialsAndTime: one Step of an adaptive driver makes at most
// MaxSteps trials: with MaxSteps = 1 and a first step too large for the
// stiff problem (InitialStep 1: rejected), Step ends with MaxStepsReached
// after exactly one rejected trial and no accepted step. Step to the
// current time is a programmer error (tMax must be after t): it panics,
// for DormandPrince, BDF and ESDIRK43 alike. Init refuses a NaN in y0[0]
// naming component 0.
func TestStepMaxTrialsAndTime(t *testing.T) {
	for _, m := range []AdaptiveMethod{DormandPrince{InitialStep: 1}, BDF{InitialStep: 1}, ESDIRK43{InitialStep: 1}} {
		d, err := m.NewDriver(stiffish, &DriverOptions{MaxSteps: 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Init(0, []float64{0}); err != nil {
			t.Fatal(err)
		}
		_, err = d.Step(10)
		var se *StepError
		if !errors.As(err, &se) || se.Status != MaxStepsReached {
			t.Errorf("%s: %v, want MaxStepsReached", d.Method(), err)
		}
		if w := d.Work(); w.Rejected != 1 || w.Steps != 0 {
			t.Errorf("%s: %+v, want exactly one rejected trial", d.Method(), w)
		}
		if !panics(func() { d.Step(0) }) {
			t.Errorf("%s: Step(t) at the current time does not panic", d.Method())
		}
		err = d.Init(0, []float64{math.NaN()})
		if !errors.As(err, &se) || se.Status != NonFinite || se.Index != 0 {
			t.Errorf("%s: Init with y0[0] = NaN: %v, want NonFinite at index 0", d.Method(), err)
		}
	}
}

// failingEvents is the bouncing ball whose event function fails from
// t ≥ tFail.
type failingEvents struct {
	ball
	tFail float64
}

func (b *failingEvents) Events(t float64, y, dst []float64) error {
	if t >= b.tFail {
		return errors.New("event function failed")
	}
	return b.ball.Events(t, y, dst)
}

// TestEventErrorNamesStep: an error of the event functions at the end of
// a step is a *StepError with Status Failure naming the step: its end
// time T and its size Dt. DormandPrince with a fixed step of 0.1 from
// t = 0 evaluates the events at 0.1, 0.2, 0.3 and fails at 0.4 (tFail =
// 0.35): T = 0.4 and Dt = 0.1 (to rounding of the clock's times).
func TestEventErrorNamesStep(t *testing.T) {
	d, err := DormandPrince{FixedStep: 0.1}.NewDriver(&failingEvents{ball: ball{g: 9.81, e: 0.9}, tFail: 0.35}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Init(0, []float64{10, 0}); err != nil {
		t.Fatal(err)
	}
	for err == nil {
		_, err = d.Step(10)
	}
	var se *StepError
	if !errors.As(err, &se) || se.Status != Failure || math.Abs(se.T-0.4) > 1e-12 || math.Abs(se.Dt-0.1) > 1e-12 {
		t.Errorf("%v (%+v), want a Failure at T = 0.4 with Dt = 0.1", err, se)
	}
}

// TestTimeEventAtStepEnd: a time event exactly at the end a caller asks
// of a step (Step's tMax) is still a time event: the step's stages are
// evaluated below it (the left limit), so on y' = u(t), u = 0 before
// τ = 1 and 3 from it (stepped), the state at 1 is exactly 0 (the closed
// form 3·max(0, t − τ) at t = τ), for every adaptive driver, where a
// stage at t = 1 itself would add 3·(its weight)·h.
func TestTimeEventAtStepEnd(t *testing.T) {
	for _, m := range []AdaptiveMethod{DormandPrince{}, ESDIRK43{}, ESDIRK32{}, BDF{}} {
		d, err := m.NewDriver(stepped{tau: 1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Init(0, []float64{0}); err != nil {
			t.Fatal(err)
		}
		for tt := 0.0; tt < 1; {
			rep, err := d.Step(1)
			if err != nil {
				t.Fatal(err)
			}
			tt = rep.T1
		}
		if tt, y := d.State(); tt != 1 || y[0] != 0 {
			t.Errorf("%s: at t = %v, y = %v; want exactly 0 at 1", d.Method(), tt, y[0])
		}
	}
}
