package graph

import (
	"math"

	"github.com/cosimgo/cosim/node"
)

// timeEvents are the nodes of a System with time events
// (node.TimeEventer), stateful or not, in node order.
type timeEvents struct {
	te []node.TimeEventer
}

// NextTimeEvent returns the first time event strictly after t of any
// node of the graph with time events (node.TimeEventer: a step's time, a
// pulse's edges, a table's breakpoints), or +Inf when there is none. It
// makes the System an integrators.TimeEventSystem: the adaptive
// Dormand–Prince driver (Sim.Integrate) ends a step exactly on each of
// these times and restarts there, instead of stepping over the
// discontinuity. It does not allocate after its first call.
func (m *System) NextTimeEvent(t float64) float64 {
	if m.tevs == nil {
		m.tevs = &timeEvents{}
		for i := range m.s.nodes {
			if te, ok := node.As[node.TimeEventer](m.s.nodes[i].n); ok {
				m.tevs.te = append(m.tevs.te, te)
			}
		}
	}
	next := math.Inf(1)
	for _, te := range m.tevs.te {
		if _, _, n := te.TimeEvents(t); n > t && n < next {
			next = n
		}
	}
	return next
}
