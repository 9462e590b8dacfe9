package integrators

import (
	"fmt"
	"math"
	"strings"
)

// The event instant, shared by every driver that handles events (the
// adaptive drivers through denseEvents, the fixed-step methods through
// eventStepper): at one time te, every event due there gets its reset,
// in index order, and the resets are repeated in rounds until no event
// fires any more at te (see "Events" in the package documentation).

// Firing is one event reset applied at an event instant: StepReport.Fired
// lists them in the order they were applied.
type Firing struct {
	Index  int         // the event
	Action EventAction // what its Reset returned
	// Round is the round of the event iteration that applied it: 0 for
	// the events located at the instant (or due at the start of the
	// run), k > 0 for those that the resets of round k − 1 made fire.
	Round int
	// Before is the state the reset was applied to (the state at the
	// instant after the resets applied before it) and After the state it
	// returned. They are owned by the driver and valid until its next
	// Step, Init or Restore.
	Before, After []float64
}

// EventNamer is an optional capability of an EventSystem: the name of
// event i, used in the messages of the integrators (a graph's System
// names its events "node.event"). Without it events are named by index.
type EventNamer interface {
	EventName(i int) string
}

// eventCore holds what every event-handling driver shares: the event
// system, the directions, the disarmed events, the Zeno guard, and the
// event instant (settle) with its firings.
type eventCore struct {
	ev     EventSystem
	names  EventNamer // nil when ev has none
	ne     int
	dir    []int
	method string
	c      *conf
	stats  *Work // counts EventEvals and EventsHandled

	disarmed []bool
	zeno     zenoGuard

	// The last instant: ref holds, per event, its reference value (0:
	// unarmed) after it; states[k] is the state before firing k and
	// states[len(fire)] the state after the last. The slices are reused
	// from instant to instant.
	ref    []float64
	gi     []float64 // event values at the instant's current state
	cur    []bool    // the events of the round being applied
	states [][]float64
	fire   []Firing
	n      int // the state's dimension
}

// newEventCore returns the event handling of sys for a driver of
// method, or nil when sys has no events. Counts go to stats.
func newEventCore(sys System, c *conf, method string, stats *Work) (*eventCore, error) {
	ev, ok := sys.(EventSystem)
	if !ok || ev.EventCount() == 0 {
		return nil, nil
	}
	ne := ev.EventCount()
	e := &eventCore{ev: ev, ne: ne, dir: make([]int, ne), method: method, c: c, stats: stats,
		disarmed: make([]bool, ne), ref: make([]float64, ne), gi: make([]float64, ne), cur: make([]bool, ne), n: sys.Dim()}
	e.names, _ = ev.(EventNamer)
	for i := range e.dir {
		d := ev.EventDirection(i)
		if d < -1 || d > 1 {
			return nil, fmt.Errorf("integrators: event %s: direction %d not in {-1, 0, 1}", e.name(i), d)
		}
		e.dir[i] = d
	}
	return e, nil
}

// name names event i for messages.
func (e *eventCore) name(i int) string {
	if e.names != nil {
		if s := e.names.EventName(i); s != "" {
			return s
		}
	}
	return fmt.Sprintf("event %d", i)
}

// eval evaluates the event functions at (t, y) into dst, counting and
// wrapping errors; dt is the step, for the error.
func (e *eventCore) eval(t, dt float64, y, dst []float64) error {
	e.stats.EventEvals++
	if err := e.ev.Events(t, y, dst); err != nil {
		return &StepError{Method: e.method, Status: Failure, T: t, Dt: dt, Index: -1, Err: err}
	}
	return nil
}

// reset clears the run's event state (Init).
func (e *eventCore) reset() {
	clear(e.disarmed)
	e.zeno = zenoGuard{}
	e.fire = e.fire[:0]
}

// tol is the event time tolerance at t.
func (e *eventCore) tol(t float64) float64 { return eventTolAt(e.c.eventTol, t) }

// nearSide reports whether value v is strictly on the near side of an
// event with direction dir: where it must be before it can fire.
func nearSide(dir int, v float64) bool {
	switch dir {
	case -1:
		return v > 0
	case 1:
		return v < 0
	}
	return v != 0
}

// startCandidates reports whether some armed event is exactly zero in
// g0, the values at the start of a run: only those can be due there.
func (e *eventCore) startCandidates(g0 []float64) bool {
	for i, v := range g0 {
		if v == 0 && !e.disarmed[i] {
			return true
		}
	}
	return false
}

// startDue marks in due the events due at the start t0 of a run, whose
// state is y0 and event values g0, and reports whether any is: the
// armed events exactly zero at t0 that arrive there from their near
// side, that is whose value at t0 − δ on the state extrapolated back
// along f, y0 − δ·f(t0, y0), is strictly on the near side (δ = 64·
// EventTol, the offset of the unarmed probe). The run starts on their
// crossing, as a run landing on it would have found it. f writes
// f(t0, y0) into its argument; yp and gp are scratch (lengths Dim and
// EventCount).
func (e *eventCore) startDue(t0, dt float64, y0, g0 []float64, f func(dst []float64) error, yp, gp []float64, due []bool) (bool, error) {
	clear(due)
	if !e.startCandidates(g0) {
		return false, nil
	}
	if err := f(yp); err != nil {
		return false, err
	}
	d := 64 * e.tol(t0)
	tp := t0 - d
	for i := range yp {
		yp[i] = y0[i] - d*yp[i]
	}
	if err := e.eval(tp, dt, yp, gp); err != nil {
		return false, err
	}
	any := false
	for i, v := range g0 {
		if v == 0 && !e.disarmed[i] && nearSide(e.dir[i], gp[i]) {
			due[i], any = true, true
		}
	}
	return any, nil
}

// markDue marks in due the events that fire at the instant at time best,
// the located time of the earliest event (the far side of its root,
// within the event tolerance of it): those that crossed in the step (te:
// their located times, +Inf for the others) and whose function has
// crossed at best, its value gAt there across its surface in its
// direction from its reference (g, the value at the step's start; for
// an unarmed event, 0 in g, gp, its value at the probe at time tp, which
// best must be past). Their roots lie in the final bracket of the
// earliest, so every event reported has crossed at best and, once its
// reset has run, is unarmed or on its far side: none is reported again
// for the same crossing. An event whose root lies after best, however
// close, is not due: it fires at its own root. Applied at best, it would
// be armed again on its near side and its reset would run a second time
// at its root. This is CVODE's rule (Hindmarsh et al., SUNDIALS CVODE
// guide, "Rootfinding"): the right end of the final bracket is returned,
// and exactly the components that changed sign in it are flagged.
func (e *eventCore) markDue(best, tp float64, te, g, gp, gAt []float64, due []bool) {
	for i, ti := range te {
		ref := g[i]
		if ref == 0 {
			ref = gp[i]
			if !(best > tp) {
				due[i] = false
				continue
			}
		}
		due[i] = !math.IsInf(ti, 1) && crossed(e.dir[i], ref, gAt[i])
	}
}

// state returns the k-th state buffer of the instant, growing the pool.
func (e *eventCore) state(k int) []float64 {
	for len(e.states) <= k {
		e.states = append(e.states, make([]float64, e.n))
	}
	return e.states[k]
}

// final returns the state after the last instant's resets.
func (e *eventCore) final() []float64 { return e.states[len(e.fire)] }

// before returns the state at the last instant before its resets.
func (e *eventCore) before() []float64 { return e.states[0] }

// settle applies the event instant at te: y is the state there (read
// only), g0 the event values at (te, y), due the events of the first
// round. Each round applies the resets of its events in index order,
// each to the state the previous one returned; then the event functions
// are evaluated at the new state, and an event fires in the next round
// when its value crossed in its direction from its reference: its value
// before the round, or, for an event that has fired at this instant (or
// was zero), its value after the round in which it came to lie strictly
// on its near side again. An EventStop ends the iteration after its
// round. An iteration still firing after EventCount + ZenoLimit rounds,
// and the ZenoLimit-th instant in a row each closer than ZenoSpacing to
// the previous one, are ZenoDetected, naming the events. On return
// final() is the state after the instant and e.ref the events'
// references for what follows (0: unarmed). dt is the step, for errors.
func (e *eventCore) settle(te, dt float64, y, g0 []float64, due []bool) (stop bool, err error) {
	first := -1
	for i, d := range due {
		if d {
			first = i
			break
		}
	}
	if err := e.zeno.check(e.c, e.method, te, dt, first, e.name(first)); err != nil {
		return false, err
	}
	e.fire = e.fire[:0]
	copy(e.state(0), y)
	copy(e.ref, g0)
	copy(e.cur, due)
	limit := e.ne + e.c.zenoLimit
	for round := 0; ; round++ {
		for i, d := range e.cur {
			if !d {
				continue
			}
			k := len(e.fire)
			before, after := e.state(k), e.state(k+1)
			copy(after, before)
			act, err := e.ev.Reset(i, te, before, after)
			if err != nil {
				return false, &StepError{Method: e.method, Status: Failure, T: te, Dt: dt, Index: -1, Err: err}
			}
			if j := firstNonFinite(after); j >= 0 {
				return false, &StepError{Method: e.method, Status: NonFinite, T: te, Dt: dt, Index: j,
					Detail: "after the reset of " + e.name(i)}
			}
			e.fire = append(e.fire, Firing{Index: i, Action: act, Round: round, Before: before, After: after})
			e.stats.EventsHandled++
			e.ref[i] = 0 // fired: unarmed until it lies on its near side again
			switch act {
			case EventDisarm:
				e.disarmed[i] = true
			case EventStop:
				stop = true
			}
		}
		if err := e.eval(te, dt, e.final(), e.gi); err != nil {
			return false, err
		}
		more := false
		for i := range e.cur {
			e.cur[i] = false
			if e.disarmed[i] {
				continue
			}
			v := e.gi[i]
			switch {
			case e.ref[i] != 0 && crossed(e.dir[i], e.ref[i], v):
				e.cur[i], more = true, true
			case e.ref[i] != 0 || nearSide(e.dir[i], v):
				e.ref[i] = v
			}
		}
		if stop || !more {
			break
		}
		if round+1 >= limit {
			var still []string
			for i, d := range e.cur {
				if d {
					still = append(still, e.name(i))
				}
			}
			return false, &StepError{Method: e.method, Status: ZenoDetected, T: te, Dt: dt, Index: first,
				Err: fmt.Errorf("the event iteration at this instant has not settled after %d rounds of resets: %s still firing", limit, strings.Join(still, ", "))}
		}
	}
	e.zeno.record(te)
	return stop, nil
}

// outcome is what the last instant did to the run, for a StepReport:
// the first event fired and EventStop when a reset stopped the run,
// otherwise the first firing's action.
func (e *eventCore) outcome(stop bool) (int, EventAction) {
	if len(e.fire) == 0 {
		return -1, EventContinue
	}
	if stop {
		return e.fire[0].Index, EventStop
	}
	return e.fire[0].Index, e.fire[0].Action
}

// zenoGuard is the Zeno guard of DriverOptions.ZenoLimit and ZenoSpacing:
// it counts consecutive event instants each closer than the spacing to
// the previous one.
type zenoGuard struct {
	count int
	lastT float64
	have  bool
}

// check counts an instant at te, whose first event is i (named name),
// and returns a ZenoDetected error when ZenoLimit consecutive instants
// were too close.
func (z *zenoGuard) check(c *conf, method string, te, dt float64, i int, name string) error {
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
			Err: fmt.Errorf("%d event instants within %g s of each other (the last: %s)", z.count+1, spacing, name)}
	}
	return nil
}

// record notes a committed instant at te.
func (z *zenoGuard) record(te float64) { z.have, z.lastT = true, te }
