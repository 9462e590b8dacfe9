package graph

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/cosimgo/cosim/node"
)

// The monolithic system's Jacobian ∂f/∂y is assembled by the chain rule
// through the graph, sparsely:
//
//	∂f_i/∂y = A_i·E_i + B_i·∂u_i/∂y,
//	∂u/∂y through edges: state sources are selections, output sources
//	∂y_k/∂y = C_k·E_k + D_k·∂u_k/∂y,
//
// with A_i = ∂f_i/∂x_i and B_i = ∂f_i/∂u_i from the node's
// DerivativesJacobian (node.InputJacobian) and D_k = ∂y_k/∂u_k from a
// connector's analytic OutputsJacobian (node.OutputJacobian) where the
// nodes provide them, and node-local central finite differences of that
// one node where they do not; C_k (outputs with respect to the node's own
// state) is always differenced locally. Transforms are differentiated
// exactly (Scale, Component, Embed) or by central differences (TransformFunc).
//
// Columns. Which columns a row may reach is fixed from the graph alone,
// when the Jacobian is first asked for: a node's local blocks A, B, C, D
// are taken as dense (the node contract declares no finer structure, and
// an entry that is zero at one state — a contact force out of contact —
// may not be at another), and the edges carry that structure: every row
// of node i's f depends on node i's own state and on every state
// component its inputs reach, one column set per node. The set is exact
// at graph granularity and conservative inside a node — except for the
// rows of Position-role components, whose derivative is their velocity by
// the node contract (node.Position): those rows are the single velocity
// entry, and every evaluation checks the node's own local Jacobian agrees
// (an error naming the node otherwise). Only the output rows that reach
// a Derivatives (through feedthrough chains) are computed.
//
// Values. JacobianRows hands the rows to the caller one stateful node at a
// time, in increasing row order, over the node's column set: the zeros
// the dense local blocks put in them are the caller's to drop (the
// integrators' Newton matrix stores only the non-zeros, so it holds the
// Jacobian's true sparsity). Nothing of size nnz is kept here: an output
// node's rows are computed when the first stateful node that reaches them
// is assembled, into a slot of a small arena, and the slot is reused once
// the last such node is done (in a chain built in order, two connectors'
// rows are alive at a time). The plan holds the column sets (one per
// stateful and per needed output node), the arena and work sized for the
// largest node. SparseJacobian and JacobianPattern, for callers that want
// a fixed pattern (the sensitivities), lay the same rows out in CSR; the
// pattern is built on first use.
//
// Loops. The members of an algebraic loop read each other, so none of
// their rows can come first: they share one column set, are needed (and
// computed) together, by the implicit-function theorem on the converged
// loop, when the first of them is due (loop_jacobian.go).
//
// An evaluation allocates nothing and costs O(Σ rows × column set) plus
// the nodes' local Jacobians.

// sparseJac is the lazily built assembly plan of a System.
type sparseJac struct {
	nx int

	// Column sets, ascending, for stateful nodes and needed output nodes
	// (empty for the others): node k's has setLen[k] columns. A set of
	// consecutive columns (every set of a chain: a node's own state and
	// its neighbours') is stored as its first column, setAt[k] = −1 −
	// first, and written out when used into one of two work slices
	// (curCols for the node being computed, srcCols for a node whose
	// rows it reads); the others are stored in cols from setAt[k] ≥ 0.
	// At 10⁵ masses this keeps 8 bytes per node instead of 12 million
	// bytes of columns.
	setAt, setLen    []int32
	cols             []int32
	curCols, srcCols []int32

	// needY marks output nodes whose rows are needed; needRow the output
	// rows read by a gather into a node whose inputs are needed.
	needY   bitset // a bit per node
	needRow bitset // a bit per output row

	// Output rows of node k, all ny × len(cols of k) of them (only the
	// needed ones computed), live at arena[slot[k]:].
	slot  []int32
	arena []float64
	// order lists the stateful nodes in increasing state offset; before
	// order[s] is assembled, the output nodes comp[compOff[s]:compOff[s+1]]
	// (in evaluation order) are computed.
	order   []int32
	compOff []int32
	comp    []int32
	// nodes are the Sim's node records, whose first output rows y0 are
	// ascending (ownerOf finds the node of an output row among them);
	// needIn marks the nodes whose inputs the Jacobian reads (gsrc).
	nodes  []cnode
	needIn bitset
	hint   int // ownerOf's last answer: readers' sources are neighbours

	// direct marks the nodes whose every input component is one plain
	// copy of a state component in the node's column set (no transform,
	// nothing added, not an output): their ∂u/∂y is a selection, input q
	// being the local column of its source (directCols).
	direct bitset

	// pv is node k's posVel table while its rows are computed: pv[r] is
	// the local velocity component of its position component r (a
	// Position-role field: its derivative is its Rate field by the node
	// contract), or -1. It is derived from the node's state layout at
	// each use rather than stored for every state.
	pv []int32

	// Work.
	locSet []int32   // the column set of the node being computed (setLoc, locOf)
	locRun bool      // locSet is a run of consecutive columns
	uloc   []float64 // the input rows of the node being computed, nu × its column count
	umark  []bool    // entries of uloc written in this computation
	ucnt   []int32   // the columns written in input row q: ucol[q·nc : q·nc+ucnt[q]]
	ucol   []int32
	dir    []int32   // a direct node's local column of each input (directCols)
	need   []int32   // the needed rows of the output node being computed
	row    []float64 // one row of a stateful node, over its columns
	one    [1]int32  // a position row's column
	oneV   [1]float64
	la, lb []float64 // local blocks (A or C, B or D), sized for the largest node
	tr     []float64 // transform Jacobians of one node's gathers
	trOff  []int32   // offset of each gather's block in tr, by gather index minus the node's first (transforms)
	fp, fm []float64
	f0     []float64 // the differenced function at the unperturbed point
	fdf    fdFunc    // the function differenced (fdColumn)
	xs, us []float64
	blocks []int

	// The fixed pattern (CSR) of SparseJacobian, built on first use, and
	// what its emit writes into.
	rowPtr, pcol []int
	sjVal        []float64
	sjEmit       func(int, []int32, []float64)
	dense        []float64
	denseEmit    func(int, []int32, []float64)

	// loops holds the storage of each loop's rows, by the loop's index
	// in the Sim (nil for a loop no stateful node reads).
	loops []*loopPlan
}

// tStruct reports whether entry (r, j) of a gather's transform Jacobian
// can be non-zero.
func (l *layout) tStruct(g *gather, r, j int) bool {
	switch tr := l.tr(g).(type) {
	case nil, Scale:
		return r == j
	case Component:
		return r == 0 && j == tr.Index
	case Embed:
		return r == tr.Axis && j == 0
	}
	return true
}

// nodeCols returns node k's column set: a stored set, or a run of
// consecutive columns written into buf (curCols or srcCols, valid until
// the next call with the same buffer).
func (p *sparseJac) nodeCols(k int, buf []int32) []int32 {
	a, n := p.setAt[k], p.setLen[k]
	if a < 0 {
		a = -1 - a
		set := buf[:n:n]
		for j := range set {
			set[j] = a + int32(j)
		}
		return set
	}
	return p.cols[a : a+n : a+n]
}

// consecutive reports whether the ascending set is a run of consecutive
// columns (an empty set is one).
func consecutive(set []int32) bool {
	return len(set) == 0 || int(set[len(set)-1]-set[0]) == len(set)-1
}

// chunks32 hands out int32 slices carved from large chunks: the plan's
// per-node column sets, hundreds of thousands of short slices in a large
// graph, cost a few allocations instead of one each. A slice handed out
// stays valid (a new chunk is started, the old one is not moved).
type chunks32 struct{ cur []int32 }

// take returns a copy of src in the current chunk.
func (c *chunks32) take(src []int32) []int32 {
	if len(src) > cap(c.cur)-len(c.cur) {
		c.cur = make([]int32, 0, max(1<<16, len(src)))
	}
	n := len(c.cur)
	c.cur = append(c.cur, src...)
	return c.cur[n:len(c.cur):len(c.cur)]
}

// plan builds the assembly plan: which output rows are needed, the column
// sets, the order of the computations and the arena.
func (m *System) plan() *sparseJac {
	if m.sj != nil {
		return m.sj
	}
	s := m.s
	nx, nn := len(s.state), len(s.nodes)
	p := &sparseJac{nx: nx}
	// owner[r] is the node whose outputs hold row r (Sim.outNode, by one
	// sweep instead of a search per use: the searches were a third of
	// the plan at 10⁵ nodes).
	owner := make([]int32, len(s.outputs))
	for r, k := 0, 0; r < len(owner); r++ {
		for k < nn && int(s.nodes[k].y1) <= r {
			k++
		}
		owner[r] = int32(k)
	}
	// Which output nodes are needed: those read by a stateful node, and
	// (through feedthrough) by a needed output node; a loop is needed
	// whole (its members' rows come out of one solve, loop_jacobian.go).
	p.needY = newBitset(nn)
	needIn := make([]bool, nn)
	var work []int32
	for _, i := range s.stateful {
		needIn[i] = true
		work = append(work, i)
	}
	for len(work) > 0 {
		c := &s.nodes[work[len(work)-1]]
		work = work[:len(work)-1]
		for gi := c.g0; gi < c.g1; gi++ {
			g := &s.gathers[gi]
			if !g.fromY {
				continue
			}
			k := owner[g.src()]
			srcs := []int32{k}
			if L := s.nodes[k].loop; L != nil {
				srcs = L.members
			}
			for _, k := range srcs {
				p.needY.set(int(k))
				if s.nodes[k].feedthrough && !needIn[k] {
					needIn[k] = true
					work = append(work, k)
				}
			}
		}
	}
	p.needRow = newBitset(len(s.outputs))
	p.nodes = s.nodes
	p.needIn = newBitset(nn)
	for k, ok := range needIn {
		if ok {
			p.needIn.set(k)
		}
	}
	for ni := range s.nodes {
		c := &s.nodes[ni]
		if !needIn[ni] {
			continue
		}
		for gi := c.g0; gi < c.g1; gi++ {
			if g := &s.gathers[gi]; g.fromY {
				for r := g.src(); r < g.src()+g.sn(); r++ {
					p.needRow.set(r)
				}
			}
		}
	}
	// Column sets, sources before their readers: needed output nodes by
	// level, then stateful nodes.
	mark := make([]int32, nx)
	stamp := int32(0)
	var buf []int32
	var sets32 chunks32 // the sets' storage: a few large chunks, not one allocation per node
	sets := make([][]int32, nn)
	union := func(c *cnode, withInputs bool) []int32 {
		stamp++
		buf = buf[:0]
		add := func(j int) {
			if mark[j] != stamp {
				mark[j] = stamp
				buf = append(buf, int32(j))
			}
		}
		for j := int(c.x0); j < int(c.x1); j++ {
			add(j)
		}
		if withInputs {
			for gi := c.g0; gi < c.g1; gi++ {
				g := &s.gathers[gi]
				for r := 0; r < g.n(); r++ {
					for j := 0; j < g.sn(); j++ {
						if !s.tStruct(g, r, j) {
							continue
						}
						if g.fromY {
							for _, col := range sets[owner[g.src()+j]] {
								add(int(col))
							}
						} else {
							add(g.src() + j)
						}
					}
				}
			}
		}
		slices.Sort(buf)
		return sets32.take(buf)
	}
	for _, level := range s.levels {
		for _, k := range level {
			c := &s.nodes[k]
			switch {
			case !p.needY.has(int(k)):
			case c.loop != nil:
				if c.loopLead {
					set := loopColumns(s, c.loop, sets, mark, &stamp)
					for _, mb := range c.loop.members {
						sets[mb] = set
					}
				}
			default:
				sets[k] = union(c, c.feedthrough && c.u1 > c.u0)
			}
		}
	}
	for _, i := range s.stateful {
		sets[i] = union(&s.nodes[i], true)
	}
	p.setAt, p.setLen = make([]int32, nn), make([]int32, nn)
	total := 0
	for _, set := range sets {
		if !consecutive(set) {
			total += len(set)
		}
	}
	p.cols = make([]int32, 0, total)
	maxC := 0
	for k, set := range sets {
		maxC = max(maxC, len(set))
		p.setLen[k] = int32(len(set))
		switch {
		case len(set) == 0:
			p.setAt[k] = -1
		case consecutive(set):
			p.setAt[k] = -1 - set[0]
		default:
			p.setAt[k] = int32(len(p.cols))
			p.cols = append(p.cols, set...)
		}
	}
	sets = nil
	p.curCols, p.srcCols = make([]int32, maxC), make([]int32, maxC)
	m.planOrder(p)
	m.planDirect(p)
	m.planWork(p)
	m.planLoops(p) // loop_jacobian.go
	m.sj = p
	// The plan's working sets are garbage now, and the first assembly
	// allocates the matrix next: return the free pages (release.go).
	releaseFreePages(nx)
	return p
}

// planOrder orders the stateful nodes by state offset, decides when each
// needed output node is computed (before the first stateful node that
// reaches it) and until when its rows are kept (the last such node), and
// gives each a slot of the arena, reusing the slots of nodes no longer
// needed.
func (m *System) planOrder(p *sparseJac) {
	s := m.s
	nn := len(s.nodes)
	p.order = slices.Clone(s.stateful)
	slices.SortStableFunc(p.order, func(a, b int32) int { return int(s.nodes[a].x0) - int(s.nodes[b].x0) })
	level := make([]int32, nn)
	for l, lv := range s.levels {
		for _, k := range lv {
			level[k] = int32(l)
		}
	}
	first, last := make([]int32, nn), make([]int32, nn)
	for k := range first {
		first[k] = -1
	}
	seen := make([]int32, nn) // stamp: reached from order[seen-1]
	var stack, fresh []int32
	p.compOff = make([]int32, len(p.order)+1)
	for si, i := range p.order {
		stack = append(stack[:0], i)
		fresh = fresh[:0]
		for len(stack) > 0 {
			ci := stack[len(stack)-1]
			c := &s.nodes[ci]
			stack = stack[:len(stack)-1]
			for gi := c.g0; gi < c.g1; gi++ {
				k := p.gsrc(int(ci), &s.gathers[gi])
				if k < 0 || seen[k] == int32(si+1) {
					continue
				}
				seen[k] = int32(si + 1)
				last[k] = int32(si)
				if first[k] < 0 {
					first[k] = int32(si)
					fresh = append(fresh, k)
					if s.nodes[k].feedthrough {
						// Its sources are needed to compute it now;
						// once computed, its rows are kept instead.
						stack = append(stack, k)
					}
				}
			}
		}
		slices.SortFunc(fresh, func(a, b int32) int {
			if level[a] != level[b] {
				return int(level[a] - level[b])
			}
			return int(a - b)
		})
		p.comp = append(p.comp, fresh...)
		p.compOff[si+1] = int32(len(p.comp))
	}
	// Slots: a block of ny × columns per output node, from its first use
	// to its last; a block freed is reused by the next node of the same
	// size (nodes of one type have one size).
	p.slot = make([]int32, nn)
	// Freed slots by size; the nodes whose last use is order[si] in a
	// list threaded through next (first and tail by si), in the order
	// they were computed.
	free := map[int][]int32{}
	dyFirst, dyTail, next := first, make([]int32, len(p.order)), seen // first and seen are free again
	for i := range dyFirst[:len(p.order)] {
		dyFirst[i] = -1
	}
	end := 0
	for si := range p.order {
		for _, k := range p.comp[p.compOff[si]:p.compOff[si+1]] {
			c := &s.nodes[k]
			size := (int(c.y1) - int(c.y0)) * int(p.setLen[k])
			if f := free[size]; len(f) > 0 {
				p.slot[k] = f[len(f)-1]
				free[size] = f[:len(f)-1]
			} else {
				p.slot[k] = int32(end)
				end += size
			}
			d := last[k]
			next[k] = -1
			if dyFirst[d] < 0 {
				dyFirst[d] = k
			} else {
				next[dyTail[d]] = k
			}
			dyTail[d] = k
		}
		for k := dyFirst[si]; k >= 0; k = next[k] {
			c := &s.nodes[k]
			size := (int(c.y1) - int(c.y0)) * int(p.setLen[k])
			free[size] = append(free[size], p.slot[k])
		}
	}
	p.arena = make([]float64, end)
}

// planDirect finds the nodes whose inputs are plain copies of state
// components of their column sets, each component written once.
func (m *System) planDirect(p *sparseJac) {
	s := m.s
	p.direct = newBitset(len(s.nodes))
	var seen []bool
	for k := range s.nodes {
		c := &s.nodes[k]
		set := p.nodeCols(k, p.curCols)
		if len(set) == 0 || c.u1 == c.u0 {
			continue
		}
		seen = slices.Grow(seen[:0], int(c.u1-c.u0))[:c.u1-c.u0]
		clear(seen)
		ok := true
		for gi := c.g0; gi < c.g1 && ok; gi++ {
			g := &s.gathers[gi]
			ok = !g.hasTr() && !g.fromY && g.mode == gatherSet && g.n() == g.sn()
			for r := 0; ok && r < g.n(); r++ {
				e := g.dst() + r - int(c.u0)
				_, found := slices.BinarySearch(set, int32(g.src()+r))
				ok = found && !seen[e]
				seen[e] = true
			}
		}
		for _, w := range seen {
			ok = ok && w // every input component written, once
		}
		if ok {
			p.direct.set(k)
		}
	}
}

// directCols returns the local column of each input component of direct
// node c (its columns the current set, setLoc), read from its gathers: the table is
// rebuilt at each assembly rather than stored for every node.
func (p *sparseJac) directCols(s *Sim, c *cnode) []int32 {
	dir := p.dir[:c.u1-c.u0]
	for gi := c.g0; gi < c.g1; gi++ {
		g := &s.gathers[gi]
		for r := 0; r < g.n(); r++ {
			dir[g.dst()+r-int(c.u0)] = p.locOf(g.src() + r)
		}
	}
	return dir
}

// planWork sizes the work storage for the largest node.
func (m *System) planWork(p *sparseJac) {
	s := m.s
	maxA, maxB, maxT, maxV, maxU, maxC := 0, 0, 0, 0, 0, 0
	maxG := 0
	for ni := range s.nodes {
		c := &s.nodes[ni]
		nxi, nu, ny := int(c.x1)-int(c.x0), int(c.u1)-int(c.u0), int(c.y1)-int(c.y0)
		nc := int(p.setLen[ni])
		maxA = max(maxA, nxi*nxi, ny*nxi)
		maxB = max(maxB, nxi*nu, ny*nu)
		maxV = max(maxV, nxi, nu, ny)
		maxU = max(maxU, nu*nc)
		maxC = max(maxC, nc)
		maxG = max(maxG, int(c.g1-c.g0))
		off := 0
		for gi := c.g0; gi < c.g1; gi++ {
			g := &s.gathers[gi]
			off += g.n() * g.sn()
			maxV = max(maxV, g.n(), g.sn())
		}
		maxT = max(maxT, off)
	}
	p.la, p.lb, p.tr = make([]float64, maxA), make([]float64, maxB), make([]float64, maxT)
	p.fp, p.fm, p.xs, p.us = make([]float64, maxV), make([]float64, maxV), make([]float64, maxV), make([]float64, maxV)
	p.f0 = make([]float64, maxV)
	p.uloc, p.umark, p.ucol, p.row = make([]float64, maxU), make([]bool, maxU), make([]int32, maxU), make([]float64, maxC)
	p.ucnt, p.need, p.dir = make([]int32, maxV), make([]int32, 0, maxV), make([]int32, maxV)
	p.trOff, p.pv = make([]int32, maxG), make([]int32, maxV)
	p.blocks = append(p.blocks, 0)
	for _, i := range s.stateful {
		if c := &s.nodes[i]; c.x1 > c.x0 {
			p.blocks = append(p.blocks, int(c.x1))
		}
	}
	if len(p.blocks) == 1 && p.nx > 0 {
		p.blocks = append(p.blocks, p.nx)
	}
	p.sjEmit = p.patternRow
	p.denseEmit = p.denseRow
}

// outNode returns the node whose outputs hold s.outputs[r].
func (s *Sim) outNode(r int) int {
	i, _ := slices.BinarySearchFunc(s.nodes, r, func(c cnode, r int) int {
		switch {
		case int(c.y1) <= r:
			return -1
		case int(c.y0) > r:
			return 1
		}
		return 0
	})
	return i
}

// JacobianRows hands the rows of ∂f/∂y at (t, y) to emit, in increasing
// row order, each over its node's column set (see the comment at the top
// of jacobian.go): the entries that are zero at this state are among
// them. A position row is its single velocity entry. It implements
// integrators.JacobianRows and does not allocate. A panic in node code is
// returned as a *node.StateError naming the node.
func (m *System) JacobianRows(t float64, y []float64, emit func(row int, cols []int32, vals []float64)) (err error) {
	s := m.s
	p := m.plan()
	if len(y) != len(s.state) {
		panic(fmt.Sprintf("graph: System.JacobianRows with len(y)=%d, want %d", len(y), len(s.state)))
	}
	saved, err := m.prepare(t, y)
	defer m.restore(saved)
	if err != nil {
		return err
	}
	cur := int32(-1)
	defer m.recoverAt(&cur, t, &err)
	for si, i := range p.order {
		for _, k := range p.comp[p.compOff[si]:p.compOff[si+1]] {
			cur = k
			if L := s.nodes[k].loop; L != nil {
				// A loop's members are computed together, by its first
				// member (loop_jacobian.go), which comes first among them.
				if s.nodes[k].loopLead {
					if err := m.loopRows(p, L, t, y, &cur); err != nil {
						return err
					}
				}
				continue
			}
			if err := m.outputRows(p, int(k), t, y); err != nil {
				return err
			}
		}
		cur = i
		if err := m.stateRows(p, int(i), t, y, emit); err != nil {
			return err
		}
	}
	return nil
}

// JacobianPattern returns the sparsity pattern of ∂f/∂y (CSR, columns
// ascending), built from the graph on the first call: the rows
// JacobianRows gives. It implements integrators.SparseJacobian, for
// callers that want a fixed pattern.
func (m *System) JacobianPattern() (rowPtr, col []int) {
	p := m.plan()
	if p.rowPtr == nil {
		// Row r holds its velocity column if it is a position row, its
		// node's column set otherwise; rows of no stateful node (none:
		// the stateful nodes' ranges cover the state) would be empty.
		p.rowPtr = make([]int, p.nx+1)
		for _, i := range p.order {
			c := &m.s.nodes[i]
			pv := p.posVel(c)
			for r := c.x0; r < c.x1; r++ {
				p.rowPtr[r+1] = int(p.setLen[i])
				if pv[r-c.x0] >= 0 {
					p.rowPtr[r+1] = 1
				}
			}
		}
		for r := range p.nx {
			p.rowPtr[r+1] += p.rowPtr[r]
		}
		p.pcol = make([]int, p.rowPtr[p.nx])
		for _, i := range p.order {
			c := &m.s.nodes[i]
			set := p.nodeCols(int(i), p.curCols)
			pv := p.posVel(c)
			for r := c.x0; r < c.x1; r++ {
				row := p.pcol[p.rowPtr[r]:p.rowPtr[r+1]]
				if v := pv[r-c.x0]; v >= 0 {
					row[0] = int(c.x0 + v)
					continue
				}
				for j, col := range set {
					row[j] = int(col)
				}
			}
		}
	}
	return p.rowPtr, p.pcol
}

// Blocks returns the state offset of every stateful node and the state
// size: the block partition of the block-Jacobi preconditioner. It
// implements integrators.Blocked.
func (m *System) Blocks() []int { return m.plan().blocks }

// SparseJacobian writes the values of ∂f/∂y at (t, y) in the order of
// JacobianPattern into val. It does not allocate. A panic in node code
// is returned as a *node.StateError naming the node.
func (m *System) SparseJacobian(t float64, y, val []float64) error {
	rp, col := m.JacobianPattern()
	p := m.sj
	if len(y) != len(m.s.state) || len(val) != len(col) {
		panic(fmt.Sprintf("graph: System.SparseJacobian with len(y)=%d, len(val)=%d, want %d and %d", len(y), len(val), len(m.s.state), len(col)))
	}
	_ = rp
	p.sjVal = val
	err := m.JacobianRows(t, y, p.sjEmit)
	p.sjVal = nil
	return err
}

// patternRow copies a row into its place in the fixed pattern.
func (p *sparseJac) patternRow(r int, _ []int32, vals []float64) {
	copy(p.sjVal[p.rowPtr[r]:p.rowPtr[r+1]], vals)
}

// Jacobian writes ∂f/∂y at (t, y) into dst (row-major, Dim×Dim) for the
// dense solver: the rows of JacobianRows scattered. It implements
// integrators.Jacobian.
func (m *System) Jacobian(t float64, y, dst []float64) error {
	nx := len(m.s.state)
	if len(y) != nx || len(dst) != nx*nx {
		panic(fmt.Sprintf("graph: System.Jacobian with len(y)=%d, len(dst)=%d, want %d and %d", len(y), len(dst), nx, nx*nx))
	}
	p := m.plan()
	clear(dst)
	p.dense = dst
	err := m.JacobianRows(t, y, p.denseEmit)
	p.dense = nil
	return err
}

// denseRow scatters a row into the dense Jacobian.
func (p *sparseJac) denseRow(r int, cols []int32, vals []float64) {
	d := p.dense[r*p.nx : (r+1)*p.nx]
	for k, c := range cols {
		d[c] = vals[k]
	}
}

// transforms writes the Jacobian of every gather into c (n × sn each)
// into p.tr.
func (m *System) transforms(p *sparseJac, c *cnode) {
	s := m.s
	o := 0
	for gi := c.g0; gi < c.g1; gi++ {
		g := &s.gathers[gi]
		p.trOff[gi-c.g0] = int32(o)
		T := p.tr[o : o+g.n()*g.sn()]
		o += g.n() * g.sn()
		clear(T)
		switch tr := s.tr(g).(type) {
		case nil:
			for r := 0; r < g.n(); r++ {
				T[r*g.sn()+r] = 1
			}
		case Scale:
			for r := 0; r < g.n(); r++ {
				T[r*g.sn()+r] = tr.Factor
			}
		case Component:
			T[tr.Index] = 1
		case Embed:
			T[tr.Axis*g.sn()] = 1
		default:
			buf := s.state
			if g.fromY {
				buf = s.outputs
			}
			src := p.us[:g.sn()]
			copy(src, buf[g.src():g.src()+g.sn()])
			op, om := p.fp[:g.n()], p.fm[:g.n()]
			for j := range src {
				h := fdStep(src[j])
				v := src[j]
				src[j] = v + h
				tr.Apply(op, src)
				src[j] = v - h
				tr.Apply(om, src)
				src[j] = v
				for r := 0; r < g.n(); r++ {
					T[r*g.sn()+j] = (op[r] - om[r]) / (2 * h)
				}
			}
		}
	}
}

// setLoc makes node k's columns the current set: locOf gives the local
// index of a column in it.
func (p *sparseJac) setLoc(k int) []int32 {
	set := p.nodeCols(k, p.curCols)
	p.locSet, p.locRun = set, p.setAt[k] < 0 || consecutive(set)
	return set
}

// clearLoc undoes setLoc.
func (p *sparseJac) clearLoc([]int32) { p.locSet = nil }

// locOf returns the local index of column c in the current set (setLoc),
// or -1: its offset from the first column in a run of consecutive columns
// (every set of a chain), a binary search otherwise (a set holds the
// columns of a node and its neighbours, a few dozen at most). A table of
// one index per state would cost 4 bytes a state for the whole run.
func (p *sparseJac) locOf(c int) int32 {
	set := p.locSet
	if len(set) == 0 {
		return -1
	}
	if p.locRun {
		if j := c - int(set[0]); j >= 0 && j < len(set) {
			return int32(j)
		}
		return -1
	}
	if j, ok := slices.BinarySearch(set, int32(c)); ok {
		return int32(j)
	}
	return -1
}

// inputRows fills U (nu × nc) with the rows of ∂u/∂y of node c over its
// nc columns (the current set, setLoc): for every input component, Σ over the
// gathers that write it (from the last that sets it) of T·(source rows),
// in gather order. A plain copy or a Scale is T = w·I, read as such;
// other transforms through their Jacobians (transforms). The entries
// written in row q are listed in p.ucol[q·nc:][:p.ucnt[q]] (every other
// entry is zero), so that the products with the rows skip the zeros;
// clearInputs resets U.
func (m *System) inputRows(p *sparseJac, c *cnode, U []float64, nc int) {
	s := m.s
	general := false
	for gi := c.g0; gi < c.g1; gi++ {
		switch s.tr(&s.gathers[gi]).(type) {
		case nil, Scale:
		default:
			general = true
		}
	}
	if general {
		m.transforms(p, c)
	}
	clear(p.ucnt[:c.u1-c.u0])
	for gi := int(c.g0); gi < int(c.g1); gi++ {
		g := &s.gathers[gi]
		if s.overridden(c, gi) {
			continue
		}
		for r := 0; r < g.n(); r++ {
			q := g.dst() + r - int(c.u0)
			switch tr := s.tr(g).(type) {
			case nil:
				p.addSource(U, q, nc, gi, g, r, 1)
			case Scale:
				if tr.Factor != 0 {
					p.addSource(U, q, nc, gi, g, r, tr.Factor)
				}
			default:
				o := int(p.trOff[gi-int(c.g0)])
				for j, w := range p.tr[o+r*g.sn() : o+(r+1)*g.sn()] {
					if w != 0 {
						p.addSource(U, q, nc, gi, g, j, w)
					}
				}
			}
		}
	}
}

// overridden reports whether a later gather into c sets components that
// gather gi writes: the gathers of one input write the same components,
// and a later one that sets them discards what the earlier ones wrote.
func (s *Sim) overridden(c *cnode, gi int) bool {
	g := &s.gathers[gi]
	for gj := gi + 1; gj < int(c.g1); gj++ {
		if h := &s.gathers[gj]; h.mode == gatherSet && h.dst() < g.dst()+g.n() && g.dst() < h.dst()+h.n() {
			return true
		}
	}
	return false
}

// addSource adds w times source component j of gather gi (a state
// column, or an output row computed into the arena) to input row q of U,
// a row over the current node's nc columns.
func (p *sparseJac) addSource(U []float64, q, nc, gi int, g *gather, j int, w float64) {
	if !g.fromY {
		p.addU(U, q, nc, p.locOf(g.src()+j), w)
		return
	}
	k := p.ownerOf(g.src()) // gathers into a node being assembled: it needs its inputs
	src := p.nodeCols(int(k), p.srcCols)
	so := int(p.slot[k]) + (g.src()+j-int(p.nodes[k].y0))*len(src)
	vals := p.arena[so : so+len(src)]
	for jj, col := range src {
		if v := vals[jj]; v != 0 {
			p.addU(U, q, nc, p.locOf(int(col)), w*v)
		}
	}
}

// addU adds v to entry j of input row q, listing it when it is new.
func (p *sparseJac) addU(U []float64, q, nc int, j int32, v float64) {
	if e := q*nc + int(j); p.umark[e] {
		U[e] += v
	} else {
		p.umark[e] = true
		p.ucol[q*nc+int(p.ucnt[q])] = j
		p.ucnt[q]++
		U[e] = v
	}
}

// written returns the columns written in input row q.
func (p *sparseJac) written(q, nc int) []int32 { return p.ucol[q*nc : q*nc+int(p.ucnt[q])] }

// clearInputs zeroes the entries of U that inputRows wrote (nu rows).
func (p *sparseJac) clearInputs(U []float64, nu, nc int) {
	for q := 0; q < nu; q++ {
		for _, j := range p.written(q, nc) {
			e := q*nc + int(j)
			U[e], p.umark[e] = 0, false
		}
	}
}

// outputRows computes the needed rows of output node k, C·E + D·∂u/∂y,
// into its arena slot, over its columns. The products run over the
// entries of ∂u/∂y that were written, in the order of the inputs, so each
// entry is summed as by the dense product.
func (m *System) outputRows(p *sparseJac, k int, t float64, y []float64) error {
	s := m.s
	c := &s.nodes[k]
	ny, nu, nxk := int(c.y1)-int(c.y0), int(c.u1)-int(c.u0), int(c.x1)-int(c.x0)
	ft := c.feedthrough && nu > 0
	set := p.setLoc(k)
	defer p.clearLoc(set)
	nc := len(set)
	U := p.uloc[:nu*nc]
	D := p.lb[:ny*nu]
	clear(D)
	direct := p.direct.has(k)
	if ft {
		if !direct {
			m.inputRows(p, c, U, nc)
			defer p.clearInputs(U, nu, nc)
		}
		if oj, ok := node.As[node.OutputJacobian](c.n); ok {
			if err := oj.OutputsJacobian(t, y[c.x0:c.x1], s.inputsOf(c), D); err != nil {
				return stepError(c.name, "", s.steps, t, err)
			}
		} else if err := m.fdOutputs(p, c, t, y, true, D); err != nil {
			return err
		}
	}
	C := p.la[:ny*nxk]
	if nxk > 0 {
		if err := m.fdOutputs(p, c, t, y, false, C); err != nil {
			return err
		}
	}
	block := p.arena[p.slot[k] : int(p.slot[k])+ny*nc]
	p.need = p.need[:0]
	for r := 0; r < ny; r++ {
		if !p.needRow.has(int(c.y0) + r) {
			continue
		}
		p.need = append(p.need, int32(r))
		row := block[r*nc : (r+1)*nc]
		clear(row)
		for q := 0; q < nxk; q++ {
			row[p.locOf(int(c.x0)+q)] += C[r*nxk+q]
		}
	}
	if !ft {
		return nil
	}
	if direct {
		// ∂u/∂y is a selection: input q is local column dir[q].
		dir := p.directCols(s, c)
		for _, r := range p.need {
			row := block[int(r)*nc : int(r+1)*nc]
			for q, w := range D[int(r)*nu : int(r+1)*nu] {
				if w != 0 {
					row[dir[q]] += w
				}
			}
		}
		return nil
	}
	for _, r := range p.need {
		row := block[int(r)*nc : int(r+1)*nc]
		for q, w := range D[int(r)*nu : int(r+1)*nu] {
			if w == 0 {
				continue
			}
			u := U[q*nc : (q+1)*nc]
			for _, j := range p.written(q, nc) {
				row[j] += w * u[j]
			}
		}
	}
	return nil
}

// stateRows computes the rows of stateful node i, A·E + B·∂u/∂y, and
// hands them to emit.
func (m *System) stateRows(p *sparseJac, i int, t float64, y []float64, emit func(int, []int32, []float64)) error {
	s := m.s
	c := &s.nodes[i]
	k := m.derivK(int32(i))
	nxi, nu := int(c.x1)-int(c.x0), int(c.u1)-int(c.u0)
	set := p.setLoc(i)
	defer p.clearLoc(set)
	nc := len(set)
	U := p.uloc[:nu*nc]
	m.inputRows(p, c, U, nc)
	defer p.clearInputs(U, nu, nc)
	A, B := p.la[:nxi*nxi], p.lb[:nxi*nu]
	clear(A)
	clear(B)
	// The node's Jacobian capability is looked up at each assembly (as
	// outputRows looks up OutputJacobian) rather than kept per node.
	if ij, ok := node.As[node.InputJacobian](c.n); ok {
		if err := ij.DerivativesJacobian(t, y[c.x0:c.x1], s.inputsOf(c), A, B); err != nil {
			return stepError(c.name, "", s.steps, t, err)
		}
	} else if err := m.fdDerivatives(p, k, c, t, y, A, B); err != nil {
		return err
	}
	row := p.row[:nc]
	pv := p.posVel(c)
	for r := 0; r < nxi; r++ {
		rr := int(c.x0) + r
		if v := pv[r]; v >= 0 {
			v += c.x0
			// d/dt position = velocity (node.Position): the row is one
			// entry, checked against what the node computed.
			if err := positionRow(c, r, int(v)-int(c.x0), A, B); err != nil {
				return stepError(c.name, "d/dt "+c.spec.StateLayout.Component(r), s.steps, t, err)
			}
			p.one[0], p.oneV[0] = v, A[r*nxi+int(v)-int(c.x0)]
			emit(rr, p.one[:], p.oneV[:])
			continue
		}
		clear(row)
		for q := 0; q < nxi; q++ {
			row[p.locOf(int(c.x0)+q)] += A[r*nxi+q]
		}
		for q := 0; q < nu; q++ {
			w := B[r*nu+q]
			if w == 0 {
				continue
			}
			for _, j := range p.written(q, nc) {
				row[j] += w * U[q*nc+int(j)]
			}
		}
		emit(rr, set, row)
	}
	return nil
}

// positionRow checks that row r of a node's local Jacobian (A, B) is the
// one a Position-role component must have: 1 at its velocity vq, zero
// elsewhere, to 1e-6 (central differences of x' = v are exact to about
// ε·|v|/h ≈ 1e-10).
func positionRow(c *cnode, r, vq int, A, B []float64) error {
	nxi, nu := int(c.x1)-int(c.x0), int(c.u1)-int(c.u0)
	for q := 0; q < nxi; q++ {
		want := 0.0
		if q == vq {
			want = 1
		}
		if math.Abs(A[r*nxi+q]-want) > 1e-6 {
			return fmt.Errorf("∂/∂%s is %g, but a position's rate is its velocity (node.Position) so it must be %g", c.spec.StateLayout.Component(q), A[r*nxi+q], want)
		}
	}
	for q := 0; q < nu; q++ {
		if math.Abs(B[r*nu+q]) > 1e-6 {
			return fmt.Errorf("∂/∂input %s is %g, but a position's rate is its velocity (node.Position) so it must be 0", c.spec.InputLayout.Component(q), B[r*nu+q])
		}
	}
	return nil
}

func fdStep(v float64) float64 { return 1e-6 * math.Max(1, math.Abs(v)) }

// fdOutputs differentiates c's Outputs by central differences of its
// inputs (wrtInputs) or of its own state, into dst (ny × nu or ny × nx_c),
// with the mode-switch check of fdColumn. It does not allocate.
func (m *System) fdOutputs(p *sparseJac, c *cnode, t float64, y []float64, wrtInputs bool, dst []float64) error {
	s := m.s
	ny := int(c.y1) - int(c.y0)
	in := s.inputsOf(c)
	u := p.us[:len(in.Values)]
	copy(u, in.Values)
	in.Values = u
	x := p.xs[:c.x1-c.x0]
	copy(x, y[c.x0:c.x1])
	vec, layout := x, c.spec.StateLayout
	if wrtInputs {
		vec, layout = u, c.spec.InputLayout
	}
	f := &p.fdf
	*f = fdFunc{m: m, c: c, t: t, x: x, in: in, outputs: true}
	if err := f.eval(p.f0[:ny]); err != nil {
		return err
	}
	for j := range vec {
		if err := p.fdColumn(f, vec, j, ny, dst, len(vec)); err != nil {
			return m.switchError(err, c, "Outputs", layout, j, t)
		}
	}
	return nil
}

// fdDerivatives differentiates stateful node k's Derivatives by central
// differences of its own state (A) and inputs (B), with the mode-switch
// check of fdColumn. It does not allocate.
func (m *System) fdDerivatives(p *sparseJac, k int, c *cnode, t float64, y []float64, A, B []float64) error {
	s := m.s
	nxi := int(c.x1) - int(c.x0)
	in := s.inputsOf(c)
	u := p.us[:len(in.Values)]
	copy(u, in.Values)
	in.Values = u
	x := p.xs[:nxi]
	copy(x, y[c.x0:c.x1])
	f := &p.fdf
	*f = fdFunc{m: m, c: c, k: k, t: t, x: x, in: in}
	if err := f.eval(p.f0[:nxi]); err != nil {
		return err
	}
	for pass := 0; pass < 2; pass++ {
		vec, dst, layout := x, A, c.spec.StateLayout
		if pass == 1 {
			vec, dst, layout = u, B, c.spec.InputLayout
		}
		for j := range vec {
			if err := p.fdColumn(f, vec, j, nxi, dst, len(vec)); err != nil {
				return m.switchError(err, c, "Derivatives", layout, j, t)
			}
		}
	}
	return nil
}

// Mode switches inside a difference. A node whose function switches mode
// (a contact that closes, a friction that sticks, a saturation) between
// v − h and v + h would be linearised across the switch by a central
// difference: the mean of two modes' slopes, which is neither. fdColumn
// therefore also forms the one-sided differences D+ = (f(v+h) − f(v))/h
// and D− = (f(v) − f(v−h))/h: on a smooth function they differ by about
// h·f” (h = 10⁻⁶ relative) plus rounding, across a switch by the jump of
// the slope. When they disagree beyond switchRel of the larger (plus the
// rounding bound), the step is shrunk by switchShrink, up to
// switchRetries times: a switch at a distance from v is then outside
// the difference and the central difference is the slope of the mode
// active at v. A switch that stays inside the smallest difference is at
// v itself, where the function has no derivative: the node is not
// linearisable there, a *SwitchError (errors.Is ErrNotDifferentiable).
const (
	switchRel     = 1e-3
	switchShrink  = 1.0 / 32
	switchRetries = 3
)

// fdFunc is the function fdColumn differences: node c's Outputs
// (outputs) or stateful node k's Derivatives at time t, state x and
// inputs in (which the differences perturb in place). A value in the
// sparseJac, so that differencing does not allocate.
type fdFunc struct {
	m       *System
	c       *cnode
	k       int
	t       float64
	x       []float64
	in      node.Inputs
	outputs bool
}

func (f *fdFunc) eval(out []float64) error {
	var err error
	if f.outputs {
		err = f.c.out.Outputs(f.t, f.x, f.in, out)
	} else {
		err = f.m.derivs[f.k].Derivatives(f.t, f.x, f.in, out)
	}
	if err != nil {
		return stepError(f.c.name, "", f.m.s.steps, f.t, err)
	}
	return nil
}

// nonFinite is fdColumn's error for a row r of f that is not finite at
// v + h or v − h (fp, fm): it names the node, the row's field and the
// time, and wraps node.ErrNonFinite.
func (f *fdFunc) nonFinite(r int, v, h, fp, fm float64) error {
	lay, fn := f.c.spec.StateLayout, "Derivatives"
	if f.outputs {
		lay, fn = f.c.spec.OutputLayout, "Outputs"
	}
	return stepError(f.c.name, lay.Component(r), f.m.s.steps, f.t,
		fmt.Errorf("%w: its %s at a finite-difference point %s ± %s gave %s and %s, so its Jacobian cannot be differenced there",
			node.ErrNonFinite, fn, node.FormatValue(v), node.FormatValue(h), node.FormatValue(fp), node.FormatValue(fm)))
}

// errSwitch is fdColumn's report of a switch at the point; the caller
// names the node (switchError).
type errSwitch struct{ row int }

func (errSwitch) Error() string { return "mode switch at the point" }

// fdColumn writes column j of the rows × cols row-major dst: the central
// difference of f with respect to vec[j] (f writes into p.fp, p.fm; p.f0
// holds f at the unperturbed vec), at the step fdStep or, when the
// one-sided differences disagree (a mode switch in the difference), at a
// shrunk step; an errSwitch when they disagree at every step. vec[j] is
// restored. It does not allocate.
func (p *sparseJac) fdColumn(f *fdFunc, vec []float64, j, rows int, dst []float64, cols int) error {
	fp, fm, f0 := p.fp[:rows], p.fm[:rows], p.f0[:rows]
	v := vec[j]
	h := fdStep(v)
	for try := 0; ; try++ {
		vec[j] = v + h
		if err := f.eval(fp); err != nil {
			vec[j] = v
			return err
		}
		vec[j] = v - h
		if err := f.eval(fm); err != nil {
			vec[j] = v
			return err
		}
		vec[j] = v
		bad := -1
		for r := 0; r < rows; r++ {
			if math.IsNaN(fp[r]-fm[r]) || math.IsInf(fp[r]-fm[r], 0) {
				// A value the node computes at v ± h is not finite: the
				// column would be NaN or infinite, a Jacobian no solver can
				// use and no caller should see. Name the node, the row and
				// the point instead.
				return f.nonFinite(r, v, h, fp[r], fm[r])
			}
			dp, dm := (fp[r]-f0[r])/h, (f0[r]-fm[r])/h
			// Rounding of the three values, each relative 2⁻⁵², divided by h.
			round := 4 * 0x1p-52 * (math.Abs(fp[r]) + math.Abs(f0[r]) + math.Abs(fm[r])) / h
			if math.Abs(dp-dm) > switchRel*max(math.Abs(dp), math.Abs(dm))+round {
				bad = r
				break
			}
		}
		if bad < 0 {
			for r := 0; r < rows; r++ {
				dst[r*cols+j] = (fp[r] - fm[r]) / (2 * h)
			}
			return nil
		}
		if try == switchRetries {
			return errSwitch{row: bad}
		}
		h *= switchShrink
	}
}

// SwitchError reports a node that cannot be linearised at a time: its
// function (Derivatives or Outputs) switches mode at the point the
// Jacobian is taken at, with respect to one of its state values or
// inputs, so the one-sided differences disagree however small the step.
// It wraps ErrNotDifferentiable.
type SwitchError struct {
	Node     string
	Function string // "Derivatives" or "Outputs"
	// Wrt is the state value or input differentiated ("velocity[2]",
	// "force[0]"), Of the row of the function that switches.
	Wrt, Of string
	Time    float64
}

func (e *SwitchError) Error() string {
	return fmt.Sprintf("graph: node %s cannot be linearised at t = %s: its %s switches mode at this point (the one-sided differences of %s with respect to %s disagree however small the step: a contact or limit exactly at its threshold); give the node an analytic Jacobian, or linearise at another time: %v",
		e.Node, node.FormatValue(e.Time), e.Function, e.Of, e.Wrt, ErrNotDifferentiable)
}

// Unwrap makes errors.Is(err, ErrNotDifferentiable) true.
func (e *SwitchError) Unwrap() error { return ErrNotDifferentiable }

// switchError names the node of fdColumn's errSwitch (other errors pass).
func (m *System) switchError(err error, c *cnode, fn string, wrt node.Layout, j int, t float64) error {
	es, ok := err.(errSwitch)
	if !ok {
		return err
	}
	of := c.spec.StateLayout
	if fn == "Outputs" {
		of = c.spec.OutputLayout
	}
	return &SwitchError{Node: c.name, Function: fn, Wrt: wrt.Component(j), Of: of.Component(es.row), Time: t}
}

// posVel derives node c's posVel table (p.pv) from its state layout: the
// local velocity component of each local position component, or -1.
func (p *sparseJac) posVel(c *cnode) []int32 {
	l := c.spec.StateLayout
	pv := p.pv[:c.x1-c.x0]
	for i := range pv {
		pv[i] = -1
	}
	for fi := 0; fi < l.Len(); fi++ {
		if f := l.Field(fi); f.Role == node.Position {
			po, vo := l.Offset(fi), l.Offset(l.Index(f.Rate))
			for k := 0; k < f.Shape.Len(); k++ {
				pv[po+k] = int32(vo + k)
			}
		}
	}
	return pv
}

// gsrc returns the node whose outputs gather g into node ni reads, or -1:
// a state source, or a node whose inputs the Jacobian does not read.
func (p *sparseJac) gsrc(ni int, g *gather) int32 {
	if !g.fromY || !p.needIn.has(ni) {
		return -1
	}
	return p.ownerOf(g.src())
}

// ownerOf returns the node whose outputs hold output row r: the last k
// with y0[k] ≤ r (nodes without outputs share the next node's y0). The
// node of the previous answer and its next neighbours are tried first
// (a node reads its neighbours' outputs), then a binary search.
func (p *sparseJac) ownerOf(r int) int32 {
	nodes, rr := p.nodes, int32(r)
	is := func(k int) bool { return nodes[k].y0 <= rr && (k+1 == len(nodes) || nodes[k+1].y0 > rr) }
	for k := max(p.hint-1, 0); k < min(p.hint+3, len(nodes)); k++ {
		if is(k) {
			p.hint = k
			return int32(k)
		}
	}
	k := sort.Search(len(nodes), func(k int) bool { return nodes[k].y0 > rr })
	p.hint = k - 1
	return int32(k - 1)
}

// bitset is a set of small non-negative integers, a bit each: the plan's
// per-node and per-row marks, kept for the System's life.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

func (b bitset) set(i int)      { b[i/64] |= 1 << (i % 64) }
func (b bitset) has(i int) bool { return b[i/64]&(1<<(i%64)) != 0 }
