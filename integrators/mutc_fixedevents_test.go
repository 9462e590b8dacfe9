package integrators

import (
	"errors"
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

// newFixedC returns a fixed-step Stepper of m for sys at (0, y0).
func newFixedC(t *testing.T, m Method, sys System, y0 []float64) Stepper {
	t.Helper()
	st, err := NewStepper(m, sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Init(0, y0); err != nil {
		t.Fatal(err)
	}
	return st
}

// stepBothC takes n steps of dt with a and b in turn.
func stepBothC(t *testing.T, a, b Stepper, n int, dt float64) {
	t.Helper()
	for range n {
		if err := a.Step(dt); err != nil {
			t.Fatal(err)
		}
		if err := b.Step(dt); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFixedStartEventAppliedC: an event due at the start of a run (here
// y' = 4, g = y − 2t rising through 0 at t0, see TestStartDueC) gets its
// reset (y ← 10) before the first fixed step, which then integrates from
// the reset state: RK4 is exact on y' = 4, so y(0.1) = 10.4. The start
// costs one evaluation of f (the probe's direction); the step costs RK4's
// 4, and 4 more for the short re-step that gives the event, unarmed
// after its reset, its reference sign (see scan).
func TestFixedStartEventAppliedC(t *testing.T) {
	sys := &evC{n: 1, dir: 1, f: rateC(4), g: func(t float64, y []float64) float64 { return y[0] - 2*t },
		r: func(t float64, y, dst []float64) { dst[0] = 10 }}
	st := newFixedC(t, RK4{}, sys, []float64{0})
	if err := st.Step(0.1); err != nil {
		t.Fatal(err)
	}
	tt, y := st.State()
	if sys.resets != 1 || tt != 0.1 || math.Abs(y[0]-10.4) > 1e-14 {
		t.Errorf("%d resets, state (%v, %v); want 1 and (0.1, 10.4)", sys.resets, tt, y[0])
	}
	if w := st.Work(); w.FuncEvals != 9 || w.EventsHandled != 1 {
		t.Errorf("work %+v: want 9 evaluations of f (1 at the start, 4 for the step, 4 for the re-step) and 1 event", w)
	}
}

// TestFixedTimeEventSubStepsC: a time event inside a fixed step splits it
// into sub-steps that still cover the whole step: y' = 3·max(0, t − τ)
// with τ = 0.35 and steps of 0.25; RK4 is exact on each linear piece, so
// y(1) = 1.5·(1 − τ)² to rounding (1e-13).
func TestFixedTimeEventSubStepsC(t *testing.T) {
	const tau = 0.35
	st := newFixedC(t, RK4{}, timeKinkC{tau}, []float64{0})
	for range 4 {
		if err := st.Step(0.25); err != nil {
			t.Fatal(err)
		}
	}
	tt, y := st.State()
	want := 1.5 * (1 - tau) * (1 - tau)
	if tt != 1 || math.Abs(y[0]-want) > 1e-13 {
		t.Errorf("state (%v, %v), want (1, %v)", tt, y[0], want)
	}
}

// timeKinkC is y' = 3·max(0, t − τ), with a time event at τ.
type timeKinkC struct{ tau float64 }

func (k timeKinkC) Dim() int { return 1 }
func (k timeKinkC) Func(t float64, y, dst []float64) error {
	dst[0] = 3 * math.Max(0, t-k.tau)
	return nil
}
func (k timeKinkC) NextTimeEvent(t float64) float64 {
	if t < k.tau {
		return k.tau
	}
	return math.Inf(1)
}

// oscZC is the oscillator q” = −q with an extra quantity z' =
// max(0, t − 0.5), exactly 0 until t = 0.5; with events it has the
// falling event g = z, which never fires (z only grows) but is a
// candidate at the step where z leaves 0.
type oscZC struct{}

func (oscZC) Dim() int                { return 3 }
func (oscZC) Pairs() (pos, vel []int) { return []int{0}, []int{1} }
func (oscZC) Func(t float64, y, dst []float64) error {
	dst[0], dst[1], dst[2] = y[1], -y[0], math.Max(0, t-0.5)
	return nil
}

type oscZEventsC struct{ oscZC }

func (oscZEventsC) EventCount() int                          { return 1 }
func (oscZEventsC) EventDirection(int) int                   { return -1 }
func (oscZEventsC) Events(t float64, y, dst []float64) error { dst[0] = y[2]; return nil }
func (oscZEventsC) Reset(int, float64, []float64, []float64) (EventAction, error) {
	return EventContinue, nil
}

// TestUnfiredEventKeepsMemoryC: an event that is checked but does not
// fire leaves the trajectory bit-identical to the run without events,
// also for a method with memory (generalized-alpha carries its
// algorithmic acceleration from step to step): the stepper goes back to
// its own step's end, memory included.
func TestUnfiredEventKeepsMemoryC(t *testing.T) {
	for _, m := range []Method{GeneralizedAlpha{}, Newmark{}, RK4{}} {
		a := newFixedC(t, m, oscZEventsC{}, []float64{1, 0, 0})
		b := newFixedC(t, m, oscZC{}, []float64{1, 0, 0})
		stepBothC(t, a, b, 20, 0.1)
		_, ya := a.State()
		_, yb := b.State()
		if ya[0] != yb[0] || ya[1] != yb[1] || ya[2] != yb[2] || ya[2] == 0 {
			t.Errorf("%s: with the event %v, without %v: want the same bits (and z > 0)", m.Name(), ya, yb)
		}
		if w := a.Work(); w.EventsHandled != 0 {
			t.Errorf("%s: %d events handled", m.Name(), w.EventsHandled)
		}
	}
}

// floorC is the ball of events_test recording the height it is handed at
// each located impact.
type floorC struct {
	ball
	at []float64
}

func (f *floorC) Reset(i int, t float64, y, dst []float64) (EventAction, error) {
	f.at = append(f.at, y[0])
	return f.ball.Reset(i, t, y, dst)
}

// TestFixedEventOnFarSideC: a fixed-step method locates a falling event
// on its far side: the state handed to the reset has height ≤ 0 (within
// 1e-9, the event tolerance times the impact speed), never the last
// near-side iterate.
func TestFixedEventOnFarSideC(t *testing.T) {
	sys := &floorC{ball: ball{g: 9.81, e: 0.8}}
	st := newFixedC(t, RK4{}, sys, []float64{10, 0})
	for range 200 { // 10 s: impacts at 1.43, 3.71, 5.53, 6.99, … s
		if err := st.Step(0.05); err != nil {
			t.Fatal(err)
		}
	}
	if len(sys.at) < 3 {
		t.Fatalf("%d impacts", len(sys.at))
	}
	for k, h := range sys.at {
		if h > 0 || h < -1e-9 {
			t.Errorf("impact %d handed height %v, want in [−1e-9, 0]", k, h)
		}
	}
}

// TestFixedRestoreEventStateC: a checkpoint without event state (G nil,
// as from a stepper of the same method without events) is accepted and
// arms the events from the restored state; a checkpoint taken right
// after Init (no step, no event) still has the events due at the start
// to apply.
func TestFixedRestoreEventStateC(t *testing.T) {
	mk := func() *evC {
		return &evC{n: 1, dir: 1, f: rateC(4), g: func(t float64, y []float64) float64 { return y[0] - 2*t },
			r: func(t float64, y, dst []float64) { dst[0] = 10 }}
	}
	a := newFixedC(t, RK4{}, mk(), []float64{0})
	cp := a.(Checkpointer).Checkpoint()
	sys := mk()
	b, err := NewStepper(RK4{}, sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.(Checkpointer).Restore(cp); err != nil {
		t.Fatal(err)
	}
	if err := b.Step(0.1); err != nil {
		t.Fatal(err)
	}
	if _, y := b.State(); sys.resets != 1 || math.Abs(y[0]-10.4) > 1e-14 {
		t.Errorf("restored at Init: %d resets, y = %v; want the start event applied (1, 10.4)", sys.resets, y[0])
	}
	cp = b.(Checkpointer).Checkpoint()
	cp.G, cp.Disarmed = nil, nil
	c, _ := NewStepper(RK4{}, mk(), nil)
	if err := c.(Checkpointer).Restore(cp); err != nil {
		t.Fatalf("checkpoint without event state: %v", err)
	}
	// y' = 4 from (0.1, 10.4): y(0.2) = 10.8, RK4 being exact.
	if err := c.Step(0.1); err != nil {
		t.Fatal(err)
	}
	if tt, y := c.State(); math.Abs(tt-0.2) > 1e-15 || math.Abs(y[0]-10.8) > 1e-14 {
		t.Errorf("after restoring without event state and a step: (%v, %v), want (0.2, 10.8)", tt, y[0])
	}
}

// TestFixedZenoAcrossRestoreC: the Zeno guard's memory (the count of
// close instants and the last instant) travels in the checkpoint: the
// chattering system restored after every step stops with ZenoDetected
// after as many events, at the same time, as the uninterrupted run.
func TestFixedZenoAcrossRestoreC(t *testing.T) {
	run := func(restore bool) (float64, int) {
		st := newFixedC(t, RK4{}, chatter{}, []float64{1})
		for range 40 {
			if err := st.Step(0.03); err != nil {
				if !errors.Is(err, ErrZeno) {
					t.Fatalf("restore %v: %v", restore, err)
				}
				tt, _ := st.State()
				return tt, st.Work().EventsHandled
			}
			if restore {
				cp := st.(Checkpointer).Checkpoint()
				st, _ = NewStepper(RK4{}, chatter{}, nil)
				if err := st.(Checkpointer).Restore(cp); err != nil {
					t.Fatal(err)
				}
			}
		}
		t.Fatalf("restore %v: no Zeno", restore)
		return 0, 0
	}
	t1, n1 := run(false)
	t2, n2 := run(true)
	if t1 != t2 || n1 != n2 {
		t.Errorf("uninterrupted: Zeno at %v after %d events; restored every step: %v after %d", t1, n1, t2, n2)
	}
}

// TestFixedEventEvalsC: the fixed-step event wrapper evaluates the event
// functions once at Init, once before the first step at t0 − δ (g = z
// is exactly 0 at t0: is it due there?), once at each step's end, and,
// on the step where the unarmed event moves off zero, once more at its
// short probe re-step (oscZEventsC: z leaves 0 in the step ending at
// 0.6) — no redundant evaluation at a step end whose values it already
// holds: 1 + 1 + 20 + 1 = 23 for 20 RK4 steps.
func TestFixedEventEvalsC(t *testing.T) {
	st := newFixedC(t, RK4{}, oscZEventsC{}, []float64{1, 0, 0})
	for range 20 {
		if err := st.Step(0.1); err != nil {
			t.Fatal(err)
		}
	}
	if w := st.Work(); w.EventEvals != 23 {
		t.Errorf("%d evaluations of the events, want 23", w.EventEvals)
	}
}

// TestFixedZenoRestoredAtInitC: a checkpoint taken before any event has
// no last event time: restored, the first instant starts the Zeno count
// afresh, as in an uninterrupted run, even when it comes within the
// Zeno spacing of t = 0 (chatter from y = 1e-10: instants at 1e-10,
// 2e-10, …).
func TestFixedZenoRestoredAtInitC(t *testing.T) {
	run := func(restore bool) int {
		st := newFixedC(t, RK4{}, chatter{}, []float64{1e-10})
		if restore {
			cp := st.(Checkpointer).Checkpoint()
			st, _ = NewStepper(RK4{}, chatter{}, nil)
			if err := st.(Checkpointer).Restore(cp); err != nil {
				t.Fatal(err)
			}
		}
		err := st.Step(0.03)
		if !errors.Is(err, ErrZeno) {
			t.Fatalf("restore %v: %v, want Zeno", restore, err)
		}
		return st.Work().EventsHandled
	}
	if a, b := run(false), run(true); a != b {
		t.Errorf("Zeno after %d events uninterrupted, %d after a restore at Init", a, b)
	}
}

// flakyEventsC is y' = cos(1000·t) (fast, so that a time one ulp off
// changes the rate's bits) with an event that never fires (g = y − 100)
// whose evaluation fails once, at call failAt (0: never).
type flakyEventsC struct {
	calls, failAt int
}

func (f *flakyEventsC) Dim() int { return 1 }
func (f *flakyEventsC) Func(t float64, y, dst []float64) error {
	dst[0] = math.Cos(1000 * t)
	return nil
}
func (f *flakyEventsC) EventCount() int        { return 1 }
func (f *flakyEventsC) EventDirection(int) int { return 0 }
func (f *flakyEventsC) Events(t float64, y, dst []float64) error {
	f.calls++
	if f.calls == f.failAt {
		return errors.New("sensor glitch")
	}
	dst[0] = y[0] - 100
	return nil
}
func (f *flakyEventsC) Reset(int, float64, []float64, []float64) (EventAction, error) {
	return EventContinue, nil
}

// TestFixedRollbackKeepsClockC: a step that fails after the method's
// own step (here the event evaluation at its end) leaves the stepper as
// it was, its step-count clock included: retried, the run goes on bit
// for bit as one that never failed. The failure is at the end of the
// 6th step, from t = 0.5, where 0.5 + 0.1 ≠ 6·0.1 in floating point, so
// a clock restarted at t0 would evaluate f at other times.
func TestFixedRollbackKeepsClockC(t *testing.T) {
	run := func(failAt int) []float64 {
		sys := &flakyEventsC{failAt: failAt}
		st := newFixedC(t, RK4{}, sys, []float64{0})
		failed := 0
		for k := 0; k < 20; {
			if err := st.Step(0.1); err != nil {
				failed++
				if failed > 1 {
					t.Fatal(err)
				}
				continue
			}
			k++
		}
		if failAt > 0 && failed != 1 {
			t.Fatalf("%d failures, want 1", failed)
		}
		_, y := st.State()
		return cloneF(y)
	}
	// Events calls: 1 at Init, then one per step end: the 6th step's is
	// call 7.
	if a, b := run(0), run(7); math.Float64bits(a[0]) != math.Float64bits(b[0]) {
		t.Errorf("after a failed and retried step y(2) = %v, uninterrupted %v", b[0], a[0])
	}
}

// tevC is y' = 1 with a time event at tau and rising state events
// g_i = t − roots[i] (direction dirs[i]); it records the time handed to
// each reset.
type tevC struct {
	tau   float64
	roots []float64
	dirs  []int
	at    [][]float64
}

func (s *tevC) Dim() int                               { return 1 }
func (s *tevC) Func(t float64, y, dst []float64) error { dst[0] = 1; return nil }
func (s *tevC) NextTimeEvent(t float64) float64 {
	if t < s.tau {
		return s.tau
	}
	return math.Inf(1)
}
func (s *tevC) EventCount() int          { return len(s.roots) }
func (s *tevC) EventDirection(i int) int { return s.dirs[i] }
func (s *tevC) Events(t float64, y, dst []float64) error {
	for i, r := range s.roots {
		dst[i] = t - r
	}
	return nil
}
func (s *tevC) Reset(i int, t float64, y, dst []float64) (EventAction, error) {
	if s.at == nil {
		s.at = make([][]float64, len(s.roots))
	}
	s.at[i] = append(s.at[i], t)
	return EventContinue, nil
}

// TestFixedEventAtTimeEventC: a state event whose root lies closer than
// the event tolerance (1e-12) below a time event τ is the same instant
// as τ: its reset is applied at τ itself, not at the left limit where
// the sub-step before τ ends (RK4, steps of 0.25, τ = 0.35; roots τ and
// τ − 1e-14, τ − 1e-13, τ − 5e-13).
func TestFixedEventAtTimeEventC(t *testing.T) {
	const tau = 0.35
	for _, d := range []float64{0, 1e-14, 1e-13, 5e-13} {
		s := &tevC{tau: tau, roots: []float64{tau - d}, dirs: []int{1}}
		st := newFixedC(t, RK4{}, s, []float64{0})
		for range 4 {
			if err := st.Step(0.25); err != nil {
				t.Fatal(err)
			}
		}
		if len(s.at) != 1 || len(s.at[0]) != 1 || s.at[0][0] != tau {
			t.Errorf("root τ − %g: resets at %v, want one at τ = %v", d, s.at, tau)
		}
	}
}

// TestFixedTwoEventsInOneStepC: two events crossing inside one fixed
// step fire each at its own time: g0 = t − 0.3 (rising) and g1 = t − 0.4
// (either direction) in the step [0.25, 0.5]. At the first instant the
// second event is still on its near side (−0.1): it must not fire there.
func TestFixedTwoEventsInOneStepC(t *testing.T) {
	s := &tevC{tau: math.Inf(1), roots: []float64{0.3, 0.4}, dirs: []int{1, 0}}
	st := newFixedC(t, RK4{}, s, []float64{0})
	for range 4 {
		if err := st.Step(0.25); err != nil {
			t.Fatal(err)
		}
	}
	if len(s.at) != 2 || len(s.at[0]) != 1 || len(s.at[1]) != 1 ||
		math.Abs(s.at[0][0]-0.3) > 1e-12 || math.Abs(s.at[1][0]-0.4) > 1e-12 {
		t.Errorf("resets at %v, want event 0 at 0.3 and event 1 at 0.4 (to 1e-12, the event tolerance)", s.at)
	}
}

// TestFixedTimeEventWithinToleranceC: a time event closer to the step's
// start than the event tolerance (1e-12 at t = 0) is the same instant as
// the start: no sub-step is taken before it (a step of a few ulps would
// only corrupt a multistep history), so the 1e-12 s before it are not
// integrated; here the distance equals the tolerance exactly (τ = 1e-12).
// y' = 1 with RK4: y(0.25) = 0.25 − 1e-12, to rounding (1e-15).
func TestFixedTimeEventWithinToleranceC(t *testing.T) {
	st := newFixedC(t, RK4{}, &tevC{tau: 1e-12}, []float64{0})
	if err := st.Step(0.25); err != nil {
		t.Fatal(err)
	}
	if _, y := st.State(); math.Abs(y[0]-(0.25-1e-12)) > 1e-15 {
		t.Errorf("y(0.25) = %v, want 0.25 − 1e-12", y[0])
	}
}

// metronomeC has time events at the multiples of 1/8 and one event whose
// k-th root lies 5e-13 (within the event tolerance) below k/8, so that
// its instants are exactly the time events (see
// TestFixedEventAtTimeEventC); y counts the resets. It records the
// instants.
type metronomeC struct{ at []float64 }

func (s *metronomeC) Dim() int                               { return 1 }
func (s *metronomeC) Func(t float64, y, dst []float64) error { dst[0] = 0; return nil }
func (s *metronomeC) NextTimeEvent(t float64) float64        { return (math.Floor(t/0.125) + 1) * 0.125 }
func (s *metronomeC) EventCount() int                        { return 1 }
func (s *metronomeC) EventDirection(int) int                 { return 1 }
func (s *metronomeC) Events(t float64, y, dst []float64) error {
	dst[0] = t - ((y[0]+1)*0.125 - 5e-13)
	return nil
}
func (s *metronomeC) Reset(i int, t float64, y, dst []float64) (EventAction, error) {
	s.at = append(s.at, t)
	dst[0] = y[0] + 1
	return EventContinue, nil
}

// TestFixedZenoSpacingStrictC: the Zeno guard counts instants closer
// than ZenoSpacing to the previous one, strictly: instants exactly 1/8 s
// apart with ZenoSpacing 1/8 run on (8 instants in 1 s), with ZenoSpacing
// 1/4 the fourth ends the run (ZenoLimit 3).
func TestFixedZenoSpacingStrictC(t *testing.T) {
	for _, tc := range []struct {
		spacing float64
		zeno    bool
	}{{0.125, false}, {0.25, true}} {
		s := &metronomeC{}
		st, err := NewStepper(RK4{}, s, &DriverOptions{ZenoSpacing: tc.spacing, ZenoLimit: 3})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Init(0, []float64{0}); err != nil {
			t.Fatal(err)
		}
		for range 10 {
			if err = st.Step(0.1); err != nil {
				break
			}
		}
		if got := errors.Is(err, ErrZeno); got != tc.zeno {
			t.Errorf("ZenoSpacing %v: err %v, want Zeno %v", tc.spacing, err, tc.zeno)
		}
		for k, te := range s.at {
			if te != float64(k+1)*0.125 {
				t.Errorf("ZenoSpacing %v: instant %d at %v, want %v", tc.spacing, k, te, float64(k+1)*0.125)
			}
		}
		if !tc.zeno && len(s.at) != 8 {
			t.Errorf("ZenoSpacing %v: %d instants, want 8", tc.spacing, len(s.at))
		}
	}
}

// twoClocksC is y' = 1 with time events at t1 and t2.
type twoClocksC struct{ t1, t2 float64 }

func (c twoClocksC) Dim() int                               { return 1 }
func (c twoClocksC) Func(t float64, y, dst []float64) error { dst[0] = 1; return nil }
func (c twoClocksC) NextTimeEvent(t float64) float64 {
	switch {
	case t < c.t1:
		return c.t1
	case t < c.t2:
		return c.t2
	}
	return math.Inf(1)
}

// TestFixedCloseTimeEventsC: two time events closer than the event
// tolerance inside one step are one instant: the sub-step between them
// is not taken (the 5e-13 s between them are not integrated), and the
// step goes on to its end: y' = 1 with RK4 over [0.25, 0.5] and time
// events at 0.3 and 0.3 + 5e-13 gives y(0.5) = 0.5 − 5e-13 (to 1e-15).
func TestFixedCloseTimeEventsC(t *testing.T) {
	st := newFixedC(t, RK4{}, twoClocksC{0.3, 0.3 + 5e-13}, []float64{0})
	for range 2 {
		if err := st.Step(0.25); err != nil {
			t.Fatal(err)
		}
	}
	if tt, y := st.State(); tt != 0.5 || math.Abs(y[0]-(0.5-5e-13)) > 1e-15 {
		t.Errorf("state (%v, %v), want (0.5, 0.5 − 5e-13)", tt, y[0])
	}
}

// TestFixedLocatedStateFarSideC: the state a fixed-step method hands to
// a reset is the one at the located offset, on the event's far side,
// whichever side the locator's last trial fell on: y' = 1 (y = t, RK4
// exact) with the rising event g = y − r, for 199 roots r = 0.0049·k
// over four steps of 0.3: every reset sees y ≥ r.
func TestFixedLocatedStateFarSideC(t *testing.T) {
	for k := 1; k < 200; k++ {
		r := float64(k) * 0.0049
		var got []float64
		s := &evC{n: 1, dir: 1, f: rateC(1), g: func(t float64, y []float64) float64 { return y[0] - r },
			r: func(t float64, y, dst []float64) { got = append(got, y[0]) }}
		st := newFixedC(t, RK4{}, s, []float64{0})
		for range 4 {
			if err := st.Step(0.3); err != nil {
				t.Fatal(err)
			}
		}
		if len(got) != 1 || got[0] < r || got[0]-r > 1e-12 {
			t.Errorf("root %v: resets saw %v, want one state in [r, r + 1e-12]", r, got)
		}
	}
}
