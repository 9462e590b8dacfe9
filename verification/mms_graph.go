package verification

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/node"
)

// MonolithicStudy measures the observed temporal order of an integration
// method — built in, or a caller's own integrators.Method — on a whole
// graph run monolithically
// (graph.Sim.RunMonolithic) against a known solution: a closed-form or
// manufactured trajectory of the fields it names. Where Manufactured
// holds a node's own Update to its declared order, a MonolithicStudy
// holds a method to its declared Order.
type MonolithicStudy struct {
	// Build returns a fresh simulation at T0 whose state is Exact(T0).
	Build func() (*graph.Sim, error)
	// Method is the method studied, with its options; Options the
	// driver options (nil: defaults).
	Method  integrators.Method
	Options *integrators.DriverOptions
	// Fields are the "node.field" paths compared with Exact at T.
	Fields []string
	// Exact writes the exact value of field (one of Fields) at t into
	// dst, which has the field's length.
	Exact func(t float64, field string, dst []float64)
	// T0 and T are the start and final times.
	T0, T float64
	// Ladder is the list of step counts over [T0, T]; nil means
	// DefaultLadder.
	Ladder []int
}

// Run runs the method over the ladder and returns the max-norm error of
// every field at T and the observed orders over the finest pair, as
// Manufactured.Run does.
func (m MonolithicStudy) Run(ctx context.Context) (OrderStudy, error) {
	ladder := m.Ladder
	if ladder == nil {
		ladder = defaultLadder
	}
	if len(ladder) < 2 || len(m.Fields) == 0 || m.Build == nil || m.Exact == nil || m.Method == nil || !(m.T > m.T0) {
		return OrderStudy{}, errors.New("verification: a MonolithicStudy needs Build, Exact, Fields, a Method, T > T0 and at least two step counts")
	}
	st := OrderStudy{Steps: ladder, Fields: append(append([]string(nil), m.Fields...), "joint")}
	st.Errors = make([][]float64, len(st.Fields))
	for _, steps := range ladder {
		if steps < 1 {
			return st, fmt.Errorf("verification: step count %d in the ladder", steps)
		}
		sim, err := m.Build()
		if err != nil {
			return st, err
		}
		if t0 := sim.Time(); t0 != m.T0 {
			return st, fmt.Errorf("verification: Build returned a simulation at t = %v, want T0 = %v", t0, m.T0)
		}
		dt := (m.T - m.T0) / float64(steps)
		if _, err := sim.RunMonolithic(ctx, m.Method, m.Options, graph.Settings{Dt: dt, Steps: steps}); err != nil {
			return st, fmt.Errorf("%s with %d steps: %w", m.Method.Name(), steps, err)
		}
		joint := 0.0
		for fi, path := range m.Fields {
			f, err := sim.Field(path)
			if err != nil {
				return st, err
			}
			got, want := make([]float64, f.Len()), make([]float64, f.Len())
			if err := f.Get(got); err != nil {
				return st, err
			}
			m.Exact(m.T, path, want)
			e := 0.0
			for j := range got {
				e = math.Max(e, math.Abs(got[j]-want[j]))
			}
			if math.IsNaN(e) {
				return st, fmt.Errorf("verification: %s is not finite at T = %v with %d steps", path, m.T, steps)
			}
			st.Errors[fi] = append(st.Errors[fi], e)
			joint = math.Max(joint, e)
		}
		st.Errors[len(m.Fields)] = append(st.Errors[len(m.Fields)], joint)
	}
	for _, es := range st.Errors {
		k := len(es) - 1
		st.Orders = append(st.Orders, math.Log2(es[k-1]/es[k]))
	}
	return st, nil
}

// Declared returns the order the method declares (Method.Order) as a
// node.Order, to check the study against with OrderStudy.Check.
func (m MonolithicStudy) Declared() node.Order {
	return node.Order{Temporal: float64(m.Method.Order())}
}
