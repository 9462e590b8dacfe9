package graph_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
)

// limited is a spring that states a stable step (node.StepLimiter): the
// undamped bound 2/ω with ω² = k/μ for two unit masses (μ = ½), unless
// limit overrides it. It records the inputs it was asked at, to show the
// graph gathers them first.
type limited struct {
	*spring
	limit  float64 // when non-zero, returned instead of 2/ω
	panics bool
	seen   []float64
}

func (n *limited) StableStepAt(t float64, x []float64, in node.Inputs) node.StepLimit {
	if n.panics {
		panic("limit exploded")
	}
	n.seen = append(n.seen[:0], in.Values...)
	if n.limit != 0 {
		return node.StepLimit{Dt: n.limit, Why: "stated"}
	}
	return node.StepLimit{Dt: node.SpringStableStep(n.k/0.5, 0), Why: "2/ω"}
}

// wrapped decorates a node; node.As finds the limiter through Unwrap.
type wrapped struct{ node.Node }

func (w wrapped) Unwrap() node.Node { return w.Node }

// twoMasses joins masses at 0 and 1 by a limited spring of stiffness k.
func twoMasses(k float64, l *limited) *graph.Graph {
	g := graph.New()
	g.Add("a", newMass(1, 0))
	g.Add("b", newMass(1, 1))
	l.spring = newSpring(k)
	g.Add("s", wrapped{l})
	g.Connect("a.x", "s.a")
	g.Connect("b.x", "s.b")
	g.Connect("s.fa", "a.force")
	g.Connect("s.fb", "b.force")
	return g
}

// TestStableSteps: limits are evaluated at the current state with the
// inputs gathered (the spring sees a.x = 0, b.x = 1), through wrappers,
// in node order; +Inf and NaN limits are left out; StepWarnings keeps
// the limits below dt, and a panicking limiter is an error naming it.
func TestStableSteps(t *testing.T) {
	l := &limited{}
	s, err := twoMasses(800, l).Build()
	if err != nil {
		t.Fatal(err)
	}
	limits, err := s.StableSteps()
	want := 2 / math.Sqrt(1600) // ω² = k/μ = 1600 s⁻²: 0.05 s
	if err != nil || len(limits) != 1 || limits[0].Node != "s" || !numtest.Within(limits[0].Dt, want, 1e-15) {
		t.Fatalf("StableSteps = %+v, %v; want node s at %v s", limits, err, want)
	}
	if len(l.seen) != 2 || l.seen[0] != 0 || l.seen[1] != 1 {
		t.Errorf("the limiter saw inputs %v, want [0 1] (gathered before the call)", l.seen)
	}
	for _, c := range []struct {
		dt   float64
		warn bool
	}{{0.049, false}, {0.05, false}, {0.051, true}} {
		ws, err := s.StepWarnings(c.dt)
		if err != nil || (len(ws) == 1) != c.warn {
			t.Errorf("StepWarnings(%v) = %v, %v; want a warning: %v", c.dt, ws, err, c.warn)
		}
		if c.warn && !strings.Contains(ws[0].String(), "node s: dt = 0.051 s exceeds its explicit stable step 0.05 s (2/ω)") {
			t.Errorf("warning %q", ws[0])
		}
	}
	for _, lim := range []float64{math.Inf(1), math.NaN()} {
		s, err := twoMasses(800, &limited{limit: lim}).Build()
		if err != nil {
			t.Fatal(err)
		}
		if limits, err := s.StableSteps(); err != nil || len(limits) != 0 {
			t.Errorf("limit %v: StableSteps = %v, %v; want none", lim, limits, err)
		}
	}
	s, err = twoMasses(800, &limited{panics: true}).Build()
	if err != nil {
		t.Fatal(err)
	}
	var se *node.StateError
	if _, err := s.StableSteps(); !errors.As(err, &se) || se.Node != "s" || !strings.Contains(err.Error(), "limit exploded") {
		t.Errorf("panicking limiter: %v, want a *node.StateError naming s", err)
	}
}

// TestWithStepHint: a run of the two masses beyond the spring's stated
// limit (ωΔt = 40·0.1 = 4 > 2) blows up; its non-finite error carries
// the hint naming node, limit and dt and still unwraps to the
// *node.StateError; any other error, or no warning, is left unchanged.
func TestWithStepHint(t *testing.T) {
	s, err := twoMasses(800, &limited{}).Build()
	if err != nil {
		t.Fatal(err)
	}
	ws, err := s.StepWarnings(0.1)
	if err != nil || len(ws) != 1 {
		t.Fatalf("StepWarnings(0.1) = %v, %v", ws, err)
	}
	// Let the state grow until it is not finite (the growth watch would
	// stop the run first, with its own error).
	_, err = s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{AllowGrowth: true}, Dt: 0.1, Steps: 100000})
	if !errors.Is(err, node.ErrNonFinite) {
		t.Fatalf("run beyond the limit: %v, want a non-finite value", err)
	}
	herr := graph.WithStepHint(err, ws)
	var se *node.StateError
	if !errors.As(herr, &se) || !errors.Is(herr, node.ErrNonFinite) ||
		!strings.Contains(herr.Error(), "likely explicit instability: dt = 0.1 s exceeds the stable step 0.05 s of node s") {
		t.Errorf("hinted error %q", herr)
	}
	other := errors.New("something else")
	if got := graph.WithStepHint(other, ws); got != other {
		t.Errorf("a non-finite-free error was changed: %v", got)
	}
	if got := graph.WithStepHint(err, nil); got != err {
		t.Errorf("no warnings, but the error was changed: %v", got)
	}
	if graph.WithStepHint(nil, ws) != nil {
		t.Error("nil error became non-nil")
	}
}
