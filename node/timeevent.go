package node

// TimeEventer is the capability of a node whose outputs or right-hand
// side are not smooth at times known in advance: a step's switching time,
// a pulse's edges, a table's breakpoints. It is meant for stateless
// sources, but any node may have it. A graph's monolithic System reports
// the next of these times to the adaptive Dormand–Prince integrator
// (integrators.TimeEventSystem), which ends a step exactly on each of them
// and restarts from the far side instead of smearing the discontinuity
// over a step. Outputs are right-continuous: at an event time τ a node
// gives the value after the jump, and just below τ the value before.
//
// TimeEvents reports where t lies among the node's time events
// τ₁ < τ₂ < …: k is the number of events at or before t (0 before the
// first), and prev ≤ t < next are the events around t (prev = −Inf when
// k = 0, next = +Inf after the last). It must be consistent: for every t,
// prev ≤ t < next, and k changes by one exactly at each τ. The count k
// lets a node tell its state by parity (a pulse is high after an odd
// number of edges); graphs use next. It is a pure function of t and the
// node's parameters, safe for concurrent use, and must not allocate. A
// node whose parameters leave it no time events reports 0, −Inf, +Inf.
type TimeEventer interface {
	TimeEvents(t float64) (k int, prev, next float64)
}
