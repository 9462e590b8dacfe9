package integrators

import (
	"fmt"
	"testing"
)

// countOnce is a system of two counters (y' = 0) and two rising events,
// pure functions of time, g₀ = t − 1/4 and g₁ = t − (1/4 + δ); the reset
// of event i adds one to counter i and records when it ran.
type countOnce struct {
	delta float64
	at    [2][]float64
}

func (s *countOnce) Dim() int                             { return 2 }
func (s *countOnce) Func(_ float64, _, d []float64) error { d[0], d[1] = 0, 0; return nil }
func (s *countOnce) EventCount() int                      { return 2 }
func (s *countOnce) EventDirection(int) int               { return 1 }
func (s *countOnce) Events(t float64, _, d []float64) error {
	d[0], d[1] = t-0.25, t-(0.25+s.delta)
	return nil
}
func (s *countOnce) Reset(i int, t float64, y, d []float64) (EventAction, error) {
	d[i] = y[i] + 1
	s.at[i] = append(s.at[i], t)
	return EventContinue, nil
}

// check reports what is wrong with a run to t = 1 that ended with the
// state y: each crossing's reset runs exactly once, at a time on the
// far side of its root within the event tolerance tol of it.
func (s *countOnce) check(y []float64, tol float64) error {
	roots := [2]float64{0.25, 0.25 + s.delta}
	for i, r := range roots {
		if y[i] != 1 || len(s.at[i]) != 1 {
			return fmt.Errorf("event %d (root %v): counter %v, resets at %v, want exactly one", i, r, y[i], s.at[i])
		}
		if te := s.at[i][0]; te < r || te > r+tol {
			return fmt.Errorf("event %d (root %v): reset at %v, want in [root, root + %v]", i, r, te, tol)
		}
	}
	return nil
}

// Two events whose roots are closer than the event tolerance, the later
// one not yet crossed at the instant of the earlier: each reset runs
// exactly once (a reset map applied twice for one crossing would count
// a counter up twice or give an impulse twice). The later event fires at
// its own root, the earlier at its own: the roots are 2⁻¹¹ apart, the
// tolerance 2⁻¹⁰, dyadic numbers that the Illinois method locates
// exactly (secants of linear functions), so the located times must be
// within the tolerance of the roots on their far side. Fixed-step RK4
// in one step over both roots and in steps of 1/8, Dormand–Prince and
// the drivers that locate on their dense output (BDF, BDF-1, ESDIRK43,
// ESDIRK32), over one trial step of 1.
func TestEventWithinTolOfAnotherFiresOnce(t *testing.T) {
	const tol = 0x1p-10
	for _, dt := range []float64{1, 0.125} {
		s := &countOnce{delta: 0x1p-11}
		st, err := NewStepper(RK4{}, s, &DriverOptions{EventTol: tol})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Init(0, []float64{0, 0}); err != nil {
			t.Fatal(err)
		}
		for range int(1 / dt) {
			if err := st.Step(dt); err != nil {
				t.Fatal(err)
			}
		}
		_, y := st.State()
		if err := s.check(y, tol); err != nil {
			t.Errorf("rk4, steps of %v: %v", dt, err)
		}
	}
	c := StepControl{InitialStep: 1}
	for _, m := range append([]AdaptiveMethod{DormandPrince{}.WithControl(c)}, denseDriversA(c)...) {
		s := &countOnce{delta: 0x1p-11}
		d, err := m.NewDriver(s, &DriverOptions{EventTol: tol})
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Init(0, []float64{0, 0}); err != nil {
			t.Fatal(err)
		}
		for tt := 0.0; tt < 1; {
			rep, err := d.Step(1)
			if err != nil {
				t.Fatal(err)
			}
			tt = rep.T1
		}
		_, y := d.State()
		if err := s.check(y, tol); err != nil {
			t.Errorf("%s: %v", m.Name(), err)
		}
	}
}

// An event whose root lies before the instant, though the Illinois
// method located it later, fires at that instant with the earliest
// located event: g₀ = t − r₀ (r₀ = 1/4 − 2⁻¹², located exactly, the
// first secant of a linear function) and g₁ a step from −1 to +1 at
// r₁ = 1/4 − 2⁻¹¹ < r₀, on which the Illinois iteration over [0, 1] from
// (−1, +1) keeps 1/4 as its far-side end (a dyadic bracket end within
// EventTol = 2⁻¹⁰ of r₁), so g₁ is located 2⁻¹² after r₀. At r₀, g₁ has
// crossed: both resets run there, once each, in one instant.
func TestEventCrossedAtInstantFiresWithIt(t *testing.T) {
	const tol = 0x1p-10
	r0, r1 := 0.25-0x1p-12, 0.25-0x1p-11
	g := func(t float64, _, d []float64) error {
		d[0], d[1] = t-r0, -1
		if t >= r1 {
			d[1] = 1
		}
		return nil
	}
	if te, _ := illinois(1, 0, -1, 1, 1, 0, tol, func(c float64) (float64, error) {
		d := []float64{0, 0}
		_ = g(c, nil, d)
		return d[1], nil
	}); te != 0.25 {
		t.Fatalf("g₁ located at %v, want 0.25 (after r₀, as the test needs)", te)
	}
	want := [][]float64{{r0}, {r0}}
	s := &resetLogI{g: func(t float64, y, d []float64) { _ = g(t, y, d) }, dirs: []int{1, 1}}
	fixedRunI(t, s, tol, 0, 0, 1, 1)
	if len(s.at) != 2 || len(s.at[0]) != 1 || len(s.at[1]) != 1 || s.at[0][0] != want[0][0] || s.at[1][0] != want[1][0] {
		t.Errorf("rk4: resets at %v, want %v", s.at, want)
	}
	sys := evSysA{n: 1, f: func(_ float64, _, d []float64) { d[0] = 0 }, g: g, dirs: []int{1, 1}}
	c := StepControl{InitialStep: 1}
	for _, m := range append([]AdaptiveMethod{DormandPrince{}.WithControl(c)}, denseDriversA(c)...) {
		fired := firingsTo1(t, m, sys, tol)
		if len(fired) != 2 || fired[0] != [2]float64{0, r0} || fired[1] != [2]float64{1, r0} {
			t.Errorf("%s: resets (event, time) %v, want both at %v once", m.Name(), fired, r0)
		}
	}
}

// Two events whose roots both lie in the final bracket of the earliest
// one's location fire together at its right end, where both have
// crossed: g₀ and g₁ step from −1 to +1 at r₀ = 0.3 and at r₁, halfway
// between r₀ and the point te > r₀ at which the Illinois method over
// [0, 1] locates g₀ (computed here; EventTol = 2⁻¹⁰). The two functions
// agree at every trial point (none falls in (r₀, te)), so both are
// located at te, and both have crossed there (at the last near-side
// trial neither has): one instant at te, one reset each.
func TestEventsInFinalBracketFireTogether(t *testing.T) {
	const tol, r0 = 0x1p-10, 0.3
	step := func(r float64) func(float64) float64 {
		return func(t float64) float64 {
			if t >= r {
				return 1
			}
			return -1
		}
	}
	te, _ := illinois(1, 0, -1, 1, 1, 0, tol, func(c float64) (float64, error) { return step(r0)(c), nil })
	if !(te > r0 && te-r0 <= tol) {
		t.Fatalf("g₀ located at %v, want in (%v, %v]", te, r0, r0+tol)
	}
	r1 := r0 + (te-r0)/2
	g0, g1 := step(r0), step(r1)
	sys := evSysA{n: 1, f: func(_ float64, _, d []float64) { d[0] = 0 },
		g: func(t float64, _, d []float64) error {
			d[0], d[1] = g0(t), g1(t)
			return nil
		}, dirs: []int{1, 1}}
	c := StepControl{InitialStep: 1}
	for _, m := range append([]AdaptiveMethod{DormandPrince{}.WithControl(c)}, denseDriversA(c)...) {
		fired := firingsTo1(t, m, sys, tol)
		if len(fired) != 2 || fired[0] != [2]float64{0, te} || fired[1] != [2]float64{1, te} {
			t.Errorf("%s: resets (event, time) %v, want both at %v once", m.Name(), fired, te)
		}
	}
	s := &resetLogI{g: func(t float64, _, d []float64) { d[0], d[1] = g0(t), g1(t) }, dirs: []int{1, 1}}
	fixedRunI(t, s, tol, 0, 0, 1, 1)
	if len(s.at) != 2 || len(s.at[0]) != 1 || len(s.at[1]) != 1 || s.at[0][0] != te || s.at[1][0] != te {
		t.Errorf("rk4: resets at %v, want both once at %v", s.at, te)
	}
}

// The fixed-step instant is applied to the far-side state of the
// earliest location: with event functions of the state rather than of
// time (RK4 integrates y' = 1 from y(0) = 0 exactly, y = t), steps from
// −1 to +1 at y = 0.3 and halfway to where the Illinois method locates
// the first, as above: both fire once at te, on the state y = te, where
// both have crossed.
func TestFixedEventsInFinalBracketFireOnFarSideState(t *testing.T) {
	const tol, r0 = 0x1p-10, 0.3
	step := func(r, y float64) float64 {
		if y >= r {
			return 1
		}
		return -1
	}
	te, _ := illinois(1, 0, -1, 1, 1, 0, tol, func(c float64) (float64, error) { return step(r0, c), nil })
	r1 := r0 + (te-r0)/2
	s := &resetLogI{g: func(_ float64, y, d []float64) {
		d[0], d[1] = step(r0, y[0]), step(r1, y[0])
	}, dirs: []int{1, 1}}
	fixedRunI(t, s, tol, 0, 0, 1, 1)
	if len(s.at) != 2 || len(s.at[0]) != 1 || len(s.at[1]) != 1 || s.at[0][0] != te || s.at[1][0] != te {
		t.Errorf("resets at %v, want both once at %v", s.at, te)
	}
}

// firingsTo1 runs the adaptive method m on sys, a one-state system, from
// y(0) = 0 to t = 1 with the event tolerance tol and returns every reset
// it applied as (event index, instant time), in order.
func firingsTo1(t *testing.T, m AdaptiveMethod, sys System, tol float64) [][2]float64 {
	t.Helper()
	d, err := m.NewDriver(sys, &DriverOptions{EventTol: tol})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Init(0, []float64{0}); err != nil {
		t.Fatal(err)
	}
	var fired [][2]float64
	for tt := 0.0; tt < 1; {
		rep, err := d.Step(1)
		if err != nil {
			t.Fatal(err)
		}
		tt = rep.T1
		for _, f := range rep.Fired {
			fired = append(fired, [2]float64{float64(f.Index), rep.T1})
		}
	}
	return fired
}
