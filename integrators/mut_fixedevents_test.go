package integrators

import (
	"errors"
	"testing"
)

// resetLogI is an EventSystem of y' = 1 (y = y0 + t − t0, which RK4
// integrates exactly) with event functions g and directions dirs whose
// resets leave the state unchanged and record, per event, the times
// they were applied.
type resetLogI struct {
	g    func(t float64, y, d []float64)
	dirs []int
	at   [][]float64
}

func (s *resetLogI) Dim() int                               { return 1 }
func (s *resetLogI) Func(_ float64, _, d []float64) error   { d[0] = 1; return nil }
func (s *resetLogI) EventCount() int                        { return len(s.dirs) }
func (s *resetLogI) EventDirection(i int) int               { return s.dirs[i] }
func (s *resetLogI) Events(t float64, y, d []float64) error { s.g(t, y, d); return nil }
func (s *resetLogI) Reset(i int, t float64, y, d []float64) (EventAction, error) {
	if s.at == nil {
		s.at = make([][]float64, len(s.dirs))
	}
	s.at[i] = append(s.at[i], t)
	copy(d, y)
	return EventContinue, nil
}

// fixedRunI runs RK4 through the event stepper on s from (t0, y0) for n
// steps of dt with the event tolerance tol.
func fixedRunI(t *testing.T, s *resetLogI, tol, t0, y0, dt float64, n int) {
	t.Helper()
	st, err := NewStepper(RK4{}, s, &DriverOptions{EventTol: tol})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Init(t0, []float64{y0}); err != nil {
		t.Fatal(err)
	}
	for range n {
		if err := st.Step(dt); err != nil {
			t.Fatal(err)
		}
	}
}

// The fixed-step methods apply at an instant only the events that have
// crossed there (eventCore.markDue), as the adaptive drivers do
// (TestEventsExactlyTolApartFireSeparatelyA): pure functions of time
// g₀ = t − 1/4 and g₁ = t − (1/4 + 2⁻¹⁰) over one step [0, 1] with
// EventTol = 2⁻¹⁰. The first regula falsi trial of each lands exactly on
// its root (dyadic numbers: the secant of a linear function is exact),
// so the two are located exactly the tolerance apart. At the instant
// 1/4, g₁ has not crossed yet: its reset runs once, at its own root,
// not at 1/4 and again at its root.
func TestFixedEventsExactlyTolApartFireSeparatelyI(t *testing.T) {
	s := &resetLogI{g: func(t float64, _, d []float64) { d[0], d[1] = t-0.25, t-(0.25+0x1p-10) }, dirs: []int{1, 1}}
	fixedRunI(t, s, 0x1p-10, 0, 0, 1, 1)
	if len(s.at) != 2 || len(s.at[0]) != 1 || len(s.at[1]) != 1 || s.at[0][0] != 0.25 || s.at[1][0] != 0.25+0x1p-10 {
		t.Errorf("resets at %v, want event 0 once at 0.25, event 1 once at 0.25 + 2^-10", s.at)
	}
}

// Far from t = 0, as above: over the step [2²⁰, 2²⁰ + 1] the events
// g₀ = t − (2²⁰ + 1/4) and g₁ = t − (2²⁰ + 1/4 + 2⁻³⁰) are located
// exactly on their roots (dyadic, as above), 2⁻³⁰ apart, below the
// event tolerance there (4ε|t| = 2⁻³⁰ + 2⁻⁵², larger than EventTol =
// 1e-12). They are still two instants: at the first, g₁ has not
// crossed, and each reset runs once, at its own root.
func TestFixedEventsCloserThanTolFireSeparatelyI(t *testing.T) {
	const t0 = 0x1p20
	s := &resetLogI{g: func(t float64, _, d []float64) { d[0], d[1] = t-(t0+0.25), t-(t0+0.25+0x1p-30) }, dirs: []int{1, 1}}
	fixedRunI(t, s, 1e-12, t0, 0, 1, 1)
	if len(s.at) != 2 || len(s.at[0]) != 1 || len(s.at[1]) != 1 || s.at[0][0] != t0+0.25 || s.at[1][0] != t0+0.25+0x1p-30 {
		t.Errorf("resets at %v, want event 0 once at 2^20 + 0.25, event 1 once at 2^20 + 0.25 + 2^-30", s.at)
	}
}

// An event function zero at the start of a run and not due there
// (unarmed) takes its reference sign a short re-step later, inside the
// sub-step, even when the step is shorter than 128 event tolerances:
// y' = 1 from y(0) = 0, g = y·(0.006 − y) falling (dir −1), RK4 steps of
// 0.01 and EventTol = 1e-3. g leaves 0 upwards and falls through 0 at
// y = t = 0.006, inside the first step, so the event fires once there:
// on the far side of the root and within the tolerance, t in
// [0.006, 0.007]. (Not due at the start: backwards along f, g < 0 is on
// the far side of a falling event.)
func TestFixedUnarmedProbeInsideShortStepI(t *testing.T) {
	s := &resetLogI{g: func(_ float64, y, d []float64) { d[0] = y[0] * (0.006 - y[0]) }, dirs: []int{-1}}
	fixedRunI(t, s, 1e-3, 0, 0, 0.01, 3)
	if len(s.at) != 1 || len(s.at[0]) != 1 || s.at[0][0] < 0.006 || s.at[0][0] > 0.007 {
		t.Errorf("resets at %v, want one in [0.006, 0.007]", s.at)
	}
}

// plainEulerI is a caller-defined method (explicit Euler) whose Stepper
// has no checkpoints, so that the event handling re-steps it from
// states (reinit) rather than restoring it; its Step records any dt
// that the Stepper contract forbids (dt ≤ 0 "panics") instead of
// panicking, for the test to report.
type plainEulerI struct{ bad *[]float64 }

func (plainEulerI) Name() string { return "plain-euler-test" }
func (plainEulerI) Order() int   { return 1 }
func (m plainEulerI) New(sys System, _ *DriverOptions) (Stepper, error) {
	n := sys.Dim()
	return &plainEulerStepperI{sys: sys, bad: m.bad, y: make([]float64, n), k: make([]float64, n)}, nil
}

type plainEulerStepperI struct {
	sys  System
	bad  *[]float64
	t    float64
	y, k []float64
}

func (s *plainEulerStepperI) Method() string              { return "plain-euler-test" }
func (s *plainEulerStepperI) Order() int                  { return 1 }
func (s *plainEulerStepperI) Work() Work                  { return Work{} }
func (s *plainEulerStepperI) State() (float64, []float64) { return s.t, s.y }
func (s *plainEulerStepperI) Init(t0 float64, y0 []float64) error {
	s.t = t0
	copy(s.y, y0)
	return nil
}
func (s *plainEulerStepperI) Step(dt float64) error {
	if !(dt > 0) {
		*s.bad = append(*s.bad, dt)
		return nil
	}
	if err := s.sys.Func(s.t, s.y, s.k); err != nil {
		return err
	}
	for i := range s.y {
		s.y[i] += dt * s.k[i]
	}
	s.t += dt
	return nil
}

// An event exactly at the end of a step ends the step there: y' = 1
// from 0 (explicit Euler is exact on it), g = y − 1 rising, whose root
// t = 1 is the end of the fourth step of 0.25 (exact dyadic
// arithmetic), and a reset y → y + 1/2 that leaves g on its far side.
// The event fires once, at t = 1; the method's Stepper (one without
// checkpoints, see plainEulerI) is never asked for a step of dt ≤ 0,
// which the Stepper contract forbids; after 8 steps y = 2 + 1/2.
func TestFixedEventAtStepEndI(t *testing.T) {
	var bad []float64
	s := &resetLogI{g: func(_ float64, y, d []float64) { d[0] = y[0] - 1 }, dirs: []int{1}}
	st, err := NewStepper(plainEulerI{&bad}, &halfKickI{s}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Init(0, []float64{0}); err != nil {
		t.Fatal(err)
	}
	for range 8 {
		if err := st.Step(0.25); err != nil {
			t.Fatal(err)
		}
	}
	if tt, y := st.State(); tt != 2 || y[0] != 2.5 || len(s.at) != 1 || len(s.at[0]) != 1 || s.at[0][0] != 1 || len(bad) != 0 {
		t.Errorf("state (%v, %v), resets at %v, inner steps of dt ≤ 0: %v; want (2, 2.5), one reset at 1, none", tt, y[0], s.at, bad)
	}
}

// halfKickI is resetLogI whose reset adds 1/2 to y.
type halfKickI struct{ *resetLogI }

func (s *halfKickI) Reset(i int, t float64, y, d []float64) (EventAction, error) {
	act, err := s.resetLogI.Reset(i, t, y, d)
	d[0] = y[0] + 0.5
	return act, err
}

// countFailI is halfKickI whose failAt-th evaluation of f fails (0:
// none); calls counts the evaluations.
type countFailI struct {
	*halfKickI
	calls, failAt int
}

func (s *countFailI) Func(t float64, y, d []float64) error {
	s.calls++
	if s.calls == s.failAt {
		return errors.New("transient failure of f")
	}
	return s.halfKickI.Func(t, y, d)
}

// No failure of the System is lost in the event handling's re-steps: on
// the problem of TestFixedEventAtStepEndI (8 steps of 0.25 with a
// Stepper without checkpoints, which the event handling re-steps from
// states, here also after the instant, where the fired event is unarmed
// and every step is searched again), a run whose k-th evaluation of f
// fails must return an error from some Step, for every k up to the
// number of evaluations of a run without failure.
func TestFixedEventReStepErrorsReportedI(t *testing.T) {
	run := func(failAt int) (calls int, err error) {
		var bad []float64
		s := &countFailI{halfKickI: &halfKickI{&resetLogI{g: func(_ float64, y, d []float64) { d[0] = y[0] - 1 }, dirs: []int{1}}}, failAt: failAt}
		st, err := NewStepper(plainEulerI{&bad}, s, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Init(0, []float64{0}); err != nil {
			t.Fatal(err)
		}
		for range 8 {
			if err := st.Step(0.25); err != nil {
				return s.calls, err
			}
		}
		return s.calls, nil
	}
	n, err := run(0)
	if err != nil {
		t.Fatal(err)
	}
	for k := 1; k <= n; k++ {
		if _, err := run(k); err == nil {
			t.Errorf("evaluation %d of %d failed and no Step returned an error", k, n)
		}
	}
}
