package graph

import (
	"fmt"
	"time"
)

// Observer watches a run from the goroutine that called it: a run in any
// mode (Run, and its forms RunMonolithic and Integrate) calls Observe
// once at the start (before the first step), after steps (every
// Settings.ObserveEvery steps, accepted steps of an adaptive run) and
// once at the end, whatever ends the run. Progress displays, custom monitors and live
// viewers are observers.
//
// The View describes the run; values are read through Fields resolved
// before the run (Sim.Field), whose Get allocates nothing. Observe must
// not step, set or restore the Sim (a programmer error with undefined
// results), and must not keep the View after it returns. Returning an
// error stops the run cleanly: the state is the one observed (the last
// good step) and the run returns an *ObserverError wrapping the error, so
// errors.Is and errors.As see it. The error of the end call is returned
// only when the run has no error of its own.
type Observer interface {
	Observe(v *View) error
}

// ObserverFunc adapts a function to an Observer.
type ObserverFunc func(v *View) error

// Observe calls f(v).
func (f ObserverFunc) Observe(v *View) error { return f(v) }

// ObservePhase says which call of an Observer a View belongs to.
type ObservePhase int

// The phases of a run an Observer sees.
const (
	ObserveStart ObservePhase = iota // before the first step
	ObserveStep                      // after a step
	ObserveEnd                       // after the last step, or the error that ends the run
)

func (p ObservePhase) String() string {
	switch p {
	case ObserveStart:
		return "start"
	case ObserveStep:
		return "step"
	case ObserveEnd:
		return "end"
	}
	return fmt.Sprintf("ObservePhase(%d)", int(p))
}

// View is what an Observer sees of a run. The run owns it: it is valid
// only during the Observe call.
type View struct {
	Phase ObservePhase
	// Time is the simulation time of the state the Sim holds.
	Time float64
	// Start is the time the run started at and End the time it ends at
	// when it completes: Start + Steps·Dt for a fixed step, the end time
	// of an adaptive run.
	Start, End float64
	// Step counts the steps this run has taken (accepted steps when
	// adaptive); Steps is the number a fixed-step run will take when it
	// completes (0 when adaptive: the step count is not known ahead).
	Step, Steps int
	// Wall is the wall-clock time since the run started.
	Wall time.Duration
	// Stats is the work done so far in this run, as the run's Result
	// will report it (Stats.Steps is Step, Stats.Time is Time).
	Stats Stats
	// Err is, at ObserveEnd, the error that ends the run (nil when it
	// completed).
	Err error
	// Stability is the run's own start-of-run stability analysis, the
	// value Result.Stability will hold, known from the start call on
	// (nil in adaptive runs, which are not analysed). An observer that
	// warns before the first step reads it here instead of analysing the
	// Sim again: StabilityAnalysis.Warning says what to change when it is
	// Unstable. Read only.
	Stability *StabilityAnalysis
	// Warnings are the run's step warnings, the value Result.Warnings
	// will hold (co-simulation), known from the start call on. Read only.
	Warnings []StepWarning
}

// Fraction is the completed fraction of the run, in [0, 1]: by steps
// when the number of steps is known, by simulation time otherwise.
func (v *View) Fraction() float64 {
	var f float64
	switch {
	case v.Steps > 0:
		f = float64(v.Step) / float64(v.Steps)
	case v.End > v.Start:
		f = (v.Time - v.Start) / (v.End - v.Start)
	default:
		return 1
	}
	return min(max(f, 0), 1)
}

// ObserverError is the error of a run an Observer stopped: the step and
// time of the state it stopped at, and the Observer's error.
type ObserverError struct {
	Phase ObservePhase
	Step  int     // steps the run took
	Time  float64 // the time of the state the run stopped at
	Err   error
}

func (e *ObserverError) Error() string {
	var at string
	switch e.Phase {
	case ObserveStart:
		at = fmt.Sprintf("before its first step (t = %v)", e.Time)
	case ObserveStep:
		at = fmt.Sprintf("after step %d (t = %v)", e.Step, e.Time)
	default:
		at = fmt.Sprintf("at its end (step %d, t = %v)", e.Step, e.Time)
	}
	return fmt.Sprintf("graph: observer stopped the run %s: %v", at, e.Err)
}

func (e *ObserverError) Unwrap() error { return e.Err }

// observation is an Observer's state during one run. A nil *observation
// (no Observer) does nothing and costs one comparison per step.
type observation struct {
	obs   Observer
	every int
	start time.Time
	begun bool
	view  View
}

// newObservation returns the observation of a run of set, or nil without
// Observer.
func newObservation(set Settings, start, end float64, steps int) (*observation, error) {
	if set.ObserveEvery < 0 {
		return nil, fmt.Errorf("graph: Settings.ObserveEvery = %d is negative", set.ObserveEvery)
	}
	if set.Observer == nil {
		return nil, nil
	}
	return &observation{obs: set.Observer, every: max(set.ObserveEvery, 1), view: View{Start: start, End: end, Steps: steps}}, nil
}

// observeRun is newObservation for Run and RunMonolithic, after
// prepareRun: the run ends at Time() + steps·Dt.
func (s *Sim) observeRun(set Settings, steps int) (*observation, error) {
	t := s.Time()
	return newObservation(set, t, s.t0+float64(s.n+steps)*s.dt, steps)
}

// due reports whether step n of the run is observed.
func (o *observation) due(n int) bool { return o != nil && n%o.every == 0 }

// call calls the Observer with the run's work so far; its error becomes
// an *ObserverError.
func (o *observation) call(s *Sim, phase ObservePhase, res *Result) error {
	v := &o.view
	v.Phase, v.Time, v.Step = phase, s.Time(), res.Steps
	v.Wall = time.Since(o.start)
	v.Stats = res.Stats
	v.Stability, v.Warnings = res.Stability, res.Warnings
	v.Stats.Time, v.Stats.Wall = v.Time, v.Wall
	if err := o.obs.Observe(v); err != nil {
		return &ObserverError{Phase: phase, Step: res.Steps, Time: v.Time, Err: err}
	}
	return nil
}

// begin makes the start call.
func (o *observation) begin(s *Sim, res *Result) error {
	if o == nil {
		return nil
	}
	o.start, o.begun = time.Now(), true
	return o.call(s, ObserveStart, res)
}

// step makes a step call (none without an Observer).
func (o *observation) step(s *Sim, res *Result) error {
	if o == nil {
		return nil
	}
	return o.call(s, ObserveStep, res)
}

// end makes the end call (once the start call was made) and returns the
// run's error: err, else the end call's.
func (o *observation) end(s *Sim, res *Result, err error) error {
	if o == nil || !o.begun {
		return err
	}
	o.view.Err = err
	eerr := o.call(s, ObserveEnd, res)
	o.view.Err = nil
	if err != nil {
		return err
	}
	return eerr
}
