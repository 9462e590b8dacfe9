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
	return newFixedC(t, GeneralizedAlpha{Newton: n}, sys, y0)
}

// TestAlphaPredictorExactC: the Newton iteration of generalized-alpha
// starts from the carried acceleration and z0 + dt·ż0 for each extra
// quantity. For a free particle (a = 0) with constant rates ż = (3, 5)
// that guess is the solution, so every step converges at its first
// iteration: 10 steps, 10 Newton iterations; and z(1) = z0 + (3, 5).
func TestAlphaPredictorExactC(t *testing.T) {
	sys := partFunc{n: 4, pos: []int{0}, vel: []int{1}, f: func(t float64, y, dst []float64) error {
		dst[0], dst[1], dst[2], dst[3] = y[1], 0, 3, 5
		return nil
	}}
	st := newAlphaC(t, sys, []float64{0, 2, 1, 2}, NewtonOptions{})
	for range 10 {
		if err := st.Step(0.1); err != nil {
			t.Fatal(err)
		}
	}
	_, y := st.State()
	if w := st.Work(); w.NewtonIters != 10 {
		t.Errorf("%d Newton iterations for 10 steps, want 10 (exact predictor)", w.NewtonIters)
	}
	if math.Abs(y[0]-2) > 1e-13 || math.Abs(y[2]-4) > 1e-13 || math.Abs(y[3]-7) > 1e-13 {
		t.Errorf("state %v, want q = 2t = 2 and z = (1 + 3t, 2 + 5t) = (4, 7)", y)
	}
}

// TestAlphaNoPositionsC: generalized-alpha also integrates a system of
// extra quantities alone (no position/velocity pairs): ż = −z from 1,
// z(1) = e^{−1}; the method is second order on it, so dt = 0.01 gives an
// error of order 1e-5 (measured 3.1e-6; bound 1e-4).
func TestAlphaNoPositionsC(t *testing.T) {
	sys := partFunc{n: 1, pos: []int{}, vel: []int{}, f: func(t float64, y, dst []float64) error {
		dst[0] = -y[0]
		return nil
	}}
	st := newAlphaC(t, sys, []float64{1}, NewtonOptions{})
	for range 100 {
		if err := st.Step(0.01); err != nil {
			t.Fatal(err)
		}
	}
	_, y := st.State()
	t.Logf("z(1) error %.2e", y[0]-math.Exp(-1))
	if math.Abs(y[0]-math.Exp(-1)) > 1e-4 {
		t.Errorf("z(1) = %v, want e^-1 = %v", y[0], math.Exp(-1))
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

// TestAlphaNonFiniteEndpointC: a step whose Newton iteration converged
// but whose end state is not finite fails with NonFinite, also when the
// bad value is the first of its list and with extra quantities present
// (their rates are re-evaluated at the end point). A free particle at
// q = v = 1e308 overflows q in one step of 1 (q1 = q0 + dt·v0 = +Inf;
// a = 0 keeps Newton exact): component 0. The rate of the extra quantity
// turning NaN at the final evaluation of the first step alone (the 8th
// call of f: 1 for the initial acceleration, then 2 residuals, 4 for the
// finite-difference Newton matrix and the end point, counted in a run of
// this system) must fail the step too.
func TestAlphaNonFiniteEndpointC(t *testing.T) {
	free := partFunc{n: 3, pos: []int{0}, vel: []int{1}, f: func(t float64, y, dst []float64) error {
		dst[0], dst[1], dst[2] = y[1], 0, 0
		return nil
	}}
	st := newAlphaC(t, free, []float64{1e308, 1e308, 0}, NewtonOptions{})
	err := st.Step(1)
	var se *StepError
	if !errors.As(err, &se) || se.Status != NonFinite || se.Index != 0 {
		t.Errorf("q overflow: %v, want NonFinite in component 0", err)
	}
	calls := 0
	late := partFunc{n: 3, pos: []int{0}, vel: []int{1}, f: func(t float64, y, dst []float64) error {
		calls++
		dst[0], dst[1], dst[2] = y[1], 0, 1
		if calls == 8 {
			dst[2] = math.NaN()
		}
		return nil
	}}
	st = newAlphaC(t, late, []float64{0, 1, 0}, NewtonOptions{})
	err = st.Step(0.5)
	if !errors.As(err, &se) || se.Status != NonFinite {
		t.Errorf("NaN rate at the end point: %v, want NonFinite", err)
	}
}
