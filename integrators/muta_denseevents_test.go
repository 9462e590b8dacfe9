package integrators

import (
	"errors"
	"math"
	"testing"
)

// evSysA is an EventSystem put together from functions: f the
// right-hand side, g the event functions (dirs their directions),
// reset the resets (nil: EventContinue, state unchanged).
type evSysA struct {
	n     int
	f     func(t float64, y, d []float64)
	g     func(t float64, y, d []float64) error
	dirs  []int
	reset func(i int, t float64, y, d []float64)
}

func (s evSysA) Dim() int { return s.n }
func (s evSysA) Func(t float64, y, d []float64) error {
	s.f(t, y, d)
	return nil
}
func (s evSysA) EventCount() int                        { return len(s.dirs) }
func (s evSysA) EventDirection(i int) int               { return s.dirs[i] }
func (s evSysA) Events(t float64, y, d []float64) error { return s.g(t, y, d) }
func (s evSysA) Reset(i int, t float64, y, d []float64) (EventAction, error) {
	if s.reset != nil {
		s.reset(i, t, y, d)
	}
	return EventContinue, nil
}

// unitRateA is y' = 1 (y = y0 + t − t0, which every method here
// integrates exactly) with the events g.
func unitRateA(g func(t float64, y, d []float64) error, dirs ...int) evSysA {
	return evSysA{n: 1, f: func(_ float64, _, d []float64) { d[0] = 1 }, g: g, dirs: dirs}
}

// The adaptive drivers that locate events on their dense output (BDF
// also at MaxOrder 1, whose history has the fewest vectors).
func denseDriversA(c StepControl) []AdaptiveMethod {
	return []AdaptiveMethod{BDF{}.WithControl(c), BDF{MaxOrder: 1}.WithControl(c), ESDIRK43{}.WithControl(c), ESDIRK32{}.WithControl(c)}
}

// After a step that an event truncated, Dense is the step's interpolant
// inside it and the state before the reset at the event time (Driver
// Dense): y = t rising through 0.5 and reset to 0, over a first step of
// 0.8, so Dense(0.25) = 0.25 and Dense(te) = te (y = t is integrated
// exactly: the tolerance 1e-9 covers rounding and the event tolerance).
// The truncated step counts as a step (Work.Steps).
func TestDenseInsideEventStepA(t *testing.T) {
	sys := unitRateA(func(_ float64, y, d []float64) error { d[0] = y[0] - 0.5; return nil }, 1)
	sys.reset = func(_ int, _ float64, _, d []float64) { d[0] = 0 }
	for _, m := range denseDriversA(StepControl{InitialStep: 0.8}) {
		d, err := m.NewDriver(sys, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Init(0, []float64{0}); err != nil {
			t.Fatal(err)
		}
		rep, err := d.Step(1)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Event != 0 || math.Abs(rep.T1-0.5) > 1e-9 || d.Work().Steps != 1 {
			t.Fatalf("%s: %+v, want the event at 0.5", m.Name(), rep)
		}
		y := []float64{0}
		for _, tt := range []float64{0.25, rep.T1} {
			d.Dense(tt, y)
			if math.Abs(y[0]-tt) > 1e-9 {
				t.Errorf("%s: Dense(%v) = %v, want %v", m.Name(), tt, y[0], tt)
			}
		}
	}
}

// Two events whose located times are exactly the event tolerance apart
// are two instants when the later one has not crossed at the first
// (eventCore.markDue: an event fires at an instant only once its
// function has crossed there, so that its reset runs once, at its own
// root). Pure functions of time, g₀ = t − 1/4 and g₁ = t − (1/4 + 2⁻¹⁰),
// over one step [0, 1] of y' = 0: the first regula falsi trial of each
// lands exactly on its root (dyadic numbers, exact arithmetic), so they
// are located at 1/4 and 1/4 + 2⁻¹⁰, and EventTol = 2⁻¹⁰.
func TestEventsExactlyTolApartFireSeparatelyA(t *testing.T) {
	sys := evSysA{n: 1, f: func(_ float64, _, d []float64) { d[0] = 0 },
		g: func(t float64, _, d []float64) error {
			d[0], d[1] = t-0.25, t-(0.25+0x1p-10)
			return nil
		}, dirs: []int{1, 1}}
	for _, m := range denseDriversA(StepControl{InitialStep: 1}) {
		fired := firingsTo1(t, m, sys, 0x1p-10)
		if len(fired) != 2 || fired[0] != [2]float64{0, 0.25} || fired[1] != [2]float64{1, 0.25 + 0x1p-10} {
			t.Errorf("%s: resets (event, time) %v, want event 0 at 0.25 and event 1 at 0.25 + 2^-10, once each", m.Name(), fired)
		}
	}
}

// An error from the event functions at a trial point inside a step is a
// StepError naming the step's time and size: events at a root of
// y − 2.5 over the step [2, 3] (t0 = 2, InitialStep 1), with g failing
// strictly inside the step; and an event function zero at t0 = 2
// (unarmed, falling, so not due at the start), whose reference is
// probed just after the start, failing there.
func TestEventErrorInsideStepNamesStepA(t *testing.T) {
	bad := errors.New("event function failed")
	for _, c := range []struct {
		name string
		g    func(t float64, y, d []float64) error
		dir  int
	}{
		{"trial", func(t float64, y, d []float64) error {
			if t > 2 && t < 3 {
				return bad
			}
			d[0] = y[0] - 2.5
			return nil
		}, 1},
		{"probe", func(t float64, y, d []float64) error {
			if t > 2 && t < 2.001 {
				return bad
			}
			d[0] = y[0] - 2
			return nil
		}, -1},
	} {
		for _, m := range denseDriversA(StepControl{InitialStep: 1}) {
			d, err := m.NewDriver(unitRateA(c.g, c.dir), nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Init(2, []float64{2}); err != nil {
				t.Fatal(err)
			}
			_, err = d.Step(3)
			se := stepErrA(t, err)
			if !errors.Is(err, bad) || se.Dt != 1 {
				t.Errorf("%s %s: %+v, want the event error with Dt = 1", c.name, m.Name(), se)
			}
		}
	}
}

// An event function zero at the start of a step is probed for its
// reference sign 64·EventTol after the start, and not when the step is
// no longer than that: with EventTol = 2⁻²⁰ and a step of exactly
// 64·2⁻²⁰ = 2⁻¹⁴ the event functions are evaluated three times: at
// Init, behind t0 for the events due at the start (g = 0 there), and at
// the step's end.
func TestUnarmedEventNotProbedPastStepA(t *testing.T) {
	sys := unitRateA(func(_ float64, y, d []float64) error { d[0] = y[0]; return nil }, -1)
	for _, m := range denseDriversA(StepControl{InitialStep: 1}) {
		d, err := m.NewDriver(sys, &DriverOptions{EventTol: 0x1p-20})
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Init(0, []float64{0}); err != nil {
			t.Fatal(err)
		}
		rep, err := d.Step(0x1p-14)
		if err != nil {
			t.Fatal(err)
		}
		if w := d.Work(); rep.T1 != 0x1p-14 || w.EventEvals != 3 {
			t.Errorf("%s: step to %v with %d event evaluations, want 2⁻¹⁴ with 3", m.Name(), rep.T1, w.EventEvals)
		}
	}
}

// A checkpoint taken right after Init restores a driver that has not
// started: the events due at t0 still fire at its first Step (y = t from
// 0, g = y rising: zero at t0 and below zero just before it), and the
// Zeno guard has no previous instant (ZenoLimit 1 and ZenoSpacing 1: an
// event 0.5 after t0 is the run's first instant, not a second one too
// close to another).
func TestRestoreAfterInitA(t *testing.T) {
	due := unitRateA(func(_ float64, y, d []float64) error { d[0] = y[0]; return nil }, 1)
	due.reset = func(_ int, _ float64, _, d []float64) { d[0] = 1 }
	later := unitRateA(func(_ float64, y, d []float64) error { d[0] = y[0] - 0.5; return nil }, 1)
	o := &DriverOptions{ZenoLimit: 1, ZenoSpacing: 1}
	for _, m := range denseDriversA(StepControl{InitialStep: 1}) {
		for _, c := range []struct {
			name string
			sys  evSysA
			t1   float64
		}{{"due at t0", due, 0}, {"first event", later, 0.5}} {
			d0, err := m.NewDriver(c.sys, o)
			if err != nil {
				t.Fatal(err)
			}
			if err := d0.Init(0, []float64{0}); err != nil {
				t.Fatal(err)
			}
			cp := d0.Checkpoint()
			d, err := m.NewDriver(c.sys, o)
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Restore(cp); err != nil {
				t.Fatal(err)
			}
			rep, err := d.Step(1)
			if err != nil {
				t.Fatalf("%s %s: %v", c.name, m.Name(), err)
			}
			if rep.Event != 0 || math.Abs(rep.T1-c.t1) > 1e-9 {
				t.Errorf("%s %s: %+v, want event 0 at %v", c.name, m.Name(), rep, c.t1)
			}
		}
	}
}
