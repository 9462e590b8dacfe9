package graph_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/masspoint"
	src "github.com/cosimgo/cosim/nodes/source"
)

// completions is a masspoint told of accepted steps
// (node.StepCompleter): it records the time, the x position and the
// force input of each call, and fails at failAt.
type completions struct {
	node.Node
	node.Deriver
	t, x, f []float64
	failAt  float64
	force   int // offset of the force input
}

func (c *completions) CompletedStep(t float64, x []float64, in node.Inputs) error {
	if t >= c.failAt {
		return errors.New("refused as asked")
	}
	c.t = append(c.t, t)
	c.x = append(c.x, x[0])
	c.f = append(c.f, in.Values[c.force])
	return nil
}

// completedMass is a 2 kg mass pushed by a 4 N force from a step source
// at T = 0.25 (a time event), counted.
func completedMass(t *testing.T, failAt float64) (*graph.Sim, *completions) {
	t.Helper()
	m, _ := masspoint.New(masspoint.Params{Mass: 2})
	l := m.Spec().InputLayout
	c := &completions{Node: m, Deriver: m, failAt: failAt, force: l.Offset(l.Index("force"))}
	st, err := src.NewStep(src.StepParams{Time: 0.25, Initial: []float64{0}, Final: []float64{4, 0, 0}, Units: "N"})
	if err != nil {
		t.Fatal(err)
	}
	g := graph.New()
	g.Add("push", st)
	g.Add("m", c)
	g.Connect("push.value", "m.force")
	sim, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	return sim, c
}

// TestStepCompleterFixed: a fixed-step monolithic run tells the node of
// each of its steps once, in order, at the step's end time, with the
// state the run records there and the inputs there (the force is 0
// before the step's time event at 0.25 and 4 N from it on, the source
// being right-continuous).
func TestStepCompleterFixed(t *testing.T) {
	for _, method := range []integrators.Method{integrators.RK4{}, integrators.BackwardEuler{}} {
		s, c := completedMass(t, math.Inf(1))
		res, err := s.Run(context.Background(), graph.Settings{Dt: 0.05, Steps: 10, Mode: graph.Monolithic{Method: method}, Record: []string{"m.position"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(c.t) != res.Steps || res.Steps != 10 {
			t.Fatalf("%s: %d calls for %d steps, want one per step", method.Name(), len(c.t), res.Steps)
		}
		xs := res.History.Column("m.position[0]")
		if len(xs) != 11 {
			t.Fatalf("%s: %d recorded rows of m.position[0] (columns %v), want 11", method.Name(), len(xs), res.History.Columns)
		}
		for k, tk := range c.t {
			// Exact: the run's time is k·dt computed the same way.
			if want := res.History.Times[k+1]; tk != want {
				t.Errorf("%s: call %d at t=%v, want the step's end %v", method.Name(), k, tk, want)
			}
			if c.x[k] != xs[k+1] {
				t.Errorf("%s: call %d saw x = %v, the run recorded %v", method.Name(), k, c.x[k], xs[k+1])
			}
			want := 0.0
			if tk >= 0.25 {
				want = 4
			}
			if c.f[k] != want {
				t.Errorf("%s: call %d at t=%v saw force %v, want %v", method.Name(), k, tk, c.f[k], want)
			}
		}
	}
}

// TestStepCompleterAdaptive: adaptive Dormand–Prince tells the node of
// every accepted step and of no rejected trial, and the steps end on the
// source's time event.
func TestStepCompleterAdaptive(t *testing.T) {
	s, c := completedMass(t, math.Inf(1))
	res, err := s.Run(context.Background(), graph.Settings{End: 1, Mode: graph.MonolithicAdaptive{Method: integrators.DormandPrince{RTol: 1e-8, ATol: 1e-10}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.t) != res.Steps || res.Integrator.Work.Steps != res.Steps {
		t.Fatalf("%d calls, %d steps in the result, %d accepted by the integrator: want them equal", len(c.t), res.Steps, res.Integrator.Work.Steps)
	}
	hit := false
	for k := 1; k < len(c.t); k++ {
		if !(c.t[k] > c.t[k-1]) {
			t.Fatalf("call %d at t=%v after one at %v", k, c.t[k], c.t[k-1])
		}
		hit = hit || c.t[k] == 0.25
	}
	if !hit || c.t[len(c.t)-1] != 1 {
		t.Errorf("no call at the time event 0.25 (%v) or the last not at the end 1 (%v)", hit, c.t[len(c.t)-1])
	}
}

// TestStepCompleterError: an error from CompletedStep stops the run,
// naming the node and the time.
func TestStepCompleterError(t *testing.T) {
	s, _ := completedMass(t, 0.3)
	_, err := s.Run(context.Background(), graph.Settings{Dt: 0.1, Steps: 10, Mode: graph.Monolithic{Method: integrators.RK4{}}})
	if err == nil || !strings.Contains(err.Error(), "node m") || !strings.Contains(err.Error(), "refused as asked") {
		t.Fatalf("err = %v, want the node's error naming node m", err)
	}
}
