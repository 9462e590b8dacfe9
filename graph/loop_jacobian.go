package graph

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// The monolithic Jacobian of a graph with algebraic loops. The chain rule
// of jacobian.go follows edges level by level and has no place for a
// cycle, whose outputs depend on the state through the solved loop:
// ∂y/∂x = (I − ∂F/∂y)⁻¹·∂F/∂x by the implicit-function theorem. Rather
// than assemble that inverse, a System of a Sim with loops differences
// its own right-hand side, whose every evaluation solves the loops.
//
// Pattern. Which state columns a row may reach is found from the graph,
// as for the loop-free Jacobian but conservatively (every component of a
// gather's source): an output node reaches its own state and, when it
// has feedthrough, what its sources reach; a loop's members all reach
// the union of what any member reaches; a stateful node's rows reach its
// own state and what its inputs' sources reach.
//
// Values. Columns that share no row are differenced together (a greedy
// colouring in column order, CPR): for each colour, f(y + h) and f(y − h)
// with h = 1e-6·max(1, |y_j|) on the colour's columns give every entry
// of those columns, (f_r(y + h) − f_r(y − h)) / 2h_j. A chain with a
// loop costs a few colours, not 2·Dim evaluations; a dense pattern costs
// 2·Dim. The error is the truncation O(h²) plus the loops' own solve
// error divided by h, so tight loop tolerances (LoopSettings) matter to
// implicit methods and to sensitivities.

// MaxLoopJacobianEntries bounds the pattern of the differenced Jacobian
// of a Sim with algebraic loops (a dense 4096 × 4096: 128 MB of values
// and 64 MB of column indices); above it the Jacobian is an error naming
// the limit, before the pattern is stored.
const MaxLoopJacobianEntries = 1 << 24

// loopJacobianLimit is MaxLoopJacobianEntries, lowered by tests.
var loopJacobianLimit = MaxLoopJacobianEntries

// ErrLoopJacobian is the errors.Is target of the error a System with
// algebraic loops returns for a Jacobian over MaxLoopJacobianEntries.
var ErrLoopJacobian = errors.New("graph: the Jacobian of a graph with algebraic loops is too large")

// loopJac is the plan and the buffers of the differenced Jacobian, built
// on first use.
type loopJac struct {
	rowPtr []int
	col    []int32
	val    []float64
	nnz    int // the pattern's size, even when over the limit
	// Colours: the columns of colour c are cols[cOff[c]:cOff[c+1]]; the
	// pattern entries in them are ent[eOff[c]:eOff[c+1]] (indices into
	// col), with entRow their rows.
	cOff, cols  []int32
	eOff        []int32
	ent, entRow []int32
	yp, fp, fm  []float64
	hsum        []float64 // per column: the two steps' sum
	colours     int
}

// loopJac returns the plan, building it on first use.
func (m *System) loopJac() *loopJac {
	st := m.s.loops
	if st.jac == nil {
		st.jac = m.s.buildLoopJac()
	}
	return st.jac
}

func (s *Sim) buildLoopJac() *loopJac {
	nx, nn := len(s.state), len(s.nodes)
	lj := &loopJac{}
	mark := make([]int32, nx)
	stamp := int32(0)
	var buf []int32
	sets := make([][]int32, nn)
	add := func(j int32) {
		if mark[j] != stamp {
			mark[j] = stamp
			buf = append(buf, j)
		}
	}
	reach := func(i int, inputs bool) {
		c := &s.nodes[i]
		for j := c.x0; j < c.x1; j++ {
			add(int32(j))
		}
		if !inputs {
			return
		}
		for gi := c.g0; gi < c.g1; gi++ {
			g := &s.gathers[gi]
			if !g.fromY {
				for j := g.src(); j < g.src()+g.sn(); j++ {
					add(int32(j))
				}
				continue
			}
			for _, j := range sets[s.outNode(g.src())] {
				add(j)
			}
		}
	}
	for _, level := range s.levels {
		for _, k := range level {
			c := &s.nodes[k]
			switch {
			case c.loop == nil:
				stamp++
				buf = buf[:0]
				reach(int(k), c.feedthrough)
			case c.loopLead:
				stamp++
				buf = buf[:0]
				for _, mb := range c.loop.members {
					reach(int(mb), true)
				}
			default:
				continue // set with its loop's first member
			}
			set := slices.Clone(buf)
			slices.Sort(set)
			if c.loop == nil {
				sets[k] = set
				continue
			}
			for _, mb := range c.loop.members {
				sets[mb] = set
			}
		}
	}
	lj.rowPtr = make([]int, nx+1)
	rowSet := make([][]int32, nx)
	for _, i := range s.stateful {
		c := &s.nodes[i]
		stamp++
		buf = buf[:0]
		reach(int(i), true)
		set := slices.Clone(buf)
		slices.Sort(set)
		for r := c.x0; r < c.x1; r++ {
			rowSet[r] = set
		}
	}
	for r := range nx {
		lj.rowPtr[r+1] = lj.rowPtr[r] + len(rowSet[r])
	}
	lj.nnz = lj.rowPtr[nx]
	if lj.nnz > loopJacobianLimit {
		return lj
	}
	lj.col = make([]int32, 0, lj.nnz)
	for _, set := range rowSet {
		lj.col = append(lj.col, set...)
	}
	lj.val = make([]float64, lj.nnz)
	lj.colour(nx)
	lj.yp, lj.fp, lj.fm, lj.hsum = make([]float64, nx), make([]float64, nx), make([]float64, nx), make([]float64, nx)
	return lj
}

// colour groups the columns greedily, in column order, so that no two
// columns of a group share a row; a pattern whose colouring would cost
// more than about 1e8 steps gets one column per group.
func (lj *loopJac) colour(nx int) {
	// Rows of every column (the transpose).
	cnt := make([]int32, nx+1)
	cost := 0
	for r := range nx {
		w := lj.rowPtr[r+1] - lj.rowPtr[r]
		cost += w * w
		for _, j := range lj.col[lj.rowPtr[r]:lj.rowPtr[r+1]] {
			cnt[j+1]++
		}
	}
	colour := make([]int32, nx)
	ncol := 0
	if cost > 1e8 {
		for j := range colour {
			colour[j] = int32(j)
		}
		ncol = nx
	} else {
		for j := range nx {
			cnt[j+1] += cnt[j]
		}
		rows := make([]int32, cnt[nx])
		next := slices.Clone(cnt[:nx])
		for r := range nx {
			for _, j := range lj.col[lj.rowPtr[r]:lj.rowPtr[r+1]] {
				rows[next[j]] = int32(r)
				next[j]++
			}
		}
		for j := range colour {
			colour[j] = -1
		}
		used := make([]int32, nx+1)
		for j := range nx {
			stamp := int32(j + 1)
			for _, r := range rows[cnt[j]:cnt[j+1]] {
				for _, c := range lj.col[lj.rowPtr[r]:lj.rowPtr[r+1]] {
					if k := colour[c]; k >= 0 {
						used[k] = stamp
					}
				}
			}
			k := int32(0)
			for used[k] == stamp {
				k++
			}
			colour[j] = k
			ncol = max(ncol, int(k)+1)
		}
	}
	lj.colours = ncol
	lj.cOff = make([]int32, ncol+1)
	for _, k := range colour {
		lj.cOff[k+1]++
	}
	for k := range ncol {
		lj.cOff[k+1] += lj.cOff[k]
	}
	lj.cols = make([]int32, nx)
	next := slices.Clone(lj.cOff[:ncol])
	for j, k := range colour {
		lj.cols[next[k]] = int32(j)
		next[k]++
	}
	lj.eOff = make([]int32, ncol+1)
	for _, j := range lj.col {
		lj.eOff[colour[j]+1]++
	}
	for k := range ncol {
		lj.eOff[k+1] += lj.eOff[k]
	}
	lj.ent, lj.entRow = make([]int32, len(lj.col)), make([]int32, len(lj.col))
	nextE := slices.Clone(lj.eOff[:ncol])
	for r := range nx {
		for q := lj.rowPtr[r]; q < lj.rowPtr[r+1]; q++ {
			k := colour[lj.col[q]]
			lj.ent[nextE[k]], lj.entRow[nextE[k]] = int32(q), int32(r)
			nextE[k]++
		}
	}
}

// loopJacobianRows is JacobianRows for a Sim with loops: the coloured
// central differences of Func, handed to emit row by row over the
// pattern.
func (m *System) loopJacobianRows(t float64, y []float64, emit func(row int, cols []int32, vals []float64)) error {
	lj := m.loopJac()
	if lj.nnz > loopJacobianLimit {
		return fmt.Errorf("%w (differenced through the loops, %s): its pattern has %d entries, more than MaxLoopJacobianEntries = %d; use an explicit method or co-simulation, or break the loops with an edge from a state field", ErrLoopJacobian, strings.Join(m.s.loopNames(), "; "), lj.nnz, loopJacobianLimit)
	}
	copy(lj.yp, y)
	for k := range len(lj.cOff) - 1 {
		cols := lj.cols[lj.cOff[k]:lj.cOff[k+1]]
		for _, j := range cols {
			lj.yp[j] = y[j] + 1e-6*math.Max(1, math.Abs(y[j]))
			lj.hsum[j] = lj.yp[j] - y[j]
		}
		if err := m.Func(t, lj.yp, lj.fp); err != nil {
			return err
		}
		for _, j := range cols {
			lj.yp[j] = y[j] - 1e-6*math.Max(1, math.Abs(y[j]))
			lj.hsum[j] += y[j] - lj.yp[j]
		}
		if err := m.Func(t, lj.yp, lj.fm); err != nil {
			return err
		}
		for _, j := range cols {
			lj.yp[j] = y[j]
		}
		for e := lj.eOff[k]; e < lj.eOff[k+1]; e++ {
			q, r := lj.ent[e], lj.entRow[e]
			lj.val[q] = (lj.fp[r] - lj.fm[r]) / lj.hsum[lj.col[q]]
		}
	}
	for r := range len(y) {
		emit(r, lj.col[lj.rowPtr[r]:lj.rowPtr[r+1]], lj.val[lj.rowPtr[r]:lj.rowPtr[r+1]])
	}
	return nil
}

// loopPattern fills p's pattern with the loop Jacobian's (the diagonal
// when that is over the limit, so that asking for it allocates little;
// JacobianRows then reports the error).
func (m *System) loopPattern(p *sparseJac) {
	lj := m.loopJac()
	n := p.nx
	if lj.nnz > loopJacobianLimit {
		p.rowPtr = make([]int, n+1)
		p.pcol = make([]int, n)
		for r := range n {
			p.pcol[r] = r
			p.rowPtr[r+1] = r + 1
		}
		return
	}
	p.rowPtr = slices.Clone(lj.rowPtr)
	p.pcol = make([]int, len(lj.col))
	for q, j := range lj.col {
		p.pcol[q] = int(j)
	}
}

// loopNames describes the Sim's loops, "loop through a, b (tear: a.y)".
func (s *Sim) loopNames() []string {
	var out []string
	for _, l := range s.Loops() {
		out = append(out, l.String())
	}
	return out
}
