package integrators

import (
	"fmt"
	"math"
	"slices"
)

// denseEvents locates the events of an EventSystem on the dense output of
// an adaptive driver (Dormand–Prince, ESDIRK, BDF), with the rules of
// "Events" in the package documentation: after every accepted step the
// event functions are evaluated at its end; an armed one that crossed in
// its direction is located by illinois on the dense output; the earliest
// wins; an event function that is zero at the step start is unarmed and
// takes its reference sign 64·EventTol later. The driver applies what
// find returns: reset, then (after restarting its method at the reset
// state) fired; or accept when nothing fired.
type denseEvents struct {
	ev     EventSystem
	ne     int
	dir    []int
	method string
	c      *conf
	stats  *Work

	g, g1, gt []float64 // at the accepted state (0: unarmed), at the step end, scratch
	yd        []float64 // dense-output scratch
	disarmed  []bool
	zeno      zenoGuard
}

// newDenseEvents returns the event handling of sys for a driver of
// dimension n, or nil when sys has no events.
func newDenseEvents(sys System, n int, c *conf, method string, stats *Work) (*denseEvents, error) {
	ev, ok := sys.(EventSystem)
	if !ok || ev.EventCount() == 0 {
		return nil, nil
	}
	ne := ev.EventCount()
	e := &denseEvents{ev: ev, ne: ne, dir: make([]int, ne), method: method, c: c, stats: stats,
		g: make([]float64, ne), g1: make([]float64, ne), gt: make([]float64, ne), yd: make([]float64, n),
		disarmed: make([]bool, ne)}
	for i := range e.dir {
		d := ev.EventDirection(i)
		if d < -1 || d > 1 {
			return nil, fmt.Errorf("integrators: event %d: direction %d not in {-1, 0, 1}", i, d)
		}
		e.dir[i] = d
	}
	return e, nil
}

// eval evaluates the event functions, counting and wrapping errors.
func (e *denseEvents) eval(t float64, y, dst []float64) error {
	e.stats.EventEvals++
	if err := e.ev.Events(t, y, dst); err != nil {
		return &StepError{Method: e.method, Status: Failure, T: t, Index: -1, Err: err}
	}
	return nil
}

// init arms every event from the state at t0.
func (e *denseEvents) init(t0 float64, y0 []float64) error {
	clear(e.disarmed)
	e.zeno = zenoGuard{}
	return e.eval(t0, y0, e.g)
}

func (e *denseEvents) tol(t float64) float64 { return eventTolAt(e.c.eventTol, t) }

// find looks for sign changes of the armed event functions over the
// accepted step [t, t1] whose end state is y1 and whose dense output is
// dense, and returns the earliest event and its located time (far side
// of the root, within the event tolerance), or -1.
func (e *denseEvents) find(t, t1 float64, y1 []float64, dense func(t float64, dst []float64)) (int, float64, error) {
	if err := e.eval(t1, y1, e.g1); err != nil {
		return -1, 0, err
	}
	// An event function that is zero at the step start (just fired, or
	// started on its surface) is unarmed; its reference sign is taken
	// just after the start so that it can fire again within this step
	// once it has left the surface.
	probed := false
	tp := t + 64*e.tol(t)
	probe := func() error {
		dense(tp, e.yd)
		return e.eval(tp, e.yd, e.gt)
	}
	best, bestT := -1, math.Inf(1)
	for i := 0; i < e.ne; i++ {
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
					return -1, 0, err
				}
				probed = true
			}
			ref, tl = e.gt[i], tp
			if ref == 0 {
				continue
			}
		}
		if !crossed(e.dir[i], ref, e.g1[i]) {
			continue
		}
		te, err := illinois(e.dir[i], tl, ref, t1, e.g1[i], 0, e.c.eventTol, func(c float64) (float64, error) {
			dense(c, e.yd)
			if err := e.eval(c, e.yd, e.gt); err != nil {
				return 0, err
			}
			return e.gt[i], nil
		})
		if err != nil {
			return -1, 0, err
		}
		if probed && i+1 < e.ne {
			// The location overwrote the probe values; recompute them.
			if err := probe(); err != nil {
				return -1, 0, err
			}
		}
		if te < bestT {
			best, bestT = i, te
		}
	}
	return best, bestT, nil
}

// reset applies the reset map of event i at te: before is the state
// there (read only), after receives the state after the reset (a copy of
// before on entry). It checks the result and the Zeno guard; h is the
// step size, for the error.
func (e *denseEvents) reset(i int, te, h float64, before, after []float64) (EventAction, error) {
	copy(after, before)
	act, err := e.ev.Reset(i, te, before, after)
	if err != nil {
		return act, &StepError{Method: e.method, Status: Failure, T: te, Dt: h, Index: -1, Err: err}
	}
	if k := firstNonFinite(after); k >= 0 {
		return act, &StepError{Method: e.method, Status: NonFinite, T: te, Dt: h, Index: k}
	}
	if err := e.zeno.check(e.c, e.method, te, h, i); err != nil {
		return act, err
	}
	return act, nil
}

// fired records the event i committed at te with the reset state y: the
// event values there become the reference (event i unarmed until it
// leaves its surface) and a disarming event is disarmed.
func (e *denseEvents) fired(i int, te float64, y []float64, act EventAction) error {
	if err := e.eval(te, y, e.g1); err != nil {
		return err
	}
	e.zeno.record(te)
	e.g1[i] = 0 // just fired: unarmed until it leaves the surface
	copy(e.g, e.g1)
	if act == EventDisarm {
		e.disarmed[i] = true
	}
	e.stats.EventsHandled++
	return nil
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
// events only when the Work says some were handled.
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
	}
	return nil
}

// zenoGuard is the Zeno guard of DriverOptions.ZenoLimit and ZenoSpacing:
// it counts consecutive events each closer than the spacing to the
// previous one.
type zenoGuard struct {
	count int
	lastT float64
	have  bool
}

// check counts an event at te and returns a ZenoDetected error when
// ZenoLimit consecutive events were too close.
func (z *zenoGuard) check(c *conf, method string, te, dt float64, i int) error {
	spacing := c.zenoSpacing
	if spacing == 0 {
		spacing = 1e-9 * math.Max(1, math.Abs(te))
	}
	if z.have && te-z.lastT < spacing {
		z.count++
	} else {
		z.count = 0
	}
	if z.count >= c.zenoLimit {
		return &StepError{Method: method, Status: ZenoDetected, T: te, Dt: dt, Index: i,
			Err: fmt.Errorf("event %d fired %d times within %g s of each other", i, z.count+1, spacing)}
	}
	return nil
}

// record notes a committed event at te.
func (z *zenoGuard) record(te float64) { z.have, z.lastT = true, te }
