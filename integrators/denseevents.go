package integrators

import (
	"fmt"
	"math"
	"slices"
)

// denseEvents locates the events of an EventSystem on the dense output of
// an adaptive driver (Dormand–Prince, ESDIRK, BDF), with the rules of
// "Events" in the package documentation: after every accepted step the
// event functions are evaluated at its end; each armed one that crossed
// in its direction is located by illinois on the dense output; the
// earliest location is the instant, and every event that crossed in the
// step and has crossed at it is due there (eventCore.markDue); an event function that is zero at
// the step start is unarmed and takes its reference sign 64·EventTol
// later. The driver applies what find returns with instant (the resets,
// eventCore.settle) and then restarts its method at the state after it;
// or accept when nothing fired. At the first step after Init, start
// applies the events due at the start of the run.
type denseEvents struct {
	*eventCore

	g, g1, gt []float64 // at the accepted state (0: unarmed), at the step end, scratch
	gp        []float64 // at the probe after an unarmed start
	gHi, gAt  []float64 // at the far-side trial of the event being located; at the instant
	te        []float64 // located times of the events that fired in a step (+Inf: none)
	due       []bool
	yd, yp    []float64 // dense-output scratch: the state at the instant, the start probe

	// started: the events due at the start of the run were applied (or
	// there were none); set by start, cleared by init.
	started bool
	// last: the last step ended on an instant at lastT (Dense there is
	// the state before it); only: that instant was the whole step (the
	// start of the run).
	last, only bool
	lastT      float64
}

// newDenseEvents returns the event handling of sys for a driver of
// dimension n, or nil when sys has no events.
func newDenseEvents(sys System, n int, c *conf, method string, stats *Work) (*denseEvents, error) {
	core, err := newEventCore(sys, c, method, stats)
	if core == nil || err != nil {
		return nil, err
	}
	ne := core.ne
	mk := func(k int) []float64 { return make([]float64, k) }
	return &denseEvents{eventCore: core, g: mk(ne), g1: mk(ne), gt: mk(ne), gp: mk(ne), gHi: mk(ne), gAt: mk(ne), te: mk(ne), due: make([]bool, ne),
		yd: mk(n), yp: mk(n)}, nil
}

// init arms every event from the state at t0; the events due at t0 are
// applied by start at the first step.
func (e *denseEvents) init(t0 float64, y0 []float64) error {
	e.eventCore.reset()
	e.started, e.last, e.only = false, false, false
	return e.eval(t0, 0, y0, e.g)
}

// begin is called at the start of every step: it forgets the last
// instant (Dense no longer reaches it).
func (e *denseEvents) begin() { e.last, e.only = false, false }

// start applies the events due at the start t0 of the run (see
// eventCore.startDue) to y0, once after Init, and reports whether any
// fired: the driver then takes the state after them (final) and
// reports an event-only step. f writes f(t0, y0) into its argument.
func (e *denseEvents) start(t0 float64, y0 []float64, f func(dst []float64) error) (fired, stop bool, err error) {
	if e.started {
		return false, false, nil
	}
	any, err := e.startDue(t0, 0, y0, e.g, f, e.yp, e.gp, e.due)
	if err != nil || !any {
		e.started = err == nil
		return false, false, err
	}
	stop, err = e.settle(t0, 0, y0, e.g, e.due)
	if err != nil {
		return false, false, err
	}
	e.started = true
	copy(e.g, e.ref)
	e.last, e.only, e.lastT = true, true, t0
	return true, stop, nil
}

// find looks for sign changes of the armed event functions over the
// accepted step [t, t1] whose end state is y1 and whose dense output is
// dense. When one fired it returns the instant te, the earliest located
// time (far side of the root, within the event tolerance), with e.due
// marking the events that have crossed there (eventCore.markDue), e.yd the
// state at te before any reset and e.gAt the event values there.
func (e *denseEvents) find(t, t1 float64, y1 []float64, dense func(t float64, dst []float64)) (bool, float64, error) {
	e.started = true
	if err := e.eval(t1, t1-t, y1, e.g1); err != nil {
		return false, 0, err
	}
	// An event function that is zero at the step start (just fired, or
	// started on its surface) is unarmed; its reference sign is taken
	// just after the start so that it can fire again within this step
	// once it has left the surface.
	probed := false
	tp := t + 64*e.tol(t)
	probe := func() error {
		dense(tp, e.yd)
		return e.eval(tp, t1-t, e.yd, e.gp)
	}
	bestT := math.Inf(1)
	for i := 0; i < e.ne; i++ {
		e.te[i] = math.Inf(1)
		if e.disarmed[i] {
			continue
		}
		ref, tl := e.g[i], t
		if ref == 0 {
			if tp >= t1 {
				continue
			}
			if !probed {
				if err := probe(); err != nil {
					return false, 0, err
				}
				probed = true
			}
			ref, tl = e.gp[i], tp
			if ref == 0 {
				continue
			}
		}
		if !crossed(e.dir[i], ref, e.g1[i]) {
			continue
		}
		// The values at the point illinois returns are kept: the last
		// far-side trial's, or the step end's.
		copy(e.gHi, e.g1)
		dir := e.dir[i]
		te, err := illinois(dir, tl, ref, t1, e.g1[i], 0, e.c.eventTol, func(c float64) (float64, error) {
			dense(c, e.yd)
			if err := e.eval(c, t1-t, e.yd, e.gt); err != nil {
				return 0, err
			}
			if fc := e.gt[i]; fc == 0 || crossed(dir, ref, fc) {
				copy(e.gHi, e.gt)
			}
			return e.gt[i], nil
		})
		if err != nil {
			return false, 0, err
		}
		e.te[i] = te
		if te < bestT {
			bestT = te
			copy(e.gAt, e.gHi)
		}
	}
	if math.IsInf(bestT, 1) {
		return false, 0, nil
	}
	e.markDue(bestT, tp, e.te, e.g, e.gp, e.gAt, e.due)
	// The state at the instant before the resets: the step's own end
	// when the instant is there, else the dense output (where the event
	// values were evaluated, in gAt).
	if bestT == t1 {
		copy(e.yd, y1)
	} else {
		dense(bestT, e.yd)
	}
	return true, bestT, nil
}

// instant applies the instant find returned at te (h is the step, for
// errors): the resets of every event due there and of those they make
// fire (eventCore.settle). The state after it is final(); the events'
// references become those after the instant.
func (e *denseEvents) instant(te, h float64) (stop bool, err error) {
	stop, err = e.settle(te, h, e.yd, e.gAt, e.due)
	if err != nil {
		return false, err
	}
	copy(e.g, e.ref)
	e.last, e.only, e.lastT = true, false, te
	return stop, nil
}

// atInstant reports whether Dense(t) is the state before the last
// instant's resets (t is its time), and panics for any other t when the
// last step was the instant alone.
func (e *denseEvents) atInstant(t float64) bool {
	if e == nil || !e.last {
		return false
	}
	if e.only {
		checkDense(true, t, e.lastT, e.lastT)
		return true
	}
	return t == e.lastT
}

// accept makes the values at the end of a step without an event the
// reference of the next step.
func (e *denseEvents) accept() { copy(e.g, e.g1) }

// checkpoint writes the event state into c.
func (e *denseEvents) checkpoint(c *StepperState) {
	c.G = cloneF(e.g)
	c.Disarmed = slices.Clone(e.disarmed)
	c.ZenoCount, c.LastEventT = e.zeno.count, e.zeno.lastT
}

// restore reads the event state of c into e, which may be nil (a
// driver without events: c must then have none): the Zeno guard counts
// events only when the Work says some were handled, and the events due
// at the start are still to be applied when the Work shows neither a
// step nor an event.
func (e *denseEvents) restore(c StepperState) error {
	ne := 0
	if e != nil {
		ne = e.ne
	}
	if len(c.G) != ne || len(c.Disarmed) != ne {
		return &StateMismatchError{Field: "events", Want: fmt.Sprint(ne), Got: fmt.Sprint(len(c.G))}
	}
	if e != nil {
		copy(e.g, c.G)
		copy(e.disarmed, c.Disarmed)
		e.zeno = zenoGuard{count: c.ZenoCount, lastT: c.LastEventT, have: c.Work.EventsHandled > 0}
		e.started = c.Work.Steps > 0 || c.Work.EventsHandled > 0
		e.last, e.only = false, false
		e.fire = e.fire[:0]
	}
	return nil
}
