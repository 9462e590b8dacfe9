package verification

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/cosimgo/cosim/node"
)

// Manufactured is a method-of-manufactured-solutions study of one node:
// a manufactured trajectory x*(t), and the forcing that makes it a
// solution, entering through the node's own additive inputs or, where the
// node has none, a time-varying parameter (the ball's gravity).
type Manufactured struct {
	// New returns a fresh node whose initial state is Exact(T0).
	New func() (node.Node, error)
	// Exact writes the manufactured state x*(t) into dst, in the node's
	// state layout.
	Exact func(t float64, dst []float64)
	// Force sets the forcing for the step starting at t, with the state
	// x (the node's inputs are held over the step): it writes into
	// in.Values or overrides parameters with SetParams.
	Force func(n node.Node, t float64, x []float64, in *node.Inputs) error
	// T0 and T are the start and final times.
	T0, T float64
	// Ladder is the list of step counts over [T0, T]; nil means
	// DefaultLadder.
	Ladder []int
}

// defaultLadder is the step-count ladder at fixed final time.
var defaultLadder = []int{100, 200, 400, 800}

// DefaultLadder returns the step-count ladder at fixed final time used
// when none is given; the caller owns the slice.
func DefaultLadder() []int { return slices.Clone(defaultLadder) }

// OrderStudy is the result of a Manufactured study.
type OrderStudy struct {
	Steps  []int
	Fields []string    // state field names, then "joint"
	Errors [][]float64 // Errors[f][k]: max-norm error of field f at T with Steps[k]
	// Orders[f] is the observed order over the finest pair,
	// log2(e_{n} / e_{2n}).
	Orders []float64
}

// Joint is the observed order of the joint (all fields) error norm.
func (s OrderStudy) Joint() float64 { return s.Orders[len(s.Orders)-1] }

// Field returns the observed order of the named field, or NaN.
func (s OrderStudy) Field(name string) float64 {
	for i, f := range s.Fields {
		if f == name {
			return s.Orders[i]
		}
	}
	return math.NaN()
}

// Run steps the node with its own Update over the ladder and measures the
// error against the manufactured solution at T, in float64.
func (m Manufactured) Run() (OrderStudy, error) {
	ladder := m.Ladder
	if ladder == nil {
		ladder = defaultLadder
	}
	n0, err := m.New()
	if err != nil {
		return OrderStudy{}, err
	}
	spec := n0.Spec()
	l := spec.StateLayout
	st := OrderStudy{Steps: ladder, Fields: append(l.Names(), "joint")}
	st.Errors = make([][]float64, len(st.Fields))
	exact := make([]float64, l.Size())
	m.Exact(m.T, exact)
	for _, steps := range ladder {
		n, err := m.New()
		if err != nil {
			return st, err
		}
		x := make([]float64, l.Size())
		next := make([]float64, l.Size())
		n.InitialState(x)
		in := spec.DefaultInputs()
		dt := (m.T - m.T0) / float64(steps)
		for k := 0; k < steps; k++ {
			t := m.T0 + float64(k)*dt
			if err := m.Force(n, t, x, &in); err != nil {
				return st, fmt.Errorf("forcing at t=%v: %w", t, err)
			}
			if err := n.Update(t, dt, x, in, next); err != nil {
				return st, fmt.Errorf("step %d of %d: %w", k, steps, err)
			}
			x, next = next, x
		}
		joint := 0.0
		for fi := 0; fi < l.Len(); fi++ {
			e := 0.0
			off := l.Offset(fi)
			for j := off; j < off+l.Field(fi).Shape.Len(); j++ {
				e = math.Max(e, math.Abs(x[j]-exact[j]))
			}
			st.Errors[fi] = append(st.Errors[fi], e)
			joint = math.Max(joint, e)
		}
		st.Errors[l.Len()] = append(st.Errors[l.Len()], joint)
	}
	for _, es := range st.Errors {
		k := len(es) - 1
		st.Orders = append(st.Orders, math.Log2(es[k-1]/es[k]))
	}
	return st, nil
}

// DeclaredOrder builds a node with newNode and returns the order of
// accuracy it declares (Spec().Meta.Order), so a study never repeats a
// declared number.
func DeclaredOrder(newNode func() (node.Node, error)) (node.Order, error) {
	n, err := newNode()
	if err != nil {
		return node.Order{}, err
	}
	return n.Spec().Meta.Order, nil
}

// Declared returns the order of accuracy the study's node declares.
func (m Manufactured) Declared() (node.Order, error) { return DeclaredOrder(m.New) }

// OrderError reports an observed order outside its declared bound.
type OrderError struct {
	Observed float64    // the observed order p
	Declared node.Order // the declaration it was checked against
}

func (e *OrderError) Error() string {
	return fmt.Sprintf("observed order %.4g does not satisfy %s (declared %s)", e.Observed, OrderBound(e.Declared), e.Declared)
}

// OrderBound states the acceptance criterion of an observed temporal
// order against o, e.g. "|p − 1| ≤ 0.1".
func OrderBound(o node.Order) string {
	return fmt.Sprintf("|p − %s| ≤ %s", strconv.FormatFloat(o.Temporal, 'g', -1, 64), strconv.FormatFloat(o.Tol(), 'g', -1, 64))
}

// CheckOrder checks an observed temporal order p against the declared
// order o: |p − o.Temporal| ≤ o.Tol(), which is node.DefaultOrderTol
// unless the node states another bound and its reason
// (Order.TemporalTol, Order.TolReason). It returns o.Validate's error for
// an inconsistent declaration, and an *OrderError when p (or NaN) misses
// the bound.
func CheckOrder(p float64, o node.Order) error {
	if err := o.Validate(); err != nil {
		return err
	}
	if !(math.Abs(p-o.Temporal) <= o.Tol()) {
		return &OrderError{Observed: p, Declared: o}
	}
	return nil
}

// Check checks the study's joint observed order (Joint) against the
// declared order, as CheckOrder does.
func (s OrderStudy) Check(declared node.Order) error { return CheckOrder(s.Joint(), declared) }
