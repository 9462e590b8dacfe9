package graph

import (
	"math"
	"math/cmplx"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestKrylovResidualAndStop checks the matrix-free estimate's Ritz
// residual (SchemeStability.Residual) and its stopping rule (KrylovCycles:
// it "stops earlier when the Ritz residual of the leading Ritz value is
// below krylovTol relative") on a known operator: the diagonal matrix
// D = diag(1000, q·1000·(39/40), …, q·1000/40) of 40 values, Krylov
// dimension 8, so that no cycle spans an invariant space.
//
//   - Residual: after one cycle, the residual krylov reports must be
//     ‖D·y − θ·y‖/‖y‖ for the leading Ritz pair (θ, y), y = V·s with s the
//     eigenvector of the cycle's Hessenberg matrix for θ, computed here
//     directly from D and the basis vectors (not from the Arnoldi
//     relation the estimate uses). The direct residual rounds at about
//     ‖D‖·ε·√n ≈ 1.4e-12, 2.5e-5 of the smallest residual here (5.8e-8):
//     1e-4 relative.
//   - Stop: with q = 0.1 the first cycle's residual (5.8e-8) is below
//     krylovTol·max(|θ|, 1) = 1e-5, so a run allowed four cycles stops
//     after the first (8 applications of D) with the same estimate; with
//     q = 0.5 it is 1.8e-2, above, and the run restarts.
func TestKrylovResidualAndStop(t *testing.T) {
	const n, dim = 40, 8
	for _, q := range []float64{0.5, 0.1} {
		d := make([]float64, n)
		for i := range d {
			d[i] = 1000 * q * float64(n-i) / float64(n)
		}
		d[0] = 1000
		calls := 0
		op := func(v, out []float64) (bool, error) {
			calls++
			for i := range v {
				out[i] = d[i] * v[i]
			}
			return false, nil
		}
		k := newKrylov(n, dim)
		if _, err := k.run(op, 1); err != nil || k.failed {
			t.Fatalf("q %v: %v (failed %v)", q, err, k.failed)
		}
		h := mat.NewDense(dim, dim, nil)
		for i := range dim {
			for j := range dim {
				h.Set(i, j, k.h[i*dim+j])
			}
		}
		var e mat.Eigen
		if !e.Factorize(h, mat.EigenRight) {
			t.Fatal("the Hessenberg matrix's eigenvalues did not converge")
		}
		vals := e.Values(nil)
		var vecs mat.CDense
		e.VectorsTo(&vecs)
		lead := 0
		for i := range vals {
			if cmplx.Abs(vals[i]) > cmplx.Abs(vals[lead]) {
				lead = i
			}
		}
		if vals[lead] != k.best {
			t.Fatalf("q %v: leading Ritz value %v, krylov's %v", q, vals[lead], k.best)
		}
		y := make([]complex128, n)
		for i := range dim {
			for r := range n {
				y[r] += vecs.At(i, lead) * complex(k.v[i][r], 0)
			}
		}
		res, norm := 0.0, 0.0
		for r := range n {
			res = math.Hypot(res, cmplx.Abs(complex(d[r], 0)*y[r]-k.best*y[r]))
			norm = math.Hypot(norm, cmplx.Abs(y[r]))
		}
		if want := res / norm; !(math.Abs(k.resid-want) <= 1e-4*want) {
			t.Errorf("q %v: Ritz residual %v, want ‖D·y − θ·y‖/‖y‖ = %v", q, k.resid, want)
		}
		converged := k.resid <= krylovTol*max(cmplx.Abs(k.best), 1)
		if converged != (q == 0.1) {
			t.Fatalf("q %v: first cycle's residual %v against %v: the premise does not hold", q, k.resid, krylovTol*max(cmplx.Abs(k.best), 1))
		}
		calls = 0
		k4 := newKrylov(n, dim)
		if _, err := k4.run(op, 4); err != nil {
			t.Fatal(err)
		}
		if converged && (calls != dim || k4.best != k.best || k4.resid != k.resid) {
			t.Errorf("q %v: converged after one cycle, but four allowed took %d applications (want %d), estimate %v (resid %v), one cycle's %v (%v)", q, calls, dim, k4.best, k4.resid, k.best, k.resid)
		}
		if !converged && calls <= dim {
			t.Errorf("q %v: not converged after one cycle (residual %v), but four allowed took %d applications: no restart", q, k.resid, calls)
		}
	}
}
