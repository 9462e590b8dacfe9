package graph

import (
	"fmt"

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
}

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
		return nil, fmt.Errorf("graph: monolithic integration needs Derivatives, which these nodes lack: %v; run them in co-simulation mode", missing)
	}
	return m, nil
}

// Dim is the length of the flat state.
func (m *System) Dim() int { return len(m.s.x) }

// Func writes f(t, y) into dst: outputs evaluated at (t, y) in dependency
// order, then every node's Derivatives with its inputs gathered from y and
// the outputs. It does not allocate.
func (m *System) Func(t float64, y, dst []float64) error {
	s := m.s
	if len(y) != len(s.x) || len(dst) != len(s.x) {
		panic(fmt.Sprintf("graph: System.Func with len(y)=%d, len(dst)=%d, want %d", len(y), len(dst), len(s.x)))
	}
	saved := s.x
	s.x = y
	defer func() { s.x = saved; s.yFresh = false }()
	if err := s.outputs(t); err != nil {
		return err
	}
	for k, i := range s.stateful {
		c := &s.nodes[i]
		if !c.feedthrough {
			if err := s.gather(c, t); err != nil {
				return err
			}
		}
		d := dst[c.x0:c.x1]
		if err := m.derivs[k].Derivatives(t, y[c.x0:c.x1], s.inputs(c), d); err != nil {
			return &node.StateError{Node: c.name, Step: s.steps, Time: t, Err: err}
		}
		if j := nonFinite(d); j >= 0 {
			return &node.StateError{Node: c.name, Field: "d/dt " + c.spec.StateLayout.Component(j), Step: s.steps, Time: t, Err: node.ErrNonFinite}
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
			po, vo := c.x0+l.Offset(fi), c.x0+l.Offset(vi)
			for k := 0; k < f.Shape.Len(); k++ {
				pos = append(pos, po+k)
				vel = append(vel, vo+k)
			}
		}
	}
	return pos, vel
}
