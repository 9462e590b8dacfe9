package integrators

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
)

// TestDormandPrinceInitialStepMatchesSciPy: DormandPrince's first step is
// Hairer, Nørsett & Wanner's starting step (Solving ODEs I, II.4), which
// SciPy's RK45 also uses. The reference values are SciPy's own (SciPy
// 1.10, RK45(...).h_abs after construction: testdata/scipy_rk45_h0.py).
// The problems cover the estimate's branches: van der Pol (μ = 2) from
// two starts; a forced stiff component with a nonlinear coupling, from
// t0 = 0 and t0 = 5; a start at y = 0 (the scale test fails: h0 = 1e-6,
// the step 100·h0); and y' = 0 (no derivative to measure: 1e-6). Each
// first step is accepted, so StepReport.H is the initial step. Measured:
// equal to 1 ulp (SciPy computes the norms with NumPy); the tolerance,
// 1e-13 relative, allows for that rounding only.
func TestDormandPrinceInitialStepMatchesSciPy(t *testing.T) {
	vdp2 := SystemFunc{N: 2, F: func(_ float64, y, d []float64) error {
		d[0], d[1] = y[1], 2*(1-y[0]*y[0])*y[1]-y[0]
		return nil
	}}
	forced := SystemFunc{N: 2, F: func(t float64, y, d []float64) error {
		d[0], d[1] = -50*(y[0]-t*t), y[0]*y[1]*0.1-y[1]
		return nil
	}}
	zero := SystemFunc{N: 2, F: func(_ float64, _, d []float64) error {
		d[0], d[1] = 0, 0
		return nil
	}}
	for k, c := range []struct {
		sys                  System
		y0                   []float64
		t0, tEnd, rtol, atol float64
		scipy                float64
	}{
		{vdp2, []float64{2, 0.5}, 0, 10, 1e-6, 1e-8, 0.012121867478475419},
		{forced, []float64{0, 1}, 0, 3, 1e-6, 1e-9, 0.007767992996170793},
		{forced, []float64{0.5, 1}, 5, 6, 1e-3, 1e-4, 0.0006040378159437859},
		{vdp2, []float64{2, 0}, 0, 20, 1e-8, 1e-10, 0.002595773057989375},
		{forced, []float64{0, 0}, 1, 3, 1e-6, 1e-9, 9.999999999999999e-05},
		{zero, []float64{1, 2}, 0, 1, 1e-6, 1e-9, 1e-06},
	} {
		a, err := NewAdaptive(DormandPrince{RTol: c.rtol, ATol: c.atol}, c.sys, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Init(c.t0, c.y0); err != nil {
			t.Fatal(err)
		}
		rep, err := a.Step(c.tEnd)
		if err != nil {
			t.Fatalf("case %d: %v", k, err)
		}
		if w := a.Work(); w.Rejected != 0 {
			t.Fatalf("case %d: first step rejected (%+v): the test needs it accepted", k, w)
		}
		if math.Abs(rep.H-c.scipy) > 1e-13*c.scipy {
			t.Errorf("case %d: first step %.17g, SciPy's %.17g", k, rep.H, c.scipy)
		}
	}
}

// TestDormandPrinceStepsMatchHairer: DormandPrince's step-size control
// (error norm, PI controller with β = 0.04, factor bounds, no growth right
// after a rejection, the last step stretched onto tEnd) is that of Hairer's
// DOPRI5, so from the same first step it takes the same steps. The
// reference is DOPRI5's own trajectory (Hairer's Fortran code through
// SciPy 1.10's ode("dopri5") with a solout callback:
// testdata/hairer_dopri5_vdp5.py and .txt): van der Pol μ = 5 from
// (2, 0.5) over [0, 20], RTol 1e-6, ATol 1e-8, 330 accepted steps. Only the
// first step is set (DOPRI5's starting-step estimate, HINIT, differs
// from the one DormandPrince shares with SciPy's RK45: it uses unscaled
// sums where RK45 uses RMS norms). Every accepted step must end at
// DOPRI5's time with DOPRI5's y0; measured: within 2.3e-11 over all 330
// steps (rounding differences of the two codes, slowly accumulating), so
// the tolerance is 1e-9.
func TestDormandPrinceStepsMatchHairer(t *testing.T) {
	data, err := os.ReadFile("testdata/hairer_dopri5_vdp5.txt")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	ref := lines[:len(lines)-1] // the last line is the count
	var h0 float64
	fmt.Sscan(ref[1], &h0)
	sys := SystemFunc{N: 2, F: func(_ float64, y, d []float64) error {
		d[0], d[1] = y[1], 5*(1-y[0]*y[0])*y[1]-y[0]
		return nil
	}}
	a, err := NewAdaptive(DormandPrince{RTol: 1e-6, ATol: 1e-8, InitialStep: h0}, sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Init(0, []float64{2, 0.5}); err != nil {
		t.Fatal(err)
	}
	for k, line := range ref[1:] {
		var tr, yr float64
		if _, err := fmt.Sscan(line, &tr, &yr); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if _, err := a.Step(20); err != nil {
			t.Fatalf("step %d: %v", k+1, err)
		}
		tt, y := a.State()
		if math.Abs(tt-tr) > 1e-9 || math.Abs(y[0]-yr) > 1e-9 {
			t.Fatalf("step %d: t %.17g y0 %.17g; DOPRI5: t %.17g y0 %.17g", k+1, tt, y[0], tr, yr)
		}
	}
	if tt, _ := a.State(); tt != 20 {
		t.Errorf("after DOPRI5's %d steps t = %v, want 20", len(ref)-1, tt)
	}
}
