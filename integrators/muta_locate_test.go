package integrators

import (
	"math"
	"testing"
)

// crossed counts a value exactly zero as on the far side, in both
// directions (EventSystem: falling is from g > 0 to g ≤ 0, rising from
// g < 0 to g ≥ 0): an event whose function lands on zero fires there.
func TestCrossedZeroIsFarSideA(t *testing.T) {
	for _, c := range []struct {
		dir     int
		ref, v  float64
		crossed bool
	}{
		{-1, 1, 0, true}, {-1, 1, -1, true}, {-1, 1, 0.5, false}, {-1, -1, 0, false},
		{1, -1, 0, true}, {1, -1, 1, true}, {1, -1, -0.5, false}, {1, 1, 0, false},
		{0, 1, 0, true}, {0, -1, 0, true}, {0, 1, 2, false}, {0, -1, -2, false},
	} {
		if got := crossed(c.dir, c.ref, c.v); got != c.crossed {
			t.Errorf("crossed(%d, %v, %v) = %v, want %v", c.dir, c.ref, c.v, got, c.crossed)
		}
	}
}

// eventTolAt is max(tol, 4ε|t|) (DriverOptions.EventTol): at t = 1e6 the
// floor 4·2⁻⁵²·1e6 ≈ 8.9e-10 wins over a zero or smaller tolerance, and a
// larger tolerance wins over it.
func TestEventTolAtFloorA(t *testing.T) {
	floor := 4 * 0x1p-52 * 1e6
	for _, c := range []struct{ tol, t, want float64 }{
		{0, 1e6, floor}, {1e-12, -1e6, floor}, {1e-3, 1e6, 1e-3}, {1e-9, 0, 1e-9},
	} {
		if got := eventTolAt(c.tol, c.t); got != c.want {
			t.Errorf("eventTolAt(%v, %v) = %v, want %v", c.tol, c.t, got, c.want)
		}
	}
}

// stepFnA is an event function with a jump at r: −1 before, +1 from r on.
// Regula falsi gains nothing on it (the secant only sees the two values),
// so illinois needs its bisections and its whole iteration budget
// 4·log₂((hi − lo)/tol) + 8: a location within the tolerance proves the
// budget is not cut short. probes counts the evaluations.
func stepFnA(r float64, probes *int) func(c float64) (float64, error) {
	return func(c float64) (float64, error) {
		*probes++
		if c < r {
			return -1, nil
		}
		return 1, nil
	}
}

// illinois locates a rising jump on a bracket of negative times (where
// hi + lo differs from hi − lo) to within the tolerance, on the far side
// (the documented contract: within eventTolAt(tol, base+hi) of the root,
// after it).
func TestIllinoisJumpNegativeTimesA(t *testing.T) {
	for _, c := range []struct{ lo, hi, r, tol float64 }{
		{-2, -1, -1.3, 1e-9},
		{-2, -1, -1.9999, 1e-12},
		{0, 1, 0.7, 1e-10},
		{0, 1.5e-9, 1e-11, 1e-9}, // a bracket just above the tolerance: one trial
	} {
		probes := 0
		te, err := illinois(1, c.lo, -1, c.hi, 1, 0, c.tol, stepFnA(c.r, &probes))
		if err != nil {
			t.Fatal(err)
		}
		if !(te >= c.r && te-c.r <= eventTolAt(c.tol, te)) {
			t.Errorf("bracket [%v, %v], jump at %v, tol %v: located %.17g (%.3g after the jump) in %d probes", c.lo, c.hi, c.r, c.tol, te, te-c.r, probes)
		}
	}
}

// A bracket already within the tolerance is returned as it is: its far
// end hi, without evaluating the event function (here hi − lo equals the
// tolerance exactly, 2⁻²⁰).
func TestIllinoisBracketWithinTolA(t *testing.T) {
	probes := 0
	te, err := illinois(1, 0, -1, 0x1p-20, 1, 0, 0x1p-20, stepFnA(0x1p-21, &probes))
	if err != nil {
		t.Fatal(err)
	}
	if te != 0x1p-20 || probes != 0 {
		t.Errorf("located %v with %d probes, want hi = 2⁻²⁰ with none", te, probes)
	}
}

// With times as offsets from base, the tolerance is taken at the
// absolute time base + hi: near 1e6 it is 4ε·1e6 ≈ 8.9e-10, not the
// 1e-15 asked for (which offsets near 5e5, spaced 5.8e-11, cannot
// resolve). The location stops there: within
// 4·⌈log₂((hi − lo)/eventTolAt(tol, base + hi))⌉ + 8 = 208 probes (every
// fourth trial bisects), not at the iteration limit of the unreachable
// 1e-15 (288). The jump is at the offset base + 0.123, so that the
// bracket closes in on base, where a tolerance taken at the offset
// instead of the absolute time would be the unreachable one.
func TestIllinoisToleranceAtAbsoluteTimeA(t *testing.T) {
	const base, lo, hi, r, tol = 5e5, 0.0, 6e5, 5e5 + 0.123, 1e-15
	probes := 0
	te, err := illinois(1, lo, -1, hi, 1, base, tol, stepFnA(r, &probes))
	if err != nil {
		t.Fatal(err)
	}
	eff := eventTolAt(tol, base+te)
	budget := 4*int(math.Ceil(math.Log2((hi-lo)/eventTolAt(tol, base+hi)))) + 8
	if !(te >= r && te-r <= eff) || probes > budget {
		t.Errorf("located %.17g (%.3g after the jump, tolerance %.3g) in %d probes, want at most %d", te, te-r, eff, probes, budget)
	}
}
