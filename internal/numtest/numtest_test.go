package numtest

import (
	"math"
	"runtime"
	"runtime/debug"
	"sync"
	"testing"
)

// fatalRecorder records Fatalf instead of stopping the test.
type fatalRecorder struct {
	testing.TB
	failed bool
}

func (r *fatalRecorder) Helper()               {}
func (r *fatalRecorder) Fatalf(string, ...any) { r.failed = true }

// errorRecorder records Errorf instead of reporting it.
type errorRecorder struct {
	testing.TB
	failed bool
}

func (r *errorRecorder) Helper()               {}
func (r *errorRecorder) Errorf(string, ...any) { r.failed = true }

// TestRejectNonFinite: the comparisons fail on a NaN or infinite value,
// which a tolerance check written |got − want| > tol·scale lets pass
// (NaN > x is false; an infinite largest entry makes every tolerance
// infinite), and agree with the plain check on finite values.
func TestRejectNonFinite(t *testing.T) {
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		r := &fatalRecorder{TB: t}
		FiniteScale(r, "m", []float64{1, 2}, []float64{bad})
		if !r.failed {
			t.Errorf("FiniteScale accepted an entry %v", bad)
		}
		if Within(bad, 1, math.Inf(1)) || Within(1, bad, math.Inf(1)) || Within(bad, bad, math.Inf(1)) {
			t.Errorf("Within accepted %v", bad)
		}
		if Near(bad, 1, 1e300) || Near(1, bad, 1e-3) {
			t.Errorf("Near accepted %v", bad)
		}
		e := &errorRecorder{TB: t}
		if ExpectWithin(e, "x", bad, 1, math.Inf(1)); !e.failed {
			t.Errorf("ExpectWithin accepted %v", bad)
		}
		if worst := max(0, math.Abs(bad), 1e-3); AtMost(worst, math.Inf(1)) {
			t.Errorf("AtMost accepted a largest error %v accumulated from %v", worst, bad)
		}
	}
	if Within(1, 1, math.NaN()) || AtMost(0, math.NaN()) {
		t.Error("Within or AtMost accepted a NaN tolerance")
	}
	if !Near(100, 100+1e-7, 1e-8) || Near(100, 100+1e-5, 1e-8) || !Near(1e-9, 0, 1e-8) || Near(1e-7, 0, 1e-8) {
		t.Error("Near disagrees with |got − want| ≤ tol·max(1, |want|) on finite values")
	}
	e := &errorRecorder{TB: t}
	if ExpectWithin(e, "x", 1, 1.5, 0.5); e.failed {
		t.Error("ExpectWithin failed |1 − 1.5| ≤ 0.5")
	}
	if !AtMost(1e-9, 1e-8) || AtMost(1e-7, 1e-8) || !AtMost(-1, 0) {
		t.Error("AtMost disagrees with x ≤ bound on finite values")
	}
	r := &fatalRecorder{TB: t}
	if s := FiniteScale(r, "m", []float64{1, -3}, nil, []float64{2}); s != 3 || r.failed {
		t.Errorf("finite entries: scale %v, failed %v, want 3, false", s, r.failed)
	}
	if !Within(1, 1+1e-9, 1e-8) || Within(1, 1+1e-7, 1e-8) || !Within(-2, -2, 0) {
		t.Error("Within disagrees with |got − want| ≤ tol on finite values")
	}
}

// TestAllocsPerRunCollectorOff: AllocsPerRun counts with the collector
// off (GC percent −1 seen from inside f) and restores its setting after;
// a pooled call then counts no allocation. The premise: a collection
// between calls (forced here by runtime.GC) empties the pool, and
// testing.AllocsPerRun counts the refills.
func TestAllocsPerRunCollectorOff(t *testing.T) {
	if testing.Short() {
		t.Skip("forces collections")
	}
	pool := sync.Pool{New: func() any { return new([64]float64) }}
	f := func() {
		p := pool.Get().(*[64]float64)
		p[0]++
		pool.Put(p)
	}
	const percent = 150
	defer debug.SetGCPercent(debug.SetGCPercent(percent))
	if a := AllocsPerRun(50, f); a != 0 {
		t.Errorf("pooled call with the collector off: %v allocations, want 0", a)
	}
	inside := 0
	AllocsPerRun(1, func() { inside = debug.SetGCPercent(-1) })
	if inside != -1 {
		t.Errorf("GC percent %d while counting, want -1 (off)", inside)
	}
	if got := debug.SetGCPercent(percent); got != percent {
		t.Errorf("GC percent %d after AllocsPerRun, want %d restored", got, percent)
	}
	// The same pool, with collections between the calls as the collector
	// may run them: the refills count. (Two collections, since the first
	// moves a pool's items to its victim cache and the second drops them.)
	withGC := testing.AllocsPerRun(50, func() { runtime.GC(); runtime.GC(); f() })
	if withGC < 1 {
		t.Errorf("pooled call with collections between: %v allocations; the premise (a collection empties the pool) does not hold", withGC)
	}
}
