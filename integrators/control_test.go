package integrators

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
)

// adaptiveMethods are the built-in adaptive methods with the step
// control c.
func adaptiveMethods(c StepControl) []AdaptiveMethod {
	return []AdaptiveMethod{
		DormandPrince{}.WithControl(c), ESDIRK43{}.WithControl(c), ESDIRK32{}.WithControl(c), BDF{}.WithControl(c),
	}
}

// Tolerances no double-precision step can meet are refused when an
// adaptive method starts, naming the method and the field, by one rule
// (StepControl.Check, the scene files' too). Without it, on y' = cos t
// from a zero state, RTol = ATol = 1e-300 (or ATol = 1e-300 alone) gave
// Dormand–Prince first steps of 0 until MaxSteps, ESDIRK43 a Newton
// failure at a step of 0, and BDF steps down to 1e-23 before
// StepTooSmall.
func TestAdaptiveRefusesImpossibleTolerances(t *testing.T) {
	sys := SystemFunc{N: 1, F: func(t float64, y, dst []float64) error { dst[0] = math.Cos(t); return nil }}
	for _, c := range []struct {
		ctl   StepControl
		field string
		why   string
	}{
		{StepControl{RTol: 1e-300, ATol: 1e-300}, "RTol", "is below 10·ε"},
		{StepControl{RTol: 1e-300}, "RTol", "is below 10·ε"},
		{StepControl{RTol: MinRTol / 2}, "RTol", "is below 10·ε"},
		{StepControl{ATol: 1e-300}, "ATol", "is below 1e-100"},
		{StepControl{ATol: 5e-324}, "ATol", "is below 1e-100"},
		{StepControl{RTol: math.NaN()}, "RTol", "is not zero"},
		{StepControl{ATol: -1e-9}, "ATol", "is not zero"},
		{StepControl{RTol: math.Inf(1)}, "RTol", "is not zero"},
		{StepControl{InitialStep: math.Inf(1)}, "InitialStep", "is not zero"},
		{StepControl{MinStep: 1, MaxStep: 0.5}, "MinStep", "exceeds MaxStep"},
	} {
		for _, m := range adaptiveMethods(c.ctl) {
			_, err := m.NewDriver(sys, nil)
			var ce *ControlError
			if !errors.As(err, &ce) || ce.Field != c.field || ce.Method != m.Name() || !strings.Contains(err.Error(), c.why) {
				t.Errorf("%s with %+v: error %v, want a *ControlError on %s of %s (%q)", m.Name(), c.ctl, err, c.field, m.Name(), c.why)
				continue
			}
			res, err := Integrate(m, sys, 0, []float64{0}, 1, nil)
			if !errors.As(err, &ce) || res.Status != Failure || res.Steps != 0 {
				t.Errorf("%s with %+v: Integrate gave status %v after %d steps, err %v; want Failure at start", m.Name(), c.ctl, res.Status, res.Steps, err)
			}
		}
	}
	// The floor itself is usable: y' = −y from 1 and from 0 with
	// RTol = MinRTol, ATol = MinATol runs to the end with finite,
	// positive steps (the values: e^−1 and 0 to 1e-12, far looser than
	// the tolerances and far tighter than a broken run).
	decay := SystemFunc{N: 1, F: func(t float64, y, dst []float64) error { dst[0] = -y[0]; return nil }}
	for _, m := range adaptiveMethods(StepControl{RTol: MinRTol, ATol: MinATol}) {
		for _, y0 := range []float64{1, 0} {
			res, err := Integrate(m, decay, 0, []float64{y0}, 1, &DriverOptions{MaxSteps: 200000})
			if err != nil {
				t.Errorf("%s at the floor from %v: %v", m.Name(), y0, err)
				continue
			}
			numtest.ExpectWithin(t, m.Name()+" y(1)", res.Y[0], y0*math.Exp(-1), 1e-12)
		}
	}
	if err := (StepControl{RTol: MinRTol, ATol: MinATol, MaxStep: math.Inf(1)}).Check(); err != nil {
		t.Errorf("the floor with MaxStep = +Inf: %v", err)
	}
}
