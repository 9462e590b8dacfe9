package graph

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cosimgo/cosim/integrators"
)

// Result describes a run of a Sim, whichever mode it ran in —
// CoSimulation, Monolithic (RunMonolithic) or MonolithicAdaptive
// (Integrate): the Stats and Status every run has, and beside them the
// parts that belong to one mode, nil in the others.
type Result struct {
	// Stats is the work of this run; its Steps and Time say how far it
	// got.
	Stats
	// Status says how the run ended: EndReached, StoppedByEvent,
	// StoppedByObserver, Cancelled or Failed. The run's error, when it
	// has one, says more.
	Status Status
	// Mode is the mode the run stepped the graph in: Settings.Mode, a
	// value of CoSimulation, Monolithic or MonolithicAdaptive
	// (CoSimulation{} when Settings.Mode was nil). Test it with a type
	// switch; printed, it names the mode ("co-simulation").
	Mode Mode
	// Method names what stepped it: the coupling strategy in
	// co-simulation ("jacobi" without CoSimulation.Coupling), the
	// integration method otherwise ("rk4", "dormand-prince", …).
	Method string
	// Workers is the number of goroutines that updated nodes: one unless
	// a co-simulation run split its phases (CoSimulation.Workers, Grain).
	Workers int
	// Warnings lists the connectors whose stated explicit stable step
	// (Sim.StepWarnings) Settings.Dt exceeds (co-simulation); a run that
	// then fails with a non-finite value returns an error carrying the
	// hint (*StepHintError).
	Warnings []StepWarning
	// Stability is the stability analysis of the run's step at
	// Settings.Dt, judged over the run's steps (StabilityAnalysis.Over):
	// of its coupling strategy in co-simulation (Sim.CheckStability), of
	// its method in a fixed-step monolithic run
	// (Sim.MonolithicStability); computed once per strategy (method) and
	// step and linearised at the state of the first Run with them. When
	// it is Unstable, StabilityAnalysis.Warning says what to change. Nil
	// in adaptive runs (MonolithicAdaptive), whose error control chooses
	// the steps.
	Stability *StabilityAnalysis
	// StopCause, when Status is StoppedByEvent, is what asked the run
	// to stop: the error wrapping node.ErrStop that a node's event reset
	// (node.Eventer) or accepted-step call (node.StepCompleter)
	// returned, naming the node and the time (an imported FMU that asked
	// to terminate the simulation names itself there). Nil otherwise.
	StopCause error
	// History is the recorded table (Settings.Record): every RecordEvery steps
	// of a fixed-step run, at the sample times of an adaptive one. Nil
	// when nothing was recorded.
	History *History

	// Coupling has the statistics of CoSimulation.Coupling; nil without
	// it.
	Coupling *CouplingStats
	// Integrator is the integrator's account of a monolithic run; nil in
	// co-simulation.
	Integrator *Integration
}

// Stats is the work of one run. Every field is the count of this run
// alone (not since Build; a run that starts a new integrator counts its
// initialisation too, a run that continues a kept one does not), and
// every mode fills the fields that mean something for it; the others are
// zero.
type Stats struct {
	// Steps is the number of steps taken: macro steps of Settings.Dt in
	// co-simulation and fixed-step monolithic runs, accepted steps of an
	// adaptive run.
	Steps int
	// Time is the simulation time reached, the time of the Sim's state
	// when the run returned.
	Time float64
	// Wall is the wall-clock time of the stepping loop.
	Wall time.Duration
	// NodeUpdates and OutputEvals count the calls of node Update and
	// Outputs (co-simulation).
	NodeUpdates int64
	OutputEvals int64
	// Evaluations counts the evaluations of the monolithic system's
	// right-hand side (each evaluates every node's outputs and
	// derivatives).
	Evaluations int64
	// Rejected counts rejected trial steps of a monolithic run: error
	// control of an adaptive run, failed Newton iterations retried.
	Rejected int
	// NewtonIters counts the Newton iterations of implicit methods
	// (monolithic).
	NewtonIters int
	// CouplingIters counts the iterations of iterated coupling groups,
	// summed over the groups (co-simulation with an iterative
	// CoSimulation.Coupling; Result.Coupling has them per group).
	CouplingIters int64
	// Events counts the node events the integrator located and reset
	// (monolithic runs; a co-simulated node handles its own events inside
	// its Update, uncounted).
	Events int
	// StepEvents counts the accepted steps at whose end a node changed
	// its state (node.StepCompleter: an imported FMU's step events), each
	// followed by a restart of the integrator (monolithic runs).
	StepEvents int
	// Replays counts the steps the batched engine handed back to the
	// per-node path (see doc.go, Execution model): a step that failed, or
	// that a kernel could not compute. It is zero in a healthy run; the
	// failing step's error is returned either way.
	Replays int
}

// Integration is the integrator's part of the Result of a monolithic run.
type Integration struct {
	// Work is the integrator's work in this run: right-hand sides,
	// Jacobians, Newton and linear-solver iterations, factorizations,
	// event evaluations. Its Steps count the stepper's own steps, which
	// in a fixed-step run include the partial steps to and from located
	// events (Result.Steps counts the run's steps of Dt).
	integrators.Work
	// Events lists the events an adaptive run located, in order, with
	// the state before and after each reset.
	Events []integrators.EventRecord
	// Samples holds the dense-output states of an adaptive run at its
	// sample times (MonolithicAdaptive.Options.Output, or the recording
	// times of Settings.Record), reached before the run ended.
	Samples []integrators.Sample
}

// Status says how a run ended, like optimize.Status.
type Status int

const (
	// NotTerminated is the zero Status: the run has not ended. It means
	// for a whole run what integrators.NotTerminated means for a driver
	// run, as gonum's optimize.NotTerminated does.
	NotTerminated Status = iota
	// EndReached means the run took every step asked for (Settings.Steps
	// or Settings.End).
	EndReached
	// StoppedByEvent means a node event's reset asked the run to stop
	// (node.ErrStop, integrators.EventStop; monolithic runs): the state
	// is the one after the reset, at the event time. It is the whole
	// run's form of integrators.StoppedByEvent, which the integrator
	// reports for the step in which it happened.
	StoppedByEvent
	// StoppedByObserver means Settings.Observer returned an error; the
	// run's error is an *ObserverError wrapping it.
	StoppedByObserver
	// Cancelled means the run's context was cancelled or its deadline
	// passed; the run's error is the context's. It is the whole run's
	// form of integrators.Cancelled.
	Cancelled
	// Failed means a step failed: a node error or panic, a non-finite
	// value, an integrator failure (Newton, step size, maximum steps), or
	// a recording write error. The state is the last good one; the
	// run's error says what failed, where and when.
	Failed
)

var statusNames = [...]string{
	NotTerminated:     "NotTerminated",
	EndReached:        "EndReached",
	StoppedByEvent:    "StoppedByEvent",
	StoppedByObserver: "StoppedByObserver",
	Cancelled:         "Cancelled",
	Failed:            "Failed",
}

func (s Status) String() string {
	if s >= 0 && int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Errors that Status.Err returns.
var (
	ErrNotTerminated     = errors.New("graph: the run has not ended")
	ErrStoppedByObserver = errors.New("graph: an observer stopped the run")
	ErrCancelled         = errors.New("graph: the run was cancelled")
	ErrFailed            = errors.New("graph: a step failed")
)

// Err returns nil for the statuses of a run that ended as asked,
// EndReached and StoppedByEvent, and a sentinel error naming the status
// otherwise. The error the run returned is the specific one (the
// *ObserverError, the context's error, the failing step's error).
func (s Status) Err() error {
	switch s {
	case EndReached, StoppedByEvent:
		return nil
	case NotTerminated:
		return ErrNotTerminated
	case StoppedByObserver:
		return ErrStoppedByObserver
	case Cancelled:
		return ErrCancelled
	case Failed:
		return ErrFailed
	}
	return fmt.Errorf("graph: unknown status %d", int(s))
}

// statusOf is the Status of a run that ended with err (nil: it completed,
// or an event stopped it when stopped).
func statusOf(ctx context.Context, err error, stopped bool) Status {
	var oe *ObserverError
	switch {
	case err == nil && stopped:
		return StoppedByEvent
	case err == nil:
		return EndReached
	case errors.As(err, &oe):
		return StoppedByObserver
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return Cancelled
	}
	return Failed
}

// integration returns the monolithic part of a Result for the
// integrator's work st in this run, and adds its counts to the shared
// Stats.
func (r *Result) integration(st integrators.Work) *Integration {
	if r.Integrator == nil {
		r.Integrator = &Integration{}
	}
	r.Integrator.Work = st
	r.Evaluations = int64(st.FuncEvals)
	r.Rejected = st.Rejected
	r.NewtonIters = st.NewtonIters
	r.Events = st.EventsHandled
	return r.Integrator
}
