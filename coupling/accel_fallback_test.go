package coupling

import (
	"math"
	"testing"
)

// TestIQNILSFallbackNonFiniteStep reaches the other fallback of IQN-ILS:
// a column survives the QR filter and the least-squares problem is solved,
// but the quasi-Newton step g + W·α is not finite. All inputs are finite;
// the secant difference w = g1 − g0 = 1e308 − (−1e308) overflows, so
// W·α = ±Inf. The iterate must then be the relaxation step
// u + ω·(g − u), finite, and the iteration counted as one fallback, with
// the column kept (not dropped by the filter: this is not the
// no-columns path of TestIQNILSFallback).
func TestIQNILSFallbackNonFiniteStep(t *testing.T) {
	const omega = 0.5
	acc, err := NewAccelerator(Acceleration{Accel: IQNILS, Omega: omega}, 1)
	if err != nil {
		t.Fatal(err)
	}
	acc.Begin()
	dst := make([]float64, 1)
	u0, g0 := []float64{-1e308 - 1e300}, []float64{-1e308} // r0 ≈ 1e300
	acc.Next(dst, u0, g0)                                  // no columns yet: relaxation, not a fallback
	if st := acc.Stats(); st.Fallbacks != 0 || st.Columns != 0 {
		t.Fatalf("first iteration: stats %+v, want no fallback and no column", st)
	}
	u1, g1 := []float64{1e308 - 2e300}, []float64{1e308} // r1 ≈ 2e300: v = r1 − r0 ≈ 1e300, α ≈ −2
	if w := g1[0] - g0[0]; !math.IsInf(w, 1) {
		t.Fatalf("secant difference %v, the test needs it to overflow", w)
	}
	acc.Next(dst, u1, g1)
	st := acc.Stats()
	if st.Fallbacks != 1 || st.Columns != 1 || st.Dropped != 0 {
		t.Errorf("stats %+v, want 1 fallback with the column kept (1 column, 0 dropped)", st)
	}
	want := u1[0] + omega*(g1[0]-u1[0])
	if math.IsNaN(dst[0]) || math.IsInf(dst[0], 0) || dst[0] != want {
		t.Errorf("fallback iterate %v, want the finite relaxation step %v", dst[0], want)
	}
}
