package integrators

import (
	"fmt"
	"math"
	"unsafe"
)

// precond is a preconditioner P ≈ A of the Newton matrix A, applied on
// the right by GMRES: setup factors it from A's current values, apply
// writes z = P⁻¹·r. Neither allocates after construction.
type precond interface {
	setup(a *spMatrix) error
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
// unknowns into blocks (each graph node's own unknowns). Every block is
// factored densely with partial pivoting and stored inverted, as PETSc's
// point-block Jacobi stores its blocks, so that applying P⁻¹ is one small
// dense product per block. When every block is a contiguous range of
// unknowns (a graph's nodes), the blocks are read and written in place.
type blockJacobi struct {
	start []int32 // block b is unknowns idx[start[b]:start[b+1]] (or the range itself, contiguous)
	idx   []int32 // unknowns ordered by block; nil when contiguous
	blk   []int32 // block of each unknown; nil when contiguous
	loc   []int32 // position of each unknown within its block; nil when contiguous
	off   []int   // offset of block b's k×k inverse in inv
	inv   []float64
	// work
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
	p := &blockJacobi{start: make([]int32, nb+1), off: make([]int, nb+1)}
	for _, b := range blockOf {
		p.start[b+1]++
	}
	for b := 0; b < nb; b++ {
		p.start[b+1] += p.start[b]
	}
	contiguous := true
	for i, b := range blockOf {
		if i > 0 && b < blockOf[i-1] || b > 0 && i > 0 && b != blockOf[i-1] && int(p.start[b]) != i {
			contiguous = false
		}
	}
	if !contiguous {
		p.idx, p.blk, p.loc = make([]int32, n), make([]int32, n), make([]int32, n)
		fill := make([]int32, nb)
		for i, b := range blockOf {
			k := fill[b]
			p.idx[int(p.start[b])+int(k)] = int32(i)
			p.blk[i], p.loc[i] = int32(b), k
			fill[b]++
		}
	}
	kmax := 0
	for b := 0; b < nb; b++ {
		k := int(p.start[b+1] - p.start[b])
		kmax = max(kmax, k)
		p.off[b+1] = p.off[b] + k*k
	}
	p.inv = make([]float64, p.off[nb])
	p.lu, p.piv, p.scratch = make([]float64, kmax*kmax), make([]int, kmax), make([]float64, 2*kmax)
	return p
}

// unknown returns the q-th unknown of block b.
func (p *blockJacobi) unknown(b, q int) int {
	if p.idx == nil {
		return int(p.start[b]) + q
	}
	return int(p.idx[int(p.start[b])+q])
}

// local returns the position of unknown j in block b, or -1.
func (p *blockJacobi) local(b, j int) int {
	if p.idx == nil {
		if j >= int(p.start[b]) && j < int(p.start[b+1]) {
			return j - int(p.start[b])
		}
		return -1
	}
	if int(p.blk[j]) == b {
		return int(p.loc[j])
	}
	return -1
}

func (p *blockJacobi) setup(a *spMatrix) error {
	for b := 0; b+1 < len(p.start); b++ {
		k := int(p.start[b+1] - p.start[b])
		m := p.lu[:k*k]
		clear(m)
		for r := range k {
			i := p.unknown(b, r)
			for q := a.start[i]; q < a.end[i]; q++ {
				if c := p.local(b, int(a.col[q])); c >= 0 {
					m[r*k+c] += a.val[q]
				}
			}
		}
		if !denseLU(m, p.piv[:k], k) {
			return &singularBlockError{Kind: "block-jacobi", Block: b, First: p.unknown(b, 0), Last: p.unknown(b, k-1)}
		}
		// The inverse, column by column.
		inv := p.inv[p.off[b]:p.off[b+1]]
		e := p.scratch[:k]
		for c := range k {
			clear(e)
			e[c] = 1
			denseLUSolve(m, p.piv[:k], k, e)
			for r := range k {
				inv[r*k+c] = e[r]
			}
		}
	}
	return nil
}

func (p *blockJacobi) apply(r, z []float64) {
	for b := 0; b+1 < len(p.start); b++ {
		s, e := int(p.start[b]), int(p.start[b+1])
		k := e - s
		inv := p.inv[p.off[b]:p.off[b+1]]
		if p.idx == nil {
			blockMul(inv, r[s:e], z[s:e])
			continue
		}
		w, y := p.scratch[:k], p.scratch[k:2*k]
		for q, i := range p.idx[s:e] {
			w[q] = r[i]
		}
		blockMul(inv, w, y)
		for q, i := range p.idx[s:e] {
			z[i] = y[q]
		}
	}
}

// blockMul writes m·x into dst, m row-major k×k with k = len(x).
func blockMul(m, x, dst []float64) {
	k := len(x)
	for q := range dst[:k] {
		row := m[q*k : (q+1)*k]
		v := 0.0
		for c, xc := range x {
			v += row[c] * xc
		}
		dst[q] = v
	}
}

// ilu0 is the incomplete LU factorization with zero fill-in of A: L·U
// with the sparsity pattern of A (L unit lower, both stored in place of a
// copy of A's values), Saad, Iterative Methods for Sparse Linear Systems,
// 2nd ed. (SIAM 2003), §10.3.2, the IKJ variant. The pattern is that of
// the assembled matrix, whose zero entries are not stored (spMatrix): the
// factorization of the Jacobian's true non-zeros, as PETSc's ILU(0) of a
// matrix assembled without zeros. Its values grow with the matrix. U's
// diagonal is stored inverted (as PETSc stores it), so that applying the
// factors multiplies instead of dividing.
type ilu0 struct {
	a   *spMatrix // the Newton matrix whose pattern the factors share
	val []float64 // the factors
}

func newILU0(int) *ilu0 { return &ilu0{} }

// setup factors a. Row i is updated by each row k < i of its lower part
// at the columns both rows hold: the columns of a row are strictly
// increasing (spMatrix), so the two rows are merged, which finds those
// columns in the order a table of row i's positions would visit them
// (the updates and their order, hence the bits, are the same) without
// a work index per row.
func (f *ilu0) setup(a *spMatrix) error {
	f.a = a
	if cap(f.val) < len(a.val) {
		f.val = make([]float64, len(a.val), cap(a.val))
	}
	f.val = f.val[:len(a.val)]
	lu := f.val
	copy(lu, a.val)
	amax := maxAbs(a.val)
	col, diag, end := a.col, a.diag, a.end
	for i := 0; i < a.n; i++ {
		s, e := a.start[i], end[i]
		for q := s; q < diag[i]; q++ {
			k := col[q]
			l := lu[q] * lu[diag[k]] // the diagonal holds its reciprocal
			lu[q] = l
			// Row k's columns after its diagonal exceed k = col[q], so
			// row i's matching entries lie after q.
			p := q + 1
			for r := diag[k] + 1; r < end[k] && p < e; r++ {
				c := col[r]
				for p < e && col[p] < c {
					p++
				}
				if p < e && col[p] == c {
					lu[p] -= l * lu[r]
				}
			}
		}
		d := lu[diag[i]]
		if !(math.Abs(d) > 0x1p-52*amax) {
			return &singularBlockError{Kind: "ilu0", Block: i, First: i, Last: i}
		}
		lu[diag[i]] = 1 / d
	}
	return nil
}

func (f *ilu0) apply(r, z []float64) {
	a := f.a
	n := a.n
	if n == 0 {
		return
	}
	mustLen(n, r, z)
	if len(f.val) < len(a.col) {
		panic("integrators: ILU(0) applied before its set-up")
	}
	cp, vp, zp := unsafe.Pointer(unsafe.SliceData(a.col)), unsafe.Pointer(unsafe.SliceData(f.val)), unsafe.Pointer(unsafe.SliceData(z))
	diag, start, end := a.diag[:n], a.start[:n], a.end[:n]
	r, z = r[:n], z[:n]
	for i, st := range start {
		z[i] = r[i] - rowDot(cp, vp, zp, st, diag[i])
	}
	lu := f.val
	for i := n - 1; i >= 0; i-- {
		d := diag[i]
		z[i] = (z[i] - rowDot(cp, vp, zp, d+1, end[i])) * lu[d]
	}
}
