package integrators

import (
	"errors"
	"strings"
	"testing"
)

// TestSemiImplicitRateToleranceC: the semi-implicit Euler method checks
// that each position rate equals its velocity to a relative 1e-12 of
// their size (rateMatches): a rate that differs from a velocity of 1e3
// by a relative 1e-13 (a different rounding of the same quantity) is
// accepted; one that differs from a velocity of 1e-3 by 1e-12 absolute
// (relative 1e-9) is refused as NotPartitioned naming the pair.
func TestSemiImplicitRateToleranceC(t *testing.T) {
	for _, tc := range []struct {
		v, rel float64
		ok     bool
	}{
		{1e3, 1e-13, true},
		{1e-3, 1e-9, false},
	} {
		rel := tc.rel
		sys := partFunc{n: 2, pos: []int{1}, vel: []int{0}, f: func(t float64, y, dst []float64) error {
			dst[0] = 0
			dst[1] = y[0] * (1 + rel)
			return nil
		}}
		st, err := SemiImplicitEuler{}.New(sys, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Init(0, []float64{tc.v, 0}); err != nil {
			t.Fatal(err)
		}
		err = st.Step(0.1)
		var se *StepError
		switch {
		case tc.ok && err != nil:
			t.Errorf("v = %g, relative difference %g: %v, want accepted", tc.v, tc.rel, err)
		case !tc.ok && (!errors.As(err, &se) || se.Status != NotPartitioned || se.Index != 0):
			t.Errorf("v = %g, relative difference %g: %v, want NotPartitioned for pair 0", tc.v, tc.rel, err)
		}
	}
}

// TestPairsIndexRangeC: a Pairs index equal to Dim is out of range.
func TestPairsIndexRangeC(t *testing.T) {
	sys := partFunc{n: 2, pos: []int{2}, vel: []int{0}, f: func(t float64, y, dst []float64) error { return nil }}
	if _, err := (SemiImplicitEuler{}).New(sys, nil); err == nil || !strings.Contains(err.Error(), "index 2 out of range [0, 2)") {
		t.Errorf("Pairs index 2 of 2: %v, want out of range", err)
	}
}

// TestOutputRepeatedTimesC: output times must ascend, not strictly: a
// time asked for twice gives two samples.
func TestOutputRepeatedTimesC(t *testing.T) {
	res, err := Integrate(DormandPrince{}, &oscillator{}, 0, []float64{1, 0}, 1, &DriverOptions{Output: []float64{0.5, 0.5, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Samples) != 3 || res.Samples[0].T != 0.5 || res.Samples[1].T != 0.5 || res.Samples[0].Y[0] != res.Samples[1].Y[0] {
		t.Errorf("samples %+v, want two identical ones at 0.5 and one at 1", res.Samples)
	}
}

// TestStepSizeZeroPanicsC: Step(0) is a programmer error (a step must be
// positive and finite): it panics with a message naming the value.
func TestStepSizeZeroPanicsC(t *testing.T) {
	st, err := NewStepper(RK4{}, &oscillator{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Init(0, []float64{1, 0}); err != nil {
		t.Fatal(err)
	}
	defer func() {
		r := recover()
		if s, _ := r.(string); !strings.Contains(s, "step size must be positive and finite, got 0") {
			t.Errorf("Step(0): recovered %v, want the step-size panic", r)
		}
	}()
	_ = st.Step(0)
}
