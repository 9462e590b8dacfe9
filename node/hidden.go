package node

// HiddenState is the capability of a node whose model keeps state that
// the graph's state vector does not hold: an imported FMU's internal
// variables, discrete states and solver memory. Such a node's Update is
// valid only from the state its model is in (and a model-exchange
// node's evaluations only at times from its last event on); it refuses
// any other with an error rather than computing from the wrong state.
//
// SaveHidden returns a self-contained snapshot of that state, and
// RestoreHidden puts it back, so that a graph that restores its own
// state vector and the snapshot continues bit for bit. SaveHidden
// returns an error naming the node's model and the reason when the
// model cannot serialize its state. Graph checkpoints call both.
//
// AllowRestep is called by a graph before a run whose coupling strategy
// calls Update again from a state the node has already stepped from
// (iterated groups re-advance their members from the start of the step
// until their interface converges). It returns nil when the node can be
// re-stepped, and from then on keeps what that needs (its model's state
// before every step); otherwise it returns an error saying why, and the
// graph refuses the run, naming the strategy and the node.
//
// None of the three is safe for concurrent use with the node's other
// methods: graphs call them between steps.
type HiddenState interface {
	SaveHidden() ([]byte, error)
	RestoreHidden(data []byte) error
	AllowRestep() error
}
