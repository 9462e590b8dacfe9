package integrators

import (
	"math"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
)

// stepped is y' = u(t), u = 0 before tau and 3 from tau on (right-
// continuous), with time events at the multiples of tau (only the first
// is a jump: the others check that extra events are harmless).
type stepped struct{ tau float64 }

func (s stepped) Dim() int { return 1 }
func (s stepped) Func(t float64, y, dst []float64) error {
	dst[0] = 0
	if t >= s.tau {
		dst[0] = 3
	}
	return nil
}
func (s stepped) NextTimeEvent(t float64) float64 {
	k := math.Floor(t/s.tau) + 1
	for k*s.tau <= t { // the division may round down
		k++
	}
	return k * s.tau
}

// The adaptive driver ends a step exactly on every time event and the
// solution y = 3 max(0, t − τ), piecewise linear, comes out exact to
// round-off (reference: that closed form; tolerance 1e-13 on values of
// order 10). Without the capability (the same f through Func), the jump
// is stepped over and the error is of the order of the tolerances.
func TestTimeEventsEndSteps(t *testing.T) {
	for _, tau := range []float64{0.3, 1.0 / 7, 2.5} {
		sys := stepped{tau}
		const end = 5.0
		want := 3 * (end - tau)
		run := func(s System) (float64, []float64) {
			a, err := newAdaptiveS(s, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := a.Init(0, []float64{0}); err != nil {
				t.Fatal(err)
			}
			var ends []float64
			for tt := 0.0; tt < end; {
				rep, err := a.Step(end)
				if err != nil {
					t.Fatal(err)
				}
				ends, tt = append(ends, rep.T1), rep.T1
			}
			_, y := a.State()
			return y[0], ends
		}
		y, ends := run(sys)
		for k := 1; float64(k)*tau < end; k++ {
			found := false
			for _, e := range ends {
				found = found || e == float64(k)*tau
			}
			if !found {
				t.Errorf("tau = %v: no step ends at event %v; ends %v", tau, float64(k)*tau, ends)
			}
		}
		if !numtest.Within(y, want, 1e-13) {
			t.Errorf("tau = %v: y(5) = %v, want %v", tau, y, want)
		}
		yh, _ := run(SystemFunc{N: 1, F: sys.Func})
		t.Logf("tau = %v: error with time events %.2g, without %.2g", tau, math.Abs(y-want), math.Abs(yh-want))
		if !(math.Abs(yh-want) > 1000*math.Abs(y-want)) && math.Abs(yh-want) > 1e-13 {
			t.Errorf("tau = %v: time events did not help", tau)
		}
	}
}
