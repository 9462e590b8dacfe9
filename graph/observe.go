package graph

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cosimgo/cosim/integrators"
)

// Observer watches a run from the goroutine that called it: Run,
// RunMonolithic and Integrate call Observe once at the start (before the
// first step), after steps (every Settings.ObserveEvery steps of Run and
// RunMonolithic, every accepted step of Integrate) and once at the end,
// whatever ends the run. Progress displays, custom monitors and live
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
	// when it completes: Start + Steps·Dt for Run and RunMonolithic,
	// Integrate's end.
	Start, End float64
	// Step counts the steps this run has taken (accepted steps in
	// Integrate); Steps is the number Run and RunMonolithic will take when
	// they complete (0 in Integrate, whose step count is not known ahead).
	Step, Steps int
	// Wall is the wall-clock time since the run started.
	Wall time.Duration
	// Stats is the work done so far in this run.
	Stats ViewStats
	// Err is, at ObserveEnd, the error that ends the run (nil when it
	// completed).
	Err error
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

// ViewStats is the work of a run so far.
type ViewStats struct {
	// NodeUpdates and OutputEvals count the calls of Update and Outputs
	// in co-simulation (Run), as Result does.
	NodeUpdates, OutputEvals int64
	// Integrator is the integrator's work in monolithic runs
	// (RunMonolithic, Integrate): evaluations, rejected steps, Newton
	// iterations.
	Integrator integrators.Stats
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
	res   Result // Integrate's counts, which has no Result of its own
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

// call calls the Observer; its error becomes an *ObserverError.
func (o *observation) call(s *Sim, phase ObservePhase, res *Result, is integrators.Stats) error {
	v := &o.view
	v.Phase, v.Time, v.Step = phase, s.Time(), res.Steps
	v.Wall = time.Since(o.start)
	v.Stats = ViewStats{NodeUpdates: res.NodeUpdates, OutputEvals: res.OutputEvals, Integrator: is}
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
	return o.call(s, ObserveStart, res, integrators.Stats{})
}

// step makes a step call.
func (o *observation) step(s *Sim, res *Result, is integrators.Stats) error {
	return o.call(s, ObserveStep, res, is)
}

// end makes the end call (once the start call was made) and returns the
// run's error: err, else the end call's.
func (o *observation) end(s *Sim, res *Result, is integrators.Stats, err error) error {
	if o == nil || !o.begun {
		return err
	}
	o.view.Err = err
	eerr := o.call(s, ObserveEnd, res, is)
	o.view.Err = nil
	if err != nil {
		return err
	}
	return eerr
}

// integrateObserved is Adaptive.Run (the same calls of Step, the same
// samples, events, statuses and errors) with the Observer called after
// every accepted step, the Sim holding the accepted state while it is.
// It returns the run's result, its error, and the Observer's error that
// stopped it.
func (s *Sim) integrateObserved(ctx context.Context, a *integrators.Adaptive, tEnd float64, output []float64, maxSteps int, ob *observation) (*integrators.Outcome, error, error) {
	res := &integrators.Outcome{Status: integrators.Success}
	t, y := a.State()
	for i, ot := range output {
		if ot < t || ot > tEnd || (i > 0 && ot < output[i-1]) || ot != ot {
			res.Status, res.T, res.Y = integrators.Failure, t, append([]float64(nil), y...)
			return res, fmt.Errorf("integrators: Integrate: Output[%d] = %v not ascending within [%v, %v]", i, ot, t, tEnd), nil
		}
	}
	k := 0
	for k < len(output) && output[k] == t {
		res.Samples = append(res.Samples, integrators.Sample{T: t, Y: append([]float64(nil), y...)})
		k++
	}
	stats0 := a.Stats()
	sync := func() {
		t, y := a.State()
		copy(s.x, y)
		s.t0, s.n, s.dt, s.yFresh = t, 0, 0, false
	}
	oerr := ob.begin(s, &ob.res)
	done := ctx.Done()
	var err error
	for oerr == nil {
		if t, _ := a.State(); !(t < tEnd) {
			break
		}
		select {
		case <-done:
			err = ctx.Err()
		default:
		}
		if err != nil {
			break
		}
		st := a.Stats()
		if n := st.Steps + st.Rejected - stats0.Steps - stats0.Rejected; n >= maxSteps {
			t, _ := a.State()
			err = &integrators.StepError{Method: integrators.MethodDormandPrince, Status: integrators.MaxStepsReached, T: t, Dt: a.NextStep(), Index: -1,
				Err: fmt.Errorf("%d trial steps", n)}
			break
		}
		var rep integrators.StepReport
		if rep, err = a.Step(tEnd); err != nil {
			break
		}
		for k < len(output) && output[k] <= rep.T1 {
			y := make([]float64, len(s.x))
			a.Dense(output[k], y)
			res.Samples = append(res.Samples, integrators.Sample{T: output[k], Y: y})
			k++
		}
		stop := false
		if rep.Event >= 0 {
			before := make([]float64, len(s.x))
			a.Dense(rep.T1, before)
			_, after := a.State()
			res.Events = append(res.Events, integrators.EventRecord{T: rep.T1, Index: rep.Event, Action: rep.Action, Before: before, After: append([]float64(nil), after...)})
			if rep.Action == integrators.EventStop {
				res.Status = integrators.StoppedByEvent
				stop = true
			}
		}
		ob.res.Steps++
		sync()
		if ob.due(ob.res.Steps) {
			oerr = ob.step(s, &ob.res, a.Stats().Sub(stats0))
		}
		if stop {
			break
		}
	}
	res.Stats = a.Stats().Sub(stats0)
	t, y = a.State()
	res.T, res.Y = t, append([]float64(nil), y...)
	switch {
	case err != nil:
		res.Status = integrators.StatusOf(err)
		if cerr := ctx.Err(); cerr != nil && errors.Is(err, cerr) {
			res.Status = integrators.NotTerminated
		}
	case oerr != nil:
		res.Status = integrators.NotTerminated
	}
	return res, err, oerr
}
