package graph

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	gonumgraph "gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/graph/topo"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/cosimgo/cosim/node"
)

// This file solves algebraic loops: cycles of direct feedthrough, where a
// node's outputs read its inputs (Spec.Feedthrough) and those inputs read,
// through other such nodes, its own outputs. No evaluation order exists
// for such a cycle, so Build compiles each one (a strongly connected
// component of the feedthrough dependency graph) into a loopSolver, and
// every output evaluation solves it.
//
// Tearing. Build chooses tear nodes, a feedback vertex set of the loop,
// greedily: while the loop's remaining nodes hold a cycle, it tears the
// node of a cycle with the largest product of feedthrough in-degree and
// out-degree among the nodes still in cycles (the node most cycles run
// through), ties broken by fewer tear components, then by node order. The
// tear variables are the output components of the tear nodes that other
// loop members (or the tear nodes themselves) read; the other members are
// evaluated in a topological order of the loop with the tear nodes'
// outputs cut, so every member is evaluated exactly once per residual.
//
// Residual. With tear variables z written into the outputs they name, the
// members in that order, then the tear nodes (all gathering their inputs
// before any of them writes its outputs), give F(z), the tear nodes' new
// outputs; the loop is solved when r = F(z) − z is within tolerance in
// every component: |r_k| ≤ AbsTol + RelTol·|F_k(z)|.
//
// Newton. Each solve starts from z = 0, so a loop's outputs are a
// function of the time and the state alone (a replayed step, a restored
// checkpoint and a finite-difference Jacobian see the same function). The
// Newton matrix is ∂F/∂z − I, by the chain rule through the loop from
// each member's ∂y/∂u — its OutputsJacobian where it has one, central
// differences of its Outputs otherwise — unless an edge inside the loop
// has a transform, in which case by forward differences of the residual. When Newton
// fails (a singular matrix, a node error at an iterate, no convergence
// within MaxIter), the solve starts again from z = 0 as a fixed-point
// iteration with Anderson acceleration (type II, the last Memory
// differences). When that fails too the evaluation fails with a
// *LoopSolveError naming the loop, its members, the residual and the time:
// the last iterate is never used.
//
// Concurrency. A loop is one task of its output level: its first member
// (in node order) solves the whole loop on one goroutine, and the other
// members' tasks do nothing, so a loop serialises its members while the
// rest of the level runs in parallel beside it. Members are left out of
// batch families (they run on the per-node path).

// LoopSettings controls how algebraic loops (cycles of direct
// feedthrough) are treated. The zero value solves them with the
// documented defaults.
type LoopSettings struct {
	// Refuse makes Build reject every algebraic loop with a *LoopError
	// instead of solving it. Only Graph.SetLoopSettings reads it.
	Refuse bool
	// RelTol and AbsTol bound the residual of a solved loop in every tear
	// component: |F_k(z) − z_k| ≤ AbsTol + RelTol·|F_k(z)|. Zero means
	// DefaultLoopRelTol and DefaultLoopAbsTol; negative or non-finite is
	// an error.
	RelTol, AbsTol float64
	// MaxIter bounds the Newton iterations of one solve. Zero means
	// DefaultLoopMaxIter; negative is an error.
	MaxIter int
	// MaxFallbackIter bounds the iterations of the fixed-point fallback.
	// Zero means DefaultLoopFallbackIter; negative is an error.
	MaxFallbackIter int
	// Memory is the number of past differences Anderson acceleration of
	// the fallback uses. Zero means DefaultLoopMemory; negative means a
	// plain fixed-point iteration.
	Memory int
}

// Default loop settings (LoopSettings zero values).
const (
	DefaultLoopRelTol       = 1e-10
	DefaultLoopAbsTol       = 1e-12
	DefaultLoopMaxIter      = 20
	DefaultLoopFallbackIter = 200
	DefaultLoopMemory       = 5
)

// resolved returns the settings with zero values replaced by defaults,
// or an error naming the first bad value.
func (ls LoopSettings) resolved() (LoopSettings, error) {
	bad := func(name string, v any) error {
		return fmt.Errorf("graph: LoopSettings.%s is %v: it must be finite and not negative (zero: the default)", name, v)
	}
	switch {
	case !(ls.RelTol >= 0) || math.IsInf(ls.RelTol, 0):
		return ls, bad("RelTol", ls.RelTol)
	case !(ls.AbsTol >= 0) || math.IsInf(ls.AbsTol, 0):
		return ls, bad("AbsTol", ls.AbsTol)
	case ls.MaxIter < 0:
		return ls, bad("MaxIter", ls.MaxIter)
	case ls.MaxFallbackIter < 0:
		return ls, bad("MaxFallbackIter", ls.MaxFallbackIter)
	}
	if ls.RelTol == 0 {
		ls.RelTol = DefaultLoopRelTol
	}
	if ls.AbsTol == 0 {
		ls.AbsTol = DefaultLoopAbsTol
	}
	if ls.MaxIter == 0 {
		ls.MaxIter = DefaultLoopMaxIter
	}
	if ls.MaxFallbackIter == 0 {
		ls.MaxFallbackIter = DefaultLoopFallbackIter
	}
	switch {
	case ls.Memory == 0:
		ls.Memory = DefaultLoopMemory
	case ls.Memory < 0:
		ls.Memory = 0
	}
	return ls, nil
}

// SetLoopSettings sets how Build treats algebraic loops: refused, or
// solved with the given tolerances and limits (the Sim's defaults, which
// Settings.Loops overrides for one run).
func (g *Graph) SetLoopSettings(ls LoopSettings) { g.loops = ls }

// Loop describes an algebraic loop Build compiled to be solved.
type Loop struct {
	// Members are the loop's nodes, in node order.
	Members []string
	// TearNodes are the members whose outputs are iterated on.
	TearNodes []string
	// Tear are the tear variables, "node.output[i]".
	Tear []string
	// Analytic reports whether the Newton matrix comes by the chain rule
	// from every member's OutputsJacobian. When it is false, Differenced
	// lists the members whose ∂y/∂u the chain rule takes from central
	// differences of their Outputs instead; when an edge inside the loop
	// has a transform, the whole Newton matrix is differenced (ChainRule
	// false).
	Analytic    bool
	ChainRule   bool
	Differenced []string
	// Solves, Iterations and Fallbacks count, since Build, the loop's
	// solves, its Newton and fallback iterations, and the solves that
	// needed the fallback.
	Solves, Iterations, Fallbacks int64
}

// String is "loop through a, b, c (tear: b.y[0])".
func (l Loop) String() string {
	return fmt.Sprintf("loop through %s (tear: %s)", strings.Join(l.Members, ", "), strings.Join(l.Tear, ", "))
}

// Loops lists the algebraic loops the Sim solves, in the order of their
// first members.
func (s *Sim) Loops() []Loop {
	if s.loops == nil {
		return nil
	}
	out := make([]Loop, len(s.loops.solvers))
	for i, L := range s.loops.solvers {
		out[i] = Loop{Members: s.names(L.members), TearNodes: s.names(L.tears), Tear: slices.Clone(L.tearNames),
			Analytic: L.analytic && L.fdMembers == 0, ChainRule: L.analytic, Solves: L.solves, Iterations: L.iters, Fallbacks: L.fallbacks}
		for li, m := range L.members {
			if L.analytic && L.oj[li] == nil {
				out[i].Differenced = append(out[i].Differenced, s.nodes[m].name)
			}
		}
	}
	return out
}

// ErrLoopNotConverged is the errors.Is target of a LoopSolveError.
var ErrLoopNotConverged = errors.New("algebraic loop did not converge")

// LoopSolveError reports an algebraic loop whose solve did not converge.
// Evaluations return it wrapped in the *node.StateError of the loop's
// first member.
type LoopSolveError struct {
	Members    []string // the loop's nodes, in node order
	Tear       []string // its tear variables, "node.output[i]"
	Residual   float64  // max |F(z) − z| of the last iterate
	Worst      string   // the tear variable of that largest residual
	Time       float64
	Iterations int    // Newton and fallback iterations spent
	Detail     string // why Newton stopped
}

func (e *LoopSolveError) Error() string {
	return fmt.Sprintf("algebraic loop through %s did not converge at t=%s: residual %.3g in %s after %d iterations (%s); tear variables %s; loosen LoopSettings.RelTol/AbsTol, raise MaxIter, or break the loop with an edge from a state field",
		strings.Join(e.Members, ", "), strconv.FormatFloat(e.Time, 'g', -1, 64), e.Residual, e.Worst, e.Iterations, e.Detail, strings.Join(e.Tear, ", "))
}

func (e *LoopSolveError) Is(target error) bool { return target == ErrLoopNotConverged }

// loopState is the Sim's loop solving: its settings and solvers.
type loopState struct {
	built   LoopSettings // resolved at Build
	set     LoopSettings // in force (Settings.Loops during a run)
	solvers []*loopSolver
	// frozen puts every loop in frozen mode, its tear variables at
	// z* + eps·dz/dε instead of solved (loop_sensitivity.go).
	frozen bool
	eps    float64
}

// loopSolver is one compiled loop. Its buffers are sized at Build; a
// solve allocates nothing unless it fails.
type loopSolver struct {
	st      *loopState
	members []int32 // node order
	tears   []int32 // tear nodes, node order
	seq     []int32 // other members, in evaluation order
	idx     []int   // absolute offsets in Sim.y of the tear variables

	tearNames []string

	// Analytic Newton matrix: per member (local index), the gathers that
	// read a member; dY rows of every member's outputs with respect to z.
	analytic bool
	// oj is each member's OutputsJacobian, nil where its ∂y/∂u is
	// differenced locally (fdMembers of them), into yp and ym.
	oj        []node.OutputJacobian
	fdMembers int
	yp, ym    []float64
	local     map[int32]int // node → local index (Build only)
	lg        [][]loopGather
	dyOff     []int
	dY, dU    []float64
	D         []float64

	z, f, r, zt, ft, J, dz []float64
	ipiv                   []int
	// Anderson: differences of residuals and of F, a ring of Memory
	// columns; the normal equations and their right-hand side.
	dG, dF, gPrev, fPrev []float64
	N, gam               []float64
	mpiv                 []int

	solves, iters, fallbacks int64

	freeze *loopFreeze // the frozen mode's data, allocated on first use
}

// loopGather is a gather into a loop member that reads another member.
type loopGather struct {
	gi   int // index in Sim.gathers
	src  int // local index of the source member
	tear int // tear index of the source's first component, or −1
	row0 int // first row of the source's outputs read
	urow int // first input row written (relative to the member's u0)
}

// loopComponents returns the algebraic loops among comps (the cyclic
// components of the dependency graph) and self-loops, as sorted member
// lists, in the order they appear in the topological order.
func loopComponents(un topo.Unorderable, selfLoop map[int]bool) [][]int {
	var loops [][]int
	in := map[int]bool{}
	for _, comp := range un {
		var m []int
		for _, n := range comp {
			m = append(m, int(n.ID()))
			in[int(n.ID())] = true
		}
		sort.Ints(m)
		loops = append(loops, m)
	}
	var singles []int
	for d := range selfLoop {
		if !in[d] {
			singles = append(singles, d)
		}
	}
	sort.Ints(singles)
	for _, d := range singles {
		loops = append(loops, []int{d})
	}
	return loops
}

// loopLevels computes the output levels of a dependency graph with loops:
// order is the topological order with a nil entry per cyclic component
// (in the order of comps), and a loop's members all take one level, one
// more than the highest level any member reads outside the loop.
func loopLevels(n int, order []gonumgraph.Node, comps [][]int, deps [][]int) []int {
	level := make([]int, n)
	var inComp []int // the component of each node, −1 for none
	if len(comps) > 0 {
		inComp = make([]int, n)
		for i := range inComp {
			inComp[i] = -1
		}
	}
	for k, c := range comps {
		for _, m := range c {
			inComp[m] = k
		}
	}
	k := 0
	for _, nd := range order {
		if nd != nil {
			d := int(nd.ID())
			for _, src := range deps[d] {
				level[d] = max(level[d], level[src]+1)
			}
			continue
		}
		c := comps[k]
		k++
		lv := 0
		for _, m := range c {
			for _, src := range deps[m] {
				if inComp[src] != inComp[m] {
					lv = max(lv, level[src]+1)
				}
			}
		}
		for _, m := range c {
			level[m] = lv
		}
	}
	return level
}

// compileLoops builds a solver for every loop (b.loops) once the gathers
// are compiled, and marks the members' cnodes.
func (b *builder) compileLoops() {
	s := b.s
	if len(b.loops) == 0 {
		return
	}
	st := &loopState{built: b.loopSet, set: b.loopSet}
	s.loops = st
	// Loops in the order of their first members.
	sort.Slice(b.loops, func(i, j int) bool { return b.loops[i][0] < b.loops[j][0] })
	for _, members := range b.loops {
		L := &loopSolver{st: st, local: map[int32]int{}}
		for i, m := range members {
			L.members = append(L.members, int32(m))
			L.local[int32(m)] = i
		}
		b.tearLoop(L)
		b.planLoop(L)
		L.local = nil
		for i, m := range L.members {
			c := &s.nodes[m]
			c.loop = L
			c.loopLead = i == 0
		}
		st.solvers = append(st.solvers, L)
	}
}

// loopEdges lists, per member (local index), the members it reads
// through feedthrough (deduplicated, ascending), self included when it
// reads itself.
func (b *builder) loopEdges(L *loopSolver) [][]int {
	out := make([][]int, len(L.members))
	for _, r := range b.edges {
		if !r.fromY {
			continue
		}
		ls, ok1 := L.local[r.src]
		ld, ok2 := L.local[r.dst]
		if ok1 && ok2 && !slices.Contains(out[ld], ls) {
			out[ld] = append(out[ld], ls)
		}
	}
	for i := range out {
		slices.Sort(out[i])
	}
	return out
}

// tearLoop chooses L's tear nodes greedily (see the file comment) and the
// evaluation order of the others.
func (b *builder) tearLoop(L *loopSolver) {
	s := b.s
	reads := b.loopEdges(L)
	nm := len(L.members)
	torn := make([]bool, nm)
	// tearSize is the number of output components of member i that the
	// loop reads: the tear variables it would add.
	tearSize := make([]int, nm)
	for _, r := range b.edges {
		if ls, ok := L.local[r.src]; ok && r.fromY {
			if _, ok := L.local[r.dst]; ok {
				tearSize[ls] += int(r.sn)
			}
		}
	}
	sub := func() *simple.DirectedGraph {
		g := simple.NewDirectedGraph()
		for i := range nm {
			if !torn[i] {
				g.AddNode(simple.Node(int64(i)))
			}
		}
		for d, srcs := range reads {
			for _, src := range srcs {
				if !torn[d] && !torn[src] && src != d {
					g.SetEdge(simple.Edge{F: simple.Node(int64(src)), T: simple.Node(int64(d))})
				}
			}
		}
		return g
	}
	for {
		g := sub()
		cyclic := make([]bool, nm)
		any := false
		for _, comp := range topo.TarjanSCC(g) {
			if len(comp) > 1 {
				for _, n := range comp {
					cyclic[n.ID()] = true
					any = true
				}
			}
		}
		for i := range nm {
			if !torn[i] && slices.Contains(reads[i], i) {
				cyclic[i] = true
				any = true
			}
		}
		if !any {
			break
		}
		best, bestScore := -1, -1
		for i := range nm {
			if !cyclic[i] {
				continue
			}
			in, out := 0, 0
			for _, src := range reads[i] {
				if cyclic[src] && !torn[src] {
					in++
				}
			}
			for d := range nm {
				if cyclic[d] && !torn[d] && slices.Contains(reads[d], i) {
					out++
				}
			}
			score := in * out
			if score > bestScore || score == bestScore && tearSize[i] < tearSize[best] {
				best, bestScore = i, score
			}
		}
		torn[best] = true
	}
	order, err := topo.SortStabilized(sub(), nil)
	if err != nil {
		panic("graph: loop tearing left a cycle: " + err.Error())
	}
	for _, n := range order {
		L.seq = append(L.seq, L.members[n.ID()])
	}
	for i, m := range L.members {
		if torn[i] {
			L.tears = append(L.tears, m)
		}
	}
	// Tear variables: every component of a tear node a member reads.
	for _, r := range b.edges {
		ls, ok1 := L.local[r.src]
		_, ok2 := L.local[r.dst]
		if !r.fromY || !ok1 || !ok2 || !torn[ls] {
			continue
		}
		for k := range int(r.sn) {
			if o := r.srcOff + k; !slices.Contains(L.idx, o) {
				L.idx = append(L.idx, o)
			}
		}
	}
	slices.Sort(L.idx)
	for _, o := range L.idx {
		c := &s.nodes[s.outNode(o)]
		L.tearNames = append(L.tearNames, c.name+"."+c.spec.OutputLayout.Component(o-int(c.y0)))
	}
}

// planLoop sizes L's buffers and, when every member has an
// OutputsJacobian and no gather inside the loop has a transform, compiles
// the chain rule for the analytic Newton matrix.
func (b *builder) planLoop(L *loopSolver) {
	s := b.s
	n := len(L.idx)
	L.analytic = true
	L.lg = make([][]loopGather, len(L.members))
	L.dyOff = make([]int, len(L.members))
	dy, maxD, maxU, maxY := 0, 0, 0, 0
	for li, m := range L.members {
		c := &s.nodes[m]
		oj, _ := node.As[node.OutputJacobian](c.n)
		L.oj = append(L.oj, oj)
		if oj == nil {
			L.fdMembers++
		}
		L.dyOff[li] = dy
		ny, nu := int(c.y1)-int(c.y0), int(c.u1)-int(c.u0)
		dy += ny * n
		maxD = max(maxD, ny*nu)
		maxY = max(maxY, ny)
		maxU = max(maxU, nu*n)
		for gi := int(c.g0); gi < int(c.g1); gi++ {
			g := &s.gathers[gi]
			if !g.fromY {
				continue
			}
			src := int32(s.outNode(g.src()))
			ls, ok := L.local[src]
			if !ok {
				continue
			}
			if g.hasTr() {
				L.analytic = false
			}
			sc := &s.nodes[src]
			lgt := loopGather{gi: gi, src: ls, tear: -1, row0: g.src() - int(sc.y0), urow: g.dst() - int(c.u0)}
			if k, ok := slices.BinarySearch(L.idx, g.src()); ok && slices.Contains(L.tears, src) {
				lgt.tear = k
			}
			L.lg[li] = append(L.lg[li], lgt)
		}
	}
	if L.analytic {
		L.dY = make([]float64, dy)
		L.dU = make([]float64, maxU)
		L.D = make([]float64, maxD)
		L.yp, L.ym = make([]float64, maxY), make([]float64, maxY)
	}
	L.z, L.f, L.r = make([]float64, n), make([]float64, n), make([]float64, n)
	L.zt, L.ft, L.dz = make([]float64, n), make([]float64, n), make([]float64, n)
	L.J = make([]float64, n*n)
	L.ipiv = make([]int, n)
	mem := max(b.loopSet.Memory, DefaultLoopMemory, 1)
	L.dG, L.dF = make([]float64, mem*n), make([]float64, mem*n)
	L.gPrev, L.fPrev = make([]float64, n), make([]float64, n)
	L.N, L.gam = make([]float64, mem*mem), make([]float64, mem)
	L.mpiv = make([]int, mem)
}

// loopOutputs is evalOutputs for a loop member: the first member solves
// the loop, the others have nothing left to do.
func (s *Sim) loopOutputs(c *cnode, t float64) (err error) {
	if !c.loopLead {
		return nil
	}
	L := c.loop
	cur := int32(-1)
	defer func() {
		if r := recover(); r != nil {
			name := c.name
			if cur >= 0 {
				name = s.nodes[cur].name
			}
			err = panicError(name, s.steps, t, r)
		}
	}()
	if L.st.frozen {
		return s.frozenOutputs(L, t, &cur) // loop_sensitivity.go
	}
	L.solves++
	it, detail, err := s.newton(L, t, &cur)
	if err == nil {
		return nil
	}
	var le *LoopSolveError
	if !errors.As(err, &le) && detail == "" {
		return err // an error of the nodes at the start point
	}
	L.fallbacks++
	err = s.anderson(L, t, &cur)
	if errors.As(err, &le) {
		le.Iterations += it
		le.Detail = detail + "; fixed-point fallback: " + le.Detail
	}
	return err
}

// loopEval evaluates the loop at tear values z: writes z into the tear
// outputs, evaluates the members, and writes the tear nodes' new outputs
// F(z) into f.
func (s *Sim) loopEval(L *loopSolver, t float64, z, f []float64, cur *int32) error {
	for k, o := range L.idx {
		s.outputs[o] = z[k]
	}
	for _, i := range L.seq {
		*cur = i
		if err := s.evalNode(&s.nodes[i], t); err != nil {
			return err
		}
	}
	for _, i := range L.tears {
		*cur = i
		if err := s.gather(&s.nodes[i], t); err != nil {
			return err
		}
	}
	for _, i := range L.tears {
		*cur = i
		if err := s.callOutputs(&s.nodes[i], t); err != nil {
			return err
		}
	}
	*cur = -1
	for k, o := range L.idx {
		f[k] = s.outputs[o]
	}
	return nil
}

// residual writes r = f − z and reports whether it is within tolerance,
// with the largest |r_k| and its index.
func (L *loopSolver) residual(z, f, r []float64) (ok bool, worst float64, at int) {
	set := &L.st.set
	ok = true
	for k := range r {
		r[k] = f[k] - z[k]
		a := math.Abs(r[k])
		if !(a <= set.AbsTol+set.RelTol*math.Abs(f[k])) {
			ok = false
		}
		if a > worst || at < 0 || math.IsNaN(a) {
			worst, at = a, k
		}
	}
	return ok, worst, at
}

func (s *Sim) loopFail(L *loopSolver, t float64, worst float64, at, iters int, detail string) error {
	e := &LoopSolveError{Members: s.names(L.members), Tear: slices.Clone(L.tearNames), Residual: worst, Time: t, Iterations: iters, Detail: detail}
	if at >= 0 && at < len(L.tearNames) {
		e.Worst = L.tearNames[at]
	}
	return stepError(s.nodes[L.members[0]].name, "", s.steps, t, e)
}

// newton solves the loop by Newton's method from z = 0. It returns the
// iterations spent and, on failure, why (detail empty: an error of the
// nodes at the start point, which is the nodes' own).
func (s *Sim) newton(L *loopSolver, t float64, cur *int32) (int, string, error) {
	z, f, r := L.z, L.f, L.r
	n := len(z)
	clear(z)
	if err := s.loopEval(L, t, z, f, cur); err != nil {
		return 0, "", err
	}
	ok, worst, at := L.residual(z, f, r)
	if ok {
		return 0, "", nil
	}
	maxIt := L.st.set.MaxIter
	for it := 1; it <= maxIt; it++ {
		L.iters++
		if err := s.loopJacobian(L, t, cur); err != nil {
			return it, "Newton matrix: " + err.Error(), s.loopFail(L, t, worst, at, it, "Newton matrix failed")
		}
		for k := range n {
			L.J[k*n+k] -= 1
			L.dz[k] = -r[k]
		}
		a := blas64.General{Rows: n, Cols: n, Stride: n, Data: L.J}
		if !lapack64.Getrf(a, L.ipiv) {
			return it, "singular Newton matrix", s.loopFail(L, t, worst, at, it, "singular Newton matrix")
		}
		lapack64.Getrs(blas.NoTrans, a, blas64.General{Rows: n, Cols: 1, Stride: 1, Data: L.dz}, L.ipiv)
		for k := range n {
			z[k] += L.dz[k]
		}
		if err := s.loopEval(L, t, z, f, cur); err != nil {
			return it, "node error at a Newton iterate: " + err.Error(), s.loopFail(L, t, worst, at, it, "node error at a Newton iterate")
		}
		if ok, worst, at = L.residual(z, f, r); ok {
			return it, "", nil
		}
	}
	return maxIt, fmt.Sprintf("Newton: no convergence in %d iterations", maxIt), s.loopFail(L, t, worst, at, maxIt, "Newton did not converge")
}

// loopJacobian writes ∂F/∂z at the last evaluated iterate L.z (whose
// inputs and outputs the Sim holds) into L.J, row-major.
func (s *Sim) loopJacobian(L *loopSolver, t float64, cur *int32) error {
	n := len(L.z)
	if !L.analytic {
		// Forward differences: column j from F(z + h e_j).
		for j := range n {
			copy(L.zt, L.z)
			h := math.Sqrt(0x1p-52) * math.Max(1, math.Abs(L.z[j]))
			L.zt[j] += h
			h = L.zt[j] - L.z[j]
			if err := s.loopEval(L, t, L.zt, L.ft, cur); err != nil {
				return err
			}
			for k := range n {
				L.J[k*n+j] = (L.ft[k] - L.f[k]) / h
			}
		}
		// Restore the evaluation at z for the caller's next step.
		return s.loopEval(L, t, L.z, L.f, cur)
	}
	// Chain rule: members in evaluation order, then the tear nodes.
	clear(L.J)
	member := func(i int32) error {
		li := slices.Index(L.members, i)
		c := &s.nodes[i]
		ny, nu := int(c.y1)-int(c.y0), int(c.u1)-int(c.u0)
		dU := L.dU[:nu*n]
		clear(dU)
		for _, g := range L.lg[li] {
			gt := &s.gathers[g.gi]
			for k := range gt.n() {
				row := dU[(g.urow+k)*n : (g.urow+k+1)*n]
				if g.tear >= 0 {
					row[g.tear+k]++
					continue
				}
				src := L.dY[L.dyOff[g.src]+(g.row0+k)*n:][:n]
				for j := range n {
					row[j] += src[j]
				}
			}
		}
		D := L.D[:ny*nu]
		*cur = i
		if oj := L.oj[li]; oj != nil {
			if err := oj.OutputsJacobian(t, s.state[c.x0:c.x1], s.inputsOf(c), D); err != nil {
				return stepError(c.name, "", s.steps, t, err)
			}
		} else if err := s.loopLocalJacobian(L, c, t, D); err != nil {
			return err
		}
		dY := L.dY[L.dyOff[li] : L.dyOff[li]+ny*n]
		clear(dY)
		for r := range ny {
			out := dY[r*n : (r+1)*n]
			for q := range nu {
				if d := D[r*nu+q]; d != 0 {
					in := dU[q*n : (q+1)*n]
					for j := range n {
						out[j] += d * in[j]
					}
				}
			}
		}
		return nil
	}
	for _, i := range L.seq {
		if err := member(i); err != nil {
			return err
		}
	}
	for _, i := range L.tears {
		if err := member(i); err != nil {
			return err
		}
	}
	*cur = -1
	for k, o := range L.idx {
		i := int32(s.outNode(o))
		li := slices.Index(L.members, i)
		c := &s.nodes[i]
		copy(L.J[k*n:(k+1)*n], L.dY[L.dyOff[li]+(o-int(c.y0))*n:][:n])
	}
	return nil
}

// loopLocalJacobian writes ∂y/∂u of member c (ny × nu, row-major) into
// D by central differences of its Outputs over each input component, at
// the inputs it was last evaluated with (h = 1e-6·max(1, |u_q|), the
// step of the node-local differences of the monolithic Jacobian); it
// leaves the inputs as they were and the outputs as evaluated.
func (s *Sim) loopLocalJacobian(L *loopSolver, c *cnode, t float64, D []float64) error {
	ny, nu := c.y1-c.y0, c.u1-c.u0
	x, in := s.state[c.x0:c.x1], s.inputsOf(c)
	yp, ym := L.yp[:ny], L.ym[:ny]
	for q := range nu {
		u := in.Values[q]
		h := fdStep(u)
		in.Values[q] = u + h
		hp := in.Values[q] - u
		err := c.out.Outputs(t, x, in, yp)
		in.Values[q] = u - h
		hm := u - in.Values[q]
		if err == nil {
			err = c.out.Outputs(t, x, in, ym)
		}
		in.Values[q] = u
		if err != nil {
			return stepError(c.name, "", s.steps, t, err)
		}
		for r := range ny {
			D[r*nu+q] = (yp[r] - ym[r]) / (hp + hm)
		}
	}
	return nil
}

// anderson solves the loop by a fixed-point iteration from z = 0,
// accelerated by Anderson mixing over the last Memory differences.
func (s *Sim) anderson(L *loopSolver, t float64, cur *int32) error {
	z, f, r := L.z, L.f, L.r
	n := len(z)
	mem := L.st.set.Memory
	clear(z)
	if err := s.loopEval(L, t, z, f, cur); err != nil {
		return err
	}
	ok, worst, at := L.residual(z, f, r)
	if ok {
		return nil
	}
	stored, next := 0, 0
	maxIt := L.st.set.MaxFallbackIter
	for it := 1; it <= maxIt; it++ {
		L.iters++
		if it > 1 && mem > 0 {
			col := next * n
			for k := range n {
				L.dG[col+k] = r[k] - L.gPrev[k]
				L.dF[col+k] = f[k] - L.fPrev[k]
			}
			next = (next + 1) % mem
			stored = min(stored+1, mem)
		}
		copy(L.gPrev, r)
		copy(L.fPrev, f)
		copy(z, f)
		if stored > 0 && L.mix(stored) {
			for q := range stored {
				g := L.gam[q]
				for k := range n {
					z[k] -= g * L.dF[q*n+k]
				}
			}
		}
		if err := s.loopEval(L, t, z, f, cur); err != nil {
			// A diverging iteration ends in a node's non-finite output
			// (or a node refusing its inputs): the loop did not converge.
			return s.loopFail(L, t, worst, at, it, "node error at an iterate: "+err.Error())
		}
		if ok, worst, at = L.residual(z, f, r); ok {
			return nil
		}
	}
	return s.loopFail(L, t, worst, at, maxIt, fmt.Sprintf("no convergence in %d iterations", maxIt))
}

// mix solves the Anderson least-squares problem min ‖r − ΔG γ‖ over the
// stored columns through its normal equations (regularised by a relative
// 1e-12 of their trace) into L.gam, and reports whether it could.
func (L *loopSolver) mix(m int) bool {
	n := len(L.r)
	N := L.N[:m*m]
	tr := 0.0
	for a := range m {
		ga := L.dG[a*n : (a+1)*n]
		for b := range m {
			gb := L.dG[b*n : (b+1)*n]
			d := 0.0
			for k := range n {
				d += ga[k] * gb[k]
			}
			N[a*m+b] = d
		}
		tr += N[a*m+a]
		d := 0.0
		for k := range n {
			d += ga[k] * L.r[k]
		}
		L.gam[a] = d
	}
	if !(tr > 0) || math.IsInf(tr, 0) {
		return false
	}
	for a := range m {
		N[a*m+a] += 1e-12 * tr
	}
	A := blas64.General{Rows: m, Cols: m, Stride: m, Data: N}
	if !lapack64.Getrf(A, L.mpiv[:m]) {
		return false
	}
	lapack64.Getrs(blas.NoTrans, A, blas64.General{Rows: m, Cols: 1, Stride: 1, Data: L.gam[:m]}, L.mpiv[:m])
	for _, g := range L.gam[:m] {
		if math.IsNaN(g) || math.IsInf(g, 0) {
			return false
		}
	}
	return true
}

// closeLoops adds to set every member of a loop one of whose members is
// in it: a loop is evaluated whole.
func (s *Sim) closeLoops(set []bool) {
	if s.loops == nil {
		return
	}
	for _, L := range s.loops.solvers {
		in := false
		for _, m := range L.members {
			in = in || set[m]
		}
		if in {
			for _, m := range L.members {
				set[m] = true
			}
		}
	}
}

// useLoopSettings puts ls (nil: the Build settings) in force for a run
// and returns the function that restores the Build settings.
func (s *Sim) useLoopSettings(ls *LoopSettings) (func(), error) {
	if ls == nil || s.loops == nil {
		if ls != nil {
			if _, err := ls.resolved(); err != nil {
				return nil, err
			}
		}
		return func() {}, nil
	}
	if ls.Refuse {
		return nil, errors.New("graph: Settings.Loops.Refuse: refusing loops is decided at Build (Graph.SetLoopSettings); this Sim was built with loops to solve")
	}
	r, err := ls.resolved()
	if err != nil {
		return nil, err
	}
	st := s.loops
	st.set = r
	return func() { st.set = st.built }, nil
}
