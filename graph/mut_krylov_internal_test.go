package graph

import (
	"math"
	"math/cmplx"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestKrylovResidualAndStop checks the matrix-free estimate's Ritz
// residual (SchemeStability.Residual: "0 when the Krylov space became
// invariant: the estimate is then exact up to rounding") and its
// stopping rule (KrylovCycles: it "stops earlier when the Ritz residual
// of the leading Ritz value is below krylovTol relative") on known
// diagonal operators D of 40 values, Krylov dimension 8:
//
//   - "q = 0.5" and "q = 0.1": D = diag(1000, q·1000·(39/40), …,
//     q·1000/40); no cycle spans an invariant space.
//   - "clusters": three clusters around 0.01, 0.005 and 0.002, each 1e-10
//     wide relative (d_i = c_(i mod 3)·(1 + 1e-10·i/40)). After three
//     vectors the Krylov space is invariant to about 1e-12 (measured
//     β = 9.5e-13), 1e-10 of the Hessenberg entries: far above rounding
//     (1e-16 of them), so the space is not invariant and the cycle goes
//     on; the estimate is not exact to rounding, and its residual is not
//     0.
//
// Residual: after one cycle, the residual krylov reports must be
// ‖D·y − θ·y‖/‖y‖ for the leading Ritz pair (θ, y), y = V·s with s the
// eigenvector of the cycle's Hessenberg matrix for θ, computed here
// directly from D and the basis vectors (not from the Arnoldi relation
// the estimate uses). The direct residual rounds at about ‖D‖·ε·√n
// (1.4e-12 for ‖D‖ = 1000, 2.5e-5 of the smallest residual there,
// 5.8e-8): 1e-4 relative, plus 1e-15·‖D‖ absolute.
//
// Stop: where the first cycle's residual is below krylovTol·max(|θ|, 1)
// (q = 0.1: 5.8e-8 against 1e-5; clusters: 3.4e-11 against 1e-8), a run
// allowed four cycles stops after the first (8 applications of D) with
// the same estimate; where it is above (q = 0.5: 1.8e-2), the run
// restarts.
func TestKrylovResidualAndStop(t *testing.T) {
	const n, dim = 40, 8
	for _, c := range []struct {
		name      string
		d         func(i int) float64
		converged bool // after the first cycle
	}{
		{"q = 0.5", func(i int) float64 { return 500 * float64(n-i) / n }, false},
		{"q = 0.1", func(i int) float64 { return 100 * float64(n-i) / n }, true},
		{"clusters", func(i int) float64 { return []float64{0.01, 0.005, 0.002}[i%3] * (1 + 1e-10*float64(i)/n) }, true},
	} {
		d := make([]float64, n)
		dmax := 0.0
		for i := range d {
			d[i] = c.d(i)
			dmax = max(dmax, d[i])
		}
		if c.name != "clusters" {
			d[0], dmax = 1000, 1000
		}
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
			t.Fatalf("%s: %v (failed %v)", c.name, err, k.failed)
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
			t.Fatalf("%s: leading Ritz value %v, krylov's %v", c.name, vals[lead], k.best)
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
		if want := res / norm; !(math.Abs(k.resid-want) <= 1e-4*want+1e-15*dmax) {
			t.Errorf("%s: Ritz residual %v, want ‖D·y − θ·y‖/‖y‖ = %v", c.name, k.resid, want)
		}
		converged := k.resid <= krylovTol*max(cmplx.Abs(k.best), 1)
		if converged != c.converged {
			t.Fatalf("%s: first cycle's residual %v against %v: the premise does not hold", c.name, k.resid, krylovTol*max(cmplx.Abs(k.best), 1))
		}
		calls = 0
		k4 := newKrylov(n, dim)
		if _, err := k4.run(op, 4); err != nil {
			t.Fatal(err)
		}
		if converged && (calls != dim || k4.best != k.best || k4.resid != k.resid) {
			t.Errorf("%s: converged after one cycle, but four allowed took %d applications (want %d), estimate %v (resid %v), one cycle's %v (%v)", c.name, calls, dim, k4.best, k4.resid, k.best, k.resid)
		}
		if !converged && calls <= dim {
			t.Errorf("%s: not converged after one cycle (residual %v), but four allowed took %d applications: no restart", c.name, k.resid, calls)
		}
	}
}
