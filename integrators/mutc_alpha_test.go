package integrators

import (
	"errors"
	"math"
	"testing"
)

// newAlphaC returns a generalized-alpha Stepper (default ρ∞) with the
// given Newton options for sys, initialised at (0, y0).
func newAlphaC(t *testing.T, sys System, y0 []float64, n NewtonOptions) Stepper {
	t.Helper()
	st, err := NewStepper(GeneralizedAlpha{Newton: n}, sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Init(0, y0); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestAlphaPredictorExactC: the Newton iteration of generalized-alpha
// starts from the carried acceleration and z0 + dt·ż0 for the extra
// quantities. For a free particle (a = 0) with ż = 1 that guess is the
// solution, so every step converges at its first iteration: 10 steps,
// 10 Newton iterations; and z(1) = 1 exactly up to rounding.
func TestAlphaPredictorExactC(t *testing.T) {
	sys := partFunc{n: 3, pos: []int{0}, vel: []int{1}, f: func(t float64, y, dst []float64) error {
		dst[0], dst[1], dst[2] = y[1], 0, 1
		return nil
	}}
	st := newAlphaC(t, sys, []float64{0, 2, 0}, NewtonOptions{})
	for range 10 {
		if err := st.Step(0.1); err != nil {
			t.Fatal(err)
		}
	}
	_, y := st.State()
	if w := st.Work(); w.NewtonIters != 10 {
		t.Errorf("%d Newton iterations for 10 steps, want 10 (exact predictor)", w.NewtonIters)
	}
	if math.Abs(y[0]-2) > 1e-13 || math.Abs(y[2]-1) > 1e-13 {
		t.Errorf("state %v, want q = 2t = 2 and z = t = 1", y)
	}
}

// TestAlphaErrorsC: a Newton failure carries no component index, and a
// position rate that is not the velocity is reported as NotPartitioned
// by the method, naming it.
func TestAlphaErrorsC(t *testing.T) {
	// ẍ = −x³ − 100 sinh(x) from x = 3 with dt = 1: one Newton iteration
	// cannot converge.
	hard := partFunc{n: 2, pos: []int{0}, vel: []int{1}, f: func(t float64, y, dst []float64) error {
		dst[0], dst[1] = y[1], -y[0]*y[0]*y[0]-100*math.Sinh(y[0])
		return nil
	}}
	st := newAlphaC(t, hard, []float64{3, 0}, NewtonOptions{MaxIter: 1})
	err := st.Step(1)
	var se *StepError
	if !errors.As(err, &se) || se.Status != NewtonFailure || se.Index != -1 {
		t.Errorf("err %v, want NewtonFailure with Index -1", err)
	}
	bad := partFunc{n: 2, pos: []int{0}, vel: []int{1}, f: func(t float64, y, dst []float64) error {
		dst[0], dst[1] = 2*y[1]+1, 0
		return nil
	}}
	st = newAlphaC(t, bad, []float64{0, 1}, NewtonOptions{})
	err = st.Step(0.1)
	if !errors.As(err, &se) || se.Status != NotPartitioned || se.Method != MethodGeneralizedAlpha {
		t.Errorf("err %v (%+v), want NotPartitioned from generalized-alpha", err, se)
	}
}

// TestAlphaRestoreWithoutAccelerationC: a checkpoint without the carried
// acceleration (A nil: the stepper then starts from the physical one, as
// after Init) is accepted; one whose A has the wrong length is refused.
func TestAlphaRestoreWithoutAccelerationC(t *testing.T) {
	st := newAlphaC(t, &oscillator{}, []float64{1, 0}, NewtonOptions{})
	if err := st.Step(0.1); err != nil {
		t.Fatal(err)
	}
	cp := st.(Checkpointer).Checkpoint()
	if cp.A == nil {
		t.Fatal("no carried acceleration in the checkpoint")
	}
	bad := cp
	bad.A = []float64{1, 2}
	if err := st.(Checkpointer).Restore(bad); !errors.Is(err, ErrStateMismatch) {
		t.Errorf("A of length 2 for 1 position: %v, want a state mismatch", err)
	}
	cp.A, cp.ZDot = nil, nil
	if err := st.(Checkpointer).Restore(cp); err != nil {
		t.Errorf("checkpoint without A: %v", err)
	}
}
