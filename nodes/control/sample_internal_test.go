package control

import (
	"math"
	"testing"
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

// timeEvents counts every instant and rung exactly once, in order:
// prev ≤ t < next, and the count rises by one at each event time.
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
		if k != count || prev != tt || !(next > tt) {
			t.Fatalf("at event %d (t = %v): k = %d, prev %v, next %v", count, tt, k, prev, next)
		}
		if kb, _, nb := g.timeEvents(math.Nextafter(tt, math.Inf(-1))); kb != count-1 || nb != tt {
			t.Fatalf("just before event %d: k = %d, next %v", count, kb, nb)
		}
		tt = next
	}
	if count%(ladderLevels+1) != 0 {
		t.Errorf("%d events is not a whole number of instants with their rungs", count)
	}
}

// The event function of a block that has taken samples up to m: negative
// before the next instant and zero on it; for a sample due and not
// taken, zero within rounding of its instant, negative just after it and
// after each rung, zero on each rung, positive past the last rung, and
// negative again from half a period on, up to the next instant.
func TestGridEvent(t *testing.T) {
	g := grid{period: 0.1}
	up := func(x float64) float64 { return math.Nextafter(x, math.Inf(1)) }
	s3 := g.at(3)
	if v := g.event(0.25, 2); !(v < 0) || g.event(s3, 2) != 0 {
		t.Errorf("approach: %v, on the instant %v", v, g.event(s3, 2))
	}
	if v := g.event(s3, 2); v != 0 {
		t.Errorf("on instant 3, sample 3 pending: %v", v)
	}
	if v := g.event(up(up(s3)), 2); !(v >= 0) {
		t.Errorf("a few ulps after the instant: %v, want ≥ 0 (a fixed step's end)", v)
	}
	for i := 1; i <= ladderLevels; i++ {
		l := g.ladder(3, i)
		prev := g.ladder(3, i-1)
		if v := g.event(prev+64e-12, 2); !(v < 0) {
			t.Errorf("just after rung %d: %v", i-1, v)
		}
		if v := g.event(l, 2); v != 0 {
			t.Errorf("on rung %d: %v", i, v)
		}
	}
	if v := g.event(g.ladder(3, ladderLevels)+1e-6, 2); !(v > 0) {
		t.Errorf("past the ladder: %v", v)
	}
	if v := g.event(s3+0.06, 2); !(v < 0) {
		t.Errorf("half a period late: %v", v)
	}
	if v := g.event(g.at(4), 2); v != 0 {
		t.Errorf("on the next instant, still waiting: %v", v)
	}
	// The rungs are far above the integrators' probe after an unarmed
	// start (64 event tolerances: 64·max(1e-12, 4ε|t|) s), and the ladder
	// ends long before the next instant. Where they are closer than the
	// integrators' Zeno spacing (1e-9·max(1, |t|)), the ladder's
	// ladderLevels + 1 events stay below its limit of 16 in a row.
	for _, tau := range []float64{0, 1, 1e3, 1e6} {
		r := grid{period: 0.01}.rung(tau)
		if !(r > 64*math.Max(1e-12, 4*eps*tau)) || ladderLevels*r >= 0.01/2 || ladderLevels+1 >= 16 {
			t.Errorf("rung at %v: %v", tau, r)
		}
	}
}
