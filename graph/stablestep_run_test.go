package graph_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// Sim.Run reports the connectors whose stable step dt exceeds in
// Result.Warnings, and a run that then blows up returns an error that
// carries the hint once and still unwraps to the *node.StateError.
func TestRunWarnsAboveStableStep(t *testing.T) {
	build := func() *graph.Sim {
		g := graph.New()
		p := masspoint.DefaultParams()
		p.InitialPosition = [3]float64{0.1, 0, 0}
		m, err := masspoint.New(p)
		if err != nil {
			t.Fatal(err)
		}
		g.Add("m", m)
		sp := springdamper.DefaultParams()
		sp.Stiffness = [3]float64{1e4, 1e4, 1e4} // stable step 2·√(1/1e4) = 0.02 s
		if _, err := springdamper.Connect(g, "s", sp, node.GroundAt([3]float64{}), node.Body("m")); err != nil {
			t.Fatal(err)
		}
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	res, err := build().Run(context.Background(), graph.Settings{Dt: 0.01, Steps: 10})
	if err != nil || len(res.Warnings) != 0 {
		t.Fatalf("dt = 0.01 s below the limit: warnings %v, err %v", res.Warnings, err)
	}
	// Let the state grow until it is not finite (the growth watch would
	// stop the run first, with its own error).
	res, err = build().Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{AllowGrowth: true}, Dt: 0.05, Steps: 100000})
	if res == nil || len(res.Warnings) != 1 || res.Warnings[0].Node != "s" {
		t.Fatalf("dt = 0.05 s above the limit: result %+v", res)
	}
	var se *node.StateError
	if !errors.As(err, &se) || !errors.Is(err, node.ErrNonFinite) {
		t.Fatalf("err = %v, want a non-finite *node.StateError", err)
	}
	if n := strings.Count(err.Error(), "exceeds the stable step"); n != 1 {
		t.Errorf("the hint appears %d times in %q", n, err)
	}
	if again := graph.WithStepHint(err, res.Warnings); again != err {
		t.Errorf("WithStepHint wrapped a hinted error again: %v", again)
	}
}

// StepWarnings asks a family of connectors for its smallest bound in one
// kernel call (node.BatchStepBounder) and its rows one by one only when
// that bound is below dt: the warnings must be exactly those of the
// per-node limits (StableSteps filtered by dt, in node order), whichever
// rows are below dt, and must follow a SetParams on a body. The chain:
// 12 masses of 1 kg between walls, k = 1e4 N/m, mass 5 of 0.01 kg.
// Stable steps 2/√(k·w) with w the summed inverse masses: 0.0141 s
// between two 1 kg masses (w = 2), 0.02 s at the walls (w = 1),
// 0.00199 s next to the light mass (w = 101).
func TestStepWarningsFamilyBound(t *testing.T) {
	g := graph.New()
	const n = 12
	var masses []*masspoint.Node
	for i := range n {
		p := masspoint.DefaultParams()
		p.Gravity = [3]float64{}
		p.InitialPosition = [3]float64{float64(i + 1), 0, 0}
		if i == 5 {
			p.Mass = 0.01
		}
		m, err := masspoint.New(p)
		if err != nil {
			t.Fatal(err)
		}
		masses = append(masses, m)
		g.Add(fmt.Sprintf("m%d", i), m)
	}
	sp := springdamper.DefaultParams()
	sp.Stiffness = [3]float64{1e4, 1e4, 1e4}
	for i := 0; i <= n; i++ {
		a, b := fmt.Sprintf("m%d", i-1), fmt.Sprintf("m%d", i)
		if i == 0 {
			a = ""
		}
		if i == n {
			b = ""
		}
		if _, err := springdamper.Connect(g, fmt.Sprintf("s%02d", i), sp, node.BodyAt(a, [3]float64{}), node.BodyAt(b, [3]float64{})); err != nil {
			t.Fatal(err)
		}
	}
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	if f := s.BoundFamilies(); f == 0 {
		t.Fatal("no connector family is bounded by its kernel: the test would not exercise it")
	}
	want := func(dt float64) []string {
		limits, err := s.StableSteps()
		if err != nil {
			t.Fatal(err)
		}
		var w []string
		for _, l := range limits {
			if dt > l.Dt {
				w = append(w, graph.StepWarning{StepLimit: l, Step: dt}.String())
			}
		}
		return w
	}
	check := func(when string, dt float64, count int) {
		t.Helper()
		ws, err := s.StepWarnings(dt)
		if err != nil {
			t.Fatalf("%s: StepWarnings(%v): %v", when, dt, err)
		}
		var got []string
		for _, w := range ws {
			got = append(got, w.String())
		}
		if d := cmp.Diff(want(dt), got); d != "" {
			t.Errorf("%s: StepWarnings(%v) against the per-node limits (-want +got):\n%s", when, dt, d)
		}
		if len(got) != count {
			t.Errorf("%s: StepWarnings(%v) gave %d warnings, want %d", when, dt, len(got), count)
		}
	}
	check("light mass 5", 0.001, 0)  // every bound above dt: the families are skipped
	check("light mass 5", 0.005, 2)  // s05 and s06, next to the light mass
	check("light mass 5", 0.015, 11) // every connector but the walls' (0.02 s)
	// (Under the race detector sync.Pool drops items on purpose, so the
	// kernel's scratch is allocated again now and then.)
	if a := numtest.AllocsPerRun(10, func() { _, _ = s.StepWarnings(0.001) }); a != 0 && !raceEnabled {
		t.Errorf("StepWarnings within every bound allocates %v times, want 0", a)
	}
	// The kernel reads the bodies' inertia at each call: a heavier mass 5
	// and a light mass 9 move the warnings to s09 and s10.
	if err := masses[5].SetParams(map[string]any{"mass": 1.0}); err != nil {
		t.Fatal(err)
	}
	if err := masses[9].SetParams(map[string]any{"mass": 0.01}); err != nil {
		t.Fatal(err)
	}
	check("light mass 9", 0.005, 2)
	if ws, _ := s.StepWarnings(0.005); len(ws) == 2 && (ws[0].Node != "s09" || ws[1].Node != "s10") {
		t.Errorf("light mass 9: warnings for %s and %s, want s09 and s10", ws[0].Node, ws[1].Node)
	}
}
