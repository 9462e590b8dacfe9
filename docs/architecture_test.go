package docs_test

import (
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestArchitectureImports: the import table of docs/architecture.md is
// the code's, exactly, and every Go identifier the page names exists. Each row names packages (`nodes/*` stands for
// every node package under nodes/) and the cosim packages they import
// ("none"; "every `nodes/*`"), and the imports of their non-test files,
// parsed here, must be those; every package of the library (not
// examples, benchmarks or internal) must have a row.
func TestArchitectureImports(t *testing.T) {
	root := moduleRoot(t)
	src, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	const module = "github.com/cosimgo/cosim/"
	nodePkgs := nodePackages(t, root)
	tick := regexp.MustCompile("`([^`]+)`")
	expand := func(cell string) []string {
		var out []string
		for _, m := range tick.FindAllStringSubmatch(cell, -1) {
			if m[1] == "nodes/*" {
				out = append(out, nodePkgs...)
				continue
			}
			out = append(out, m[1])
		}
		slices.Sort(out)
		return out
	}
	rows := 0
	seen := map[string]bool{}
	for _, line := range strings.Split(string(src), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) != 4 || !strings.Contains(cells[1], "`") {
			continue
		}
		rows++
		want := expand(cells[2])
		for _, pkg := range expand(cells[1]) {
			seen[pkg] = true
			got := cosimImports(t, filepath.Join(root, filepath.FromSlash(pkg)), module)
			if !slices.Equal(got, want) {
				t.Errorf("docs/architecture.md says %s imports %v; its code imports %v", pkg, want, got)
			}
		}
	}
	if rows == 0 {
		t.Fatal("docs/architecture.md has no import table")
	}
	// Every Go identifier it names (pkg.Ident, pkg.Type.Method) exists.
	r := &resolver{root: root, pkgs: map[string]*pkgDecls{}}
	for _, err := range checkGoIdents(r, modulePackages(t, root), string(src)) {
		t.Errorf("docs/architecture.md names %v", err)
	}
	for _, pkg := range libraryPackages(t, root) {
		if !seen[pkg] {
			t.Errorf("docs/architecture.md's import table has no row for %s", pkg)
		}
	}
}

// nodePackages lists the node packages, nodes/<name>, sorted.
func nodePackages(t *testing.T, root string) []string {
	t.Helper()
	dirs, err := os.ReadDir(filepath.Join(root, "nodes"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range dirs {
		if d.IsDir() && d.Name() != "testdata" {
			if files, _ := filepath.Glob(filepath.Join(root, "nodes", d.Name(), "*.go")); len(files) > 0 {
				out = append(out, "nodes/"+d.Name())
			}
		}
	}
	return out
}

// libraryPackages lists the packages the table must describe: every
// directory with Go files, but examples, benchmarks, internal and
// testdata trees and the packages nested in a node package or in
// verification (their own parts).
func libraryPackages(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		top, _, _ := strings.Cut(rel, "/")
		switch {
		case strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata":
			return filepath.SkipDir
		case top == "examples" || top == "benchmarks" || top == "internal":
			return filepath.SkipDir
		case strings.Count(rel, "/") > 1 || top == "verification" && rel != top:
			return filepath.SkipDir
		}
		files, _ := filepath.Glob(filepath.Join(path, "*.go"))
		for _, f := range files {
			if !strings.HasSuffix(f, "_test.go") {
				if rel != "." {
					out = append(out, rel)
				}
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// cosimImports returns the cosim packages the non-test files of the
// package in dir import, without the module prefix, sorted and without repeats.
func cosimImports(t *testing.T, dir, module string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("%s: no Go files (%v)", dir, err)
	}
	var out []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		if ok, err := build.Default.MatchFile(dir, filepath.Base(f)); err != nil || !ok {
			continue // a generator (//go:build ignore), not part of the package
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range af.Imports {
			if p := strings.Trim(im.Path.Value, `"`); strings.HasPrefix(p, module) && !slices.Contains(out, p[len(module):]) {
				out = append(out, p[len(module):])
			}
		}
	}
	slices.Sort(out)
	return out
}
