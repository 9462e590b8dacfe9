package graph

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/node"
)

// System is a Sim viewed as one first-order system y' = f(t, y) over the
// flat state of every stateful node (the layout of Sim.State), for
// monolithic integration: at every evaluation the graph re-evaluates its
// outputs (connector forces) from the evaluation's state, so inputs are
// never frozen within a step. Its methods match the integrators package's
// System interface (Dim, Func) without either package importing the other.
//
// A System shares the Sim's buffers: it is not safe for concurrent use,
// and the Sim must not step while it is in use.
type System struct {
	s      *Sim
	derivs []node.Deriver // parallel to s.stateful
	evs    []eventSlot    // built on first use
	tevs   *timeEvents    // node.TimeEventer nodes, found on first use (timeevents.go)
	cmp    *completers    // node.StepCompleter nodes, found on first use (stepcompleted.go)
	// stop is the error, wrapping node.ErrStop, with which the last
	// event reset that stopped a run asked for it, named by node and
	// time (Result.StopCause).
	stop error

	// looseDerivs are the stateful nodes whose Derivatives the batched
	// evaluation calls one by one: those outside families and those of
	// families whose batch has no Derivatives.
	looseDerivs []int32
	sj          *sparseJac // Jacobian assembly plan, built on first use (jacobian.go)

	// ctx, when set (Sim.Integrate), is checked at every evaluation, so
	// that a cancellation stops the integrator within one trial step.
	ctx  context.Context
	done <-chan struct{}
}

// cancelled returns the context's error once it is cancelled.
func (m *System) cancelled() error {
	if m.done == nil {
		return nil
	}
	select {
	case <-m.done:
		return m.ctx.Err()
	default:
		return nil
	}
}

// recoverAt turns a panic in node code into a *node.StateError naming
// node *cur (a node index, or -1 for none). It must be deferred directly.
func (m *System) recoverAt(cur *int32, t float64, err *error) {
	if r := recover(); r != nil {
		name := "?"
		if *cur >= 0 {
			name = m.s.nodes[*cur].name
		}
		*err = panicError(name, m.s.steps, t, r)
	}
}

// ErrNoDerivatives is wrapped by the error of Sim.System, and so of a
// monolithic run, when a stateful node does not implement node.Deriver.
var ErrNoDerivatives = errors.New("graph: monolithic integration needs Derivatives")

// System returns the monolithic view of s. Every stateful node must have
// Derivatives (node.Deriver); the error names those that do not.
func (s *Sim) System() (*System, error) {
	m := &System{s: s, derivs: make([]node.Deriver, len(s.stateful))}
	var missing []string
	for k, i := range s.stateful {
		d, ok := node.As[node.Deriver](s.nodes[i].n)
		if !ok {
			missing = append(missing, fmt.Sprintf("%s (%s)", s.nodes[i].name, s.nodes[i].spec.Type))
			continue
		}
		m.derivs[k] = d
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w, which these nodes lack: %v; run them in co-simulation mode", ErrNoDerivatives, missing)
	}
	batched := make([]bool, len(s.nodes))
	for _, f := range s.engine.families {
		if f.der != nil {
			for _, r := range f.rows {
				batched[r] = true
			}
		}
	}
	for _, i := range s.stateful {
		if !batched[i] {
			m.looseDerivs = append(m.looseDerivs, i)
		}
	}
	return m, nil
}

// Dim is the length of the flat state.
func (m *System) Dim() int { return len(m.s.state) }

// Func writes f(t, y) into dst: outputs evaluated at (t, y) in dependency
// order, then every node's Derivatives with its inputs gathered from y and
// the outputs. It does not allocate. A panic in node or transform code is
// returned as a *node.StateError naming the node; so is a non-finite
// derivative. (A non-finite y is the integrator's to report: it checks
// its iterates and states and names the component by index.)
func (m *System) Func(t float64, y, dst []float64) (err error) {
	s := m.s
	if len(y) != len(s.state) || len(dst) != len(s.state) {
		panic(fmt.Sprintf("graph: System.Func with len(y)=%d, len(dst)=%d, want %d", len(y), len(dst), len(s.state)))
	}
	if err := m.cancelled(); err != nil {
		return err
	}
	if s.engine.on() {
		saved := s.state
		s.state = y
		ok := s.engine.derivatives(t, dst, m)
		m.restore(saved)
		if ok {
			return nil
		}
		s.replays++
	}
	return m.funcPerNode(t, y, dst)
}

// funcPerNode is Func on the per-node path: the reference the batched
// evaluation replays on failure, naming the failing node.
func (m *System) funcPerNode(t float64, y, dst []float64) (err error) {
	s := m.s
	saved, err := m.prepare(t, y)
	defer m.restore(saved)
	if err != nil {
		return err
	}
	cur := int32(-1)
	defer m.recoverAt(&cur, t, &err)
	for k, i := range s.stateful {
		cur = i
		if err := m.deriv(k, i, t, y, dst); err != nil {
			return err
		}
	}
	return nil
}

// derivK returns the index among the stateful nodes (and in derivs) of
// stateful node i: a search of Sim.stateful, which is ascending, rather
// than a table of one entry per node; the per-node Func passes it.
func (m *System) derivK(i int32) int {
	k, _ := slices.BinarySearch(m.s.stateful, i)
	return k
}

// deriv writes node i's dx/dt into its slots of dst, with its inputs
// already gathered, and checks it; k is its index in derivs.
func (m *System) deriv(k int, i int32, t float64, y, dst []float64) error {
	s := m.s
	c := &s.nodes[i]
	d := dst[c.x0:c.x1]
	if err := m.derivs[k].Derivatives(t, y[c.x0:c.x1], s.inputsOf(c), d); err != nil {
		return stepError(c.name, "", s.steps, t, err)
	}
	if j := nonFinite(d); j >= 0 {
		return stepError(c.name, "d/dt "+c.spec.StateLayout.Component(j), s.steps, t, node.ErrNonFinite)
	}
	return nil
}

// derivNodes is the batched evaluation's per-node part: it gathers the
// inputs of nodes that did not gather them with their outputs and calls
// deriv. Errors only make the evaluation replay, so they need no name.
func (m *System) derivNodes(nodes []int32, t float64, y, dst []float64) error {
	s := m.s
	for _, i := range nodes {
		c := &s.nodes[i]
		if !c.feedthrough {
			if err := s.gather(c, t); err != nil {
				return err
			}
		}
		if err := m.deriv(m.derivK(i), i, t, y, dst); err != nil {
			return err
		}
	}
	return nil
}

// Component names the j-th value of the flat state, "node.field[k]".
func (m *System) Component(j int) string { return m.s.componentName(j) }

// Pairs returns the indices of position components and of their velocity
// components in the flat state, from the nodes' state roles: y[pos[i]]'
// = y[vel[i]]. Every other component is integrated as "other".
func (m *System) Pairs() (pos, vel []int) {
	s := m.s
	for _, i := range s.stateful {
		c := &s.nodes[i]
		l := c.spec.StateLayout
		for fi := 0; fi < l.Len(); fi++ {
			f := l.Field(fi)
			if f.Role != node.Position {
				continue
			}
			vi := l.Index(f.Rate)
			po, vo := int(c.x0)+l.Offset(fi), int(c.x0)+l.Offset(vi)
			for k := 0; k < f.Shape.Len(); k++ {
				pos = append(pos, po+k)
				vel = append(vel, vo+k)
			}
		}
	}
	return pos, vel
}

// eventSlot maps a flat event index to a node and its own event index.
type eventSlot struct {
	node  int32
	event int
	ev    node.Eventer
}

func (m *System) events() []eventSlot {
	if m.evs == nil {
		m.evs = []eventSlot{}
		for _, i := range m.s.stateful {
			c := &m.s.nodes[i]
			ev, ok := node.As[node.Eventer](c.n)
			if !ok {
				continue
			}
			for k := range c.spec.Events {
				m.evs = append(m.evs, eventSlot{node: i, event: k, ev: ev})
			}
		}
	}
	return m.evs
}

// EventCount is the number of events of every stateful node with events.
func (m *System) EventCount() int { return len(m.events()) }

// EventDirection is flat event i's declared crossing direction.
func (m *System) EventDirection(i int) int {
	e := m.events()[i]
	return m.s.nodes[e.node].spec.Events[e.event].Direction
}

// EventName names flat event i, "node.event".
func (m *System) EventName(i int) string {
	e := m.events()[i]
	c := &m.s.nodes[e.node]
	return c.name + "." + c.spec.Events[e.event].Name
}

// prepare installs y as the state, evaluates outputs and gathers every
// node's inputs at (t, y). The caller must call m.restore(saved).
func (m *System) prepare(t float64, y []float64) (saved []float64, err error) {
	s := m.s
	saved = s.state
	s.state = y
	if err := s.outputsPerNode(t); err != nil {
		return saved, err
	}
	for _, i := range s.stateful {
		c := &s.nodes[i]
		if !c.feedthrough {
			if err := s.gatherSafe(c, t); err != nil {
				return saved, err
			}
		}
	}
	return saved, nil
}

// restore undoes prepare.
func (m *System) restore(saved []float64) { m.s.state = saved; m.s.outputsFresh = false }

// Events writes every event value at (t, y) into dst. A panic in node
// code is returned as an error naming the node.
func (m *System) Events(t float64, y, dst []float64) (err error) {
	evs := m.events()
	saved, err := m.prepare(t, y)
	defer m.restore(saved)
	if err != nil {
		return err
	}
	s := m.s
	cur := int32(-1)
	defer m.recoverAt(&cur, t, &err)
	for k := 0; k < len(evs); {
		e := evs[k]
		cur = e.node
		c := &s.nodes[e.node]
		n := len(c.spec.Events)
		if err := e.ev.EventValues(t, y[c.x0:c.x1], s.inputsOf(c), dst[k:k+n]); err != nil {
			return stepError(c.name, "", s.steps, t, err)
		}
		k += n
	}
	return nil
}

// Reset applies flat event i's reset map to its node's slots of dst and
// continues the integration, or stops it when the node's Reset returns
// node.ErrStop (integrators.EventStop). A panic in node code is returned as an error
// naming the node.
func (m *System) Reset(i int, t float64, y, dst []float64) (_ integrators.EventAction, err error) {
	e := m.events()[i]
	saved, err := m.prepare(t, y)
	defer m.restore(saved)
	if err != nil {
		return integrators.EventContinue, err
	}
	cur := e.node
	defer m.recoverAt(&cur, t, &err)
	c := &m.s.nodes[e.node]
	if err := e.ev.Reset(e.event, t, y[c.x0:c.x1], m.s.inputsOf(c), dst[c.x0:c.x1]); err != nil {
		if errors.Is(err, node.ErrStop) {
			m.stop = stepError(c.name, "", m.s.steps, t, err)
			return integrators.EventStop, nil
		}
		return integrators.EventContinue, stepError(c.name, "", m.s.steps, t, err)
	}
	return integrators.EventContinue, nil
}

var (
	_ integrators.SparseJacobian = (*System)(nil)
	_ integrators.Blocked        = (*System)(nil)
)
