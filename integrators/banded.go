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

// setup factors a.
func (b *bandLU) setup(a *spMatrix) error {
	b.shape(a)
	clear(b.ab)
	for i := 0; i < a.n; i++ {
		for k := a.start[i]; k < a.end[i]; k++ {
			b.ab[b.at(i, int(a.col[k]))] = a.val[k]
		}
	}
	amax := maxAbs(a.val)
	n, kl := b.n, b.kl
	tiny := 0x1p-52 * amax
	ju := 0
	for j := 0; j < n; j++ {
		km := min(kl, n-1-j)
		jp, pm := 0, math.Abs(b.ab[b.at(j, j)])
		for r := 1; r <= km; r++ {
			if v := math.Abs(b.ab[b.at(j+r, j)]); v > pm {
				jp, pm = r, v
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
				b.ab[p], b.ab[q] = b.ab[q], b.ab[p]
			}
		}
		d := 1 / b.ab[b.at(j, j)]
		for r := 1; r <= km; r++ {
			b.ab[b.at(j+r, j)] *= d
		}
		// U's diagonal is not needed again by the elimination: keep its
		// reciprocal, so that solve multiplies.
		b.ab[b.at(j, j)] = d
		for c := j + 1; c <= ju; c++ {
			u := b.ab[b.at(j, c)]
			if u == 0 {
				continue
			}
			for r := 1; r <= km; r++ {
				b.ab[b.at(j+r, c)] -= b.ab[b.at(j+r, j)] * u
			}
		}
	}
	return nil
}

// solve overwrites x with A⁻¹·x.
func (b *bandLU) solve(x []float64) {
	n, kl, kv := b.n, b.kl, b.kl+b.ku
	for j := 0; j < n; j++ {
		if p := b.piv[j]; p != j {
			x[j], x[p] = x[p], x[j]
		}
		xj := x[j]
		if xj == 0 {
			continue
		}
		km := min(kl, n-1-j)
		for r := 1; r <= km; r++ {
			x[j+r] -= b.ab[b.at(j+r, j)] * xj
		}
	}
	for i := n - 1; i >= 0; i-- {
		s := x[i]
		for c := i + 1; c <= min(n-1, i+kv); c++ {
			s -= b.ab[b.at(i, c)] * x[c]
		}
		x[i] = s * b.ab[b.at(i, i)]
	}
}
