package integrators

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// TestTerminationStringC: every status has its name, and a value outside
// the table (below NotTerminated = 0, or just past the last status) prints as
// Termination(n) instead of indexing out of range.
func TestTerminationStringC(t *testing.T) {
	if got := NotTerminated.String(); got != "NotTerminated" {
		t.Errorf("NotTerminated (0) prints %q", got)
	}
	if got := Success.String(); got != "Success" {
		t.Errorf("Success prints %q", got)
	}
	if got := Cancelled.String(); got != "Cancelled" {
		t.Errorf("Cancelled prints %q", got)
	}
	past := Termination(len(statusNames))
	if got, want := past.String(), "Termination("+strconv.Itoa(len(statusNames))+")"; got != want {
		t.Errorf("Termination(len) prints %q, want %q", got, want)
	}
	if got := Termination(-1).String(); got != "Termination(-1)" {
		t.Errorf("Termination(-1) prints %q", got)
	}
}

// TestStepErrorMessageC: the message of a StepError gives the step
// number only when known (Step > 0), the time and step size with every
// digit (a user must be able to find the instant again), the component
// only when there is one (Index ≥ 0, including component 0), and the
// Newton residual only when one was measured (> 0).
func TestStepErrorMessageC(t *testing.T) {
	for _, tc := range []struct {
		e    StepError
		want string
	}{
		{StepError{Method: "rk4", Status: NonFinite, T: 0.125, Dt: 0.0625, Index: 0},
			"integrators: rk4: step at t=0.125 (dt=0.0625): non-finite value in component 0"},
		{StepError{Method: "rk4", Status: NonFinite, T: 1.375, Dt: 0.25, Index: -1, Step: 3},
			"integrators: rk4: step 3 at t=1.375 (dt=0.25): non-finite value"},
		{StepError{Method: "bdf", Status: NewtonFailure, T: 2.5, Dt: 0.125, Index: -1, Iter: 4, Residual: 0},
			"integrators: bdf: step at t=2.5 (dt=0.125): Newton iteration did not converge after 4 iterations"},
		{StepError{Method: "bdf", Status: NewtonFailure, T: 2.5, Dt: 0.125, Index: -1, Iter: 4, Residual: 1.5},
			"integrators: bdf: step at t=2.5 (dt=0.125): Newton iteration did not converge after 4 iterations, last residual norm 1.5"},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("got  %q\nwant %q", got, tc.want)
		}
	}
}

// TestStateMismatchMessageC: the values in a state-mismatch error are
// printed with every digit (fmtF), so that two close values differ.
func TestStateMismatchMessageC(t *testing.T) {
	e := &StateMismatchError{Field: "time", Want: fmtF(0.125), Got: fmtF(1.0625)}
	if got, want := e.Error(), "integrators: state mismatch: time is 1.0625, stepper has 0.125"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if !errors.Is(e, ErrStateMismatch) || !strings.Contains(e.Error(), "1.0625") {
		t.Error("not ErrStateMismatch")
	}
}

// TestWorkSubC: Sub is the field-wise difference of two snapshots.
func TestWorkSubC(t *testing.T) {
	s := Work{Steps: 10, Rejected: 9, FuncEvals: 80, JacEvals: 7, NewtonIters: 60, LinearSolves: 50, LinearIters: 40, Factorize: 30, EventEvals: 20, EventsHandled: 5}
	o := Work{Steps: 1, Rejected: 2, FuncEvals: 3, JacEvals: 4, NewtonIters: 5, LinearSolves: 6, LinearIters: 7, Factorize: 8, EventEvals: 9, EventsHandled: 1}
	want := Work{Steps: 9, Rejected: 7, FuncEvals: 77, JacEvals: 3, NewtonIters: 55, LinearSolves: 44, LinearIters: 33, Factorize: 22, EventEvals: 11, EventsHandled: 4}
	if got := s.Sub(o); got != want {
		t.Errorf("Sub = %+v, want %+v", got, want)
	}
	var sum Work
	sum.add(o)
	sum.add(want)
	if sum != s {
		t.Errorf("o + (s − o) = %+v, want s = %+v", sum, s)
	}
}
