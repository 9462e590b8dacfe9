package table_test

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/table"
)

func outputs(t *testing.T, n *table.Node) float64 {
	t.Helper()
	dst := []float64{math.NaN()}
	if err := n.Outputs(0, nil, n.Spec().DefaultInputs(), dst); err != nil {
		t.Fatal(err)
	}
	return dst[0]
}

// TestOutputIsParameter: the output is exactly the parameter, from New,
// FromMap (JSON integers accepted) and SetParams, and Update/InitialState
// do nothing.
func TestOutputIsParameter(t *testing.T) {
	for _, p := range []float64{0, 0.25, -3, 1e300, -math.SmallestNonzeroFloat64} {
		n, err := table.New(table.Params{Position: p})
		if err != nil {
			t.Fatal(err)
		}
		if got := outputs(t, n); got != p {
			t.Errorf("New(%v): output %v", p, got)
		}
	}
	nn, err := table.FromMap(map[string]any{"position": 2})
	if err != nil {
		t.Fatal(err)
	}
	n := nn.(*table.Node)
	if got := outputs(t, n); got != 2 {
		t.Errorf("FromMap(position: 2): output %v", got)
	}
	if err := n.SetParams(map[string]any{"position": -0.5}); err != nil {
		t.Fatal(err)
	}
	if got := outputs(t, n); got != -0.5 {
		t.Errorf("after SetParams(-0.5): output %v", got)
	}
	if err := n.Update(0, 0.1, nil, n.Spec().DefaultInputs(), nil); err != nil {
		t.Errorf("Update = %v, want nil", err)
	}
	n.InitialState(nil)
}

// TestDefaults: FromMap(nil) and New(DefaultParams()) give a table at 0.
func TestDefaults(t *testing.T) {
	nn, err := table.FromMap(nil)
	if err != nil {
		t.Fatal(err)
	}
	n, err := table.New(table.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	want := node.Values{"position": 0.0, "show": true, "draw_size": -1.0, "color": []float64{-1, -1, -1, -1}}
	if !cmp.Equal(nn.(*table.Node).Params(), want) || !cmp.Equal(n.Params(), want) {
		t.Errorf("Params = %v, %v; want %v", nn.(*table.Node).Params(), n.Params(), want)
	}
	if table.DefaultParams() != (table.Params{}) {
		t.Error("the zero Params should be the defaults")
	}
}

// TestParamErrors: invalid values are *node.ParamErrors naming node
// "table", the parameter, the value and the valid range; SetParams applies
// nothing on error.
func TestParamErrors(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, tc := range []struct {
		name  string
		m     map[string]any
		param string
		value any
		valid string
	}{
		{"NaN", map[string]any{"position": nan}, "position", nan, "any finite number"},
		{"+Inf", map[string]any{"position": inf}, "position", inf, "any finite number"},
		{"-Inf", map[string]any{"position": -inf}, "position", -inf, "any finite number"},
		{"wrong type", map[string]any{"position": []float64{1}}, "position", []float64{1}, "any finite number"},
		{"unknown name", map[string]any{"height": 1.0}, "height", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			check := func(how string, err error) {
				t.Helper()
				var pe *node.ParamError
				if !errors.As(err, &pe) {
					t.Fatalf("%s: %v is not a *node.ParamError", how, err)
				}
				if pe.Node != "table" || pe.Param != tc.param || !cmp.Equal(pe.Value, tc.value, cmpopts.EquateNaNs()) || pe.Valid != tc.valid {
					t.Errorf("%s: %+v", how, *pe)
				}
			}
			n, err := table.FromMap(tc.m)
			if n != nil {
				t.Error("FromMap returned a node with its error")
			}
			check("FromMap", err)
			if v, ok := tc.value.(float64); ok {
				_, err := table.New(table.Params{Position: v})
				check("New", err)
			}
			good, _ := table.New(table.Params{Position: 1})
			check("SetParams", good.SetParams(tc.m))
			if got := outputs(t, good); got != 1 {
				t.Errorf("SetParams changed the table on error: %v", got)
			}
		})
	}
}

// TestParamsIsACopy: the map Params returns cannot move the table.
func TestParamsIsACopy(t *testing.T) {
	n, _ := table.New(table.Params{Position: 1})
	n.Params()["position"] = 5.0
	if got := outputs(t, n); got != 1 {
		t.Errorf("output %v after writing to Params()", got)
	}
}

// TestSpec: stateless, no inputs, one scalar output in metres, no
// feedthrough, built once.
func TestSpec(t *testing.T) {
	n, _ := table.New(table.DefaultParams())
	s := n.Spec()
	if s != n.Spec() {
		t.Error("Spec() differs between calls")
	}
	if s.Type != "table" || s.Package != "github.com/cosimgo/cosim/nodes/table" || s.Feedthrough ||
		len(s.State) != 0 || len(s.Inputs) != 0 || len(s.Events) != 0 || s.StateLayout.Size() != 0 {
		t.Errorf("spec %+v", s)
	}
	want := []node.Field{{Name: "position", Shape: node.Scalar, Units: "m"}}
	if d := cmp.Diff(want, s.Outputs, cmpopts.IgnoreFields(node.Field{}, "Description")); d != "" {
		t.Errorf("Outputs (-want +got):\n%s", d)
	}
	if s.OutputOffset("position") != 0 || s.OutputLayout.Size() != 1 {
		t.Error("output layout")
	}
	if got := s.ParamNames(); !cmp.Equal(got, []string{"position", "show", "draw_size", "color"}) {
		t.Errorf("ParamNames = %v", got)
	}
}

// TestMetadata holds the metadata to what the guide promises and every
// mapping identifier to an exported declaration of this package.
func TestMetadata(t *testing.T) {
	n, _ := table.New(table.DefaultParams())
	s := n.Spec()
	m := s.Meta
	if m.AlgorithmID != "COSIM-NODE-101" || m.Version != "1.0.0" || m.Stability != node.Stable ||
		m.Discretization != "" || m.Order != (node.Order{}) || m.Summary == "" {
		t.Errorf("metadata %+v", m)
	}
	if !cmp.Equal(m.Equations, []string{`x_{\text{table}} = p`}) {
		t.Errorf("Equations = %q", m.Equations)
	}
	if len(m.Assumptions) == 0 || len(m.Limitations) == 0 || len(m.Changelog) == 0 {
		t.Error("empty metadata sections")
	}
	ids := declared(t)
	for _, mp := range m.Mapping {
		id, ok := strings.CutPrefix(mp.Identifier, s.Package+".")
		if !ok || !ids[id] {
			t.Errorf("mapping %q: %s does not exist", mp.Term, mp.Identifier)
		}
	}
}

// declared returns the package's top-level identifiers, methods as
// "Type.Method", from its non-test source files.
func declared(t *testing.T) map[string]bool {
	t.Helper()
	files, _ := filepath.Glob("*.go")
	ids := map[string]bool{}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				if fd.Recv == nil {
					ids[fd.Name.Name] = true
					continue
				}
				typ := fd.Recv.List[0].Type
				if st, ok := typ.(*ast.StarExpr); ok {
					typ = st.X
				}
				ids[typ.(*ast.Ident).Name+"."+fd.Name.Name] = true
			}
		}
	}
	return ids
}

// TestRegistry: the Type registers and builds a stateless Outputter.
func TestRegistry(t *testing.T) {
	r, err := node.NewRegistry(table.Type())
	if err != nil {
		t.Fatal(err)
	}
	n, err := r.New("table", map[string]any{"position": 0.75})
	if err != nil {
		t.Fatal(err)
	}
	o, ok := node.As[node.Outputter](n)
	if !ok {
		t.Fatal("table is not an Outputter")
	}
	dst := make([]float64, 1)
	if err := o.Outputs(0, nil, node.Inputs{}, dst); err != nil || dst[0] != 0.75 {
		t.Errorf("Outputs = %v, %v", dst, err)
	}
	if _, ok := node.As[node.Deriver](n); ok {
		t.Error("a stateless table should not be a Deriver")
	}
}

// TestOutputsZeroAllocs: Outputs is on the per-step path.
func TestOutputsZeroAllocs(t *testing.T) {
	n, _ := table.New(table.Params{Position: 1})
	dst := make([]float64, 1)
	in := n.Spec().DefaultInputs()
	if a := testing.AllocsPerRun(100, func() { n.Outputs(0, nil, in, dst) }); a != 0 {
		t.Errorf("Outputs allocates %v times", a)
	}
}

// TestOutputsWrongLength: a dst of the wrong length is a programmer error.
func TestOutputsWrongLength(t *testing.T) {
	n, _ := table.New(table.DefaultParams())
	defer func() {
		if r := recover(); r == nil {
			t.Error("Outputs with len(dst) = 2 did not panic")
		}
	}()
	n.Outputs(0, nil, node.Inputs{}, make([]float64, 2))
}
