package integrators

import (
	"errors"
	"fmt"
	"strconv"
)

// Termination says how a step or a driver run ended — accepted or at its
// end (Success), stopped by an event, or why it failed (NonFinite,
// NewtonFailure, StepTooSmall, …) — like gonum's optimize.Status; the
// Status fields of StepError and Outcome hold one. (graph.Status, how a
// whole graph run ended, is coarser: every failure is graph.Failed, the
// error carrying this Termination; hence a different name.)
type Termination int

const (
	// NotTerminated is the zero value: the run has not ended (nothing
	// has set a status yet). It means what graph.NotTerminated means for
	// a whole graph run, and its Err is ErrNotTerminated likewise; a run
	// that returns never reports it (a cancelled one is Cancelled).
	NotTerminated Termination = iota
	// Success means the run reached its end time, or the step was
	// accepted.
	Success
	// StoppedByEvent means an event's reset returned EventStop: the run
	// stopped as asked, at the event time, in the state after the reset
	// (graph.StoppedByEvent is the same for a whole graph run). Its Err
	// is nil. A driver run (Outcome) ends with it and no error; a
	// fixed-step Stepper.Step, whose only result is an error, reports it
	// as a *StepError with this Status, which wraps no sentinel.
	StoppedByEvent
	// Failure means user code (Func, Accel, Events, Reset, Jacobian)
	// returned an error.
	Failure
	// NonFinite means a trial state or error estimate was NaN or ±Inf.
	NonFinite
	// NewtonFailure means the Newton iteration of an implicit method did
	// not converge or its Jacobian was singular.
	NewtonFailure
	// StepTooSmall means the adaptive controller needed a step below
	// DormandPrince.MinStep (or below the resolution of float64 at t).
	StepTooSmall
	// MaxStepsReached means DriverOptions.MaxSteps trial steps were taken.
	MaxStepsReached
	// ZenoDetected means events accumulated: DriverOptions.ZenoLimit
	// consecutive events each closer than DriverOptions.ZenoSpacing to the
	// previous one.
	ZenoDetected
	// StateMismatch means a second-order Memory or a StepperState does
	// not belong to this stepper: its time, method parameters or layout
	// differ.
	StateMismatch
	// NotPartitioned means a first-order System's position rate differed
	// from its paired velocity.
	NotPartitioned
	// LinearFailure means the linear solver of a Newton iteration failed:
	// GMRES stagnated, broke down or reached LinearOptions.KrylovMaxIter, or a
	// preconditioner block (or ILU(0) pivot) was singular.
	LinearFailure
	// Cancelled means the run's context was cancelled or its deadline
	// passed before it ended (graph.Cancelled is the same for a whole
	// graph run); the run's error is the context's. The state is the
	// last accepted one.
	Cancelled
)

var statusNames = [...]string{
	NotTerminated:   "NotTerminated",
	Success:         "Success",
	StoppedByEvent:  "StoppedByEvent",
	Failure:         "Failure",
	NonFinite:       "NonFinite",
	NewtonFailure:   "NewtonFailure",
	StepTooSmall:    "StepTooSmall",
	MaxStepsReached: "MaxStepsReached",
	ZenoDetected:    "ZenoDetected",
	StateMismatch:   "StateMismatch",
	NotPartitioned:  "NotPartitioned",
	LinearFailure:   "LinearFailure",
	Cancelled:       "Cancelled",
}

// String returns the name of the status.
func (s Termination) String() string {
	if s >= 0 && int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "Termination(" + strconv.Itoa(int(s)) + ")"
}

// Sentinel errors returned by Termination.Err and wrapped by *StepError.
var (
	ErrNotTerminated  = errors.New("integrators: the run has not ended")
	ErrCancelled      = errors.New("integrators: the run was cancelled")
	ErrFailure        = errors.New("integrators: user function failed")
	ErrNonFinite      = errors.New("integrators: non-finite value")
	ErrNewton         = errors.New("integrators: Newton iteration did not converge")
	ErrStepTooSmall   = errors.New("integrators: step size too small")
	ErrMaxSteps       = errors.New("integrators: maximum number of steps reached")
	ErrZeno           = errors.New("integrators: Zeno behaviour: events accumulate")
	ErrStateMismatch  = errors.New("integrators: memory or stepper state does not match the stepper")
	ErrNotPartitioned = errors.New("integrators: position rate differs from velocity")
	ErrLinear         = errors.New("integrators: linear solver failed")
)

// Err returns nil for the statuses of a run that ended as asked, Success
// and StoppedByEvent (as graph.Status.Err does for EndReached and
// StoppedByEvent), and the matching sentinel error otherwise.
func (s Termination) Err() error {
	switch s {
	case Success, StoppedByEvent:
		return nil
	case NotTerminated:
		return ErrNotTerminated
	case Cancelled:
		return ErrCancelled
	case Failure:
		return ErrFailure
	case NonFinite:
		return ErrNonFinite
	case NewtonFailure:
		return ErrNewton
	case StepTooSmall:
		return ErrStepTooSmall
	case MaxStepsReached:
		return ErrMaxSteps
	case ZenoDetected:
		return ErrZeno
	case StateMismatch:
		return ErrStateMismatch
	case NotPartitioned:
		return ErrNotPartitioned
	case LinearFailure:
		return ErrLinear
	}
	return fmt.Errorf("integrators: unknown status %d", int(s))
}

// StepError describes a failed step. It names the method, the step (the
// stepper's count of accepted steps plus one), the time at which the
// failing evaluation happened, the step size and, for a non-finite value,
// a partition violation or a singular preconditioner block, the
// component index; a Newton or linear-solver failure carries the last
// Newton residual norm.
//
// errors.Is(err, s.Status.Err()) holds, and the cause returned by user
// code is reachable with errors.Is/As as well.
type StepError struct {
	Method string      // method name, e.g. "rk4"
	Status Termination // why the step failed
	T      float64     // time of the failing evaluation or the step start
	Dt     float64     // step size of the trial
	Index  int         // component index, or -1
	Iter   int         // Newton iterations performed, for NewtonFailure and LinearFailure
	Step   int         // the failing step's number: accepted steps of the stepper + 1 (0: unknown)
	// Residual is ‖R‖₂ of the last Newton iterate, for NewtonFailure and
	// LinearFailure (the linear solver's own residual is in Err).
	Residual float64
	Detail   string // what went wrong, e.g. "Newton diverged: …"
	Err      error  // cause from user code or the linear solver, or nil
}

// Error implements error.
func (e *StepError) Error() string {
	msg := "integrators: " + e.Method + ": step "
	if e.Step > 0 {
		msg += strconv.Itoa(e.Step) + " "
	}
	msg += "at t=" + strconv.FormatFloat(e.T, 'g', -1, 64) +
		" (dt=" + strconv.FormatFloat(e.Dt, 'g', -1, 64) + "): "
	switch e.Status {
	case NonFinite:
		msg += "non-finite value"
		if e.Index >= 0 {
			msg += " in component " + strconv.Itoa(e.Index)
		}
	case NewtonFailure:
		msg += "Newton iteration did not converge after " + strconv.Itoa(e.Iter) + " iterations"
		if e.Residual > 0 {
			msg += ", last residual norm " + strconv.FormatFloat(e.Residual, 'g', 4, 64)
		}
	case LinearFailure:
		msg += "linear solver failed at Newton iteration " + strconv.Itoa(e.Iter) +
			" (Newton residual norm " + strconv.FormatFloat(e.Residual, 'g', 4, 64) + ")"
	case NotPartitioned:
		msg += "position rate differs from velocity for pair " + strconv.Itoa(e.Index)
	default:
		msg += e.Status.String()
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the status sentinel and the cause.
func (e *StepError) Unwrap() []error {
	errs := []error{e.Status.Err()}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

// StateMismatchError reports why a second-order Memory or a StepperState was
// rejected. It wraps ErrStateMismatch.
type StateMismatchError struct {
	Field string // "time", "clock", "method", "rho_inf", "beta", "gamma", "alpha_m", "alpha_f", "nq", "nz", "ids", "dim", "len(y)", ...
	Want  string // the stepper's value
	Got   string // the memory or state value
}

// Error implements error.
func (e *StateMismatchError) Error() string {
	return "integrators: state mismatch: " + e.Field + " is " + e.Got + ", stepper has " + e.Want
}

// Unwrap returns ErrStateMismatch.
func (e *StateMismatchError) Unwrap() error { return ErrStateMismatch }

func fmtF(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// TerminationOf returns the termination carried by err: Success for nil,
// the Status of a *StepError or a wrapped status sentinel, Failure
// otherwise.
func TerminationOf(err error) Termination {
	if err == nil {
		return Success
	}
	var se *StepError
	if errors.As(err, &se) {
		return se.Status
	}
	var he *StateMismatchError
	if errors.As(err, &he) {
		return StateMismatch
	}
	for _, s := range []Termination{NonFinite, NewtonFailure, StepTooSmall, MaxStepsReached, ZenoDetected, StateMismatch, NotPartitioned, LinearFailure} {
		if errors.Is(err, s.Err()) {
			return s
		}
	}
	return Failure
}

// Work counts the work an integrator did — accepted and rejected steps,
// evaluations, Jacobians, Newton and linear-solver iterations,
// factorizations, events — like gonum's optimize.Stats. (graph.Stats is
// a run's work, of which this is the integrator's part: a different
// thing, hence a different name.) Counters accumulate over the life of a
// stepper and are part of its StepperState.
type Work struct {
	Steps         int // accepted steps
	Rejected      int // rejected trial steps (error control, Newton failure, non-finite trial)
	FuncEvals     int // evaluations of Func or Accel (right-hand sides)
	JacEvals      int // analytic Jacobians or finite-difference Jacobians formed
	NewtonIters   int // Newton iterations (one linear solve each)
	LinearSolves  int // linear solves (dense LU or GMRES), one per Newton iteration
	LinearIters   int // GMRES iterations (products with the Newton matrix, not counting restarts)
	Factorize     int // dense LU factorizations, and preconditioner setups (block-Jacobi, ILU(0))
	EventEvals    int // evaluations of EventSystem.Events
	EventsHandled int // events located and reset
}

func (s *Work) add(o Work) {
	s.Steps += o.Steps
	s.Rejected += o.Rejected
	s.FuncEvals += o.FuncEvals
	s.JacEvals += o.JacEvals
	s.NewtonIters += o.NewtonIters
	s.LinearSolves += o.LinearSolves
	s.LinearIters += o.LinearIters
	s.Factorize += o.Factorize
	s.EventEvals += o.EventEvals
	s.EventsHandled += o.EventsHandled
}

// Sub returns the work counted in s and not in o: the work done between
// two snapshots o and s of one stepper's Work.
func (s Work) Sub(o Work) Work {
	return Work{
		Steps:         s.Steps - o.Steps,
		Rejected:      s.Rejected - o.Rejected,
		FuncEvals:     s.FuncEvals - o.FuncEvals,
		JacEvals:      s.JacEvals - o.JacEvals,
		NewtonIters:   s.NewtonIters - o.NewtonIters,
		LinearSolves:  s.LinearSolves - o.LinearSolves,
		LinearIters:   s.LinearIters - o.LinearIters,
		Factorize:     s.Factorize - o.Factorize,
		EventEvals:    s.EventEvals - o.EventEvals,
		EventsHandled: s.EventsHandled - o.EventsHandled,
	}
}
