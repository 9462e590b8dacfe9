package integrators

import "testing"

// Same compares the adaptive implicit methods with their defaults filled
// in (BDF's documentation: RTol 1e-6, ATol 1e-9, NewtonCoef 0.1,
// JacobianMaxAge 50 in the driver), so a default spelt out is the same
// method and any other value is not. NewtonCoef may be 1 (the Newton
// tolerance at most the error test's), not above.
func TestImplicitOptionsDefaultsA(t *testing.T) {
	for _, c := range []struct {
		a, b Method
		same bool
	}{
		{BDF{}, BDF{RTol: 1e-6, ATol: 1e-9, NewtonCoef: 0.1, Linear: LinearOptions{JacobianMaxAge: 50}}, true},
		{BDF{}, BDF{NewtonCoef: 0.1}, true},
		{BDF{}, BDF{Linear: LinearOptions{JacobianMaxAge: 50}}, true},
		{BDF{}, BDF{Linear: LinearOptions{JacobianMaxAge: 7}}, false},
		{BDF{}, BDF{NewtonCoef: 0.2}, false},
		{ESDIRK43{}, ESDIRK43{NewtonCoef: 0.1, Linear: LinearOptions{JacobianMaxAge: 50}}, true},
		{ESDIRK32{}, ESDIRK32{Linear: LinearOptions{JacobianMaxAge: 7}}, false},
	} {
		if got := Same(c.a, c.b); got != c.same {
			t.Errorf("Same(%+v, %+v) = %v, want %v", c.a, c.b, got, c.same)
		}
	}
	for _, m := range []AdaptiveMethod{BDF{NewtonCoef: 1}, ESDIRK43{NewtonCoef: 1}} {
		if _, err := m.NewDriver(decayA(1), nil); err != nil {
			t.Errorf("%s with NewtonCoef 1: %v", m.Name(), err)
		}
	}
	for _, m := range []AdaptiveMethod{BDF{NewtonCoef: 1.5}, ESDIRK43{NewtonCoef: 1.5}} {
		if _, err := m.NewDriver(decayA(1), nil); err == nil {
			t.Errorf("%s with NewtonCoef 1.5: no error", m.Name())
		}
	}
}
