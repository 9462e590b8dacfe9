package node

import "fmt"

// Node is the contract every physics element satisfies. Everything else a
// node can do is an optional capability, found by type assertion.
//
// A Node's methods other than SetParams are safe for concurrent use on
// distinct arguments: a graph calls Update on many nodes at once, and may
// call a connector's Outputs while other nodes update. They never retain
// their slice arguments.
type Node interface {
	// Spec describes the node. It returns the same immutable value on every
	// call for a given node.
	Spec() *Spec
	// InitialState writes the state at t0, derived from the parameters,
	// into dst (len Spec().State.Size()). Stateless nodes write nothing.
	InitialState(dst []float64)
	// Update advances the state x at time t by dt with the inputs in held
	// at their values at t, writing the new state into dst. dst never
	// aliases x. Data problems (a value the node cannot handle) are
	// returned as errors; Update must not panic on them. A stateless node
	// returns nil.
	Update(t, dt float64, x []float64, in Inputs, dst []float64) error
}

// Inputs is a node's view of its boundary inputs: the values of every input
// in Spec().Inputs order, laid out by Spec().InputLayout, and whether each
// input has a value. An input without edges has its default (Present is
// true) or, when the input is Absent-able, zeros and Present false.
type Inputs struct {
	Values  []float64
	Present []bool
}

// Has reports whether input i has a value.
func (in Inputs) Has(i int) bool { return in.Present[i] }

// Deriver is the capability of a node with a continuous right-hand side:
// it writes dx/dt at (t, x, in) into dst. For nodes with events or
// contact, Derivatives is the smooth (event-free) right-hand side. It reads
// the same parameters as Update, including overrides set with SetParams.
type Deriver interface {
	Derivatives(t float64, x []float64, in Inputs, dst []float64) error
}

// Outputter is the capability of a node with Spec().Outputs: it writes the
// outputs at (t, x, in) into dst, laid out by Spec().OutputLayout. A
// node whose outputs read its inputs says so with Spec().Feedthrough.
type Outputter interface {
	Outputs(t float64, x []float64, in Inputs, dst []float64) error
}

// Tunable is the capability of a node whose parameters may be overridden
// after construction (MADDENING's "injected params override the node's
// own"). SetParams validates every value first and changes nothing when
// one is invalid. It must not be called while a graph containing the node
// is stepping.
type Tunable interface {
	Params() Values
	SetParams(p map[string]any) error
}

// Event is a zero crossing a node declares for event-localizing integrators.
type Event struct {
	Name        string `json:"name"`
	Direction   int    `json:"direction"` // -1: falling through zero, +1: rising, 0: either
	Description string `json:"description"`
}

// Eventer is the capability of a node with events (Spec().Events):
// EventValues writes g_i(t, x, in) for every event into dst, and Reset
// applies event i's reset map at the located crossing, writing the new
// state into dst. A Reset that returns ErrStop (or an error wrapping it)
// after writing dst ends the run at the event: the run keeps the reset
// state and reports that an event stopped it, without an error.
type Eventer interface {
	EventValues(t float64, x []float64, in Inputs, dst []float64) error
	Reset(event int, t float64, x []float64, in Inputs, dst []float64) error
}

// DerivativesJacobian is the capability of a node whose Derivatives are
// differentiable: dst_x (row-major, State.Size × State.Size) receives
// ∂f/∂x and dst_u (State.Size × InputLayout.Size) receives ∂f/∂u. Either
// may be nil when not wanted.
type DerivativesJacobian interface {
	DerivativesJacobian(t float64, x []float64, in Inputs, dstX, dstU []float64) error
}

// OutputsJacobian is the capability of a node whose Outputs are
// differentiable with respect to its inputs: dst (row-major,
// OutputLayout.Size × InputLayout.Size) receives ∂y/∂u.
type OutputsJacobian interface {
	OutputsJacobian(t float64, x []float64, in Inputs, dst []float64) error
}

// InputJacobian is the former name of DerivativesJacobian, whose method
// it did not name (it is the Jacobian of Derivatives with respect to the
// state as well as the inputs).
//
// Deprecated: use DerivativesJacobian.
type InputJacobian = DerivativesJacobian

// OutputJacobian is the former name of OutputsJacobian.
//
// Deprecated: use OutputsJacobian.
type OutputJacobian = OutputsJacobian

// Unwrapper is implemented by a node that decorates another, so that
// capabilities of the inner node are not lost.
type Unwrapper interface {
	Unwrap() Node
}

// As finds the first node in n's Unwrap chain that implements T.
func As[T any](n Node) (T, bool) {
	for n != nil {
		if t, ok := n.(T); ok {
			return t, true
		}
		u, ok := n.(Unwrapper)
		if !ok {
			break
		}
		n = u.Unwrap()
	}
	var zero T
	return zero, false
}

// Stateless can be embedded by nodes without state (connectors, sources):
// it provides InitialState and Update that do nothing.
type Stateless struct{}

// InitialState does nothing.
func (Stateless) InitialState([]float64) {}

// Update does nothing.
func (Stateless) Update(float64, float64, []float64, Inputs, []float64) error { return nil }

// StateError reports a non-finite value or a node failure, naming the
// node instance, the field, the step and the time. It is returned by
// graphs and by node helpers.
type StateError struct {
	Node  string  // instance name (or type)
	Field string  // "position", "force[1]", or "" when not one field
	Step  int     // the step that failed (the state before it is good)
	Time  float64 // the time at the start of the failing step
	Err   error   // the cause, e.g. ErrNonFinite or a node's error
}

// ErrNonFinite is the cause of a StateError for a NaN or Inf value, and
// the one sentinel to test for a value that stopped being finite: every
// error a graph, a scene or a node returns for one wraps it, whoever found
// the value. integrators.ErrNonFinite has the same meaning for a System
// that knows no nodes (package integrators imports nothing of cosim);
// when an integrator finds the value in a graph's monolithic run, the
// error wraps both.
var ErrNonFinite = fmt.Errorf("value is not finite")

// ErrStop is returned by Eventer.Reset, after it has written the reset
// state, to end the run at the event (a ball that should stop at its
// first impact, a trip that ends a scenario). It is not a failure.
var ErrStop = fmt.Errorf("stop the run at this event")

func (e *StateError) Error() string {
	where := e.Node
	if e.Field != "" {
		where += "." + e.Field
	}
	return fmt.Sprintf("node %s: step %d at t=%s: %v", where, e.Step, fmtNum(e.Time), e.Err)
}

func (e *StateError) Unwrap() error { return e.Err }

// FieldError is an error a node returns about one of its fields (a state
// field, an output, or "input NAME"). Graphs lift Field into the
// StateError they report, so the error names node.field, step and time
// whatever the node's own wording. Its message is Err's.
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return e.Err.Error() }
func (e *FieldError) Unwrap() error { return e.Err }
