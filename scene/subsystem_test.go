package scene_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
)

// springPart is a part scene: a mass on a spring-damper to the ground,
// with its position, its force input and the spring's stiffness as ports.
const springPart = `{
  "nodes": [{"name": "mass", "type": "masspoint", "params": {"mass": 2, "initial_position": [0.1, 0, 0]}}],
  "connectors": [{"name": "spring", "type": "springdamper", "params": {"stiffness": [50, 50, 50], "damping": [1, 1, 1]}, "bodies": ["ground", "mass"]}],
  "ports": {
    "inputs": [{"name": "push", "to": ["mass.force"]}],
    "outputs": [{"name": "x", "from": "mass.position"}],
    "params": [{"name": "k", "param": "spring.stiffness"}]
  }
}`

// writeFiles writes name → content into a new directory and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A subsystem from a file, one inline and one nested two deep run as the
// same model: three copies of one mass on one spring, whose states agree
// bit for bit; the parameters set through the promoted name, the inner
// path and --set reach the inner node.
func TestSubsystemScene(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"parts/spring.json": springPart,
		// A part whose only node is the spring part again, one level down.
		"parts/holder.json": `{
  "nodes": [{"name": "inner", "type": "subsystem", "scene": "spring.json"}],
  "ports": {"outputs": [{"name": "x", "from": "inner.x"}], "params": [{"name": "k", "param": "inner.k"}]}
}`,
		"main.json": `{
  "nodes": [
    {"name": "a", "type": "subsystem", "scene": "parts/spring.json", "params": {"k": [80, 80, 80]}},
    {"name": "b", "type": "subsystem", "graph": ` + springPart + `, "params": {"spring.stiffness": [80, 80, 80]}},
    {"name": "c", "type": "subsystem", "scene": "parts/holder.json"}
  ],
  "run": {"dt": 0.001, "steps": 500},
  "record": {"fields": ["a.mass.position[0]", "b.mass.position[0]", "c.inner.mass.position[0]"], "every": 100}
}`,
	})
	reg := nodes.Registry()
	sc, err := scene.LoadFile(filepath.Join(dir, "main.json"), reg)
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.CheckKey("c.inner.spring.stiffness", reg); err != nil {
		t.Errorf("CheckKey of an inner path: %v", err)
	}
	if err := sc.CheckKey("c.kk", reg); err == nil || !strings.Contains(err.Error(), `did you mean "k"`) {
		t.Errorf("CheckKey of a misspelled promoted parameter: %v", err)
	}
	sc, err = sc.With(map[string]any{"c.inner.spring.stiffness": []any{80.0, 80.0, 80.0}})
	if err != nil {
		t.Fatal(err)
	}
	g, err := sc.Build(reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a.mass", "a.spring", "b.mass", "b.spring", "c.inner.mass", "c.inner.spring"}
	if diff := cmp.Diff(want, g.Names()); diff != "" {
		t.Errorf("Build's graph is flattened with path names (-want +got):\n%s", diff)
	}
	res, err := sc.Simulate(context.Background(), reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := res.History
	if diff := cmp.Diff([]string{"a.mass.position[0]", "b.mass.position[0]", "c.inner.mass.position[0]"}, h.Columns); diff != "" {
		t.Fatalf("recorded columns (-want +got):\n%s", diff)
	}
	last := h.Rows[len(h.Rows)-1]
	if last[0] != last[1] || last[0] != last[2] {
		t.Errorf("the three copies differ: %v", last)
	}
	// The stiffness reached every copy: the reference is the same part
	// run alone with its k set in the file.
	alone := strings.Replace(springPart, `"stiffness": [50, 50, 50]`, `"stiffness": [80, 80, 80]`, 1)
	alone = strings.Replace(alone, `"ports"`, `"run": {"dt": 0.001, "steps": 500}, "record": {"fields": ["mass.position[0]"], "every": 100}, "ports"`, 1)
	ref, err := scene.Decode(strings.NewReader(alone))
	if err != nil {
		t.Fatal(err)
	}
	rres, err := ref.Simulate(context.Background(), reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := last[0], rres.History.Rows[len(rres.History.Rows)-1][0]; got != want {
		t.Errorf("a.mass.position[0] = %v, the part alone with k = 80: %v", got, want)
	}
}

// Problems inside subsystems are reported at once, each at its place:
// the parent's node, the file, and the path inside it.
func TestSubsystemSceneErrors(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"spring.json": springPart,
		"bad.json": `{
  "nodes": [{"name": "mass", "type": "masspoint", "params": {"mass": -1}}],
  "ports": {"outputs": [{"name": "x", "from": "mass.positon"}]}
}`,
		"self.json": `{"nodes": [{"name": "me", "type": "subsystem", "scene": "self.json"}], "ports": {}}`,
		"main.json": `{
  "nodes": [
    {"name": "a", "type": "subsystem", "scene": "spring.json", "params": {"kk": 1}},
    {"name": "b", "type": "subsystem", "scene": "bad.json"},
    {"name": "c", "type": "subsystem", "scene": "missing.json"},
    {"name": "d", "type": "subsystem", "scene": "self.json"},
    {"name": "e", "type": "subsystem"},
    {"name": "f", "type": "subsystem", "graph": {"nodes": [{"name": "m", "type": "masspoint"}]}},
    {"name": "g", "type": "subsystem", "scene": "spring.json"},
    {"name": "h", "type": "masspoint", "scene": "spring.json"},
    {"name": "i", "type": "masspoint"}
  ],
  "edges": [{"from": "g.y", "to": "i.force"}],
  "run": {"dt": 0.001, "steps": 5},
  "record": {"fields": ["g.x"]}
}`,
	})
	_, err := scene.LoadFile(filepath.Join(dir, "main.json"), nodes.Registry())
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	for _, want := range []string{
		`nodes[0].params.kk: no promoted parameter "kk"`,
		`nodes[1].scene(bad.json).nodes[0].params`,
		`nodes[2].scene(missing.json): open`,
		`contains itself`,
		`nodes[4]: a subsystem needs "scene"`,
		`nodes[5].graph.ports: missing`,
		`record.fields[0]: "g.x": "g" is a subsystem: record an inner field by its path, g.node.field (its parts: mass, spring)`,
		`subsystem "g" has no output port "y"`,
		`nodes[7].scene: only a node of type "subsystem" has a scene`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q; got:\n%s", want, msg)
		}
	}
}
