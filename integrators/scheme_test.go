package integrators

import (
	"errors"
	"strings"
	"testing"
)

// Settings a method does not use are an error naming the method and the
// field, for every driver, and the fields it uses are accepted.
func TestSettingsNotApplicable(t *testing.T) {
	sys := &oscillator{} // x' = v, v' = −x, with Jacobian and pairs
	rk4, _ := ByName(MethodRK4)
	be, _ := ByName(MethodBackwardEuler)
	ga, _ := ByName(MethodGeneralizedAlpha)
	for _, tc := range []struct {
		m     Method
		s     Settings
		field string // "" : accepted
	}{
		{rk4, Settings{RTol: 1e-8}, "RTol"},
		{rk4, Settings{MaxStep: 0.1}, "MaxStep"},
		{rk4, Settings{FixedStep: 0.1}, "FixedStep"},
		{rk4, Settings{Output: []float64{1}}, "Output"},
		{rk4, Settings{NewtonTol: 1e-8}, "NewtonTol"},
		{rk4, Settings{LinearSolver: LinearGMRES}, "LinearSolver"},
		{rk4, Settings{MatrixFree: true}, "MatrixFree"},
		{rk4, Settings{EventTol: 1e-10, ZenoLimit: 3}, ""},
		{rk4, Settings{Positions: []int{0}, Velocities: []int{1}}, ""}, // describe the system
		{be, Settings{NewtonTol: 1e-8, KrylovRestart: 5}, ""},
		{be, Settings{ATol: 1e-8}, "ATol"},
		{ga, Settings{InitialStep: 1e-3, Positions: []int{0}, Velocities: []int{1}}, "InitialStep"},
		{ga, Settings{JacobianMaxAge: 3, Positions: []int{0}, Velocities: []int{1}}, ""},
	} {
		_, err := tc.m.New(sys, &tc.s)
		if tc.field == "" {
			if err != nil {
				t.Errorf("%s with %+v: %v", tc.m.Name, tc.s, err)
			}
			continue
		}
		if !errors.Is(err, ErrNotApplicable) || !strings.Contains(err.Error(), "Settings."+tc.field) || !strings.Contains(err.Error(), tc.m.Name) {
			t.Errorf("%s with %s set: %v, want ErrNotApplicable naming %s and the method", tc.m.Name, tc.field, err, tc.field)
		}
	}
	for _, s := range []Settings{{NewtonTol: 1e-8}, {Forcing: ForcingConstant}, {KrylovTol: 1e-3}} {
		if _, err := NewAdaptive(sys, &s); !errors.Is(err, ErrNotApplicable) {
			t.Errorf("NewAdaptive with %+v: %v, want ErrNotApplicable", s, err)
		}
		if _, err := Integrate(sys, 0, []float64{1, 0}, 1, &s); !errors.Is(err, ErrNotApplicable) {
			t.Errorf("Integrate with %+v: %v, want ErrNotApplicable", s, err)
		}
	}
	if _, err := NewAdaptive(sys, &Settings{RTol: 1e-8, EventTol: 1e-13, MaxSteps: 10}); err != nil {
		t.Errorf("NewAdaptive with its own settings: %v", err)
	}
}

// euler1 is forward Euler written as a caller's Scheme.
type euler1 struct{ name string }

func (e euler1) Name() string { return e.name }
func (euler1) Order() int     { return 1 }
func (e euler1) New(sys System, s *Settings) (Stepper, error) {
	m := Method{Name: MethodForwardEuler, Order: 1, Kind: Explicit}
	st, err := m.New(sys, s)
	if err != nil {
		return nil, err
	}
	return renamed{st, e.name}, nil
}

type renamed struct {
	Stepper
	name string
}

func (r renamed) Method() string { return r.name }

// A Custom method is checked (name, order, its Stepper's identity), runs
// bit for bit as the method it wraps, and is found by ByName once
// registered, whose error then lists it.
func TestCustomScheme(t *testing.T) {
	sys := &oscillator{}
	for _, tc := range []struct {
		s    Scheme
		want string
	}{
		{euler1{""}, "1 to 64 bytes"},
		{euler1{" padded"}, "1 to 64 bytes"},
		{euler1{"RK4"}, "built-in rk4"},
		{nil, "needs a Scheme"},
	} {
		if _, err := Custom(tc.s).New(sys, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Custom(%v).New: %v, want %q", tc.s, err, tc.want)
		}
		if tc.s != nil {
			if err := Register(tc.s); err == nil {
				t.Errorf("Register(%v) accepted", tc.s)
			}
		}
	}
	// The Stepper must report the Scheme's name.
	if _, err := Custom(liar{}).New(sys, nil); err == nil || !strings.Contains(err.Error(), "reports method") {
		t.Errorf("a Stepper with another name: %v", err)
	}
	m := Custom(euler1{"my-euler"})
	ref, _ := ByName(MethodForwardEuler)
	a, err := m.New(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := ref.New(sys, nil)
	_ = a.Init(0, []float64{1, 0})
	_ = b.Init(0, []float64{1, 0})
	for range 10 {
		if err := a.Step(0.1); err != nil {
			t.Fatal(err)
		}
		_ = b.Step(0.1)
	}
	_, ya := a.State()
	_, yb := b.State()
	if ya[0] != yb[0] || ya[1] != yb[1] || a.Method() != "my-euler" {
		t.Errorf("custom euler %v (%s), forward-euler %v", ya, a.Method(), yb)
	}
	if !Same(m, Custom(euler1{"my-euler"})) || Same(m, ref) || !m.Equal(m) {
		t.Error("Same does not tell methods apart")
	}
	if err := Register(euler1{"my-euler"}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // the registry lives as long as the process: undo for -count
		registry.Lock()
		defer registry.Unlock()
		delete(registry.byName, "my-euler")
		registry.names = registry.names[:len(registry.names)-1]
	})
	if err := Register(euler1{"MY-EULER"}); err == nil {
		t.Error("a name registered in another case was accepted")
	}
	got, err := ByName("My-Euler")
	if err != nil || !Same(got, m) {
		t.Errorf("ByName(My-Euler) = %+v, %v", got, err)
	}
	if _, err := ByName("my-eulr"); err == nil || !strings.Contains(err.Error(), `did you mean "my-euler"?`) {
		t.Errorf("ByName(my-eulr): %v, want a suggestion of my-euler", err)
	}
	if n := Names(); n[len(n)-1] != "my-euler" || len(n) != len(Methods())+1 {
		t.Errorf("Names() = %v", n)
	}
}

type liar struct{}

func (liar) Name() string { return "liar" }
func (liar) Order() int   { return 1 }
func (liar) New(sys System, s *Settings) (Stepper, error) {
	m, _ := ByName(MethodRK4)
	return m.New(sys, s)
}

// A built-in method's name, order and kind must agree with the catalog.
func TestBuiltinMethodMismatch(t *testing.T) {
	sys := &oscillator{}
	if _, err := (Method{Name: MethodRK4, Order: 2, Kind: Explicit}).New(sys, nil); err == nil || !strings.Contains(err.Error(), "obtain it from ByName") {
		t.Errorf("rk4 declared order 2: %v", err)
	}
}

// Configure applies a method's own parameters and refuses another's.
func TestConfigure(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	m, err := Configure("Generalized-Alpha", Params{RhoInf: f(0.3)})
	if err != nil || m != GeneralizedAlpha(0.3) {
		t.Errorf("generalized-alpha ρ∞ 0.3: %+v, %v", m, err)
	}
	m, err = Configure("newmark", Params{Gamma: f(0.6)})
	if err != nil || m != Newmark(0.25, 0.6) {
		t.Errorf("newmark γ 0.6: %+v, %v", m, err)
	}
	for _, tc := range []struct {
		name string
		p    Params
		want string
	}{
		{"rk4", Params{RhoInf: f(0.5)}, "rho_inf is a parameter of generalized-alpha"},
		{"generalized-alpha", Params{Beta: f(0.3)}, "beta and gamma are parameters of newmark"},
		{"newmark", Params{Gamma: f(0.4)}, "unstable"},
		{"generalized-alpha", Params{RhoInf: f(1.5)}, "rho_inf in [0, 1]"},
		{"rk5", Params{}, "unknown method"},
	} {
		if _, err := Configure(tc.name, tc.p); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Configure(%s, %+v): %v, want %q", tc.name, tc.p, err, tc.want)
		}
	}
}

// sliceScheme is not comparable (it holds a slice).
type sliceScheme struct{ coef []float64 }

func (sliceScheme) Name() string { return "slice-scheme" }
func (sliceScheme) Order() int   { return 1 }
func (sliceScheme) New(sys System, s *Settings) (Stepper, error) {
	return nil, nil
}

// Same never panics, and tells schemes apart by type, name and order.
func TestSameNonComparable(t *testing.T) {
	a, b := Custom(sliceScheme{[]float64{1}}), Custom(sliceScheme{[]float64{1}})
	if !Same(a, b) {
		t.Error("two slice schemes of the same name are not the same")
	}
	if Same(a, Custom(euler1{"slice-scheme"})) {
		t.Error("schemes of different types are the same")
	}
	if Same(Custom(euler1{"x"}), Custom(euler1{"y"})) {
		t.Error("schemes of different names are the same")
	}
}

// newtonEuler says it reads the Newton settings.
type newtonEuler struct{ euler1 }

func (newtonEuler) UsesNewton() bool { return true }

// New reads NewtonTol (as an implicit scheme would) and steps forward
// Euler.
func (e newtonEuler) New(sys System, s *Settings) (Stepper, error) {
	if s == nil || s.NewtonTol <= 0 {
		return nil, errors.New("newtonEuler: needs NewtonTol")
	}
	return e.euler1.New(sys, nil)
}

// The Newton settings are refused for a caller's scheme unless it is a
// NewtonScheme; the adaptive driver's always are.
func TestCustomSchemeSettings(t *testing.T) {
	sys := &oscillator{}
	s := &Settings{NewtonTol: 1e-8}
	if _, err := Custom(euler1{"plain"}).New(sys, s); !errors.Is(err, ErrNotApplicable) || !strings.Contains(err.Error(), "NewtonTol") {
		t.Errorf("NewtonTol with a plain scheme: %v", err)
	}
	if _, err := Custom(newtonEuler{euler1{"newton"}}).New(sys, s); err != nil {
		t.Errorf("NewtonTol with a NewtonScheme: %v", err)
	}
	if _, err := Custom(newtonEuler{euler1{"newton"}}).New(sys, &Settings{RTol: 1e-6}); !errors.Is(err, ErrNotApplicable) {
		t.Errorf("RTol with a NewtonScheme: %v", err)
	}
}
