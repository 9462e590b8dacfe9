package graph_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/internal/numtest"
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
	node.Tunable
	t, x, f []float64
	failAt  float64
	force   int // offset of the force input
	// jumpAt > 0: a step event at the end of every step whose position
	// reached it puts the mass at rest at the origin (jumps: when);
	// stopAt: the first step ending at or after it stops the run.
	jumpAt, stopAt float64
	pos, vel       int
	jumps          []float64
}

func (c *completions) CompletedStep(t float64, x []float64, in node.Inputs, dst []float64) (bool, error) {
	if t >= c.failAt {
		return false, errors.New("refused as asked")
	}
	c.t = append(c.t, t)
	c.x = append(c.x, x[0])
	c.f = append(c.f, in.Values[c.force])
	if t >= c.stopAt {
		return false, fmt.Errorf("stop at t=%v: %w", t, node.ErrStop)
	}
	if c.jumpAt > 0 && x[0] >= c.jumpAt {
		// A step event: the mass is put back at rest at the origin.
		clear(dst[c.pos : c.pos+3])
		clear(dst[c.vel : c.vel+3])
		c.jumps = append(c.jumps, t)
		return true, nil
	}
	return false, nil
}

// completedMass is a 2 kg mass pushed by a 4 N force from a step source
// at T = 0.25 (a time event), counted.
func completedMass(t *testing.T, failAt float64) (*graph.Sim, *completions) {
	t.Helper()
	m, _ := masspoint.New(masspoint.Params{Mass: 2})
	l := m.Spec().InputLayout
	sl := m.Spec().StateLayout
	c := &completions{Node: m, Deriver: m, Tunable: m, failAt: failAt, force: l.Offset(l.Index("force")), stopAt: math.Inf(1),
		pos: sl.Offset(sl.Index("position")), vel: sl.Offset(sl.Index("velocity"))}
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

// TestStepCompleterStepEvent: a node that puts its mass back at rest at
// the origin at the end of every step whose position reached 0.01 m (a
// step event) restarts the integrator from that state. Pushed by 4 N
// from T = 0.25 (2 kg: a = 2 m/s²), its position is (t − t_e)² after the
// time event or its last step event t_e: RK4 and Dormand–Prince are
// exact on a quadratic, so the recorded positions match that closed form
// to rounding (1e-12), and in the fixed-step run the jump times match an
// independent replay of the rule on the step grid. Both methods carry
// state (Dormand–Prince its FSAL stage and step size), which a restart
// that kept them would get wrong.
func TestStepCompleterStepEvent(t *testing.T) {
	for _, adaptive := range []bool{false, true} {
		s, c := completedMass(t, math.Inf(1))
		c.jumpAt = 0.01
		set := graph.Settings{Dt: 0.01, Steps: 100, Mode: graph.Monolithic{Method: integrators.RK4{}}, Record: []string{"m.position"}}
		if adaptive {
			set = graph.Settings{End: 1, Dt: 0.01, Mode: graph.MonolithicAdaptive{Method: integrators.DormandPrince{RTol: 1e-9, ATol: 1e-12, MaxStep: 0.02}}, Record: []string{"m.position"}}
		}
		res, err := s.Run(context.Background(), set)
		if err != nil {
			t.Fatal(err)
		}
		if res.StepEvents != len(c.jumps) || len(c.jumps) < 5 {
			t.Fatalf("adaptive %v: %d step events in the result, %d made by the node, want them equal and at least 5", adaptive, res.StepEvents, len(c.jumps))
		}
		if !adaptive {
			// The rule replayed on the grid: x = (t − te)² from te.
			var want []float64
			te := 0.25
			for k := 1; k <= 100; k++ {
				tk := float64(k) * 0.01
				if tk > te && (tk-te)*(tk-te) >= 0.01-1e-12 {
					want = append(want, tk)
					te = tk
				}
			}
			if len(want) != len(c.jumps) {
				t.Fatalf("step events at %v, the replay gives %v", c.jumps, want)
			}
			for i := range want {
				if !numtest.Within(want[i], c.jumps[i], 1e-12) {
					t.Errorf("step event %d at %v, the replay gives %v", i, c.jumps[i], want[i])
				}
			}
		}
		xs := res.History.Column("m.position[0]")
		for k, tk := range res.History.Times {
			te := 0.25
			for _, j := range c.jumps {
				if j <= tk {
					te = j
				}
			}
			want := 0.0
			if tk > te {
				want = (tk - te) * (tk - te)
			}
			if !numtest.Within(xs[k], want, 1e-12) {
				t.Errorf("adaptive %v: x(%v) = %v, closed form (t − %v)² = %v", adaptive, tk, xs[k], te, want)
			}
		}
	}
}

// TestStepCompleterStop: a node that asks at an accepted step to stop
// (an error wrapping node.ErrStop) ends the run there without an error,
// with status StoppedByEvent and the node's words as the cause.
func TestStepCompleterStop(t *testing.T) {
	for _, adaptive := range []bool{false, true} {
		s, c := completedMass(t, math.Inf(1))
		c.stopAt = 0.5
		set := graph.Settings{Dt: 0.1, Steps: 10, Mode: graph.Monolithic{Method: integrators.RK4{}}}
		if adaptive {
			set = graph.Settings{End: 1, Mode: graph.MonolithicAdaptive{Method: integrators.DormandPrince{MaxStep: 0.1}}}
		}
		res, err := s.Run(context.Background(), set)
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != graph.StoppedByEvent || res.StopCause == nil || !errors.Is(res.StopCause, node.ErrStop) || !strings.Contains(res.StopCause.Error(), "node m") {
			t.Fatalf("adaptive %v: status %v, cause %v: want StoppedByEvent with a cause naming node m", adaptive, res.Status, res.StopCause)
		}
		if last := c.t[len(c.t)-1]; s.Time() != last || last < 0.5 || last > 0.6+1e-12 {
			t.Errorf("adaptive %v: the run stopped at t=%v, the last step told was at %v: want the first step end at or after 0.5", adaptive, s.Time(), last)
		}
	}
}

// TestStepCompleterSensitivities: sensitivity runs tell StepCompleter
// nodes of every accepted step too; a node that changes its state there
// (a step event) is refused at that step with ErrNotDifferentiable,
// naming it and the time, since the jump of the sensitivities there is
// not implemented; without a step event the run is unaffected.
func TestStepCompleterSensitivities(t *testing.T) {
	for _, fixed := range []bool{false, true} {
		opts := &graph.SensitivityOptions{End: 1}
		if fixed {
			opts = &graph.SensitivityOptions{End: 1, Dt: 0.01, Mode: graph.Monolithic{Method: integrators.RK4{}}}
		}
		s, c := completedMass(t, math.Inf(1))
		if _, err := s.Sensitivities(context.Background(), []string{"m.mass"}, opts); err != nil || len(c.t) == 0 {
			t.Fatalf("fixed %v: %v after %d calls: want a run that tells the node", fixed, err, len(c.t))
		}
		s, c = completedMass(t, math.Inf(1))
		c.jumpAt = 0.01
		_, err := s.Sensitivities(context.Background(), []string{"m.mass"}, opts)
		if fixed && err != nil {
			// docs/errors.md quotes it.
			doc, rerr := os.ReadFile("../docs/errors.md")
			if rerr != nil {
				t.Fatal(rerr)
			}
			if !strings.Contains(string(doc), err.Error()) {
				t.Errorf("docs/errors.md does not quote the error as the code words it now:\n%v", err)
			}
		}
		if !errors.Is(err, graph.ErrNotDifferentiable) || !strings.Contains(err.Error(), "node m changed its state") || len(c.jumps) != 1 {
			t.Errorf("fixed %v: err = %v after %d step events, want ErrNotDifferentiable at the first, naming node m", fixed, err, len(c.jumps))
		}
	}
}
