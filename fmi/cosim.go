package fmi

import (
	"fmt"
	"math"
	"slices"

	"github.com/cosimgo/cosim/node"
)

// CoSimNode is an FMU imported through its co-simulation interface: the
// FMU steps itself with its own solver, one fmi3DoStep per Update.
//
// Its state is the FMU's time ("time", the communication point it has
// stepped to) followed by its outputs that do not depend on its inputs,
// as they are at that communication point; its outputs (node.Outputter)
// are the FMU's outputs that do (direct feedthrough), read after setting
// the inputs at the current communication point. Inputs are held over a
// step (zero-order hold). The FMU's own variables stay inside it: the
// node steps only from the state the FMU is in, the state it saved
// before the current step (when re-stepping is allowed, AllowRestep) or
// its initial state, and refuses any other with an error wrapping
// ErrState. An Update repeated with the same arguments (a graph replaying
// a failed step to name the failing node) returns the result it gave,
// without stepping the FMU again.
type CoSimNode struct {
	*base
	outs *valueMap // outputs kept in the state, from offset 1
	ft   *valueMap // feedthrough outputs: the node's outputs

	cur bool      // xc is the state the FMU is in
	xc  []float64 // that state (xc[0] its time)
	pre struct {  // the state the FMU saved before its last step (slotPre)
		ok bool
		t  float64
		x  []float64
	}
	memo  call // the last Update
	omemo call // the last Outputs
	// term is the time at which the FMU asked to terminate (NaN: it did
	// not): the step that asked succeeds, the next is refused.
	term float64
	// h0 is the first communication step (NaN before it): an FMU without
	// canHandleVariableCommunicationStepSize keeps it.
	h0 float64
}

// call remembers the arguments and result of a node call.
type call struct {
	ok      bool
	t, dt   float64
	x, in   []float64
	present []bool
	dst     []float64
}

func (c *call) matches(t, dt float64, x []float64, in node.Inputs) bool {
	return c.ok && c.t == t && c.dt == dt && slices.Equal(c.x, x) && slices.Equal(c.in, in.Values) && slices.Equal(c.present, in.Present)
}

func (c *call) store(t, dt float64, x []float64, in node.Inputs, dst []float64) {
	c.ok, c.t, c.dt = true, t, dt
	c.x = append(c.x[:0], x...)
	c.in = append(c.in[:0], in.Values...)
	c.present = append(c.present[:0], in.Present...)
	c.dst = append(c.dst[:0], dst...)
}

var (
	_ node.Node        = (*CoSimNode)(nil)
	_ node.Outputter   = (*CoSimNode)(nil)
	_ node.Tunable     = (*CoSimNode)(nil)
	_ node.HiddenState = (*CoSimNode)(nil)
)

func newCoSim(b *base) (*CoSimNode, error) {
	n := &CoSimNode{base: b, outs: newValueMap(b.m.stateOuts, 1), ft: newValueMap(b.m.outputs, 0), term: math.NaN(), h0: math.NaN()}
	n.x0 = make([]float64, b.spec.StateLayout.Size())
	n.xc = make([]float64, len(n.x0))
	track(n, b)
	if err := n.start(); err != nil {
		n.Close()
		return nil, err
	}
	return n, nil
}

// start initializes the FMU and records its initial state.
func (n *CoSimNode) start() error {
	if _, err := n.initialize(); err != nil {
		return n.at(err, n.t0)
	}
	if err := n.getValues(n.outs, n.x0, n.t0); err != nil {
		return err
	}
	n.x0[0] = n.t0
	copy(n.xc, n.x0)
	n.cur, n.pre.ok, n.memo.ok, n.omemo.ok = true, false, false, false
	n.term, n.h0 = math.NaN(), math.NaN()
	n.initSaved = false
	if n.md.CoSimulation.CanGetAndSetFMUState {
		if err := n.inst.saveState(slotInit); err != nil {
			return n.at(err, n.t0)
		}
		n.initSaved = true
	}
	return nil
}

// sameTime reports whether the graph's time t is the FMU's time tc up to
// the rounding of t0 + n·dt against a sum of steps.
func sameTime(t, tc float64) bool {
	return math.Abs(t-tc) <= 1e-9*math.Max(1, math.Abs(t))
}

// sync brings the FMU to the state (t, x) the graph steps from, or says
// why it cannot.
func (n *CoSimNode) sync(t float64, x []float64) error {
	if n.cur && sameTime(t, n.xc[0]) && slices.Equal(x, n.xc) {
		return nil
	}
	if n.pre.ok && sameTime(t, n.pre.t) && slices.Equal(x, n.pre.x) {
		if err := n.inst.loadState(slotPre); err != nil {
			return n.at(err, t)
		}
		n.inSet = false
		copy(n.xc, n.pre.x)
		n.cur = true
		n.term = math.NaN()
		return nil
	}
	if sameTime(t, n.t0) && slices.Equal(x, n.x0) {
		return n.restart()
	}
	at := "another state"
	if n.cur {
		at = fmt.Sprintf("t=%s", fmtNum(n.xc[0]))
	}
	return n.stateError("the graph steps it from t=%s (time state %s), but the FMU is at %s; cosim can move an FMU only to a state it saved: its state before the current step (when a coupling strategy re-steps it and the FMU can get and set its state), its initial state and a restored checkpoint", fmtNum(t), fmtNum(x[0]), at)
}

// restart takes the FMU back to its initial state.
func (n *CoSimNode) restart() error {
	if n.initSaved && n.failed == nil {
		if err := n.inst.loadState(slotInit); err != nil {
			return n.at(err, n.t0)
		}
		n.inSet = false
		copy(n.xc, n.x0)
		n.cur = true
		n.term = math.NaN()
		return nil
	}
	if err := n.resetFMU(); err != nil {
		return n.at(err, n.t0)
	}
	n.failed = nil
	return n.start()
}

// Update steps the FMU from t to t+dt with the inputs held: fmi3DoStep
// (fmi2DoStep), then the outputs kept in the state are read at t+dt.
func (n *CoSimNode) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.memo.matches(t, dt, x, in) {
		copy(dst, n.memo.dst)
		return nil
	}
	if n.closed || n.failed != nil && !(sameTime(t, n.t0) && slices.Equal(x, n.x0)) {
		return n.usable()
	}
	if err := n.sync(t, x); err != nil {
		return err
	}
	if !math.IsNaN(n.term) {
		return fmt.Errorf("FMU %s (instance %s) asked in its step to t=%s to terminate the simulation: it cannot step further: %w", n.md.ModelName, n.name, fmtNum(n.term), ErrTerminated)
	}
	if !n.md.CoSimulation.CanHandleVariableCommunicationStepSize {
		if math.IsNaN(n.h0) {
			n.h0 = dt
		} else if dt != n.h0 {
			return fmt.Errorf("FMU %s (instance %s) cannot handle a variable communication step size (canHandleVariableCommunicationStepSize is false): it has stepped by %s, the graph asks for %s at t=%s: %w",
				n.md.ModelName, n.name, fmtNum(n.h0), fmtNum(dt), fmtNum(t), ErrNotImported)
		}
	}
	if n.restep {
		if err := n.inst.saveState(slotPre); err != nil {
			return n.at(err, t)
		}
		n.pre.ok, n.pre.t = true, t
		n.pre.x = append(n.pre.x[:0], x...)
	}
	if err := n.setInputs(in, t); err != nil {
		return err
	}
	n.cur = false
	n.omemo.ok = false
	var res stepResult
	var err error
	if g := n.fastOuts(); g != nil {
		// One call: the step and the outputs it leaves.
		res, err = n.inst.stepAndGet(t, dt, g.vrs, g.buf)
	} else {
		res, err = n.inst.doStep(t, dt)
	}
	if err != nil {
		return n.at(err, t)
	}
	if res.terminate && res.last < t+dt && !sameTime(res.last, t+dt) {
		n.res.terminable = true
		return fmt.Errorf("FMU %s (instance %s): fmi%dDoStep from t=%s asked to terminate the simulation at t=%s, before the end of the step at t=%s: %w",
			n.md.ModelName, n.name, n.md.Major, fmtNum(t), fmtNum(res.last), fmtNum(t+dt), ErrTerminated)
	}
	if g := n.fastOuts(); g != nil && !res.terminate {
		if err := n.scatter(n.outs, dst, t+dt); err != nil {
			return err
		}
	} else if err := n.getValues(n.outs, dst, t+dt); err != nil {
		return err
	}
	dst[0] = t + dt
	copy(n.xc, dst)
	n.cur = true
	if res.terminate {
		n.term = t + dt
	}
	n.memo.store(t, dt, x, in, dst)
	return nil
}

// fastOuts returns the one group of the outputs kept in the state when
// they are all Float64, which the step reads in the same call.
func (n *CoSimNode) fastOuts() *vgroup {
	if len(n.outs.groups) == 1 && n.outs.groups[0].t == Float64 {
		return &n.outs.groups[0]
	}
	return nil
}

// Outputs reads the outputs that depend on the inputs, at the
// communication point the FMU is at, after setting the inputs.
func (n *CoSimNode) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.omemo.matches(0, 0, x, in) {
		copy(dst, n.omemo.dst)
		return nil
	}
	if err := n.usable(); err != nil {
		return err
	}
	if !(n.cur && slices.Equal(x, n.xc)) {
		if err := n.sync(x[0], x); err != nil {
			return fmt.Errorf("outputs: %w", err)
		}
	}
	if err := n.setInputs(in, x[0]); err != nil {
		return err
	}
	if err := n.getValues(n.ft, dst, x[0]); err != nil {
		return err
	}
	n.omemo.store(0, 0, x, in, dst)
	return nil
}

// SetParams sets parameters. When every changed parameter is tunable and
// the FMU has stepped, they are set in the FMU at its current
// communication point and the run continues; otherwise the FMU is reset
// and initialized again with the new values (its state is then the new
// initial state: a graph holding it continues only from there, e.g.
// after Sim.SetState with the node's InitialState). On any error nothing
// changes.
func (n *CoSimNode) SetParams(p map[string]any) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	vals, changed, err := n.resolveParams(p)
	if err != nil || len(changed) == 0 {
		return err
	}
	if n.allTunable(changed) && n.failed == nil && n.cur && n.xc[0] != n.t0 {
		flat := n.flatParams(vals)
		if err := n.setParamsInFMU(flat, n.xc[0]); err != nil {
			return n.at(err, n.xc[0])
		}
		n.vals, n.paramVals = vals, flat
		n.memo.ok, n.omemo.ok, n.pre.ok = false, false, false
		return nil
	}
	return n.reinitializeWith(vals, n.start)
}

// allTunable reports whether every named parameter is a tunable FMU
// parameter.
func (b *base) allTunable(names []string) bool {
	for _, name := range names {
		ok := false
		for _, c := range b.m.params {
			if c.name == name && c.v.Variability == VariabilityTunable && c.v.Causality == CausalityParameter {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	return true
}
