package graph

import (
	"fmt"

	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/node"
)

// NodeSystem views one node's Derivatives, with its inputs held at given
// values, as a first-order system (MADDENING's integrate_node): Dim, Func,
// Pairs and, for nodes with events, the event methods. Its methods match
// the integrators package's System, Partitioned and EventSystem
// interfaces. Set In.Values and In.Present between integrations to change
// the inputs; a NodeSystem is not safe for concurrent use.
type NodeSystem struct {
	Node  node.Node
	In    node.Inputs
	deriv node.Deriver
	ev    node.Eventer
	pos   []int
	vel   []int
}

// NewNodeSystem returns the system of n with its default inputs (node
// Spec.DefaultInputs). It returns an error when n has no Derivatives.
func NewNodeSystem(n node.Node) (*NodeSystem, error) {
	d, ok := node.As[node.Deriver](n)
	if !ok {
		return nil, fmt.Errorf("graph: node type %s has no Derivatives, so it cannot be integrated as a system", n.Spec().Type)
	}
	ns := &NodeSystem{Node: n, In: n.Spec().DefaultInputs(), deriv: d}
	ns.ev, _ = node.As[node.Eventer](n)
	l := n.Spec().StateLayout
	for fi := 0; fi < l.Len(); fi++ {
		f := l.Field(fi)
		if f.Role == node.Position {
			po, vo := l.Offset(fi), l.Offset(l.Index(f.Rate))
			for k := 0; k < f.Shape.Len(); k++ {
				ns.pos = append(ns.pos, po+k)
				ns.vel = append(ns.vel, vo+k)
			}
		}
	}
	return ns, nil
}

// Dim is the node's state size.
func (ns *NodeSystem) Dim() int { return ns.Node.Spec().StateLayout.Size() }

// Func writes the node's Derivatives at (t, y) into dst. A panic in the
// node is returned as an error naming its type.
func (ns *NodeSystem) Func(t float64, y, dst []float64) (err error) {
	defer ns.recoverAt(t, &err)
	return ns.deriv.Derivatives(t, y, ns.In, dst)
}

// recoverAt turns a panic in the node into a *node.StateError. It must be
// deferred directly.
func (ns *NodeSystem) recoverAt(t float64, err *error) {
	if r := recover(); r != nil {
		*err = panicError(ns.Node.Spec().Type, 0, t, r)
	}
}

// Pairs returns the position and velocity indices from the state roles.
func (ns *NodeSystem) Pairs() (pos, vel []int) { return ns.pos, ns.vel }

// EventCount is the number of events the node declares (0 without Eventer).
func (ns *NodeSystem) EventCount() int {
	if ns.ev == nil {
		return 0
	}
	return len(ns.Node.Spec().Events)
}

// EventDirection is event i's declared crossing direction.
func (ns *NodeSystem) EventDirection(i int) int { return ns.Node.Spec().Events[i].Direction }

// Events writes the node's event values at (t, y) into dst.
func (ns *NodeSystem) Events(t float64, y, dst []float64) (err error) {
	defer ns.recoverAt(t, &err)
	return ns.ev.EventValues(t, y, ns.In, dst)
}

// Reset applies event i's reset map and continues the integration.
func (ns *NodeSystem) Reset(i int, t float64, y, dst []float64) (_ integrators.EventAction, err error) {
	defer ns.recoverAt(t, &err)
	return integrators.EventContinue, ns.ev.Reset(i, t, y, ns.In, dst)
}

var (
	_ integrators.System      = (*NodeSystem)(nil)
	_ integrators.Partitioned = (*NodeSystem)(nil)
	_ integrators.EventSystem = (*NodeSystem)(nil)
	_ integrators.System      = (*System)(nil)
	_ integrators.Partitioned = (*System)(nil)
	_ integrators.EventSystem = (*System)(nil)
	_ integrators.Jacobian    = (*System)(nil)
)
