package scene_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/springdamper"
	"github.com/cosimgo/cosim/scene"
)

func decode(t *testing.T, s string) *scene.Scene {
	t.Helper()
	sc, err := scene.Decode(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func load(t *testing.T, path string) *scene.Scene {
	t.Helper()
	// DecodeFile: lookup nodes' CSV files are relative to the scene.
	sc, err := scene.DecodeFile(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return sc
}

// TestExamples runs every scene in examples/scenes (each capped at 20 s
// of wall time), so none can rot, and checks what examples/scenes/
// README.md says to look at in each.
func TestExamples(t *testing.T) {
	files, err := filepath.Glob("../examples/scenes/*.json")
	if err != nil || len(files) < 5 {
		t.Fatalf("examples: %v %v", files, err)
	}
	readme, err := os.ReadFile("../examples/scenes/README.md")
	if err != nil {
		t.Fatal(err)
	}
	reg := nodes.Registry()
	results := map[string]*scene.Result{}
	for _, f := range files {
		base := filepath.Base(f)
		if !bytes.Contains(readme, []byte(base)) {
			t.Errorf("examples/scenes/README.md does not mention %s", base)
		}
		if raceEnabled && base == "stiff-chain-20000.json" {
			t.Logf("%s: not run under the race detector (120 000 states)", base)
			continue
		}
		sc := load(t, f)
		limit := 20 * time.Second
		if base == "stiff-chain-20000.json" {
			limit = 2 * time.Minute // 40 001 nodes: a few seconds, more on a loaded machine
		}
		ctx, cancel := context.WithTimeout(context.Background(), limit)
		res, err := sc.Simulate(ctx, reg, nil)
		cancel()
		if err != nil {
			t.Errorf("%s: %v", base, err)
			continue
		}
		if res.History == nil || len(res.History.Times) < 2 {
			t.Errorf("%s records nothing", base)
		}
		if !numtest.Within(res.Time, sc.EndTime(), 1e-9) {
			t.Errorf("%s ended at %v, want %v", base, res.Time, sc.EndTime())
		}
		results[base] = res
	}

	// Exudyn's mini example: static displacement −5/5000 = −0.001 m,
	// reached to 1e-12 by t = 2 s (springdamper's Example prints −0.001000).
	if r := results["spring-damper.json"]; r != nil {
		d, _ := r.Sim.Value("spring.displacement")
		if !numtest.Within(d[1], (-0.001), 1e-12) || d[0] != 0 || d[2] != 0 {
			t.Errorf("spring-damper: displacement %v, want [0, -0.001, 0]", d)
		}
	}
	// the MADDENING guide "Two masses, two known modes", rho_inf = 0.5 after 12 s at dt 0.1:
	// slow mode 99.947% of its energy, fast mode 1.53e-18%.
	if r := results["two-mass-modes.json"]; r != nil {
		q1, _ := r.Sim.Value("a.position[0]")
		q2, _ := r.Sim.Value("b.position[0]")
		v1, _ := r.Sim.Value("a.velocity[0]")
		v2, _ := r.Sim.Value("b.velocity[0]")
		z1, w1 := (q1[0]+q2[0])/math.Sqrt2, (v1[0]+v2[0])/math.Sqrt2
		z2, w2 := (q1[0]-q2[0])/math.Sqrt2, (v1[0]-v2[0])/math.Sqrt2
		slow := 100 * (w1*w1 + z1*z1) / 1
		fast := 100 * (w2*w2 + 1600*z2*z2) / (1600 * 0.05 * 0.05)
		if !numtest.Within(slow, 99.947, 5e-4) || fast > 1e-15 {
			t.Errorf("two-mass modes: slow %.5f%% (published 99.947%%), fast %.3g%% (published 1.53e-18%%)", slow, fast)
		}
		if _, ok := r.Mode.(graph.Monolithic); !ok || r.Method != integrators.MethodGeneralizedAlpha || r.Steps != 120 {
			t.Errorf("two-mass modes: %s %s %d steps", r.Mode, r.Method, r.Steps)
		}
	}
	// A ball dropped from 10 m with e = 0.9 meets the table at
	// t = sqrt(2·10/9.81) and then every 2·e^k·v0/g: four contacts before
	// t = 10 (the fifth is at 10.26 s), each located as an event.
	if r := results["bouncing-ball-events.json"]; r != nil {
		v0, g, tk, n := math.Sqrt(2*10*9.81), 9.81, math.Sqrt(2*10/9.81), 0
		for e := 0.9; tk < 10; e *= 0.9 {
			n++
			if n <= len(r.Integrator.Events) && !numtest.Within(r.Integrator.Events[n-1].T, tk, 1e-6) {
				t.Errorf("bounce %d at %v, want %v", n, r.Integrator.Events[n-1].T, tk)
			}
			tk += 2 * e * v0 / g
		}
		if r.Events != n || n != 4 {
			t.Errorf("adaptive ball: %d events, want %d", r.Events, n)
		}
	}
}

// The JSON Schema on disk is what Schema generates from the registry now.
func TestSchemaUpToDate(t *testing.T) {
	want, err := scene.Schema(nodes.Registry())
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../docs/scene.schema.json")
	if err != nil {
		t.Fatalf("docs/scene.schema.json is stale: run go generate ./docs\n%v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("docs/scene.schema.json is stale: run go generate ./docs\n(-want +got):\n%s", cmp.Diff(string(want), string(got)))
	}
}

// The schema lists every node type and every parameter a scene can set,
// with its default, and the connector, integrator and coupling names.
func TestSchemaCoversRegistry(t *testing.T) {
	reg := nodes.Registry()
	b, err := scene.Schema(reg)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Defs map[string]struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	for _, name := range reg.Names() {
		spec, _ := reg.Spec(name)
		d, ok := s.Defs["node."+name]
		if !ok {
			t.Errorf("no schema for node type %s", name)
			continue
		}
		var params struct {
			Properties map[string]map[string]any `json:"properties"`
		}
		json.Unmarshal(d.Properties["params"], &params)
		for _, p := range spec.Params {
			ps, ok := params.Properties[p.Name]
			if p.Kind == node.Function {
				if ok {
					t.Errorf("%s.%s is a function but the schema lets scenes set it", name, p.Name)
				}
				continue
			}
			if !ok {
				t.Errorf("%s.%s missing from the schema", name, p.Name)
				continue
			}
			want, _ := json.Marshal(p.Default)
			got, _ := json.Marshal(ps["default"])
			if !bytes.Equal(want, got) {
				t.Errorf("%s.%s default %s, want %s", name, p.Name, got, want)
			}
		}
	}
	for _, w := range []string{`"connector.springdamper"`, `"generalized-alpha"`, `"iqn-ils"`, `"gauss-seidel"`, `"co-simulation"`} {
		if !bytes.Contains(b, []byte(w)) {
			t.Errorf("schema lacks %s", w)
		}
	}
}

// A graph with a connector on a body saves as a scene with a connectors
// entry (and without the edges Connect makes) that loads back into a
// graph whose run is bit-identical.
func TestConnectorRoundTrip(t *testing.T) {
	mp := masspoint.Params{Mass: 5, InitialPosition: [3]float64{1, 1, 0}, Gravity: [3]float64{0, -1, 0}}
	mass, _ := masspoint.New(mp)
	p := springdamper.DefaultParams()
	p.Stiffness = [3]float64{5000, 5000, 5000}
	p.Damping = [3]float64{0, 250, 0}
	m := [2]node.Attachment{node.GroundAt([3]float64{1, 1, 0}), node.At(mass, [3]float64{})}
	sd, err := springdamper.New(p, m[0], m[1])
	if err != nil {
		t.Fatal(err)
	}
	g := graph.New()
	g.Add("mass", mass)
	g.Add("spring", sd)
	g.Connect("mass.position", "spring.m1_position")
	g.Connect("mass.velocity", "spring.m1_velocity")
	g.Connect("spring.m1_force", "mass.force")

	sc, err := scene.FromGraph(g, scene.Run{Dt: 1e-3, Steps: 500}, scene.Record{Fields: []string{"mass.position"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Connectors) != 1 || len(sc.Edges) != 0 || len(sc.Nodes) != 1 {
		t.Fatalf("saved %d nodes, %d connectors, %d edges", len(sc.Nodes), len(sc.Connectors), len(sc.Edges))
	}
	if c := sc.Connectors[0]; !cmp.Equal(c.Bodies, []string{"ground", "mass"}) || !cmp.Equal(c.Local, [][]float64{{1, 1, 0}, {0, 0, 0}}) {
		t.Errorf("connector %+v", c)
	}
	var buf bytes.Buffer
	sc.Encode(&buf)
	back, err := scene.Decode(&buf)
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if diff := cmp.Diff(sc, back); diff != "" {
		t.Errorf("round trip (-saved +loaded):\n%s", diff)
	}
	res, err := back.Simulate(context.Background(), nodes.Registry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := g.Build()
	gr, err := s.Run(context.Background(), back.Settings())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(gr.History.Rows, res.History.Rows); diff != "" {
		t.Errorf("runs differ (-go +scene):\n%s", diff)
	}

	// A connector made by springdamper.Connect saves the same way.
	g2 := graph.New()
	g2.Add("mass", mass)
	if _, err := springdamper.Connect(g2, "spring", p, node.GroundAt([3]float64{1, 1, 0}), node.Body("mass")); err != nil {
		t.Fatal(err)
	}
	sc2, err := scene.FromGraph(g2, scene.Run{Dt: 1e-3, Steps: 500}, scene.Record{Fields: []string{"mass.position"}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sc.Connectors, sc2.Connectors); diff != "" || len(sc2.Edges) != 0 {
		t.Errorf("Connect graph saved differently (-New +Connect):\n%s", diff)
	}
}

// Every problem of a scene is reported with its JSON path: format errors
// by Decode, registry errors by Build, wiring errors (from graph.Build)
// at the edge or connector they come from.
func TestErrorPaths(t *testing.T) {
	const nodesPart = `"nodes": [{"name": "mass", "type": "masspoint"}, {"name": "ball", "type": "ball"}]`
	cases := []struct{ name, in, want string }{
		{"edge field", `{` + nodesPart + `, "edges": [{"from": "mass.position", "to": "ball.table_position", "transform": {"kind": "component", "index": 1}}, {"from": "mass.postion", "to": "ball.table_position"}], "run": {"dt": 1, "steps": 1}}`, `edges[1]: mass.postion -> ball.table_position: unknown field`},
		{"edge shape", `{` + nodesPart + `, "edges": [{"from": "mass.position", "to": "ball.table_position"}], "run": {"dt": 1, "steps": 1}}`, `edges[0]: mass.position -> ball.table_position: shape mismatch`},
		{"connector body", `{` + nodesPart + `, "connectors": [{"name": "s", "type": "springdamper", "bodies": ["ground", "mas"]}], "run": {"dt": 1, "steps": 1}}`, `connectors[0].bodies[1]: springdamper: connector "s": body 1: no node "mas" in the scene (did you mean "mass"?)`},
		{"connector param", `{` + nodesPart + `, "connectors": [{"name": "s", "type": "springdamper", "params": {"stifness": [1, 1, 1]}, "bodies": ["ground", "mass"]}], "run": {"dt": 1, "steps": 1}}`, `connectors[0].params: `},
		{"connector type", `{` + nodesPart + `, "connectors": [{"name": "s", "type": "ball", "bodies": ["ground", "mass"]}], "run": {"dt": 1, "steps": 1}}`, `connectors[0].type: "ball" is not a connector type`},
		{"connector bodies", `{` + nodesPart + `, "connectors": [{"name": "s", "type": "springdamper", "bodies": ["mass"], "local": [[0, 0]]}], "run": {"dt": 1, "steps": 1}}`, `connectors[0].bodies: has 1 names, want 2`},
		{"connector local", `{` + nodesPart + `, "connectors": [{"name": "mass", "type": "springdamper", "bodies": ["ground", "ball"], "local": [[0, 0, 0], [1]]}], "run": {"dt": 1, "steps": 1}}`, `connectors[0].local[1]: has 1 value, want 3`},
		{"connector name", `{` + nodesPart + `, "connectors": [{"name": "mass", "type": "springdamper", "bodies": ["ground", "ball"]}], "run": {"dt": 1, "steps": 1}}`, `connectors[0].name: "mass" is already the name of nodes[0]`},
		{"mode", `{` + nodesPart + `, "run": {"mode": "monolitic", "dt": 1, "steps": 1}}`, `run.mode: "monolitic" is not a mode; use co-simulation or monolithic (did you mean "monolithic"?)`},
		{"no method", `{` + nodesPart + `, "run": {"mode": "monolithic", "dt": 1, "steps": 1}}`, `run.integrator: missing: a monolithic run needs a method`},
		{"bad method", `{` + nodesPart + `, "run": {"mode": "monolithic", "dt": 1, "steps": 1, "integrator": {"method": "rk5"}}}`, `run.integrator.method: "rk5" is not a method (did you mean "rk4"?)`},
		{"rho wrong method", `{` + nodesPart + `, "run": {"mode": "monolithic", "dt": 1, "steps": 1, "integrator": {"method": "newmark", "rho_inf": 0.5}}}`, `run.integrator.rho_inf: is a parameter of generalized-alpha, not of "newmark"`},
		{"rho range", `{` + nodesPart + `, "run": {"mode": "monolithic", "dt": 1, "steps": 1, "integrator": {"method": "generalized-alpha", "rho_inf": 1.5}}}`, `run.integrator.rho_inf: 1.5 is outside [0, 1]`},
		{"rtol fixed", `{` + nodesPart + `, "run": {"mode": "monolithic", "dt": 1, "steps": 1, "integrator": {"method": "rk4", "rtol": 1e-6}}}`, `run.integrator.rtol: is a setting of the adaptive integrator`},
		{"adaptive method", `{` + nodesPart + `, "run": {"mode": "monolithic", "dt": 1, "steps": 1, "integrator": {"method": "rk4", "adaptive": true}}}`, `run.integrator.adaptive: rk4 has no error control`},
		{"linear solver", `{` + nodesPart + `, "run": {"mode": "monolithic", "dt": 1, "steps": 1, "integrator": {"method": "backward-euler", "linear_solver": "gmress"}}}`, `run.integrator.linear_solver: "gmress" is not valid (did you mean "gmres"?); one of auto, dense, gmres`},
		{"preconditioner", `{` + nodesPart + `, "run": {"mode": "monolithic", "dt": 1, "steps": 1, "integrator": {"method": "backward-euler", "linear_solver": "gmres", "preconditioner": "jacobi"}}}`, `run.integrator.preconditioner: "jacobi" is not valid`},
		{"krylov explicit", `{` + nodesPart + `, "run": {"mode": "monolithic", "dt": 1, "steps": 1, "integrator": {"method": "rk4", "linear_solver": "gmres"}}}`, `are for implicit methods; rk4 is explicit`},
		{"krylov tol", `{` + nodesPart + `, "run": {"mode": "monolithic", "dt": 1, "steps": 1, "integrator": {"method": "newmark", "linear_solver": "gmres", "krylov_tol": 2}}}`, `run.integrator.krylov_tol: 2 must be in [0, 1)`},
		{"dense with krylov", `{` + nodesPart + `, "run": {"mode": "monolithic", "dt": 1, "steps": 1, "integrator": {"method": "newmark", "linear_solver": "dense", "krylov_restart": 10}}}`, `configure GMRES; linear_solver is "dense"`},
		{"integrator in cosim", `{` + nodesPart + `, "run": {"dt": 1, "steps": 1, "integrator": {"method": "rk4"}}}`, `run.integrator: is for monolithic runs`},
		{"coupling scheme", `{` + nodesPart + `, "run": {"dt": 1, "steps": 1, "coupling": {"scheme": "jakobi"}}}`, `run.coupling: coupling: unknown strategy "jakobi"`},
		{"coupling monolithic", `{` + nodesPart + `, "run": {"mode": "monolithic", "dt": 1, "steps": 1, "integrator": {"method": "rk4"}, "coupling": {"scheme": "jacobi"}}}`, `run.coupling: is for co-simulation`},
		{"times fixed", `{` + nodesPart + `, "run": {"dt": 1, "steps": 1}, "record": {"times": [0.5]}}`, `record.times: dense output is for adaptive monolithic runs`},
		{"times order", `{` + nodesPart + `, "run": {"mode": "monolithic", "dt": 1, "end": 2, "integrator": {"method": "dormand-prince", "adaptive": true}}, "record": {"fields": ["mass.position"], "times": [1, 0.5]}}`, `record.times[1]: 0.5: times must ascend within [0, 2]`},
		{"coupling node", `{` + nodesPart + `, "run": {"dt": 1, "steps": 1, "coupling": {"scheme": "gauss-seidel", "order": [["mas"]]}}}`, `run.coupling: graph: gauss-seidel order`},
	}
	reg := nodes.Registry()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sc, err := scene.Decode(strings.NewReader(c.in))
			if err == nil {
				_, err = sc.Simulate(context.Background(), reg, nil)
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v\nwant it to contain %q", err, c.want)
			}
			var se *scene.Error
			if !errors.As(err, &se) {
				t.Errorf("not a *scene.Error: %T", err)
			}
		})
	}
}

// With sets node, connector and run settings, checked as a file is.
func TestWith(t *testing.T) {
	sc := load(t, "../examples/scenes/spring-damper.json")
	got, err := sc.With(map[string]any{
		"mass.mass":                  2.0,
		"spring.damping":             []any{1.0, 2.0, 3.0},
		"run.dt":                     scene.ParseValue("0.002"),
		"run.mode":                   scene.ParseValue("monolithic"),
		"run.integrator.method":      scene.ParseValue("generalized-alpha"),
		"run.integrator.rho_inf":     scene.ParseValue("0.8"),
		"record.every":               scene.ParseValue("2"),
		"mass.initial_position":      scene.ParseValue("[0,1,0]"),
		"spring.params_not_verified": true, // Build checks parameter names
	})
	if err != nil {
		t.Fatal(err)
	}
	if got.Nodes[0].Params["mass"] != 2.0 || got.Run.Dt != 0.002 || got.Run.Mode != "monolithic" ||
		*got.Run.Integrator.RhoInf != 0.8 || got.Record.Every != 2 || !cmp.Equal(got.Connectors[0].Params["damping"], []any{1.0, 2.0, 3.0}) {
		t.Errorf("With gave %+v", got)
	}
	if sc.Run.Dt != 0.001 || sc.Nodes[0].Params["mass"] != 5.0 {
		t.Errorf("With changed its receiver")
	}
	if _, err := got.Build(nodes.Registry(), nil); err == nil || !strings.Contains(err.Error(), `connectors[0].params`) {
		t.Errorf("unknown connector parameter: %v", err)
	}
	for set, want := range map[string]string{
		"mas.mass": `--set mas.mass: no node or connector "mas" in the scene (did you mean "mass"?)`,
		"run.dt":   `run.dt: -1: the step must be finite and positive`,
		"mass":     `--set mass: write node.param`,
	} {
		if _, err := sc.With(map[string]any{set: -1.0}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--set %s: %v, want %q", set, err, want)
		}
	}
}

// The scene's coupling strategy is the one the graph runs, the progress
// observer changes nothing, and a monolithic scene is RunMonolithic with
// the scene's method.
func TestSimulateMatchesGraph(t *testing.T) {
	reg := nodes.Registry()
	chain := load(t, "../examples/scenes/mass-spring-chain.json")
	chain.Run.End = 1
	var last float64
	obs := graph.ObserverFunc(func(v *graph.View) error { last = v.Time; return nil })
	res, err := chain.Simulate(context.Background(), reg, &scene.Options{Observer: obs, ObserveEvery: 10})
	if err != nil {
		t.Fatal(err)
	}
	if last != res.Time || !numtest.Within(last, 1, 1e-12) || res.Method != "gauss-seidel" {
		t.Errorf("observed up to t = %v, run ended at %v; method %s", last, res.Time, res.Method)
	}
	sim, err := chain.Compile(reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	set := chain.Settings()
	set.Mode = graph.CoSimulation{Coupling: &coupling.Strategy{Scheme: coupling.GaussSeidel}}
	gr, err := sim.Run(context.Background(), set)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(gr.History, res.History); diff != "" {
		t.Errorf("scene run differs from the graph's gauss-seidel run:\n%s", diff)
	}

	modes := load(t, "../examples/scenes/two-mass-modes.json")
	res, err = modes.Simulate(context.Background(), reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	sim, _ = modes.Compile(reg, nil)
	gr, err = sim.RunMonolithic(context.Background(), integrators.GeneralizedAlpha{RhoInf: 0.5}, nil, modes.Settings())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(gr.History, res.History); diff != "" {
		t.Errorf("scene run differs from RunMonolithic(GeneralizedAlpha(0.5)):\n%s", diff)
	}
}
