package integrators

import "strconv"

// System is a first-order ordinary differential equation y' = f(t, y).
//
// A System is the only thing every first-order method needs. Optional
// capabilities (Jacobian, Partitioned, EventSystem) are found by type
// assertion; a wrapper that decorates a System loses them unless it
// forwards them.
type System interface {
	// Dim returns the length of the state vector. It must not change
	// while a stepper or driver uses the System.
	Dim() int

	// Func writes f(t, y) into dst, which has length Dim. It must not
	// modify y and must not retain y or dst after it returns.
	// A non-nil error (a non-finite value, a failure in user code)
	// aborts an explicit step or rejects an implicit/adaptive trial; the
	// accepted state is left untouched.
	Func(t float64, y, dst []float64) error
}

// Jacobian is an optional capability of a System used by the implicit
// methods: it writes df/dy at (t, y) into dst, row-major, len Dim*Dim, so
// that dst[i*Dim+j] = ∂f_i/∂y_j. Without it the implicit methods use
// forward finite differences (Dim extra evaluations of Func per Jacobian).
type Jacobian interface {
	Jacobian(t float64, y, dst []float64) error
}

// SparseJacobian is an optional capability of a System: ∂f/∂y as a
// sparse matrix (CSR) on a pattern that is fixed for the life of the
// System. When the implicit and structural methods solve with GMRES they
// assemble their Newton matrix from it in O(nnz) memory and time, and
// never form a dense matrix; the dense solver keeps using Jacobian (or
// finite differences).
type SparseJacobian interface {
	// JacobianPattern returns the pattern: the entries of row i are in
	// the columns col[rowPtr[i]:rowPtr[i+1]], strictly ascending;
	// len(rowPtr) = Dim+1. It must return the same pattern on every
	// call; the integrators copy it once.
	JacobianPattern() (rowPtr, col []int)
	// SparseJacobian writes the values of ∂f/∂y at (t, y), in pattern
	// order, into val (len = len(col)).
	SparseJacobian(t float64, y, val []float64) error
}

// JacobianRows is an optional capability of a System: ∂f/∂y handed over
// row by row. The implicit and structural methods prefer it to
// SparseJacobian when they solve with GMRES or the banded solver: they
// assemble their Newton matrix straight from the rows, storing only the
// entries that are not zero, with no copy of the Jacobian and no pattern
// fixed in advance (graph.System implements it). The dense solver keeps
// using Jacobian (or finite differences).
type JacobianRows interface {
	// JacobianRows calls emit for rows of ∂f/∂y at (t, y), each row at
	// most once: the columns of its entries, strictly increasing and in
	// [0, Dim), and their values (zeros among them are allowed). Rows it
	// does not give are zero. cols and vals are only valid during the
	// call to emit; emit must not be retained.
	JacobianRows(t float64, y []float64, emit func(row int, cols []int32, vals []float64)) error
}

// Blocked is an optional capability of a System whose state is made of
// blocks, such as a graph's nodes: block b is y[starts[b]:starts[b+1]],
// starts[0] = 0, strictly increasing, the last = Dim. The block-Jacobi
// preconditioner inverts the Newton matrix's diagonal block of each.
// Blocks must return the same slice on every call.
type Blocked interface {
	Blocks() (starts []int)
}

// Partitioned is an optional capability of a System whose state contains
// positions and their velocities: for every i,
//
//	y[pos[i]]' = y[vel[i]]
//
// All other components are "other" integrated quantities. Pairs must
// return the same slices on every call; the integrators copy them once.
// The indices must be in range and pos and vel must be disjoint without
// repetitions.
//
// Semi-implicit Euler, and Newmark and generalized-alpha applied to a
// first-order System, need these pairs, from Partitioned or from
// DriverOptions.Positions/Velocities (which take precedence). Those
// methods check on every evaluation that Func's position rates equal the
// velocities (to a relative 1e-12) and fail with ErrNotPartitioned
// otherwise.
type Partitioned interface {
	Pairs() (pos, vel []int)
}

// EventAction tells the event driver what to do after an event's reset
// map has been applied.
type EventAction int

const (
	// EventContinue keeps integrating from the reset state.
	EventContinue EventAction = iota
	// EventDisarm keeps integrating from the reset state and disarms the
	// event that fired for the rest of the run. A model uses it to say
	// "this event can no longer happen", for example a ball that has come
	// to rest on the floor.
	EventDisarm
	// EventStop ends the run at the event; the Outcome's Status is
	// StoppedByEvent.
	EventStop
)

// String returns the name of the action.
func (a EventAction) String() string {
	switch a {
	case EventContinue:
		return "continue"
	case EventDisarm:
		return "disarm"
	case EventStop:
		return "stop"
	}
	return "EventAction(" + strconv.Itoa(int(a)) + ")"
}

// EventSystem is an optional capability of a System with state events:
// scalar functions g_i(t, y) whose sign changes are located by the
// adaptive drivers and the fixed-step methods, followed by a reset map.
type EventSystem interface {
	// EventCount returns the number of event functions. It must not
	// change during a run.
	EventCount() int

	// EventDirection returns which sign changes of g_i fire the event:
	// -1 falling (from g > 0 to g ≤ 0), +1 rising (from g < 0 to g ≥ 0),
	// 0 both.
	EventDirection(i int) int

	// Events writes g(t, y) into dst (len EventCount). It must not modify
	// y nor retain y or dst.
	Events(t float64, y, dst []float64) error

	// Reset applies the reset map of event i at time t: y is the state at
	// the located event (read only), dst (len Dim) holds a copy of y on
	// entry and receives the state after the event. Components that do
	// not jump need not be written.
	Reset(i int, t float64, y, dst []float64) (EventAction, error)
}

// SecondOrder is constant-mass mechanics
//
//	q'' = a(t, q, v, z),  v = q',  z' = g(t, q, v, z)
//
// where q are positions, v velocities and z extra integrated quantities
// (work done, charge, internal variables). The position rate equals the
// velocity by construction.
type SecondOrder interface {
	// Dims returns the number of positions (= velocities) and extra
	// quantities. They must not change during a run.
	Dims() (nq, nz int)

	// Accel writes the acceleration into a (len nq) and the rate of the
	// extra quantities into zdot (len nz). It must not modify q, v or z
	// nor retain any slice.
	Accel(t float64, q, v, z, a, zdot []float64) error
}

// AccelJacobian is an optional capability of a SecondOrder: the
// derivatives of the acceleration with respect to positions and
// velocities, row-major nq×nq each (dadq[i*nq+j] = ∂a_i/∂q_j). Newmark and
// generalized-alpha use it when nz == 0; otherwise, or without it, they
// use forward finite differences of their residual.
type AccelJacobian interface {
	AccelJacobian(t float64, q, v, z, dadq, dadv []float64) error
}

// SystemFunc adapts a function to the System interface, like
// http.HandlerFunc (named so beside graph.TransformFunc, a user transform
// of an edge).
type SystemFunc struct {
	N int                                     // dimension of the state
	F func(t float64, y, dst []float64) error // right-hand side
}

// Dim returns f.N.
func (f SystemFunc) Dim() int { return f.N }

// Func calls f.F.
func (f SystemFunc) Func(t float64, y, dst []float64) error { return f.F(t, y, dst) }

// SecondOrderFunc adapts a function to the SecondOrder interface.
type SecondOrderFunc struct {
	NQ, NZ int                                               // numbers of positions and extra quantities
	A      func(t float64, q, v, z, a, zdot []float64) error // acceleration and extra rates
}

// Dims returns f.NQ, f.NZ.
func (f SecondOrderFunc) Dims() (nq, nz int) { return f.NQ, f.NZ }

// Accel calls f.A.
func (f SecondOrderFunc) Accel(t float64, q, v, z, a, zdot []float64) error {
	return f.A(t, q, v, z, a, zdot)
}
