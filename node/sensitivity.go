package node

// The capabilities in this file let a graph differentiate a trajectory
// with respect to parameters (forward sensitivities, graph.Sim.Sensitivities)
// with exact derivatives where a node supplies them. Each is optional: a
// graph finite-differences what a node does not supply, over SetParams
// (node.Tunable) for parameters and over the node's own methods for
// states and inputs. Parameter columns are indexed like Spec().Params;
// the columns of parameters that are not Real are zero.

// ParamJacobian is the capability of a node whose Derivatives are
// differentiable with respect to its own parameters: dst (row-major,
// State.Size × len(Spec().Params)) receives ∂f/∂p at (t, x, in), with the
// inputs held fixed. It reads the same parameter values as Derivatives.
type ParamJacobian interface {
	DerivativesParamJacobian(t float64, x []float64, in Inputs, dst []float64) error
}

// InitialStateJacobian is the capability of a node whose InitialState
// depends on its parameters in a known way: dst (row-major, State.Size ×
// len(Spec().Params)) receives ∂x(t0)/∂p (for example 1 in the
// initial_position column of the position row).
type InitialStateJacobian interface {
	InitialStateParamJacobian(dst []float64)
}

// EventJacobian is the capability of a node with events (Eventer) whose
// event functions are differentiable: for event i at (t, x, in) it writes
// ∂g_i/∂x into dstX (len State.Size), ∂g_i/∂u into dstU (len
// InputLayout.Size) and ∂g_i/∂p into dstP (len(Spec().Params)), and
// returns the explicit ∂g_i/∂t. Any dst may be nil when not wanted.
type EventJacobian interface {
	EventValuesJacobian(event int, t float64, x []float64, in Inputs, dstX, dstU, dstP []float64) (dgdt float64, err error)
}

// ResetJacobian is the capability of a node with events whose reset maps
// are differentiable: for event i at the state x before the reset it
// writes ∂R/∂x into dstX (State.Size × State.Size), ∂R/∂u into dstU
// (State.Size × InputLayout.Size), ∂R/∂p into dstP (State.Size ×
// len(Spec().Params)) and the explicit ∂R/∂t into dstT (State.Size), all
// row-major. Any dst may be nil when not wanted. Rows of components the
// reset leaves unchanged are rows of the identity in dstX and zero
// elsewhere.
type ResetJacobian interface {
	ResetJacobian(event int, t float64, x []float64, in Inputs, dstX, dstU, dstP, dstT []float64) error
}

// SensitivityChecker is the capability of a node that knows when its
// sensitivities cannot be computed correctly, for a reason the graph
// cannot see: a model whose discrete state, events or reset maps live
// hidden inside it (an imported FMU with event indicators or discrete
// variables), which differencing over SetParams would re-initialize and
// differencing its reset would re-run. CheckSensitivities returns nil
// when the graph's differentiation of the node is right, and otherwise an
// error saying why not; graph.Sim.Sensitivities (and what is built on it:
// calibration, `cosim sensitivity`) then refuses the graph, naming the
// node, rather than answer wrongly. It is called once per Sensitivities
// call, before the run.
type SensitivityChecker interface {
	CheckSensitivities() error
}
