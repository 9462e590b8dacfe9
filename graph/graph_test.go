package graph_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
)

func buildErr(t *testing.T, g *graph.Graph) *graph.BuildError {
	t.Helper()
	_, err := g.Build()
	var be *graph.BuildError
	if !errors.As(err, &be) {
		t.Fatalf("Build error = %v, want a *BuildError", err)
	}
	return be
}

// Every wiring error kind has its own test and message.
func TestBuildErrors(t *testing.T) {
	cases := []struct {
		name  string
		setup func(g *graph.Graph)
		is    error
		want  []string // substrings of the message
	}{
		{"unknown node", func(g *graph.Graph) {
			g.Add("mass", newMass(1, 0))
			g.Add("src", newSource("N", 1))
			g.Connect("src.value", "mas.force")
		}, graph.ErrUnknownNode, []string{`no node "mas"`, `did you mean "mass"`}},
		{"unknown source field", func(g *graph.Graph) {
			g.Add("mass", newMass(1, 0))
			g.Add("src", newSource("N", 1))
			g.Connect("src.valeu", "mass.force")
		}, graph.ErrUnknownField, []string{`no state field or output "valeu"`, `did you mean "value"`}},
		{"unknown input", func(g *graph.Graph) {
			g.Add("mass", newMass(1, 0))
			g.Add("src", newSource("N", 1))
			g.Connect("src.value", "mass.forc")
		}, graph.ErrUnknownField, []string{`no input "forc"`, `did you mean "force"`}},
		{"input used as source", func(g *graph.Graph) {
			g.Add("mass", newMass(1, 0))
			g.Add("m2", newMass(1, 0))
			g.Connect("mass.force", "m2.force")
		}, graph.ErrUnknownField, []string{"is an input"}},
		{"shape mismatch", func(g *graph.Graph) {
			g.Add("mass", newMass(1, 0))
			g.Add("src", newSource("N", 1, 2, 3))
			g.Connect("src.value", "mass.force")
		}, graph.ErrShape, []string{"(3,) value", `input "force" is scalar`}},
		{"transform shape mismatch", func(g *graph.Graph) {
			g.Add("mass", newMass(1, 0))
			g.Add("src", newSource("N", 1, 2, 3))
			g.Connect("src.value", "mass.force", graph.Via(graph.Component{Index: 3}))
		}, graph.ErrShape, []string{"component 3 of a (3,) value does not exist"}},
		{"units differ", func(g *graph.Graph) {
			g.Add("mass", newMass(1, 0))
			g.Add("src", newSource("kN", 1))
			g.Connect("src.value", "mass.force")
		}, graph.ErrUnits, []string{`source is in "kN"`, `input "force" is in "N"`, "Scale{"}},
		{"conversion declared wrongly", func(g *graph.Graph) {
			g.Add("mass", newMass(1, 0))
			g.Add("src", newSource("kN", 1))
			g.Connect("src.value", "mass.force", graph.Via(graph.Scale{Factor: 1e3, From: "mN", To: "N"}))
		}, graph.ErrUnits, []string{`converts "mN" to "N"`}},
		{"two replacing edges", func(g *graph.Graph) {
			g.Add("s", newSpring(1))
			g.Add("m1", newMass(1, 0))
			g.Add("m2", newMass(1, 0))
			g.Connect("m1.x", "s.a")
			g.Connect("m2.x", "s.a")
			g.Connect("m2.x", "s.b")
		}, graph.ErrReplacing, []string{"s.a", "2 edges (from m1.x, m2.x)"}},
		{"mixed combine rules", func(g *graph.Graph) {
			g.Add("mass", newMass(1, 0))
			g.Add("f1", newSource("N", 1))
			g.Add("f2", newSource("N", 2))
			g.Connect("f1.value", "mass.force", graph.CombineAs(node.Additive))
			g.Connect("f2.value", "mass.force", graph.CombineAs(node.Replacing))
		}, graph.ErrMixedCombine, []string{"mass.force", "declared additive and others replacing"}},
		{"declared combine rule contradicts input", func(g *graph.Graph) {
			g.Add("mass", newMass(1, 0))
			g.Add("f1", newSource("N", 1))
			g.Connect("f1.value", "mass.force", graph.CombineAs(node.Replacing))
		}, graph.ErrMixedCombine, []string{"the input is additive"}},
		{"declared combine rule is neither additive nor replacing", func(g *graph.Graph) {
			g.Add("mass", newMass(1, 0))
			g.Add("f1", newSource("N", 1))
			g.Add("f2", newSource("N", 2))
			g.Connect("f1.value", "mass.force", graph.CombineAs(node.Combine(2)))
			g.Connect("f2.value", "mass.force", graph.CombineAs(node.Combine(2)))
		}, graph.ErrMixedCombine, []string{"mass.force", "declared Combine(2), which is neither additive nor replacing"}},
		{"required input unconnected", func(g *graph.Graph) {
			g.Add("s", newSpring(1))
			g.Add("m1", newMass(1, 0))
			g.Connect("m1.x", "s.a")
		}, graph.ErrUnconnected, []string{"s.b", "no default"}},
		{"same edge twice", func(g *graph.Graph) {
			g.Add("mass", newMass(1, 0))
			g.Add("f", newSource("N", 1))
			g.Connect("f.value", "mass.force")
			g.Connect("f.value", "mass.force")
		}, graph.ErrDuplicateEdge, []string{"f.value -> mass.force", "a second time", "edge 1 repeats edge 0", "graph.Repeat()"}},
		{"same edge again through a scale", func(g *graph.Graph) {
			g.Add("mass", newMass(1, 0))
			g.Add("f", newSource("N", 1))
			g.Connect("f.value", "mass.force")
			g.Connect("f.value", "mass.force", graph.Via(graph.Scale{Factor: 1}))
		}, graph.ErrDuplicateEdge, []string{"through scale"}},
		{"same edge twice through scales", func(g *graph.Graph) {
			g.Add("mass", newMass(1, 0))
			g.Add("f", newSource("N", 1))
			g.Connect("f.value", "mass.force", graph.Via(graph.Scale{Factor: 1}))
			g.Connect("f.value", "mass.force", graph.Via(graph.Scale{Factor: 2}))
		}, graph.ErrDuplicateEdge, []string{"both through transforms"}},
		{"same component twice", func(g *graph.Graph) {
			g.Add("mass", newMass(1, 0))
			g.Add("f", newSource("N", 1, 2, 3))
			g.Connect("f.value", "mass.force", graph.Via(graph.Component{Index: 2}))
			g.Connect("f.value", "mass.force", graph.Via(graph.Component{Index: 2}))
		}, graph.ErrDuplicateEdge, []string{"f.value -> mass.force"}},
		{"duplicate name", func(g *graph.Graph) {
			g.Add("m", newMass(1, 0))
			g.Add("m", newMass(1, 0))
		}, graph.ErrDuplicateName, []string{`node "m"`}},
		{"bad name", func(g *graph.Graph) {
			g.Add("a.b", newMass(1, 0))
		}, graph.ErrBadName, []string{`"a.b"`}},
		{"algebraic loop", func(g *graph.Graph) {
			// Two springs whose forces feed each other's positions: no
			// evaluation order exists, and the graph asks Build to refuse
			// loops rather than solve them.
			g.SetLoopSettings(graph.LoopSettings{Refuse: true})
			g.Add("s1", newSpring(1))
			g.Add("s2", newSpring(1))
			g.Add("m", newMass(1, 0))
			g.Connect("s1.fa", "s2.a", graph.Via(graph.Scale{Factor: 1, From: "N", To: "m"}))
			g.Connect("s2.fa", "s1.a", graph.Via(graph.Scale{Factor: 1, From: "N", To: "m"}))
			g.Connect("m.x", "s1.b")
			g.Connect("m.x", "s2.b")
		}, graph.ErrAlgebraicLoop, []string{"algebraic loop", "s1, s2"}},
		{"self loop", func(g *graph.Graph) {
			g.SetLoopSettings(graph.LoopSettings{Refuse: true})
			g.Add("s1", newSpring(1))
			g.Add("m", newMass(1, 0))
			g.Connect("s1.fa", "s1.a", graph.Via(graph.Scale{Factor: 1, From: "N", To: "m"}))
			g.Connect("m.x", "s1.b")
		}, graph.ErrSelfEdge, []string{`s1.fa -> s1.a: edge into its own node: it wires node "s1" into its own input`}},
		{"self edge from a state", func(g *graph.Graph) {
			g.Add("m", newMass(1, 0))
			g.Connect("m.x", "m.force", graph.Via(graph.Scale{Factor: -1, From: "m", To: "N"}))
		}, graph.ErrSelfEdge, []string{`m.x -> m.force`, "own input"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := graph.New()
			c.setup(g)
			be := buildErr(t, g)
			if !errors.Is(be, c.is) {
				t.Fatalf("error %v is not %v", be, c.is)
			}
			for _, w := range c.want {
				if !strings.Contains(be.Error(), w) {
					t.Errorf("message %q lacks %q", be.Error(), w)
				}
			}
		})
	}
}

// Edges that take different parts of one source (components, axes) are
// not repeats, and a repeat declared with graph.Repeat counts twice: the
// mass driven by f twice accelerates at 2·f/m (semi-implicit Euler after
// one step of dt: v = dt·2·f/m exactly).
func TestRepeatDeclared(t *testing.T) {
	g := graph.New()
	g.Add("mass", newMass(1, 0))
	g.Add("f", newSource("N", 3, 5))
	g.Connect("f.value", "mass.force", graph.Via(graph.Component{Index: 0}))
	g.Connect("f.value", "mass.force", graph.Via(graph.Component{Index: 1}))
	g.Connect("f.value", "mass.force", graph.Via(graph.Component{Index: 1}), graph.Repeat())
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Step(0.5); err != nil {
		t.Fatal(err)
	}
	v, _ := s.Value("mass.v")
	if want := 0.5 * (3 + 5 + 5); v[0] != want {
		t.Errorf("v = %v, want %v (forces 3 + 5 + 5 summed)", v[0], want)
	}
	if !g.Edges()[2].Repeated() || g.Edges()[1].Repeated() {
		t.Error("Edge.Repeated does not report the Repeat option")
	}
}

// Build reports every problem at once, in a fixed order.
func TestBuildReportsAll(t *testing.T) {
	g := graph.New()
	g.Add("m", newMass(1, 0))
	g.Add("s", newSpring(1))
	g.Connect("x.x", "m.force")
	g.Connect("m.x", "s.q")
	be := buildErr(t, g)
	if len(be.Problems) != 4 {
		t.Fatalf("got %d problems, want 4 (unknown node, unknown input, unconnected s.a and s.b): %v", len(be.Problems), be)
	}
}

// A state-field edge breaks feedthrough: connectors reading positions and
// masses reading forces form no algebraic loop.
func TestChainBuilds(t *testing.T) {
	if _, err := chain(5).Build(); err != nil {
		t.Fatal(err)
	}
}

// Semi-implicit Euler on a mass driven by a constant force, wired through
// the graph, matches the closed form of the discrete scheme:
// v_n = n·dt·a, x_n = x0 + a·dt²·n(n+1)/2 (exact to round-off).
func TestConstantForceClosedForm(t *testing.T) {
	g := graph.New()
	g.Add("m", newMass(2, 1))
	g.Add("f", newSource("N", 3))
	g.Add("f2", newSource("kN", 0.001))
	g.Connect("f.value", "m.force")
	g.Connect("f2.value", "m.force", graph.Via(graph.Scale{Factor: 1000, From: "kN", To: "N"}))
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	const dt, n = 0.01, 250
	res, err := s.Run(context.Background(), graph.Settings{Dt: dt, Steps: n, Record: []string{"m.x"}, RecordEvery: 10})
	if err != nil {
		t.Fatal(err)
	}
	a := (3 + 1) / 2.0
	x, _ := s.Value("m.x")
	want := 1 + a*dt*dt*n*(n+1)/2
	if !numtest.Within(x[0], want, 1e-12*want) {
		t.Errorf("x = %.17g, want %.17g", x[0], want)
	}
	if got := s.Time(); got != dt*n {
		t.Errorf("Time = %v, want t0 + n·dt = %v", got, dt*n)
	}
	if res.Steps != n || res.NodeUpdates != n || len(res.History.Times) != n/10+1 {
		t.Errorf("result %+v, history rows %d", res, len(res.History.Times))
	}
	var buf bytes.Buffer
	if err := res.History.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if lines[0] != "t,m.x" || lines[1] != "0,1" || len(lines) != n/10+2 {
		t.Errorf("CSV starts %q, %q; %d lines", lines[0], lines[1], len(lines))
	}
}

// End time: Run to End takes round((End - t)/dt) steps; time stays t0+n·dt.
func TestRunToEnd(t *testing.T) {
	s, err := chain(3).Build()
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(context.Background(), graph.Settings{Dt: 0.1, End: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Steps != 10 || s.Time() != 10*0.1 {
		t.Errorf("steps %d time %v", res.Steps, s.Time())
	}
	res, err = s.Run(context.Background(), graph.Settings{Dt: 0.1, End: 2})
	if err != nil || res.Steps != 10 || s.Time() != 20*0.1 {
		t.Errorf("second run: steps %d time %v err %v", res.Steps, s.Time(), err)
	}
}

func runChain(t *testing.T, n, workers, steps int) []float64 {
	t.Helper()
	s, err := chain(n).Build()
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Workers: workers, Grain: 16}, Dt: 1e-3, Steps: steps})
	if err != nil {
		t.Fatal(err)
	}
	if workers > 1 && res.Workers != workers {
		t.Fatalf("ran with %d workers, want %d", res.Workers, workers)
	}
	return s.State(nil)
}

// The same graph gives bit-identical results for 1, 2 and 8 workers.
func TestDeterministicAcrossWorkers(t *testing.T) {
	ref := runChain(t, 500, 1, 200)
	for _, w := range []int{2, 8} {
		got := runChain(t, 500, w, 200)
		for i := range ref {
			if math.Float64bits(got[i]) != math.Float64bits(ref[i]) {
				t.Fatalf("workers=%d: state[%d] = %v, want %v bit for bit", w, i, got[i], ref[i])
			}
		}
	}
}

// A NaN appearing mid-run stops the run with an error naming node, field,
// step and time; the state before the failing step is kept.
func TestNaNStopsRun(t *testing.T) {
	for _, w := range []int{1, 2} {
		g := chain(40)
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		n, _ := s.Node("m7")
		n.(*mass).failAt = 0.05
		res, err := s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Workers: w, Grain: 4}, Dt: 0.01, Steps: 100})
		var se *node.StateError
		if !errors.As(err, &se) || !errors.Is(err, node.ErrNonFinite) {
			t.Fatalf("err = %v, want a non-finite StateError", err)
		}
		if se.Node != "m7" || se.Field != "v" || se.Step != 5 || !numtest.Within(se.Time, 0.05, 1e-15) {
			t.Errorf("error %+v, want node m7 field v step 5 t 0.05", se)
		}
		if res.Steps != 5 || s.StepCount() != 5 {
			t.Errorf("took %d steps, step count %d, want 5", res.Steps, s.StepCount())
		}
		want := "node m7.v: step 5 at t=0.05: value is not finite"
		if err.Error() != want {
			t.Errorf("message %q, want %q", err, want)
		}
		for i, v := range s.State(nil) {
			if math.IsNaN(v) {
				t.Fatalf("state[%d] is NaN: the last good state was not kept", i)
			}
		}
	}
}

// A node's error and a panic in node or transform code stop the run with
// an error naming the node; the process survives.
func TestErrorsAndPanics(t *testing.T) {
	g := chain(3)
	s, _ := g.Build()
	n, _ := s.Node("m2")
	n.(*mass).errAt = 0.02
	_, err := s.Run(context.Background(), graph.Settings{Dt: 0.01, Steps: 10})
	if err == nil || !strings.Contains(err.Error(), "node m2: step 2") || !strings.Contains(err.Error(), "mass refuses") {
		t.Errorf("err = %v", err)
	}

	n.(*mass).errAt = 0
	n.(*mass).panics = true
	_, err = s.Run(context.Background(), graph.Settings{Dt: 0.01, Steps: 10})
	if err == nil || !strings.Contains(err.Error(), "node m2") || !strings.Contains(err.Error(), "panic: mass exploded") {
		t.Errorf("err = %v", err)
	}

	g = graph.New()
	g.Add("m", newMass(1, 0))
	g.Add("f", newSource("N", 1))
	g.Connect("f.value", "m.force", graph.Via(graph.TransformFunc{Label: "boom", F: func(dst, src []float64) { panic("bad transform") }}))
	s, err = g.Build()
	if err != nil {
		t.Fatal(err)
	}
	err = s.Step(0.1)
	if err == nil || !strings.Contains(err.Error(), "node m") || !strings.Contains(err.Error(), "bad transform") {
		t.Errorf("err = %v", err)
	}
}

// Cancellation stops within one step and keeps the state reached.
func TestCancel(t *testing.T) {
	s, _ := chain(3).Build()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := s.Run(ctx, graph.Settings{Dt: 0.01, Steps: 10})
	if !errors.Is(err, context.Canceled) || res.Steps != 0 {
		t.Errorf("res %+v err %v", res, err)
	}
}

// Outputs and components can be read and set by name.
func TestValues(t *testing.T) {
	s, _ := chain(2).Build()
	if err := s.SetValue("m1.x", 1.5); err != nil {
		t.Fatal(err)
	}
	f, err := s.Value("s0.fa")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]float64{1000 * 1.5}, f); diff != "" {
		t.Errorf("spring force (-want +got):\n%s", diff)
	}
	if _, err := s.Value("m1.q"); err == nil || !strings.Contains(err.Error(), "m1.q") {
		t.Errorf("err = %v", err)
	}
	if err := s.SetValue("s0.fa", 1); err == nil {
		t.Error("setting an output succeeded")
	}
	if err := s.SetValue("m1.x", math.NaN()); err == nil {
		t.Error("setting NaN succeeded")
	}
}

// Stepping does not allocate.
func TestStepAllocs(t *testing.T) {
	s, _ := chain(50).Build()
	if a := numtest.AllocsPerRun(100, func() { s.Step(1e-3) }); a != 0 {
		t.Errorf("Step allocates %v times", a)
	}
}

// A parallel Run allocates a bounded amount, however many steps it takes.
func TestRunAllocsBounded(t *testing.T) {
	s, _ := chain(100).Build()
	set := graph.Settings{Mode: graph.CoSimulation{Workers: 2, Grain: 8}, Dt: 1e-4, Steps: 2000}
	a := numtest.AllocsPerRun(3, func() { s.Run(context.Background(), set) })
	if a > 40 {
		t.Errorf("Run of %d steps allocates %v times: something allocates per step", set.Steps, a)
	}
}

// A Scale's factor is never left to its zero value: Build refuses a
// factor of 0 (the Scale{From, To} Build used to suggest zeroed the
// force) or a non-finite one, and its units error suggests a transform
// that works as written.
func TestScaleFactor(t *testing.T) {
	for _, c := range []struct {
		name  string
		tr    graph.Transform
		is    error
		wants []string
	}{
		{"zero factor with units", graph.Scale{From: "kN", To: "N"}, graph.ErrTransform,
			[]string{"Factor 0, which would zero the value; a unit conversion needs the factor too", `graph.Scale{Factor: 1000, From: "kN", To: "N"}`}},
		{"zero factor", graph.Scale{}, graph.ErrTransform, []string{"Factor 0"}},
		{"NaN factor", graph.Scale{Factor: math.NaN(), From: "kN", To: "N"}, graph.ErrTransform, []string{"Factor NaN, which is not finite"}},
		{"infinite factor", graph.Scale{Factor: math.Inf(-1)}, graph.ErrTransform, []string{"Factor -Inf"}},
		{"func without F", graph.TransformFunc{Label: "f"}, graph.ErrTransform, []string{`TransformFunc "f" has no function F`}},
		{"units suggestion", nil, graph.ErrUnits, []string{`graph.Scale{Factor: 1000, From: "kN", To: "N"}`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := graph.New()
			g.Add("mass", newMass(1, 0))
			g.Add("src", newSource("kN", 1))
			var opts []graph.Option
			if c.tr != nil {
				opts = append(opts, graph.Via(c.tr))
			}
			g.Connect("src.value", "mass.force", opts...)
			be := buildErr(t, g)
			if !errors.Is(be, c.is) {
				t.Fatalf("error %v is not %v", be, c.is)
			}
			for _, w := range c.wants {
				if !strings.Contains(be.Error(), w) {
					t.Errorf("message %q lacks %q", be.Error(), w)
				}
			}
		})
	}
	// The suggestion for a dimensionless source, used as written, carries
	// the value: x(1) of a unit mass under a unit force, semi-implicit
	// Euler with dt = 0.5 (two steps: v = 0.5, 1; x = 0.25, 0.75).
	g := graph.New()
	g.Add("mass", newMass(1, 0))
	g.Add("src", newSource("1", 1))
	g.Connect("src.value", "mass.force")
	be := buildErr(t, g)
	const want = `graph.Scale{Factor: 1, From: "1", To: "N"} if the source's values are already "N"`
	if !strings.Contains(be.Error(), want) {
		t.Fatalf("message %q lacks %q", be.Error(), want)
	}
	g = graph.New()
	g.Add("mass", newMass(1, 0))
	g.Add("src", newSource("1", 1))
	g.Connect("src.value", "mass.force", graph.Via(graph.Scale{Factor: 1, From: "1", To: "N"}))
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := s.Step(0.5); err != nil {
			t.Fatal(err)
		}
	}
	if x, _ := s.Value("mass.x"); x[0] != 0.75 {
		t.Errorf("x(1) = %v, want 0.75", x[0])
	}
	for _, c := range []struct {
		from, to string
		want     float64
	}{{"mm", "m", 1e-3}, {"kN", "N", 1e3}, {"MPa", "Pa", 1e6}, {"m/s", "km/s", 1e-3}, {"N", "N", 1}} {
		if f, ok := graph.PrefixFactor(c.from, c.to); !ok || f != c.want {
			t.Errorf("PrefixFactor(%q, %q) = %v, %v; want %v", c.from, c.to, f, ok, c.want)
		}
	}
	for _, c := range [][2]string{{"m", "s"}, {"N", "1"}, {"N", "kg"}} {
		if f, ok := graph.PrefixFactor(c[0], c[1]); ok {
			t.Errorf("PrefixFactor(%q, %q) = %v, want no factor", c[0], c[1], f)
		}
	}
}

// A repeat declared inside a subsystem survives flattening: the same
// wiring as TestRepeatDeclared, with the mass and the source inside a
// subsystem, builds and counts the repeated force twice (v = dt·(3+5+5)/m
// after one semi-implicit Euler step, exactly). Without the option kept,
// Build would refuse the repeat as a duplicate edge.
func TestRepeatDeclaredInsideSubsystem(t *testing.T) {
	inner := graph.New()
	inner.Add("mass", newMass(1, 0))
	inner.Add("f", newSource("N", 3, 5))
	inner.Connect("f.value", "mass.force", graph.Via(graph.Component{Index: 0}))
	inner.Connect("f.value", "mass.force", graph.Via(graph.Component{Index: 1}))
	inner.Connect("f.value", "mass.force", graph.Via(graph.Component{Index: 1}), graph.Repeat())
	g := graph.New()
	g.AddSubsystem("sub", graph.NewSubsystem(inner))
	flat, err := g.Flatten()
	if err != nil {
		t.Fatal(err)
	}
	if e := flat.Edges(); len(e) != 3 || !e[2].Repeated() || e[1].Repeated() {
		t.Fatalf("flattened edges lost the Repeat option: %+v", e)
	}
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Step(0.5); err != nil {
		t.Fatal(err)
	}
	v, _ := s.Value("sub.mass.v")
	if want := 0.5 * (3 + 5 + 5); v[0] != want {
		t.Errorf("v = %v, want %v (forces 3 + 5 + 5 summed)", v[0], want)
	}
}
