package scene_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/nodes/ball"
	"github.com/cosimgo/cosim/nodes/table"
	"github.com/cosimgo/cosim/scene"
)

const bounce = `{
  "name": "bounce",
  "nodes": [
    {"name": "ball", "type": "ball", "params": {"initial_position": 1, "elasticity": 0.5}},
    {"name": "table", "type": "table"}
  ],
  "edges": [{"from": "table.position", "to": "ball.table_position"}],
  "run": {"dt": 0.001, "end": 2},
  "record": {"fields": ["ball.position"], "every": 100}
}`

func TestDecodeAndRun(t *testing.T) {
	sc, err := scene.Decode(strings.NewReader(bounce))
	if err != nil {
		t.Fatal(err)
	}
	g, err := sc.Build(nodes.Registry(), map[string]any{"ball.elasticity": 0.25})
	if err != nil {
		t.Fatal(err)
	}
	n, _ := g.Node("ball")
	if e := n.(*ball.Node).Params().Float("elasticity"); e != 0.25 {
		t.Errorf("override not applied: elasticity %v", e)
	}
	sim, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(context.Background(), sc.Settings())
	if err != nil {
		t.Fatal(err)
	}
	if res.Steps != 2000 || len(res.History.Times) != 21 {
		t.Errorf("steps %d rows %d", res.Steps, len(res.History.Times))
	}
}

// Errors point to the place in the file.
func TestDecodeErrors(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"syntax", "{\n  \"nodes\": [,]\n}", "line 2, column"},
		{"truncated", bounce[:60], "ends before the scene does"},
		{"unknown field", `{"nodes": [], "runn": {}}`, `unknown field "runn"`},
		{"wrong type", `{"nodes": [{"name": 3}]}`, "nodes[0].name (line 1, column 21): got JSON number 3, want a string"},
		{"trailing", `{"nodes":[{"name":"a","type":"ball"}],"run":{"dt":1,"steps":1}} {}`, "unexpected data after"},
		{"no nodes", `{"run": {"dt": 1, "steps": 1}}`, "nodes: a scene needs at least one node"},
		{"duplicate", `{"nodes":[{"name":"a","type":"ball"},{"name":"a","type":"ball"}],"run":{"dt":1,"steps":1}}`, `nodes[1].name: "a" is already the name of nodes[0]`},
		{"bad dt", `{"nodes":[{"name":"a","type":"ball"}],"run":{"dt":-1,"steps":1}}`, "run.dt"},
		{"no length", `{"nodes":[{"name":"a","type":"ball"}],"run":{"dt":1}}`, "give steps or a positive end time"},
		{"transform kind", `{"nodes":[{"name":"a","type":"ball"}],"edges":[{"from":"a.position","to":"a.table_position","transform":{"kind":"exec"}}],"run":{"dt":1,"steps":1}}`, `edges[0].transform.kind: "exec" is not a transform kind`},
		{"missing edge end", `{"nodes":[{"name":"a","type":"ball"}],"edges":[{"from":"a.position"}],"run":{"dt":1,"steps":1}}`, "edges[0].to: missing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := scene.Decode(strings.NewReader(c.in))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestOversized(t *testing.T) {
	big := bytes.Repeat([]byte(" "), scene.MaxBytes+10)
	_, err := scene.Decode(bytes.NewReader(big))
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("err = %v", err)
	}
}

// Build reports registry problems with their JSON path.
func TestBuildErrors(t *testing.T) {
	in := `{"nodes":[{"name":"a","type":"bal"},{"name":"b","type":"ball","params":{"elasticity":2,"gravty":1}}],"run":{"dt":1,"steps":1}}`
	sc, err := scene.Decode(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	_, err = sc.Build(nodes.Registry(), map[string]any{"c.x": 1.0})
	for _, want := range []string{
		`nodes[0].type: node: unknown node type "bal" (did you mean "ball", "lag"?)`,
		`nodes[1].params: ball: parameter "elasticity" = 2 is out of range; valid: [0, 1]`,
		`parameter "gravty" is not a parameter of this node (did you mean "gravity"?)`,
		`--set c.x: no node "c" in the scene`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v\nwant it to contain %q", err, want)
		}
	}
	var se *scene.Error
	if !errors.As(err, &se) {
		t.Errorf("not a *scene.Error: %T", err)
	}
}

// A graph built in Go saves as a scene that loads back into the same
// graph: same nodes, parameters and edges, and bit-identical runs.
func TestRoundTrip(t *testing.T) {
	p := ball.DefaultParams()
	p.InitialPosition, p.Elasticity = 3, 0.7
	b, _ := ball.New(p)
	tb, _ := table.New(table.Params{Position: 0.5})
	g := graph.New()
	g.Add("ball", b)
	g.Add("table", tb)
	g.Connect("table.position", "ball.table_position", graph.Via(graph.Scale{Factor: 1}))
	sc, err := scene.FromGraph(g, scene.Run{Dt: 1e-3, Steps: 3000}, scene.Record{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := sc.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := scene.Decode(&buf)
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if diff := cmp.Diff(sc, back); diff != "" {
		t.Errorf("scene round trip (-saved +loaded):\n%s", diff)
	}
	g2, err := back.Build(nodes.Registry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	run := func(g *graph.Graph) float64 {
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Run(context.Background(), back.Settings()); err != nil {
			t.Fatal(err)
		}
		v, _ := s.Value("ball.position")
		return v[0]
	}
	if a, b := run(g), run(g2); math.Float64bits(a) != math.Float64bits(b) {
		t.Errorf("runs differ: %v vs %v", a, b)
	}
	g.Connect("ball.position", "ball.table_position", graph.Via(graph.TransformFunc{Label: "x", F: func(d, s []float64) {}}))
	if _, err := scene.FromGraph(g, scene.Run{Dt: 1, Steps: 1}, scene.Record{}); err == nil || !strings.Contains(err.Error(), "cannot be saved") {
		t.Errorf("user transform saved: %v", err)
	}
}

// FuzzDecode: no input makes Decode panic, and whatever decodes passes its
// own checks and builds or fails with an error.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(bounce))
	f.Add([]byte(`{"nodes":[{"name":"a","type":"ball","params":{"elasticity":[1,2]}}],"run":{"dt":1e-300,"end":1e300}}`))
	f.Add([]byte(`{"nodes":[{"name":"a","type":"table","params":null}],"edges":[{"from":"a.position","to":"a.x","transform":{"kind":"embed","axis":-1,"len":-5}}],"run":{"dt":1,"steps":1}}`))
	f.Add([]byte(`{"nodes":[{"name":"m","type":"masspoint"}],"connectors":[{"name":"s","type":"springdamper","bodies":["ground","m"],"local":[[1,1,0],[0,0,0]]}],"run":{"mode":"monolithic","dt":0.1,"steps":2,"integrator":{"method":"generalized-alpha","rho_inf":0.5}}}`))
	f.Add([]byte(`{"nodes":[{"name":"m","type":"masspoint"}],"connectors":[{"name":"s","type":"springdamper","bodies":["m"],"local":[[1]]}],"run":{"dt":0.1,"steps":2,"coupling":{"scheme":"iterative","groups":[{"name":"g","nodes":["m","s"]}]}},"record":{"times":[2,1]}}`))
	reg := nodes.Registry()
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := scene.Decode(bytes.NewReader(data))
		if err != nil {
			return
		}
		g, err := sc.Build(reg, nil)
		if err != nil {
			return
		}
		_, _ = g.Build()
		_, _ = sc.Compile(reg, nil)
	})
}
