package integrators

import (
	"fmt"
	"math"
)

// CSR is a square sparse matrix in compressed sparse row form: the
// entries of row i are Val[RowPtr[i]:RowPtr[i+1]] in the columns
// Col[RowPtr[i]:RowPtr[i+1]], strictly ascending. Entries of the pattern
// may hold zero; entries outside it are zero.
type CSR struct {
	N      int
	RowPtr []int // len N+1, RowPtr[0] = 0, non-decreasing
	Col    []int // len RowPtr[N]
	Val    []float64
}

// NNZ is the number of stored entries.
func (a *CSR) NNZ() int { return a.RowPtr[a.N] }

// MulVec writes a·x into dst (len N each). It does not allocate.
func (a *CSR) MulVec(x, dst []float64) {
	for i := 0; i < a.N; i++ {
		s := 0.0
		for k := a.RowPtr[i]; k < a.RowPtr[i+1]; k++ {
			s += a.Val[k] * x[a.Col[k]]
		}
		dst[i] = s
	}
}

// At returns entry (i, j), zero outside the pattern.
func (a *CSR) At(i, j int) float64 {
	if k := a.find(i, j); k >= 0 {
		return a.Val[k]
	}
	return 0
}

// find returns the index of (i, j) in Col/Val, or -1, by bisection.
func (a *CSR) find(i, j int) int {
	lo, hi := a.RowPtr[i], a.RowPtr[i+1]
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch c := a.Col[m]; {
		case c == j:
			return m
		case c < j:
			lo = m + 1
		default:
			hi = m
		}
	}
	return -1
}

// checkPattern validates a sparsity pattern of an n×n matrix.
func checkPattern(n int, rowPtr, col []int) error {
	if len(rowPtr) != n+1 || rowPtr[0] != 0 {
		return fmt.Errorf("integrators: Jacobian pattern: len(rowPtr) = %d, want %d with rowPtr[0] = 0", len(rowPtr), n+1)
	}
	if rowPtr[n] != len(col) {
		return fmt.Errorf("integrators: Jacobian pattern: rowPtr[n] = %d but len(col) = %d", rowPtr[n], len(col))
	}
	for i := 0; i < n; i++ {
		if rowPtr[i+1] < rowPtr[i] {
			return fmt.Errorf("integrators: Jacobian pattern: rowPtr decreases at row %d", i)
		}
		for k := rowPtr[i]; k < rowPtr[i+1]; k++ {
			if c := col[k]; c < 0 || c >= n || k > rowPtr[i] && c <= col[k-1] {
				return fmt.Errorf("integrators: Jacobian pattern: row %d: columns must be in [0, %d) and strictly ascending", i, n)
			}
		}
	}
	return nil
}

// patternBuilder collects (row, column) pairs of a pattern; build sorts
// and merges them into a CSR with zero values by a counting sort over the
// rows (no per-row allocation: patterns of 10⁶ rows are built in one
// pass).
type patternBuilder struct {
	n      int
	ri, cj []int32
}

func newPatternBuilder(n int) *patternBuilder { return &patternBuilder{n: n} }

func (p *patternBuilder) add(i, j int) {
	p.ri = append(p.ri, int32(i))
	p.cj = append(p.cj, int32(j))
}

func (p *patternBuilder) build() *CSR {
	n := p.n
	cnt := make([]int, n+1)
	for _, i := range p.ri {
		cnt[i+1]++
	}
	for i := 0; i < n; i++ {
		cnt[i+1] += cnt[i]
	}
	cols := make([]int, len(p.ri))
	fill := append([]int(nil), cnt[:n]...)
	for k, i := range p.ri {
		cols[fill[i]] = int(p.cj[k])
		fill[i]++
	}
	a := &CSR{N: n, RowPtr: make([]int, n+1)}
	w := 0
	for i := 0; i < n; i++ {
		r := cols[cnt[i]:cnt[i+1]]
		sortInts(r)
		for k, c := range r {
			if k == 0 || c != r[k-1] {
				cols[w] = c
				w++
			}
		}
		a.RowPtr[i+1] = w
	}
	a.Col = cols[:w:w]
	a.Val = make([]float64, w)
	p.ri, p.cj = nil, nil
	return a
}

// sortInts is an insertion sort: pattern rows are short.
func sortInts(r []int) {
	for i := 1; i < len(r); i++ {
		for j := i; j > 0 && r[j] < r[j-1]; j-- {
			r[j], r[j-1] = r[j-1], r[j]
		}
	}
}

// denseLU is an in-place LU factorization with partial pivoting of a
// small dense k×k block (row-major), allocation-free: the block-Jacobi
// preconditioner factors one per block.
//
// It reports false when a pivot is zero or smaller than k·ε times the
// largest entry of the block (numerically singular).
func denseLU(a []float64, piv []int, k int) bool {
	amax := 0.0
	for _, v := range a[:k*k] {
		amax = math.Max(amax, math.Abs(v))
	}
	tiny := float64(k) * 0x1p-52 * amax
	if amax == 0 {
		return k == 0
	}
	for c := 0; c < k; c++ {
		p, pm := c, math.Abs(a[c*k+c])
		for r := c + 1; r < k; r++ {
			if v := math.Abs(a[r*k+c]); v > pm {
				p, pm = r, v
			}
		}
		if !(pm > tiny) {
			return false
		}
		piv[c] = p
		if p != c {
			for j := 0; j < k; j++ {
				a[c*k+j], a[p*k+j] = a[p*k+j], a[c*k+j]
			}
		}
		d := 1 / a[c*k+c]
		for r := c + 1; r < k; r++ {
			l := a[r*k+c] * d
			a[r*k+c] = l
			if l == 0 {
				continue
			}
			for j := c + 1; j < k; j++ {
				a[r*k+j] -= l * a[c*k+j]
			}
		}
	}
	return true
}

// denseLUSolve solves (LU)·x = b in place of b, with the pivots of
// denseLU.
func denseLUSolve(a []float64, piv []int, k int, b []float64) {
	for c := 0; c < k; c++ {
		if p := piv[c]; p != c {
			b[c], b[p] = b[p], b[c]
		}
	}
	for r := 1; r < k; r++ {
		s := b[r]
		for j := 0; j < r; j++ {
			s -= a[r*k+j] * b[j]
		}
		b[r] = s
	}
	for r := k - 1; r >= 0; r-- {
		s := b[r]
		for j := r + 1; j < k; j++ {
			s -= a[r*k+j] * b[j]
		}
		b[r] = s / a[r*k+r]
	}
}
