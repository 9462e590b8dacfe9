package graph_test

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
)

// A checkpoint written before a state field was renamed names the field
// by its former name (node.Field.Formerly): it restores into the renamed
// node and continues bit for bit as the uninterrupted run, with one
// deprecation warning naming the new name; a name that was never the
// field's is refused as before.
func TestCheckpointFormerStateName(t *testing.T) {
	var logs bytes.Buffer
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	build := func() *graph.Sim {
		m := newMass(2, 1)
		m.spec = node.NewSpec(node.Spec{
			Type: "renamedmass",
			State: []node.Field{
				{Name: "x", Formerly: []string{"Pos"}, Units: "m", Description: "position", Role: node.Position, Rate: "v"},
				{Name: "v", Units: "m/s", Description: "velocity", Role: node.Velocity},
			},
			Inputs: []node.Input{{Name: "force", Units: "N", Description: "force", Combine: node.Additive, Default: []float64{0}}},
		})
		g := graph.New()
		g.Add("m", m)
		g.Add("f", newSource("N", 3))
		g.Connect("f.value", "m.force")
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	run := func(s *graph.Sim, steps int) {
		if _, err := s.Run(context.Background(), graph.Settings{Dt: 1e-2, Steps: steps}); err != nil {
			t.Fatal(err)
		}
	}
	ref := build()
	run(ref, 40)

	half := build()
	run(half, 20)
	c := half.Checkpoint()
	if c.Nodes[0].Layout[0].Name != "x" {
		t.Fatalf("layout %v, want x first", c.Nodes[0].Layout)
	}
	c.Nodes[0].Layout[0].Name = "Pos" // as written before the rename
	path := filepath.Join(t.TempDir(), "old.ckpt")
	if err := c.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	old, err := graph.ReadCheckpoint(path)
	if err != nil {
		t.Fatal(err)
	}
	s := build()
	if err := s.Restore(old); err != nil {
		t.Fatalf("a checkpoint naming the former field Pos: %v", err)
	}
	run(s, 20)
	sameBits(t, "restored from the former name", ref.State(nil), s.State(nil))
	if want := `field \"Pos\" of renamedmass was renamed \"x\"`; !strings.Contains(logs.String(), want) {
		t.Errorf("no warning %s; the log:\n%s", want, logs.String())
	}

	old.Nodes[0].Layout[0].Name = "q"
	if err := build().Restore(old); err == nil || !strings.Contains(err.Error(), "state layout") {
		t.Errorf("a checkpoint naming a field q the node never had: %v, want a state layout mismatch", err)
	}
}
