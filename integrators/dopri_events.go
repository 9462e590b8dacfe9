package integrators

import (
	"fmt"
	"math"
)

// Event localization of the adaptive Dormand–Prince driver: the event
// functions are checked after every accepted step and a crossing is
// located on the dense output (see "Events" in the package documentation).

func (a *Adaptive) eventTol(t float64) float64 { return eventTolAt(a.c.eventTol, t) }

// locate finds the crossing of event i in [lo, hi] on the dense output
// (illinois) and returns a time on the far side within the tolerance of
// the root.
func (a *Adaptive) locate(i, dir int, lo, flo, hi, fhi float64) (float64, error) {
	return illinois(dir, lo, flo, hi, fhi, 0, a.c.eventTol, func(c float64) (float64, error) {
		a.dense(c, a.yd)
		if err := a.events(c, a.yd, a.gt); err != nil {
			return 0, err
		}
		return a.gt[i], nil
	})
}

// handleEvents looks for sign changes of the armed event functions over
// the step just computed, locates the earliest one and applies its reset.
func (a *Adaptive) handleEvents(rep *StepReport, h float64) (bool, error) {
	t, t1 := rep.T0, rep.T1
	if err := a.events(t1, a.yn, a.g1); err != nil {
		return false, err
	}
	// An event function that is zero at the step start (just fired, or
	// started on its surface) is unarmed; its reference sign is taken
	// just after the start so that it can fire again within this step
	// once it has left the surface.
	probed := false
	tp := t + 64*a.eventTol(t)
	best, bestT := -1, math.Inf(1)
	for i := 0; i < a.ne; i++ {
		if a.disarmed[i] {
			continue
		}
		ref, tl := a.g[i], t
		if ref == 0 {
			if tp >= t1 {
				continue
			}
			if !probed {
				a.dense(tp, a.yd)
				if err := a.events(tp, a.yd, a.gt); err != nil {
					return false, err
				}
				probed = true
			}
			ref, tl = a.gt[i], tp
			if ref == 0 {
				continue
			}
			// gt is overwritten by locate; keep the probe value in ref.
		}
		dir := a.ev.EventDirection(i)
		if !crossed(dir, ref, a.g1[i]) {
			continue
		}
		te, err := a.locate(i, dir, tl, ref, t1, a.g1[i])
		if err != nil {
			return false, err
		}
		if probed && i+1 < a.ne {
			// locate overwrote the probe values; recompute them.
			a.dense(tp, a.yd)
			if err := a.events(tp, a.yd, a.gt); err != nil {
				return false, err
			}
		}
		if te < bestT {
			best, bestT = i, te
		}
	}
	if best < 0 {
		return false, nil
	}
	// Apply the reset at the located time.
	te := bestT
	a.dense(te, a.yd)
	copy(a.yn, a.yd)
	act, err := a.ev.Reset(best, te, a.yd, a.yn)
	if err != nil {
		return false, &StepError{Method: MethodDormandPrince, Status: Failure, T: te, Dt: h, Index: -1, Err: err}
	}
	if i := firstNonFinite(a.yn); i >= 0 {
		return false, &StepError{Method: MethodDormandPrince, Status: NonFinite, T: te, Dt: h, Index: i}
	}
	// Zeno guard.
	spacing := a.c.zenoSpacing
	if spacing == 0 {
		spacing = 1e-9 * math.Max(1, math.Abs(te))
	}
	if a.haveEvent && te-a.lastEventT < spacing {
		a.zenoCount++
	} else {
		a.zenoCount = 0
	}
	if a.zenoCount >= a.c.zenoLimit {
		return false, &StepError{Method: MethodDormandPrince, Status: ZenoDetected, T: te, Dt: h, Index: best,
			Err: fmt.Errorf("event %d fired %d times within %g s of each other", best, a.zenoCount+1, spacing)}
	}
	// Commit: the step ends at te with the reset state.
	if err := a.eval(te, h, a.yn, a.k[6]); err != nil {
		return false, err
	}
	if err := a.events(te, a.yn, a.g1); err != nil {
		return false, err
	}
	a.haveEvent, a.lastEventT = true, te
	a.g1[best] = 0 // just fired: unarmed until it leaves the surface
	copy(a.g, a.g1)
	if act == EventDisarm {
		a.disarmed[best] = true
	}
	a.t = te
	a.clk = Clock{Base: te}
	a.y, a.yn = a.yn, a.y
	a.k[0], a.k[6] = a.k[6], a.k[0]
	a.dT1, a.dEvent = te, true
	a.stats.Steps++
	a.stats.EventsHandled++
	rep.T1, rep.Event, rep.Action = te, best, act
	return true, nil
}
