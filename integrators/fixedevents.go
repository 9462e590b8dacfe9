package integrators

import (
	"fmt"
	"math"
	"slices"
)

// Event handling for the fixed-step methods.
//
// NewStepper wraps the stepper of a System that implements EventSystem
// (with at least one event) in an eventStepper. Each Step(dt) first takes
// the inner method's ordinary step; when no armed event function changed
// sign over it in its direction, that is the step, bit for bit, and the
// only extra work is one evaluation of the event functions at its end.
//
// When an event fired, its time is located by re-stepping: the inner
// stepper is re-initialised at the step's start and takes one step of
// length τ, for trial values of τ chosen by the Illinois method with
// bisection safeguards (the root finder of the adaptive driver), until
// the bracket is narrower than DriverOptions.EventTol. Re-stepping rather than
// interpolating, because the fixed-step methods have no interpolant of
// their own (a cubic Hermite one would need extra evaluations and would
// not be the method's trajectory): the state at the located time is
// exactly what the method computes with a step ending there, so it has
// the method's order, and for the piecewise-polynomial motion of the
// bouncing ball RK4 finds the contact to rounding. The cost is about ten
// to forty re-steps per event. The reset is applied at the located time
// (on the far side of the crossing), and the rest of the step is
// integrated from the reset state with one step of the remaining length,
// which may fire further events, handled in the same way. The step still
// ends at t_n + dt on the step-count clock.
//
// A method with memory (the implicit trapezoid's carried f, the Newmark
// family's algorithmic acceleration, the Dormand–Prince FSAL stage) is
// re-initialised by the re-steps and after the reset: the carried f and
// FSAL stage are recomputed and identical, the Newmark family restarts
// from the physical acceleration, which is the only consistent choice
// after a velocity jump.
type eventStepper struct {
	in  Stepper
	cp  Checkpointer // in, when it checkpoints (every stepper of this package)
	ev  EventSystem
	c   conf
	n   int
	ne  int
	clk Clock

	g, g1, gt []float64 // event values: at the accepted state (0: unarmed), at a trial end, scratch
	gp        []float64 // event values at the probe after an unarmed start
	dir       []int
	disarmed  []bool

	y0    []float64 // the accepted state at the start of the step
	ys    []float64 // the state at the start of the current sub-step
	gs    []float64 // event values at ys (0: unarmed)
	ye    []float64 // the state at the end of the current sub-step
	yHi   []float64 // the state at the far side of the crossing being located
	yBest []float64 // the far-side state of the earliest event so far
	yr    []float64 // the state after a reset

	acc Work // work of the inner stepper before its latest Init or Restore

	zeno zenoGuard
	init bool
}

// withEvents wraps st in an eventStepper when sys has events.
func withEvents(st Stepper, sys System, c conf) Stepper {
	ev, ok := sys.(EventSystem)
	if !ok || ev.EventCount() == 0 {
		return st
	}
	n, ne := sys.Dim(), ev.EventCount()
	w := &eventStepper{in: st, ev: ev, c: c, n: n, ne: ne,
		g: make([]float64, ne), g1: make([]float64, ne), gt: make([]float64, ne), gp: make([]float64, ne), gs: make([]float64, ne),
		dir: make([]int, ne), disarmed: make([]bool, ne),
		y0: make([]float64, n), ys: make([]float64, n), ye: make([]float64, n),
		yHi: make([]float64, n), yBest: make([]float64, n), yr: make([]float64, n)}
	w.cp, _ = st.(Checkpointer)
	for i := range w.dir {
		w.dir[i] = ev.EventDirection(i)
	}
	return w
}

// Method, Order and State implement Stepper.
func (w *eventStepper) Method() string { return w.in.Method() }
func (w *eventStepper) Order() int     { return w.in.Order() }
func (w *eventStepper) State() (float64, []float64) {
	_, y := w.in.State()
	return w.clk.Now(), y
}

// Work implements Stepper: the inner method's work, including the
// re-steps that located events, and the event evaluations and events.
func (w *eventStepper) Work() Work {
	s := w.acc
	s.add(w.in.Work())
	return s
}

// Init implements Stepper.
func (w *eventStepper) Init(t0 float64, y0 []float64) error {
	w.init = false
	if err := w.in.Init(t0, y0); err != nil {
		return err
	}
	w.acc = Work{}
	w.clk = Clock{Base: t0}
	clear(w.disarmed)
	w.zeno = zenoGuard{}
	if err := w.events(t0, 0, y0, w.g); err != nil {
		return err
	}
	w.init = true
	return nil
}

func (w *eventStepper) events(t, dt float64, y, dst []float64) error {
	w.acc.EventEvals++
	if err := w.ev.Events(t, y, dst); err != nil {
		return &StepError{Method: w.in.Method(), Status: Failure, T: t, Dt: dt, Index: -1, Err: err}
	}
	return nil
}

// reinit restarts the inner stepper at (t, y), keeping its work counts.
func (w *eventStepper) reinit(t float64, y []float64) error {
	w.acc.add(w.in.Work())
	return w.in.Init(t, y)
}

// restep takes one inner step of tau from the sub-step start (ts, ys)
// and evaluates the events at its end into gt.
func (w *eventStepper) restep(ts, tau float64) error {
	if err := w.reinit(ts, w.ys); err != nil {
		return err
	}
	if err := w.in.Step(tau); err != nil {
		return err
	}
	_, y := w.in.State()
	return w.events(ts+tau, tau, y, w.gt)
}

// Step implements Stepper. On error the accepted state is unchanged
// (a method with memory restarts from it, as after Init), except for
// EventStop: the step then ends at the event with the reset state and
// the error is a *StepError with Status StoppedByEvent.
func (w *eventStepper) Step(dt float64) error {
	if !w.init {
		panic("integrators: Step before Init")
	}
	checkStep(dt)
	t0 := w.clk.Now()
	nc := w.clk.next(dt)
	t1 := nc.Now()
	_, y := w.in.State()
	copy(w.y0, y)
	if err := w.in.Step(dt); err != nil {
		return err
	}
	_, y = w.in.State()
	if err := w.events(t1, dt, y, w.g1); err != nil {
		w.rollback(t0)
		return err
	}
	if !w.candidate(w.g, w.g1) {
		w.g, w.g1 = w.g1, w.g
		w.clk = nc
		return nil
	}
	stopped, err := w.eventStep(t0, t1, dt)
	if err != nil {
		w.rollback(t0)
		return err
	}
	if stopped != nil {
		return stopped
	}
	// Put the inner stepper on the step-count clock at t1, keeping the
	// memory of its last sub-step.
	if w.cp != nil {
		cp := w.cp.Checkpoint()
		cp.Clock, cp.T = nc, t1
		w.restoreInner(cp)
	} else {
		_, y = w.in.State()
		copy(w.ye, y)
		if err := w.reinit(t1, w.ye); err != nil {
			w.rollback(t0)
			return err
		}
	}
	w.clk = nc
	return nil
}

// rollback restores the accepted state at the start of a failed step.
func (w *eventStepper) rollback(t0 float64) {
	if err := w.reinit(t0, w.y0); err != nil {
		panic("integrators: restarting from an accepted state failed: " + err.Error())
	}
	if w.cp != nil {
		cp := w.cp.Checkpoint()
		cp.Clock, cp.T = w.clk, t0
		w.restoreInner(cp)
	}
}

// restoreInner restores a checkpoint of the inner stepper, keeping the
// work counts.
func (w *eventStepper) restoreInner(cp StepperState) {
	w.acc.add(w.in.Work())
	w.acc = w.acc.Sub(cp.Work)
	if err := w.cp.Restore(cp); err != nil {
		panic("integrators: restoring the stepper's own checkpoint: " + err.Error())
	}
}

// candidate reports whether an event may have fired between event values
// gs at a sub-step's start and g1 at its end: an armed one crossed in its
// direction, or an unarmed one (zero at the start) moved off its surface
// to a value it could have reached only by crossing after leaving it.
func (w *eventStepper) candidate(gs, g1 []float64) bool {
	for i := range gs {
		if w.disarmed[i] {
			continue
		}
		if gs[i] == 0 {
			if g1[i] != 0 {
				return true
			}
			continue
		}
		if crossed(w.dir[i], gs[i], g1[i]) {
			return true
		}
	}
	return false
}

// eventStep finishes the step from t0 to t1 whose ordinary step ended
// with the inner stepper at y(t1) and events g1 that may have fired.
func (w *eventStepper) eventStep(t0, t1, dt float64) (stopped error, err error) {
	ts := t0
	copy(w.ys, w.y0)
	copy(w.gs, w.g)
	for {
		h := t1 - ts
		_, y := w.in.State()
		copy(w.ye, y)
		// The inner stepper at the end of the sub-step, to go back to if
		// no event fired after all (only steps that may hold an event
		// pay for this copy).
		var end StepperState
		if w.cp != nil {
			end = w.cp.Checkpoint()
		}
		best, tau, err := w.scan(ts, h)
		if err != nil {
			return nil, err
		}
		if best < 0 {
			// No event in the rest of the step: its end is ye, g1.
			if w.cp != nil {
				w.restoreInner(end)
			} else {
				if err := w.reinit(ts, w.ys); err != nil {
					return nil, err
				}
				if err := w.in.Step(h); err != nil {
					return nil, err
				}
			}
			copy(w.g, w.g1)
			return nil, nil
		}
		te := ts + tau
		if tau >= h {
			te = t1
		}
		copy(w.yr, w.yBest)
		act, err := w.ev.Reset(best, te, w.yBest, w.yr)
		if err != nil {
			return nil, &StepError{Method: w.in.Method(), Status: Failure, T: te, Dt: dt, Index: -1, Err: err}
		}
		if i := firstNonFinite(w.yr); i >= 0 {
			return nil, &StepError{Method: w.in.Method(), Status: NonFinite, T: te, Dt: dt, Index: i}
		}
		err = w.zeno.check(&w.c, w.in.Method(), te, dt, best)
		w.zeno.record(te)
		if err != nil {
			return nil, err
		}
		w.acc.EventsHandled++
		if act == EventDisarm {
			w.disarmed[best] = true
		}
		if err := w.events(te, dt, w.yr, w.gs); err != nil {
			return nil, err
		}
		w.gs[best] = 0 // just fired: unarmed until it leaves the surface
		copy(w.ys, w.yr)
		ts = te
		if act == EventStop || te >= t1 {
			if err := w.reinit(te, w.ys); err != nil {
				return nil, err
			}
			copy(w.g, w.gs)
			if act == EventStop {
				w.clk = Clock{Base: te}
				return &StepError{Method: w.in.Method(), Status: StoppedByEvent, T: te, Dt: dt, Index: best}, nil
			}
			return nil, nil
		}
		// Integrate the rest of the step from the reset state.
		if err := w.reinit(ts, w.ys); err != nil {
			return nil, err
		}
		if err := w.in.Step(t1 - ts); err != nil {
			return nil, err
		}
		_, y = w.in.State()
		if err := w.events(t1, dt, y, w.g1); err != nil {
			return nil, err
		}
		if !w.candidate(w.gs, w.g1) {
			copy(w.g, w.g1)
			return nil, nil
		}
	}
}

// scan finds the earliest event in the sub-step of length h from
// (ts, ys, gs) whose ordinary step ended at ye with events g1: its index
// and its located offset τ ∈ (0, h], with the far-side state in yBest;
// -1 when none fired. It leaves the inner stepper in an undefined state.
func (w *eventStepper) scan(ts, h float64) (best int, tauBest float64, err error) {
	best, tauBest = -1, math.Inf(1)
	probed := false
	gp := w.gp
	for i := 0; i < w.ne; i++ {
		if w.disarmed[i] {
			continue
		}
		ref, lo := w.gs[i], 0.0
		if ref == 0 {
			if w.g1[i] == 0 {
				continue
			}
			// Unarmed at the start: take the reference sign a short
			// re-step later, as the adaptive driver does on its dense
			// output.
			tp := math.Min(64*w.eventTol(ts), h/2)
			if !probed {
				if err := w.restep(ts, tp); err != nil {
					return -1, 0, err
				}
				copy(gp, w.gt)
				probed = true
			}
			ref, lo = gp[i], tp
			if ref == 0 {
				continue
			}
		}
		if !crossed(w.dir[i], ref, w.g1[i]) {
			continue
		}
		tau, err := w.locate(i, ts, lo, ref, h, w.g1[i])
		if err != nil {
			return -1, 0, err
		}
		if tau < tauBest {
			best, tauBest = i, tau
			copy(w.yBest, w.yHi)
		}
	}
	return best, tauBest, nil
}

func (w *eventStepper) eventTol(t float64) float64 { return eventTolAt(w.c.eventTol, t) }

// locate finds the crossing of event i in the sub-step offsets [lo, hi]
// (illinois), re-stepping from (ts, ys) for each trial offset, and
// returns an offset on the far side within the tolerance of the root,
// with the state there in yHi.
func (w *eventStepper) locate(i int, ts, lo, flo, hi, fhi float64) (float64, error) {
	copy(w.yHi, w.ye)
	dir, ref := w.dir[i], flo
	return illinois(dir, lo, flo, hi, fhi, ts, w.c.eventTol, func(c float64) (float64, error) {
		if err := w.restep(ts, c); err != nil {
			return 0, err
		}
		fc := w.gt[i]
		if fc == 0 || crossed(dir, ref, fc) {
			_, y := w.in.State()
			copy(w.yHi, y)
		}
		return fc, nil
	})
}

// Checkpoint implements Checkpointer: the inner stepper's checkpoint with
// the event state (G, Disarmed, ZenoCount, LastEventT) and the total work.
func (w *eventStepper) Checkpoint() StepperState {
	c := w.cp.Checkpoint()
	c.Clock, c.T = w.clk, w.clk.Now()
	c.G = cloneF(w.g)
	c.Disarmed = slices.Clone(w.disarmed)
	c.ZenoCount, c.LastEventT = w.zeno.count, w.zeno.lastT
	c.Work = w.Work()
	return c
}

// Restore implements Checkpointer. A checkpoint without event state (from
// a stepper of the same method without events) arms every event from the
// restored state.
func (w *eventStepper) Restore(c StepperState) error {
	if c.G != nil && (len(c.G) != w.ne || len(c.Disarmed) != w.ne) {
		return &StateMismatchError{Field: "events", Want: fmt.Sprint(w.ne), Got: fmt.Sprint(len(c.G))}
	}
	if err := w.cp.Restore(c); err != nil {
		return err
	}
	w.acc = Work{}
	w.clk = c.Clock
	w.zeno = zenoGuard{count: c.ZenoCount, lastT: c.LastEventT, have: c.Work.EventsHandled > 0}
	if c.G != nil {
		copy(w.g, c.G)
		copy(w.disarmed, c.Disarmed)
	} else {
		clear(w.disarmed)
		if err := w.events(c.T, 0, c.Y, w.g); err != nil {
			return err
		}
	}
	w.init = true
	return nil
}
