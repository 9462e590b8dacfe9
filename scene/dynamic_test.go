package scene_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
)

// fileNode is a node of a dynamic type with a file parameter, as an
// imported FMU is: it records the path it was given and its closes.
type fileNode struct {
	node.Stateless
	closes *int
}

var fileSpec = node.NewSpec(node.Spec{Type: "filenode", Outputs: []node.Field{{Name: "value", Units: "1", Description: "zero"}}})

func (f fileNode) Spec() *node.Spec { return fileSpec }
func (f fileNode) Outputs(_ float64, _ []float64, _ node.Inputs, dst []float64) error {
	dst[0] = 0
	return nil
}
func (f fileNode) Close() error { *f.closes++; return nil }

func fileRegistry(t *testing.T, paths *[]string, closes *int) *node.Registry {
	t.Helper()
	r, err := node.NewRegistry(append(nodes.Types(), node.Type{Name: "filenode", Dynamic: true, Paths: []string{"path"},
		New: func(p map[string]any) (node.Node, error) {
			s, _ := p["path"].(string)
			*paths = append(*paths, s)
			return fileNode{closes: closes}, nil
		}})...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestDynamicTypePathsAndRelease: a registry type's file parameters
// (node.Type.Paths) are resolved against the scene file's directory, an
// absolute path is kept; nodes holding resources (io.Closer) are closed
// when the scene does not compile, when its run cannot start, and after
// LoadFile's check; a run that starts leaves them to Result.Sim.Close.
func TestDynamicTypePathsAndRelease(t *testing.T) {
	var paths []string
	closes := 0
	reg := fileRegistry(t, &paths, &closes)
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	abs := filepath.Join(t.TempDir(), "abs.bin")
	p := write("good.json", `{"nodes": [{"name": "f", "type": "filenode", "params": {"path": "data/model.bin"}},
		{"name": "g", "type": "filenode", "params": {"path": "`+filepath.ToSlash(abs)+`"}}], "run": {"dt": 0.1, "steps": 2}}`)
	sc, err := scene.LoadFile(p, reg)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 2 || paths[0] != filepath.Join(dir, "data", "model.bin") || paths[1] != abs {
		t.Errorf("paths given to New: %v", paths)
	}
	if closes != 2 {
		t.Errorf("LoadFile compiled the scene and closed %d of its 2 nodes", closes)
	}
	res, err := sc.Simulate(context.Background(), reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if closes != 2 {
		t.Errorf("a run that started closed its nodes (%d closes)", closes)
	}
	res.Sim.Close()
	if closes != 4 {
		t.Errorf("Result.Sim.Close: %d closes, want 4", closes)
	}

	// A scene that does not compile: the built node is released.
	bad := write("bad.json", `{"nodes": [{"name": "f", "type": "filenode", "params": {"path": "m.bin"}}],
		"edges": [{"from": "f.value", "to": "nowhere.input"}], "run": {"dt": 0.1, "steps": 2}}`)
	sc, err = scene.DecodeFile(bad)
	if err != nil {
		t.Fatal(err)
	}
	closes = 0
	if _, err := sc.Compile(reg, nil); err == nil {
		t.Fatal("a wiring error compiled")
	}
	if closes != 1 {
		t.Errorf("a scene that does not compile closed %d of its nodes", closes)
	}
	if _, err := sc.Build(reg, map[string]any{"nowhere.x": 1.0}); err == nil {
		t.Fatal("a bad override built")
	}
	if closes != 2 {
		t.Errorf("a scene that does not build closed %d nodes, want 2 in all", closes)
	}

	// A run that cannot start (a checkpoint of another graph).
	sc, err = scene.DecodeFile(p)
	if err != nil {
		t.Fatal(err)
	}
	closes = 0
	other, _ := scene.Decode(strings.NewReader(`{"nodes": [{"name": "m", "type": "masspoint"}], "run": {"dt": 0.1, "steps": 2}}`))
	osim, err := other.Compile(nodes.Registry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = sc.Simulate(context.Background(), reg, &scene.Options{Resume: osim.Checkpoint()})
	var se *scene.Error
	if !errors.As(err, &se) || se.Path != "checkpoint" {
		t.Errorf("resume from another graph: %v", err)
	}
	if closes != 2 {
		t.Errorf("a run that could not start closed %d of its 2 nodes", closes)
	}
}
