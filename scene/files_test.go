package scene_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/source"
	"github.com/cosimgo/cosim/nodes/spring"
	"github.com/cosimgo/cosim/scene"
	"github.com/google/go-cmp/cmp"
)

// lookupScene is a 2 kg mass pushed by a force table from a CSV file and
// held by a geometric spring to the ground, integrated adaptively.
const lookupScene = `{
  "nodes": [
    {"name": "m", "type": "masspoint", "params": {"mass": 2, "initial_position": [1, 0, 0]}},
    {"name": "thrust", "type": "lookup", "params": {"file": "data/thrust.csv", "column": "force", "units": "N"}}
  ],
  "connectors": [
    {"name": "s", "type": "spring", "params": {"stiffness": 0, "rest_length": 1}, "bodies": ["ground", "m"]}
  ],
  "edges": [{"from": "thrust.value", "to": "m.force", "transform": {"kind": "embed", "axis": 0, "len": 3}}],
  "run": {"mode": "monolithic", "integrator": {"method": "dormand-prince", "adaptive": true}, "dt": 0.5, "end": 4},
  "record": {"fields": ["m.position[0]", "s.length"]}
}`

func writeScene(t *testing.T, scene, csv string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	if csv != "" {
		if err := os.WriteFile(filepath.Join(dir, "data", "thrust.csv"), []byte(csv), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.Join(dir, "scene.json")
	if err := os.WriteFile(p, []byte(scene), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A CSV column, read relative to the scene file, drives the mass; the
// table's breakpoints are time events of the adaptive run, so the
// position matches the piecewise-cubic closed form to round-off.
// Reference: a = F/2 with F linear 0 → 6 N over [0, 0.9] s, 6 → 2 N over
// [0.9, 2.3] s, held at 2 N after (the default outside = "hold"); the
// spring has k = 0 (it only measures the length). Tolerance 1e-12 m.
func TestLookupCSVFromScene(t *testing.T) {
	p := writeScene(t, lookupScene, "# thrust profile\ntime, force, other\n0, 0, 9\n0.9, 6, 9\n2.3, 2, 9\n")
	reg := nodes.Registry()
	sc, err := scene.LoadFile(p, reg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sc.Simulate(context.Background(), reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t1, d := 0.9, 1.4
	v1, x1 := 1.5*t1*t1/t1, 0.5*t1*t1*t1/t1 // a = 3t/0.9
	v2 := v1 + 3*d - d*d/1.4                // a = 3 − 2s/1.4
	x2 := x1 + v1*d + 1.5*d*d - d*d*d/4.2
	rest := 4 - 2.3 // a = 1
	want := 1 + x2 + v2*rest + 0.5*rest*rest
	x, _ := res.Sim.Value("m.position[0]")
	l, _ := res.Sim.Value("s.length")
	if !numtest.Within(x[0], want, 1e-12) || !numtest.Within(l[0], want, 1e-12) {
		t.Errorf("x(4) = %v, length %v, want %v", x[0], l[0], want)
	}
	// DecodeFile + With keep the scene's directory.
	sc2, err := scene.DecodeFile(p)
	if err != nil {
		t.Fatal(err)
	}
	sc2, err = sc2.With(map[string]any{"run.end": 2.0})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sc2.Compile(reg, nil); err != nil {
		t.Errorf("after With: %v", err)
	}
}

// Bad files are errors at nodes[1].params.file naming the file, the line
// and the column.
func TestLookupCSVErrors(t *testing.T) {
	reg := nodes.Registry()
	for _, c := range []struct{ csv, msg string }{
		{"", "no such file"},
		{"time,force\n0,1\n1,2\n1,3\n", "line 4: time 1 does not increase"},
		{"time,force\n0,1\n1,NaN\n", `line 3, column "force": "NaN" is not finite`},
		{"time,force\n0,1\n1,x\n", `"x" is not a number`},
		{"time,forse\n0,1\n", `no column "force"; the columns are time, forse (did you mean "forse"?)`},
		{"time,force\n", "no data rows"},
		// One number syntax everywhere (textio.ParseNumber): no digit
		// separators, no hexadecimal.
		{"time,force\n0,1\n1,1_0\n", `line 3, column "force": "1_0" is not a number: digit separators`},
		{"time,force\n0,1\n0x10,2\n", `line 3, column "time": "0x10" is not a number: hexadecimal`},
		// A column named twice is ambiguous, not the first one silently.
		{"time,force,force\n0,1,2\n", `line 1: column "force" is named twice (columns 2 and 3)`},
		{"time,force,time\n0,1,2\n", `line 1: column "time" is named twice (columns 1 and 3)`},
	} {
		sc := lookupScene
		p := writeScene(t, sc, c.csv)
		_, err := scene.LoadFile(p, reg)
		if err == nil || !errors.Is(err, scene.ErrTableFile) || !strings.Contains(err.Error(), c.msg) || !strings.Contains(err.Error(), "nodes[1].params.file") {
			t.Errorf("csv %q: %v; want an error at nodes[1].params.file mentioning %q", c.csv, err, c.msg)
		}
	}
	// A file that never ends is cut off at the limit while it is read.
	if _, err := os.Stat("/dev/zero"); err == nil {
		p := writeScene(t, strings.Replace(lookupScene, "data/thrust.csv", "/dev/zero", 1), "")
		_, err := scene.LoadFile(p, reg)
		if err == nil || !strings.Contains(err.Error(), "the file is larger than its limit of 16 MiB") {
			t.Errorf("/dev/zero: %v", err)
		}
	}
	// A file with inline values as well is ambiguous.
	p := writeScene(t, strings.Replace(lookupScene, `"column": "force"`, `"column": "force", "times": [0, 1]`, 1), "time,force\n0,1\n")
	if _, err := scene.LoadFile(p, reg); err == nil || !strings.Contains(err.Error(), "not both") {
		t.Errorf("file and times: %v", err)
	}
}

// A graph with geometric springs and sources built in Go saves as a scene
// whose run is bit-identical to the graph's (co-simulation, 500 steps).
func TestSpringAndSourcesRoundTrip(t *testing.T) {
	a, _ := masspoint.New(masspoint.Params{Mass: 1, InitialPosition: [3]float64{0, -1, 0}, Gravity: [3]float64{0, -9.81, 0}})
	b, _ := masspoint.New(masspoint.Params{Mass: 2, InitialPosition: [3]float64{0.5, -2, 0}, Gravity: [3]float64{0, -9.81, 0}})
	push, _ := source.NewPulse(source.PulseParams{Period: 0.2, Width: 0.05, Amplitude: []float64{3, 0, 0}, Units: "N"})
	g := graph.New()
	g.Add("a", a)
	g.Add("b", b)
	g.Add("push", push)
	g.Connect("push.value", "b.force")
	p := spring.DefaultParams()
	p.Stiffness, p.Damping, p.RestLength = 300, 1, 1
	if _, err := spring.Connect(g, "top", p, node.GroundAt([3]float64{0, 0, 0}), node.Body("a")); err != nil {
		t.Fatal(err)
	}
	if _, err := spring.Connect(g, "mid", p, node.Body("a"), node.Body("b")); err != nil {
		t.Fatal(err)
	}
	sc, err := scene.FromGraph(g, scene.Run{Dt: 1e-3, Steps: 500}, scene.Record{Fields: []string{"b.position", "mid.tension"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Connectors) != 2 || len(sc.Nodes) != 3 || len(sc.Edges) != 1 {
		t.Fatalf("saved %d nodes, %d connectors, %d edges", len(sc.Nodes), len(sc.Connectors), len(sc.Edges))
	}
	var buf bytes.Buffer
	sc.Encode(&buf)
	back, err := scene.Decode(&buf)
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
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
}

// What examples/scenes/README.md says of thrust-on-spring.json: the bob
// swings out to about 1 m and back past −0.8 m, the rod's length stays in
// [0.95, 1.1] m.
func TestThrustOnSpringExample(t *testing.T) {
	reg := nodes.Registry()
	sc, err := scene.LoadFile("../examples/scenes/thrust-on-spring.json", reg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sc.Simulate(context.Background(), reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := res.History
	xi, li := slices.Index(h.Columns, "bob.position[0]"), slices.Index(h.Columns, "rod.length")
	lo, hi, lmin, lmax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, r := range h.Rows {
		lo, hi = math.Min(lo, r[xi]), math.Max(hi, r[xi])
		lmin, lmax = math.Min(lmin, r[li]), math.Max(lmax, r[li])
	}
	if hi < 0.9 || hi > 1.1 || lo > -0.8 || lmin < 0.95 || lmax > 1.1 {
		t.Errorf("x in [%v, %v], length in [%v, %v]", lo, hi, lmin, lmax)
	}
}
