package graph

import (
	"fmt"

	"github.com/cosimgo/cosim/node"
)

// The per-node path: every node through its own Update, Outputs (and,
// in System, Derivatives), its inputs gathered into Sim.inputs and every
// value it writes checked, node by node. It is the reference the batched
// engine replays on failure, and runs what the engine does not batch.

// stepPerNode is the step on the per-node path: every node through its
// own Update and Outputs, checked node by node. It is the reference the
// batched step replays on failure.
func (s *Sim) stepPerNode(t, dt float64, res *Result) error {
	if !s.outputsFresh {
		if err := s.outputsPerNode(t); err != nil {
			return err
		}
		res.OutputEvals += int64(s.numOutputNodes())
	}
	if err := s.runNodes(phaseUpdate, s.stateful, t, dt); err != nil {
		return err
	}
	res.NodeUpdates += int64(len(s.stateful))
	s.state, s.nextState = s.nextState, s.state
	s.outputsFresh = false
	return nil
}

func (s *Sim) numOutputNodes() int {
	n := 0
	for _, l := range s.levels {
		n += len(l)
	}
	return n
}

// outputsPerNode evaluates every node's outputsPerNode at the current state.
func (s *Sim) outputsPerNode(t float64) error {
	for _, l := range s.levels {
		if err := s.runNodes(phaseOutputs, l, t, 0); err != nil {
			return err
		}
	}
	return nil
}

// runNodes runs phase ph on nodes on the per-node path, split across
// the Run's workers when there are some and the list is large enough. The
// error returned is the one of the first failing node in list order,
// whatever the split.
func (s *Sim) runNodes(ph phase, nodes []int32, t, dt float64) error {
	return s.engine.runNodes(ph, nodes, t, dt)
}

// evalNodes runs phase ph (outputs, update or held update) on nodes in
// order on the calling goroutine, recovering panics in node and transform
// code as errors naming the node: the per-node path's one loop.
func (s *Sim) evalNodes(ph phase, nodes []int32, t, dt float64) (err error) {
	cur := int32(-1)
	defer func() {
		if r := recover(); r != nil {
			name := "?"
			if cur >= 0 {
				name = s.nodes[cur].name
			}
			err = stepError(name, "", s.steps, t, fmt.Errorf("panic: %v", r))
		}
	}()
	for _, i := range nodes {
		cur = i
		c := &s.nodes[i]
		switch ph {
		case phaseOutputs:
			err = s.nodeOutputs(c, t)
		case phaseUpdate, phaseHeld:
			err = s.nodeUpdate(c, t, dt, ph == phaseHeld)
		default:
			panic("graph: evalNodes: derivatives run through System.deriv")
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (s *Sim) inputsOf(c *cnode) node.Inputs {
	return node.Inputs{Values: s.inputs[c.u0:c.u1], Present: s.present[c.p0:c.p1]}
}

func (s *Sim) nodeOutputs(c *cnode, t float64) error {
	if c.loop != nil {
		return s.loopOutputs(c, t) // loop.go
	}
	return s.evalNode(c, t)
}

// evalNode gathers a feedthrough node's inputs and evaluates its outputs.
func (s *Sim) evalNode(c *cnode, t float64) error {
	if c.feedthrough {
		if err := s.gather(c, t); err != nil {
			return err
		}
	}
	return s.callOutputs(c, t)
}

// callOutputs evaluates c's outputs from its inputs as gathered.
func (s *Sim) callOutputs(c *cnode, t float64) error {
	y := s.outputs[c.y0:c.y1]
	if err := c.out.Outputs(t, s.state[c.x0:c.x1], s.inputsOf(c), y); err != nil {
		return stepError(c.name, "", s.steps, t, err)
	}
	if j := nonFinite(y); j >= 0 {
		return stepError(c.name, c.spec.OutputLayout.Component(j), s.steps, t, node.ErrNonFinite)
	}
	return nil
}

// nodeUpdate advances c from t to t+dt into Sim.nextState and checks the
// new state. Its inputs are gathered first unless held (phaseHeld: an
// iterated coupling group has written them into Sim.inputs itself) or
// already gathered with its outputs (a feedthrough node).
func (s *Sim) nodeUpdate(c *cnode, t, dt float64, held bool) error {
	if !held && !c.feedthrough {
		if err := s.gather(c, t); err != nil {
			return err
		}
	}
	dst := s.nextState[c.x0:c.x1]
	if err := c.n.Update(t, dt, s.state[c.x0:c.x1], s.inputsOf(c), dst); err != nil {
		return stepError(c.name, "", s.steps, t, err)
	}
	if j := nonFinite(dst); j >= 0 {
		return stepError(c.name, c.spec.StateLayout.Component(j), s.steps, t, node.ErrNonFinite)
	}
	return nil
}

// gather fills c's connected inputs from the sources' current values and
// checks them when they could be non-finite (cnode.checkIn).
func (s *Sim) gather(c *cnode, t float64) error {
	s.applyGathers(int(c.g0), int(c.g1))
	if !c.checkIn {
		return nil
	}
	if j := nonFinite(s.inputs[c.u0:c.u1]); j >= 0 {
		return stepError(c.name, "input "+c.spec.InputLayout.Component(j), s.steps, t, node.ErrNonFinite)
	}
	return nil
}

// gatherSafe is gather for callers outside evalNodes (the monolithic system,
// iterated groups): a panic in a transform is returned as a
// *node.StateError naming the receiving node instead of escaping.
func (s *Sim) gatherSafe(c *cnode, t float64) (err error) {
	defer s.recoverNode(c.name, t, &err)
	return s.gather(c, t)
}

// recoverNode turns a panic into a *node.StateError naming the node, at
// the current step and time t. It must be deferred directly (it calls
// recover); it allocates only when there is a panic.
func (s *Sim) recoverNode(name string, t float64, err *error) {
	if r := recover(); r != nil {
		*err = panicError(name, s.steps, t, r)
	}
}

// panicError is the error that reports a recovered panic in node or
// transform code.
func panicError(name string, step int, t float64, r any) error {
	return stepError(name, "", step, t, fmt.Errorf("panic: %v", r))
}

// locate returns the stateful node holding flat state component j and
// the field's component name within it ("x", "q[1]"), or "" if none.
func (s *Sim) locate(j int) (nodeName, field string) {
	for _, c := range s.nodes {
		if j >= int(c.x0) && j < int(c.x1) {
			return c.name, c.spec.StateLayout.Component(j - int(c.x0))
		}
	}
	return "", ""
}

// applyGathers runs gathers [lo, hi): each copies (or adds, after a
// transform) its source's current value into its input slot.
func (s *Sim) applyGathers(lo, hi int) {
	for gi := lo; gi < hi; gi++ {
		g := &s.gathers[gi]
		buf := s.state
		if g.fromY {
			buf = s.outputs
		}
		src := buf[g.src() : g.src()+g.sn()]
		dst := s.inputs[g.dst() : g.dst()+g.n()]
		switch {
		case g.mode == gatherSet && !g.hasTr():
			copy(dst, src)
		case g.mode == gatherSet:
			s.tr(g).Apply(dst, src)
		case !g.hasTr():
			for k, v := range src {
				dst[k] += v
			}
		default:
			tmp := s.transformScratch[s.scratch(g) : s.scratch(g)+g.n()]
			s.tr(g).Apply(tmp, src)
			for k, v := range tmp {
				dst[k] += v
			}
		}
	}
}

// nonFinite returns the index of the first NaN or Inf in v, or -1.
func nonFinite(v []float64) int {
	for i, x := range v {
		if x-x != 0 {
			return i
		}
	}
	return -1
}
