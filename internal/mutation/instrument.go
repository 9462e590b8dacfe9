package main

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"sort"
	"strconv"
	"strings"
)

// Mutant schemata: every mutant of a package is compiled into one test
// binary. Each mutated operator calls a small generic helper (or, for a
// constant expression, an immediately called closure) that evaluates the
// operands once, in their source order, and computes the original or the
// mutated result depending on the mutant selected when the binary starts
// (the environment variable mutantEnv; 0 or unset selects none). The
// helpers are in a generated file added to the package through go
// build's -overlay, as are the rewritten files: the source tree is never
// written.

// Environment variables read by the instrumented test binary.
const (
	mutantEnv = "COSIM_MUTANT"      // the mutant to activate
	hitsEnv   = "COSIM_MUTANT_HITS" // a file to which the reached mutants are appended
)

// schemataFile is the name of the generated file added to the package.
const schemataFile = "zz_cosim_mutants.go"

// span is a rewritten region of a file: a compile error inside it
// withdraws its mutants.
type span struct {
	file       string // base name
	start, end int    // lines
	ids        []int
}

// instrumenter rewrites one file.
type instrumenter struct {
	pi      *pkgInfo
	f       *ast.File
	name    string // base name
	src     []byte
	tf      *token.File
	live    map[token.Pos][]*mutantInfo // operator position -> mutants to instrument
	simple  map[*ast.IncDecStmt]bool    // ++/-- in a for, if or switch header
	imports map[string]string           // import path -> name in this file
	added   map[string]string           // import path -> alias added
	spans   []span
	// dropped collects mutants found not instrumentable while writing
	// (their reason is set).
	dropped []*mutantInfo
}

// instrumentFile returns the rewritten source of file f and the regions
// it rewrote. live holds the mutants of the file to instrument.
func instrumentFile(pi *pkgInfo, f *ast.File, name string, src []byte, live []*mutantInfo) (string, []span, []*mutantInfo) {
	in := &instrumenter{pi: pi, f: f, name: name, src: src, tf: pi.Fset.File(f.Pos()),
		live: map[token.Pos][]*mutantInfo{}, simple: map[*ast.IncDecStmt]bool{},
		imports: map[string]string{}, added: map[string]string{}}
	for _, m := range live {
		pos := in.tf.Pos(in.tf.Offset(in.tf.LineStart(m.Line)) + m.Col - 1)
		in.live[pos] = append(in.live[pos], m)
	}
	for _, s := range f.Imports {
		path, _ := strconv.Unquote(s.Path.Value)
		name := ""
		if s.Name != nil {
			name = s.Name.Name
		} else if p := in.importedPackage(path); p != nil {
			name = p.Name()
		}
		if name != "_" && name != "" {
			in.imports[path] = name
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		mark := func(s ast.Stmt) {
			if x, ok := s.(*ast.IncDecStmt); ok {
				in.simple[x] = true
			}
		}
		switch n := n.(type) {
		case *ast.ForStmt:
			mark(n.Init)
			mark(n.Post)
		case *ast.IfStmt:
			mark(n.Init)
		case *ast.SwitchStmt:
			mark(n.Init)
		case *ast.TypeSwitchStmt:
			mark(n.Init)
		}
		return true
	})
	start, end := in.tf.Pos(0), in.tf.Pos(in.tf.Size())
	body := in.between(start, end, f)
	if len(in.added) > 0 {
		// Added imports go on the package clause's line, so that every
		// line keeps its number.
		var paths []string
		for p := range in.added {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		var imp strings.Builder
		for _, p := range paths {
			fmt.Fprintf(&imp, "; import %s %q", in.added[p], p)
		}
		at := in.tf.Offset(f.Name.End())
		body = body[:at] + imp.String() + body[at:]
		// body's prefix up to the package name is unchanged source, so
		// the offset holds.
	}
	return body, in.spans, in.dropped
}

func (in *instrumenter) importedPackage(path string) *types.Package {
	for _, p := range in.pi.Types.Imports() {
		if p.Path() == path {
			return p
		}
	}
	return nil
}

func (in *instrumenter) off(p token.Pos) int { return in.tf.Offset(p) }

// children lists the direct children of n in source order.
func children(n ast.Node) []ast.Node {
	var cs []ast.Node
	ast.Inspect(n, func(c ast.Node) bool {
		if c == n {
			return true
		}
		if c != nil {
			cs = append(cs, c)
		}
		return false
	})
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].Pos() < cs[j].Pos() })
	return cs
}

// between returns the instrumented text of [start, end), which n spans,
// made of n's children.
func (in *instrumenter) between(start, end token.Pos, n ast.Node) string {
	var b strings.Builder
	at := start
	for _, c := range children(n) {
		if c.Pos() < at || c.End() > end || !c.Pos().IsValid() {
			continue
		}
		if _, ok := c.(*ast.CommentGroup); ok {
			continue
		}
		b.Write(in.src[in.off(at):in.off(c.Pos())])
		b.WriteString(in.text(c))
		at = c.End()
	}
	b.Write(in.src[in.off(at):in.off(end)])
	return b.String()
}

// text returns the instrumented text of n.
func (in *instrumenter) text(n ast.Node) string {
	if s, ok := in.rewrite(n); ok {
		return s
	}
	return in.between(n.Pos(), n.End(), n)
}

// liveIn returns the mutants to instrument at operators inside n.
func (in *instrumenter) liveIn(n ast.Node) []*mutantInfo {
	var ms []*mutantInfo
	ast.Inspect(n, func(c ast.Node) bool {
		if _, pos, ok := opToken(c); ok {
			ms = append(ms, in.live[pos]...)
		}
		return true
	})
	return ms
}

func (in *instrumenter) record(n ast.Node, ms []*mutantInfo) {
	s := span{file: in.name, start: in.tf.Line(n.Pos()), end: in.tf.Line(n.End())}
	for _, m := range ms {
		s.ids = append(s.ids, m.ID)
	}
	in.spans = append(in.spans, s)
}

// drop withdraws ms with a reason.
func (in *instrumenter) drop(ms []*mutantInfo, status, reason string) {
	for _, m := range ms {
		m.Status, m.Reason = status, reason
		in.dropped = append(in.dropped, m)
	}
}

// ids renders the first mutant of each distinct mutation at a token as
// helper arguments (a twin shares its first's behaviour and outcome).
func primary(ms []*mutantInfo) []*mutantInfo {
	var out []*mutantInfo
	for _, m := range ms {
		if m.Twin == 0 {
			out = append(out, m)
		}
	}
	return out
}

// rewrite returns the instrumented replacement of n when n is a mutated
// operator or a constant expression holding one.
func (in *instrumenter) rewrite(n ast.Node) (string, bool) {
	if e, ok := n.(ast.Expr); ok {
		if tv, ok := in.pi.Info.Types[e]; ok && tv.Value != nil {
			ms := in.liveIn(e)
			if len(ms) == 0 {
				return "", false
			}
			return in.constant(e, tv, ms), true
		}
	}
	tok, pos, ok := opToken(n)
	if !ok {
		return "", false
	}
	ms := in.live[pos]
	if len(ms) == 0 {
		return "", false
	}
	p := primary(ms)
	switch n := n.(type) {
	case *ast.BinaryExpr:
		x, y := in.text(n.X), in.text(n.Y)
		// Keep the line breaks between the operands, so that lines keep
		// their numbers.
		sep := ", " + strings.Repeat("\n", strings.Count(string(in.src[in.off(n.X.End()):in.off(n.Y.Pos())]), "\n"))
		if tok == token.EQL || tok == token.NEQ {
			// x != y is !(x == y) for every comparable type, NaN
			// included: the mutant negates the original's result.
			in.record(n, ms)
			return fmt.Sprintf("_mutNot(%d, %s)", p[0].ID, in.between(n.Pos(), n.End(), n)), true
		}
		if tok == token.ADD {
			if b, ok := in.pi.Info.Types[n].Type.Underlying().(*types.Basic); ok && b.Info()&types.IsString != 0 {
				in.drop(ms, statusNotViable, "+ on strings: its - mutant does not compile")
				return x + string(in.src[in.off(n.X.End()):in.off(n.Y.Pos())]) + y, true
			}
		}
		var helper string
		switch tok {
		case token.ADD:
			helper = "_mutAdd"
		case token.SUB:
			helper = "_mutSub"
		case token.MUL:
			helper = "_mutMul"
		case token.QUO:
			helper = "_mutQuo"
		case token.REM:
			helper = "_mutRem"
		case token.LSS:
			helper = "_mutLss"
		case token.LEQ:
			helper = "_mutLeq"
		case token.GTR:
			helper = "_mutGtr"
		case token.GEQ:
			helper = "_mutGeq"
		}
		in.record(n, ms)
		var ids []string
		for _, m := range p {
			ids = append(ids, strconv.Itoa(m.ID))
		}
		return fmt.Sprintf("%s(%s, %s%s%s)", helper, strings.Join(ids, ", "), x, sep, y), true
	case *ast.UnaryExpr:
		in.record(n, ms)
		helper := "_mutNeg"
		if tok == token.ADD {
			helper = "_mutPlus"
		}
		return fmt.Sprintf("%s(%d, %s)", helper, p[0].ID, in.text(n.X)), true
	case *ast.IncDecStmt:
		x := in.text(n.X)
		orig, mut := "++", "--"
		if tok == token.DEC {
			orig, mut = mut, orig
		}
		if !in.simple[n] {
			// A statement of its own: the operand is evaluated once, in
			// whichever branch runs (map entries included).
			in.record(n, ms)
			return fmt.Sprintf("if _mutOn(%d) { %s%s } else { %s%s }", p[0].ID, x, mut, x, orig), true
		}
		if !sideEffectFree(n.X) {
			in.drop(ms, statusNotViable, "++/-- in a for, if or switch header on an operand that calls a function: it cannot be evaluated once there")
			return x + orig, true
		}
		in.record(n, ms)
		helper := "_mutInc"
		if tok == token.DEC {
			helper = "_mutDec"
		}
		return fmt.Sprintf("%s = %s(%d, %s)", x, helper, p[0].ID, x), true
	}
	return "", false
}

// sideEffectFree reports whether evaluating e twice is the same as once:
// names, fields, indexes and dereferences of such, no calls.
func sideEffectFree(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident, *ast.BasicLit:
		return true
	case *ast.ParenExpr:
		return sideEffectFree(e.X)
	case *ast.SelectorExpr:
		return sideEffectFree(e.X)
	case *ast.StarExpr:
		return sideEffectFree(e.X)
	case *ast.IndexExpr:
		return sideEffectFree(e.X) && sideEffectFree(e.Index)
	}
	return false
}

// constant rewrites a constant expression e holding mutated operators as
// a closure that returns, converted to e's type, either the original
// constant or the one with a single operator mutated: every alternative
// stays a constant expression, so the compiler still folds and checks
// it.
func (in *instrumenter) constant(e ast.Expr, tv types.TypeAndValue, ms []*mutantInfo) string {
	orig := string(in.src[in.off(e.Pos()):in.off(e.End())])
	if strings.Contains(orig, "//") || strings.Contains(orig, "/*") {
		in.drop(ms, statusNotViable, "comment inside a constant expression")
		return orig
	}
	t := tv.Type
	if b, ok := t.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
		t = types.Default(t)
	}
	tn, ok := in.typeName(t)
	if !ok {
		in.drop(ms, statusNotViable, "constant of a type this file cannot name: "+t.String())
		return orig
	}
	if b, ok := t.Underlying().(*types.Basic); ok && b.Info()&types.IsString != 0 {
		// Only + applies to strings, and its - mutant does not compile.
		in.drop(ms, statusNotViable, "+ on strings: its - mutant does not compile")
		return orig
	}
	flat := strings.ReplaceAll(orig, "\n", " ")
	base := in.off(e.Pos())
	var b strings.Builder
	b.WriteString("func() " + tn + " { ")
	for _, m := range ms {
		if m.Twin != 0 {
			continue
		}
		pos := in.tf.Offset(in.tf.LineStart(m.Line)) + m.Col - 1 - base
		variant := flat[:pos] + m.To.String() + flat[pos+len(m.From.String()):]
		fmt.Fprintf(&b, "if _mutOn(%d) { return %s(%s) }; ", m.ID, tn, variant)
	}
	fmt.Fprintf(&b, "return %s(%s) }()", tn, orig)
	in.record(e, ms)
	return b.String()
}

// typeName spells t in this file, adding an import when t names a
// package the file does not import.
func (in *instrumenter) typeName(t types.Type) (string, bool) {
	ok := true
	s := types.TypeString(t, func(p *types.Package) string {
		if p == in.pi.Types {
			return ""
		}
		if n, found := in.imports[p.Path()]; found {
			if n == "." {
				return ""
			}
			return n
		}
		if p.Path() == "" {
			ok = false
			return ""
		}
		a, found := in.added[p.Path()]
		if !found {
			a = fmt.Sprintf("_mutimp%d", len(in.added))
			in.added[p.Path()] = a
		}
		return a
	})
	return s, ok
}

// schemataSource is the generated file that selects the mutant and
// records which mutants a run reaches. State is set by a package-level
// variable's initializer, so it is ready before any other package
// variable that calls instrumented code is initialized.
func schemataSource(pkg string, n int) string {
	return fmt.Sprintf(`// Code generated by go run ./internal/mutation; DO NOT EDIT.

package %s

import (
	"os"
	"strconv"
	"sync/atomic"
)

type _mutStateT struct {
	active int
	hits   []atomic.Bool
	out    *os.File
}

var _mutState = _mutSetup()

func _mutSetup() _mutStateT {
	var s _mutStateT
	s.active, _ = strconv.Atoi(os.Getenv(%q))
	if path := os.Getenv(%q); path != "" {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			panic(err)
		}
		s.out, s.hits = f, make([]atomic.Bool, %d)
	}
	return s
}

// _mutOn reports whether mutant id is the active one, recording that it
// was reached.
func _mutOn(id int) bool {
	if _mutState.out != nil {
		_mutHit(id)
	}
	return id == _mutState.active
}

func _mutHit(id int) {
	if !_mutState.hits[id].Swap(true) {
		_mutState.out.WriteString(strconv.Itoa(id) + "\n")
	}
}

type _mutNum interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr |
		~float32 | ~float64 | ~complex64 | ~complex128
}

type _mutInt interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}

type _mutOrd interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr |
		~float32 | ~float64 | ~string
}

func _mutNot(id int, v bool) bool {
	if _mutOn(id) {
		return !v
	}
	return v
}

func _mutAdd[T _mutNum](id int, x, y T) T {
	if _mutOn(id) {
		return x - y
	}
	return x + y
}

func _mutSub[T _mutNum](id int, x, y T) T {
	if _mutOn(id) {
		return x + y
	}
	return x - y
}

func _mutMul[T _mutNum](id int, x, y T) T {
	if _mutOn(id) {
		return x / y
	}
	return x * y
}

func _mutQuo[T _mutNum](id int, x, y T) T {
	if _mutOn(id) {
		return x * y
	}
	return x / y
}

func _mutRem[T _mutInt](id int, x, y T) T {
	if _mutOn(id) {
		return x * y
	}
	return x %% y
}

func _mutLss[T _mutOrd](boundary, negation int, x, y T) bool {
	if _mutOn(boundary) {
		return x <= y
	}
	if _mutOn(negation) {
		return x >= y
	}
	return x < y
}

func _mutLeq[T _mutOrd](boundary, negation int, x, y T) bool {
	if _mutOn(boundary) {
		return x < y
	}
	if _mutOn(negation) {
		return x > y
	}
	return x <= y
}

func _mutGtr[T _mutOrd](boundary, negation int, x, y T) bool {
	if _mutOn(boundary) {
		return x >= y
	}
	if _mutOn(negation) {
		return x <= y
	}
	return x > y
}

func _mutGeq[T _mutOrd](boundary, negation int, x, y T) bool {
	if _mutOn(boundary) {
		return x > y
	}
	if _mutOn(negation) {
		return x < y
	}
	return x >= y
}

func _mutNeg[T _mutNum](id int, x T) T {
	if _mutOn(id) {
		return +x
	}
	return -x
}

func _mutPlus[T _mutNum](id int, x T) T {
	if _mutOn(id) {
		return -x
	}
	return +x
}

func _mutInc[T _mutNum](id int, x T) T {
	if _mutOn(id) {
		return x - 1
	}
	return x + 1
}

func _mutDec[T _mutNum](id int, x T) T {
	if _mutOn(id) {
		return x + 1
	}
	return x - 1
}
`, pkg, mutantEnv, hitsEnv, n+1)
}
