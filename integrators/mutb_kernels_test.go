package integrators

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
)

// The one-pass kernels of the Newton iterations (residuals, norms,
// updates) against their doc comments, and the stage solver's GMRES
// stopping rule against its own definition.

// TestResidualKernelsB: residualBE, residualTheta, stageResidual and
// sumSqMax return Σ r_i² and max|r_i| of the residual they write,
// whichever entry is largest, for r = sign·(x − y − dt·f),
// sign·(x − y − dt·θ·f − dt·(1−θ)·f0) and e − b − c·f.
func TestResidualKernelsB(t *testing.T) {
	x := []float64{1, -4, 2.5}
	y := []float64{0.5, 1, -1}
	f := []float64{2, -3, 0.25}
	f0 := []float64{-1, 0.5, 2}
	dt, th := 0.5, 0.6
	check := func(name string, r []float64, ss, rmax float64) {
		t.Helper()
		var s, m float64
		for _, v := range r {
			s += v * v
			m = math.Max(m, math.Abs(v))
		}
		if !numtest.Within(ss, s, 1e-15*s) || rmax != m {
			t.Errorf("%s: Σr² %v, max %v; want %v, %v (r = %v)", name, ss, rmax, s, m, r)
		}
	}
	r := make([]float64, 3)
	for _, sign := range []float64{1, -1} {
		ss, rmax := residualBE(r, x, y, f, dt, sign)
		for i := range r {
			if want := sign * (x[i] - y[i] - dt*f[i]); r[i] != want {
				t.Errorf("residualBE r[%d] = %v, want %v", i, r[i], want)
			}
		}
		check("residualBE", r, ss, rmax)
		ss, rmax = residualTheta(r, x, y, f, f0, dt, th, sign)
		for i := range r {
			if want := sign * (x[i] - y[i] - dt*th*f[i] - dt*(1-th)*f0[i]); !numtest.Within(r[i], want, 1e-15) {
				t.Errorf("residualTheta r[%d] = %v, want %v", i, r[i], want)
			}
		}
		check("residualTheta", r, ss, rmax)
	}
	ss, rmax := stageResidual(r, x, y, f, dt)
	for i := range r {
		if want := x[i] - y[i] - dt*f[i]; r[i] != want {
			t.Errorf("stageResidual r[%d] = %v, want %v", i, r[i], want)
		}
	}
	check("stageResidual", r, ss, rmax)
	for _, v := range [][]float64{{3, -1, 2}, {-1, 2, 3}, {1, -3, 2}} {
		ss, rmax := sumSqMax(v)
		check("sumSqMax", v, ss, rmax)
	}
}

// TestNormOfB: normOf is ‖r‖₂ from one pass's Σ r_i² and max|r_i|, also
// where Σ r_i² underflows (entries 1e-200) or overflows (1e200): there
// the scaled norm; false for a non-finite entry.
func TestNormOfB(t *testing.T) {
	for _, scale := range []float64{1, 1e-200, 1e200, 1e-140, 1e140} {
		r := []float64{3 * scale, -4 * scale}
		ss, rmax := sumSqMax(r)
		got, ok := normOf(r, ss, rmax)
		if !ok || !numtest.Within(got, 5*scale, 1e-15*5*scale) {
			t.Errorf("scale %g: ‖r‖ = %v (%v), want %v", scale, got, ok, 5*scale)
		}
	}
	r := []float64{1, math.Inf(1)}
	ss, rmax := sumSqMax(r)
	if _, ok := normOf(r, ss, rmax); ok {
		t.Error("an infinite entry reported finite")
	}
}

// TestStageUpdateB: stageUpdate adds dx to e and returns the weighted
// RMS norm of dx (wrmsNorm, 0 for no unknowns); with full it also writes
// z = p + e and returns max|dx_i| and max|z_i| (NaN when p is not
// finite); finite is false for a non-finite dx.
func TestStageUpdateB(t *testing.T) {
	dx := []float64{0.5, -2, 1}
	w := []float64{2, 0.5, 3}
	for _, p := range [][]float64{{1, 2, 3}, {-7, 1, 2}, {1, 9, -2}} {
		for _, full := range []bool{false, true} {
			e := []float64{0.25, 0.5, -0.5}
			e0 := append([]float64(nil), e...)
			z := make([]float64, 3)
			del, dmax, zmax, finite := stageUpdate(e, dx, w, p, z, full)
			if !finite || !numtest.Within(del, wrmsNorm(dx, w), 1e-15) {
				t.Errorf("full %v: del %v (%v), want %v", full, del, finite, wrmsNorm(dx, w))
			}
			for i := range e {
				if e[i] != e0[i]+dx[i] {
					t.Errorf("e[%d] = %v, want %v", i, e[i], e0[i]+dx[i])
				}
			}
			if !full {
				continue
			}
			zm := 0.0
			for i := range z {
				if z[i] != p[i]+e[i] {
					t.Errorf("z[%d] = %v, want %v", i, z[i], p[i]+e[i])
				}
				zm = math.Max(zm, math.Abs(z[i]))
			}
			if dmax != 2 || zmax != zm {
				t.Errorf("p %v: dmax %v, zmax %v; want 2, %v", p, dmax, zmax, zm)
			}
		}
	}
	_, _, zmax, _ := stageUpdate([]float64{0, 0}, []float64{1, 1}, []float64{1, 1}, []float64{math.NaN(), 1}, make([]float64, 2), true)
	if !math.IsNaN(zmax) {
		t.Errorf("zmax %v with a NaN predictor, want NaN", zmax)
	}
	if del, _, _, finite := stageUpdate(nil, nil, nil, nil, nil, true); del != 0 || !finite {
		t.Errorf("no unknowns: del %v, finite %v; want 0, true", del, finite)
	}
	if _, _, _, finite := stageUpdate([]float64{0, 0}, []float64{1, math.Inf(-1)}, []float64{1, 1}, []float64{0, 0}, make([]float64, 2), false); finite {
		t.Error("an infinite update reported finite")
	}
}

// TestStageGMRESStoppingRuleB: the stage solver's GMRES (stageSolver.gmres)
// solves M·dx = −r scaled by W = diag(w)/√n and, with Eisenstat–Walker
// forcing, stops at the first iteration whose residual meets
// ‖W·(M·dx + r)‖₂ ≤ max(KrylovTol·‖W·r‖₂, 0.05·tol) (the WRMS norm of the
// linear residual, at most 0.05 of the Newton tolerance): the residual
// of its answer meets that bound, and the same solve cut one iteration
// shorter does not. M = I − c·J for a non-normal J without
// preconditioner, so GMRES needs several iterations; ‖W·r‖ is made far
// from 1 (about 30: r of size 1e-2, w about 1e4) so that a bound scaled
// wrongly by ‖W·r‖ shows, while the bound is the 0.05·tol term.
func TestStageGMRESStoppingRuleB(t *testing.T) {
	n := 30
	rng := rand.New(rand.NewPCG(21, 22))
	J := tridiagB(n, 40, -100, 70)
	cc := 0.05
	r := make([]float64, n)
	w := make([]float64, n)
	for i := range r {
		r[i] = 1e-2 * rng.NormFloat64()
		w[i] = 1 / (1e-4*(1+float64(i)) + 1e-6)
	}
	tol := 0.1
	solve := func(maxIter int) (dx []float64, its int) {
		s := &settings{}
		s.setSolver(NewtonOptions{}, LinearOptions{Solver: LinearGMRES, Preconditioner: PrecondNone, KrylovMaxIter: maxIter})
		c := resolve(s)
		var st Work
		ss, err := newStageSolver("test", newLinRowsB(n, J, ""), &c, &st)
		if err != nil {
			t.Fatal(err)
		}
		y := rampB(n, 1)
		if err := ss.evalJacobian(0, cc, y, nil); err != nil {
			t.Fatal(err)
		}
		if err := ss.setup(0, cc, cc); err != nil {
			t.Fatal(err)
		}
		_ = ss.solve(0, cc, cc, r, w, tol)
		return append([]float64(nil), ss.dx...), st.LinearIters
	}
	// ‖W·(M·dx + r)‖₂: W = diag(w)/√n.
	res := func(dx []float64) (rn, bn float64) {
		for i := 0; i < n; i++ {
			v := r[i] + dx[i]
			for j := 0; j < n; j++ {
				v -= cc * J[i*n+j] * dx[j]
			}
			rn += (v * w[i]) * (v * w[i])
			bn += (r[i] * w[i]) * (r[i] * w[i])
		}
		return math.Sqrt(rn / float64(n)), math.Sqrt(bn / float64(n))
	}
	dx, its := solve(500)
	rn, bn := res(dx)
	bound := math.Max(1e-6*bn, 0.05*tol)
	if !(bound < 0.9*bn) || bound != 0.05*tol {
		t.Fatalf("test set-up: bound %v not below 0.9·‖W·r‖ = %v", bound, 0.9*bn)
	}
	if rn > bound*(1+1e-6) {
		t.Errorf("residual %v after %d iterations, above the bound %v", rn, its, bound)
	}
	if its < 2 {
		t.Fatalf("test set-up: GMRES took %d iterations; the check needs more", its)
	}
	short, _ := solve(its - 1)
	if rn, _ := res(short); !(rn > bound) {
		t.Errorf("%d iterations already met the bound (residual %v ≤ %v), GMRES went on to %d", its-1, rn, bound, its)
	}
}
