package integrators

import "math"

// Event localization of the adaptive Dormand–Prince driver: the event
// functions are checked after every accepted step, a crossing is located
// on the dense output and every event due at its instant is applied
// (denseEvents; see "Events" in the package documentation).

// handleEvents looks for sign changes of the armed event functions over
// the step just computed and, when some fired, ends the step at their
// instant with the state after every reset due there.
func (a *Adaptive) handleEvents(rep *StepReport, h float64) (bool, error) {
	e := a.evs
	found, te, err := e.find(rep.T0, rep.T1, a.yn, a.dense)
	if err != nil || !found {
		return false, err
	}
	stop, err := e.instant(te, h)
	if err != nil {
		return false, err
	}
	// Commit: the step ends at te with the state after the instant.
	copy(a.yn, e.final())
	if err := a.eval(te, h, a.yn, a.k[6]); err != nil {
		return false, err
	}
	a.t = te
	a.clk = Clock{Base: te}
	a.y, a.yn = a.yn, a.y
	a.k[0], a.k[6] = a.k[6], a.k[0]
	a.dT1, a.dEvent = te, true
	a.stats.Steps++
	// A step that an instant truncated bounds the next one: the
	// controller judged the whole trial step, over which the trajectory
	// after the resets is not known to be as smooth.
	if te < rep.T1 {
		a.h = math.Min(a.h, dpFacMax*(te-rep.T0))
	}
	rep.T1, rep.Fired = te, e.fire
	rep.Event, rep.Action = e.outcome(stop)
	return true, nil
}

// startEvents applies the events due at the start of the run, once
// after Init (k[0] holds f there): when some fired, Step reports the
// instant alone.
func (a *Adaptive) startEvents(t float64) (StepReport, bool, error) {
	e := a.evs
	fired, stop, err := e.start(t, a.y, func(dst []float64) error { copy(dst, a.k[0]); return nil })
	if err != nil || !fired {
		return StepReport{}, false, err
	}
	copy(a.y, e.final())
	a.fOK = false
	rep := StepReport{T0: t, T1: t, Fired: e.fire}
	rep.Event, rep.Action = e.outcome(stop)
	return rep, true, nil
}
