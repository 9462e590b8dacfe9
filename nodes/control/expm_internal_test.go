package control

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/cosimgo/cosim/internal/numtest"
)

// expm is held to gonum's mat.Exp (Higham's scaling and squaring with
// Padé 13, an independent implementation) on random matrices of sizes 1
// to 10 and infinity norms from 1e-4 to 1e3, seeded (PCG 1, 2). The
// tolerance, 1e-12 of the result's largest entry, allows both methods'
// truncation (below 1e-15) and the rounding of up to 13 squarings (each
// squaring can double the relative error of the previous one, so about
// 2^13·ε ≈ 2e-12 in the worst case for the largest norms: measured
// errors are far smaller).
func TestExpmAgainstGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, k := range []int{1, 2, 3, 4, 6, 10} {
		for _, scale := range []float64{1e-4, 0.1, 1, 10, 1e3} {
			m := make([]float64, k*k)
			for i := range m {
				m[i] = rng.NormFloat64()
			}
			norm := 0.0
			for i := range k {
				r := 0.0
				for j := range k {
					r += math.Abs(m[i*k+j])
				}
				norm = math.Max(norm, r)
			}
			for i := range m {
				m[i] *= scale / norm
			}
			// Keep the exponential bounded for the large norms: shift the
			// spectrum left so that e^M does not overflow the comparison.
			if scale > 10 {
				for i := range k {
					m[i*k+i] -= scale
				}
			}
			got := expm(m, k)
			var want mat.Dense
			want.Exp(mat.NewDense(k, k, append([]float64(nil), m...)))
			big, diff := numtest.FiniteScale(t, "gonum's exponential", want.RawMatrix().Data), 0.0
			for i := range k {
				for j := range k {
					diff = math.Max(diff, math.Abs(got[i*k+j]-want.At(i, j))) // NaN if got is: AtMost fails
				}
			}
			if !numtest.AtMost(diff, 1e-12*big) {
				t.Errorf("k=%d norm %g: max |expm − gonum| = %g of %g", k, scale, diff, big)
			}
		}
	}
}

// The exponential of zero is the identity, bit for bit, and expm does not
// modify its argument.
func TestExpmZeroAndInput(t *testing.T) {
	m := make([]float64, 9)
	got := expm(m, 3)
	for i := range 3 {
		for j := range 3 {
			want := 0.0
			if i == j {
				want = 1
			}
			if got[i*3+j] != want {
				t.Fatalf("e^0 [%d,%d] = %v", i, j, got[i*3+j])
			}
		}
	}
	in := []float64{1, 2, 3, 4}
	expm(in, 2)
	if in[0] != 1 || in[1] != 2 || in[2] != 3 || in[3] != 4 {
		t.Errorf("expm modified its argument: %v", in)
	}
}

// The zero-order-hold map of the scalar system ẋ = a x + b u is
// Φ = e^{aΔt}, Γ = b (e^{aΔt} − 1)/a (b Δt for a = 0): closed forms,
// computed with math.Exp and math.Expm1, relative 1e-14.
func TestZOHDiscretizeScalar(t *testing.T) {
	for _, c := range []struct{ a, b, dt float64 }{
		{-2, 3, 0.01}, {-2, 3, 1}, {5, -1, 0.1}, {0, 2, 0.5}, {-1e3, 1, 1e-3}, {-1e-6, 1, 1e-2},
	} {
		phi, gam := zohDiscretize([]float64{c.a}, []float64{c.b}, 1, 1, c.dt)
		wantPhi := math.Exp(c.a * c.dt)
		wantGam := c.b * c.dt
		if c.a != 0 {
			wantGam = c.b * math.Expm1(c.a*c.dt) / c.a
		}
		if !numtest.Within(phi[0], wantPhi, 1e-14*math.Abs(wantPhi)) || !numtest.Within(gam[0], wantGam, 1e-14*math.Abs(wantGam)) {
			t.Errorf("a=%g b=%g dt=%g: Φ=%v Γ=%v, want %v %v", c.a, c.b, c.dt, phi[0], gam[0], wantPhi, wantGam)
		}
	}
}

// convolve and phi1 against direct formulas where those are accurate
// (arguments away from cancellation), and their limits.
func TestConvolve(t *testing.T) {
	for _, c := range []struct{ a, b, t float64 }{{1, 2, 0.5}, {3, 0.5, 2}, {0, 4, 1}, {2, 0, 1}, {7, 7, 0.3}, {0, 0, 2}} {
		var want float64
		switch {
		case c.a == c.b:
			want = c.t * math.Exp(-c.a*c.t)
		default:
			want = (math.Exp(-c.b*c.t) - math.Exp(-c.a*c.t)) / (c.a - c.b)
		}
		if got := convolve(c.a, c.b, c.t); !numtest.Within(got, want, 1e-15*math.Max(1, math.Abs(want))) {
			t.Errorf("convolve(%g, %g, %g) = %v, want %v", c.a, c.b, c.t, got, want)
		}
	}
	if phi1(0) != 1 || !numtest.Within(phi1(-1e-20), 1, 1e-16) {
		t.Errorf("φ₁ near 0: %v %v", phi1(0), phi1(-1e-20))
	}
	// No overflow for rates far apart: e^{300}·e^{−300} written without
	// either exponential.
	if got := convolve(1000, 0, 1); !numtest.Within(got, 1e-3, 1e-18) {
		t.Errorf("convolve(1000, 0, 1) = %v, want 1e-3", got)
	}
}

// The scaling reads the norm of every row: a matrix whose first row is
// zero and whose other rows are large (infinity norm 12) needs j = 5
// squarings; a norm taken from the first row alone would leave the Padé
// approximant at norm 12, far outside its accuracy. Reference: gonum's
// mat.Dense.Exp; tolerance 1e-12 relative, as TestExpmAgainstGonum.
func TestExpmNormFromEveryRow(t *testing.T) {
	const k = 3
	m := []float64{0, 0, 0, 4, -5, 3, -2, 6, -4}
	got := expm(m, k)
	var want mat.Dense
	want.Exp(mat.NewDense(k, k, append([]float64(nil), m...)))
	big, diff := 0.0, 0.0
	for i := range k {
		for j := range k {
			big = math.Max(big, math.Abs(want.At(i, j)))
			diff = math.Max(diff, math.Abs(got[i*k+j]-want.At(i, j)))
		}
	}
	if diff > 1e-12*big {
		t.Errorf("max |expm − gonum| = %g of %g", diff, big)
	}
}
