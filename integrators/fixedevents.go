package integrators

import (
	"fmt"
	"math"
	"slices"
)

// Events and time events for the fixed-step methods.
//
// NewStepper wraps the stepper of a System that implements EventSystem
// (with at least one event) or TimeEventSystem in an eventStepper. Each
// Step(dt) from t_n to t_n + dt is then split into sub-steps at the time
// events inside it: a sub-step that reaches a time event τ ends at τ,
// its stages taken at times below τ (its length is the largest whose end
// is below τ, so that f is sampled at its left limit, as the adaptive
// drivers do), and the next sub-step starts afresh at τ, the method's
// memory rebuilt from f's right limit there. A step with no time event
// inside is the inner method's ordinary step.
//
// After each sub-step the event functions are evaluated at its end; when
// no armed one changed sign in its direction, that is the sub-step, and
// a step without time events nor crossings is the method's own step, bit
// for bit, at the cost of one evaluation of the event functions at its
// end. When events fired, their instant is located by re-stepping: the
// inner stepper is re-initialised at the sub-step's start and takes one
// step of length τ, for trial values of τ chosen by the Illinois method
// with bisection safeguards (the root finder of the adaptive drivers),
// until the bracket is narrower than DriverOptions.EventTol. Re-stepping
// rather than interpolating, because the fixed-step methods have no
// interpolant of their own (a cubic Hermite one would need extra
// evaluations and would not be the method's trajectory): the state at
// the located time is exactly what the method computes with a step
// ending there, so it has the method's order, and for the
// piecewise-polynomial motion of the bouncing ball RK4 finds the contact
// to rounding. The cost is about ten to forty re-steps per instant; an
// event whose function is exactly zero at a sub-step's end (a sampled
// block's event on its time event) is located there without re-steps.
// Every event that has crossed at the instant gets its reset
// (eventCore.markDue, eventCore.settle),
// and the rest of the step is integrated from the state after them,
// which may fire further events, handled in the same way. The step still
// ends at t_n + dt on the step-count clock.
//
// A method with memory (the implicit trapezoid's carried f, the Newmark
// family's algorithmic acceleration, the Dormand–Prince FSAL stage, BDF's
// history) is re-initialised by the re-steps and after an instant or a
// time event: the carried f and FSAL stage are recomputed, the Newmark
// family restarts from the physical acceleration, which is the only
// consistent choice after a velocity jump, and BDF from its starting
// steps.
type eventStepper struct {
	in  Stepper
	cp  Checkpointer // in, when it checkpoints (every stepper of this package)
	sys System
	ev  *eventCore      // nil without events
	tev TimeEventSystem // nil without time events
	c   conf
	n   int
	clk Clock

	// Event values (length EventCount; nil without events).
	g   []float64 // at the accepted state (0: unarmed)
	g1  []float64 // at the end of the current sub-step
	gt  []float64 // scratch: at a trial end
	gp  []float64 // at the probe after an unarmed start
	gs  []float64 // at the start of the current sub-step (0: unarmed)
	te  []float64 // the located offsets of the events that fired in a sub-step
	due []bool

	y0    []float64 // the accepted state at the start of the step
	ys    []float64 // the state at the start of the current sub-step
	ye    []float64 // the state at the end of the current sub-step
	yHi   []float64 // the state at the far side of the crossing being located
	yBest []float64 // the far-side state of the earliest event so far
	yp    []float64 // the start probe's state

	acc Work // work of the inner stepper before its latest Init or Restore, and the events'

	init    bool
	started bool // the events due at the start of the run were applied (or none were)
}

// withEvents wraps st in an eventStepper when sys has events or time
// events; an event direction outside {−1, 0, 1} is an error.
func withEvents(st Stepper, sys System, c conf) (Stepper, error) {
	tev, _ := sys.(TimeEventSystem)
	w := &eventStepper{in: st, sys: sys, tev: tev, c: c, n: sys.Dim()}
	ev, err := newEventCore(sys, &w.c, st.Method(), &w.acc)
	if err != nil {
		return nil, err
	}
	if ev == nil && tev == nil {
		return st, nil
	}
	w.ev = ev
	mk := func(k int) []float64 { return make([]float64, k) }
	if ev != nil {
		w.states()
		ne := ev.ne
		w.g, w.g1, w.gt, w.gp, w.gs, w.te = mk(ne), mk(ne), mk(ne), mk(ne), mk(ne), mk(ne)
		w.due = make([]bool, ne)
	}
	w.cp, _ = st.(Checkpointer)
	return w, nil
}

// states allocates the six state buffers of the sub-step machinery. A
// stepper with state events has them from the start; one with only time
// events gets them at the first Init or Restore from which a time event
// lies ahead (a graph always offers NextTimeEvent, and most graphs have
// none: six state vectors, 29 MB at 600 000 states, never used). Step
// allocates them itself only if neither was called, which cannot happen
// in a run (Step panics before Init).
func (w *eventStepper) states() {
	if w.y0 != nil {
		return
	}
	n := w.n
	mk := func() []float64 { return make([]float64, n) }
	w.y0, w.ys, w.ye, w.yHi, w.yBest, w.yp = mk(), mk(), mk(), mk(), mk(), mk()
}

// statesFrom allocates the state buffers when a time event lies after t.
func (w *eventStepper) statesFrom(t float64) {
	if w.tev != nil && !math.IsInf(w.tev.NextTimeEvent(t), 1) {
		w.states()
	}
}

// Method, Order and State implement Stepper.
func (w *eventStepper) Method() string { return w.in.Method() }

// tol is the event time tolerance at t.
func (w *eventStepper) tol(t float64) float64 { return eventTolAt(w.c.eventTol, t) }
func (w *eventStepper) Order() int            { return w.in.Order() }
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

// Init implements Stepper. The events due at t0 (see "Events" in the
// package documentation) are applied by the first Step.
func (w *eventStepper) Init(t0 float64, y0 []float64) error {
	w.init = false
	if err := w.in.Init(t0, y0); err != nil {
		return err
	}
	w.acc = Work{}
	w.clk = Clock{Base: t0}
	w.started = false
	w.statesFrom(t0)
	if w.ev != nil {
		w.ev.reset()
		if err := w.ev.eval(t0, 0, y0, w.g); err != nil {
			return err
		}
	}
	w.init = true
	return nil
}

// reinit restarts the inner stepper at (t, y), keeping its work counts.
func (w *eventStepper) reinit(t float64, y []float64) error {
	w.acc.add(w.in.Work())
	return w.in.Init(t, y)
}

// restep takes one inner step of tau > 0 from the sub-step start
// (ts, ys) and evaluates the events at its end into gt.
func (w *eventStepper) restep(ts, tau float64) error {
	if err := w.reinit(ts, w.ys); err != nil {
		return err
	}
	if err := w.in.Step(tau); err != nil {
		return err
	}
	_, y := w.in.State()
	return w.ev.eval(ts+tau, tau, y, w.gt)
}

// leftLength is the length of a sub-step from ts that ends just below
// the time event tau: the largest h with ts + h < tau (0 when tau is the
// next float after ts).
func leftLength(ts, tau float64) float64 {
	h := math.Nextafter(tau, math.Inf(-1)) - ts
	for h > 0 && ts+h >= tau {
		h = math.Nextafter(h, 0)
	}
	return math.Max(h, 0)
}

// Step implements Stepper. On error the accepted state is unchanged
// (a method with memory restarts from it, as after Init), except for
// EventStop: the step then ends at the event with the state after its
// instant and the error is a *StepError with Status StoppedByEvent.
func (w *eventStepper) Step(dt float64) error {
	if !w.init {
		panic("integrators: Step before Init")
	}
	checkStep(dt)
	t0 := w.clk.Now()
	if w.ev != nil && !w.started {
		if stopped, err := w.startEvents(t0, dt); err != nil || stopped != nil {
			if err != nil {
				return err
			}
			return stopped
		}
	}
	nc := w.clk.next(dt)
	t1 := nc.Now()
	next := math.Inf(1)
	if w.tev != nil {
		next = w.tev.NextTimeEvent(t0)
	}
	taken := false
	if !(next <= t1) {
		// No time event inside: the method's own step, and the events
		// at its end.
		if w.ev == nil {
			if err := w.in.Step(dt); err != nil {
				return err
			}
			w.clk = nc
			return nil
		}
		_, y := w.in.State()
		copy(w.y0, y)
		if err := w.in.Step(dt); err != nil {
			return err
		}
		_, y = w.in.State()
		if err := w.ev.eval(t1, dt, y, w.g1); err != nil {
			w.rollback(t0)
			return err
		}
		if !w.candidate(w.g, w.g1) {
			w.g, w.g1 = w.g1, w.g
			w.clk = nc
			return nil
		}
		taken = true
	} else {
		w.states()
		_, y := w.in.State()
		copy(w.y0, y)
	}
	stopped, err := w.subSteps(t0, t1, dt, taken)
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
		_, y := w.in.State()
		copy(w.ye, y)
		if err := w.reinit(t1, w.ye); err != nil {
			w.rollback(t0)
			return err
		}
	}
	w.clk = nc
	return nil
}

// startEvents applies the events due at the start t0 of the run, once
// after Init (eventCore.startDue), with the inner stepper restarted at
// the state after them. On error nothing changed.
func (w *eventStepper) startEvents(t0, dt float64) (stopped error, err error) {
	_, y := w.in.State()
	copy(w.y0, y)
	f := func(dst []float64) error {
		w.acc.FuncEvals++
		if err := w.sys.Func(t0, w.y0, dst); err != nil {
			return &StepError{Method: w.in.Method(), Status: Failure, T: t0, Dt: dt, Index: -1, Err: err}
		}
		return nil
	}
	any, err := w.ev.startDue(t0, dt, w.y0, w.g, f, w.yp, w.gp, w.due)
	if err != nil {
		return nil, err
	}
	if !any {
		w.started = true
		return nil, nil
	}
	stop, err := w.ev.settle(t0, dt, w.y0, w.g, w.due)
	if err != nil {
		return nil, err
	}
	w.started = true
	copy(w.g, w.ev.ref)
	if err := w.reinit(t0, w.ev.final()); err != nil {
		w.rollback(t0)
		return nil, err
	}
	if stop {
		i, _ := w.ev.outcome(stop)
		return &StepError{Method: w.in.Method(), Status: StoppedByEvent, T: t0, Dt: dt, Index: i}, nil
	}
	return nil, nil
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
		if w.ev.disarmed[i] {
			continue
		}
		if gs[i] == 0 {
			if g1[i] != 0 {
				return true
			}
			continue
		}
		if crossed(w.ev.dir[i], gs[i], g1[i]) {
			return true
		}
	}
	return false
}

// subSteps finishes the step from t0 to t1 (size dt) in sub-steps that
// end on the time events inside it and at the instants of the events
// that fire. taken says that the first sub-step, the method's own step
// to t1, is already taken, with the events at its end in g1. It returns
// a StoppedByEvent error when a reset stopped the run (the stepper then
// stands at the instant).
func (w *eventStepper) subSteps(t0, t1, dt float64, taken bool) (stopped error, err error) {
	ts := t0
	copy(w.ys, w.y0)
	if w.ev != nil {
		copy(w.gs, w.g)
	}
	first := true
	for {
		end, landing := t1, false
		if w.tev != nil {
			if tau := w.tev.NextTimeEvent(ts); tau <= t1 {
				end, landing = tau, true
			}
		}
		h := end - ts
		if landing {
			h = leftLength(ts, end)
		}
		if (landing || ts > t0) && end-ts <= w.tol(end) {
			// Closer than events are told apart in time: the same
			// instant, not a step (a step of a few ulps would only
			// corrupt a multistep history).
			h = 0
		}
		switch {
		case first && taken:
		case h > 0:
			// The first sub-step keeps the method's memory; the others
			// start afresh from an instant or a time event.
			if !first {
				if err := w.reinit(ts, w.ys); err != nil {
					return nil, err
				}
			}
			if err := w.in.Step(h); err != nil {
				return nil, err
			}
		case !first:
			// A time event within one float of ts: nothing to step.
			if err := w.reinit(ts, w.ys); err != nil {
				return nil, err
			}
		}
		first = false
		_, y := w.in.State()
		copy(w.ye, y)
		if w.ev == nil {
			if !landing {
				return nil, nil
			}
			ts = end
			copy(w.ys, w.ye)
			continue
		}
		if !(taken && end == t1 && ts == t0) {
			if err := w.ev.eval(end, dt, w.ye, w.g1); err != nil {
				return nil, err
			}
		}
		if w.candidate(w.gs, w.g1) {
			// The inner stepper at the sub-step's end, to go back to if
			// no event fired after all (only sub-steps that may hold an
			// event pay for this copy).
			var endCP StepperState
			if w.cp != nil && !landing {
				endCP = w.cp.Checkpoint()
			}
			found, te, ge, err := w.scan(ts, h, end, dt)
			if err != nil {
				return nil, err
			}
			if found {
				stop, err := w.ev.settle(te, dt, w.yBest, ge, w.due)
				if err != nil {
					return nil, err
				}
				copy(w.ys, w.ev.final())
				copy(w.gs, w.ev.ref)
				ts = te
				if stop || te >= t1 {
					if err := w.reinit(te, w.ys); err != nil {
						return nil, err
					}
					copy(w.g, w.gs)
					if stop {
						w.clk = Clock{Base: te}
						i, _ := w.ev.outcome(stop)
						return &StepError{Method: w.in.Method(), Status: StoppedByEvent, T: te, Dt: dt, Index: i}, nil
					}
					return nil, nil
				}
				continue
			}
			if !landing {
				// No event in the rest of the step: its end is ye, g1.
				if w.cp != nil {
					w.restoreInner(endCP)
				} else {
					if err := w.reinit(ts, w.ys); err != nil {
						return nil, err
					}
					if err := w.in.Step(h); err != nil {
						return nil, err
					}
				}
			}
		}
		if !landing {
			copy(w.g, w.g1)
			return nil, nil
		}
		// On a time event where nothing fired: go on from its right
		// limit.
		ts = end
		copy(w.ys, w.ye)
		copy(w.gs, w.g1)
	}
}

// scan finds the events that fire in the sub-step of length h from
// (ts, ys, gs) whose ordinary step ended at end with the state ye and
// events g1 (dt is the step, for errors): whether any did, the instant
// te, the time ts + τ of the earliest located (τ ∈ [0, h]; end when
// τ = h), with the far-side state there in yBest and the event values
// there in ge, and in due the
// events that fire at that instant (eventCore.markDue: those that
// crossed in the sub-step and are across their surface there). It leaves
// the inner stepper in an undefined state.
func (w *eventStepper) scan(ts, h, end, dt float64) (found bool, te float64, ge []float64, err error) {
	tauBest := math.Inf(1)
	probed := false
	e := w.ev
	// Unarmed at the start: take the reference sign a short re-step
	// later, as the adaptive drivers do on their dense output.
	tp := math.Min(64*w.tol(ts), h/2)
	for i := 0; i < e.ne; i++ {
		w.te[i] = math.Inf(1)
		if e.disarmed[i] {
			continue
		}
		ref, lo := w.gs[i], 0.0
		if ref == 0 {
			if w.g1[i] == 0 || h == 0 {
				continue
			}
			if !probed {
				if err := w.restep(ts, tp); err != nil {
					return false, 0, nil, err
				}
				copy(w.gp, w.gt)
				probed = true
			}
			ref, lo = w.gp[i], tp
			if ref == 0 {
				continue
			}
		}
		if !crossed(e.dir[i], ref, w.g1[i]) {
			continue
		}
		tau, err := w.locate(i, ts, lo, ref, h, w.g1[i])
		if err != nil {
			return false, 0, nil, err
		}
		w.te[i] = tau
		if tau < tauBest {
			tauBest = tau
			copy(w.yBest, w.yHi)
		}
	}
	if math.IsInf(tauBest, 1) {
		return false, 0, nil, nil
	}
	// The event values at the instant: the sub-step's own end's when
	// it is there.
	te, ge = ts+tauBest, w.g1
	if tauBest >= h {
		te = end
	}
	if tauBest < h {
		if err := e.eval(te, dt, w.yBest, w.gt); err != nil {
			return false, 0, nil, err
		}
		ge = w.gt
	}
	e.markDue(tauBest, tp, w.te, w.gs, w.gp, ge, w.due)
	return true, te, ge, nil
}

// locate finds the crossing of event i in the sub-step offsets [lo, hi]
// (illinois), re-stepping from (ts, ys) for each trial offset, and
// returns an offset on the far side within the tolerance of the root,
// with the state there in yHi.
func (w *eventStepper) locate(i int, ts, lo, flo, hi, fhi float64) (float64, error) {
	copy(w.yHi, w.ye)
	dir, ref := w.ev.dir[i], flo
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

// Checkpoint implements Checkpointer: the inner stepper's checkpoint
// (or, for a stepper without one, its state alone) with the event state
// (G, Disarmed, ZenoCount, LastEventT) and the total work.
func (w *eventStepper) Checkpoint() StepperState {
	var c StepperState
	if w.cp != nil {
		c = w.cp.Checkpoint()
	} else {
		_, y := w.in.State()
		c = StepperState{Method: w.in.Method(), Dim: w.n, Y: cloneF(y)}
	}
	c.Clock, c.T = w.clk, w.clk.Now()
	if w.ev != nil {
		c.G = cloneF(w.g)
		c.Disarmed = slices.Clone(w.ev.disarmed)
		c.ZenoCount, c.LastEventT = w.ev.zeno.count, w.ev.zeno.lastT
	}
	c.Work = w.Work()
	return c
}

// Restore implements Checkpointer. A checkpoint without event state (from
// a stepper of the same method without events) arms every event from the
// restored state. The events due at the start are still to be applied
// when the checkpoint's Work shows neither a step nor an event.
func (w *eventStepper) Restore(c StepperState) error {
	ne := 0
	if w.ev != nil {
		ne = w.ev.ne
	}
	if c.G != nil && (len(c.G) != ne || len(c.Disarmed) != ne) {
		return &StateMismatchError{Field: "events", Want: fmt.Sprint(ne), Got: fmt.Sprint(len(c.G))}
	}
	if w.cp != nil {
		if err := w.cp.Restore(c); err != nil {
			return err
		}
	} else {
		if err := c.check(w.in.Method(), w.n, true); err != nil {
			return err
		}
		if err := w.in.Init(c.T, c.Y); err != nil {
			return err
		}
	}
	w.acc = Work{}
	if w.cp == nil {
		w.acc = c.Work
	}
	w.clk = c.Clock
	w.started = c.Work.Steps > 0 || c.Work.EventsHandled > 0
	w.statesFrom(c.T)
	if w.ev != nil {
		w.ev.zeno = zenoGuard{count: c.ZenoCount, lastT: c.LastEventT, have: c.Work.EventsHandled > 0}
		w.ev.fire = w.ev.fire[:0]
		if c.G != nil {
			copy(w.g, c.G)
			copy(w.ev.disarmed, c.Disarmed)
		} else {
			clear(w.ev.disarmed)
			if err := w.ev.eval(c.T, 0, c.Y, w.g); err != nil {
				return err
			}
		}
	}
	w.init = true
	return nil
}
