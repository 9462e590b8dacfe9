package control

import (
	"math"
	"testing"
	"time"
)

// index and at agree exactly: at(index(t)) ≤ t < at(index(t)+1), over
// times on, just before and just after every instant.
func TestGridIndexConsistent(t *testing.T) {
	for _, g := range []grid{{0.1, 0}, {0.01, 0.25}, {1.0 / 3, 0}, {2.5e-3, 7}} {
		for k := 0.0; k < 2000; k++ {
			s := g.at(k)
			for _, tt := range []float64{s, math.Nextafter(s, math.Inf(-1)), math.Nextafter(s, math.Inf(1)), s + g.period/2} {
				j := g.index(tt)
				if !(g.at(j) <= tt && tt < g.at(j+1)) {
					t.Fatalf("%+v: t = %v: index %v, instants %v, %v", g, tt, j, g.at(j), g.at(j+1))
				}
			}
			if j := g.index(s); j != k {
				t.Fatalf("%+v: index(at(%v)) = %v", g, k, j)
			}
		}
		if j := g.index(g.at(0) - 1e-3); j != -1 {
			t.Errorf("%+v: before the first instant index = %v", g, j)
		}
	}
}

// A co-simulation clock t0 + n·dt whose step divides the sample period
// meets every instant on the step that is its multiple, and not the step
// before, although the two times agree only up to rounding: the
// instants' 8ε|τ| allowance absorbs it. Steps and periods that are not
// binary fractions (0.001, 0.003, 0.01, 0.1/3) over 100 000 steps.
func TestGridMeetsCoSimulationClock(t *testing.T) {
	for _, c := range []struct {
		dt    float64
		per   int // steps per period
		t0    float64
		steps int
	}{{0.001, 10, 0, 100000}, {0.003, 7, 0, 50000}, {0.01, 10, 0, 20000}, {0.1 / 3, 3, 0, 10000}, {0.001, 25, 0.5, 50000}} {
		g := grid{period: c.dt * float64(c.per), offset: c.t0}
		for n := 1; n < c.steps; n++ {
			tn := c.t0 + float64(n)*c.dt
			want := float64(n / c.per)
			if got := g.index(tn); got != want {
				t.Fatalf("dt %v, period %v steps: step %d (t = %v): index %v, want %v", c.dt, c.per, n, tn, got, want)
			}
		}
	}
}

// timeEvents counts every instant exactly once, in order: prev ≤ t <
// next, and the count rises by one at each instant, the next event.
func TestGridTimeEvents(t *testing.T) {
	g := grid{period: 0.1, offset: 0.05}
	k, prev, next := g.timeEvents(0)
	if k != 0 || !math.IsInf(prev, -1) || next != g.at(0) {
		t.Fatalf("before the first instant: %d %v %v", k, prev, next)
	}
	tt, count := next, 0
	for range 500 {
		k, prev, next := g.timeEvents(tt)
		count++
		if k != count || prev != tt || next != g.at(float64(count)) {
			t.Fatalf("at event %d (t = %v): k = %d, prev %v, next %v, want the instant %v", count, tt, k, prev, next, g.at(float64(count)))
		}
		if kb, _, nb := g.timeEvents(math.Nextafter(tt, math.Inf(-1))); kb != count-1 || nb != tt {
			t.Fatalf("just before event %d: k = %d, next %v", count, kb, nb)
		}
		tt = next
	}
}

// The event function of a block that has taken samples up to m:
// t − s_{m+1}, negative, up to the next instant; exactly zero on it (to
// rounding) while its sample is due; t − s_{j+1} after it once taken, and
// also when it is overdue by more than rounding (a sample before the
// run, or skipped), so that it rises to zero only on instants, where the
// integrators stop. Just before an instant it is on its near side, which
// is what makes a run starting on one fire it at the start.
func TestGridEvent(t *testing.T) {
	g := grid{period: 0.1}
	up := func(x float64) float64 { return math.Nextafter(x, math.Inf(1)) }
	s3 := g.at(3)
	if v := g.event(0.25, 2); v != 0.25-s3 {
		t.Errorf("approach: %v, want t − s_3 = %v", v, 0.25-s3)
	}
	if v := g.event(math.Nextafter(s3, math.Inf(-1)), 2); !(v < 0) {
		t.Errorf("just before instant 3: %v, want < 0", v)
	}
	if v := g.event(s3, 2); v != 0 {
		t.Errorf("on instant 3, sample 3 due: %v", v)
	}
	// A step time that is 0.3 up to rounding is on the instant.
	if v := g.event(0.1*3, 2); v != 0 {
		t.Errorf("at 0.1·3 = %v, sample 3 due: %v, want 0", 0.1*3, v)
	}
	if v := g.event(up(up(s3)), 2); v != 0 {
		t.Errorf("a few ulps after the instant: %v, want 0 (on it, to rounding)", v)
	}
	if v := g.event(s3, 3); v != s3-g.at(4) {
		t.Errorf("on instant 3, sample 3 taken: %v, want t − s_4", v)
	}
	// Overdue by more than rounding: not on the instant any more; the
	// function waits for the next.
	if v := g.event(s3+1e-9, 2); v != s3+1e-9-g.at(4) {
		t.Errorf("1e-9 s after instant 3, sample 3 due: %v, want t − s_4", v)
	}
	if v := g.event(0.05, -1); v != 0.05-g.at(1) {
		t.Errorf("a run starting between instants 0 and 1: %v, want t − s_1", v)
	}
	if v := g.event(0, -1); v != 0 {
		t.Errorf("a run starting on instant 0: %v, want 0", v)
	}
	if v := g.event(-1e-9, -1); !(v < 0) {
		t.Errorf("just before instant 0: %v, want < 0", v)
	}
	// The probes of the integrators around an instant (64 event
	// tolerances, at least 256ε|t|) are beyond the rounding allowance.
	for _, tau := range []float64{0.1, 1, 1e3, 1e6} {
		if !(near(tau) < 64*4*eps*tau) {
			t.Errorf("near(%v) = %v is not below the integrators' probe offset", tau, near(tau))
		}
	}
}

// The count of timeEvents at the end of its range: it is capped at
// math.MaxInt32 from sample MaxInt32 − 1 on (the count serves parity
// only; a run that long keeps the cap rather than a count past int32). Period 1, offset 0: sample k is at t = k
// (less the 8ε·t of at), so t = k + 0.5 is within sample k.
func TestGridEventCountCap(t *testing.T) {
	g := grid{period: 1}
	for _, c := range []struct {
		k    float64
		want int
	}{
		{math.MaxInt32 - 3, math.MaxInt32 - 2},
		{math.MaxInt32 - 2, math.MaxInt32 - 1},
		{math.MaxInt32 - 1, math.MaxInt32},
		{math.MaxInt32, math.MaxInt32},
		{math.MaxInt32 + 5, math.MaxInt32},
	} {
		if n, _, _ := g.timeEvents(c.k + 0.5); n != c.want {
			t.Errorf("within sample %v: count %d, want %d", c.k, n, c.want)
		}
	}
}

// checkIndex accepts sample maxIndex = 2^52 itself, the last a float64
// state counts exactly, and refuses the next: at t = at(maxIndex) the
// index is maxIndex and at t = at(maxIndex + 1) it is maxIndex + 1 (the
// exactness of index against at, TestGridIndexConsistent).
func TestGridCheckIndexEdge(t *testing.T) {
	g := grid{period: 1}
	if k := g.index(g.at(maxIndex)); k != maxIndex {
		t.Fatalf("index(at(2^52)) = %v", k)
	}
	if err := g.checkIndex("zoh", g.at(maxIndex)); err != nil {
		t.Errorf("sample 2^52: %v", err)
	}
	if err := g.checkIndex("zoh", g.at(maxIndex+1)); err == nil {
		t.Error("sample 2^52 + 1 accepted")
	}
	// At t = τ(2^52) = 2^52 itself the first guess, floor(t/period), is
	// exactly maxIndex, but the instants at(k) = k − 8ε·k lie 8 samples
	// early there (8ε·2^52 = 8): index must still step to the exact
	// sample, 2^52 + 8 (at(k) ≤ t < at(k+1)), beyond what checkIndex
	// accepts.
	tt := g.nominal(maxIndex)
	if guess := math.Floor(tt / g.period); guess != maxIndex {
		t.Fatalf("test set-up: guess %v, meant 2^52", guess)
	}
	if k := g.index(tt); !(g.at(k) <= tt && tt < g.at(k+1)) {
		t.Errorf("index(2^52) = %v, instants %v, %v: not exact", k, g.at(k), g.at(k+1))
	}
	if err := g.checkIndex("zoh", tt); err == nil {
		t.Error("t = 2^52, sample 2^52 + 8, accepted")
	}
}

// index stays exact when its first guess, floor((t − offset)/period),
// lands one sample late: with a negative offset the instant s_10 of
// grid{0.1, −1} is 0, and at t just below it (−5e-324) the quotient
// (t + 1)/0.1 rounds to 10, so the step back to 9 is what makes it
// exact. Block offsets are non-negative, but index's contract does not
// depend on the sign, and the step back is its guard against the guess.
func TestGridIndexGuessLate(t *testing.T) {
	g := grid{period: 0.1, offset: -1}
	tt := math.Nextafter(0, math.Inf(-1))
	if guess := math.Floor((tt - g.offset) / g.period); guess != 10 {
		t.Fatalf("test set-up: guess %v, meant 10", guess)
	}
	if k := g.index(tt); k != 9 || !(g.at(k) <= tt && tt < g.at(k+1)) {
		t.Errorf("index(%v) = %v, want 9 (at(9) = %v, at(10) = %v)", tt, k, g.at(9), g.at(10))
	}
}

// Near sample 2^53, k+1 rounds back to k in float64, so index's stepping
// loop never ended: a ZOH, unit delay or transport delay hung in Update,
// Outputs or TimeEvents at such a time (for period 1 s, t ≈ 9e15 s; for
// 1 ns, t ≈ 9e6 s) instead of refusing it. index must return, and
// checkIndex must refuse the time. Each call is given 10 s, far more
// than the few operations it takes, so that a regression fails instead
// of hanging the test run.
func TestGridIndexNearTwoTo53Returns(t *testing.T) {
	for _, p := range []float64{1, 0.5, 0.1, 3, 1e-9} {
		for d := -2.0; d <= 1; d++ {
			g := grid{period: p}
			tt := (1<<53)*p + d*p
			done := make(chan error, 1)
			go func() { done <- g.checkIndex("zoh", tt) }()
			select {
			case err := <-done:
				if err == nil {
					t.Errorf("period %v, t = %v: checkIndex accepted a time beyond 2^52 samples", p, tt)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("period %v, t = %v: index did not return", p, tt)
			}
		}
	}
}
