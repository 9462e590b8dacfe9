package verification

import (
	"fmt"
	"math"
	"testing"

	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/internal/numtest"
)

// forcedDuffing is the smooth problem of COSIM-VER-401: a damped Duffing
// oscillator driven so that its solution is known in closed form
// (manufactured), with one extra integrated quantity,
//
//	x' = v,  v' = −x − x³ − ½v + F(t),  z' = x,
//	x*(t) = cos t + ¼·sin 3t,  z*(t) = sin t + (1 − cos 3t)/12,
//	F(t) = x*'' + x* + x*³ + ½x*'.
//
// It is nonlinear, velocity- and time-dependent, and partitioned
// (positions [0], velocities [1]; z is an "other" component, integrated
// by the Newmark family's endpoint trapezoid), with an analytic
// Jacobian.
type forcedDuffing struct{}

func duffingExact(t float64) (x, v, z float64) {
	x = math.Cos(t) + 0.25*math.Sin(3*t)
	v = -math.Sin(t) + 0.75*math.Cos(3*t)
	z = math.Sin(t) + (1-math.Cos(3*t))/12
	return x, v, z
}

func (forcedDuffing) Dim() int { return 3 }

func (forcedDuffing) Func(t float64, y, dst []float64) error {
	xs, vs, _ := duffingExact(t)
	as := -math.Cos(t) - 2.25*math.Sin(3*t)
	f := as + xs + xs*xs*xs + 0.5*vs
	x, v := y[0], y[1]
	dst[0] = v
	dst[1] = -x - x*x*x - 0.5*v + f
	dst[2] = x
	return nil
}

func (forcedDuffing) Jacobian(t float64, y, dst []float64) error {
	x := y[0]
	copy(dst, []float64{0, 1, 0, -1 - 3*x*x, -0.5, 0, 1, 0, 0})
	return nil
}

func (forcedDuffing) Pairs() (pos, vel []int) { return []int{0}, []int{1} }

// orderLadder is the step-count ladder over [0, 2] for a declared order
// p: four counts doubling, coarse enough that the finest error of a
// high-order method stays far above round-off (DP5 at 160 steps: about
// 8e-12, round-off 1e-15) and fine enough that a low-order method is asymptotic (the next
// term of the error expansion moves p by O(dt) ≈ 0.01).
func orderLadder(p int) []int {
	n0 := 100
	switch {
	case p >= 5:
		n0 = 20
	case p >= 3:
		n0 = 40
	}
	return []int{n0, 2 * n0, 4 * n0, 8 * n0}
}

const orderEnd = 2.0

// duffingError runs m's fixed-step Stepper (Method.New) n steps over
// [0, orderEnd] and returns the global error: the max-norm error of
// (x, v, z) over every step. (The error at the final time alone can
// cancel by accident and make a high-order method look pre-asymptotic.)
func duffingError(t *testing.T, m integrators.Method, n int) float64 {
	t.Helper()
	st, err := m.New(forcedDuffing{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	x0, v0, z0 := duffingExact(0)
	if err := st.Init(0, []float64{x0, v0, z0}); err != nil {
		t.Fatal(err)
	}
	dt := orderEnd / float64(n)
	worst := 0.0
	for i := 0; i < n; i++ {
		if err := st.Step(dt); err != nil {
			t.Fatal(err)
		}
		tt, y := st.State()
		worst = math.Max(worst, maxErr(tt, y))
	}
	if tt, _ := st.State(); !numtest.Within(tt, orderEnd, 1e-12) {
		t.Fatalf("%s: final time %v", m.Name(), tt)
	}
	return worst
}

func maxErr(t float64, y []float64) float64 {
	x, v, z := duffingExact(t)
	return math.Max(math.Abs(y[0]-x), math.Max(math.Abs(y[1]-v), math.Abs(y[2]-z)))
}

func studyOrder(errs []float64) float64 {
	k := len(errs)
	return math.Log2(errs[k-2] / errs[k-1])
}

// COSIM-VER-401: every integration method's observed order on a smooth
// problem matches its declared order (integrators.Method.Order, read from
// the catalog, never repeated here): |p − declared| ≤ 0.1 over the
// finest pair of the ladder. Every catalog method runs through its
// fixed-step Stepper; generalized-alpha is measured at ρ∞ = 0, 0.5 (the
// catalog default), 0.8 and 1, BDF at every order from 1 to 5 (its
// first MaxOrder − 1 steps are ESDIRK43's). TestFixedStepDormandPrince ties the
// Dormand–Prince stepper to integrators.Integrate with Settings.FixedStep.
func TestIntegratorOrders(t *testing.T) {
	type study struct {
		m        integrators.Method
		quantity string
		run      func(n int) float64
	}
	var studies []study
	for _, m := range integrators.Methods() {
		if m.Name() == integrators.MethodGeneralizedAlpha {
			continue
		}
		studies = append(studies, study{m, "observed order", func(n int) float64 { return duffingError(t, m, n) }})
	}
	for _, rho := range []float64{0, 0.5, 0.8, 1} {
		m := integrators.GeneralizedAlpha{RhoInf: rho}
		studies = append(studies, study{m, fmt.Sprintf("observed order (ρ∞ = %v)", rho), func(n int) float64 { return duffingError(t, m, n) }})
	}
	// BDF's lower orders (the catalog's BDF is order 5).
	for q := 1; q < 5; q++ {
		m := integrators.BDF{MaxOrder: q}
		studies = append(studies, study{m, fmt.Sprintf("observed order (MaxOrder %d)", q), func(n int) float64 { return duffingError(t, m, n) }})
	}
	for _, s := range studies {
		want := float64(s.m.Order())
		ladder := orderLadder(s.m.Order())
		var errs []float64
		for _, n := range ladder {
			errs = append(errs, s.run(n))
		}
		p := studyOrder(errs)
		t.Logf("%s %s: errors %.3e", s.m.Name(), s.quantity, errs)
		record(t, Measurement{ID: "COSIM-VER-401", Subject: s.m.Name(), Quantity: s.quantity, Value: p, Reference: want,
			Bound:  fmt.Sprintf("|p − %s| ≤ %s", fmtG(want), fmtG(orderTol)),
			Method: fmt.Sprintf("forced Duffing oscillator x'' = −x − x³ − ½x' + F(t) with z' = x, manufactured x* = cos t + ¼ sin 3t (closed form), analytic Jacobian; fixed steps over [0, 2], ladder %v, max-norm error of (x, v, z) over every step, finest pair; declared order from integrators.Method.Order", ladder),
			Pass:   math.Abs(p-want) <= orderTol})
	}
}

// The fixed-step Dormand–Prince of COSIM-VER-401 (the catalog's Stepper)
// is the same method as integrators.Integrate with Settings.FixedStep:
// over the ladder's finest run both end bit-identical.
func TestFixedStepDormandPrince(t *testing.T) {
	dp, err := integrators.ByName(integrators.MethodDormandPrince)
	if err != nil {
		t.Fatal(err)
	}
	const n = 160
	st, err := dp.New(forcedDuffing{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	x0, v0, z0 := duffingExact(0)
	y0 := []float64{x0, v0, z0}
	st.Init(0, y0)
	for i := 0; i < n; i++ {
		if err := st.Step(orderEnd / n); err != nil {
			t.Fatal(err)
		}
	}
	_, y := st.State()
	res, err := integrators.Integrate(integrators.DormandPrince{FixedStep: orderEnd / n}, forcedDuffing{}, 0, y0, orderEnd, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Work.Steps != n {
		t.Errorf("Integrate with FixedStep took %d steps, want %d", res.Work.Steps, n)
	}
	for i := range y {
		if y[i] != res.Y[i] {
			t.Errorf("component %d: stepper %v, Integrate(FixedStep) %v", i, y[i], res.Y[i])
		}
	}
}
