package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// The mutator names, as gremlins v0.6.0 reports them.
const (
	arithmeticBase       = "ARITHMETIC_BASE"
	conditionalsBoundary = "CONDITIONALS_BOUNDARY"
	conditionalsNegation = "CONDITIONALS_NEGATION"
	incrementDecrement   = "INCREMENT_DECREMENT"
	invertNegatives      = "INVERT_NEGATIVES"
)

// mutation is one mutator applicable to an operator token.
type mutation struct {
	mutator string
	to      token.Token
}

// mutations lists, per operator token, the mutants gremlins v0.6.0 makes
// with its default mutators enabled, in its order. A minus, binary or
// unary, yields two mutants that both turn it into a plus: gremlins maps
// the token, not the expression, to INVERT_NEGATIVES and to
// ARITHMETIC_BASE. A unary plus yields ARITHMETIC_BASE (+x to -x). The
// remaining operators (&&, ||, bitwise, shifts, assignment operators,
// break/continue) belong to mutators gremlins leaves off by default.
var mutations = map[token.Token][]mutation{
	token.ADD: {{arithmeticBase, token.SUB}},
	token.SUB: {{invertNegatives, token.ADD}, {arithmeticBase, token.ADD}},
	token.MUL: {{arithmeticBase, token.QUO}},
	token.QUO: {{arithmeticBase, token.MUL}},
	token.REM: {{arithmeticBase, token.MUL}},
	token.EQL: {{conditionalsNegation, token.NEQ}},
	token.NEQ: {{conditionalsNegation, token.EQL}},
	token.LSS: {{conditionalsBoundary, token.LEQ}, {conditionalsNegation, token.GEQ}},
	token.LEQ: {{conditionalsBoundary, token.LSS}, {conditionalsNegation, token.GTR}},
	token.GTR: {{conditionalsBoundary, token.GEQ}, {conditionalsNegation, token.LEQ}},
	token.GEQ: {{conditionalsBoundary, token.GTR}, {conditionalsNegation, token.LSS}},
	token.INC: {{incrementDecrement, token.DEC}},
	token.DEC: {{incrementDecrement, token.INC}},
}

// Outcomes of a mutant.
const (
	statusKilled     = "KILLED"
	statusLived      = "LIVED"
	statusTimedOut   = "TIMED OUT"
	statusNotCovered = "NOT COVERED"
	statusNotViable  = "NOT VIABLE"
)

// mutantInfo is one mutant of a package: an operator token and the
// mutator applied to it.
type mutantInfo struct {
	ID      int // 1-based; 0 selects no mutant
	File    string
	Line    int // of the operator token, as gremlins reports it
	Col     int
	Mutator string
	From    token.Token
	To      token.Token
	// Twin is the ID of an earlier mutant at the same token that makes
	// the same code (the two mutants of a minus): it is run once.
	Twin int
	// Status is set at enumeration for mutants that are never run
	// (NOT COVERED in a constant declaration, NOT VIABLE), and by the run
	// otherwise.
	Status string
	Reason string // why a mutant is not run or not viable
}

// pkgInfo is a type-checked package under mutation.
type pkgInfo struct {
	Dir        string // slash path from the module root
	ImportPath string
	Fset       *token.FileSet
	Files      []*ast.File // type-checked files, parallel to Names
	Names      []string    // their base names
	Ignored    []string    // non-test .go files excluded by build constraints
	Types      *types.Package
	Info       *types.Info
}

type listedPackage struct {
	ImportPath     string
	Dir            string
	Export         string
	GoFiles        []string
	IgnoredGoFiles []string
	Error          *struct{ Err string }
}

// loadPackage type-checks the non-test files of package dir against the
// export data of its dependencies (go list -export builds them).
func loadPackage(dir string) (*pkgInfo, error) {
	cmd := exec.Command("go", "list", "-e", "-export", "-deps", "-json=ImportPath,Dir,Export,GoFiles,IgnoredGoFiles,Error", "./"+dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list ./%s: %w", dir, err)
	}
	exports := map[string]string{}
	var target *listedPackage
	dec := json.NewDecoder(strings.NewReader(string(out)))
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, err
		}
		if p.Error != nil {
			return nil, fmt.Errorf("go list ./%s: %s: %s", dir, p.ImportPath, p.Error.Err)
		}
		exports[p.ImportPath] = p.Export
		if p.Dir == abs {
			target = &p
		}
	}
	if target == nil {
		return nil, fmt.Errorf("go list ./%s: package not found", dir)
	}
	fset := token.NewFileSet()
	pi := &pkgInfo{Dir: dir, ImportPath: target.ImportPath, Fset: fset}
	for _, name := range target.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		pi.Files = append(pi.Files, f)
		pi.Names = append(pi.Names, name)
	}
	for _, name := range target.IgnoredGoFiles {
		if !strings.HasSuffix(name, "_test.go") {
			pi.Ignored = append(pi.Ignored, name)
		}
	}
	lookup := func(path string) (io.ReadCloser, error) {
		e, ok := exports[path]
		if !ok || e == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(e)
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "gc", lookup)}
	pi.Info = &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}}
	pi.Types, err = conf.Check(target.ImportPath, fset, pi.Files, pi.Info)
	if err != nil {
		return nil, fmt.Errorf("type-check ./%s: %w", dir, err)
	}
	return pi, nil
}

// opToken returns the operator token of a node that gremlins mutates
// and its position, or false.
func opToken(n ast.Node) (token.Token, token.Pos, bool) {
	switch n := n.(type) {
	case *ast.BinaryExpr:
		return n.Op, n.OpPos, true
	case *ast.UnaryExpr:
		return n.Op, n.OpPos, true
	case *ast.IncDecStmt:
		return n.Tok, n.TokPos, true
	}
	return 0, 0, false
}

// enumerateFile lists the mutants of one file in gremlins' order (an
// ast.Inspect walk, mutators per token in mutations' order), numbering
// them from next. Gremlins runs a mutant only where the package's
// coverage profile has a block with a count, that is inside a function
// body; the others are NOT COVERED here too (package-level variable
// initializers and constant declarations). A constant declared inside a
// function cannot select its value at run time: its mutants are NOT
// VIABLE here, where gremlins rebuilds and runs them (a + on strings
// then fails to build, which gremlins counts as killed).
func enumerateFile(fset *token.FileSet, f *ast.File, file string, next int) []*mutantInfo {
	var ms []*mutantInfo
	var stack []ast.Node
	bodies, consts := 0, 0
	body := map[ast.Node]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			if n.Body != nil {
				body[n.Body] = true
			}
		case *ast.FuncLit:
			body[n.Body] = true
		}
		return true
	})
	isBody := func(n ast.Node) bool { return body[n] }
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil {
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if isBody(top) {
				bodies--
			}
			if g, ok := top.(*ast.GenDecl); ok && g.Tok == token.CONST {
				consts--
			}
			return true
		}
		stack = append(stack, n)
		if isBody(n) {
			bodies++
		}
		if g, ok := n.(*ast.GenDecl); ok && g.Tok == token.CONST {
			consts++
		}
		status, reason := "", ""
		switch {
		case bodies == 0:
			status, reason = statusNotCovered, "outside any function body: no coverage block"
		case consts > 0:
			status, reason = statusNotViable, "constant declared in a function: a constant cannot select its value at run time"
		}
		ms = append(ms, mutantsAt(fset, n, file, &next, status, reason)...)
		return true
	})
	return ms
}

func mutantsAt(fset *token.FileSet, n ast.Node, file string, next *int, status, reason string) []*mutantInfo {
	tok, pos, ok := opToken(n)
	if !ok {
		return nil
	}
	var ms []*mutantInfo
	p := fset.Position(pos)
	var first *mutantInfo
	for _, mu := range mutations[tok] {
		m := &mutantInfo{ID: *next, File: file, Line: p.Line, Col: p.Column, Mutator: mu.mutator, From: tok, To: mu.to}
		*next++
		if first != nil && first.To == m.To {
			m.Twin = first.ID
		} else if first == nil {
			first = m
		}
		m.Status, m.Reason = status, reason
		ms = append(ms, m)
	}
	return ms
}

// enumerateIgnored lists the mutants of a file the build excludes (build
// constraints): gremlins mutates it, and its mutants are never covered.
func enumerateIgnored(path, file string, next int) ([]*mutantInfo, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var ms []*mutantInfo
	ast.Inspect(f, func(n ast.Node) bool {
		ms = append(ms, mutantsAt(fset, n, file, &next, statusNotCovered, "file excluded from the build by its build constraints")...)
		return true
	})
	return ms, nil
}

// sortByPosition orders mutants by file, line, column and mutator, the
// order of the results and of the gremlins fixtures.
func sortByPosition(ms []*mutantInfo) {
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].pos().before(ms[j].pos()) })
}

// pos is the mutant's position, as a result lists it.
func (m *mutantInfo) pos() Mutant {
	return Mutant{File: m.File, Line: m.Line, Col: m.Col, Mutator: m.Mutator}
}
