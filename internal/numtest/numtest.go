package numtest

import (
	"math"
	"runtime/debug"
	"testing"
)

// Within reports |got − want| ≤ tol. It is false when got or want is NaN
// or infinite, or tol is NaN, so that a check written
// `if !Within(got, want, tol) { fail }` fails on them, where
// `if math.Abs(got-want) > tol { fail }` would pass a NaN (the comparison
// is false).
func Within(got, want, tol float64) bool {
	if !finite(got) || !finite(want) {
		return false
	}
	return math.Abs(got-want) <= tol
}

// Near reports |got − want| ≤ tol·max(1, |want|): absolute for values of
// order one and below, relative to want above; false when got or want is
// NaN or infinite (an infinite want would otherwise make the tolerance
// infinite).
func Near(got, want, tol float64) bool {
	return Within(got, want, tol*max(1, math.Abs(want)))
}

// ExpectWithin marks the test failed (tb.Errorf) unless
// Within(got, want, tol), naming the quantity, both values, the
// tolerance and the difference: the absolute comparison with the
// tolerance and its reason stated at the call.
func ExpectWithin(tb testing.TB, name string, got, want, tol float64) {
	tb.Helper()
	if !Within(got, want, tol) {
		tb.Errorf("%s = %.12g, want %.12g ± %g (diff %.3g)", name, got, want, tol, got-want)
	}
}

// AtMost reports x ≤ bound, false when x is NaN or infinite or bound is
// NaN: for a largest error accumulated with max or math.Max, which
// propagate a NaN, a check written `if !AtMost(worst, tol) { fail }`
// fails where `if worst > tol { fail }` would pass.
func AtMost(x, bound float64) bool { return finite(x) && x <= bound }

// FiniteScale returns the largest |v| over the entries of vs, the scale
// a tolerance relative to the largest entry is taken of. It stops the
// test (tb.Fatalf) on a NaN or infinite entry, naming what and the
// entry's index: the scale would then be NaN or +Inf, and every
// comparison against a tolerance of it would pass.
func FiniteScale(tb testing.TB, what string, vs ...[]float64) float64 {
	tb.Helper()
	scale, off := 0.0, 0
	for _, v := range vs {
		for i, x := range v {
			if !finite(x) {
				tb.Fatalf("%s: entry %d is %v", what, off+i, x)
				return math.NaN()
			}
			scale = max(scale, math.Abs(x))
		}
		off += len(v)
	}
	return scale
}

// AllocsPerRun is testing.AllocsPerRun(runs, f) with the garbage
// collector off while it counts. A collection during the count empties
// the sync.Pools of the node kernels (scratch rows of the spring and
// spring-damper batches), of the runtime and of libraries; their
// refills then count as allocations of whichever call met them, a few
// stray allocations that say nothing of the code under test. The first
// call of f, which testing.AllocsPerRun makes before counting, refills
// the pools a collection just before emptied.
//
// Use it where f steps or runs a graph or a batch kernel, anything that
// may reach a sync.Pool; with the collector off, f's garbage accumulates
// for the count's duration, so keep runs·(garbage per call) modest.
func AllocsPerRun(runs int, f func()) float64 {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	return testing.AllocsPerRun(runs, f)
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
