package integrators

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/cosimgo/cosim/internal/numtest"
)

// The linear-algebra kernels of the implicit methods, checked against
// their documented contracts: the singularity thresholds, exactness of
// the factorizations against an independent dense solve (gonum's LU), the
// defining property of ILU(0), the GMRES error report, the divergence and
// forcing rules. These are the parts of the Newton solve that decide
// whether a step fails and why, so each is pinned on inputs whose answer
// is known in closed form.

// denseSolveB solves a·x = b (a row-major n×n) with gonum's LU: the
// independent reference of the factorization tests.
func denseSolveB(t *testing.T, a []float64, n int, b []float64) []float64 {
	t.Helper()
	var x mat.VecDense
	if err := x.SolveVec(mat.NewDense(n, n, append([]float64(nil), a...)), mat.NewVecDense(n, append([]float64(nil), b...))); err != nil {
		t.Fatalf("reference solve: %v", err)
	}
	return x.RawVector().Data
}

// TestMaxAbsContractB: maxAbs is max|x_i|, NaN when any x_i is NaN
// (its doc comment), wherever the largest or the NaN stands.
func TestMaxAbsContractB(t *testing.T) {
	for _, c := range []struct {
		x    []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3, -5, 1}, 5},
		{[]float64{-5, 3, 1}, 5},
		{[]float64{1, 3, -5}, 5},
		{[]float64{2, 2}, 2},
	} {
		if got := maxAbs(c.x); got != c.want {
			t.Errorf("maxAbs(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	for _, x := range [][]float64{{math.NaN(), 1, 2}, {1, math.NaN(), 2}, {1, 2, math.NaN()}} {
		if got := maxAbs(x); !math.IsNaN(got) {
			t.Errorf("maxAbs(%v) = %v, want NaN", x, got)
		}
	}
}

// TestDenseLUThresholdB: denseLU reports a k×k block singular when a
// pivot is at most k·2⁻⁵² times the block's largest entry (its doc
// comment), relative to that entry: diag(1e6, 1e-12) is singular at
// k = 2 (threshold 2·2⁻⁵²·1e6 ≈ 4.4e-10), diag(1, 2⁻⁵¹) sits exactly on
// the threshold (2·2⁻⁵²·1) and is singular; a block whose first entry is
// zero but that is a permutation ([[0, 1], [1, 0]]) factors, and its
// solve is exact.
func TestDenseLUThresholdB(t *testing.T) {
	piv := make([]int, 2)
	if denseLU([]float64{1e6, 0, 0, 1e-12}, piv, 2) {
		t.Error("diag(1e6, 1e-12) factored; its pivot ratio 1e-18 is below 2·2⁻⁵²")
	}
	if denseLU([]float64{1, 0, 0, 0x1p-51}, piv, 2) {
		t.Error("diag(1, 2⁻⁵¹) factored; its second pivot equals the threshold 2·2⁻⁵²·1")
	}
	if !denseLU([]float64{1, 0, 0, 0x1p-48}, piv, 2) {
		t.Error("diag(1, 2⁻⁴⁸) reported singular; its pivot is 8 times the threshold")
	}
	a := []float64{0, 1, 1, 0}
	if !denseLU(a, piv, 2) {
		t.Fatal("the permutation [[0, 1], [1, 0]] reported singular")
	}
	b := []float64{3, 7}
	denseLUSolve(a, piv, 2, b)
	if b[0] != 7 || b[1] != 3 {
		t.Errorf("permutation solve = %v, want [7 3]", b)
	}
}

// bandMatrixB returns a random n×n matrix with bandwidths kl, ku (dense
// row-major copy and the spMatrix), its diagonal scaled by diag (small:
// row interchanges needed).
func bandMatrixB(rng *rand.Rand, n, kl, ku int, diag float64) ([]float64, *spMatrix) {
	dense := make([]float64, n*n)
	A := testMatrix(n, func(i int, row []float64) {
		for j := max(0, i-kl); j <= min(n-1, i+ku); j++ {
			v := rng.Float64()*2 - 1
			if j == i {
				v = (2 + v) * diag
			}
			row[j] = v
			dense[i*n+j] = v
		}
	})
	return dense, A
}

// TestBandLUWideAndReusedB: the banded LU against gonum's dense LU on
// matrices that exercise its streamed zeroing: more than one clearing
// chunk of columns (n = 150 > 64), an upper bandwidth wider than a chunk
// (ku = 70, so a row reaches past the next chunk), and the same factor
// object set up again for a different, narrower matrix (the storage then
// holds the old factors, which must not leak into the new ones). The
// tolerance 1e-9 relative is round-off of partial pivoting on these
// well-scaled random matrices (growth is small; measured errors are below
// 1e-12).
func TestBandLUWideAndReusedB(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	b := newBandLU(150)
	for _, c := range []struct {
		kl, ku int
		diag   float64
	}{{3, 70, 1}, {2, 3, 0.01}, {1, 1, 1}, {4, 2, 0.01}} {
		n := 150
		dense, A := bandMatrixB(rng, n, c.kl, c.ku, c.diag)
		if err := b.setup(A); err != nil {
			t.Fatalf("kl %d ku %d: %v", c.kl, c.ku, err)
		}
		rhs := make([]float64, n)
		for i := range rhs {
			rhs[i] = rng.NormFloat64()
		}
		want := denseSolveB(t, dense, n, rhs)
		x := append([]float64(nil), rhs...)
		b.solve(x)
		for i := range x {
			if !numtest.Within(x[i], want[i], 1e-9*(1+math.Abs(want[i]))) {
				t.Fatalf("kl %d ku %d: x[%d] = %v banded, %v dense", c.kl, c.ku, i, x[i], want[i])
			}
		}
	}
}

// TestBandLUSingularThresholdB: the banded LU reports a pivot at most
// 2⁻⁵² times the matrix's largest entry as singular, naming its column:
// diag(1, 2⁻⁵²) sits on the threshold, diag(1e6, 1e-12) is far below it
// (ratio 1e-18); diag(1, 2⁻⁴⁸) is well above it and factors.
func TestBandLUSingularThresholdB(t *testing.T) {
	for _, c := range []struct {
		d0, d1   float64
		singular bool
	}{{1, 0x1p-52, true}, {1e6, 1e-12, true}, {1, 0x1p-48, false}} {
		A := testMatrix(2, func(i int, row []float64) { row[i] = []float64{c.d0, c.d1}[i] })
		err := newBandLU(2).setup(A)
		var sb *singularBlockError
		if !c.singular {
			if err != nil {
				t.Errorf("diag(%g, %g): %v", c.d0, c.d1, err)
			}
			continue
		}
		if !errors.As(err, &sb) || sb.First != 1 || !strings.Contains(err.Error(), "column 1") {
			t.Errorf("diag(%g, %g): err %v, want a zero pivot in column 1", c.d0, c.d1, err)
		}
	}
}

// TestILU0MatchesAOnItsPatternB: the defining property of ILU(0) (Saad,
// Iterative Methods for Sparse Linear Systems, 2nd ed., §10.3.2): the
// product L·U of its factors equals A at every position of A's pattern
// (the fill-in outside it is dropped). The matrix is the 5-point
// Laplacian-like stencil of a 5×5 grid with random couplings, whose LU
// has fill, so entries outside the pattern are met during the
// elimination. Tolerance 1e-12 relative to the row's scale: one
// elimination's round-off.
func TestILU0MatchesAOnItsPatternB(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const g = 5
	n := g * g
	dense := make([]float64, n*n)
	A := testMatrix(n, func(i int, row []float64) {
		x, y := i%g, i/g
		for _, j := range []int{i - g, i - 1, i + 1, i + g} {
			if j < 0 || j >= n || (j == i-1 && x == 0) || (j == i+1 && x == g-1) {
				continue
			}
			row[j] = -0.5 - rng.Float64()
		}
		_ = y
		row[i] = 5 + rng.Float64()
		copy(dense[i*n:(i+1)*n], row)
	})
	f := newILU0(n)
	if err := f.setup(A); err != nil {
		t.Fatal(err)
	}
	// L (unit lower) and U from the factor values; U's diagonal is stored
	// inverted.
	L, U := make([]float64, n*n), make([]float64, n*n)
	for i := 0; i < n; i++ {
		L[i*n+i] = 1
		for q := A.start[i]; q < A.end[i]; q++ {
			j := int(A.col[q])
			switch {
			case j < i:
				L[i*n+j] = f.val[q]
			case j == i:
				U[i*n+i] = 1 / f.val[q]
			default:
				U[i*n+j] = f.val[q]
			}
		}
	}
	for i := 0; i < n; i++ {
		for q := A.start[i]; q < A.end[i]; q++ {
			j := int(A.col[q])
			s := 0.0
			for k := 0; k < n; k++ {
				s += L[i*n+k] * U[k*n+j]
			}
			if !numtest.Within(s, dense[i*n+j], 1e-12*8) {
				t.Fatalf("(L·U)[%d][%d] = %v, A = %v", i, j, s, dense[i*n+j])
			}
		}
	}
}

// TestILU0SingularThresholdB: ILU(0) reports a pivot at most 2⁻⁵² times
// the matrix's largest entry as a zero pivot, naming its row: diag(1,
// 2⁻⁵²) on the threshold, diag(8, 2⁻⁵⁰) below it (2⁻⁵²·8 = 2⁻⁴⁹);
// diag(1, 2⁻⁴⁸) factors.
func TestILU0SingularThresholdB(t *testing.T) {
	for _, c := range []struct {
		d0, d1   float64
		singular bool
	}{{1, 0x1p-52, true}, {8, 0x1p-50, true}, {1, 0x1p-48, false}} {
		A := testMatrix(2, func(i int, row []float64) { row[i] = []float64{c.d0, c.d1}[i] })
		err := newILU0(2).setup(A)
		if !c.singular {
			if err != nil {
				t.Errorf("diag(%g, %g): %v", c.d0, c.d1, err)
			}
			continue
		}
		var sb *singularBlockError
		if !errors.As(err, &sb) || sb.First != 1 || !strings.Contains(err.Error(), "row 1") {
			t.Errorf("diag(%g, %g): err %v, want a zero pivot in row 1", c.d0, c.d1, err)
		}
	}
}

// TestBlockJacobiPartitionsB: block-Jacobi is P = blockdiag(A[B_b, B_b])
// over the partition, whatever order its unknowns come in: for A = D + E,
// D block-diagonal over the partition and E coupling different blocks
// only, P⁻¹·(D·x) = x. A partition read wrongly (a non-contiguous one
// taken for ranges, an entry of another block counted in) breaks that
// identity. Tolerance 1e-12: the blocks are diagonally dominant, the
// inverse exact to round-off.
func TestBlockJacobiPartitionsB(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, blockOf := range [][]int{
		{0, 0, 1, 1, 2, 2},
		{0, 1, 0, 1, 2, 2},
		{1, 1, 0, 0},
		{1, 0, 0, 1},
		{2, 1, 0},
		{0, 0, 1, 1, 0},
		{0, 1, 1, 2, 2, 1},
	} {
		n := len(blockOf)
		D, E := make([]float64, n*n), make([]float64, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				v := rng.Float64() - 0.5
				switch {
				case i == j:
					D[i*n+j] = 4 + v
				case blockOf[i] == blockOf[j]:
					D[i*n+j] = v
				default:
					E[i*n+j] = v
				}
			}
		}
		A := testMatrix(n, func(i int, row []float64) {
			for j := range row {
				row[j] = D[i*n+j] + E[i*n+j]
			}
		})
		p := newBlockJacobi(blockOf)
		if err := p.setup(A); err != nil {
			t.Fatalf("%v: %v", blockOf, err)
		}
		x := make([]float64, n)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		r := make([]float64, n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				r[i] += D[i*n+j] * x[j]
			}
		}
		z := make([]float64, n)
		p.apply(r, z)
		for i := range z {
			if !numtest.Within(z[i], x[i], 1e-12*(1+math.Abs(x[i]))) {
				t.Fatalf("partition %v: P⁻¹·D·x [%d] = %v, want %v", blockOf, i, z[i], x[i])
			}
		}
	}
}

// TestBlockJacobiSingularBlockNamedB: a singular block is reported with
// its number and its first and last unknowns (the error a user reads),
// for contiguous and interleaved partitions.
func TestBlockJacobiSingularBlockNamedB(t *testing.T) {
	for _, c := range []struct {
		blockOf []int
		zero    []int // unknowns whose rows and columns are zeroed (the singular block)
		want    string
	}{
		{[]int{0, 0, 1, 1, 2, 2}, []int{2, 3}, "block 1 (unknowns 2..3)"},
		{[]int{2, 1, 0}, []int{2}, "block 0 (unknowns 2..2)"},
		{[]int{0, 1, 0, 1}, []int{1, 3}, "block 1 (unknowns 1..3)"},
		{[]int{1, 1, 0, 0}, []int{0, 1}, "block 1 (unknowns 0..1)"},
	} {
		n := len(c.blockOf)
		A := testMatrix(n, func(i int, row []float64) {
			row[i] = 2
			for _, z := range c.zero {
				if z == i {
					row[i] = 0
				}
			}
		})
		err := newBlockJacobi(c.blockOf).setup(A)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("partition %v: err %v, want %q", c.blockOf, err, c.want)
		}
	}
}

// TestGMRESErrorReportsRelativeResidualB: a failed GMRES solve reports
// Rel = Residual/‖b‖₂ (the krylovError contract, printed as "relative
// residual"), for each way it can fail. ‖b‖ = 3 so that the relative and
// absolute residuals differ.
//   - breakdown: A = 0, nothing is reduced, Residual = ‖b‖, Rel = 1;
//   - stagnated: GMRES(1) on the rotation [[0, 1], [−1, 0]] makes no
//     progress (A·b ⟂ b), Residual = ‖b‖, Rel = 1;
//   - iteration limit: one iteration on a random system, Rel < 1.
func TestGMRESErrorReportsRelativeResidualB(t *testing.T) {
	b := []float64{3, 0}
	zero := func(v, dst []float64) error { clear(dst); return nil }
	_, _, err := newGMRES(2, 2).solve(zero, nil, nil, b, make([]float64, 2), -1, 1e-8, 100, false)
	checkKrylovB(t, err, "breakdown", 3)

	rot := func(v, dst []float64) error { dst[0], dst[1] = v[1], -v[0]; return nil }
	_, _, err = newGMRES(2, 1).solve(rot, nil, nil, b, make([]float64, 2), -1, 1e-8, 100, false)
	checkKrylovB(t, err, "stagnated", 3)

	rng := rand.New(rand.NewPCG(9, 10))
	n := 10
	A := testMatrix(n, func(i int, row []float64) {
		for j := range row {
			row[j] = rng.Float64() - 0.5
		}
		row[i] += 2
	})
	rhs := make([]float64, n)
	for i := range rhs {
		rhs[i] = 3 * rng.NormFloat64()
	}
	_, _, err = newGMRES(n, 5).solve(func(v, dst []float64) error { A.MulVec(v, dst); return nil }, nil, nil, rhs, make([]float64, n), -1, 1e-12, 1, false)
	checkKrylovB(t, err, "iteration limit", norm2(rhs))
}

func checkKrylovB(t *testing.T, err error, reason string, bnorm float64) {
	t.Helper()
	var ke *krylovError
	if !errors.As(err, &ke) || ke.Reason != reason {
		t.Fatalf("err %v, want a krylovError %q", err, reason)
	}
	if !numtest.Within(ke.Rel, ke.Residual/bnorm, 1e-15*ke.Rel) || !(ke.Rel <= 1) {
		t.Errorf("%s: Rel %v, Residual %v, ‖b‖ %v: want Rel = Residual/‖b‖ ≤ 1", reason, ke.Rel, ke.Residual, bnorm)
	}
}

// TestGMRESOwnBufferB: a solve given no x (nil) writes its solution into
// the solver's own buffer, which solution returns, also when it converges
// in one iteration without the lazy form: A = 2I, x = b/2 (to 1e-15
// relative: the one-iteration solution is formed as y₀·b/‖b‖).
func TestGMRESOwnBufferB(t *testing.T) {
	g := newGMRES(3, 5)
	b := []float64{2, -4, 6}
	op := func(v, dst []float64) error {
		for i := range v {
			dst[i] = 2 * v[i]
		}
		return nil
	}
	if _, _, err := g.solve(op, nil, nil, b, nil, -1, 1e-10, 10, false); err != nil {
		t.Fatal(err)
	}
	a, x := g.solution()
	if len(x) != 3 {
		t.Fatalf("solution has %d values, want 3", len(x))
	}
	for i, want := range []float64{1, -2, 3} {
		if !numtest.Within(a*x[i], want, 1e-15*math.Abs(want)) {
			t.Errorf("x[%d] = %v, want %v", i, a*x[i], want)
		}
	}
}

// TestDivergenceRuleB: divergence.check follows its documented rule: the
// Newton iteration has diverged when the residual norm grew at three
// consecutive iterations (strictly: an equal norm is not growth), or
// exceeds 1e8 times its first value (strictly, and only for a positive
// first value).
func TestDivergenceRuleB(t *testing.T) {
	for _, c := range []struct {
		norms []float64
		at    int    // index of the norm at which it diverges, -1 never
		want  string // in the description
	}{
		{[]float64{1, 2, 3, 4}, 3, "3 consecutive"},
		{[]float64{1, 2, 3, 2.5, 2.6}, -1, ""},
		{[]float64{1, 1, 1, 1, 1}, -1, ""},
		{[]float64{1, 1e9}, 1, "grew from 1 to 1e+09"},
		{[]float64{1, 1e8}, -1, ""},
		{[]float64{0, 1}, -1, ""},
		{[]float64{2, math.NaN()}, 1, "not finite"},
	} {
		var d divergence
		d.reset()
		for k, r := range c.norms {
			got := d.check(r)
			if k == c.at {
				if !strings.Contains(got, c.want) {
					t.Errorf("%v: at %d got %q, want %q", c.norms, k, got, c.want)
				}
				break
			}
			if got != "" {
				t.Errorf("%v: diverged at %d (%q), want %d", c.norms, k, got, c.at)
				break
			}
		}
	}
}

// TestForcingTermsB: the forcing terms of LinearOptions.Forcing's doc:
// ForcingConstant is KrylovTol at every iteration; Eisenstat–Walker
// choice 1 starts every Newton solve at η₀ = 0.5 (also when the previous
// step left its norms behind), is |‖R_k‖ − ‖R_{k−1} + A·s_{k−1}‖|/‖R_{k−1}‖
// after, safeguarded by η_{k−1}^φ only when that exceeds 0.1, and bounded
// to [KrylovTol, 0.9].
func TestForcingTermsB(t *testing.T) {
	c := &conf{forcing: ForcingConstant, krylovTol: 1e-6}
	l := &newtonLinear{c: c}
	if got := l.forcingTerm(5); got != 1e-6 {
		t.Errorf("constant: %v, want 1e-6", got)
	}
	ew := &conf{forcing: ForcingEisenstatWalker, krylovTol: 1e-6}
	// k = 0 with norms left from an earlier step: η₀.
	l = &newtonLinear{c: ew, k: 0, rPrev: 1, linRes: 0.2, eta: 0.5}
	if got := l.forcingTerm(0.25); got != etaZero {
		t.Errorf("first iteration: %v, want η₀ = %v", got, etaZero)
	}
	// k = 1: |0.51 − 0.5|/1 = 0.01, and 0.1^φ ≈ 0.024 ≤ 0.1: no safeguard.
	l = &newtonLinear{c: ew, k: 1, rPrev: 1, linRes: 0.5, eta: 0.1}
	if got, want := l.forcingTerm(0.51), math.Abs(0.51-0.5)/1; !numtest.Within(got, want, 1e-15) {
		t.Errorf("choice 1: %v, want %v", got, want)
	}
	// 0.5^φ ≈ 0.326 > 0.1: the safeguard raises η to it.
	l = &newtonLinear{c: ew, k: 1, rPrev: 1, linRes: 0.5, eta: 0.5}
	if got, want := l.forcingTerm(0.51), math.Pow(0.5, phi); got != want {
		t.Errorf("safeguarded: %v, want %v", got, want)
	}
}

// TestSolverNamesB: the String methods give the scene names of the valid
// values and a Go-syntax form of any other (no panic out of range).
func TestSolverNamesB(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{LinearAuto.String(), "auto"}, {LinearDense.String(), "dense"}, {LinearGMRES.String(), "gmres"}, {LinearBanded.String(), "banded"},
		{LinearSolver(4).String(), "LinearSolver(4)"}, {LinearSolver(-1).String(), "LinearSolver(-1)"},
		{PrecondBlockJacobi.String(), "block-jacobi"}, {PrecondILU0.String(), "ilu0"}, {PrecondNone.String(), "none"},
		{Preconditioner(3).String(), "Preconditioner(3)"}, {Preconditioner(-1).String(), "Preconditioner(-1)"},
	} {
		if c.got != c.want {
			t.Errorf("%q, want %q", c.got, c.want)
		}
	}
}

// TestGMRESMatrixScaleB: GMRES's answer meets its tolerance,
// ‖b − A·x‖₂ ≤ tol·‖b‖₂ (checked on the true residual, to 1e-6 relative
// round-off of the estimate), whatever the scale of the matrix: s·B for
// s = 1e-9, 1, 1e9 with B a random well-conditioned non-symmetric 12×12
// matrix. Its test for an exact (happy) breakdown compares the new
// Hessenberg entry with the rotated diagonal, both of the matrix's scale,
// so it must not fire at a small scale before the residual is small.
func TestGMRESMatrixScaleB(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	n := 12
	B := make([]float64, n*n)
	for i := range B {
		B[i] = rng.Float64() - 0.5
	}
	for i := 0; i < n; i++ {
		B[i*n+i] += 3
	}
	b := make([]float64, n)
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	const tol = 1e-10
	for _, s := range []float64{1e-9, 1, 1e9} {
		A := testMatrix(n, func(i int, row []float64) {
			for j := range row {
				row[j] = s * B[i*n+j]
			}
		})
		x := make([]float64, n)
		if _, _, err := newGMRES(n, 30).solve(func(v, dst []float64) error { A.MulVec(v, dst); return nil }, nil, nil, b, x, -1, tol, 100, false); err != nil {
			t.Fatalf("scale %g: %v", s, err)
		}
		r := make([]float64, n)
		A.MulVec(x, r)
		for i := range r {
			r[i] = b[i] - r[i]
		}
		if rn := norm2(r); rn > tol*norm2(b)*(1+1e-6) {
			t.Errorf("scale %g: ‖b − A·x‖ = %v, above tol·‖b‖ = %v", s, rn, tol*norm2(b))
		}
	}
}
