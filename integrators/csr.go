package integrators

import (
	"fmt"
	"math"
	"slices"
	"unsafe"
)

// spMatrix is the sparse Newton matrix of the implicit and structural
// methods, as assembled: row i holds the columns col[start[i]:end[i]],
// strictly increasing, and their values in val; its diagonal entry is
// always stored (at diag[i]), every other entry only when it is not zero.
// Rows are appended as they are assembled, so they may lie in col and val
// in any order (a System's rows come in increasing order, the Newmark
// family's maps them); nothing but the order of the entries within a row
// matters.
//
// The pattern is not fixed: each assembly stores the entries that are not
// zero in the values it is given, so the matrix holds the Jacobian's true
// non-zeros even when the System declares a coarser pattern (a graph's
// nodes declare their local Jacobians dense), and the products and
// factorizations cost O(true non-zeros). The arrays grow to the largest
// assembly and are reused: an assembly allocates only when it has more
// entries than any before it. When they must grow, their new size is
// projected from the entries per row assembled so far (grow), so the
// first assembly of a large matrix copies its entries about twice in
// all, not the four times or so of append's 1.25× growth of large
// slices.
//
// Indices are 32-bit: the matrix holds at most 2³¹−1 entries (an error
// otherwise), 12 bytes per entry (value and column) and 8 or 12 per row:
// while every assembly appends its rows in order (a System's rows come
// so), the end of row i is the start of row i+1 and end is start[1:];
// the first assembly that appends a row out of order gives end its own
// array (split) for the matrix's life.
type spMatrix struct {
	n          int
	start, end []int32
	split      bool // end is its own array, not start[1:]
	diag       []int32
	col        []int32
	val        []float64
	// assembly state
	rows int       // rows appended in this assembly
	seen []uint64  // bit i: row i was appended in this assembly (wasSeen)
	acc  []float64 // accumulator of addMapped, zero between rows
	mark []bool    // columns touched in acc
	tmp  []int32   // the touched columns

	grownRows, grownK int // rows and entries at the previous growth of col and val
}

func newSpMatrix(n int) *spMatrix {
	start := make([]int32, n+1)
	return &spMatrix{n: n, start: start, end: start[1:], diag: make([]int32, n), seen: make([]uint64, (n+63)/64)}
}

// wasSeen reports whether row i was appended in this assembly.
func (a *spMatrix) wasSeen(i int) bool { return a.seen[i/64]&(1<<(i%64)) != 0 }

// splitEnd gives end its own array, keeping the ends of the rows appended
// so far (rows 0 to rows−1, in order while end was start[1:]).
func (a *spMatrix) splitEnd() {
	end := make([]int32, a.n)
	copy(end[:a.rows], a.start[1:a.rows+1])
	a.end, a.split = end, true
}

// errMatrixTooLarge is an assembly with 2³¹ entries or more.
var errMatrixTooLarge = fmt.Errorf("integrators: the sparse Newton matrix has 2^31 entries or more (its indices are 32-bit)")

// reset starts an assembly.
func (a *spMatrix) reset() {
	a.col, a.val = a.col[:0], a.val[:0]
	a.rows, a.grownRows, a.grownK = 0, 0, 0
	clear(a.seen)
}

// nnz is the number of stored entries.
func (a *spMatrix) nnz() int { return len(a.col) }

// push appends one entry of the row being appended.
func (a *spMatrix) push(c int32, v float64) {
	if len(a.col) == cap(a.col) || len(a.val) == cap(a.val) {
		a.grow()
	}
	a.col = append(a.col, c)
	a.val = append(a.val, v)
}

// grow enlarges col and val (full) to the entries the whole assembly is
// projected to need at the rate of the rows appended so far, plus an
// eighth, but by at least a quarter (append's own rate for large
// slices) and at most double: a matrix whose rows are alike (a chain's)
// is assembled doubling until the projection is within reach and then
// reallocated once more, while a System whose first rows are much denser
// than the rest (a hub node first) costs no more than doubling.
//
// Doubling up to the projection leaves garbage about as large as the
// matrix (its old arrays) on the way, which at a million rows is most of
// a first step's transient memory. So once enough rows are in (growRows)
// and the rows since the previous growth came at the same rate as all
// rows before them (within a quarter: no hub among the first rows), the
// projection is taken at once, with a sixteenth to spare.
func (a *spMatrix) grow() {
	k := len(a.col)
	want := k + k/4 + 64
	if a.rows > 0 {
		rate := float64(k) / float64(a.rows)
		est := rate * float64(a.n) * 1.125
		want = max(want, int(min(est, float64(2*k)))+64)
		if dr := a.rows - a.grownRows; a.rows >= growRows && dr >= growRows/2 {
			recent := float64(k-a.grownK) / float64(dr)
			if recent <= 1.25*rate && rate <= 1.25*recent {
				want = max(k+k/4+64, int(rate*float64(a.n)*1.0625)+64)
			}
		}
	}
	a.grownRows, a.grownK = a.rows, k
	a.col = slices.Grow(a.col, want-k)
	a.val = slices.Grow(a.val, want-k)
}

// growRows is the number of rows after which grow trusts its projection.
const growRows = 1024

// beginRow opens row i; endRow closes it.
func (a *spMatrix) beginRow(i int) {
	if !a.split && i != a.rows {
		a.splitEnd()
	}
	a.start[i] = int32(len(a.col))
}

func (a *spMatrix) endRow(i int) error {
	if len(a.col) > math.MaxInt32 {
		return errMatrixTooLarge
	}
	a.end[i] = int32(len(a.col))
	a.seen[i/64] |= 1 << (i % 64)
	a.rows++
	return nil
}

// addScaled appends row i as d·e_i + c·(cols, vals): the entries of a
// Jacobian row scaled by c, with d added on the diagonal. Zero entries
// other than the diagonal are dropped. Each value is computed as c·v,
// plus d on the diagonal, in that order. The columns must be strictly
// increasing in [0, n): an error otherwise.
func (a *spMatrix) addScaled(i int, cols []int32, vals []float64, c, d float64) error {
	a.beginRow(i)
	ii := int32(i)
	vals = vals[:len(cols)]
	done := false
	prev := int32(-1)
	for k, j := range cols {
		if j <= prev {
			return errCols(i, a.n)
		}
		prev = j
		if !done && j >= ii {
			done = true
			a.diag[i] = int32(len(a.col))
			if j == ii {
				a.push(ii, c*vals[k]+d)
				continue
			}
			a.push(ii, d)
		}
		if v := c * vals[k]; v != 0 {
			a.push(j, v)
		}
	}
	if int(prev) >= a.n {
		return errCols(i, a.n)
	}
	if !done {
		a.diag[i] = int32(len(a.col))
		a.push(ii, d)
	}
	return a.endRow(i)
}

// addMapped appends row i as d·e_i + Σ_k coef[kind[k]]·vals[k] at column
// to[cols[k]]: a row whose columns map onto the matrix's with merging
// (the Newmark family's positions and velocities onto accelerations).
// Contributions to one entry are summed in the order given, then d.
// Columns with to < 0 are skipped.
func (a *spMatrix) addMapped(i int, cols []int32, vals []float64, to []int32, kind []uint8, coef *[6]float64, zrow bool, d float64) error {
	if a.acc == nil {
		a.acc, a.mark = make([]float64, a.n), make([]bool, a.n)
	}
	a.tmp = a.tmp[:0]
	off := uint8(0)
	if zrow {
		off = 3
	}
	for k, j := range cols {
		u := to[j]
		if u < 0 {
			continue
		}
		if !a.mark[u] {
			a.mark[u] = true
			a.tmp = append(a.tmp, u)
		}
		a.acc[u] += coef[kind[j]+off] * vals[k]
	}
	ii := int32(i)
	if !a.mark[ii] {
		a.mark[ii] = true
		a.tmp = append(a.tmp, ii)
	}
	a.acc[ii] += d
	slices.Sort(a.tmp)
	a.beginRow(i)
	for _, u := range a.tmp {
		v := a.acc[u]
		a.acc[u], a.mark[u] = 0, false
		if u == ii {
			a.diag[i] = int32(len(a.col))
		} else if v == 0 {
			continue
		}
		a.push(u, v)
	}
	return a.endRow(i)
}

// addDense appends row i from a dense row (len n): its non-zero entries
// and the diagonal.
func (a *spMatrix) addDense(i int, row []float64) error {
	a.beginRow(i)
	for j, v := range row {
		if j == i {
			a.diag[i] = int32(len(a.col))
		} else if v == 0 {
			continue
		}
		a.push(int32(j), v)
	}
	return a.endRow(i)
}

// finish ends an assembly: rows that were not appended are d·e_i, with
// d = dq for i < nq and 1 after.
func (a *spMatrix) finish(dq float64, nq int) error {
	for i := range a.n {
		if !a.wasSeen(i) {
			d := 1.0
			if i < nq {
				d = dq
			}
			a.beginRow(i)
			a.diag[i] = int32(len(a.col))
			a.push(int32(i), d)
			if err := a.endRow(i); err != nil {
				return err
			}
		}
	}
	return nil
}

// nonFiniteRow returns a row holding a non-finite value, or -1.
func (a *spMatrix) nonFiniteRow() int {
	k := firstNonFinite(a.val)
	if k < 0 {
		return -1
	}
	for i := 0; i < a.n; i++ {
		if int(a.start[i]) <= k && k < int(a.end[i]) {
			return i
		}
	}
	return -1
}

// The sparse kernels below (MulVec, mulVecDot, ilu0.apply) read col, val
// and the vector they gather from through unsafe.Add, without bounds
// checks: they are the inner loops of every GMRES iteration, and the
// checks cost about 40 % of their time. What makes that safe is checked
// where it is established, never per entry: every stored column is in
// [0, n) (the assembly validates the rows it is given: addScaled,
// addMapped, addDense, finish), every row's range start ≤ diag < end lies
// within col and val (they are appended together), and the vectors are
// checked once per call to hold n values (mustLen).

// mustLen panics unless every vector holds at least n values.
func mustLen(n int, vs ...[]float64) {
	for _, v := range vs {
		if len(v) < n {
			panic(fmt.Sprintf("integrators: sparse kernel on a vector of %d values, want %d", len(v), n))
		}
	}
}

// rowDot is Σ val[k]·x[col[k]] over k in [st, en).
func rowDot(cp, vp, xp unsafe.Pointer, st, en int32) float64 {
	s := 0.0
	for k := uintptr(st); k < uintptr(en); k++ {
		c := *(*int32)(unsafe.Add(cp, 4*k))
		s += *(*float64)(unsafe.Add(vp, 8*k)) * *(*float64)(unsafe.Add(xp, 8*uintptr(c)))
	}
	return s
}

// MulVec writes a·x into dst (len n each). It does not allocate.
func (a *spMatrix) MulVec(x, dst []float64) {
	n := a.n
	if n == 0 {
		return
	}
	mustLen(n, x, dst)
	cp, vp, xp := unsafe.Pointer(unsafe.SliceData(a.col)), unsafe.Pointer(unsafe.SliceData(a.val)), unsafe.Pointer(unsafe.SliceData(x))
	end := a.end[:n]
	dst = dst[:n]
	for i, st := range a.start[:n] {
		dst[i] = rowDot(cp, vp, xp, st, end[i])
	}
}

// mulVecDot writes a·x into dst and returns dst·b, in one pass.
func (a *spMatrix) mulVecDot(x, dst, b []float64) float64 {
	n := a.n
	if n == 0 {
		return 0
	}
	mustLen(n, x, dst, b)
	cp, vp, xp := unsafe.Pointer(unsafe.SliceData(a.col)), unsafe.Pointer(unsafe.SliceData(a.val)), unsafe.Pointer(unsafe.SliceData(x))
	end := a.end[:n]
	dst, b = dst[:n], b[:n]
	d := 0.0
	for i, st := range a.start[:n] {
		s := rowDot(cp, vp, xp, st, end[i])
		dst[i] = s
		d += s * b[i]
	}
	return d
}

// at returns entry (i, j), zero when it is not stored.
func (a *spMatrix) at(i, j int) float64 {
	if k := a.find(i, j); k >= 0 {
		return a.val[k]
	}
	return 0
}

// find returns the index of (i, j) in col/val, or -1, by bisection.
func (a *spMatrix) find(i, j int) int {
	lo, hi := int(a.start[i]), int(a.end[i])
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch c := int(a.col[m]); {
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
	if n > math.MaxInt32 {
		return fmt.Errorf("integrators: Jacobian pattern: %d unknowns; at most 2^31-1 with a sparse Jacobian", n)
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
