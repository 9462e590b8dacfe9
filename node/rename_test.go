package node_test

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/node"
)

// A field's former names (Field.Formerly) resolve to it through
// Spec.Renamed; current names and unknown names do not. WarnRenamed logs
// once per type and former name, naming the node, the old and the new
// name.
func TestRenamedFields(t *testing.T) {
	s := node.NewSpec(node.Spec{
		Type:    "renamed-test",
		State:   []node.Field{{Name: "position", Formerly: []string{"Position", "pos"}}},
		Outputs: []node.Field{{Name: "force", Formerly: []string{"Force"}}},
	})
	for old, want := range map[string]string{"Position": "position", "pos": "position", "Force": "force"} {
		if got, ok := s.Renamed(old); !ok || got != want {
			t.Errorf("Renamed(%q) = %q, %v; want %q, true", old, got, ok, want)
		}
	}
	for _, name := range []string{"position", "force", "speed", ""} {
		if got, ok := s.Renamed(name); ok {
			t.Errorf("Renamed(%q) = %q, true; want false", name, got)
		}
	}
	var logs bytes.Buffer
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	s.WarnRenamed("a", "Force")
	s.WarnRenamed("b", "Force")
	s.WarnRenamed("a", "force") // a current name: nothing to say
	out := logs.String()
	if strings.Count(out, "level=WARN") != 1 || !strings.Contains(out, `a: field \"Force\" of renamed-test was renamed \"force\"`) {
		t.Errorf("the warnings:\n%s\nwant one, naming node a, Force and force", out)
	}
}

// A former name that is a field's current name, or another field's
// former name, is a programmer error in the node: NewSpec panics.
func TestRenamedFieldsConflict(t *testing.T) {
	for name, s := range map[string]node.Spec{
		"current":   {Type: "x", State: []node.Field{{Name: "a"}, {Name: "b", Formerly: []string{"a"}}}},
		"twice":     {Type: "x", Outputs: []node.Field{{Name: "a", Formerly: []string{"c"}}, {Name: "b", Formerly: []string{"c"}}}},
		"state-out": {Type: "x", State: []node.Field{{Name: "a"}}, Outputs: []node.Field{{Name: "b", Formerly: []string{"a"}}}},
		// The conflicting name is the first output (index 0).
		"out-state": {Type: "x", State: []node.Field{{Name: "b", Formerly: []string{"a"}}}, Outputs: []node.Field{{Name: "a"}}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: NewSpec accepted it", name)
				}
			}()
			node.NewSpec(s)
		}()
	}
}

// TestVelocityFieldFirst: a position field's rate may be any velocity
// field of the state, the first one included: a spec listing the
// velocity before the position is consistent and builds.
func TestVelocityFieldFirst(t *testing.T) {
	s := node.NewSpec(node.Spec{Type: "x", State: []node.Field{
		{Name: "v", Role: node.Velocity, Shape: node.Vec(2)},
		{Name: "x", Role: node.Position, Rate: "v", Shape: node.Vec(2)},
	}})
	if s.StateLayout.Size() != 4 || s.StateLayout.Offset(1) != 2 {
		t.Errorf("state layout of %d values, x at %d; want 4, x at 2", s.StateLayout.Size(), s.StateLayout.Offset(1))
	}
}
