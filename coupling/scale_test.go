package coupling

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Relative tolerances must be relative: the same problem in other units
// (every interface value scaled by s) takes the same iterations and the
// IQN-ILS filter drops the same columns. The scales 1e-10 and 1e10 are
// far from 1 either way and not powers of two, so the scaled iterates
// agree with the unscaled ones to rounding only, which must not change a
// decision of the filter or of the convergence test.

// scaledRun iterates u = G(u) for one step with acc and the convergence
// test Converged(u, G(u), 0, rtol), from u0, and returns the evaluations
// of G to convergence (−1 if none within max) and the accelerator's
// statistics.
func scaledRun(acc Accelerator, g func(dst, u []float64), u0 []float64, rtol float64, max int) (int, AccelStats) {
	n := len(u0)
	u, gu, next := append([]float64(nil), u0...), make([]float64, n), make([]float64, n)
	acc.Begin()
	defer acc.End()
	for k := 1; k <= max; k++ {
		g(gu, u)
		if ok, _ := Converged(u, gu, 0, rtol); ok {
			return k, acc.Stats()
		}
		acc.Next(next, u, gu)
		u, next = next, u
	}
	return -1, acc.Stats()
}

// TestIQNILSScaleInvariant: the dependent-column problem of
// TestIQNILSFilter, G(u) = s·(cos(u_1/s), 0, 0), and the random linear
// problem of TestIQNILSLinear with its offset scaled, G(u) = A·u + s·b,
// over two steps with Reuse 1 (the second step starts with the first
// one's columns, some of which the filter drops). At s = 1e-10 and 1e10
// the iterations, columns, drops and fallbacks equal those at s = 1.
func TestIQNILSScaleInvariant(t *testing.T) {
	const n = 6
	r := rand.New(rand.NewPCG(1, 2))
	lin := linearMap{a: make([][]float64, n), b: make([]float64, n)}
	for i := range lin.a {
		lin.a[i] = make([]float64, n)
		for j := range lin.a[i] {
			lin.a[i][j] = 2 * (r.Float64() - 0.5)
		}
		lin.b[i] = r.Float64()
	}
	type outcome struct {
		iters []int
		stats []AccelStats
	}
	run := func(s float64) (cosine, linear outcome) {
		acc, _ := NewAccelerator(Acceleration{Accel: IQNILS}, 3)
		g := func(dst, u []float64) { dst[0], dst[1], dst[2] = s*math.Cos(u[0]/s), 0, 0 }
		for range 2 {
			k, st := scaledRun(acc, g, []float64{0, 0, 0}, 1e-13, 50)
			cosine.iters, cosine.stats = append(cosine.iters, k), append(cosine.stats, st)
		}
		acc, _ = NewAccelerator(Acceleration{Accel: IQNILS, Reuse: 1}, n)
		sb := make([]float64, n)
		for i := range sb {
			sb[i] = s * lin.b[i]
		}
		gl := func(dst, u []float64) { linearMap{a: lin.a, b: sb}.apply(dst, u) }
		for step := range 2 {
			u0 := make([]float64, n)
			for i := range u0 {
				u0[i] = s * float64(step)
			}
			k, st := scaledRun(acc, gl, u0, 1e-10, 50)
			linear.iters, linear.stats = append(linear.iters, k), append(linear.stats, st)
		}
		return cosine, linear
	}
	c1, l1 := run(1)
	if c1.stats[0].Dropped == 0 || l1.iters[0] < 0 || l1.iters[1] < 0 || c1.iters[0] < 0 {
		t.Fatalf("unscaled runs: cosine %+v, linear %+v; want convergence and dropped columns", c1, l1)
	}
	t.Logf("s = 1: cosine %+v; linear %+v", c1, l1)
	for _, s := range []float64{1e-10, 1e10} {
		cs, ls := run(s)
		for i := range c1.iters {
			if cs.iters[i] != c1.iters[i] || cs.stats[i] != c1.stats[i] {
				t.Errorf("cosine, s = %g, step %d: %d iterations %+v, want %d %+v as at s = 1", s, i, cs.iters[i], cs.stats[i], c1.iters[i], c1.stats[i])
			}
			if ls.iters[i] != l1.iters[i] || ls.stats[i] != l1.stats[i] {
				t.Errorf("linear, s = %g, step %d: %d iterations %+v, want %d %+v as at s = 1", s, i, ls.iters[i], ls.stats[i], l1.iters[i], l1.stats[i])
			}
		}
	}
}

// TestConvergedBoundaries: the test |g_i − u_i| ≤ atol + rtol·|g_i| is
// inclusive, relative to |g| (not |u|), componentwise, and invariant
// under scaling with atol = 0. Dyadic values make every boundary exact:
// d = 2⁻²⁰ against rtol = 2⁻²⁰ at |g| = 1.
func TestConvergedBoundaries(t *testing.T) {
	const e = 0x1p-20
	cases := []struct {
		name       string
		u, g       []float64
		atol, rtol float64
		want       bool
		res        float64
	}{
		{"d = rtol·|g| (inclusive)", []float64{1 - e}, []float64{1}, 0, e, true, e},
		{"d just above rtol·|g|", []float64{1 - e - 0x1p-40}, []float64{1}, 0, e, false, e + 0x1p-40},
		{"relative to |g|, not |u|", []float64{1 + e}, []float64{1}, 0, e * (1 - e), false, e},
		{"negative g", []float64{-1 + e}, []float64{-1}, 0, e, true, e},
		{"d = atol (inclusive)", []float64{0.5}, []float64{0.5 + e}, e, 0, true, e},
		{"d just above atol", []float64{0.5}, []float64{0.5 + e}, e / 2, 0, false, e},
		{"atol + rtol·|g| (inclusive)", []float64{4 - 3*e}, []float64{4}, e, e / 2, true, 3 * e},
		{"atol + rtol·|g| exceeded", []float64{4 - 3*e}, []float64{4}, e / 2, e / 2, false, 3 * e},
		{"every component counts", []float64{1, 2}, []float64{1, 2 + 4*e}, 0, e, false, 4 * e},
		{"max norm residual", []float64{1, 2, 3}, []float64{1 + e, 2 - 2*e, 3}, 0, 1, true, 2 * e},
		{"exact", []float64{3}, []float64{3}, 0, 0, true, 0},
		{"empty", nil, nil, 0, 0, true, 0},
	}
	for _, c := range cases {
		for _, s := range []float64{1, 0x1p-40, 0x1p40} { // powers of two: exact scaling
			u, g := make([]float64, len(c.u)), make([]float64, len(c.g))
			for i := range u {
				u[i], g[i] = s*c.u[i], s*c.g[i]
			}
			ok, res := Converged(u, g, s*c.atol, c.rtol)
			if ok != c.want || res != s*c.res {
				t.Errorf("%s, scale %g: (%v, %g), want (%v, %g)", c.name, s, ok, res, c.want, s*c.res)
			}
		}
	}
	// With atol = 0 the decision is the same at scales 1e-10 and 1e10
	// (not exact scalings; the cases are 10% away from the boundary).
	for _, s := range []float64{1e-10, 1, 1e10} {
		if ok, _ := Converged([]float64{s * (1 - 0.9e-6)}, []float64{s}, 0, 1e-6); !ok {
			t.Errorf("scale %g: 0.9·rtol not converged", s)
		}
		if ok, _ := Converged([]float64{s * (1 - 1.1e-6)}, []float64{s}, 0, 1e-6); ok {
			t.Errorf("scale %g: 1.1·rtol converged", s)
		}
	}
	// Non-finite values never converge and report NaN, wherever they are.
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		for _, c := range [][2][]float64{
			{{bad, 1}, {1, 1}}, {{1, 1}, {1, bad}}, {{1, 1e9}, {bad, 1}},
		} {
			if ok, res := Converged(c[0], c[1], 1e300, 1e300); ok || !math.IsNaN(res) {
				t.Errorf("u %v g %v: (%v, %v), want (false, NaN)", c[0], c[1], ok, res)
			}
		}
	}
}
