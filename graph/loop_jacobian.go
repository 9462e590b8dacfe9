package graph

import (
	"fmt"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// The monolithic Jacobian through an algebraic loop, by the
// implicit-function theorem on the converged loop.
//
// The chain rule of jacobian.go computes an output node's rows,
// ∂y_k/∂y (y the graph state), from its sources' rows, level by level;
// a loop's members read each other, so no member's rows can come first.
// The loop is solved when its tear variables z satisfy z = F(z, y), F
// the tear nodes' outputs after one pass through the members with z cut
// (loop.go). Differentiating that identity,
//
//	dz/dy = (I − ∂F/∂z)⁻¹ · ∂F/∂y,
//
// and every member's rows are its partial rows plus their z part times
// dz/dy. The partial rows come from one pass of the chain rule through
// the members in the solver's evaluation order (the other members, then
// the tear nodes), over the columns [z | the loop's state columns]: a
// member's rows are C·E + D·∂u/∂[z, y], with D = ∂y/∂u from its
// OutputsJacobian (central differences of its Outputs over its inputs
// where it has none, as for any node), C = ∂y/∂x by central differences
// over its own state (zero columns for the stateless blocks that make up
// most loops), and ∂u/∂[z, y] through the gathers: a tear variable is a
// unit column of z, another member's output its partial rows, an output
// from outside the loop its total rows (already computed, the loop's
// level being after its sources'), a state component a unit column;
// transforms by their Jacobians (exact for Scale, Component and Embed).
// ∂F/∂z and ∂F/∂y are the tear variables' partial rows; one LU of the
// n × n matrix I − ∂F/∂z (n tear variables) solves for dz/dy, a column
// per state column of the loop.
//
// Accuracy. With every member's OutputsJacobian the entries are exact up
// to rounding (a linear loop's Jacobian equals the analytic one to a few
// ulps times the conditioning of I − ∂F/∂z) and independent of the loop's
// tolerance: only the point at which they are evaluated carries the
// solve error, so a nonlinear loop's entries err by its residual times
// the second derivatives. A member differenced locally contributes the
// O(h²) truncation and rounding/h of the node-local differences
// (h = 1e-6 per unit), as everywhere in jacobian.go.
//
// Columns. All members of a loop share one column set: the union of
// their own states and of what their sources outside the loop reach
// (loopColumns). Cost: one pass over the members with dense rows of
// n + (columns) entries, an n × n LU and n·(columns) back substitutions.
// It allocates nothing.

// loopColumns returns the column set shared by the members of loop L:
// their states, and the columns their sources outside the loop reach.
// mark and stamp are plan's.
func loopColumns(s *Sim, L *loopSolver, sets [][]int32, mark []int32, stamp *int32) []int32 {
	*stamp++
	st := *stamp
	var buf []int32
	add := func(j int) {
		if mark[j] != st {
			mark[j] = st
			buf = append(buf, int32(j))
		}
	}
	for _, mb := range L.members {
		c := &s.nodes[mb]
		for j := int(c.x0); j < int(c.x1); j++ {
			add(j)
		}
		for gi := c.g0; gi < c.g1; gi++ {
			g := &s.gathers[gi]
			for r := 0; r < g.n(); r++ {
				for j := 0; j < g.sn(); j++ {
					if !s.tStruct(g, r, j) {
						continue
					}
					if !g.fromY {
						add(g.src() + j)
						continue
					}
					if k := s.outNode(g.src() + j); s.nodes[k].loop != L {
						for _, col := range sets[k] {
							add(int(col))
						}
					}
				}
			}
		}
	}
	slices.Sort(buf)
	return buf
}

// loopPlan is the storage of one loop's rows in the assembly plan.
type loopPlan struct {
	L     *loopSolver
	n, w  int     // tear variables; row width n + columns
	order []int32 // members in evaluation order: L.seq, then L.tears
	local []int   // local index (in L.members) of order[k]
	// P holds the partial rows of every member, ny × w each, member li's
	// from pOff[li]; tearAt[a] is the offset in P of tear variable a's row.
	P      []float64
	pOff   []int
	tearAt []int
	dU     []float64 // ∂u/∂[z, y] of one member, nu × w
	M      []float64 // I − ∂F/∂z, n × n
	Z      []float64 // ∂F/∂y, then dz/dy: n × columns
	ipiv   []int
}

// planLoops sizes the storage of every needed loop.
func (m *System) planLoops(p *sparseJac) {
	s := m.s
	if s.loops == nil {
		return
	}
	p.loops = make([]*loopPlan, len(s.loops.solvers))
	for i, L := range s.loops.solvers {
		lead := L.members[0]
		if !p.needY.has(int(lead)) {
			continue
		}
		n, nc := len(L.idx), int(p.setLen[lead])
		lp := &loopPlan{L: L, n: n, w: n + nc}
		lp.order = append(slices.Clone(L.seq), L.tears...)
		for _, k := range lp.order {
			lp.local = append(lp.local, slices.Index(L.members, k))
		}
		lp.pOff = make([]int, len(L.members))
		off, maxU := 0, 0
		for li, mb := range L.members {
			c := &s.nodes[mb]
			lp.pOff[li] = off
			off += (int(c.y1) - int(c.y0)) * lp.w
			maxU = max(maxU, (int(c.u1)-int(c.u0))*lp.w)
		}
		lp.P, lp.dU = make([]float64, off), make([]float64, maxU)
		for _, o := range L.idx {
			k := int32(s.outNode(o))
			lp.tearAt = append(lp.tearAt, lp.pOff[slices.Index(L.members, k)]+(o-int(s.nodes[k].y0))*lp.w)
		}
		lp.M, lp.Z, lp.ipiv = make([]float64, n*n), make([]float64, n*nc), make([]int, n)
		p.loops[i] = lp
	}
}

// loopRows computes the total rows of every member of loop L into their
// arena slots (see the comment at the top of this file), at the state the
// Sim was prepared at (the loop solved there).
func (m *System) loopRows(p *sparseJac, L *loopSolver, t float64, y []float64, cur *int32) error {
	s := m.s
	var lp *loopPlan
	for i, sl := range s.loops.solvers {
		if sl == L {
			lp = p.loops[i]
		}
	}
	n, W := lp.n, lp.w
	lead := int(L.members[0])
	set := p.setLoc(lead)
	defer p.clearLoc(set)
	nc := len(set)
	for k, i := range lp.order {
		*cur = i
		c := &s.nodes[i]
		li := lp.local[k]
		ny, nu, nxi := int(c.y1)-int(c.y0), int(c.u1)-int(c.u0), int(c.x1)-int(c.x0)
		Pi := lp.P[lp.pOff[li] : lp.pOff[li]+ny*W]
		clear(Pi)
		if nxi > 0 {
			C := p.la[:ny*nxi]
			if err := m.fdOutputs(p, c, t, y, false, C); err != nil {
				return err
			}
			for r := range ny {
				for q := range nxi {
					Pi[r*W+n+int(p.locOf(int(c.x0)+q))] += C[r*nxi+q]
				}
			}
		}
		if nu == 0 {
			continue
		}
		dU := lp.dU[:nu*W]
		clear(dU)
		m.transforms(p, c)
		for gi := int(c.g0); gi < int(c.g1); gi++ {
			if s.overridden(c, gi) {
				continue
			}
			g := &s.gathers[gi]
			T := p.tr[p.trOff[gi-int(c.g0)]:][:g.n()*g.sn()]
			src := p.gsrc(int(i), g) // −1: a state source
			inLoop, sl := false, -1
			if src >= 0 && s.nodes[src].loop == L {
				inLoop, sl = true, slices.Index(L.members, src)
			}
			for r := 0; r < g.n(); r++ {
				dst := dU[(g.dst()+r-int(c.u0))*W:][:W]
				for j := 0; j < g.sn(); j++ {
					w := T[r*g.sn()+j]
					if w == 0 {
						continue
					}
					switch {
					case src < 0:
						dst[n+int(p.locOf(g.src()+j))] += w
					case inLoop:
						if a, ok := slices.BinarySearch(L.idx, g.src()+j); ok {
							dst[a] += w // a tear variable: a unit column of z
							continue
						}
						axpy(w, lp.P[lp.pOff[sl]+(g.src()+j-int(p.nodes[src].y0))*W:][:W], dst)
					default:
						cols := p.nodeCols(int(src), p.srcCols)
						vals := p.arena[int(p.slot[src])+(g.src()+j-int(p.nodes[src].y0))*len(cols):][:len(cols)]
						for jj, col := range cols {
							if v := vals[jj]; v != 0 {
								dst[n+int(p.locOf(int(col)))] += w * v
							}
						}
					}
				}
			}
		}
		D := p.lb[:ny*nu]
		if oj := L.oj[li]; oj != nil {
			if err := oj.OutputsJacobian(t, y[c.x0:c.x1], s.inputsOf(c), D); err != nil {
				return stepError(c.name, "", s.steps, t, err)
			}
		} else if err := m.fdOutputs(p, c, t, y, true, D); err != nil {
			return err
		}
		for r := range ny {
			row := Pi[r*W : (r+1)*W]
			for q := range nu {
				if d := D[r*nu+q]; d != 0 {
					axpy(d, dU[q*W:(q+1)*W], row)
				}
			}
		}
	}
	*cur = L.members[0]
	// dz/dy = (I − ∂F/∂z)⁻¹·∂F/∂y.
	Z := lp.Z[:n*nc]
	for a := range n {
		row := lp.P[lp.tearAt[a]:][:W]
		for b := range n {
			lp.M[a*n+b] = -row[b]
		}
		lp.M[a*n+a]++
		copy(Z[a*nc:(a+1)*nc], row[n:])
	}
	A := blas64.General{Rows: n, Cols: n, Stride: n, Data: lp.M}
	if !lapack64.Getrf(A, lp.ipiv) {
		return L.singular(s, t)
	}
	if nc > 0 {
		lapack64.Getrs(blas.NoTrans, A, blas64.General{Rows: n, Cols: nc, Stride: nc, Data: Z}, lp.ipiv)
	}
	for li, mb := range L.members {
		c := &s.nodes[mb]
		ny := int(c.y1) - int(c.y0)
		block := p.arena[p.slot[mb]:][:ny*nc]
		for r := range ny {
			pr := lp.P[lp.pOff[li]+r*W:][:W]
			out := block[r*nc : (r+1)*nc]
			copy(out, pr[n:])
			for a := range n {
				if v := pr[a]; v != 0 {
					axpy(v, Z[a*nc:(a+1)*nc], out)
				}
			}
		}
	}
	return nil
}

// axpy adds a·x to y.
func axpy(a float64, x, y []float64) {
	for i, v := range x {
		y[i] += a * v
	}
}

// singular is the error of a derivative through L where I − ∂F/∂z has
// no inverse at the loop's solution.
func (L *loopSolver) singular(s *Sim, t float64) error {
	return stepError(s.nodes[L.members[0]].name, "", s.steps, t, fmt.Errorf("graph: the Jacobian through the algebraic %s is singular: I − ∂F/∂z has no inverse at the loop's solution, so the solution does not depend smoothly on the state; an implicit method or a sensitivity cannot go through it (use an explicit method, or make the loop regular)", L.describe(s)))
}

// describe is "through a, b (tear: a.y[0])".
func (L *loopSolver) describe(s *Sim) string {
	return Loop{Members: s.names(L.members), Tear: L.tearNames}.String()
}
