package node_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cosimgo/cosim/node"
)

// hidden is a stub node with the HiddenState capability.
type hidden struct{ stub }

func (hidden) SaveHidden() ([]byte, error)     { return nil, nil }
func (hidden) RestoreHidden(data []byte) error { return nil }
func (hidden) AllowRestep() error              { return nil }

// A dynamic type (an imported FMU's, whose spec comes from its file) is
// built by name but has no default node: NewRegistry neither builds one
// nor asks its Spec, Names leaves it out (DynamicNames lists it), Spec
// says it has none, and Paths names its file parameters. A node that
// keeps hidden state lists the capability.
func TestDynamicTypes(t *testing.T) {
	built := 0
	dyn := node.Type{Name: "file", Dynamic: true, Paths: []string{"path"}, New: func(p map[string]any) (node.Node, error) {
		built++
		return hidden{stub{spec: node.NewSpec(node.Spec{Type: "file"})}}, nil
	}}
	plain := node.Type{Name: "plain", New: func(map[string]any) (node.Node, error) {
		return stub{spec: node.NewSpec(node.Spec{Type: "plain"})}, nil
	}}
	other := node.Type{Name: "archive", Dynamic: true, New: dyn.New}
	r, err := node.NewRegistry(dyn, plain, other)
	if err != nil {
		t.Fatal(err)
	}
	if built != 0 {
		t.Errorf("NewRegistry built %d nodes of the dynamic type", built)
	}
	if d := cmp.Diff([]string{"plain"}, r.Names()); d != "" {
		t.Errorf("Names (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"archive", "file"}, r.DynamicNames()); d != "" {
		t.Errorf("DynamicNames (-want +got):\n%s", d)
	}
	if _, err := r.Spec("file"); err == nil || !strings.Contains(err.Error(), `type "file" has no default spec`) {
		t.Errorf("Spec of a dynamic type: %v", err)
	}
	if _, err := r.Spec("fil"); err == nil || !strings.Contains(err.Error(), "unknown node type") {
		t.Errorf("Spec of an unknown type: %v", err)
	}
	if d := cmp.Diff([]string{"path"}, r.Paths("file")); d != "" {
		t.Errorf("Paths (-want +got):\n%s", d)
	}
	if p := r.Paths("plain"); len(p) != 0 {
		t.Errorf("Paths of a type without file parameters: %v", p)
	}
	n, err := r.New("file", map[string]any{"path": "x.fmu"})
	if err != nil || built != 1 {
		t.Fatalf("New: %v (built %d)", err, built)
	}
	if got := node.Capabilities(n); !cmp.Equal(got, []string{"outputs", "hidden-state"}) {
		t.Errorf("Capabilities = %v", got)
	}
	bad := dyn
	bad.Spec = func() *node.Spec { return nil }
	if _, err := node.NewRegistry(bad); err == nil {
		t.Error("a dynamic type with a default spec was accepted")
	}
}
