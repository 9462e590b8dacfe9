package integrators

import (
	"math"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
)

// The fixed-step methods handle the events of an EventSystem: the ball
// dropped from 10 m with e = 0.9 (see ball and analyticImpacts in
// events_test.go) bounces four times before t = 10, and h(10) is the
// closed form u·τ − g·τ²/2 with u = e⁴·g·t1 the speed leaving the 4th
// impact at t4 and τ = 10 − t4 (2.1006464 m, checked in TestBallEvents).
// Before this, a fixed-step method ignored the events and the ball fell
// through the floor (h(10) ≈ −480 m).
func TestFixedStepBallEvents(t *testing.T) {
	const h0, g, e, dt = 10, 9.81, 0.9, 1e-3
	impacts := analyticImpacts(h0, g, e, 4)
	u := math.Pow(e, 4) * g * impacts[0]
	tau := 10 - impacts[3]
	hWant, vWant := u*tau-0.5*g*tau*tau, u-g*tau
	// Tolerances. Every method below except the two Euler variants and
	// backward Euler reproduces motion under constant acceleration
	// exactly (Heun, RK4, Dormand–Prince: polynomial of degree 2 in one
	// step; trapezoid, Newmark β=¼ γ=½ and generalized-alpha: constant
	// acceleration averaged exactly), so the error is the event
	// tolerance (1e-12 s) times the speeds (≤ 14 m/s) over four impacts
	// plus rounding: 1e-8 bounds it with margin. The first-order methods
	// (forward, semi-implicit and backward Euler) have a position bias of
	// ±g·dt·τ/2 per flight (x_n = x0 + v0·t ± g·t·(t ∓ dt)/2 exactly),
	// which shifts each impact time and speed by O(dt) and is carried
	// through the restitution; at t = 10 the ball falls at 6.6 m/s, so a
	// time shift of a few dt shows as ≈ 0.13 m (measured 0.126 at dt =
	// 1e-3). The bound 0.2 m admits that; what pins the cause is the
	// first-order check by halving dt (error ratio within [1.6, 2.4]).
	cases := []struct {
		method string
		tol    float64
		first  bool
	}{
		{MethodForwardEuler, 0.2, true},
		{MethodSemiImplicitEuler, 0.2, true},
		{MethodBackwardEuler, 0.2, true},
		{MethodHeun, 1e-8, false},
		{MethodRK4, 1e-8, false},
		{MethodDormandPrince, 1e-8, false},
		{MethodImplicitTrapezoid, 1e-8, false},
		{MethodNewmark, 1e-8, false},
		{MethodGeneralizedAlpha, 1e-8, false},
	}
	run := func(method string, dt float64) (h, v float64, st Work) {
		m, err := ByName(method)
		if err != nil {
			t.Fatal(err)
		}
		s, err := m.New(&ball{g: g, e: e}, &DriverOptions{Positions: []int{0}, Velocities: []int{1}})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Init(0, []float64{h0, 0}); err != nil {
			t.Fatal(err)
		}
		n := int(math.Round(10 / dt))
		for i := 0; i < n; i++ {
			if err := s.Step(dt); err != nil {
				t.Fatalf("%s: step %d: %v", method, i, err)
			}
		}
		tt, y := s.State()
		if !numtest.Within(tt, 10, 1e-12) {
			t.Errorf("%s: time %v after %d steps, want 10", method, tt, n)
		}
		return y[0], y[1], s.Work()
	}
	for _, c := range cases {
		h, v, st := run(c.method, dt)
		numtest.ExpectWithin(t, c.method+" h(10)", h, hWant, c.tol)
		numtest.ExpectWithin(t, c.method+" v(10)", v, vWant, c.tol) // the same reasoning: measured 0.137 and 3e-12
		if st.EventsHandled != 4 {
			t.Errorf("%s: %d events handled, want 4", c.method, st.EventsHandled)
		}
		if c.first {
			h2, _, _ := run(c.method, dt/2)
			if r := (h - hWant) / (h2 - hWant); !(r >= 1.6 && r <= 2.4) {
				t.Errorf("%s: error ratio %.3g between dt and dt/2, want ≈ 2 (first order)", c.method, r)
			}
		}
	}
}

// A step over which no event fires is the method's own step, bit for
// bit: the ball high above a floor it never reaches, stepped with and
// without its events.
func TestFixedStepEventsBitExactWithoutCrossing(t *testing.T) {
	for _, mm := range Methods() {
		set := &DriverOptions{Positions: []int{0}, Velocities: []int{1}}
		b := &ball{g: 9.81, e: 0.9}
		with, err := mm.New(b, set)
		if err != nil {
			t.Fatal(err)
		}
		without, err := mm.New(SystemFunc{N: 2, F: b.Func}, set)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []Stepper{with, without} {
			if err := s.Init(0.25, []float64{1e4, 3}); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 500; i++ {
				if err := s.Step(0.01); err != nil {
					t.Fatal(err)
				}
			}
		}
		t1, y1 := with.State()
		t2, y2 := without.State()
		if t1 != t2 || y1[0] != y2[0] || y1[1] != y2[1] {
			t.Errorf("%s: with events (%v, %v), without (%v, %v): want identical bits", mm.Name(), t1, y1, t2, y2)
		}
	}
}

// The ball comes to rest on the floor under a fixed step too: run past
// the accumulation point of its bounces (≈ 27.13 s) it ends at rest at
// x = 0, neither below the floor nor stalled, having disarmed its event.
func TestFixedStepBallComesToRest(t *testing.T) {
	for _, name := range []string{MethodRK4, MethodSemiImplicitEuler, MethodGeneralizedAlpha} {
		m, _ := ByName(name)
		s, err := m.New(&ball{g: 9.81, e: 0.9}, &DriverOptions{Positions: []int{0}, Velocities: []int{1}})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Init(0, []float64{10, 0}); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 4000; i++ {
			if err := s.Step(0.01); err != nil {
				t.Fatalf("%s step %d: %v", name, i, err)
			}
		}
		_, y := s.State()
		if y[0] != 0 || y[1] != 0 {
			t.Errorf("%s: state at t = 40 is %v, want the ball at rest on the floor [0 0]", name, y)
		}
	}
}

// StepperState and Restore of a fixed-step stepper with events continue bit
// for bit, across bounces.
func TestFixedStepEventsCheckpoint(t *testing.T) {
	for _, name := range []string{MethodRK4, MethodImplicitTrapezoid, MethodGeneralizedAlpha} {
		m, _ := ByName(name)
		set := &DriverOptions{Positions: []int{0}, Velocities: []int{1}}
		newBall := func() Stepper {
			s, err := m.New(&ball{g: 9.81, e: 0.9}, set)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		a := newBall()
		if err := a.Init(0, []float64{10, 0}); err != nil {
			t.Fatal(err)
		}
		step := func(s Stepper, n int) {
			for i := 0; i < n; i++ {
				if err := s.Step(0.01); err != nil {
					t.Fatal(err)
				}
			}
		}
		step(a, 250)
		cp := a.(Checkpointer).Checkpoint()
		b := newBall()
		if err := b.(Checkpointer).Restore(cp); err != nil {
			t.Fatal(err)
		}
		step(a, 750)
		step(b, 750)
		ta, ya := a.State()
		tb, yb := b.State()
		if ta != tb || ya[0] != yb[0] || ya[1] != yb[1] || a.Work() != b.Work() {
			t.Errorf("%s: continued (%v, %v, %+v), restored (%v, %v, %+v)", name, ta, ya, a.Work(), tb, yb, b.Work())
		}
	}
}

// A fixed step without a crossing allocates nothing, with events as
// without (the package's no-allocation rule for explicit steps).
func TestFixedStepEventsNoAlloc(t *testing.T) {
	for _, name := range []string{MethodRK4, MethodSemiImplicitEuler, MethodDormandPrince} {
		m, _ := ByName(name)
		s, err := m.New(&ball{g: 9.81, e: 0.9}, &DriverOptions{Positions: []int{0}, Velocities: []int{1}})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Init(0, []float64{1e6, 0}); err != nil {
			t.Fatal(err)
		}
		if a := testing.AllocsPerRun(100, func() {
			if err := s.Step(1e-3); err != nil {
				t.Fatal(err)
			}
		}); a != 0 {
			t.Errorf("%s: %v allocations per step", name, a)
		}
	}
}
