package fmi

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/node"
)

// ModelExchangeNode is an FMU imported through its model-exchange
// interface: the FMU gives its equations and cosim integrates them.
//
// Its state is the FMU's continuous-state vector, one field per state
// variable in the order of the FMU's derivatives (a model without
// continuous states gets a "time" state of rate 1, so that graphs
// integrate it and locate its events). Derivatives, Outputs and
// EventValues set the time, the continuous states and the inputs and
// read the derivatives, the outputs (those that are not states) and the
// event indicators, so monolithic integrators of a graph drive it like
// a native node: every event indicator is an event (either direction),
// plus "time_event", t − τ for the FMU's next time event τ, which the
// node also reports as a time event (node.TimeEventer) so that adaptive
// Dormand–Prince ends a step exactly on it. Reset runs the FMU's event
// update there: fmi3EnterEventMode, fmi3UpdateDiscreteStates until no
// further update is needed (the event iteration), then continuous-time
// mode, the new continuous states read back when the FMU changed them;
// an FMU that asks to terminate stops the run at the event
// (node.ErrStop). In co-simulation the node integrates itself over each
// Update with cosim's adaptive Dormand–Prince (tolerances "rtol",
// "atol"), locating its state and time events likewise and calling
// fmi3CompletedIntegratorStep after every accepted step; in a graph's
// monolithic integration the graph tells it of every accepted step
// (node.StepCompleter) and it makes the same call. Either way a step
// event the FMU asks for there gets the same event update at the end of
// the step, and the integration restarts from the state after it.
//
// The FMU's discrete state stays inside it and belongs to the times from
// its last event on: a call for an earlier time is served only from the
// state saved before the current Update (AllowRestep) and is refused
// otherwise (ErrState).
type ModelExchangeNode struct {
	*base
	nx, nz int
	outs   *valueMap

	// d is the FMU's discrete state as the node knows it; the FMU's own
	// copies around its last event and before the current Update are
	// kept in slots (evPre, evPost, pre) when it can get and set its
	// state, so that samples recorded before an event and re-stepped
	// Updates see the discrete state of their time.
	d             discrete
	initNext      float64 // next after initialization
	evPre, evPost savedDiscrete
	pre           savedDiscrete // slotPre, with the Update's start time
	preT          float64
	canSave       bool
	// What was last set in the FMU, to skip repeated calls.
	lastT        float64
	lastX        []float64
	tSet, xSet   bool
	z            []float64 // event indicators
	memo         call
	term         float64 // when the FMU asked to terminate at the end of an Update (NaN: not)
	drv          *integrators.Adaptive
	sys          *meSystem
	needComplete bool
	yEvent       []float64 // the state after a step event in Update
	// DerivativesJacobian's buffers.
	dKnown, dUnknown []uint32
	dIn              []uint32 // Float64 inputs, in input order
	seed, col        []float64
}

// discrete is the bookkeeping of a model-exchange FMU's discrete state:
// it is valid on [from, until) (until +Inf for the latest one); next is
// the FMU's next time event (+Inf: none announced), prev the last one
// handled (−Inf: none) and k the number handled.
type discrete struct {
	from, until float64
	next, prev  float64
	k           int
}

// savedDiscrete is a discrete state the FMU saved in a slot.
type savedDiscrete struct {
	ok bool
	d  discrete
}

var (
	_ node.Node               = (*ModelExchangeNode)(nil)
	_ node.Deriver            = (*ModelExchangeNode)(nil)
	_ node.Outputter          = (*ModelExchangeNode)(nil)
	_ node.Eventer            = (*ModelExchangeNode)(nil)
	_ node.TimeEventer        = (*ModelExchangeNode)(nil)
	_ node.Tunable            = (*ModelExchangeNode)(nil)
	_ node.HiddenState        = (*ModelExchangeNode)(nil)
	_ node.StepCompleter      = (*ModelExchangeNode)(nil)
	_ node.SensitivityChecker = (*ModelExchangeNode)(nil)
)

func newME(b *base) (node.Node, error) {
	n := &ModelExchangeNode{base: b, nz: b.m.nz, outs: newValueMap(b.m.outputs, 0), term: math.NaN()}
	for _, c := range b.m.states {
		n.nx += c.n
	}
	n.x0 = make([]float64, b.spec.StateLayout.Size())
	n.lastX = make([]float64, n.nx)
	n.z = make([]float64, n.nz)
	n.yEvent = make([]float64, len(n.x0))
	n.needComplete = b.md.ModelExchange.NeedsCompletedIntegratorStep
	track(n, b)
	if err := n.start(); err != nil {
		n.Close()
		return nil, err
	}
	n.sys = &meSystem{n: n}
	drv, err := integrators.NewAdaptive(integrators.DormandPrince{RTol: b.vals.Float(ParamRTol), ATol: b.vals.Float(ParamATol)}, n.sys, nil)
	if err != nil {
		n.Close()
		return nil, err
	}
	n.drv = drv
	if b.md.ModelExchange.ProvidesDirectionalDerivatives && n.nx > 0 {
		for _, c := range b.m.derivs {
			n.dUnknown = append(n.dUnknown, c.v.VR)
		}
		for _, c := range b.m.states {
			n.dKnown = append(n.dKnown, c.v.VR)
		}
		for _, c := range b.m.inputs {
			n.dIn = append(n.dIn, c.v.VR)
		}
		n.seed = make([]float64, max(n.nx, b.in.size))
		n.col = make([]float64, n.nx)
		if allFloat64(b.m.inputs) {
			return &meJacobian{n}, nil
		}
	}
	return n, nil
}

// start initializes the FMU and records its initial state.
func (n *ModelExchangeNode) start() error {
	next, err := n.initialize()
	if err != nil {
		return n.at(err, n.t0)
	}
	n.d = discrete{from: n.t0, until: math.Inf(1), next: next, prev: math.Inf(-1)}
	n.initNext = next
	n.tSet, n.xSet, n.pre.ok, n.memo.ok = false, false, false, false
	n.evPre.ok, n.evPost.ok = false, false
	n.canSave = n.md.ModelExchange.CanGetAndSetFMUState
	n.term = math.NaN()
	if n.nx > 0 {
		if err := n.inst.getContinuousStates(n.x0); err != nil {
			return n.at(err, n.t0)
		}
		if err := n.checkFinite(n.x0, n.m.states, fmt.Sprintf("fmi%dGetContinuousStates", n.md.Major), n.t0); err != nil {
			return err
		}
	} else {
		n.x0[0] = n.t0
	}
	n.initSaved = false
	if n.md.ModelExchange.CanGetAndSetFMUState {
		if err := n.inst.saveState(slotInit); err != nil {
			return n.at(err, n.t0)
		}
		n.initSaved = true
	}
	return nil
}

// syncTime makes the FMU's discrete state the one valid at t: the one it
// holds, or one it saved around its last event, before the current
// Update (re-stepping) or after initialization.
func (n *ModelExchangeNode) syncTime(t float64) error {
	if t >= n.d.from && t < n.d.until {
		return nil
	}
	load := func(slot int, d discrete) error {
		if err := n.inst.loadState(slot); err != nil {
			return n.at(err, t)
		}
		n.d = d
		n.tSet, n.xSet, n.inSet = false, false, false
		return nil
	}
	switch {
	case n.evPost.ok && t >= n.evPost.d.from:
		return load(slotEvtPost, n.evPost.d)
	case n.evPre.ok && t >= n.evPre.d.from && t < n.evPre.d.until:
		return load(slotEvtPre, n.evPre.d)
	case n.pre.ok && t >= n.pre.d.from && t <= n.preT:
		// The Update is stepped again: what came after its start is
		// discarded.
		n.evPre.ok, n.evPost.ok, n.term = false, false, math.NaN()
		return load(slotPre, n.pre.d)
	case t == n.t0 && n.initSaved:
		n.evPre.ok, n.evPost.ok, n.pre.ok, n.term = false, false, false, math.NaN()
		return load(slotInit, discrete{from: n.t0, until: math.Inf(1), next: n.initNext, prev: math.Inf(-1)})
	}
	if t < n.d.from {
		return n.stateError("asked at t=%s, but its discrete state is the one after its event at t=%s; cosim can take an FMU back only to a state it saved (around its last event, before the current step, its initial state, a restored checkpoint; all need canGetAndSetFMUState)", fmtNum(t), fmtNum(n.d.from))
	}
	return n.stateError("asked at t=%s, after its event at t=%s, which it has been taken back from", fmtNum(t), fmtNum(n.d.until))
}

// latest makes the FMU hold its latest discrete state.
func (n *ModelExchangeNode) latest() error {
	if math.IsInf(n.d.until, 1) {
		return nil
	}
	return n.syncTime(n.evPost.d.from)
}

// prepare sets time, continuous states and inputs in the FMU.
func (n *ModelExchangeNode) prepare(t float64, x []float64, in node.Inputs) error {
	if err := n.usable(); err != nil {
		return err
	}
	if err := n.syncTime(t); err != nil {
		return err
	}
	if !n.tSet || n.lastT != t {
		if err := n.inst.setTime(t); err != nil {
			return n.at(err, t)
		}
		n.lastT, n.tSet = t, true
	}
	if n.nx > 0 && (!n.xSet || !slices.Equal(n.lastX, x)) {
		if err := n.inst.setContinuousStates(x); err != nil {
			n.xSet = false
			return n.at(err, t)
		}
		copy(n.lastX, x)
		n.xSet = true
	}
	return n.setInputs(in, t)
}

// derivatives is Derivatives with n.mu held.
func (n *ModelExchangeNode) derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	if err := n.prepare(t, x, in); err != nil {
		return err
	}
	if n.nx == 0 {
		dst[0] = 1
		return nil
	}
	fn := "fmi3GetContinuousStateDerivatives"
	if n.md.Major == 2 {
		fn = "fmi2GetDerivatives"
	}
	if err := n.inst.getDerivatives(dst); err != nil {
		return n.at(err, t)
	}
	return n.checkFinite(dst, n.m.states, fn, t)
}

// Derivatives writes the FMU's state derivatives at (t, x, in).
func (n *ModelExchangeNode) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.derivatives(t, x, in, dst)
}

// Outputs writes the FMU's outputs that are not continuous states.
func (n *ModelExchangeNode) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := n.prepare(t, x, in); err != nil {
		return err
	}
	return n.getValues(n.outs, dst, t)
}

// eventValues is EventValues with n.mu held.
func (n *ModelExchangeNode) eventValues(t float64, x []float64, in node.Inputs, dst []float64) error {
	if err := n.prepare(t, x, in); err != nil {
		return err
	}
	if n.nz > 0 {
		if err := n.inst.getEventIndicators(n.z); err != nil {
			return n.at(err, t)
		}
		for i, z := range n.z {
			if math.IsNaN(z) || math.IsInf(z, 0) {
				return fmt.Errorf("FMU %s (instance %s): fmi%dGetEventIndicators gave %s = %v at t=%s: %w",
					n.md.ModelName, n.name, n.md.Major, n.m.events[i], z, fmtNum(t), ErrNonFinite)
			}
		}
		copy(dst, n.z)
	}
	dst[n.nz] = n.timeEventValue(t)
	return nil
}

// timeEventValue is the time event's event function: t − τ for the
// next time event τ, −1 when none is announced.
func (n *ModelExchangeNode) timeEventValue(t float64) float64 {
	if math.IsInf(n.d.next, 1) {
		return -1
	}
	return t - n.d.next
}

// EventValues writes the FMU's event indicators and the time event's
// function t − τ.
func (n *ModelExchangeNode) EventValues(t float64, x []float64, in node.Inputs, dst []float64) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.eventValues(t, x, in, dst)
}

// reset is Reset with n.mu held; it reports whether the FMU asked to
// terminate.
func (n *ModelExchangeNode) reset(t float64, x []float64, in node.Inputs, dst []float64) (bool, error) {
	if err := n.prepare(t, x, in); err != nil {
		return false, err
	}
	before := n.d
	before.until = t
	if n.canSave {
		if err := n.inst.saveState(slotEvtPre); err != nil {
			return false, n.at(err, t)
		}
	}
	if err := n.inst.enterEventMode(); err != nil {
		return false, n.at(err, t)
	}
	ev, err := n.eventIteration()
	if err != nil {
		return false, n.at(err, t)
	}
	after := discrete{from: t, until: math.Inf(1), next: ev.nextEventTime, prev: n.d.prev, k: n.d.k}
	if t >= n.d.next {
		after.k++
		after.prev = n.d.next
	}
	n.d = after
	if err := n.inst.enterContinuousTimeMode(); err != nil {
		return false, n.at(err, t)
	}
	if n.canSave {
		if err := n.inst.saveState(slotEvtPost); err != nil {
			return false, n.at(err, t)
		}
		n.evPre = savedDiscrete{ok: true, d: before}
		n.evPost = savedDiscrete{ok: true, d: after}
	}
	n.xSet = false
	switch {
	case n.nx == 0:
		dst[0] = x[0]
	case ev.valuesChanged:
		if err := n.inst.getContinuousStates(dst); err != nil {
			return false, n.at(err, t)
		}
		if err := n.checkFinite(dst, n.m.states, fmt.Sprintf("fmi%dGetContinuousStates", n.md.Major), t); err != nil {
			return false, err
		}
	default:
		copy(dst, x)
	}
	return ev.terminate, nil
}

// Reset runs the FMU's event update at t (whichever event fired: the
// FMU updates everything due) and writes the continuous states after it.
// An FMU that asks to terminate ends the run there: Reset then returns
// node.ErrStop.
func (n *ModelExchangeNode) Reset(event int, t float64, x []float64, in node.Inputs, dst []float64) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	term, err := n.reset(t, x, in, dst)
	if err != nil {
		return err
	}
	if term {
		return fmt.Errorf("FMU %s (instance %s) asked to terminate at its event at t=%s: %w", n.md.ModelName, n.name, fmtNum(t), node.ErrStop)
	}
	return nil
}

// TimeEvents reports the FMU's next time event. An FMU announces its time
// events one at a time, at its event updates: next is the one announced
// last when it is after t (+Inf otherwise), prev the last one handled
// and k the number handled. Unlike a source's, the answer depends on the
// events the FMU has been through, not on t alone.
func (n *ModelExchangeNode) TimeEvents(t float64) (int, float64, float64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	d := n.d
	if !math.IsInf(d.until, 1) && n.evPost.ok {
		d = n.evPost.d // the latest, whatever the FMU holds for a sample
	}
	next := d.next
	if !(next > t) {
		next = math.Inf(1)
	}
	return d.k, d.prev, next
}

// Update integrates the FMU from t to t+dt with the inputs held, by
// adaptive Dormand–Prince with the node's tolerances, locating and
// handling its state and time events within the step.
func (n *ModelExchangeNode) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.memo.matches(t, dt, x, in) {
		copy(dst, n.memo.dst)
		return nil
	}
	if err := n.usable(); err != nil {
		return err
	}
	if err := n.syncTime(t); err != nil {
		return err
	}
	if !math.IsNaN(n.term) && t >= n.term {
		return fmt.Errorf("FMU %s (instance %s) asked at its event at t=%s to terminate the simulation: it cannot step further: %w", n.md.ModelName, n.name, fmtNum(n.term), ErrTerminated)
	}
	if n.restep {
		if err := n.inst.saveState(slotPre); err != nil {
			return n.at(err, t)
		}
		n.pre = savedDiscrete{ok: true, d: n.d}
		n.preT = t
	}
	n.sys.in = in
	end := t + dt
	if err := n.drv.Init(t, x); err != nil {
		return n.driverError(err)
	}
	for {
		rep, err := n.drv.Step(end)
		if err != nil {
			return n.driverError(err)
		}
		tn, y := n.drv.State()
		if rep.Action == integrators.EventStop {
			if !sameTime(rep.T1, end) {
				return fmt.Errorf("FMU %s (instance %s) asked at its event at t=%s to terminate the simulation, before the end of the step at t=%s: %w", n.md.ModelName, n.name, fmtNum(rep.T1), fmtNum(end), ErrTerminated)
			}
			// At the end of the step: the step succeeds, the next is
			// refused.
			n.term = rep.T1
			break
		}
		if n.needComplete {
			changed, term, err := n.completed(tn, y, in, n.yEvent)
			switch {
			case err != nil:
				return err
			case term != nil:
				return term
			case changed:
				// A step event: the integration restarts from the state
				// after the FMU's event update.
				if err := n.drv.Init(tn, n.yEvent); err != nil {
					return n.driverError(err)
				}
			}
		}
		if tn >= end {
			break
		}
	}
	_, y := n.drv.State()
	copy(dst, y)
	if n.nx == 0 {
		dst[0] = end
	}
	n.memo.store(t, dt, x, in, dst)
	return nil
}

// CompletedStep implements node.StepCompleter: in a graph's monolithic
// integration, after every step the integrator accepts, it sets the
// accepted time, states and inputs in the FMU and calls
// fmi3CompletedIntegratorStep (fmi2CompletedIntegratorStep), as the
// standard requires of an importer whose FMU declares it needs the call
// (FMI 3.0 needsCompletedIntegratorStep; FMI 2.0 unless
// completedIntegratorStepNotNeeded). An FMU that asks there for a step
// event (enterEventMode) gets it at once, as the standard's importer
// does: event mode, the event iteration (fmi3UpdateDiscreteStates until
// no further update is needed, the next time event taken from it),
// continuous-time mode, the continuous states read back into dst when
// the FMU changed them, the same update a located event's Reset runs;
// CompletedStep then reports a change, and the graph's integrator
// restarts from dst (its derivatives may have changed with the FMU's
// discrete state even when its states did not). An FMU that asks to
// terminate the simulation, there or in the event iteration, ends the
// run at t: the error wraps node.ErrStop and ErrTerminated and names the
// FMU and the time.
func (n *ModelExchangeNode) CompletedStep(t float64, x []float64, in node.Inputs, dst []float64) (bool, error) {
	if !n.needComplete {
		return false, nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	changed, term, err := n.completed(t, x, in, dst)
	if err != nil {
		return false, err
	}
	if term != nil {
		return changed, fmt.Errorf("%w: %w", term, node.ErrStop)
	}
	return changed, nil
}

// completed tells the FMU that the integrator accepted a step ending at
// (t, x) with the inputs in — in a graph's monolithic run and after
// every step of the node's own integration — and runs the step event it
// may ask for: it reports whether the FMU ran its event update (dst then
// holds the continuous states after it) and, as term, an error wrapping
// ErrTerminated when the FMU asked to terminate the simulation. n.mu is
// held.
func (n *ModelExchangeNode) completed(t float64, x []float64, in node.Inputs, dst []float64) (changed bool, term, err error) {
	if err := n.prepare(t, x, in); err != nil {
		return false, nil, err
	}
	enter, stop, err := n.inst.completedIntegratorStep()
	if err != nil {
		return false, nil, n.at(err, t)
	}
	if stop {
		return false, fmt.Errorf("FMU %s (instance %s): fmi%dCompletedIntegratorStep asked to terminate the simulation at t=%s: %w", n.md.ModelName, n.name, n.md.Major, fmtNum(t), ErrTerminated), nil
	}
	if !enter {
		return false, nil, nil
	}
	stop, err = n.reset(t, x, in, dst)
	if err != nil {
		return false, nil, err
	}
	if stop {
		return true, fmt.Errorf("FMU %s (instance %s) asked at its step event at t=%s to terminate the simulation: %w", n.md.ModelName, n.name, fmtNum(t), ErrTerminated), nil
	}
	return true, nil, nil
}

// CheckSensitivities implements node.SensitivityChecker. A graph
// differentiates a model-exchange FMU through its right-hand side: the
// state Jacobian from its directional derivatives or differences of
// Derivatives, which is right, and ∂f/∂p from differences over SetParams,
// which re-initializes the FMU. That is right only while the FMU's
// discrete state is its initial one throughout the run, and the FMU's
// event updates (resets of its states, new discrete values) happen
// inside it, where the graph can neither differentiate them nor repeat
// them at perturbed states without changing the FMU. So the node refuses
// sensitivities when the FMU has event indicators (state events),
// variables of discrete variability that it computes (discrete states,
// outputs or locals), clocks, or a time event announced at
// initialization; Dahlquist and VanDerPol have none and are
// differentiated.
func (n *ModelExchangeNode) CheckSensitivities() error {
	why := hiddenDiscrete(n.md)
	n.mu.Lock()
	next := n.initNext
	n.mu.Unlock()
	if !math.IsInf(next, 1) {
		why = append(why, fmt.Sprintf("a time event at t=%s", fmtNum(next)))
	}
	if len(why) == 0 {
		return nil
	}
	return fmt.Errorf("FMU %s (instance %s) has %s: cosim differentiates a model-exchange FMU only through its right-hand side, with its discrete state fixed at the initial one", n.md.ModelName, n.name, strings.Join(why, "; "))
}

// hiddenDiscrete lists what the model description declares that keeps
// discrete state hidden inside the FMU: event indicators, discrete
// variables it computes, clocks.
func hiddenDiscrete(md *ModelDescription) []string {
	var why []string
	if k := max(md.NumEventIndicators, len(md.EventIndicators)); k > 0 {
		why = append(why, fmt.Sprintf("%d event indicator(s), whose event updates run inside the FMU, undifferentiated", k))
	}
	var disc, clocks []string
	for _, v := range md.Variables {
		switch {
		case v.Type == ClockType:
			clocks = append(clocks, v.Name)
		case v.Variability == VariabilityDiscrete && (v.Causality == CausalityOutput || v.Causality == CausalityLocal):
			disc = append(disc, v.Name)
		}
	}
	if len(disc) > 0 {
		why = append(why, fmt.Sprintf("discrete variables it computes (%s), which differencing over its parameters would re-initialize", listNames(disc)))
	}
	if len(clocks) > 0 {
		why = append(why, fmt.Sprintf("clocks (%s)", listNames(clocks)))
	}
	return why
}

// listNames lists up to three names and how many more there are.
func listNames(names []string) string {
	if len(names) <= 3 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:3], ", "), len(names)-3)
}

// driverError unwraps the node's own error from the integrator's.
func (n *ModelExchangeNode) driverError(err error) error {
	var se *integrators.StepError
	if errors.As(err, &se) && se.Err != nil {
		return se.Err
	}
	return fmt.Errorf("FMU %s (instance %s): the node's own integration failed: %w", n.md.ModelName, n.name, err)
}

// SetParams sets parameters by resetting the FMU and initializing it
// again with the new values: its discrete state returns to the initial
// one (its continuous state comes from the graph). On any error nothing
// changes.
func (n *ModelExchangeNode) SetParams(p map[string]any) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	vals, changed, err := n.resolveParams(p)
	if err != nil || len(changed) == 0 {
		return err
	}
	if err := n.reinitializeWith(vals, n.start); err != nil {
		return err
	}
	return n.retune()
}

// retune gives the node's own integrator the current tolerances.
func (n *ModelExchangeNode) retune() error {
	drv, err := integrators.NewAdaptive(integrators.DormandPrince{RTol: n.vals.Float(ParamRTol), ATol: n.vals.Float(ParamATol)}, n.sys, nil)
	if err != nil {
		return err
	}
	n.drv = drv
	return nil
}

// meSystem is the node as the integrators' System its Update integrates,
// with the inputs held. n.mu is held while it is used.
type meSystem struct {
	n  *ModelExchangeNode
	in node.Inputs
}

func (s *meSystem) Dim() int { return len(s.n.x0) }
func (s *meSystem) Func(t float64, y, dst []float64) error {
	return s.n.derivatives(t, y, s.in, dst)
}
func (s *meSystem) EventCount() int          { return len(s.n.m.events) }
func (s *meSystem) EventDirection(i int) int { return s.n.spec.Events[i].Direction }
func (s *meSystem) Events(t float64, y, dst []float64) error {
	return s.n.eventValues(t, y, s.in, dst)
}
func (s *meSystem) Reset(i int, t float64, y, dst []float64) (integrators.EventAction, error) {
	term, err := s.n.reset(t, y, s.in, dst)
	if err != nil {
		return integrators.EventContinue, err
	}
	if term {
		return integrators.EventStop, nil
	}
	return integrators.EventContinue, nil
}
func (s *meSystem) NextTimeEvent(t float64) float64 {
	if s.n.d.next > t {
		return s.n.d.next
	}
	return math.Inf(1)
}

// meJacobian is a model-exchange node whose FMU provides directional
// derivatives (and has only Float64 inputs): it gives graphs ∂f/∂x and
// ∂f/∂u from fmi3GetDirectionalDerivative, one call per column, for the
// implicit methods' Newton matrix. Unwrap returns the node.
type meJacobian struct {
	*ModelExchangeNode
}

var _ node.DerivativesJacobian = meJacobian{}

// Unwrap returns the model-exchange node.
func (j meJacobian) Unwrap() node.Node { return j.ModelExchangeNode }

// DerivativesJacobian writes ∂f/∂x (and ∂f/∂u) at (t, x, in) from the
// FMU's directional derivatives.
func (j meJacobian) DerivativesJacobian(t float64, x []float64, in node.Inputs, dstX, dstU []float64) error {
	n := j.ModelExchangeNode
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := n.prepare(t, x, in); err != nil {
		return err
	}
	column := func(knowns []uint32, nk, c int, dst []float64) error {
		seed := n.seed[:nk]
		clear(seed)
		seed[c] = 1
		if err := n.inst.directionalDerivative(n.dUnknown, knowns, seed, n.col); err != nil {
			return n.at(err, t)
		}
		for r, v := range n.col {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("FMU %s (instance %s): fmi%dGetDirectionalDerivative gave a non-finite ∂f/∂ at t=%s: %w", n.md.ModelName, n.name, n.md.Major, fmtNum(t), ErrNonFinite)
			}
			dst[r*nk+c] = v
		}
		return nil
	}
	if dstX != nil {
		for c := 0; c < n.nx; c++ {
			if err := column(n.dKnown, n.nx, c, dstX); err != nil {
				return err
			}
		}
	}
	if dstU != nil {
		nu := n.in.size
		for c := 0; c < nu; c++ {
			if err := column(n.dIn, nu, c, dstU); err != nil {
				return err
			}
		}
	}
	return nil
}
