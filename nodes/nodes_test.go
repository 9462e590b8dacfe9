package nodes_test

import (
	"errors"
	"math"
	"strings"
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

// Every parameter of every node type rejects NaN, ±Inf, a wrong type and
// a wrong shape, zero, negative and out-of-range values where its range
// excludes them, and a misspelled name, with a *node.ParamError naming
// the node type, the parameter, the value and the valid range, never a
// panic or a silent clamp. (Each node package tests its own cross-field
// rules; this holds every type to the floor.)
func TestBadParamsEveryType(t *testing.T) {
	reg := nodes.Registry()
	for _, typ := range reg.Names() {
		s, _ := reg.Spec(typ)
		for _, p := range s.Params {
			var bad []any
			switch p.Kind {
			case node.Real:
				bad = []any{math.NaN(), math.Inf(1), math.Inf(-1), "1", []float64{1, 2}}
			case node.Vector:
				n := p.Shape.Len()
				nan := make([]float64, n)
				nan[n-1] = math.NaN()
				long := n + 1
				if p.MaxLen > 0 {
					long = p.MaxLen + 1
				}
				bad = []any{nan, make([]float64, long), "x", true}
			case node.Bool:
				bad = []any{1.0, "yes"}
			case node.Text:
				bad = []any{1.0, []float64{1}}
			case node.Integer:
				bad = []any{2.5, math.NaN(), "1", []float64{1}}
			default:
				continue
			}
			// Zero, negative and out-of-range values where the declared
			// range excludes them.
			if p.Kind == node.Real || p.Kind == node.Integer {
				for _, v := range []float64{0, -1, p.Range.Min - 1, p.Range.Max + 1} {
					if p.Range.Bounded && !p.Range.Contains(v) && !math.IsInf(v, 0) {
						bad = append(bad, v)
					}
				}
			}
			for _, v := range bad {
				n, err := reg.New(typ, map[string]any{p.Name: v})
				var pe *node.ParamError
				if !errors.As(err, &pe) || pe.Node != typ || pe.Param != p.Name {
					t.Errorf("%s.%s = %v: got node %v, err %v; want a ParamError naming %s and %s", typ, p.Name, v, n != nil, err, typ, p.Name)
					continue
				}
				// The message names the value and the valid range.
				msg := err.Error()
				if !strings.Contains(msg, node.FormatValue(v)) || !strings.Contains(msg, "; valid: "+p.Valid()) {
					t.Errorf("%s.%s = %v: %q does not show the value %s and the range %q", typ, p.Name, v, msg, node.FormatValue(v), p.Valid())
				}
			}
		}
		if len(s.Params) > 0 {
			name := s.Params[0].Name + "x"
			_, err := reg.New(typ, map[string]any{name: 1.0})
			if err == nil || !strings.Contains(err.Error(), "did you mean") {
				t.Errorf("%s: unknown parameter %q: %v", typ, name, err)
			}
		}
	}
}
