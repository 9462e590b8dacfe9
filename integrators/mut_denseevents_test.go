package integrators

import (
	"errors"
	"testing"
)

// A Step that fails leaves the accepted state unchanged (Driver), so the
// next Step starts the run afresh, events due at the start included: an
// event function exactly zero at t0 = 0 and arriving there from its near
// side (g = y rising, y' = 1 from y = 0: due at the start, see
// TestEventExactlyOnZeroAtStart) whose first evaluation before t0 (the
// check that it arrives from its near side) fails. The first Step
// returns that error; the second must fire the event at the start, an
// event-only step (T0 = T1 = 0), exactly once.
func TestStartEventAfterFailedFirstStepI(t *testing.T) {
	boom := errors.New("event function unavailable")
	for _, m := range denseDriversA(StepControl{InitialStep: 0.25}) {
		failed, fired := false, 0
		sys := unitRateA(func(t float64, y, d []float64) error {
			if t < 0 && !failed {
				failed = true
				return boom
			}
			d[0] = y[0]
			return nil
		}, 1)
		sys.reset = func(_ int, _ float64, y, d []float64) { fired++; copy(d, y) }
		d, err := m.NewDriver(sys, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Init(0, []float64{0}); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Step(1); !errors.Is(err, boom) {
			t.Fatalf("%s: first Step: %v, want the event function's error", m.Name(), err)
		}
		rep, err := d.Step(1)
		if err != nil {
			t.Fatal(err)
		}
		if rep.T0 != 0 || rep.T1 != 0 || rep.Event != 0 || fired != 1 {
			t.Errorf("%s: second Step %+v with %d resets, want the start event at t = 0 once", m.Name(), rep, fired)
		}
	}
}
