package integrators

import (
	"math"
	"testing"
)

// TestLeftLengthC: leftLength(ts, τ) is the length of the sub-step that
// ends at the left limit of a time event: ts + h, as the stepper computes
// it, is below τ and within a few ulps of it (the stages of that
// sub-step then see the left limit of the jump). For most pairs h is
// nextafter(τ, −∞) − ts, but for some that sum rounds up to τ and h must
// shrink by an ulp: the first three pairs below were found by a search
// over (ts, τ) on a 0.01/0.001 grid for exactly that (0.08 + 0.154 = τ
// in floating point).
func TestLeftLengthC(t *testing.T) {
	for _, p := range [][2]float64{{0.08, 0.234}, {0.16, 0.487}, {0.03, 0.382}, {1, 1.5}, {0, 0.25}, {0.5, math.Nextafter(0.5, 1)}} {
		ts, tau := p[0], p[1]
		h := leftLength(ts, tau)
		if !(ts+h < tau) {
			t.Errorf("leftLength(%v, %v) = %v: ts + h = %v is not below τ", ts, tau, h, ts+h)
		}
		// Rounding of nextafter(τ, −∞) − ts may lose an ulp or two of
		// h; 4 ulps of τ bound what the pairs here show (0.16, 0.487:
		// 2 ulps).
		if ulp := math.Nextafter(tau, 2) - tau; tau-(ts+h) > 4*ulp {
			t.Errorf("leftLength(%v, %v) = %v: ts + h = %v, more than 4 ulps below τ", ts, tau, h, ts+h)
		}
	}
	if h := leftLength(0.5, math.Nextafter(0.5, 1)); h != 0 {
		t.Errorf("τ the next float after ts: h = %v, want 0", h)
	}
}
