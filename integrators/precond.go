package integrators

import (
	"fmt"
	"math"
)

// precond is a preconditioner P ≈ A of the Newton matrix A, applied on
// the right by GMRES: setup factors it from A's current values, apply
// writes z = P⁻¹·r. Neither allocates after construction.
type precond interface {
	setup(a *CSR) error
	apply(r, z []float64)
}

// singularBlockError is a preconditioner block (or ILU(0) pivot) that
// could not be factored. First and Last are the unknowns it covers.
type singularBlockError struct {
	Kind        string // "block-jacobi" or "ilu0"
	Block       int
	First, Last int
}

func (e *singularBlockError) Error() string {
	if e.Kind == "banded" {
		return fmt.Sprintf("banded LU: zero pivot in column %d", e.First)
	}
	if e.Kind == "ilu0" {
		return fmt.Sprintf("ILU(0) preconditioner: zero pivot in row %d", e.First)
	}
	return fmt.Sprintf("block-Jacobi preconditioner: block %d (unknowns %d..%d) is singular", e.Block, e.First, e.Last)
}

// blockJacobi is P = blockdiag(A[B_b, B_b]) over a partition of the
// unknowns into blocks (each graph node's own unknowns), every block
// factored densely with partial pivoting.
type blockJacobi struct {
	idx     []int // unknowns ordered by block
	start   []int // block b is idx[start[b]:start[b+1]]
	blk     []int // block of each unknown
	loc     []int // position of each unknown within its block
	off     []int // offset of block b's k×k matrix in lu
	lu      []float64
	piv     []int
	scratch []float64
}

// newBlockJacobi builds the preconditioner for the partition blockOf
// (block id of every unknown, ids 0..nb-1).
func newBlockJacobi(blockOf []int) *blockJacobi {
	n := len(blockOf)
	nb := 0
	for _, b := range blockOf {
		nb = max(nb, b+1)
	}
	p := &blockJacobi{idx: make([]int, n), start: make([]int, nb+1), blk: blockOf, loc: make([]int, n), off: make([]int, nb+1), piv: make([]int, n), scratch: make([]float64, n)}
	for _, b := range blockOf {
		p.start[b+1]++
	}
	for b := 0; b < nb; b++ {
		p.start[b+1] += p.start[b]
	}
	fill := make([]int, nb)
	for i, b := range blockOf {
		k := fill[b]
		p.idx[p.start[b]+k] = i
		p.loc[i] = k
		fill[b]++
	}
	for b := 0; b < nb; b++ {
		k := p.start[b+1] - p.start[b]
		p.off[b+1] = p.off[b] + k*k
	}
	p.lu = make([]float64, p.off[nb])
	return p
}

func (p *blockJacobi) setup(a *CSR) error {
	clear(p.lu)
	for b := 0; b+1 < len(p.start); b++ {
		s, e := p.start[b], p.start[b+1]
		k := e - s
		m := p.lu[p.off[b]:p.off[b+1]]
		for r, i := range p.idx[s:e] {
			for q := a.RowPtr[i]; q < a.RowPtr[i+1]; q++ {
				if j := a.Col[q]; p.blk[j] == b {
					m[r*k+p.loc[j]] += a.Val[q]
				}
			}
		}
		if !denseLU(m, p.piv[s:e], k) {
			return &singularBlockError{Kind: "block-jacobi", Block: b, First: p.idx[s], Last: p.idx[e-1]}
		}
	}
	return nil
}

func (p *blockJacobi) apply(r, z []float64) {
	for b := 0; b+1 < len(p.start); b++ {
		s, e := p.start[b], p.start[b+1]
		k := e - s
		w := p.scratch[s:e]
		for q, i := range p.idx[s:e] {
			w[q] = r[i]
		}
		denseLUSolve(p.lu[p.off[b]:p.off[b+1]], p.piv[s:e], k, w)
		for q, i := range p.idx[s:e] {
			z[i] = w[q]
		}
	}
}

// ilu0 is the incomplete LU factorization with zero fill-in of A: L·U
// with the sparsity pattern of A (L unit lower, both stored in place of
// A's values), Saad, Iterative Methods for Sparse Linear Systems, 2nd ed.
// (SIAM 2003), §10.3.2, the IKJ variant. Every row needs its diagonal in
// the pattern.
type ilu0 struct {
	a    *CSR // pattern shared with the Newton matrix; values are the factors
	diag []int
	pos  []int // work: position of column j in the current row, or -1
}

func newILU0(pattern *CSR) *ilu0 {
	f := &ilu0{a: &CSR{N: pattern.N, RowPtr: pattern.RowPtr, Col: pattern.Col, Val: make([]float64, len(pattern.Col))},
		diag: make([]int, pattern.N), pos: make([]int, pattern.N)}
	for i := range f.pos {
		f.pos[i] = -1
	}
	for i := 0; i < pattern.N; i++ {
		f.diag[i] = pattern.find(i, i)
		if f.diag[i] < 0 {
			panic("integrators: ILU(0) needs the diagonal in the pattern")
		}
	}
	return f
}

func (f *ilu0) setup(a *CSR) error {
	lu := f.a
	copy(lu.Val, a.Val)
	amax := 0.0
	for _, v := range a.Val {
		amax = math.Max(amax, math.Abs(v))
	}
	for i := 0; i < lu.N; i++ {
		s, e := lu.RowPtr[i], lu.RowPtr[i+1]
		for q := s; q < e; q++ {
			f.pos[lu.Col[q]] = q
		}
		for q := s; q < e && lu.Col[q] < i; q++ {
			k := lu.Col[q]
			l := lu.Val[q] / lu.Val[f.diag[k]]
			lu.Val[q] = l
			for r := f.diag[k] + 1; r < lu.RowPtr[k+1]; r++ {
				if p := f.pos[lu.Col[r]]; p >= 0 {
					lu.Val[p] -= l * lu.Val[r]
				}
			}
		}
		for q := s; q < e; q++ {
			f.pos[lu.Col[q]] = -1
		}
		if d := lu.Val[f.diag[i]]; !(math.Abs(d) > 0x1p-52*amax) {
			return &singularBlockError{Kind: "ilu0", Block: i, First: i, Last: i}
		}
	}
	return nil
}

func (f *ilu0) apply(r, z []float64) {
	lu := f.a
	for i := 0; i < lu.N; i++ {
		s := r[i]
		for q := lu.RowPtr[i]; q < f.diag[i]; q++ {
			s -= lu.Val[q] * z[lu.Col[q]]
		}
		z[i] = s
	}
	for i := lu.N - 1; i >= 0; i-- {
		s := z[i]
		for q := f.diag[i] + 1; q < lu.RowPtr[i+1]; q++ {
			s -= lu.Val[q] * z[lu.Col[q]]
		}
		z[i] = s / lu.Val[f.diag[i]]
	}
}
