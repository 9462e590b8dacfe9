package scene_test

import (
	"strings"
	"testing"

	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
)

// Every line of a report names its place: a node's second parameter
// problem had no "nodes[i].params:" of its own, and a misspelt connector
// body said `no node "mas" in the graph (there are none)` when the node it
// meant had failed to build — the scene's nodes are what it is named
// against.
func TestReportNamesEveryPlace(t *testing.T) {
	text := `{"nodes": [{"name": "mass", "type": "masspoint", "params": {"mass": -1}},
  {"name": "c", "type": "masspoint", "params": {"mass": -2, "gravity": "x"}}],
 "connectors": [{"name": "s", "type": "springdamper", "bodies": ["ground", "mas"]}],
 "run": {"dt": 0.01, "end": 1}}`
	_, err := scene.Load(strings.NewReader(text), nodes.Registry())
	if err == nil {
		t.Fatal("no error")
	}
	lines := strings.Split(err.Error(), "\n")
	want := []string{
		`nodes[0].params: masspoint: parameter "mass" = -1 is out of range`,
		`nodes[1].params: masspoint: parameter "mass" = -2 is out of range`,
		`nodes[1].params: masspoint: parameter "gravity" = "x" is a string`,
		`connectors[0].bodies[1]: springdamper: connector "s": body 1: no node "mas" in the scene (did you mean "mass"?)`,
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%v", len(lines), len(want), err)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d: %q, want it to start %q", i+1, lines[i], w)
		}
	}
	// --set names its flag when every node failed too.
	sc, err := scene.Decode(strings.NewReader(`{"nodes": [{"name": "mass", "type": "masspoint"}], "run": {"dt": 0.01, "end": 1}}`))
	if err != nil {
		t.Fatal(err)
	}
	sc, err = sc.With(map[string]any{"mass.mass": -3.0})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sc.Compile(nodes.Registry(), nil); err == nil || !strings.HasPrefix(err.Error(), "nodes[0].params (after --set mass.mass): ") {
		t.Errorf("%v", err)
	}
}
