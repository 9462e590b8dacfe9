package layering

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryPackageHasDocGo checks the engineering rule that every package
// of the module has a doc.go holding its package comment, and that the
// comment speaks of the package's concurrency (the word "concurrency",
// "goroutine" or "thread"), so a reader finds what it is for and how it
// may be used in one place.
func TestEveryPackageHasDocGo(t *testing.T) {
	cosim, _ := imports(t)
	for pkg := range cosim {
		dir := filepath.Join("../..", filepath.FromSlash(pkg))
		path := filepath.Join(dir, "doc.go")
		if _, err := os.Stat(path); err != nil {
			t.Errorf("package %q has no doc.go", pkg)
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments|parser.PackageClauseOnly)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if f.Doc == nil {
			t.Errorf("%s holds no package comment", path)
			continue
		}
		text := strings.ToLower(f.Doc.Text())
		if !strings.Contains(text, "concurren") && !strings.Contains(text, "goroutine") && !strings.Contains(text, "thread") {
			t.Errorf("%s: the package comment does not state the package's concurrency rules", path)
		}
	}
}
