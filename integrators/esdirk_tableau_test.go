package integrators

import (
	"math"
	"math/cmplx"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
)

// The ESDIRK tableaux satisfy the Runge–Kutta order conditions (Butcher
// trees, Hairer, Nørsett & Wanner, Solving ODEs I, Table II.2.2) of
// their declared orders for b and b̂, their row sums are c, and the
// stability function R(z) = 1 + z·bᵀ(I − zA)⁻¹·1 is A-stable on the
// imaginary axis and vanishes at infinity (L-stability). Tolerance
// 1e-15: the coefficients are rationals rounded once to float64, so the
// conditions hold to a few ulp.
func TestESDIRKOrderConditions(t *testing.T) {
	for _, tab := range []*esdirkTableau{esdirk43, esdirk32} {
		s := tab.s
		var bhat [6]float64
		for i := 0; i < s; i++ {
			bhat[i] = tab.b[i] - tab.d[i]
		}
		dot := func(u, v [6]float64) float64 {
			r := 0.0
			for i := 0; i < s; i++ {
				r += u[i] * v[i]
			}
			return r
		}
		mul := func(v [6]float64) (r [6]float64) { // A·v
			for i := 0; i < s; i++ {
				for j := 0; j < s; j++ {
					r[i] += tab.a[i][j] * v[j]
				}
			}
			return r
		}
		pw := func(v [6]float64, k int) (r [6]float64) {
			for i := 0; i < s; i++ {
				r[i] = math.Pow(v[i], float64(k))
			}
			return r
		}
		had := func(u, v [6]float64) (r [6]float64) {
			for i := 0; i < s; i++ {
				r[i] = u[i] * v[i]
			}
			return r
		}
		var one [6]float64
		for i := 0; i < s; i++ {
			one[i] = 1
		}
		c := tab.c
		rows := mul(one)
		for i := 0; i < s; i++ {
			if !numtest.Within(rows[i], c[i], 1e-15) {
				t.Errorf("%s: row sum %d = %v, c = %v", tab.name, i, rows[i], c[i])
			}
			if i > 0 && tab.a[i][i] != tab.gamma {
				t.Errorf("%s: a[%d][%d] = %v, want γ = %v", tab.name, i, i, tab.a[i][i], tab.gamma)
			}
		}
		if tab.b != tab.a[s-1] {
			t.Errorf("%s: not stiffly accurate", tab.name)
		}
		conds := []struct {
			order int
			f     func(b [6]float64) float64
			want  float64
		}{
			{1, func(b [6]float64) float64 { return dot(b, one) }, 1},
			{2, func(b [6]float64) float64 { return dot(b, c) }, 1.0 / 2},
			{3, func(b [6]float64) float64 { return dot(b, pw(c, 2)) }, 1.0 / 3},
			{3, func(b [6]float64) float64 { return dot(b, mul(c)) }, 1.0 / 6},
			{4, func(b [6]float64) float64 { return dot(b, pw(c, 3)) }, 1.0 / 4},
			{4, func(b [6]float64) float64 { return dot(b, had(c, mul(c))) }, 1.0 / 8},
			{4, func(b [6]float64) float64 { return dot(b, mul(pw(c, 2))) }, 1.0 / 12},
			{4, func(b [6]float64) float64 { return dot(b, mul(mul(c))) }, 1.0 / 24},
		}
		for k, cd := range conds {
			for _, v := range []struct {
				name  string
				b     [6]float64
				order int
			}{{"b", tab.b, tab.order}, {"b̂", bhat, tab.embOrder}} {
				got := cd.f(v.b)
				switch {
				case cd.order <= v.order && !numtest.Within(got, cd.want, 1e-15):
					t.Errorf("%s %s: order-%d condition %d: %.17g, want %.17g", tab.name, v.name, cd.order, k, got, cd.want)
				case cd.order == v.order+1 && v.name == "b" && math.Abs(got-cd.want) < 1e-12:
					// Not a failure, but the declared order would be too low.
					t.Logf("%s %s satisfies order-%d condition %d too", tab.name, v.name, cd.order, k)
				}
			}
		}
		// The embedded method is of order embOrder exactly: some
		// condition of the next order fails, or the error estimate
		// would vanish to that order.
		miss := 0.0
		for _, cd := range conds {
			if cd.order == tab.embOrder+1 {
				miss = math.Max(miss, math.Abs(cd.f(bhat)-cd.want))
			}
		}
		if miss < 1e-6 {
			t.Errorf("%s: b̂ satisfies every order-%d condition (largest miss %v)", tab.name, tab.embOrder+1, miss)
		}
		// Stability function R(z) = det(I − zA + z·1·bᵀ)/det(I − zA);
		// here by solving (I − zA)·k = z·1 by forward substitution.
		R := func(z complex128) complex128 {
			var k [6]complex128
			for i := 0; i < s; i++ {
				sum := complex(1, 0)
				for j := 0; j < i; j++ {
					sum += complex(tab.a[i][j], 0) * k[j]
				}
				k[i] = z * sum / (1 - z*complex(tab.a[i][i], 0))
			}
			r := complex(1, 0)
			for i := 0; i < s; i++ {
				r += complex(tab.b[i], 0) * k[i]
			}
			return r
		}
		if r := cmplx.Abs(R(-1e12)); r > 1e-10 {
			t.Errorf("%s: |R(-1e12)| = %v, want 0 (L-stable)", tab.name, r)
		}
		for _, y := range []float64{1e-3, 0.1, 0.5, 1, 2, 5, 10, 100, 1e4} {
			if r := cmplx.Abs(R(complex(0, y))); r > 1+1e-14 {
				t.Errorf("%s: |R(%vi)| = %v > 1 (not A-stable)", tab.name, y, r)
			}
		}
		for _, z := range []complex128{-0.1, -1, -10, -100, complex(-1, 5), complex(-10, 30), complex(-0.01, 3)} {
			if r := cmplx.Abs(R(z)); r > 1 {
				t.Errorf("%s: |R(%v)| = %v > 1", tab.name, z, r)
			}
		}
	}
}
