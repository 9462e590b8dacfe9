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

// TestNeedMatrixRuleB: newtonLinear.needMatrix follows its documented
// rule. The matrix (and preconditioner) is assembled afresh when there
// is none, when the step size changed, when it is JacobianMaxAge steps
// old, when an update does not shrink the previous one by
// max(½, min(0.9, 2η)) with an old matrix or by 0.9 with this step's
// (shrinking by exactly that factor is shrinking; a previous update of 0
// says nothing), when a matrix from an earlier
// step has needed more than 5 iterations, and at every iteration when
// it may not be reused across steps and is not this step's.
func TestNeedMatrixRuleB(t *testing.T) {
	base := func() *newtonLinear {
		return &newtonLinear{c: &conf{jacMaxAge: 4}, assemble: true, valid: true, dtA: 0.1, crossStep: true, age: 1, prevDx: 1}
	}
	for _, c := range []struct {
		name string
		set  func(l *newtonLinear)
		dt   float64
		it   int
		dx   float64
		want bool
	}{
		{"reused", func(*newtonLinear) {}, 0.1, 2, 0.4, false},
		{"not assembling", func(l *newtonLinear) { l.assemble, l.valid = false, false }, 0.2, 9, 5, false},
		{"invalid", func(l *newtonLinear) { l.valid = false }, 0.1, 1, 0, true},
		{"new step size", func(*newtonLinear) {}, 0.2, 1, 0, true},
		{"age below", func(l *newtonLinear) { l.age = 3 }, 0.1, 1, 0, false},
		{"age reached", func(l *newtonLinear) { l.age = 4 }, 0.1, 1, 0, true},
		{"η 0: shrinks by ½", func(*newtonLinear) {}, 0.1, 2, 0.49, false},
		{"η 0: not by ½", func(*newtonLinear) {}, 0.1, 2, 0.51, true},
		{"η 0: by exactly ½", func(*newtonLinear) {}, 0.1, 2, 0.5, false},
		{"η 0.4: by 0.8", func(l *newtonLinear) { l.eta = 0.4 }, 0.1, 2, 0.79, false},
		{"η 0.4: not by 0.8", func(l *newtonLinear) { l.eta = 0.4 }, 0.1, 2, 0.81, true},
		{"η 0.2: not by ½", func(l *newtonLinear) { l.eta = 0.2 }, 0.1, 2, 0.6, true},
		{"fresh: by 0.9", func(l *newtonLinear) { l.fresh = true }, 0.1, 2, 0.89, false},
		{"fresh: not by 0.9", func(l *newtonLinear) { l.fresh = true }, 0.1, 2, 0.91, true},
		{"no previous update", func(l *newtonLinear) { l.prevDx = 0 }, 0.1, 2, 5, false},
		{"5 iterations", func(l *newtonLinear) { l.prevDx = 10 }, 0.1, 5, 0.1, false},
		{"6 iterations", func(l *newtonLinear) { l.prevDx = 10 }, 0.1, 6, 0.1, true},
		{"6 iterations, fresh", func(l *newtonLinear) { l.prevDx, l.fresh = 10, true }, 0.1, 6, 0.1, false},
		{"no reuse across steps", func(l *newtonLinear) { l.crossStep = false }, 0.1, 2, 0.1, true},
		{"no reuse, this step's", func(l *newtonLinear) { l.crossStep, l.fresh = false, true }, 0.1, 2, 0.1, false},
	} {
		l := base()
		c.set(l)
		if got := l.needMatrix(c.dt, c.it, c.dx); got != c.want {
			t.Errorf("%s: needMatrix = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestStageSolverReuseRuleB: the stage solver's needJacobian and
// needSetup follow their documented rules (CVODE's): J is evaluated
// when there is none, when it is JacobianMaxAge steps old, or when
// Newton failed with an old one (force) — unless c moved by 20 % or
// more since M was factored; M is set up again when there is none, when
// it is setupMaxAge steps old, when forced, or when c moved by more than
// 30 % (for GMRES only when the last solve also took more than 5
// iterations).
func TestStageSolverReuseRuleB(t *testing.T) {
	s := &stageSolver{c: &conf{jacMaxAge: 3}, haveJ: true, haveM: true, cM: 2}
	for _, c := range []struct {
		name  string
		age   int
		jCur  bool
		c     float64
		force bool
		want  bool
	}{
		{"young", 2, false, 2, false, false},
		{"old", 3, false, 2, false, true},
		{"forced, c moved 10 %", 0, false, 2.2, true, true},
		{"forced, c moved 10 % down", 0, false, 1.8, true, true},
		{"forced, c moved 50 %", 0, false, 3, true, false},
		{"forced, J current", 0, true, 2, true, false},
	} {
		s.jAge, s.jCur = c.age, c.jCur
		if got := s.needJacobian(c.c, c.force); got != c.want {
			t.Errorf("needJacobian %s: %v, want %v", c.name, got, c.want)
		}
	}
	for _, c := range []struct {
		name           string
		krylov         bool
		mAge, lastIter int
		c              float64
		force          bool
		want           bool
	}{
		{"young", false, 19, 0, 2, false, false},
		{"old", false, 20, 0, 2, false, true},
		{"forced", false, 0, 0, 2, true, true},
		{"c moved 25 %", false, 0, 0, 2.5, false, false},
		{"c moved 35 %", false, 0, 0, 2.7, false, true},
		{"c moved 35 % down", false, 0, 0, 1.3, false, true},
		{"gmres, c moved, 5 iterations", true, 0, 5, 2.7, false, false},
		{"gmres, c moved, 6 iterations", true, 0, 6, 2.7, false, true},
		{"gmres, c still, 9 iterations", true, 0, 9, 2.1, false, false},
	} {
		s.krylov, s.mAge, s.lastKrylov = c.krylov, c.mAge, c.lastIter
		if got := s.needSetup(c.c, c.force); got != c.want {
			t.Errorf("needSetup %s: %v, want %v", c.name, got, c.want)
		}
	}
}

// TestGMRESStopsAtToleranceB: GMRES stops at the first iteration whose
// residual is at most tol·‖b‖ (inclusive), and treats an Arnoldi step
// whose new direction is at most 1e-14 of the rotated diagonal as an
// exact (happy) breakdown. A = [[1, 0], [s, 1]], b = e₁: the first
// iteration leaves the residual s/hypot(1, s) (the Givens sine).
//   - s = 0.5 and tol exactly that residual: one iteration;
//   - s = 1e-14 (hypot(1, 1e-14) = 1, so the new direction is exactly
//     1e-14 of the diagonal) and tol 1e-16: one iteration, the
//     breakdown accepted.
func TestGMRESStopsAtToleranceB(t *testing.T) {
	for _, c := range []struct {
		s, tol float64
	}{{0.5, 0.5 / math.Hypot(1, 0.5)}, {1e-14, 1e-16}} {
		op := func(v, dst []float64) error { dst[0], dst[1] = v[0], c.s*v[0]+v[1]; return nil }
		its, _, err := newGMRES(2, 5).solve(op, nil, nil, []float64{1, 0}, make([]float64, 2), -1, c.tol, 10, false)
		if err != nil || its != 1 {
			t.Errorf("s = %g, tol = %g: %d iterations, err %v; want 1", c.s, c.tol, its, err)
		}
	}
}
