package integrators

import "math"

// bandLU is a direct banded LU factorization with partial pivoting of a
// sparse Newton matrix whose entries all lie within kl sub- and ku
// super-diagonals (the bandwidths of its stored entries, measured at every
// set-up: the band storage grows when they do), in LAPACK's band
// storage with kl extra rows for the fill-in of the row interchanges
// (dgbtf2: Golub & Van Loan, Matrix Computations, 4th ed., §4.3.5). It is
// exact (not an iteration) and costs O(n·kl·(kl+ku)) time and
// O(n·(2·kl+ku+1)) memory: cheap when the unknowns are ordered so that
// coupled unknowns are near each other, as for a chain whose nodes were
// added in order; a general graph can have bandwidth O(n), and then it is
// dense LU with more bookkeeping.
type bandLU struct {
	n, kl, ku int
	ldab      int       // 2·kl + ku + 1
	ab        []float64 // column j holds rows j−kl−ku … j+kl at ab[j·ldab:]
	piv       []int
}

// bandwidths returns the lower and upper bandwidths of a's entries.
func bandwidths(a *spMatrix) (kl, ku int) {
	for i := 0; i < a.n; i++ {
		if a.end[i] > a.start[i] {
			kl = max(kl, i-int(a.col[a.start[i]]))
			ku = max(ku, int(a.col[a.end[i]-1])-i)
		}
	}
	return kl, ku
}

func newBandLU(n int) *bandLU { return &bandLU{n: n, piv: make([]int, n)} }

// shape sets the bandwidths for a, growing the storage when needed.
func (b *bandLU) shape(a *spMatrix) {
	kl, ku := bandwidths(a)
	b.kl, b.ku, b.ldab = kl, ku, 2*kl+ku+1
	if need := b.ldab * b.n; cap(b.ab) < need {
		b.ab = make([]float64, need)
	} else {
		b.ab = b.ab[:need]
	}
}

// at returns the storage index of (i, j), |i − j| within the band.
func (b *bandLU) at(i, j int) int { return b.kl + b.ku + i - j + j*b.ldab }

// clearChunk is how many columns setup zeroes at a time: a few
// kilobytes, so that the zeroed columns are still in cache when the
// scatter and the elimination reach them.
const clearChunk = 64

// setup factors a. The band storage is zeroed, filled from a and
// eliminated in one sweep over the columns, not three: column j is
// eliminated as soon as rows up to j + kl (the ones it reads) are
// scattered, and a row is scattered once the columns it reaches are
// zeroed. Every entry receives a's value before any elimination step
// updates it, so the arithmetic, and the factors, are those of zeroing,
// filling and factoring in turn; but the storage (25 float64 per unknown
// for a bandwidth of 9 and 6) streams through the cache once per set-up
// instead of three times.
func (b *bandLU) setup(a *spMatrix) error {
	b.shape(a)
	amax := maxAbs(a.val)
	n, kl, kv, ldab := b.n, b.kl, b.kl+b.ku, b.ldab
	ab := b.ab
	tiny := 0x1p-52 * amax
	ju := 0
	cleared, scattered := 0, 0 // columns [0, cleared) zeroed, rows [0, scattered) filled
	for j := 0; j < n; j++ {
		for last := min(j+kl, n-1); scattered <= last; scattered++ {
			i := scattered
			if reach := min(i+b.ku, n-1); reach >= cleared {
				to := min(max(reach+1, cleared+clearChunk), n)
				clear(ab[cleared*ldab : to*ldab])
				cleared = to
			}
			for k := a.start[i]; k < a.end[i]; k++ {
				c := int(a.col[k])
				ab[kv+i-c+c*ldab] = a.val[k]
			}
		}
		km := min(kl, n-1-j)
		colj := ab[j*ldab : (j+1)*ldab]
		sub := colj[kv+1 : kv+1+km] // rows j+1 … j+km of column j
		jp, pm := 0, math.Abs(colj[kv])
		for r, v := range sub {
			if v := math.Abs(v); v > pm {
				jp, pm = r+1, v
			}
		}
		b.piv[j] = j + jp
		if !(pm > tiny) {
			return &singularBlockError{Kind: "banded", Block: j, First: j, Last: j}
		}
		ju = max(ju, min(j+b.ku+jp, n-1))
		if jp != 0 {
			for c := j; c <= ju; c++ {
				p, q := b.at(j, c), b.at(j+jp, c)
				ab[p], ab[q] = ab[q], ab[p]
			}
		}
		d := 1 / colj[kv]
		for r := range sub {
			sub[r] *= d
		}
		// U's diagonal is not needed again by the elimination: keep its
		// reciprocal, so that solve multiplies.
		colj[kv] = d
		for c := j + 1; c <= ju; c++ {
			o := kv + j - c + c*ldab // (j, c)
			u := ab[o]
			if u == 0 {
				continue
			}
			dst := ab[o+1 : o+1+km] // rows j+1 … j+km of column c
			for r, l := range sub {
				dst[r] -= l * u
			}
		}
	}
	return nil
}

// solve overwrites x with A⁻¹·x.
func (b *bandLU) solve(x []float64) {
	n, kl, kv, ldab := b.n, b.kl, b.kl+b.ku, b.ldab
	ab := b.ab
	for j := 0; j < n; j++ {
		if p := b.piv[j]; p != j {
			x[j], x[p] = x[p], x[j]
		}
		xj := x[j]
		if xj == 0 {
			continue
		}
		km := min(kl, n-1-j)
		o := kv + 1 + j*ldab // (j+1, j)
		l, xs := ab[o:o+km], x[j+1:j+1+km]
		for r, v := range l {
			xs[r] -= v * xj
		}
	}
	// Back substitution by rows: (i, c) is ab[kv + i + c·(ldab−1)].
	for i := n - 1; i >= 0; i-- {
		s := x[i]
		last := min(n-1, i+kv)
		for c, o := i+1, kv+i+(i+1)*(ldab-1); c <= last; c, o = c+1, o+ldab-1 {
			s -= ab[o] * x[c]
		}
		x[i] = s * ab[kv+i*ldab]
	}
}
