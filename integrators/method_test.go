package integrators

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// A method's options live in its type: the adaptive driver reads
// DormandPrince's tolerances, and its fixed-step stepper refuses them
// rather than ignoring them. The explicit methods have no Newton options
// to give (their types have no such field: a compile-time guarantee that
// this test documents by asserting the interface), and the driver's
// adaptive-only options are refused by every fixed-step method.
func TestPerMethodOptions(t *testing.T) {
	sys := &oscillator{} // x' = v, v' = −x, with Jacobian and pairs
	// DormandPrince carries its tolerances: a tighter RTol/ATol takes
	// more steps and gives a smaller error against the exact cos(1).
	var errs [2]float64
	var steps [2]int
	for i, m := range []DormandPrince{{RTol: 1e-4, ATol: 1e-6}, {RTol: 1e-10, ATol: 1e-12}} {
		res, err := Integrate(m, sys, 0, []float64{1, 0}, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		errs[i], steps[i] = math.Abs(res.Y[0]-math.Cos(1)), res.Steps
	}
	if !(errs[1] < errs[0]/100 && steps[1] > steps[0]) {
		t.Errorf("tolerances not in force: errors %v, steps %v", errs, steps)
	}
	// The fixed-step Dormand–Prince stepper refuses a controller field,
	// naming it.
	for _, m := range []DormandPrince{{RTol: 1e-8}, {MaxStep: 0.1}, {FixedStep: 0.1}} {
		_, err := NewStepper(m, sys, nil)
		if !errors.Is(err, ErrNotApplicable) || !strings.Contains(err.Error(), "DormandPrince.") {
			t.Errorf("fixed-step %+v: %v, want ErrNotApplicable naming the field", m, err)
		}
	}
	// Output and MaxSteps belong to the adaptive driver.
	for _, m := range []Method{RK4{}, BackwardEuler{}, GeneralizedAlpha{RhoInf: 0.5}} {
		for _, o := range []DriverOptions{{Output: []float64{1}}, {MaxSteps: 3}} {
			_, err := NewStepper(m, sys, &o)
			if !errors.Is(err, ErrNotApplicable) || !strings.Contains(err.Error(), m.Name()) {
				t.Errorf("%s with %+v: %v, want ErrNotApplicable", m.Name(), o, err)
			}
		}
		// Event options and the system's pairs apply to every method.
		if _, err := NewStepper(m, sys, &DriverOptions{EventTol: 1e-10, ZenoLimit: 3, Positions: []int{0}, Velocities: []int{1}}); err != nil {
			t.Errorf("%s with event options: %v", m.Name(), err)
		}
	}
	// Only the implicit methods have Newton options.
	for _, m := range Methods() {
		_, newton := m.(NewtonMethod)
		want := m.Name() == MethodBackwardEuler || m.Name() == MethodImplicitTrapezoid || m.Name() == MethodNewmark || m.Name() == MethodGeneralizedAlpha ||
			m.Name() == MethodESDIRK43 || m.Name() == MethodESDIRK32 || m.Name() == MethodBDF
		if newton != want {
			t.Errorf("%s: NewtonMethod %v, want %v", m.Name(), newton, want)
		}
	}
	// Newton options are in force: one iteration cannot converge (the
	// second confirms), so MaxIter 1 fails the step.
	st, err := NewStepper(BackwardEuler{Newton: NewtonOptions{MaxIter: 1}}, sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = st.Init(0, []float64{1, 0})
	if err := st.Step(0.1); TerminationOf(err) != NewtonFailure {
		t.Errorf("MaxIter 1: %v, want NewtonFailure", err)
	}
	// A solver option out of range is an error.
	if _, err := NewStepper(BackwardEuler{Linear: LinearOptions{KrylovTol: 2}}, sys, nil); err == nil || !strings.Contains(err.Error(), "KrylovTol") {
		t.Errorf("KrylovTol 2: %v", err)
	}
	// WithSolver and Solver round-trip.
	n, l := NewtonOptions{Tol: 1e-12, MaxIter: 7}, LinearOptions{Solver: LinearGMRES, KrylovRestart: 5}
	for _, m := range Methods() {
		nm, ok := m.(NewtonMethod)
		if !ok {
			continue
		}
		gn, gl := nm.WithSolver(n, l).Solver()
		if gn != n || gl != l || nm.WithSolver(n, l).Name() != m.Name() {
			t.Errorf("%s: WithSolver/Solver = %+v %+v", m.Name(), gn, gl)
		}
	}
	// Negative adaptive options are errors naming the field.
	if _, err := NewAdaptive(DormandPrince{ATol: -1}, sys, nil); err == nil || !strings.Contains(err.Error(), "dormand-prince: ATol = -1") {
		t.Errorf("ATol −1: %v", err)
	}
}

// Every name of the registry gives back a method of that name, whose
// zero options are the defaults: ByName(name).Name() == name for every
// name in Names, in any case, and Methods are ByName's.
func TestRegistryRoundTrip(t *testing.T) {
	for _, name := range Names() {
		for _, n := range []string{name, strings.ToUpper(name)} {
			m, err := ByName(n)
			if err != nil || m.Name() != name {
				t.Errorf("ByName(%q) = %v, %v", n, m, err)
			}
		}
	}
	for _, m := range Methods() {
		b, _ := ByName(m.Name())
		if !Same(m, b) {
			t.Errorf("Methods has %+v, ByName %+v", m, b)
		}
	}
	if !Same(Newmark{}, Newmark{Beta: 0.25, Gamma: 0.5}) || Same(Newmark{}, Newmark{Gamma: 0.6}) {
		t.Error("Same does not fill in Newmark's defaults")
	}
	if !Same(BackwardEuler{}, BackwardEuler{Newton: NewtonOptions{Tol: 1e-10, MaxIter: 10}}) || Same(BackwardEuler{}, BackwardEuler{Newton: NewtonOptions{MaxIter: 3}}) {
		t.Error("Same does not fill in the Newton defaults")
	}
	if got := (Newmark{Gamma: 0.6}).Order(); got != 1 {
		t.Errorf("Newmark γ = 0.6 declares order %d, want 1", got)
	}
	if p := (GeneralizedAlpha{RhoInf: 1}).Params(); p.AlphaM != 0.5 || p.AlphaF != 0.5 || p.Beta != 0.25 || p.Gamma != 0.5 {
		t.Errorf("ρ∞ = 1: %+v, want αm = αf = ½, β = ¼, γ = ½ (Chung & Hulbert)", p)
	}
}

// euler1 is forward Euler written as a caller's Method.
type euler1 struct{ name string }

func (e euler1) Name() string { return e.name }
func (euler1) Order() int     { return 1 }
func (e euler1) New(sys System, o *DriverOptions) (Stepper, error) {
	st, err := NewStepper(ForwardEuler{}, sys, o)
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

// A caller's method is checked (name, order, its Stepper's identity), runs
// bit for bit as the method it wraps, and is found by ByName once
// registered, whose error then lists it.
func TestCustomMethod(t *testing.T) {
	sys := &oscillator{}
	for _, tc := range []struct {
		m    Method
		want string
	}{
		{euler1{""}, "1 to 64 bytes"},
		{euler1{" padded"}, "1 to 64 bytes"},
		{euler1{"RK4"}, "built-in rk4"},
		{nil, "no Method"},
	} {
		if _, err := NewStepper(tc.m, sys, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewStepper(%v): %v, want %q", tc.m, err, tc.want)
		}
		if err := Register(tc.m); err == nil {
			t.Errorf("Register(%v) accepted", tc.m)
		}
	}
	if err := Register(RK4{}); err == nil {
		t.Error("Register(RK4{}) accepted")
	}
	// The Stepper must report the method's name.
	if _, err := NewStepper(liar{}, sys, nil); err == nil || !strings.Contains(err.Error(), "reports method") {
		t.Errorf("a Stepper with another name: %v", err)
	}
	// The driver's adaptive-only options are refused for it too.
	if _, err := NewStepper(euler1{"plain"}, sys, &DriverOptions{MaxSteps: 3}); !errors.Is(err, ErrNotApplicable) {
		t.Errorf("MaxSteps with a caller's method: %v", err)
	}
	m := euler1{"my-euler"}
	a, err := NewStepper(m, sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewStepper(ForwardEuler{}, sys, nil)
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
	if !Same(m, euler1{"my-euler"}) || Same(m, ForwardEuler{}) {
		t.Error("Same does not tell methods apart")
	}
	if err := Register(m); err != nil {
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
func (liar) New(sys System, o *DriverOptions) (Stepper, error) {
	return NewStepper(RK4{}, sys, o)
}

// sliceMethod is not comparable (it holds a slice).
type sliceMethod struct{ coef []float64 }

func (sliceMethod) Name() string { return "slice-method" }
func (sliceMethod) Order() int   { return 1 }
func (sliceMethod) New(sys System, o *DriverOptions) (Stepper, error) {
	return nil, nil
}

// Same never panics, and tells methods apart by type, name and order.
func TestSameNonComparable(t *testing.T) {
	a, b := sliceMethod{[]float64{1}}, sliceMethod{[]float64{1}}
	if !Same(a, b) {
		t.Error("two slice methods of the same name are not the same")
	}
	if Same(a, euler1{"slice-method"}) {
		t.Error("methods of different types are the same")
	}
	if Same(euler1{"x"}, euler1{"y"}) {
		t.Error("methods of different names are the same")
	}
	if _, err := NewStepper(sliceMethod{}, &oscillator{}, nil); err == nil || !strings.Contains(err.Error(), "no Stepper") {
		t.Errorf("a nil Stepper: %v", err)
	}
}
