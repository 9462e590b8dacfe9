package graph_test

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/masspoint"
	src "github.com/cosimgo/cosim/nodes/source"
)

// hidden hides a source's TimeEvents (it is only a node.Node and an
// Outputter), to compare with the same signal undeclared.
type hidden struct {
	node.Node
	node.Outputter
}

// stepMass is a 2 kg point mass at rest pushed by a force that steps
// from 0 to [4, 0, 0] N at T, through a step source (declared: its time
// event is in the System) or the same source hidden.
func stepMass(t *testing.T, T float64, declared bool) *graph.Sim {
	t.Helper()
	st, err := src.NewStep(src.StepParams{Time: T, Initial: []float64{0}, Final: []float64{4, 0, 0}, Units: "N"})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := masspoint.New(masspoint.Params{Mass: 2})
	g := graph.New()
	if declared {
		g.Add("push", st)
	} else {
		g.Add("push", hidden{st, st})
	}
	g.Add("m", m)
	g.Connect("push.value", "m.force")
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// batchedSource fails unless s steps the source typ in a family (its
// batch kernel) and has not replayed an evaluation per node: time events
// stay per node (node.TimeEventer), while the outputs on both sides of
// them come from the kernel.
func batchedSource(t *testing.T, s *graph.Sim, typ string) {
	t.Helper()
	found := false
	for _, f := range s.Families() {
		found = found || f.Type == typ
	}
	if !found {
		t.Errorf("the %s source is not in a family: the batched path was not exercised", typ)
	}
	if r := s.Replays(); r != 0 {
		t.Errorf("%d evaluations replayed per node", r)
	}
}

// steps drives the adaptive Dormand–Prince integrator over the System of
// s to end and returns the end time of every accepted step; the state is
// left in s.
func steps(t *testing.T, s *graph.Sim, end float64) []float64 {
	t.Helper()
	sys, err := s.System()
	if err != nil {
		t.Fatal(err)
	}
	a, err := integrators.NewAdaptive(integrators.DormandPrince{}, sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Init(s.Time(), s.State(nil)); err != nil {
		t.Fatal(err)
	}
	var ends []float64
	for tt := s.Time(); tt < end; {
		rep, err := a.Step(end)
		if err != nil {
			t.Fatal(err)
		}
		ends = append(ends, rep.T1)
		tt = rep.T1
	}
	tt, y := a.State()
	if err := s.SetState(y, tt); err != nil {
		t.Fatal(err)
	}
	return ends
}

// A step source's time is a time event the monolithic System reports
// (integrators.TimeEventSystem): the adaptive Dormand–Prince integrator
// ends a step exactly on it, to the bit, with its last stages at the left
// limit, and restarts there. On either side the solution is a polynomial
// of degree ≤ 2 — x = (F/2m)(t − T)², v = (F/m)(t − T) after T, rest
// before — which Dormand–Prince integrates exactly, so the end state
// matches that closed form to round-off. Tolerance 1e-12 (m, m/s): a few
// dozen steps' round-off on values of order 10. With the source hidden,
// the same run steps over T and its error is the integrator's tolerance,
// which the test shows to be orders of magnitude larger.
func TestIntegrateLandsOnStepTime(t *testing.T) {
	const end = 4.0
	for _, T := range []float64{0.1, 1.0 / 3, 2.7, math.Pi} {
		s := stepMass(t, T, true)
		ends := steps(t, s, end)
		if !slices.Contains(ends, T) {
			t.Fatalf("T = %v: no step ends exactly at T (bits %x); step ends %v", T, math.Float64bits(T), ends)
		}
		x, _ := s.Value("m.position[0]")
		v, _ := s.Value("m.velocity[0]")
		wantX, wantV := (end-T)*(end-T), 2*(end-T) // F/m = 2
		errDeclared := math.Max(math.Abs(x[0]-wantX), math.Abs(v[0]-wantV))
		if errDeclared > 1e-12 {
			t.Errorf("T = %v: x = %v (want %v), v = %v (want %v): error %.3g > 1e-12", T, x[0], wantX, v[0], wantV, errDeclared)
		}
		batchedSource(t, s, "step")

		h := stepMass(t, T, false)
		hidden := steps(t, h, end)
		xh, _ := h.Value("m.position[0]")
		vh, _ := h.Value("m.velocity[0]")
		errHidden := math.Max(math.Abs(xh[0]-wantX), math.Abs(vh[0]-wantV))
		t.Logf("T = %v: error declared %.3g in %d steps, hidden %.3g in %d steps", T, errDeclared, len(ends), errHidden, len(hidden))
		if !(errHidden > 1000*errDeclared) {
			t.Errorf("T = %v: declaring the event did not help: error %.3g declared, %.3g hidden", T, errDeclared, errHidden)
		}
	}
}

// Integrate (the driver scene files use) stops on every edge of a pulse
// train, so the impulse of the force is exact even when the initial step
// would span a whole pulse: v(3) = 4 pulses × 0.2 s × 1 N / 1 kg, to
// round-off (1e-13). Hidden, the first step (sized where the force is
// zero) jumps over the first pulse entirely.
func TestIntegratePulseEdges(t *testing.T) {
	build := func(declared bool) *graph.Sim {
		p, _ := src.NewPulse(src.PulseParams{Period: 0.7, Width: 0.2, Delay: 0.15, Amplitude: []float64{1, 0, 0}, Units: "N"})
		m, _ := masspoint.New(masspoint.Params{Mass: 1})
		g := graph.New()
		g.Add("m", m)
		if declared {
			g.Add("p", p)
		} else {
			g.Add("p", hidden{p, p})
		}
		g.Connect("p.value", "m.force")
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	var edges []float64
	for k := 0; k < 5; k++ {
		rise := 0.15 + float64(k)*0.7
		edges = append(edges, rise, rise+0.2)
	}
	s := build(true)
	ends := steps(t, s, 3)
	for _, e := range edges {
		if e < 3 && !slices.Contains(ends, e) {
			t.Errorf("no step ends exactly at the edge %v", e)
		}
	}
	if _, err := s.Integrate(context.Background(), 3.5, integrators.DormandPrince{}, nil); err != nil {
		t.Fatal(err)
	}
	v, _ := s.Value("m.velocity[0]")
	if !numtest.Within(v[0], 1.0, 1e-13) {
		t.Errorf("v(3.5) = %v, want 1 (5 pulses of 0.2 N·s)", v[0])
	}
	h := build(false)
	if _, err := h.Integrate(context.Background(), 3.5, integrators.DormandPrince{}, nil); err != nil {
		t.Fatal(err)
	}
	batchedSource(t, s, "pulse")
	vh, _ := h.Value("m.velocity[0]")
	t.Logf("v(3.5): declared %v, hidden %v (want 1)", v[0], vh[0])
}

// NextTimeEvent is the earliest time event after t over every node with
// time events, +Inf after the last, and allocates nothing once built.
func TestNextTimeEvent(t *testing.T) {
	st, _ := src.NewStep(src.StepParams{Time: 2.5, Final: []float64{1, 0, 0}, Units: "N"})
	p, _ := src.NewPulse(src.PulseParams{Period: 1, Width: 0.25, Delay: 0.5, Amplitude: []float64{1, 0, 0}, Units: "N"})
	lk, _ := src.NewLookup(src.LookupParams{Times: []float64{0.1, 0.2}, Values: []float64{0, 0, 0, 1, 0, 0}, Units: "N"})
	m, _ := masspoint.New(masspoint.Params{Mass: 1})
	g := graph.New()
	g.Add("m", m)
	for i, n := range []node.Node{st, p, lk} {
		name := []string{"step", "pulse", "table"}[i]
		g.Add(name, n)
		g.Connect(name+".value", "m.force")
	}
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	sys, _ := s.System()
	for _, c := range []struct{ t, want float64 }{{0, 0.1}, {0.1, 0.2}, {0.2, 0.5}, {0.6, 0.75}, {2.3, 2.5}, {2.5, 2.75}} {
		if got := sys.NextTimeEvent(c.t); got != c.want {
			t.Errorf("NextTimeEvent(%v) = %v, want %v", c.t, got, c.want)
		}
	}
	if a := testing.AllocsPerRun(100, func() { sys.NextTimeEvent(1.3) }); a != 0 {
		t.Errorf("NextTimeEvent allocates %v times", a)
	}
	// A graph without time events: +Inf.
	g2 := graph.New()
	g2.Add("m", m)
	s2, _ := g2.Build()
	sys2, _ := s2.System()
	if got := sys2.NextTimeEvent(0); !math.IsInf(got, 1) {
		t.Errorf("no time events: %v", got)
	}
}
