package scene_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/nodes/ball"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/scene"
)

// wantAll checks that err contains every string of want and is a
// *scene.Error.
func wantAll(t *testing.T, err error, want ...string) {
	t.Helper()
	for _, w := range want {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("err = %v\nwant it to contain %q", err, w)
		}
	}
	var se *scene.Error
	if err != nil && !errors.As(err, &se) {
		t.Errorf("not a *scene.Error: %T", err)
	}
}

// Unknown keys and wrong JSON types are reported with their full JSON
// path, array indices included, and their line and column; null and
// out-of-range parameter values are errors, not an empty map or a string.
func TestDecodeJSONPaths(t *testing.T) {
	cases := []struct {
		name, in string
		want     []string
	}{
		{"unknown key", `{"nodes": [{"name": "m", "type": "masspoint", "parms": {}}], "run": {"dt": 1, "steps": 1}}`,
			[]string{`nodes[0].parms (line 1, column 47): unknown field "parms" (did you mean "params"?)`}},
		{"unknown top key", `{"nodes": [], "runn": {}}`, []string{`runn (line 1, column 15): unknown field "runn" (did you mean "run"?)`}},
		{"wrong type in array", `{"nodes": [{"name": "a", "type": "ball"}, {"name": 2, "type": "ball"}], "run": {"dt": 1, "steps": 1}}`,
			[]string{`nodes[1].name (line 1, column 52): got JSON number 2, want a string`}},
		{"wrong type in edge", "{\"nodes\": [{\"name\": \"a\", \"type\": \"ball\"}],\n\"edges\": [{\"from\": \"a.x\", \"to\": \"a.y\"}, {\"from\": \"a.x\", \"to\": \"a.y\"},\n  {\"from\": \"a.x\", \"to\": \"a.y\", \"transform\": {\"kind\": \"scale\", \"factor\": \"2\"}}], \"run\": {\"dt\": 1, \"steps\": 1}}",
			[]string{`edges[2].transform.factor (line 3, column 73): got JSON string "2", want a number`}},
		{"every problem", `{"nodes": [{"name": 1, "type": "ball", "parms": {}}], "run": {"dt": "1", "steps": 1.5}}`,
			[]string{`nodes[0].name (line 1, column 21)`, `nodes[0].parms`, `run.dt (line 1, column 69): got JSON string "1", want a number`, `run.steps (line 1, column 83): got JSON number 1.5, want an integer`}},
		{"null parameter", `{"nodes": [{"name": "m", "type": "masspoint", "params": {"mass": null}}], "run": {"dt": 1, "steps": 1}}`,
			[]string{`nodes[0].params.mass (line 1, column 66): null is not a number`}},
		{"null in a vector", `{"nodes": [{"name": "m", "type": "masspoint", "params": {"gravity": [0, null, 0]}}], "run": {"dt": 1, "steps": 1}}`,
			[]string{`nodes[0].params.gravity[1] (line 1, column 73): null is not a number`}},
		{"huge parameter", `{"nodes": [{"name": "m", "type": "masspoint", "params": {"mass": 1e999}}], "run": {"dt": 1, "steps": 1}}`,
			[]string{`nodes[0].params.mass (line 1, column 66): 1e999 is out of float64 range`}},
		{"huge connector parameter", `{"nodes": [{"name": "m", "type": "masspoint"}], "connectors": [{"name": "s", "type": "springdamper", "params": {"stiffness": [1, -1e999, 1]}, "bodies": ["ground", "m"]}], "run": {"dt": 1, "steps": 1}}`,
			[]string{`connectors[0].params.stiffness[1]`, `-1e999 is out of float64 range`}},
		{"huge setting", `{"nodes": [{"name": "m", "type": "masspoint"}], "run": {"dt": 1e999, "steps": 1}}`,
			[]string{`run.dt (line 1, column 63): 1e999 is out of float64 range`}},
		{"object parameter", `{"nodes": [{"name": "m", "type": "masspoint", "params": {"mass": {"x": 1}}}], "run": {"dt": 1, "steps": 1}}`,
			[]string{`nodes[0].params.mass.x`, `not objects`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := scene.Decode(strings.NewReader(c.in))
			wantAll(t, err, c.want...)
			if err != nil && strings.Contains(err.Error(), "map[") {
				t.Errorf("err = %v: mentions a Go map", err)
			}
		})
	}
}

// One file with a bad run setting, a parameter out of range, a bad edge,
// a bad connector body and a bad recorded field reports all of them at once from Load, Build,
// Compile and Simulate.
func TestEveryProblemAtOnce(t *testing.T) {
	const in = `{
  "nodes": [
    {"name": "mass", "type": "masspoint", "params": {"mass": -1}},
    {"name": "ball", "type": "ball"},
    {"name": "table", "type": "table"}
  ],
  "connectors": [
    {"name": "s", "type": "springdamper", "bodies": ["ground", "mass"]},
    {"name": "s2", "type": "springdamper", "bodies": ["ground", "bal"]}
  ],
  "edges": [
    {"from": "mass.position", "to": "ball.table_position", "transform": {"kind": "component", "index": 1}},
    {"from": "s.force", "to": "ball.table_position", "transform": {"kind": "component", "index": 1}},
    {"from": "table.postion", "to": "ball.table_position"}
  ],
  "run": {"dt": 0.001, "steps": 10, "workers": -2},
  "record": {"fields": ["ball.nope", "mass.position"]}
}`
	want := []string{
		`run.workers: -2 is negative`,
		`nodes[0].params: masspoint: parameter "mass" = -1 is out of range`,
		`edges[2]: table.postion -> ball.table_position: unknown field`,
		`connectors[1].bodies[1]: springdamper: connector "s2": body 1: no node "bal" in the scene (did you mean "ball"?)`,
		`record.fields[0]: "ball.nope": node "ball" (ball) has no state field or output "nope"`,
	}
	reg := nodes.Registry()
	_, err := scene.Load(strings.NewReader(in), reg)
	wantAll(t, err, want...)
	// The edges and the connector attached to the failed node mass are
	// left out: no consequence of mass's problem is reported.
	if err != nil && (strings.Contains(err.Error(), "edges[0]") || strings.Contains(err.Error(), "edges[1]") || strings.Contains(err.Error(), "connectors[0]")) {
		t.Errorf("a consequence reported: %v", err)
	}
	// Decode reports the format problems; the others need the registry.
	_, err = scene.Decode(strings.NewReader(in))
	wantAll(t, err, want[0])

	var sc scene.Scene
	if err := json.Unmarshal([]byte(in), &sc); err != nil {
		t.Fatal(err)
	}
	_, err = sc.Build(reg, nil)
	wantAll(t, err, want[0], want[1], want[3], want[4])
	_, err = sc.Compile(reg, nil)
	wantAll(t, err, want...)
	res, err := sc.Simulate(context.Background(), reg, nil)
	wantAll(t, err, want...)
	if res != nil {
		t.Errorf("Simulate returned a result with the errors")
	}
}

// A scene with many problems reports the first scene.MaxErrors.
func TestErrorCap(t *testing.T) {
	var ns []string
	for i := range scene.MaxErrors + 10 {
		ns = append(ns, fmt.Sprintf(`{"name": "b%d", "type": "ball", "params": {"elasticity": 2}}`, i))
	}
	in := `{"nodes": [` + strings.Join(ns, ",") + `], "run": {"dt": 1, "steps": 1}}`
	_, err := scene.Load(strings.NewReader(in), nodes.Registry())
	wantAll(t, err, fmt.Sprintf("nodes[%d].params", scene.MaxErrors-1), "scene: 10 more problems not shown")
	if err != nil && strings.Contains(err.Error(), fmt.Sprintf("nodes[%d]", scene.MaxErrors)) {
		t.Errorf("more than %d problems reported", scene.MaxErrors)
	}
}

// Recorded fields are checked when the scene is built, at their path, and
// a run with a bad one does not start.
func TestRecordFields(t *testing.T) {
	const base = `{"nodes": [{"name": "a", "type": "ball"}, {"name": "t", "type": "table"}], "edges": [{"from": "t.position", "to": "a.table_position"}], "run": {"dt": 0.001, "steps": 10}, "record": {"fields": %s}}`
	reg := nodes.Registry()
	for fields, want := range map[string]string{
		`["a.position", "a.nope"]`:      `record.fields[1]: "a.nope": node "a" (ball) has no state field or output "nope"`,
		`["a.postion"]`:                 `record.fields[0]: "a.postion": node "a" (ball) has no state field or output "postion" (did you mean "position"?)`,
		`["b.position"]`:                `record.fields[0]: "b.position": no node "b" in the scene`,
		`["a.position[1]"]`:             `record.fields[0]: "a.position[1]": component 1 of a scalar field`,
		`["a.table_position"]`:          `record.fields[0]: "a.table_position": "table_position" is an input of node "a" (ball)`,
		`["position"]`:                  `record.fields[0]: "position" is not of the form node.field`,
		`["a.position[x]"]`:             `record.fields[0]: "a.position[x]": the component must be a non-negative integer`,
		`["t.position", "a.position["]`: `record.fields[1]`,
	} {
		in := fmt.Sprintf(base, fields)
		sc, err := scene.Decode(strings.NewReader(in))
		if err == nil {
			if _, err = sc.Build(reg, nil); err == nil {
				t.Errorf("%s: Build accepted it", fields)
			}
			var res *scene.Result
			res, err = sc.Simulate(context.Background(), reg, nil)
			if res != nil {
				t.Errorf("%s: Simulate ran", fields)
			}
		}
		wantAll(t, err, want)
	}
}

// Transforms are checked against their kind: a scale needs a factor, and
// keys of other kinds are errors even when zero.
func TestTransformErrors(t *testing.T) {
	const base = `{"nodes": [{"name": "m", "type": "masspoint"}, {"name": "b", "type": "ball"}, {"name": "t", "type": "table"}], "edges": [{"from": "t.position", "to": "b.table_position", "transform": %s}], "run": {"dt": 1, "steps": 1}}`
	for tr, want := range map[string]string{
		`{"kind": "scale"}`:                              `edges[0].transform.factor: missing: a scale transform needs a non-zero factor`,
		`{"kind": "scale", "factor": 0}`:                 `edges[0].transform.factor: missing`,
		`{"kind": "scale", "factor": 2, "index": 1}`:     `edges[0].transform.index (line 1, column 215): is not a setting of the scale transform, which takes factor, from, to`,
		`{"kind": "scale", "factor": 2, "axis": 0}`:      `edges[0].transform.axis (line 1, column 215): is not a setting of the scale transform`,
		`{"kind": "component", "factor": 2}`:             `edges[0].transform.factor (line 1, column 206): is not a setting of the component transform, which takes index`,
		`{"kind": "component", "index": -1}`:             `edges[0].transform.index: -1 is negative`,
		`{"kind": "embed", "axis": 1}`:                   `edges[0].transform.len: missing or less than 1`,
		`{"kind": "embed", "axis": 3, "len": 3}`:         `edges[0].transform.axis: 3 is outside a vector of 3 components`,
		`{"kind": "embed", "len": 3, "from": "m"}`:       `edges[0].transform.from (line 1, column 212): is not a setting of the embed transform, which takes axis, len`,
		`{"factor": 2, "kind": "embed", "len": 3}`:       `edges[0].transform.factor (line 1, column 185): is not a setting of the embed transform`,
		`{"kind": "shift"}`:                              `edges[0].transform.kind: "shift" is not a transform kind`,
		`{"kind": "scale", "factor": 2, "len": "three"}`: `edges[0].transform.len (line 1, column 222): got JSON string "three", want an integer`,
	} {
		_, err := scene.Decode(strings.NewReader(fmt.Sprintf(base, tr)))
		wantAll(t, err, want)
	}
	// A scene built in Go is checked the same way (without positions).
	sc := decode(t, fmt.Sprintf(base, `{"kind": "scale", "factor": 1}`))
	sc.Edges[0].Transform = &scene.Transform{Kind: "scale"}
	_, err := sc.Compile(nodes.Registry(), nil)
	wantAll(t, err, `edges[0].transform.factor: missing`)
}

// component and embed transforms save and load back, and the loaded scene
// runs bit-identically to the graph built in Go.
func TestTransformRoundTrip(t *testing.T) {
	reg, err := node.NewRegistry(append(nodes.Types(), node.Type{Name: "scalar", New: func(p map[string]any) (node.Node, error) {
		s := &scalarSource{}
		return s, s.SetParams(p)
	}})...)
	if err != nil {
		t.Fatal(err)
	}
	mass, _ := masspoint.New(masspoint.Params{Mass: 2, InitialPosition: [3]float64{0, 1, 0}})
	bp := ball.DefaultParams()
	bp.InitialPosition = 3
	b, _ := ball.New(bp)
	g := graph.New()
	g.Add("mass", mass)
	g.Add("load", &scalarSource{v: -3})
	g.Add("ball", b)
	g.Connect("load.value", "mass.force", graph.Via(graph.Embed{Axis: 1, Len: 3}))
	g.Connect("mass.position", "ball.table_position", graph.Via(graph.Component{Index: 1}))
	rec := scene.Record{Fields: []string{"mass.position", "ball.position"}}
	sc, err := scene.FromGraph(g, scene.Run{Dt: 1e-3, Steps: 800}, rec)
	if err != nil {
		t.Fatal(err)
	}
	want := []scene.Edge{
		{From: "load.value", To: "mass.force", Transform: &scene.Transform{Kind: "embed", Axis: 1, Len: 3}},
		{From: "mass.position", To: "ball.table_position", Transform: &scene.Transform{Kind: "component", Index: 1}},
	}
	if diff := cmp.Diff(want, sc.Edges); diff != "" {
		t.Errorf("saved edges (-want +got):\n%s", diff)
	}
	var buf bytes.Buffer
	if err := sc.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := scene.Load(bytes.NewReader(buf.Bytes()), reg)
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if diff := cmp.Diff(sc, back); diff != "" {
		t.Errorf("round trip (-saved +loaded):\n%s", diff)
	}
	g2, err := back.Build(reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range g2.Edges() {
		if w := g.Edges()[i]; e.From != w.From || e.To != w.To || e.Transform != w.Transform {
			t.Errorf("loaded edge %d: %+v, want %+v", i, e, w)
		}
	}
	res, err := back.Simulate(context.Background(), reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	gr, err := s.Run(context.Background(), back.Settings())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(gr.History, res.History); diff != "" {
		t.Errorf("runs differ (-go +scene):\n%s", diff)
	}
	if v, _ := res.Sim.Value("mass.velocity"); v[1] >= 0 {
		t.Errorf("the embedded load did not act: velocity %v", v)
	}
}

// scalarSource is a test node type: a scalar force, for embed.
type scalarSource struct{ v float64 }

var scalarSpec = node.NewSpec(node.Spec{
	Type:    "scalar",
	Params:  []node.Param{{Name: "value", Kind: node.Real, Default: 0.0, Units: "N"}},
	Outputs: []node.Field{{Name: "value", Units: "N"}},
})

func (*scalarSource) Spec() *node.Spec                                                 { return scalarSpec }
func (*scalarSource) InitialState([]float64)                                           {}
func (*scalarSource) Update(float64, float64, []float64, node.Inputs, []float64) error { return nil }
func (s *scalarSource) Outputs(_ float64, _ []float64, _ node.Inputs, dst []float64) error {
	dst[0] = s.v
	return nil
}
func (s *scalarSource) Params() node.Values { return node.Values{"value": s.v} }
func (s *scalarSource) SetParams(p map[string]any) error {
	if v, ok := p["value"].(float64); ok {
		s.v = v
	}
	return nil
}

// With reports its problems at their paths, without the positions of the
// JSON it generates.
func TestWithPaths(t *testing.T) {
	sc := load(t, "../examples/scenes/spring-damper.json")
	_, err := sc.With(map[string]any{"run.dt": "fast", "mass.mass": 2.0})
	wantAll(t, err, `run.dt: got JSON string "fast", want a number`)
	if err != nil && strings.Contains(err.Error(), "line") {
		t.Errorf("err = %v: a position in generated JSON", err)
	}
}

// A scene with more than scene.MaxNodes nodes is refused before any node
// is built (docs/errors.md: memory stays bounded), at the "nodes" path.
func TestMaxNodes(t *testing.T) {
	sc := &scene.Scene{Run: scene.Run{Dt: 0.01, Steps: 1}}
	sc.Nodes = make([]scene.Node, scene.MaxNodes+1)
	for i := range sc.Nodes {
		sc.Nodes[i] = scene.Node{Name: fmt.Sprintf("t%d", i), Type: "table"}
	}
	_, err := sc.Build(nodes.Registry(), nil)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("nodes: %d nodes is more than the limit of %d", scene.MaxNodes+1, scene.MaxNodes)) {
		t.Fatalf("err = %.300v", err)
	}
}
