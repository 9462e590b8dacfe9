package integrators

import (
	"errors"
	"math"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
)

// ball is the bouncing ball of the MADDENING BallNode guide written as an
// EventSystem: y = [x, v], f = [v, −g], event x falling through 0, reset
// v ← −e·v, and v ← 0 (x ← 0) when |v| < 1e-4 after the reset. At rest
// the model disarms its event and its right-hand side is zero (a ball
// lying on the floor, x ≤ 0 and v == 0, stays there): that is the Zeno
// guard of the model; the integrator's own guard is tested in
// TestZenoGuard.
type ball struct {
	g, e float64
}

func (b *ball) Dim() int { return 2 }
func (b *ball) Func(t float64, y, dst []float64) error {
	if y[0] <= 0 && y[1] == 0 {
		dst[0], dst[1] = 0, 0
		return nil
	}
	dst[0], dst[1] = y[1], -b.g
	return nil
}
func (b *ball) EventCount() int          { return 1 }
func (b *ball) EventDirection(i int) int { return -1 }
func (b *ball) Events(t float64, y, dst []float64) error {
	dst[0] = y[0]
	return nil
}
func (b *ball) Reset(i int, t float64, y, dst []float64) (EventAction, error) {
	dst[1] = -b.e * y[1]
	if math.Abs(dst[1]) < 1e-4 {
		dst[0], dst[1] = 0, 0
		return EventDisarm, nil
	}
	return EventContinue, nil
}

// analyticImpacts returns the first n impact times of the ball dropped
// from h0 at rest: t1 = sqrt(2h0/g), v1 = g·t1, flight k lasts 2·e^k·v1/g.
func analyticImpacts(h0, g, e float64, n int) []float64 {
	t1 := math.Sqrt(2 * h0 / g)
	v1 := g * t1
	out := []float64{t1}
	for k := 1; k < n; k++ {
		out = append(out, out[k-1]+2*math.Pow(e, float64(k))*v1/g)
	}
	return out
}

func TestBallEvents(t *testing.T) {
	const h0, g, e = 10, 9.81, 0.9
	want := analyticImpacts(h0, g, e, 4)
	// The analytic impacts to 7 decimals, computed once from the closed
	// form above and written down here so that a change to
	// analyticImpacts is caught (the MADDENING BallNode guide publishes
	// no impact times).
	for i, w := range []float64{1.4278431, 3.9979607, 6.3110666, 8.3928619} {
		numtest.ExpectWithin(t, "analytic impact", want[i], w, 5e-8)
	}
	// Analytic state at t = 10: after the 4th impact the ball leaves with
	// e^4·v1 upwards.
	v1 := g * want[0]
	u := math.Pow(e, 4) * v1
	tau := 10 - want[3]
	hWant, vWant := u*tau-0.5*g*tau*tau, u-g*tau
	numtest.ExpectWithin(t, "analytic h(10)", hWant, 2.1006464, 5e-8)
	numtest.ExpectWithin(t, "analytic v(10)", vWant, -6.5759398, 5e-8)

	for _, maxStep := range []float64{0, 0.1, 1, 5} {
		for _, fixed := range []float64{0, 0.5} {
			s := &settings{MaxStep: maxStep, FixedStep: fixed, Output: []float64{10}}
			res, err := integrateS(&ball{g: g, e: e}, 0, []float64{h0, 0}, 10, s)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != Success || len(res.Events) != 4 {
				t.Fatalf("max step %v fixed %v: status %v, %d events, want 4 (tunnelling?)", maxStep, fixed, res.Status, len(res.Events))
			}
			// A quadratic trajectory is reproduced by DP5 and its 4th-order
			// dense output up to rounding; the event tolerance is 1e-12 s.
			// 1e-9 s is the accuracy the package promises for located events.
			for i, ev := range res.Events {
				numtest.ExpectWithin(t, "impact time", ev.T, want[i], 1e-9)
				if ev.Before[0] > 1e-9 || ev.After[1] <= 0 {
					t.Errorf("impact %d: before %v after %v", i, ev.Before, ev.After)
				}
			}
			numtest.ExpectWithin(t, "h(10) sample", res.Samples[0].Y[0], hWant, 1e-9)
			numtest.ExpectWithin(t, "v(10) sample", res.Samples[0].Y[1], vWant, 1e-9)
			numtest.ExpectWithin(t, "h(10) final", res.Y[0], hWant, 1e-9)
			numtest.ExpectWithin(t, "v(10) final", res.Y[1], vWant, 1e-9)
		}
	}
}

// TestBallComesToRest runs the ball past the accumulation point of its
// bounces (t∞ = t1·(1 + 2e/(1−e)) ≈ 27.13 s): the integrator neither
// stalls nor tunnels, the ball ends at rest on the floor and the event is
// disarmed once.
func TestBallComesToRest(t *testing.T) {
	const h0, g, e = 10, 9.81, 0.9
	for _, maxStep := range []float64{1, 5} {
		res, err := integrateS(&ball{g: g, e: e}, 0, []float64{h0, 0}, 40, &settings{MaxStep: maxStep})
		if err != nil {
			t.Fatal(err)
		}
		n := len(res.Events)
		// The velocity after impact k (k = 1, 2, ...) is e^k·v1; the first below 1e-4 is
		// k = ceil(log(1e-4/v1)/log e).
		v1 := math.Sqrt(2 * h0 * g)
		wantN := int(math.Ceil(math.Log(1e-4/v1) / math.Log(e)))
		if n != wantN || res.Events[n-1].Action != EventDisarm {
			t.Fatalf("max step %v: %d events (last %v), want %d ending with disarm", maxStep, n, res.Events[n-1].Action, wantN)
		}
		tInf := math.Sqrt(2*h0/g) * (1 + 2*e/(1-e))
		if last := res.Events[n-1].T; !(last < tInf) || last < tInf-1e-3 {
			t.Errorf("rest at %v, want just before t∞ = %v", last, tInf)
		}
		if res.T != 40 || res.Y[0] != 0 || res.Y[1] != 0 {
			t.Errorf("final t=%v y=%v, want 40 at rest on the floor", res.T, res.Y)
		}
		for i, ev := range res.Events {
			if ev.Before[0] > 1e-9 || ev.Before[0] < -1e-9 {
				t.Errorf("event %d at x = %v, not on the floor", i, ev.Before[0])
			}
		}
	}
}

// chatter fires its event every 1e-10 s: y' = −1, event y falling through
// 0, reset y ← 1e-10. Without a guard it would take 1e10 events per
// second.
type chatter struct{}

func (chatter) Dim() int                                 { return 1 }
func (chatter) Func(t float64, y, dst []float64) error   { dst[0] = -1; return nil }
func (chatter) EventCount() int                          { return 1 }
func (chatter) EventDirection(int) int                   { return -1 }
func (chatter) Events(t float64, y, dst []float64) error { dst[0] = y[0]; return nil }
func (chatter) Reset(i int, t float64, y, dst []float64) (EventAction, error) {
	dst[0] = 1e-10
	return EventContinue, nil
}

func TestZenoGuard(t *testing.T) {
	res, err := integrateS(chatter{}, 0, []float64{1}, 2, nil)
	if !errors.Is(err, ErrZeno) || res.Status != ZenoDetected {
		t.Fatalf("err %v status %v, want Zeno", err, res.Status)
	}
	// 1 initial event + ZenoLimit (16) close ones.
	if res.EventsHandled != 16 || res.T < 1 || res.T > 1+1e-8 {
		t.Errorf("events %d, stopped at %v", res.EventsHandled, res.T)
	}
	var se *StepError
	if !errors.As(err, &se) || se.T < 1 {
		t.Errorf("error %v should be a *StepError naming the time", err)
	}
}

// stopper stops at the first rising crossing of y = 0.5 by y' = 1.
type stopper struct{}

func (stopper) Dim() int                                 { return 1 }
func (stopper) Func(t float64, y, dst []float64) error   { dst[0] = 1; return nil }
func (stopper) EventCount() int                          { return 1 }
func (stopper) EventDirection(int) int                   { return 1 }
func (stopper) Events(t float64, y, dst []float64) error { dst[0] = y[0] - 0.5; return nil }
func (stopper) Reset(i int, t float64, y, dst []float64) (EventAction, error) {
	return EventStop, nil
}

func TestEventStop(t *testing.T) {
	res, err := integrateS(stopper{}, 0, []float64{0}, 3, nil)
	if err != nil || res.Status != StoppedByEvent || res.Status.Err() != nil {
		t.Fatal(err, res.Status)
	}
	numtest.ExpectWithin(t, "stop time", res.T, 0.5, 1e-12)
	numtest.ExpectWithin(t, "stop state", res.Y[0], 0.5, 1e-12)
}
