package integrators

import (
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
)

// ramp has the event function g(t) = slope·(t − root) of direction dir
// and the state y' = slope, y(0) = −slope·root, which follows g (up to
// the rounding of the Runge–Kutta sums). The event reads the time, not
// the state: steps of 0.25 or 0.5 and the regula-falsi point of a
// linear g are exact in binary arithmetic, so a root on a step boundary
// or on a localization sample makes g exactly 0 there — a boundary case
// of the crossing rule (a rising event fires on g < 0 → g ≥ 0). The reset
// leaves the state unchanged (EventContinue).
type ramp struct {
	slope, root float64
	dir         int
}

func (r *ramp) Dim() int                               { return 1 }
func (r *ramp) Func(_ float64, _, dst []float64) error { dst[0] = r.slope; return nil }
func (r *ramp) EventCount() int                        { return 1 }
func (r *ramp) EventDirection(int) int                 { return r.dir }
func (r *ramp) Events(t float64, _, dst []float64) error {
	dst[0] = r.slope * (t - r.root)
	return nil
}
func (r *ramp) Reset(_ int, _ float64, y, dst []float64) (EventAction, error) {
	copy(dst, y)
	return EventContinue, nil
}

// TestEventExactlyOnZero: rising, falling and either-direction events
// whose root lands exactly on a step boundary (fixed step 0.25, and an
// adaptive run whose steps are capped at 0.25 from an initial 0.25) and
// exactly on a localization sample inside a step (steps of 0.5, root at
// 0.75: the first regula-falsi point of a linear g is the root itself),
// each with a dense-output sample requested at the root. Each run fires
// exactly one event, at the root, and an event of the other direction
// never fires.
func TestEventExactlyOnZero(t *testing.T) {
	runs := func(root float64) []struct {
		name string
		s    settings
	} {
		out := []float64{root}
		return []struct {
			name string
			s    settings
		}{
			{"fixed 0.25", settings{FixedStep: 0.25, Output: out}},
			{"adaptive 0.25", settings{InitialStep: 0.25, MaxStep: 0.25, Output: out}},
			{"fixed 0.5", settings{FixedStep: 0.5, Output: out}},
			{"adaptive 0.5", settings{InitialStep: 0.5, MaxStep: 0.5, Output: out}},
		}
	}
	cases := []struct {
		name        string
		slope, root float64
		dir         int
		want        int // events expected: 1 when dir admits the crossing, else 0
	}{
		{"rising dir +1", 1, 1, +1, 1},
		{"falling dir -1", -1, 1, -1, 1},
		{"rising dir 0", 1, 1, 0, 1},
		{"falling dir 0", -1, 1, 0, 1},
		{"rising dir -1", 1, 1, -1, 0},
		{"falling dir +1", -1, 1, +1, 0},
		// Root 0.75: on a boundary of the 0.25 steps, inside a 0.5 step.
		{"rising at 0.75 dir +1", 1, 0.75, +1, 1},
		{"falling at 0.75 dir -1", -1, 0.75, -1, 1},
		{"rising at 0.75 dir 0", 1, 0.75, 0, 1},
		{"falling at 0.75 dir 0", -1, 0.75, 0, 1},
		{"rising at 0.75 dir -1", 1, 0.75, -1, 0},
		{"falling at 0.75 dir +1", -1, 0.75, +1, 0},
	}
	const tEnd = 2
	for _, c := range cases {
		for _, r := range runs(c.root) {
			t.Run(c.name+"/"+r.name, func(t *testing.T) {
				s := r.s
				y0 := -c.slope * c.root
				res, err := integrateS(&ramp{slope: c.slope, root: c.root, dir: c.dir}, 0, []float64{y0}, tEnd, &s)
				if err != nil || res.Status != Success {
					t.Fatalf("status %v, err %v", res.Status, err)
				}
				if len(res.Events) != c.want {
					t.Fatalf("%d events %+v, want %d (g is exactly 0 at t = %v)", len(res.Events), res.Events, c.want, c.root)
				}
				if c.want == 1 {
					ev := res.Events[0]
					// The reported time lies on the far side of the root
					// within EventTol (1e-12); here it is the root itself.
					if ev.T != c.root || res.EventsHandled != 1 {
						t.Errorf("event at %v (%d handled), want exactly one at %v", ev.T, res.EventsHandled, c.root)
					}
					// y follows g up to the rounding of the stage sums
					// (a few ulp of 1).
					numtest.ExpectWithin(t, "state before the reset", ev.Before[0], 0, 1e-12)
				}
				if len(res.Samples) != 1 || res.Samples[0].T != c.root {
					t.Fatalf("samples %+v, want one at %v", res.Samples, c.root)
				}
				numtest.ExpectWithin(t, "sample at the root", res.Samples[0].Y[0], 0, 1e-12)
				numtest.ExpectWithin(t, "final state", res.Y[0], c.slope*(tEnd-c.root), 1e-12)
			})
		}
	}
}

// TestEventExactlyOnZeroAtStart: an event function that is exactly zero
// at t0 and arrives there from its near side (g = ±t is on its near side
// just before 0 when its direction admits the crossing) is due at the
// start and fires there, once, with the first Step (an event-only
// report, T0 = T1 = 0), as a run landing on its root would have seen it
// (FMI's event at initialization, Simulink's sample at t0). One that
// would arrive from its far side (the direction does not admit the
// crossing) does not fire, then or later: g only moves away from zero.
// Before, every event zero at t0 was unarmed there and none fired.
func TestEventExactlyOnZeroAtStart(t *testing.T) {
	for _, c := range []struct {
		slope float64
		dir   int
		want  int
	}{{1, 0, 1}, {1, 1, 1}, {-1, -1, 1}, {-1, 0, 1}, {1, -1, 0}, {-1, 1, 0}} {
		for _, s := range []settings{{FixedStep: 0.25}, {InitialStep: 0.25, MaxStep: 0.25}, {}} {
			res, err := integrateS(&ramp{slope: c.slope, dir: c.dir}, 0, []float64{0}, 2, &s)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Events) != c.want || res.EventsHandled != c.want {
				t.Errorf("slope %v dir %d settings %+v: events %+v (%d handled), want %d", c.slope, c.dir, s, res.Events, res.EventsHandled, c.want)
				continue
			}
			if c.want == 1 && (res.Events[0].T != 0 || res.Events[0].Round != 0) {
				t.Errorf("slope %v dir %d settings %+v: event %+v, want it at t = 0 in round 0", c.slope, c.dir, s, res.Events[0])
			}
			numtest.ExpectWithin(t, "final state", res.Y[0], 2*c.slope, 1e-12)
		}
		// The fixed-step methods too: the first Step applies it.
		for _, m := range []Method{RK4{}, BackwardEuler{}} {
			st, err := NewStepper(m, &ramp{slope: c.slope, dir: c.dir}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := st.Init(0, []float64{0}); err != nil {
				t.Fatal(err)
			}
			for k := 0; k < 8; k++ {
				if err := st.Step(0.25); err != nil {
					t.Fatal(err)
				}
			}
			if w := st.Work(); w.EventsHandled != c.want {
				t.Errorf("%s slope %v dir %d: %d events, want %d", m.Name(), c.slope, c.dir, w.EventsHandled, c.want)
			}
		}
	}
}
