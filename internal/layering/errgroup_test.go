package layering

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestErrgroupCollectsErrors checks that errgroup is used only where it
// collects errors: in every non-test file that imports
// golang.org/x/sync/errgroup, each function literal given to a Go or
// TryGo call must be able to return something other than nil. Goroutines
// that always return nil only need waiting for, which is what
// sync.WaitGroup (its Go method) says.
func TestErrgroupCollectsErrors(t *testing.T) {
	files := 0
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != "../.." && (strings.HasPrefix(n, ".") || n == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		uses := false
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "golang.org/x/sync/errgroup" {
				uses = true
			}
		}
		if !uses {
			return nil
		}
		files++
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 1 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || (sel.Sel.Name != "Go" && sel.Sel.Name != "TryGo") {
				return true
			}
			lit, ok := call.Args[0].(*ast.FuncLit)
			if !ok {
				return true
			}
			if onlyNil(lit) {
				t.Errorf("%s: the goroutine given to %s always returns nil: use sync.WaitGroup (its Go method), not errgroup",
					fset.Position(call.Pos()), sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d files import errgroup", files)
}

// onlyNil reports whether every return statement of lit itself (not of
// nested function literals) returns the identifier nil.
func onlyNil(lit *ast.FuncLit) bool {
	only := true
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			if len(n.Results) != 1 {
				only = false
			} else if id, ok := n.Results[0].(*ast.Ident); !ok || id.Name != "nil" {
				only = false
			}
		}
		return true
	})
	return only
}
