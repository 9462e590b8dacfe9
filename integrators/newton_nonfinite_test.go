package integrators

import (
	"errors"
	"testing"
)

// blowup is y' = k·y² in component 1 (component 0 is y' = 0): from
// y = 1e200, f overflows to +Inf inside the Newton iteration.
type blowup struct{ k float64 }

func (blowup) Dim() int { return 2 }
func (b blowup) Func(t float64, y, dst []float64) error {
	dst[0] = 0
	dst[1] = b.k * y[1] * y[1]
	return nil
}

// An overflow inside Newton is reported as NonFinite naming the component
// (1 here), not as "Newton did not converge", and the accepted state is
// untouched.
func TestNewtonOverflowIsNonFinite(t *testing.T) {
	for _, name := range []string{MethodBackwardEuler, MethodImplicitTrapezoid} {
		m, err := ByName(name)
		if err != nil {
			t.Fatal(err)
		}
		st, err := m.New(blowup{k: 1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Init(0, []float64{1, 1e200}); err != nil {
			t.Fatal(err)
		}
		err = st.Step(1)
		var se *StepError
		if !errors.As(err, &se) || se.Status != NonFinite || se.Index != 1 || !errors.Is(err, ErrNonFinite) {
			t.Errorf("%s: err = %v (%+v), want NonFinite in component 1", name, err, se)
		}
		if tt, y := st.State(); tt != 0 || y[0] != 1 || y[1] != 1e200 {
			t.Errorf("%s: state after the failed step: t = %v, y = %v", name, tt, y)
		}
	}
}
