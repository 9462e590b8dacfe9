package integrators

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
)

// clocks has n events with the same function g_i = t − 1 (rising), as
// n sampled blocks sharing an instant have, and one more state: each
// reset adds 1 to y[i] and appends i to the order y[n] (a base-16
// number), so the final state says which resets ran and in which order.
// y' = 0.
type clocks struct{ n int }

func (c clocks) Dim() int { return c.n + 1 }
func (c clocks) Func(t float64, y, dst []float64) error {
	clear(dst)
	return nil
}
func (c clocks) EventCount() int        { return c.n }
func (c clocks) EventDirection(int) int { return 1 }
func (c clocks) Events(t float64, y, dst []float64) error {
	for i := range dst {
		dst[i] = t - 1
	}
	return nil
}
func (c clocks) Reset(i int, t float64, y, dst []float64) (EventAction, error) {
	dst[i] = y[i] + 1
	dst[c.n] = 16*y[c.n] + float64(i)
	return EventContinue, nil
}

// simultaneousMethods are the drivers every instant test runs: the
// adaptive ones through Integrate and fixed-step ones through NewStepper,
// with a step dividing 1 (the instant on a step end) and one that does not.
type driverRun struct {
	name  string
	run   func(sys System, y0 []float64, tEnd float64) (y []float64, w Work, recs []EventRecord, err error)
	fixed bool
}

func driverRuns() []driverRun {
	adaptive := func(m AdaptiveMethod) driverRun {
		return driverRun{name: m.Name(), run: func(sys System, y0 []float64, tEnd float64) ([]float64, Work, []EventRecord, error) {
			res, err := Integrate(m, sys, 0, y0, tEnd, nil)
			return res.Y, res.Work, res.Events, err
		}}
	}
	fixed := func(m Method, dt float64) driverRun {
		return driverRun{name: m.Name() + " dt " + fmtF(dt), fixed: true, run: func(sys System, y0 []float64, tEnd float64) ([]float64, Work, []EventRecord, error) {
			st, err := NewStepper(m, sys, nil)
			if err != nil {
				return nil, Work{}, nil, err
			}
			if err := st.Init(0, y0); err != nil {
				return nil, Work{}, nil, err
			}
			n := int(math.Round(tEnd / dt))
			for k := 0; k < n; k++ {
				if err := st.Step(dt); err != nil {
					_, y := st.State()
					return cloneF(y), st.Work(), nil, err
				}
			}
			_, y := st.State()
			return cloneF(y), st.Work(), nil, nil
		}}
	}
	return []driverRun{
		adaptive(DormandPrince{}), adaptive(ESDIRK43{}), adaptive(BDF{}),
		fixed(RK4{}, 0.25), fixed(RK4{}, 0.3), fixed(BackwardEuler{}, 0.3), fixed(ImplicitTrapezoid{}, 0.25),
	}
}

// Every event located at one instant gets its reset there, once, in
// event order (round 0): five events with the same function t − 1, as
// five sampled blocks sharing an instant. Before, one reset was applied
// per located time: the first event fired at t = 1 and the others, zero
// there and unarmed, never fired (the ladder of time events in the
// sampled blocks worked around it).
func TestSimultaneousEventsAllFire(t *testing.T) {
	const n = 5
	for _, d := range driverRuns() {
		y, w, recs, err := d.run(clocks{n}, make([]float64, n+1), 2)
		if err != nil {
			t.Fatalf("%s: %v", d.name, err)
		}
		order := 0.0
		for i := 0; i < n; i++ {
			order = 16*order + float64(i)
			if y[i] != 1 {
				t.Errorf("%s: event %d fired %v times, want 1", d.name, i, y[i])
			}
		}
		if y[n] != order || w.EventsHandled != n {
			t.Errorf("%s: resets in order %x (%d handled), want %x: every event once, by index", d.name, int(y[n]), w.EventsHandled, int(order))
		}
		if d.fixed {
			continue
		}
		if len(recs) != n {
			t.Fatalf("%s: %d event records, want %d", d.name, len(recs), n)
		}
		for k, r := range recs {
			if r.T != 1 || r.Index != k || r.Round != 0 || r.Before[k] != 0 || r.After[k] != 1 {
				t.Errorf("%s: record %d = %+v, want event %d at t = 1 in round 0, its own reset between Before and After", d.name, k, r, k)
			}
			if k > 0 && !equalF(r.Before, recs[k-1].After) {
				t.Errorf("%s: record %d starts from %v, not from the state after the reset before it %v", d.name, k, r.Before, recs[k-1].After)
			}
		}
	}
}

func equalF(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// cascade: event 0 is t − 1 (rising); its reset sets y[0] = 1. Event 1
// is y[0] − ½ (rising): the reset of event 0 makes it cross at the same
// instant, and its reset sets y[1] = 1, which makes event 2 (y[1] − ½)
// cross; event 2's reset sets y[2] = 1. With toggle, events 1 and 2 are
// instead "either direction" and their resets flip y[1] and y[0], each
// making the other cross again, without end.
type cascade struct{ toggle bool }

func (c cascade) Dim() int { return 3 }
func (c cascade) Func(t float64, y, dst []float64) error {
	clear(dst)
	return nil
}
func (c cascade) EventCount() int { return 3 }
func (c cascade) EventDirection(i int) int {
	if c.toggle && i > 0 {
		return 0
	}
	return 1
}
func (c cascade) Events(t float64, y, dst []float64) error {
	dst[0], dst[1], dst[2] = t-1, y[0]-0.5, y[1]-0.5
	return nil
}
func (c cascade) Reset(i int, t float64, y, dst []float64) (EventAction, error) {
	switch {
	case i == 0:
		dst[0] = 1
	case c.toggle && i == 1:
		dst[1] = 1 - y[1]
	case c.toggle && i == 2:
		dst[0] = 1 - y[0]
	default:
		dst[i] = 1
	}
	return EventContinue, nil
}
func (c cascade) EventName(i int) string { return []string{"clock", "a.level", "b.level"}[i] }

// An event that the resets at an instant make cross fires at the same
// instant, in the next round of the event iteration, until none does:
// events 1 and 2 fire at t = 1 in rounds 1 and 2. An iteration that does
// not settle (two events undoing each other) ends the run with
// ZenoDetected after EventCount + ZenoLimit rounds, naming them.
func TestEventIteration(t *testing.T) {
	for _, d := range driverRuns() {
		y, w, recs, err := d.run(cascade{}, []float64{0, 0, 0}, 2)
		if err != nil {
			t.Fatalf("%s: %v", d.name, err)
		}
		if y[0] != 1 || y[1] != 1 || y[2] != 1 || w.EventsHandled != 3 {
			t.Errorf("%s: state %v after %d events, want [1 1 1] after 3", d.name, y, w.EventsHandled)
		}
		if !d.fixed {
			for k, r := range recs {
				if r.T != 1 || r.Index != k || r.Round != k {
					t.Errorf("%s: record %d = %+v, want event %d at t = 1 in round %d", d.name, k, r, k, k)
				}
			}
		}
		_, w, _, err = d.run(cascade{toggle: true}, []float64{0, 0, 0}, 2)
		var se *StepError
		if !errors.As(err, &se) || se.Status != ZenoDetected || se.T != 1 || !errors.Is(err, ErrZeno) ||
			!strings.Contains(err.Error(), "has not settled after 19 rounds") || !strings.Contains(err.Error(), "a.level") {
			t.Errorf("%s: toggling events: %v, want ZenoDetected at t = 1 after 3 + 16 rounds naming a.level", d.name, err)
		}
	}
}

// A reset returning EventStop ends the run at its instant, after the
// other resets due there (every event due at the instant gets its
// reset); the later rounds do not run.
func TestEventStopAtInstant(t *testing.T) {
	sys := stopClocks{clocks{3}}
	res, err := Integrate(DormandPrince{}, sys, 0, make([]float64, 4), 2, nil)
	if err != nil || res.Status != StoppedByEvent || res.T != 1 || len(res.Events) != 3 || res.Y[0]+res.Y[1]+res.Y[2] != 3 {
		t.Errorf("adaptive: status %v at %v, %d events, state %v, err %v; want stopped at 1 after three resets", res.Status, res.T, len(res.Events), res.Y, err)
	}
	st, _ := NewStepper(RK4{}, sys, nil)
	st.Init(0, make([]float64, 4))
	var se *StepError
	for k := 0; k < 10; k++ {
		if err = st.Step(0.3); err != nil {
			break
		}
	}
	tt, y := st.State()
	if !errors.As(err, &se) || se.Status != StoppedByEvent || tt != 1 || y[0]+y[1]+y[2] != 3 {
		t.Errorf("fixed step: %v at t = %v, state %v; want StoppedByEvent at 1 after three resets", err, tt, y)
	}
}

// stopClocks is clocks whose event 1 stops the run.
type stopClocks struct{ clocks }

func (s stopClocks) Reset(i int, t float64, y, dst []float64) (EventAction, error) {
	s.clocks.Reset(i, t, y, dst)
	if i == 1 {
		return EventStop, nil
	}
	return EventContinue, nil
}

// The fixed-step methods end a sub-step exactly on every time event
// inside a step (its stages at the left limit) and restart there, so the
// piecewise-linear y = 3·max(0, t − τ) of TestTimeEventsEndSteps comes
// out exact to rounding (1e-13 on values of order 10) with steps that do
// not divide τ, where before they smeared the jump over a step (an error
// of order dt·3). The step count clock is unaffected: the steps end on
// multiples of dt.
func TestFixedStepTimeEvents(t *testing.T) {
	for _, tau := range []float64{0.3, 1.0 / 7, 2.5} {
		for _, m := range []Method{RK4{}, Heun{}, BackwardEuler{}, ImplicitTrapezoid{}, BDF{}} {
			run := func(sys System) (float64, float64) {
				st, err := NewStepper(m, sys, nil)
				if err != nil {
					t.Fatal(err)
				}
				st.Init(0, []float64{0})
				for k := 0; k < 50; k++ {
					if err := st.Step(0.1); err != nil {
						t.Fatal(err)
					}
				}
				tt, y := st.State()
				return tt, y[0]
			}
			want := 3 * (5 - tau)
			tt, y := run(stepped{tau})
			if tt != 50*0.1 {
				t.Errorf("%s τ = %v: t = %v, want the step count's 50·0.1", m.Name(), tau, tt)
			}
			numtest.ExpectWithin(t, m.Name()+" y(5)", y, want, 1e-13)
			_, yh := run(SystemFunc{N: 1, F: stepped{tau}.Func})
			if !(math.Abs(yh-want) > 1000*math.Abs(y-want)) && math.Abs(yh-want) > 1e-13 {
				t.Errorf("%s τ = %v: time events did not help (error %v, without %v)", m.Name(), tau, y-want, yh-want)
			}
		}
	}
}

// Events cannot be stepped over at huge end times: the ball of
// TestBallEvents, dropped from 10 m with e = 0.9 and run to t = 1e15
// with output every 1e14 (cosim run examples/scenes/bouncing-ball-
// events.json --set run.end=1e15 --set run.dt=1e14 ended at −4.9e30 m
// with exit 0). Every adaptive method, with tolerances that resolve the
// last bounces (RTol 1e-9, ATol 1e-14: they are 5e-10 m high), and
// Dormand–Prince with its defaults must take the N = 113 bounces before
// the rebound speed falls below 1e-4 (e^k·v1 < 1e-4 first at k = 113,
// with 5 % margin on either side of the threshold), each hitting the
// floor at the speed it left it the bounce before (to 1e-4 relative:
// the impacts are located to 1e-12 s; BDF, the least accurate here,
// differs by 5e-5 at the last bounces), come to rest at
// t1 + Σ_{k<N} 2e^k·v1/g (the closed form of the flights) to 1e-6 s,
// and stay there, at [0, 0]. Before, Dormand–Prince's step after each
// bounce grew tenfold (the ball's free flight has no error to control)
// until the dense output of a 1e13 s step could no longer resolve a
// bounce: 18 to 28 bounces, then free fall.
func TestEventsAtHugeEndTimes(t *testing.T) {
	const h0, g, e = 10, 9.81, 0.9
	t1 := math.Sqrt(2 * h0 / g)
	v1 := g * t1
	want, tRest := 1, t1
	for v := e * v1; v >= 1e-4; v *= e {
		want++
		tRest += 2 * v / g
	}
	out := []float64{}
	for k := 1; k <= 10; k++ {
		out = append(out, float64(k)*1e14)
	}
	tight := StepControl{RTol: 1e-9, ATol: 1e-14}
	for _, m := range append(adaptiveMethods(tight), DormandPrince{}) {
		res, err := Integrate(m, &ball{g: g, e: e}, 0, []float64{h0, 0}, 1e15, &DriverOptions{Output: out})
		if err != nil {
			t.Errorf("%s %+v: %v", m.Name(), m.Control(), err)
			continue
		}
		if res.Y[0] != 0 || res.Y[1] != 0 || len(res.Events) != want {
			t.Errorf("%s %+v: ends at %v after %d bounces, want [0 0] after %d", m.Name(), m.Control(), res.Y, len(res.Events), want)
			continue
		}
		for _, s := range res.Samples {
			if s.Y[0] != 0 || s.Y[1] != 0 {
				t.Errorf("%s: at t = %v the state is %v, want at rest", m.Name(), s.T, s.Y)
			}
		}
		worst := 0.0
		for k := 1; k < len(res.Events); k++ {
			in, up := -res.Events[k].Before[1], res.Events[k-1].After[1]
			worst = math.Max(worst, math.Abs(in-up)/up)
		}
		if !numtest.AtMost(worst, 1e-4) {
			t.Errorf("%s %+v: an impact speed differs from the rebound before it by %.3g relative", m.Name(), m.Control(), worst)
		}
		numtest.ExpectWithin(t, m.Name()+" time of rest", res.Events[len(res.Events)-1].T, tRest, 1e-6)
	}
}
