package integrators

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// Tests of the event instant (instant.go) shared by every driver: which
// events are due at the start of a run, the reset checks, the round
// limit of the event iteration and the Zeno guard's spacing.

// evC is a one-event system built from functions: y' = f, event g with
// direction dir and reset r (nil: no jump, EventContinue). It counts
// the resets applied.
type evC struct {
	n      int
	dir    int
	f      func(t float64, y, dst []float64)
	g      func(t float64, y []float64) float64
	r      func(t float64, y, dst []float64)
	gErr   error
	resets int
}

func (s *evC) Dim() int { return s.n }
func (s *evC) Func(t float64, y, dst []float64) error {
	s.f(t, y, dst)
	return nil
}
func (s *evC) EventCount() int        { return 1 }
func (s *evC) EventDirection(int) int { return s.dir }
func (s *evC) EventName(int) string   { return "probe.level" }
func (s *evC) Events(t float64, y, dst []float64) error {
	if s.gErr != nil {
		return s.gErr
	}
	dst[0] = s.g(t, y)
	return nil
}
func (s *evC) Reset(i int, t float64, y, dst []float64) (EventAction, error) {
	s.resets++
	if s.r != nil {
		s.r(t, y, dst)
	}
	return EventContinue, nil
}

func rateC(c float64) func(t float64, y, dst []float64) {
	return func(t float64, y, dst []float64) { dst[0] = c }
}

// firstStepC takes the first Dormand–Prince step of sys from (0, y0) and
// reports whether it was the event-only step of events due at t0.
func firstStepC(t *testing.T, sys System, y0 float64) bool {
	t.Helper()
	a, err := NewAdaptive(DormandPrince{}, sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Init(0, []float64{y0}); err != nil {
		t.Fatal(err)
	}
	rep, err := a.Step(1)
	if err != nil {
		t.Fatal(err)
	}
	return rep.T1 == rep.T0 && rep.Event == 0
}

// TestStartDueC: an event exactly zero at t0 is due there when it
// arrives from its near side: its value on the state extrapolated back
// along f to t0 − δ (δ = 64·EventTol) is strictly on that side. Each case
// states the value there.
func TestStartDueC(t *testing.T) {
	for _, tc := range []struct {
		name string
		sys  *evC
		y0   float64
		due  bool
	}{
		// y' = 0: g = y stays 0 before t0, on neither side: not due, for
		// either direction.
		{"falling, flat", &evC{n: 1, dir: -1, f: rateC(0), g: func(t float64, y []float64) float64 { return y[0] }}, 0, false},
		{"rising, flat", &evC{n: 1, dir: 1, f: rateC(0), g: func(t float64, y []float64) float64 { return y[0] }}, 0, false},
		// y' = 4, g = y − 2t: along the trajectory y = 4t, g = 2t rises
		// through 0 at t0, so g(t0 − δ) = −2δ < 0: due for a rising
		// event, not for a falling one.
		{"rising through t0", &evC{n: 1, dir: 1, f: rateC(4), g: func(t float64, y []float64) float64 { return y[0] - 2*t }}, 0, true},
		{"falling, but rising through t0", &evC{n: 1, dir: -1, f: rateC(4), g: func(t float64, y []float64) float64 { return y[0] - 2*t }}, 0, false},
		// g = t·(t + 1): negative just before t0 = 0 (on (−1, 0)), so
		// due as a rising event; the probe is near t0 (δ = 6.4e-11),
		// not beyond t = −1 where g is positive again.
		{"rising in time", &evC{n: 1, dir: 1, f: rateC(0), g: func(t float64, y []float64) float64 { return t * (t + 1) }}, 0, true},
	} {
		if got := firstStepC(t, tc.sys, tc.y0); got != tc.due {
			t.Errorf("%s: due at t0 = %v, want %v", tc.name, got, tc.due)
		}
	}
}

// TestResetNonFiniteC: a reset that writes a non-finite value ends the
// run with NonFinite naming the component (0 here) and the event.
func TestResetNonFiniteC(t *testing.T) {
	sys := &evC{n: 1, dir: 1, f: rateC(1), g: func(t float64, y []float64) float64 { return y[0] - 0.5 },
		r: func(t float64, y, dst []float64) { dst[0] = math.NaN() }}
	_, err := Integrate(DormandPrince{}, sys, 0, []float64{0}, 1, nil)
	var se *StepError
	if !errors.As(err, &se) || se.Status != NonFinite || se.Index != 0 || !strings.Contains(err.Error(), "after the reset of probe.level") {
		t.Fatalf("err %v, want NonFinite in component 0 after the reset of probe.level", err)
	}
}

// TestEventErrorsC: an error from the event functions (Events) or from
// Func is a Failure StepError that wraps it, with no component index.
func TestEventErrorsC(t *testing.T) {
	boom := errors.New("sensor offline")
	sys := &evC{n: 1, dir: 1, f: rateC(1), g: func(t float64, y []float64) float64 { return y[0] }, gErr: boom}
	_, err := Integrate(DormandPrince{}, sys, 0, []float64{0}, 1, nil)
	var se *StepError
	if !errors.As(err, &se) || se.Status != Failure || se.Index != -1 || !errors.Is(err, boom) {
		t.Errorf("Events error: %v (%+v), want a Failure with Index -1 wrapping it", err, se)
	}
	st, err := NewStepper(RK4{}, SystemFunc{N: 1, F: func(t float64, y, dst []float64) error { return boom }}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Init(0, []float64{0}); err != nil {
		t.Fatal(err)
	}
	err = st.Step(0.1)
	if !errors.As(err, &se) || se.Status != Failure || se.Index != -1 || !errors.Is(err, boom) {
		t.Errorf("Func error: %v, want a Failure with Index -1 wrapping it", err)
	}
}

// TestEventEvalsCountedC: Work.EventEvals counts the evaluations of
// Events: at least one per accepted step (here y' = 1 over [0, 1] with
// an event that never fires).
func TestEventEvalsCountedC(t *testing.T) {
	sys := &evC{n: 1, dir: 1, f: rateC(1), g: func(t float64, y []float64) float64 { return y[0] - 5 }}
	res, err := Integrate(DormandPrince{}, sys, 0, []float64{0}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.EventEvals < res.Steps || res.Steps < 1 {
		t.Errorf("%d event evaluations for %d steps", res.EventEvals, res.Steps)
	}
}

// countingCascadeC counts the resets of the toggling cascade.
type countingCascadeC struct {
	cascade
	resets *int
}

func (c countingCascadeC) Reset(i int, t float64, y, dst []float64) (EventAction, error) {
	*c.resets++
	return c.cascade.Reset(i, t, y, dst)
}

// TestEventRoundLimitC: an event iteration that does not settle stops
// after EventCount + ZenoLimit rounds exactly: the toggling cascade
// applies one reset per round, so 3 + 16 = 19 resets, not more.
func TestEventRoundLimitC(t *testing.T) {
	n := 0
	_, err := Integrate(DormandPrince{}, countingCascadeC{cascade{toggle: true}, &n}, 0, []float64{0, 0, 0}, 2, nil)
	if !errors.Is(err, ErrZeno) {
		t.Fatalf("err %v, want Zeno", err)
	}
	if n != 19 {
		t.Errorf("%d resets before ZenoDetected, want 19 (one per round)", n)
	}
}

// TestZenoSpacingScalesWithTimeC: the default Zeno spacing is
// 1e-9·max(1, |t|), relative to the time: instants 1e-8 s apart near
// t = 100 are "close" (1e-8 < 1.005e-7), so with ZenoLimit 3 the fourth
// close instant ends the run, and the message counts the instants and
// gives the spacing. y' = 1 from y = 0.5 at t = 100; the rising event
// y = 1 resets y to 1 − 1e-8, so it recurs every 1e-8 s from t = 100.5.
func TestZenoSpacingScalesWithTimeC(t *testing.T) {
	sys := &evC{n: 1, dir: 1, f: rateC(1), g: func(t float64, y []float64) float64 { return y[0] - 1 },
		r: func(t float64, y, dst []float64) { dst[0] = 1 - 1e-8 }}
	res, err := Integrate(DormandPrince{}, sys, 100, []float64{0.5}, 102, &DriverOptions{ZenoLimit: 3})
	var se *StepError
	if !errors.As(err, &se) || se.Status != ZenoDetected {
		t.Fatalf("err %v (status %v at t = %v), want ZenoDetected", err, res.Status, res.T)
	}
	if math.Abs(se.T-100.5) > 1e-6 {
		t.Errorf("Zeno at t = %v, want ≈ 100.5 + 3e-8", se.T)
	}
	if !strings.Contains(err.Error(), "4 event instants within 1.005") || !strings.Contains(err.Error(), "probe.level") {
		t.Errorf("message %q: want the count 4, the spacing 1.005e-07 and the event", err)
	}
}
