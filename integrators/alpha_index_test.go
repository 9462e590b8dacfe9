package integrators

import (
	"errors"
	"math"
	"testing"
)

// A generalized-alpha or Newmark step on a Partitioned first-order
// System names the System's component in a NonFinite StepError, as
// StepError.Index documents ("component index"): the stepper works on
// lists of positions, velocities and extra quantities, and once reported
// a position in its list (a NaN extra rate of y = [q, v, z] read
// "component 1", the velocity). The layout here, y = [z, v, q], puts no
// list position on its own component. The NaN is made at the step's
// first evaluation (the physical acceleration and extra rates at t0)
// and at its last (the extra rates at the converged end point), counted
// in a clean step first.
func TestAlphaNonFiniteIndexNamesComponent(t *testing.T) {
	for _, m := range []Method{GeneralizedAlpha{}, Newmark{}} {
		step := func(nanAt, bad int) (calls int, err error) {
			// q' = v, v' = −q, z' = 1.
			sys := partFunc{n: 3, pos: []int{2}, vel: []int{1}, f: func(t float64, y, dst []float64) error {
				calls++
				dst[2], dst[1], dst[0] = y[1], -y[2], 1
				if calls == nanAt {
					dst[bad] = math.NaN()
				}
				return nil
			}}
			st, err := NewStepper(m, sys, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := st.Init(0, []float64{0, 1, 0}); err != nil {
				t.Fatal(err)
			}
			return calls, st.Step(0.5)
		}
		last, err := step(-1, 0)
		if err != nil || last < 2 {
			t.Fatalf("clean step: %d evaluations, %v", last, err)
		}
		for _, c := range []struct {
			what       string
			nanAt, bad int
		}{{"velocity rate at t0", 1, 1}, {"extra rate at t0", 1, 0}, {"extra rate at the end point", last, 0}} {
			_, err := step(c.nanAt, c.bad)
			var se *StepError
			if !errors.As(err, &se) || se.Status != NonFinite || se.Index != c.bad {
				t.Errorf("%T, NaN %s (component %d): %v, want NonFinite in component %d", m, c.what, c.bad, err, c.bad)
			}
		}
	}
}

// With GMRES, a non-finite Newton residual is refused at once, naming
// the System component of its row: the residual's rows are the
// accelerations, then the extra quantities (x = [a, z]). A NaN extra
// rate from the step's second evaluation on (the first is the physical
// acceleration at t0) is row nq = 1 of the residual, the extra quantity y[0] of y = [z, v, q].
func TestAlphaKrylovResidualIndexNamesComponent(t *testing.T) {
	for _, m := range []Method{GeneralizedAlpha{Linear: LinearOptions{Solver: LinearGMRES}}, Newmark{Linear: LinearOptions{Solver: LinearGMRES}}} {
		calls := 0
		sys := partFunc{n: 3, pos: []int{2}, vel: []int{1}, f: func(t float64, y, dst []float64) error {
			calls++
			dst[2], dst[1], dst[0] = y[1], -y[2], 1
			if calls >= 2 {
				dst[0] = math.NaN()
			}
			return nil
		}}
		st, err := NewStepper(m, sys, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Init(0, []float64{0, 1, 0}); err != nil {
			t.Fatal(err)
		}
		err = st.Step(0.5)
		var se *StepError
		if !errors.As(err, &se) || se.Status != NonFinite || se.Index != 0 {
			t.Errorf("%T: %v (%d evaluations), want NonFinite in component 0 (the extra quantity)", m, err, calls)
		}
	}
}

// A right-hand side's own error in an implicit stage solve is a Failure
// naming no component (Index −1: the error is the function's, not a
// value's), wrapping the function's error.
func TestStageSolveFuncErrorNamesNoComponent(t *testing.T) {
	boom := errors.New("boom")
	calls := 0
	sys := SystemFunc{N: 2, F: func(t float64, y, dst []float64) error {
		calls++
		if calls > 1 {
			return boom
		}
		dst[0], dst[1] = y[1], -y[0]
		return nil
	}}
	for _, m := range []Method{ESDIRK43{}, BDF{MaxOrder: 1}} {
		calls = 0
		st, err := NewStepper(m, sys, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Init(0, []float64{1, 0}); err != nil {
			t.Fatal(err)
		}
		err = st.Step(0.1)
		var se *StepError
		if !errors.As(err, &se) || se.Index != -1 || !errors.Is(err, boom) {
			t.Errorf("%T: %v, want a StepError with Index −1 wrapping the function's error", m, err)
		}
	}
}
