package layering

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/cosimgo/cosim"

// imports returns every package of the module (without test files) and
// the cosim packages it imports directly, as paths relative to the module
// ("node", "nodes/ball"), and the non-standard imports outside the module.
func imports(t *testing.T) (cosim, external map[string][]string) {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}} | {{.Standard}}`, module+"/...")
	cmd.Dir = "../.."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	cosim, external = map[string][]string{}, map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		line, _, _ = strings.Cut(line, " | ")
		f := strings.Fields(line)
		pkg := rel(f[0])
		cosim[pkg] = nil
		for _, imp := range f[1:] {
			switch {
			case imp == module || strings.HasPrefix(imp, module+"/"):
				cosim[pkg] = append(cosim[pkg], rel(imp))
			case strings.Contains(strings.SplitN(imp, "/", 2)[0], "."):
				external[pkg] = append(external[pkg], imp)
			}
		}
	}
	if len(cosim) < 10 {
		t.Fatalf("go list found only %d packages: %v", len(cosim), cosim)
	}
	return cosim, external
}

func rel(p string) string { return strings.TrimPrefix(strings.TrimPrefix(p, module), "/") }

// TestDependenciesPointDown checks the import rules of doc.go on the
// direct imports of every package (test files excluded: tests sit on top
// and may import anything).
func TestDependenciesPointDown(t *testing.T) {
	cosim, external := imports(t)
	nodePkgs := 0
	for pkg, deps := range cosim {
		var allowed func(string) bool
		switch {
		case pkg == "node" || pkg == "anomalies" || pkg == "integrators":
			allowed = func(string) bool { return false }
		case pkg == "graph":
			allowed = func(d string) bool { return d != "nodes" && !strings.HasPrefix(d, "nodes/") }
		case strings.HasPrefix(pkg, "nodes/"):
			nodePkgs++
			allowed = func(d string) bool { return d == "node" }
			if len(external[pkg]) > 0 {
				t.Errorf("%s imports %v: a node package imports only node and the standard library", pkg, external[pkg])
			}
		case pkg == "verification" || pkg == "coupling":
			allowed = func(d string) bool { return d != "nodes" && !strings.HasPrefix(d, "nodes/") }
		case pkg == "fmi":
			// The FMU importer is a node package with a file behind it:
			// it builds nodes from node's contract and steps a
			// model-exchange FMU in co-simulation with integrators'
			// adaptive Dormand–Prince. It knows no graph, no scene and
			// no other node package; the catalog (nodes) registers it.
			allowed = func(d string) bool { return d == "node" || d == "integrators" }
			if len(external[pkg]) > 0 {
				t.Errorf("%s imports %v: the FMU importer uses only the standard library (and cgo)", pkg, external[pkg])
			}
		case pkg == "fmi/export":
			// The FMU exporter runs scenes: it knows graph, scene and
			// fmi, and takes the node catalog from its caller (the
			// command passes nodes.Registry), never naming a node package.
			allowed = func(d string) bool { return d != "nodes" && !strings.HasPrefix(d, "nodes/") }
		case pkg == "scene":
			// The one exception left: scene reads a lookup node's CSV
			// file itself (nodes/source.LookupName, MaxRows). Connector
			// types, which scene once named, come from the registry.
			allowed = func(d string) bool { return d == "nodes/source" || d != "nodes" && !strings.HasPrefix(d, "nodes/") }
		default:
			continue
		}
		for _, d := range deps {
			if !allowed(d) {
				t.Errorf("%s imports %s, against the layering rule (see internal/layering/doc.go)", pkg, d)
			}
		}
	}
	if nodePkgs < 5 {
		t.Errorf("found %d node packages under nodes/: is the module path right?", nodePkgs)
	}
}

// TestNoExportedMutableTables parses every non-test Go file of the module
// and reports an exported package-level variable of map or slice type (by
// its declared type or its composite literal): callers could change such
// a table under every other user. Export a function returning a copy.
func TestNoExportedMutableTables(t *testing.T) {
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "testdata" || strings.HasPrefix(n, ".") && n != "." && n != ".." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if !name.IsExported() {
						continue
					}
					typ := vs.Type
					if typ == nil && i < len(vs.Values) {
						if cl, ok := vs.Values[i].(*ast.CompositeLit); ok {
							typ = cl.Type
						}
					}
					switch typ.(type) {
					case *ast.MapType, *ast.ArrayType:
						if at, ok := typ.(*ast.ArrayType); ok && at.Len != nil {
							continue // a fixed-size array is copied by value
						}
						t.Errorf("%s: exported variable %s is a mutable table; keep it unexported behind a function returning a copy", fset.Position(name.Pos()), name.Name)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("parsed only %d files: is the module root right?", files)
	}
}

// TestDescribeOutsideCore: the JSON types of `cosim describe` live in
// node/describe, not in the core contract package node.
func TestDescribeOutsideCore(t *testing.T) {
	fset, files := parsePackage(t, "../../node")
	moved := map[string]bool{"Description": true, "FieldDesc": true, "ParamDesc": true, "InputDesc": true, "Describe": true}
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && moved[d.Name.Name] {
					t.Errorf("%s: func %s belongs in node/describe", fset.Position(d.Pos()), d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok && moved[ts.Name.Name] {
						t.Errorf("%s: type %s belongs in node/describe", fset.Position(ts.Pos()), ts.Name.Name)
					}
				}
			}
		}
	}
}

// exportedFuncs returns the exported functions ("F") and methods
// ("T.M") declared in the non-test files of the package in dir.
func exportedFuncs(t *testing.T, dir string) map[string]bool {
	t.Helper()
	_, files := parsePackage(t, dir)
	out := map[string]bool{}
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || !fd.Name.IsExported() {
				continue
			}
			name := fd.Name.Name
			if fd.Recv != nil {
				typ := fd.Recv.List[0].Type
				if st, ok := typ.(*ast.StarExpr); ok {
					typ = st.X
				}
				if id, ok := typ.(*ast.Ident); ok {
					name = id.Name + "." + name
				}
			}
			out[name] = true
		}
	}
	if len(out) == 0 {
		t.Fatalf("no exported functions in %s", dir)
	}
	return out
}

// TestNoRedundantPairs: each of issue 21's redundant pairs keeps the one
// that reads best, and the other is gone.
func TestNoRedundantPairs(t *testing.T) {
	for _, c := range []struct{ dir, keep, gone string }{
		{"node", "Resolve", "CheckValues"},
		{"node", "DidYouMean", "Suggest"},
		{"verification", "CheckConformance", "Conformance"},
		{"graph", "Sim.Names", "Sim.Nodes"},
		{"graph", "Graph.Names", "Graph.Nodes"},
	} {
		fns := exportedFuncs(t, "../../"+c.dir)
		if !fns[c.keep] {
			t.Errorf("%s: %s is missing", c.dir, c.keep)
		}
		if fns[c.gone] {
			t.Errorf("%s: %s duplicates %s", c.dir, c.gone, c.keep)
		}
	}
}

// parsePackage parses the non-test Go files of the package in dir.
func parsePackage(t *testing.T, dir string) (*token.FileSet, []*ast.File) {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		t.Fatalf("no Go files in %s", dir)
	}
	return fset, files
}
