package integrators

import (
	"errors"
	"math"
	"testing"
)

// fixedStepMethods are every built-in method as a fixed-step Stepper,
// BDF at orders 1 and 5 (order 5 takes ESDIRK43 starting steps).
func fixedStepMethods() []Method {
	return append(Methods(), BDF{MaxOrder: 1}, BDF{MaxOrder: 5})
}

// TestFixedStepWorkCountsSteps: Work.Steps of a fixed-step Stepper is
// the number of accepted steps since Init — 12 after 12 calls of Step on
// the oscillator, BDF's ESDIRK43 starting steps included — with no
// rejection; a second Init resets it.
func TestFixedStepWorkCountsSteps(t *testing.T) {
	for _, m := range fixedStepMethods() {
		st, err := m.New(&oscillator{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for round := 0; round < 2; round++ {
			if err := st.Init(0, []float64{1, 0}); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 12; i++ {
				if err := st.Step(0.01); err != nil {
					t.Fatal(err)
				}
			}
			if w := st.Work(); w.Steps != 12 || w.Rejected != 0 {
				t.Errorf("%s (Init %d): %+v, want 12 steps and no rejection", m.Name(), round+1, w)
			}
		}
	}
}

// TestInitNaNFirstComponentEveryMethod: a NaN in y0[0] is refused at Init
// by every fixed-step Stepper with a *StepError NonFinite naming
// component 0, as a NaN elsewhere names its own.
func TestInitNaNFirstComponentEveryMethod(t *testing.T) {
	for _, m := range fixedStepMethods() {
		for _, bad := range []int{0, 1} {
			st, err := m.New(&oscillator{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			y0 := []float64{1, 0}
			y0[bad] = math.NaN()
			err = st.Init(0, y0)
			var se *StepError
			if !errors.As(err, &se) || se.Status != NonFinite || se.Index != bad {
				t.Errorf("%s: Init with y0[%d] = NaN: %v, want NonFinite at index %d", m.Name(), bad, err, bad)
			}
		}
	}
}

// TestBDFNaNSlopeAtStart: the adaptive BDF evaluates f at the start to
// choose its first step; a NaN there in component 0 is a *StepError
// NonFinite naming component 0.
func TestBDFNaNSlopeAtStart(t *testing.T) {
	sys := SystemFunc{N: 2, F: func(_ float64, y, d []float64) error {
		d[0], d[1] = math.NaN(), -y[1]
		return nil
	}}
	d, err := BDF{}.NewDriver(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Init(0, []float64{1, 1}); err != nil {
		t.Fatal(err)
	}
	_, err = d.Step(1)
	var se *StepError
	if !errors.As(err, &se) || se.Status != NonFinite || se.Index != 0 {
		t.Errorf("NaN f[0] at the start: %v, want NonFinite at index 0", err)
	}
}

// nanAfter is the oscillator whose Func is NaN in component 0 from
// t ≥ tBad.
type nanAfter struct {
	oscillator
	tBad float64
}

func (s *nanAfter) Func(t float64, y, d []float64) error {
	s.oscillator.Func(t, y, d)
	if t >= s.tBad {
		d[0] = math.NaN()
	}
	return nil
}

// TestFixedStepFailureNumbered: when an implicit fixed-step Stepper's
// step fails (a
// NaN from Func from t = 0.025 on, steps of 0.01 from 0: the third step
// is the first to evaluate there), the *StepError names the step, 3,
// counted from 1 since Init; Work counts the 2 accepted steps and at
// least the failed trial as rejected, and the state stays the last
// accepted one (t = 0.02). (The explicit methods leave StepError.Step
// 0, "unknown", which its documentation allows.)
func TestFixedStepFailureNumbered(t *testing.T) {
	for _, m := range fixedStepMethods() {
		if _, implicit := m.(NewtonMethod); !implicit {
			continue
		}
		st, err := m.New(&nanAfter{tBad: 0.025}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Init(0, []float64{1, 0}); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 5 && err == nil; i++ {
			err = st.Step(0.01)
		}
		var se *StepError
		if !errors.As(err, &se) || se.Step != 3 {
			t.Errorf("%s: %v (%+v), want a StepError in step 3", m.Name(), err, se)
			continue
		}
		w := st.Work()
		if w.Steps != 2 || w.Rejected < 1 {
			t.Errorf("%s: %+v, want 2 accepted steps and the failed trial rejected", m.Name(), w)
		}
		if tt, _ := st.State(); math.Abs(tt-0.02) > 1e-15 {
			t.Errorf("%s: state at t = %v after the failure, want the last accepted 0.02", m.Name(), tt)
		}
	}
}
