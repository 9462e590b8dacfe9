package integrators

import (
	"errors"
	"math"
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

// infJac is y' = −y with an analytic Jacobian whose row 1 overflows.
type infJac struct{}

func (infJac) Dim() int { return 2 }
func (infJac) Func(t float64, y, dst []float64) error {
	dst[0], dst[1] = -y[0], -y[1]
	return nil
}
func (infJac) Jacobian(t float64, y, dst []float64) error {
	dst[0], dst[1], dst[2], dst[3] = -1, 0, 0, math.Inf(-1)
	return nil
}

// A non-finite Jacobian is NonFinite naming its row's component, not a
// singular matrix or a Newton failure.
func TestNewtonJacobianNonFinite(t *testing.T) {
	m, _ := ByName(MethodBackwardEuler)
	st, err := m.New(infJac{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Init(0, []float64{1, 1}); err != nil {
		t.Fatal(err)
	}
	var se *StepError
	if err := st.Step(0.1); !errors.As(err, &se) || se.Status != NonFinite || se.Index != 1 {
		t.Errorf("err = %v, want NonFinite in component 1", err)
	}
}
