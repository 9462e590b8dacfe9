package springdamper_test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/node/describe"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// declared parses the package's non-test files and returns its top-level
// identifiers, methods as "Type.Method".
func declared(t *testing.T) map[string]bool {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
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
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					ids[d.Name.Name] = true
					continue
				}
				typ := d.Recv.List[0].Type
				if s, ok := typ.(*ast.StarExpr); ok {
					typ = s.X
				}
				ids[typ.(*ast.Ident).Name+"."+d.Name.Name] = true
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						ids[s.Name.Name] = true
					case *ast.ValueSpec:
						for _, n := range s.Names {
							ids[n.Name] = true
						}
					}
				}
			}
		}
	}
	return ids
}

// TestMetadata: the mapping names exported identifiers that exist, the
// metadata states the algorithm ID, version, stability and references the
// guide promises, and the description is complete.
func TestMetadata(t *testing.T) {
	n, err := springdamper.FromMap(nil)
	if err != nil {
		t.Fatal(err)
	}
	s := n.Spec()
	m := s.Meta
	if m.AlgorithmID != "COSIM-NODE-301" || m.Version != "1.1.0" || m.Stability != node.Stable || m.Summary == "" {
		t.Errorf("identity: %q %q %v %q", m.AlgorithmID, m.Version, m.Stability, m.Summary)
	}
	if m.Discretization != "" || m.Order.Temporal != 0 {
		t.Errorf("a stateless connector names no scheme: %q %+v", m.Discretization, m.Order)
	}
	// COSIM-VER-301 first; the verification suite may declare more.
	if len(m.Evidence) == 0 || m.Evidence[0] != "COSIM-VER-301" || m.Changelog[0].Date != "2026-12-02" {
		t.Errorf("evidence %v, changelog %v", m.Evidence, m.Changelog)
	}
	for _, eq := range m.Equations {
		if strings.ContainsAny(eq, "$") {
			t.Errorf("equation %q has math delimiters", eq)
		}
	}
	ids := declared(t)
	prefix := s.Package + "."
	for _, mp := range m.Mapping {
		id, ok := strings.CutPrefix(mp.Identifier, prefix)
		if !ok || !ids[id] || !token.IsExported(id[strings.LastIndex(id, ".")+1:]) {
			t.Errorf("mapping %q: %s is not an exported identifier of the package", mp.Term, mp.Identifier)
		}
	}
	for _, f := range s.Outputs {
		if f.Units == "" || f.Description == "" {
			t.Errorf("output %q lacks units or a description", f.Name)
		}
	}
	for _, p := range s.Params {
		if p.Description == "" {
			t.Errorf("parameter %q lacks a description", p.Name)
		}
	}
	d := describe.Of(n)
	if _, err := json.Marshal(d); err != nil {
		t.Errorf("Describe does not marshal: %v", err)
	}
	if strings.Join(d.Caps, ",") != "outputs,tunable,outputs-jacobian,attached,step-limiter,step-bounder,batcher,drawer" {
		t.Errorf("capabilities %v", d.Caps)
	}
}

// TestSpecPerInstance: inputs mirror the bodies' marker fields with their
// shapes and units; load outputs mirror their load inputs.
func TestSpecPerInstance(t *testing.T) {
	n, err := springdamper.New(springdamper.DefaultParams(),
		node.At(newBody3D(t, rigidbodyDefault3D()), [3]float64{1, 0, 0}),
		node.At(newBall(t), [3]float64{0, 0, 1}))
	if err != nil {
		t.Fatal(err)
	}
	s := n.Spec()
	var ins, outs []string
	for _, in := range s.Inputs {
		ins = append(ins, in.Name+" "+in.Shape.String()+" "+in.Units+" "+in.Combine.String())
		if !in.Required() {
			t.Errorf("input %s is not required", in.Name)
		}
	}
	for _, o := range s.Outputs {
		outs = append(outs, o.Name+" "+o.Shape.String()+" "+o.Units)
	}
	wantIn := "m0_position (3,) m replacing|m0_orientation (4,) 1 replacing|m0_velocity (3,) m/s replacing|m0_angular_velocity (3,) rad/s replacing|m1_position scalar m replacing|m1_velocity scalar m/s replacing"
	wantOut := "displacement (3,) m|distance scalar m|velocity (3,) m/s|force (3,) N|potential_energy scalar J|m0_force (3,) N|m0_torque (3,) N m|m1_force scalar N"
	if got := strings.Join(ins, "|"); got != wantIn {
		t.Errorf("inputs\n got %s\nwant %s", got, wantIn)
	}
	if got := strings.Join(outs, "|"); got != wantOut {
		t.Errorf("outputs\n got %s\nwant %s", got, wantOut)
	}
}
