package integrators

import (
	"errors"
	"testing"
)

// overflowA is y₀' = 1e308, y₁' = 0 (f constant: Newton converges at
// once, and every stage slope is the same, so the error estimate
// Σ dᵢ·kᵢ is zero): from y₀ = 1.5e308 a step of 1 overflows y₀ to +Inf
// while the error test, scaled by |y|, passes.
func overflowA() jacSysA {
	return jacSysA{n: 2,
		f:   func(_ float64, _, d []float64) { d[0], d[1] = 1e308, 0 },
		jac: func(_ float64, _, d []float64) { clear(d) }}
}

// A state that overflows in component 0 is reported as NonFinite naming
// component 0 (StepError.Index), by the adaptive drivers and the
// fixed-step Steppers (BDF's through its ESDIRK43 starting step; the
// Steppers' errors name the step, 1), not taken as a state.
func TestOverflowInFirstComponentA(t *testing.T) {
	for _, m := range adaptiveImplicitA(StepControl{InitialStep: 1}) {
		d, err := m.NewDriver(overflowA(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Init(0, []float64{1.5e308, 0}); err != nil {
			t.Fatal(err)
		}
		_, err = d.Step(1)
		se := stepErrA(t, err)
		if se.Status != NonFinite || se.Index != 0 {
			t.Errorf("%s driver: %+v, want NonFinite in component 0", m.Name(), se)
		}
	}
	for _, m := range []Method{BDF{MaxOrder: 3}, ESDIRK43{}, ESDIRK32{}} {
		s, err := m.New(overflowA(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Init(0, []float64{1.5e308, 0}); err != nil {
			t.Fatal(err)
		}
		err = s.Step(1)
		se := stepErrA(t, err)
		if se.Status != NonFinite || se.Index != 0 || se.Step != 1 {
			t.Errorf("%s Stepper: %+v, want NonFinite in component 0 at step 1", m.Name(), se)
		}
	}
}

// The fixed-step BDF Stepper refuses a step whose new state overflows
// even when its Newton correction is finite: y' = 1e308 from y = 1.5e308
// overflows to +Inf in one step of 1 s, with the correction itself
// finite (it is the step of a linear problem). It checked only the
// correction and returned the state [+Inf 0] without an error, where
// the adaptive BDF driver and the ESDIRK Steppers report NonFinite. At
// order 1 the first step is BDF's own; the state must be unchanged after
// the refusal.
func TestBDFStepperOverflowA(t *testing.T) {
	s, err := BDF{MaxOrder: 1}.New(overflowA(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Init(0, []float64{1.5e308, 0}); err != nil {
		t.Fatal(err)
	}
	err = s.Step(1)
	var se *StepError
	if !errors.As(err, &se) || se.Status != NonFinite || se.Index != 0 {
		_, y := s.State()
		t.Fatalf("Step: %v with state %v, want a NonFinite StepError naming component 0", err, y)
	}
	if tt, y := s.State(); tt != 0 || y[0] != 1.5e308 || y[1] != 0 {
		t.Errorf("after the refused step: t = %g, y = %v, want the initial state", tt, y)
	}
}

// The fixed-step BDF Stepper refuses a step whose prediction and Newton
// correction are finite but whose sum, the new state, is not: y' = 0.6·y
// from y = 0.8e308 with a step of 1 at order 1 predicts y_p = y + h·f =
// 1.28e308 and solves y₁ = y + 0.6·y₁, so y₁ = 2e308 (+Inf) with the
// correction y₁ − y_p = 0.72e308 finite (the Newton solve of a linear
// problem: residual 0.288e308 over 1 − 0.6 = 0.4). Subtracting the
// correction instead of adding it would give a finite number.
func TestBDFStepperOverflowByCorrectionA(t *testing.T) {
	sys := jacSysA{n: 1,
		f:   func(_ float64, y, d []float64) { d[0] = 0.6 * y[0] },
		jac: func(_ float64, _, d []float64) { d[0] = 0.6 }}
	s, err := BDF{MaxOrder: 1}.New(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Init(0, []float64{0.8e308}); err != nil {
		t.Fatal(err)
	}
	err = s.Step(1)
	var se *StepError
	if !errors.As(err, &se) || se.Status != NonFinite || se.Index != 0 {
		_, y := s.State()
		t.Fatalf("Step: %v with state %v, want a NonFinite StepError naming component 0", err, y)
	}
	if _, y := s.State(); y[0] != 0.8e308 {
		t.Errorf("after the refused step: y = %v, want the initial state", y)
	}
}
