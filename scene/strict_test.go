package scene_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/nodes/constant"
	"github.com/cosimgo/cosim/nodes/masspoint"

	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
)

// Scenes are strict: each of these files ran (or ran something else than
// it says) before; now each is an error naming the place.
func TestStrictScenes(t *testing.T) {
	const ballTable = `"nodes": [{"name": "ball", "type": "ball"}, {"name": "table", "type": "table"}, {"name": "m", "type": "masspoint"}, {"name": "load", "type": "constant", "params": {"value": [0, -5, 0]}}]`
	for _, c := range []struct{ name, in, want string }{
		{"duplicate key", `{` + ballTable + `, "run": {"dt": 0.0001,
 "dt": 0.5, "end": 1}}`,
			`run.dt (line 2, column 2): duplicate key "dt": it is also at line 1, column `},
		{"duplicate nodes", `{` + ballTable + `, ` + ballTable + `, "run": {"dt": 0.1, "end": 1}}`,
			`nodes (line 1, column `},
		{"duplicate parameter", `{"nodes": [{"name": "ball", "type": "ball", "params": {"elasticity": 0.5, "elasticity": 0.9}}], "run": {"dt": 0.1, "end": 1}}`,
			`nodes[0].params.elasticity (line 1, column 75): duplicate key "elasticity": it is also at line 1, column 56`},
		{"case", `{` + ballTable + `, "run": {"DT": 0.1, "end": 1}}`,
			`run.DT (line 1, column `},
		{"case hint", `{` + ballTable + `, "run": {"DT": 0.1, "end": 1}}`,
			`unknown field "DT" (keys are case-sensitive: did you mean "dt"?)`},
		{"case of a node key", `{"nodes": [{"name": "ball", "Type": "ball"}], "run": {"dt": 0.1, "end": 1}}`,
			`nodes[0].Type (line 1, column 29): unknown field "Type" (keys are case-sensitive: did you mean "type"?)`},
		{"steps and end", `{` + ballTable + `, "run": {"dt": 0.1, "steps": 10, "end": 5}}`,
			`run: steps (10) and end (5) are both given; give one`},
		{"dt past the end", `{` + ballTable + `, "run": {"dt": 2, "end": 1}}`,
			`run.dt: 2 is larger than the run, which ends at 1`},
		{"self edge", `{` + ballTable + `, "edges": [{"from": "ball.position", "to": "ball.table_position"}], "run": {"dt": 0.1, "end": 1}}`,
			`edges[0]: ball.position -> ball.table_position wires node "ball" into its own input`},
		{"same edge twice", `{` + ballTable + `, "edges": [{"from": "load.value", "to": "m.force"}, {"from": "load.value", "to": "m.force"}], "run": {"dt": 0.1, "end": 1}}`,
			`edges[1]: load.value -> m.force is the same edge as edges[0]: into an additive input it would count twice`},
		{"connector's own edge", `{` + ballTable + `, "connectors": [{"name": "s", "type": "springdamper", "bodies": ["ground", "m"]}], "edges": [{"from": "s.m1_force", "to": "m.force"}], "run": {"dt": 0.1, "end": 1}}`,
			`edges[0]: s.m1_force -> m.force is an edge connectors[0] makes already`},
		{"connector's own edge through a scale", `{` + ballTable + `, "connectors": [{"name": "s", "type": "springdamper", "bodies": ["ground", "m"]}], "edges": [{"from": "s.m1_force", "to": "m.force", "transform": {"kind": "scale", "factor": 1}}], "run": {"dt": 0.1, "end": 1}}`,
			`edges[0]: s.m1_force -> m.force is an edge connectors[0] makes already (a connector wires itself to its bodies), through a scale transform: into an additive input it would count twice; remove one, or add "repeat": true`},
		{"plain edge and a scale-1 edge", `{` + ballTable + `, "edges": [{"from": "load.value", "to": "m.force"}, {"from": "load.value", "to": "m.force", "transform": {"kind": "scale", "factor": 1}}], "run": {"dt": 0.1, "end": 1}}`,
			`edges[1]: load.value -> m.force is the same edge as edges[0], through a scale transform`},
		{"connector to itself", `{` + ballTable + `, "connectors": [{"name": "s", "type": "springdamper", "bodies": ["m", "m"]}], "run": {"dt": 0.1, "end": 1}}`,
			`connectors[0].bodies: both markers are on node "m"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := scene.Load(strings.NewReader(c.in), nodes.Registry())
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v\nwant it to contain %q", err, c.want)
			}
		})
	}
}

// "repeat": true declares a repeated edge: the load then counts twice, as
// a load of twice the value does (the same bits: 2·f is f + f exactly),
// and the scene saves and loads back with the declaration.
func TestRepeatedEdge(t *testing.T) {
	const head = `{"nodes": [{"name": "m", "type": "masspoint"}, {"name": "load", "type": "constant", "params": {"value": [0, %s, 0]}}], `
	run := func(load, edges string) []float64 {
		t.Helper()
		in := strings.Replace(head, "%s", load, 1) + `"edges": [` + edges + `], "run": {"dt": 0.01, "steps": 50}, "record": {"fields": ["m.position"]}}`
		sc, err := scene.Load(strings.NewReader(in), nodes.Registry())
		if err != nil {
			t.Fatal(err)
		}
		res, err := sc.Simulate(context.Background(), nodes.Registry(), nil)
		if err != nil {
			t.Fatal(err)
		}
		x, err := res.Sim.Value("m.position")
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	twice := run("-5", `{"from": "load.value", "to": "m.force"}, {"from": "load.value", "to": "m.force", "repeat": true}`)
	double := run("-10", `{"from": "load.value", "to": "m.force"}`)
	if !slices.Equal(twice, double) {
		t.Errorf("repeated edge: last row %v, want %v (the doubled load)", twice, double)
	}
	g := graph.New()
	g.Add("f", must(constant.New(constant.Params{Value: [3]float64{0, 1, 0}, Units: "N"})))
	g.Add("m", must(masspoint.New(masspoint.DefaultParams())))
	g.Connect("f.value", "m.force")
	g.Connect("f.value", "m.force", graph.Repeat())
	sc, err := scene.FromGraph(g, scene.Run{Dt: 0.1, Steps: 1}, scene.Record{})
	if err != nil {
		t.Fatal(err)
	}
	if !sc.Edges[1].Repeat || sc.Edges[0].Repeat {
		t.Errorf("saved edges %+v: want the second marked repeat", sc.Edges)
	}
	if _, err := sc.Compile(nodes.Registry(), nil); err != nil {
		t.Errorf("the saved scene does not build: %v", err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// Problems a --set causes name the flag, not the scene file's place.
func TestSetErrorsNameTheFlag(t *testing.T) {
	sc := load(t, "../examples/scenes/spring-damper.json")
	for set, want := range map[string]string{
		"run.dt":     `--set run.dt: -1: the step must be finite and positive`,
		"run.steps":  `run (after --set run.steps): steps (3) and end (2) are both given`,
		"mass.mass":  `nodes[0].params (after --set mass.mass): masspoint: parameter "mass" = -1 is out of range`,
		"run.worker": `--set run.worker: unknown field "worker" (did you mean "workers"?)`,
	} {
		v := any(-1.0)
		if set == "run.steps" {
			v = 3.0
		}
		s2, err := sc.With(map[string]any{set: v})
		if err == nil {
			_, err = s2.Compile(nodes.Registry(), nil)
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--set %s: %v\nwant %q", set, err, want)
		}
	}
}
