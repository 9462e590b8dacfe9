package verification

import (
	"fmt"
	"math"

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

// DefaultLadder is the step-count ladder at fixed final time.
var DefaultLadder = []int{100, 200, 400, 800}

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
		ladder = DefaultLadder
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
