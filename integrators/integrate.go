package integrators

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// The drivers of the adaptive Dormand–Prince integrator: Integrate, from
// a start to an end time, and Adaptive.Run, continuing a kept driver.

// Integrate solves y' = f(t, y) from (t0, y0) to tEnd > t0 with the
// adaptive driver of Dormand–Prince method m (or its fixed step, see
// DormandPrince.FixedStep), recording dense-output samples at
// DriverOptions.Output and locating the events of an EventSystem.
//
// The returned Outcome is never nil. Its Status is Success when tEnd was
// reached and StoppedByEvent when a Reset returned EventStop; otherwise
// the error (a *StepError) says why and the Outcome holds the last
// accepted state. Invalid settings return an error with Status Failure.
func Integrate(m DormandPrince, sys System, t0 float64, y0 []float64, tEnd float64, o *DriverOptions) (*Outcome, error) {
	res := &Outcome{T: t0, Y: cloneF(y0)}
	if !(tEnd > t0) {
		res.Status = Failure
		return res, fmt.Errorf("integrators: Integrate: tEnd %v must be after t0 %v", tEnd, t0)
	}
	a, err := NewAdaptive(m, sys, o)
	if err != nil {
		res.Status = Failure
		return res, err
	}
	if err := checkOutput(a.c.output, t0, tEnd); err != nil {
		res.Status = Failure
		return res, err
	}
	if err := a.Init(t0, y0); err != nil {
		res.Status = TerminationOf(err)
		return res, err
	}
	res, err = a.Run(context.Background(), tEnd, a.c.output)
	res.Work = a.stats // including Init's evaluations
	return res, err
}

// checkOutput checks that output times ascend within [t0, tEnd].
func checkOutput(out []float64, t0, tEnd float64) error {
	for i, t := range out {
		if t < t0 || t > tEnd || (i > 0 && t < out[i-1]) || math.IsNaN(t) {
			return fmt.Errorf("integrators: Integrate: Output[%d] = %v not ascending within [%v, %v]", i, t, t0, tEnd)
		}
	}
	return nil
}

// Run continues an initialised driver from its current state to tEnd,
// as Integrate does from its start: it records dense-output samples at
// the times in output (ascending, within [current time, tEnd]) and the
// located events, stops at an EventStop, and takes at most
// DriverOptions.MaxSteps trial steps in this call. ctx is checked before every
// trial step: on cancellation the Outcome's Status is NotTerminated and
// the error is ctx's. The Outcome's Work is the work of this call; the
// state is the driver's, the last accepted one on any error.
//
// Run is how a caller that keeps the driver (a graph between Integrate
// calls, or after restoring a StepperState) continues one integration.
func (a *Adaptive) Run(ctx context.Context, tEnd float64, output []float64) (*Outcome, error) {
	if !a.init {
		panic("integrators: Adaptive.Run before Init")
	}
	res := &Outcome{Status: Success}
	if err := checkOutput(output, a.t, tEnd); err != nil {
		res.Status, res.T, res.Y = Failure, a.t, cloneF(a.y)
		return res, err
	}
	k := 0
	for k < len(output) && output[k] == a.t {
		res.Samples = append(res.Samples, Sample{T: a.t, Y: cloneF(a.y)})
		k++
	}
	stats0 := a.stats
	done := ctx.Done()
	var err error
	for a.t < tEnd {
		select {
		case <-done:
			err = ctx.Err()
		default:
		}
		if err != nil {
			break
		}
		if n := a.stats.Steps + a.stats.Rejected - stats0.Steps - stats0.Rejected; n >= a.c.maxSteps {
			err = &StepError{Method: MethodDormandPrince, Status: MaxStepsReached, T: a.t, Dt: a.h, Index: -1,
				Err: fmt.Errorf("%d trial steps", n)}
			break
		}
		var rep StepReport
		if rep, err = a.Step(tEnd); err != nil {
			break
		}
		for k < len(output) && output[k] <= rep.T1 {
			y := make([]float64, a.n)
			a.Dense(output[k], y)
			res.Samples = append(res.Samples, Sample{T: output[k], Y: y})
			k++
		}
		if rep.Event >= 0 {
			before := make([]float64, a.n)
			a.Dense(rep.T1, before)
			res.Events = append(res.Events, EventRecord{T: rep.T1, Index: rep.Event, Action: rep.Action, Before: before, After: cloneF(a.y)})
			if rep.Action == EventStop {
				res.Status = StoppedByEvent
				break
			}
		}
	}
	res.Work = a.stats.Sub(stats0)
	res.T, res.Y = a.t, cloneF(a.y)
	if err != nil {
		res.Status = TerminationOf(err)
		if cerr := ctx.Err(); cerr != nil && errors.Is(err, cerr) {
			res.Status = NotTerminated
		}
	}
	return res, err
}
