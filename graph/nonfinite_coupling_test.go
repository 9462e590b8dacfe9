package graph_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
)

// Issue #22, gap 2: a non-finite value is reported as the
// *node.StateError of the node and field that produced it, at the step
// that produced it, under every coupling scheme — not later, as another
// node's error, once the NaN has travelled. These tests use the public
// API only.

// nfSpring is spring whose output fb is NaN when evaluated at t ≥ failAt.
type nfSpring struct {
	*spring
	failAt float64
}

func (n nfSpring) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	if err := n.spring.Outputs(t, x, in, dst); err != nil {
		return err
	}
	if t >= n.failAt {
		dst[1] = math.NaN()
	}
	return nil
}

// nfTimer is a stateful node whose state is the time: x(0) = 0,
// x ← x + dt.
type nfTimer struct{ spec *node.Spec }

func newNFTimer() *nfTimer {
	return &nfTimer{spec: node.NewSpec(node.Spec{
		Type:  "timer",
		State: []node.Field{{Name: "x", Units: "N", Description: "the time, as a force"}},
	})}
}

func (c *nfTimer) Spec() *node.Spec           { return c.spec }
func (c *nfTimer) InitialState(dst []float64) { dst[0] = 0 }
func (c *nfTimer) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = x[0] + dt
	return nil
}

// nfSqrt is the transform x ↦ √(c − x): NaN once x > c.
type nfSqrt struct{ c float64 }

func (nfSqrt) Name() string                               { return "sqrt-from" }
func (nfSqrt) OutShape(in node.Shape) (node.Shape, error) { return in, nil }
func (s nfSqrt) Apply(dst, src []float64) {
	for i, x := range src {
		dst[i] = math.Sqrt(s.c - x)
	}
}

// nfFieldMass is a mass whose Update fails from t ≥ 3 with a
// node.FieldError naming its field x.
type nfFieldMass struct{ *mass }

func (f nfFieldMass) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	if t >= 3 {
		return &node.FieldError{Field: "x", Err: fmt.Errorf("x ran away: %w", node.ErrNonFinite)}
	}
	return f.mass.Update(t, dt, x, in, dst)
}

// nfSchemes are the coupling strategies under test, with "m" the mass of
// every fixture: Jacobi, Gauss–Seidel, an iterated group of every node
// (Accept, so that only the non-finite check can end the run),
// multirate with m subcycling twice under Hold and Linear, and both
// together.
var nfSchemes = []struct {
	name string
	st   *coupling.Strategy
}{
	{"jacobi", nil},
	{"gauss-seidel", &coupling.Strategy{Scheme: coupling.GaussSeidel}},
	{"iterative", &coupling.Strategy{Scheme: coupling.Iterative, Iteration: coupling.Iteration{OnFail: coupling.Accept}}},
	{"multirate", &coupling.Strategy{Rates: map[string]int{"m": 2}}},
	{"multirate-linear", &coupling.Strategy{Rates: map[string]int{"m": 2}, Interpolation: coupling.Linear}},
	{"iterative-multirate", &coupling.Strategy{Scheme: coupling.Iterative, Rates: map[string]int{"m": 2},
		Iteration: coupling.Iteration{OnFail: coupling.Accept}}},
}

// nfSpringGraph is a mass m on a spring s to a wall: wall.value → s.a,
// m.x → s.b, s.fb → m.force. mk builds m, sp the spring.
func nfSpringGraph(m node.Node, sp node.Node) *graph.Graph {
	g := graph.New()
	g.Add("wall", newSource("m", 0))
	g.Add("m", m)
	g.Add("s", sp)
	g.Connect("wall.value", "s.a")
	g.Connect("m.x", "s.b")
	g.Connect("s.fb", "m.force")
	return g
}

// nfExpect runs g for 6 steps of dt = 1 under st and checks that the run
// fails with a *node.StateError of node, field and step wrapping
// node.ErrNonFinite, with a time within that step.
func nfExpect(t *testing.T, g *graph.Graph, st *coupling.Strategy, nodeName, field string, step int) {
	t.Helper()
	sim, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	_, err = sim.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Coupling: st}, Dt: 1, Steps: 6})
	var se *node.StateError
	if !errors.As(err, &se) || !errors.Is(err, node.ErrNonFinite) {
		t.Fatalf("err = %v, want a *node.StateError wrapping ErrNonFinite", err)
	}
	if se.Node != nodeName || se.Field != field || se.Step != step {
		t.Errorf("StateError names %s.%s at step %d (%v), want %s.%s at step %d", se.Node, se.Field, se.Step, err, nodeName, field, step)
	}
	// The time is the one of the failing evaluation: the step's start,
	// a substep's start, or the step's end where an iterated group
	// evaluates its members' outputs at t_n+1.
	if !(se.Time >= float64(step) && se.Time <= float64(step+1)) {
		t.Errorf("StateError time %v, want within step %d, [%d, %d]", se.Time, step, step, step+1)
	}
}

// TestNonFiniteOutputNamesItsNode: s.fb is NaN when evaluated at t ≥ 3.
// Jacobi, Gauss–Seidel and multirate evaluate outputs at the start of a
// step, so step 3 (t = 3) fails; an iterated group evaluates its
// members' outputs at the step's end, so step 2 (t_n+1 = 3) fails.
func TestNonFiniteOutputNamesItsNode(t *testing.T) {
	want := map[string]int{"jacobi": 3, "gauss-seidel": 3, "iterative": 2, "multirate": 3, "multirate-linear": 3, "iterative-multirate": 2}
	for _, sc := range nfSchemes {
		t.Run(sc.name, func(t *testing.T) {
			g := nfSpringGraph(newMass(1, 1), nfSpring{newSpring(10), 3})
			nfExpect(t, g, sc.st, "s", "fb", want[sc.name])
		})
	}
}

// TestNonFiniteTransformNamesItsInput: the edge timer.x → m.force passes
// through √(2.5 − x), NaN once the timer reads more than 2.5. The
// receiving node and input are named, at the step where m first reads
// such a value: under Jacobi and multirate m reads the timer at the
// step's start (Linear: at each substep's start, x = 2 and 2.5 in step
// 2), so step 3; under Gauss–Seidel m (a later stage) reads the timer's
// new state x_n+1, and an iterated group the end-of-step iterate, so
// step 2.
func TestNonFiniteTransformNamesItsInput(t *testing.T) {
	want := map[string]int{"jacobi": 3, "gauss-seidel": 2, "iterative": 2, "multirate": 3, "multirate-linear": 3, "iterative-multirate": 2}
	for _, sc := range nfSchemes {
		t.Run(sc.name, func(t *testing.T) {
			g := graph.New()
			g.Add("timer", newNFTimer())
			g.Add("m", newMass(1, 1))
			g.Connect("timer.x", "m.force", graph.Via(nfSqrt{2.5}))
			nfExpect(t, g, sc.st, "m", "input force", want[sc.name])
		})
	}
}

// TestNonFiniteStateNamesItsField: m's Update writes a NaN velocity
// from t ≥ 3 (mass.failAt), step 3 under every scheme (m's first
// substep of step 3 starts at t = 3).
func TestNonFiniteStateNamesItsField(t *testing.T) {
	for _, sc := range nfSchemes {
		t.Run(sc.name, func(t *testing.T) {
			m := newMass(1, 1)
			m.failAt = 3
			nfExpect(t, nfSpringGraph(m, newSpring(10)), sc.st, "m", "v", 3)
		})
	}
}

// TestNodeFieldErrorLiftedUnderCoupling: a node that names the field in
// its error (node.FieldError) gets it named in the StateError under
// every scheme, including the held updates of iterated groups.
func TestNodeFieldErrorLiftedUnderCoupling(t *testing.T) {
	for _, sc := range nfSchemes {
		t.Run(sc.name, func(t *testing.T) {
			nfExpect(t, nfSpringGraph(nfFieldMass{newMass(1, 1)}, newSpring(10)), sc.st, "m", "x", 3)
		})
	}
}
