package graph_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/node"
)

// fieldNode is a mass (x' = v, v' = force) with an event x − 0.5
// (falling) whose Update, Derivatives, DerivativesJacobian, EventValues or
// Reset — the one named by fail — returns a node.FieldError about its
// field v once t ≥ from.
type fieldNode struct {
	spec *node.Spec
	v0   float64
	fail string
	from float64
}

func newFieldNode(v0 float64, fail string, from float64) *fieldNode {
	return &fieldNode{v0: v0, fail: fail, from: from, spec: node.NewSpec(node.Spec{
		Type: "fieldnode",
		State: []node.Field{
			{Name: "x", Units: "m", Description: "position", Role: node.Position, Rate: "v"},
			{Name: "v", Units: "m/s", Description: "velocity", Role: node.Velocity},
		},
		Inputs: []node.Input{{Name: "force", Units: "N", Description: "force", Combine: node.Additive, Default: []float64{0}}},
		Events: []node.Event{{Name: "floor", Description: "x crosses 0.5", Direction: -1}},
	})}
}

func (n *fieldNode) err(what string, t float64) error {
	if n.fail == what && t >= n.from {
		return &node.FieldError{Field: "v", Err: fmt.Errorf("%s: v is out of range: %w", what, node.ErrNonFinite)}
	}
	return nil
}

func (n *fieldNode) Spec() *node.Spec           { return n.spec }
func (n *fieldNode) InitialState(dst []float64) { dst[0], dst[1] = 1, n.v0 }
func (n *fieldNode) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	if err := n.err("update", t); err != nil {
		return err
	}
	v := x[1] + dt*in.Values[0]
	dst[0], dst[1] = x[0]+dt*v, v
	return nil
}
func (n *fieldNode) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	if err := n.err("derivatives", t); err != nil {
		return err
	}
	dst[0], dst[1] = x[1], in.Values[0]
	return nil
}
func (n *fieldNode) DerivativesJacobian(t float64, x []float64, in node.Inputs, A, B []float64) error {
	if err := n.err("jacobian", t); err != nil {
		return err
	}
	clear(A)
	clear(B)
	A[1] = 1 // ∂x'/∂v
	B[1] = 1 // ∂v'/∂force
	return nil
}
func (n *fieldNode) EventValues(t float64, x []float64, in node.Inputs, dst []float64) error {
	if err := n.err("events", t); err != nil {
		return err
	}
	dst[0] = x[0] - 0.5
	return nil
}
func (n *fieldNode) Reset(event int, t float64, x []float64, in node.Inputs, dst []float64) error {
	if err := n.err("reset", t); err != nil {
		return err
	}
	dst[0], dst[1] = x[0], -x[1]
	return nil
}

// fieldGraph is the failing node m joined by a spring to a mass b, so
// that every coupling strategy has an interface to exchange.
func fieldGraph(t *testing.T, fail string, from float64) *graph.Sim {
	t.Helper()
	g := graph.New()
	g.Add("m", newFieldNode(0, fail, from))
	g.Add("b", newMass(1, 2))
	g.Add("s", newSpring(10))
	g.Connect("m.x", "s.a")
	g.Connect("b.x", "s.b")
	g.Connect("s.fa", "m.force")
	g.Connect("s.fb", "b.force")
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// wantFieldV checks that err is (or wraps) the step error of node m,
// field v (the node's node.FieldError lifted), wrapping the node's cause.
func wantFieldV(t *testing.T, path string, err error) {
	t.Helper()
	var se *node.StateError
	if !errors.As(err, &se) || se.Node != "m" || se.Field != "v" || !errors.Is(err, node.ErrNonFinite) {
		t.Errorf("%s: err = %v; want a *node.StateError of node m, field v, wrapping the node's error", path, err)
		return
	}
	// Monolithic paths wrap it in the integrator's step error, whose
	// message quotes it.
	if !strings.Contains(err.Error(), "node m.v: step ") {
		t.Errorf("%s: message %q does not name \"node m.v\"", path, err)
	}
}

// A node that names the failing field with node.FieldError gets it named
// in the step error ("node m.v: step …") on every execution path, not only
// on the default co-simulation one.
func TestFieldErrorOnEveryPath(t *testing.T) {
	ctx := context.Background()
	const dt = 0.01
	set := func(st *coupling.Strategy) graph.Settings {
		return graph.Settings{Mode: graph.CoSimulation{Coupling: st}, Dt: dt, Steps: 10}
	}
	strategies := []struct {
		name string
		st   *coupling.Strategy
	}{
		{"default", nil},
		{"jacobi", &coupling.Strategy{Scheme: coupling.Jacobi}},
		{"gauss-seidel", &coupling.Strategy{Scheme: coupling.GaussSeidel, Order: [][]string{{"b"}, {"m"}}}},
		{"iterative", &coupling.Strategy{Scheme: coupling.Iterative, Iteration: coupling.Iteration{Acceleration: coupling.Acceleration{Accel: coupling.Aitken}}}},
		{"iterative iqn-ils", &coupling.Strategy{Scheme: coupling.Iterative, Iteration: coupling.Iteration{Acceleration: coupling.Acceleration{Accel: coupling.IQNILS}}}},
		{"multirate", &coupling.Strategy{Rates: map[string]int{"m": 3}, Interpolation: coupling.Linear}},
		{"multirate in groups", &coupling.Strategy{Scheme: coupling.Iterative, Rates: map[string]int{"m": 3}, Interpolation: coupling.Linear}},
	}
	for _, c := range strategies {
		for _, workers := range []int{1, 2} {
			s := fieldGraph(t, "update", 3*dt)
			st := set(c.st)
			st.Mode = graph.CoSimulation{Coupling: c.st, Workers: workers}
			_, err := s.Run(ctx, st)
			wantFieldV(t, fmt.Sprintf("Run %s, %d workers", c.name, workers), err)
		}
	}
	for _, name := range []string{"forward-euler", "rk4", "backward-euler", "generalized-alpha"} {
		m, _ := integrators.ByName(name)
		_, err := fieldGraph(t, "derivatives", 3*dt).RunMonolithic(ctx, m, nil, set(nil))
		wantFieldV(t, "RunMonolithic "+name, err)
	}
	_, err := fieldGraph(t, "derivatives", 0.05).Integrate(ctx, 1, integrators.DormandPrince{}, nil)
	wantFieldV(t, "Integrate", err)
	for _, name := range []string{"backward-euler", "implicit-trapezoid", "newmark"} {
		m, _ := integrators.ByName(name)
		_, err := fieldGraph(t, "jacobian", 3*dt).RunMonolithic(ctx, m, nil, set(nil))
		wantFieldV(t, "Jacobian assembly, "+name, err)
	}
	// The sparse assembly of GMRES's Newton matrix.
	gmres := integrators.LinearOptions{Solver: integrators.LinearGMRES, JacobianMaxAge: 1} // assembled at every step
	for _, m := range []integrators.Method{integrators.Methods()[5], integrators.GeneralizedAlpha{RhoInf: 0.5}} {
		_, err := fieldGraph(t, "jacobian", 3*dt).RunMonolithic(ctx, withLinear(m, gmres), nil, set(nil))
		wantFieldV(t, "sparse Jacobian assembly (GMRES), "+m.Name(), err)
	}
	// Events: m alone falls through x = 0.5 at t = 0.5.
	events := func(fail string, from float64) *graph.Sim {
		g := graph.New()
		g.Add("m", newFieldNode(-1, fail, from))
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	_, err = events("events", 0.2).Integrate(ctx, 1, integrators.DormandPrince{}, nil)
	wantFieldV(t, "Integrate, EventValues", err)
	_, err = events("reset", 0).Integrate(ctx, 1, integrators.DormandPrince{}, nil)
	wantFieldV(t, "Integrate, Reset", err)
	rk4, _ := integrators.ByName("rk4")
	_, err = events("events", 0.2).RunMonolithic(ctx, rk4, nil, graph.Settings{Dt: dt, Steps: 100})
	wantFieldV(t, "RunMonolithic, EventValues", err)
	_, err = events("reset", 0).RunMonolithic(ctx, rk4, nil, graph.Settings{Dt: dt, Steps: 100})
	wantFieldV(t, "RunMonolithic, Reset", err)
}
