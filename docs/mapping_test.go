package docs_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/docs"
	"github.com/cosimgo/cosim/nodes"
)

// pkgDecls is what one parsed package declares: top-level names
// (functions, types, constants, variables), methods as "Type.Method"
// (pointer or value receivers, generic receivers included), and for each
// struct type its embedded fields as import path and type name, so
// promoted methods resolve.
type pkgDecls struct {
	names    map[string]bool
	methods  map[string]bool
	embedded map[string][][2]string // type → (import path, type name)
}

// resolver parses module packages on demand, once each.
type resolver struct {
	root string
	pkgs map[string]*pkgDecls
}

func (r *resolver) pkg(path string) (*pkgDecls, error) {
	if p, ok := r.pkgs[path]; ok {
		return p, nil
	}
	dir, err := docs.PackageDir(r.root, path)
	if err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	p := &pkgDecls{names: map[string]bool{}, methods: map[string]bool{}, embedded: map[string][][2]string{}}
	fset := token.NewFileSet()
	parsed := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		parsed++
		imports := map[string]string{}
		for _, im := range f.Imports {
			ipath, _ := strconv.Unquote(im.Path.Value)
			local := ipath[strings.LastIndex(ipath, "/")+1:]
			if im.Name != nil {
				local = im.Name.Name
			}
			imports[local] = ipath
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil || len(d.Recv.List) == 0 {
					p.names[d.Name.Name] = true
					continue
				}
				if recv := recvName(d.Recv.List[0].Type); recv != "" {
					p.methods[recv+"."+d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						p.names[s.Name.Name] = true
						st, ok := s.Type.(*ast.StructType)
						if !ok {
							continue
						}
						for _, fl := range st.Fields.List {
							if len(fl.Names) != 0 {
								continue
							}
							typ := fl.Type
							if star, ok := typ.(*ast.StarExpr); ok {
								typ = star.X
							}
							switch e := typ.(type) {
							case *ast.Ident:
								p.embedded[s.Name.Name] = append(p.embedded[s.Name.Name], [2]string{path, e.Name})
							case *ast.SelectorExpr:
								if x, ok := e.X.(*ast.Ident); ok && imports[x.Name] != "" {
									p.embedded[s.Name.Name] = append(p.embedded[s.Name.Name], [2]string{imports[x.Name], e.Sel.Name})
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							p.names[n.Name] = true
						}
					}
				}
			}
		}
	}
	if parsed == 0 {
		return nil, fmt.Errorf("no Go files in %s", dir)
	}
	r.pkgs[path] = p
	return p, nil
}

// recvName is the receiver's type name: T, *T, T[P], *T[P].
func recvName(e ast.Expr) string {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	switch x := e.(type) {
	case *ast.IndexExpr:
		e = x.X
	case *ast.IndexListExpr:
		e = x.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// resolve checks "import/path.Ident" or "import/path.Type.Method".
func (r *resolver) resolve(ident string) error {
	slash := strings.LastIndex(ident, "/")
	dot := strings.Index(ident[slash+1:], ".")
	if dot < 0 {
		return fmt.Errorf("not of the form import/path.Identifier or import/path.Type.Method")
	}
	path, rest := ident[:slash+1+dot], ident[slash+2+dot:]
	p, err := r.pkg(path)
	if err != nil {
		return err
	}
	parts := strings.Split(rest, ".")
	switch len(parts) {
	case 1:
		if !p.names[parts[0]] {
			return fmt.Errorf("%s declares no %s", path, parts[0])
		}
		return nil
	case 2:
		if !p.names[parts[0]] {
			return fmt.Errorf("%s declares no type %s", path, parts[0])
		}
		if r.hasMethod(path, parts[0], parts[1], 0) {
			return nil
		}
		return fmt.Errorf("%s.%s has no method or promoted method %s", path, parts[0], parts[1])
	}
	return fmt.Errorf("too many dots after the package path")
}

func (r *resolver) hasMethod(path, typ, method string, depth int) bool {
	p, err := r.pkg(path)
	if err != nil || depth > 5 {
		return false
	}
	if p.methods[typ+"."+method] {
		return true
	}
	for _, e := range p.embedded[typ] {
		if e[1] == method || r.hasMethod(e[0], e[1], method, depth+1) {
			return true // an embedded field or its promoted method
		}
	}
	return false
}

// TestMappingIdentifiersExist: every Implementation Mapping entry of every
// registered node names a Go declaration that exists, found by parsing
// the module's packages, so a guide can never point at code that is not
// there (or is no longer there after a rename).
func TestMappingIdentifiersExist(t *testing.T) {
	r := &resolver{root: moduleRoot(t), pkgs: map[string]*pkgDecls{}}
	reg := nodes.Registry()
	for _, name := range reg.Names() {
		s, _ := reg.Spec(name)
		for _, m := range s.Meta.Mapping {
			if err := r.resolve(m.Identifier); err != nil {
				t.Errorf("%s: mapping %q names %s: %v", name, m.Term, m.Identifier, err)
			}
		}
	}
}

// The resolver itself: it finds what exists and rejects what does not.
func TestResolver(t *testing.T) {
	r := &resolver{root: moduleRoot(t), pkgs: map[string]*pkgDecls{}}
	const mod = "github.com/cosimgo/cosim/"
	for _, id := range []string{
		mod + "node.Capabilities",          // function
		mod + "node.Spec.Param",            // pointer-receiver method
		mod + "node.Stability.String",      // value-receiver method
		mod + "node.ErrNonFinite",          // variable
		mod + "node.Scalar",                // constant
		mod + "node.Stateless.Update",      // method of an embeddable type
		mod + "nodes/table.Node.Update",    // promoted from node.Stateless
		mod + "docs.Guide.WriteTo",         // this package
		mod + "anomalies.Entry",            // type
		mod + "nodes/table.Node.Stateless", // embedded field
	} {
		if err := r.resolve(id); err != nil {
			t.Errorf("resolve(%s) = %v, want nil", id, err)
		}
	}
	for _, id := range []string{
		mod + "node.NoSuchThing",
		mod + "node.Spec.NoSuchMethod",
		mod + "nosuchpkg.X",
		"fmt.Println", // not in the module
		mod + "node",  // no identifier
		mod + "node.Spec.Param.Extra",
	} {
		if err := r.resolve(id); err == nil {
			t.Errorf("resolve(%s) = nil, want an error", id)
		}
	}
	if _, err := os.Stat(r.root); err != nil {
		t.Fatal(err)
	}
}
