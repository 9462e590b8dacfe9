package nodes_test

import (
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes"
)

// Every type builds with its defaults, type names and algorithm IDs are
// unique (node.NewRegistry checks both), and every spec is described
// completely: units and descriptions on every field.
func TestRegistry(t *testing.T) {
	r, err := node.NewRegistry(nodes.Types()...)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range r.Names() {
		s, _ := r.Spec(name)
		if s.Meta.AlgorithmID == "" || s.Meta.Version == "" || s.Meta.Summary == "" {
			t.Errorf("%s: metadata lacks algorithm ID, version or summary", name)
		}
		check := func(kind string, f node.Field) {
			if f.Description == "" || f.Units == "" {
				t.Errorf("%s: %s %q lacks units (\"1\" when dimensionless) or a description", name, kind, f.Name)
			}
		}
		for _, f := range s.State {
			check("state field", f)
		}
		for _, f := range s.Outputs {
			check("output", f)
		}
		for _, p := range s.Params {
			if p.Description == "" {
				t.Errorf("%s: parameter %q has no description", name, p.Name)
			}
		}
		for _, in := range s.Inputs {
			if in.Description == "" || in.Units == "" {
				t.Errorf("%s: input %q has no description", name, in.Name)
			}
		}
	}
}
