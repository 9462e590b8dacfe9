package integrators

// Event localization of the adaptive Dormand–Prince driver: the event
// functions are checked after every accepted step and a crossing is
// located on the dense output (denseEvents; see "Events" in the package
// documentation).

// handleEvents looks for sign changes of the armed event functions over
// the step just computed, locates the earliest one and applies its reset.
func (a *Adaptive) handleEvents(rep *StepReport, h float64) (bool, error) {
	e := a.evs
	best, te, err := e.find(rep.T0, rep.T1, a.yn, a.dense)
	if err != nil || best < 0 {
		return false, err
	}
	// Apply the reset at the located time.
	a.dense(te, e.yd)
	act, err := e.reset(best, te, h, e.yd, a.yn)
	if err != nil {
		return false, err
	}
	// Commit: the step ends at te with the reset state.
	if err := a.eval(te, h, a.yn, a.k[6]); err != nil {
		return false, err
	}
	if err := e.fired(best, te, a.yn, act); err != nil {
		return false, err
	}
	a.t = te
	a.clk = Clock{Base: te}
	a.y, a.yn = a.yn, a.y
	a.k[0], a.k[6] = a.k[6], a.k[0]
	a.dT1, a.dEvent = te, true
	a.stats.Steps++
	rep.T1, rep.Event, rep.Action = te, best, act
	return true, nil
}
