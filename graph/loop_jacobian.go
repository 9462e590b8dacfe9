package graph

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// The monolithic Jacobian of a graph with algebraic loops. The chain rule
// of jacobian.go follows edges level by level and has no place for a
// cycle, whose outputs depend on the state through the solved loop:
// ∂y/∂x = (I − ∂F/∂y)⁻¹·∂F/∂x by the implicit-function theorem. Rather
// than assemble that inverse, a System of a Sim with loops differences
// its own right-hand side, whose every evaluation solves the loops:
// column j of ∂f/∂y is (f(y + h e_j) − f(y − h e_j)) / 2h with h =
// 1e-6·max(1, |y_j|), the step of the node-local differences. Its rows
// are dense (the pattern is every column): this costs 2·Dim evaluations
// of f per Jacobian, which suits the small models loops appear in, not a
// chain of a million masses. The error is the truncation O(h²) plus the
// loops' own solve error divided by h, so tight loop tolerances
// (LoopSettings) matter to implicit methods and to sensitivities.

// MaxLoopJacobianDim is the largest state of a Sim with algebraic loops
// whose monolithic Jacobian is assembled (dense, by differences: 32 MB
// and 4 096 right-hand-side evaluations at this size). Above it the
// Jacobian is an error naming the limit, before anything is allocated.
const MaxLoopJacobianDim = 2048

// ErrLoopJacobian is the errors.Is target of the error a System with
// algebraic loops returns for a Jacobian larger than MaxLoopJacobianDim.
var ErrLoopJacobian = errors.New("graph: the Jacobian of a graph with algebraic loops is dense")

// loopJac holds the buffers of the differenced Jacobian, sized once.
type loopJac struct {
	yp, fp, fm []float64
	J          []float64 // row-major Dim × Dim
	cols       []int32   // 0 … Dim−1
}

func (m *System) loopJac() *loopJac {
	st := m.s.loops
	if st.jac == nil {
		n := len(m.s.x)
		lj := &loopJac{yp: make([]float64, n), fp: make([]float64, n), fm: make([]float64, n), J: make([]float64, n*n), cols: make([]int32, n)}
		for j := range lj.cols {
			lj.cols[j] = int32(j)
		}
		st.jac = lj
	}
	return st.jac
}

// loopJacobianRows is JacobianRows for a Sim with loops: central
// differences of Func, handed to emit as dense rows.
func (m *System) loopJacobianRows(t float64, y []float64, emit func(row int, cols []int32, vals []float64)) error {
	n := len(y)
	if n > MaxLoopJacobianDim {
		return fmt.Errorf("%w (differenced through the loops, %s): this System has %d states, more than MaxLoopJacobianDim = %d; use an explicit method or co-simulation, or break the loops with an edge from a state field", ErrLoopJacobian, strings.Join(m.s.loopNames(), "; "), n, MaxLoopJacobianDim)
	}
	lj := m.loopJac()
	copy(lj.yp, y)
	for j := range n {
		h := 1e-6 * math.Max(1, math.Abs(y[j]))
		lj.yp[j] = y[j] + h
		hp := lj.yp[j] - y[j]
		if err := m.Func(t, lj.yp, lj.fp); err != nil {
			return err
		}
		lj.yp[j] = y[j] - h
		hm := y[j] - lj.yp[j]
		if err := m.Func(t, lj.yp, lj.fm); err != nil {
			return err
		}
		lj.yp[j] = y[j]
		for r := range n {
			lj.J[r*n+j] = (lj.fp[r] - lj.fm[r]) / (hp + hm)
		}
	}
	for r := range n {
		emit(r, lj.cols, lj.J[r*n:(r+1)*n])
	}
	return nil
}

// loopPattern fills p's pattern with dense rows.
func (m *System) loopPattern(p *sparseJac) {
	n := p.nx
	if n > MaxLoopJacobianDim {
		// Too large to assemble (JacobianRows says so): the diagonal, so
		// that asking for the pattern does not allocate Dim².
		p.rowPtr = make([]int, n+1)
		p.pcol = make([]int, n)
		for r := range n {
			p.pcol[r] = r
			p.rowPtr[r+1] = r + 1
		}
		return
	}
	p.rowPtr = make([]int, n+1)
	p.pcol = make([]int, 0, n*n)
	for r := range n {
		for j := range n {
			p.pcol = append(p.pcol, j)
		}
		p.rowPtr[r+1] = p.rowPtr[r] + n
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
