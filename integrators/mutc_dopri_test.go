package integrators

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
)

// Tests of the Dormand–Prince driver's step-size logic that the order and
// tolerance tests cannot see: the automatic initial step of Hairer,
// Nørsett & Wanner (II.4) at its branch points, the landing on tMax (the
// adaptive 1e-10 stretch and the fixed-step grid rounding), the accept
// boundary errNorm = 1, and what the controller proposes after a trimmed
// last step. Each expected value follows from the formulas in the code's
// comments (HNW II.4 for the initial step) with numbers chosen so that
// the arithmetic is exact.

// recordC is y' = f(t, y) with f given, recording the time of every
// evaluation.
type recordC struct {
	n     int
	f     func(t float64, y, dst []float64)
	times []float64
}

func (r *recordC) Dim() int { return r.n }
func (r *recordC) Func(t float64, y, dst []float64) error {
	r.times = append(r.times, t)
	r.f(t, y, dst)
	return nil
}

// constC is y' = c with n = 1: every step of every order is exact and
// the error estimate is 0.
func constC(c float64) *recordC {
	return &recordC{n: 1, f: func(t float64, y, dst []float64) { dst[0] = c }}
}

func newDPC(t *testing.T, sys System, m DormandPrince, t0, y0 float64) *Adaptive {
	t.Helper()
	a, err := NewAdaptive(m, sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Init(t0, []float64{y0}); err != nil {
		t.Fatal(err)
	}
	return a
}

// TestDopriInitialStepC: the automatic initial step of HNW II.4.
// With ATol = 1 and RTol = MinRTol the scale is 1 to the last bit for
// |y| ≤ 1e-5, so d0 = |y0| and d1 = |f0| exactly (√(x²) = x in IEEE
// arithmetic). The guess h0 is 0.01·d0/d1 when both are ≥ 1e-5 (here
// equal to 1e-5: the boundary belongs to this branch), else 1e-6, never
// beyond tMax − t; the second evaluation is at t + h0. For constant f,
// d2 = 0 and the step is min(100·h0, (0.01/max(d1, d2))^(1/5)), or
// max(1e-6, 1e-3·h0) when max(d1, d2) ≤ 1e-15 (again the boundary
// belongs to that branch).
func TestDopriInitialStepC(t *testing.T) {
	m := DormandPrince{ATol: 1, RTol: MinRTol}

	// d0 = d1 = 1e-5: h0 = 0.01, first step min(100·0.01, 1000^(1/5)) = 1.
	sys := constC(1e-5)
	a := newDPC(t, sys, m, 0, 1e-5)
	rep, err := a.Step(100)
	if err != nil {
		t.Fatal(err)
	}
	if len(sys.times) < 2 {
		t.Fatalf("evaluations at %v", sys.times)
	}
	numtest.ExpectWithin(t, "time of the initial-step probe (h0 = 0.01·d0/d1)", sys.times[1], 0.01, 1e-15)
	numtest.ExpectWithin(t, "first step (100·h0)", rep.H, 1, 1e-13)

	// The probe never goes beyond tMax: from t = 5 with tMax = 5.001,
	// h0 = min(0.01, 0.001).
	sys = constC(1e-5)
	a = newDPC(t, sys, m, 5, 1e-5)
	if _, err := a.Step(5.001); err != nil {
		t.Fatal(err)
	}
	numtest.ExpectWithin(t, "probe bounded by tMax", sys.times[1], 5.001, 1e-12)

	// y0 = 0: d0 = 0 < 1e-5 so h0 = 1e-6; d1 = 1e-15 exactly and d2 = 0,
	// so the step is min(100·h0, max(1e-6, 1e-9)) = 1e-6.
	sys = constC(1e-15)
	a = newDPC(t, sys, m, 0, 0)
	rep, err = a.Step(100)
	if err != nil {
		t.Fatal(err)
	}
	numtest.ExpectWithin(t, "probe at h0 = 1e-6", sys.times[1], 1e-6, 1e-20)
	numtest.ExpectWithin(t, "first step when max(d1, d2) = 1e-15", rep.H, 1e-6, 1e-20)
}

// TestDopriLastStepC: an adaptive step that reaches tMax within a
// relative 1e-10 of the proposed h is stretched to end exactly on tMax
// (no sliver step left), including at exactly h·(1+1e-10); a step
// proposal beyond tMax is trimmed to it.
func TestDopriLastStepC(t *testing.T) {
	for _, tc := range []struct {
		name string
		tMax float64
	}{
		{"within 1e-10·h", 1 + 5e-11},
		{"at exactly h·(1+1e-10)", 1 * (1 + 1e-10)},
		{"proposal beyond tMax", 0.25},
	} {
		a := newDPC(t, constC(1), DormandPrince{InitialStep: 1}, 0, 0)
		rep, err := a.Step(tc.tMax)
		if err != nil {
			t.Fatal(err)
		}
		if rep.T1 != tc.tMax {
			t.Errorf("%s: step ended at %v, want tMax %v", tc.name, rep.T1, tc.tMax)
		}
		tt, y := a.State()
		if tt != tc.tMax || math.Abs(y[0]-tc.tMax) > 1e-15 {
			t.Errorf("%s: state (%v, %v), want (%v, %v) (y = t exactly)", tc.name, tt, y[0], tc.tMax, tc.tMax)
		}
	}
}

// TestDopriTrimmedLastStepKeepsProposalC: a last step trimmed to tMax
// does not shrink the step the controller proposes next (an error-free
// step of 0.01 proposes 10·0.01, smaller than the 1 held: NextStep stays
// 1), while an untrimmed error-free step grows it tenfold (dpFacMax).
func TestDopriTrimmedLastStepKeepsProposalC(t *testing.T) {
	a := newDPC(t, constC(1), DormandPrince{InitialStep: 1}, 0, 0)
	if _, err := a.Step(0.01); err != nil {
		t.Fatal(err)
	}
	if got := a.NextStep(); got != 1 {
		t.Errorf("after a trimmed last step NextStep = %v, want 1 (the proposal kept)", got)
	}
	if _, err := a.Step(100); err != nil {
		t.Fatal(err)
	}
	if got := a.NextStep(); got != 10 {
		t.Errorf("after an error-free step of 1 NextStep = %v, want 10 (growth bounded by dpFacMax)", got)
	}
}

// TestDopriMinStepBoundaryC: MinStep is the smallest step allowed, so a
// step equal to it is taken; one below it ends with StepTooSmall, whose
// StepError has no component index (-1) and names the time.
func TestDopriMinStepBoundaryC(t *testing.T) {
	a := newDPC(t, constC(1), DormandPrince{InitialStep: 0.5, MinStep: 0.5}, 0, 0)
	rep, err := a.Step(10)
	if err != nil {
		t.Fatalf("a step equal to MinStep refused: %v", err)
	}
	if rep.H != 0.5 {
		t.Errorf("step %v, want 0.5", rep.H)
	}
	// stiffish needs steps well below 0.5 at RTol 1e-6.
	_, err = integrateS(stiffish, 0, []float64{0}, 2, &settings{MinStep: 0.5})
	var se *StepError
	if !errors.As(err, &se) || se.Status != StepTooSmall {
		t.Fatalf("err %v, want StepTooSmall", err)
	}
	if se.Index != -1 || se.Method != MethodDormandPrince || !strings.Contains(err.Error(), "at t=") {
		t.Errorf("StepTooSmall error %+v (%v): want Index -1 and the time", se, err)
	}
}

// TestDopriMaxStepsIndexC: MaxStepsReached carries no component index.
func TestDopriMaxStepsIndexC(t *testing.T) {
	_, err := integrateS(stiffish, 0, []float64{0}, 2, &settings{MaxSteps: 5})
	var se *StepError
	if !errors.As(err, &se) || se.Status != MaxStepsReached {
		t.Fatalf("err %v, want MaxStepsReached", err)
	}
	if se.Index != -1 {
		t.Errorf("Index %d, want -1", se.Index)
	}
}

// TestDopriAcceptAtErrNormOneC: a step is accepted when the RMS error
// norm is at most 1 (DormandPrince.RTol's contract), so one whose norm
// is exactly 1 is accepted without rejection. The system makes the norm
// exactly 1: f is 0 at every evaluation except the 7th of the first step
// (the FSAL stage at y_new, the only one that enters the error estimate
// and not the solution), where it is v; the state stays 0 and the error
// is e = h·E7·v with E7 = −1/40, so ATol = |e| gives ‖e/ATol‖ = 1.
func TestDopriAcceptAtErrNormOneC(t *testing.T) {
	const h = 1.0
	v := 40.0
	k := [7]float64{0, 0, 0, 0, 0, 0, v}
	// The library's expression, with the same operands in the same order.
	e := h * (dpE1*k[0] + dpE3*k[2] + dpE4*k[3] + dpE5*k[4] + dpE6*k[5] + dpE7*k[6])
	calls := 0
	sys := SystemFunc{N: 1, F: func(t float64, y, dst []float64) error {
		calls++
		dst[0] = 0
		if calls == 7 { // 1: f at t0; 2-7: the six new stages of the first trial
			dst[0] = v
		}
		return nil
	}}
	a := newDPC(t, sys, DormandPrince{InitialStep: h, ATol: math.Abs(e), RTol: MinRTol}, 0, 0)
	rep, err := a.Step(100)
	if err != nil {
		t.Fatal(err)
	}
	if w := a.Work(); w.Rejected != 0 || rep.H != h {
		t.Errorf("step of error norm 1: %d rejections, step %v; want 0 and %v", w.Rejected, rep.H, h)
	}
}

// TestDopriFixedGridLandingC: in the fixed-step mode a step whose clock
// time lies within 1e-9·h of tMax (rounding of Base + N·h) lands on tMax
// with the fixed h; one that overshoots by more is shortened to end on
// tMax. The equality case uses h with 1e-9·h = 2⁻³⁰ exactly and
// tMax = h − 2⁻³⁰ (exact).
func TestDopriFixedGridLandingC(t *testing.T) {
	const h = 0.1
	p := math.Ldexp(1, -30)
	he := 0.9313225746154785 // fl(1e-9·he) = 2⁻³⁰
	if 1e-9*he != p {
		t.Fatalf("1e-9·%v = %v, want 2⁻³⁰", he, 1e-9*he)
	}
	for _, tc := range []struct {
		name        string
		h, tMax     float64
		wantH       float64
		wantLanding bool
	}{
		{"one ulp short of tMax", h, math.Nextafter(h, 1), h, true},
		{"exactly 1e-9·h beyond tMax", he, he - p, he, true},
		{"5e-10 beyond tMax (> 1e-9·h)", h, h - 5e-10, h - 5e-10, true},
	} {
		a := newDPC(t, constC(1), DormandPrince{FixedStep: tc.h}, 0, 0)
		rep, err := a.Step(tc.tMax)
		if err != nil {
			t.Fatal(err)
		}
		if rep.T1 != tc.tMax || rep.H != tc.wantH {
			t.Errorf("%s: step [%v, %v] of %v, want to end on %v with %v", tc.name, rep.T0, rep.T1, rep.H, tc.tMax, tc.wantH)
		}
	}
}

// TestDopriNonFiniteFirstComponentC: a state that overflows in component
// 0 ends the step with NonFinite naming component 0 (fixed-step mode, in
// which no error norm rejects the trial first): y0 = 1e308, f = 1e308,
// h = 1 gives y1 = 2e308 = +Inf.
func TestDopriNonFiniteFirstComponentC(t *testing.T) {
	a := newDPC(t, constC(1e308), DormandPrince{FixedStep: 1}, 0, 1e308)
	_, err := a.Step(10)
	var se *StepError
	if !errors.As(err, &se) || se.Status != NonFinite || se.Index != 0 {
		t.Fatalf("err %v, want NonFinite in component 0", err)
	}
	if tt, y := a.State(); tt != 0 || y[0] != 1e308 {
		t.Errorf("state after the failed step (%v, %v), want the last accepted (0, 1e308)", tt, y[0])
	}
}

// crossC is y' = 1 with one rising event g = y − at whose reset leaves
// the state unchanged (EventContinue).
type crossC struct{ at float64 }

func (c *crossC) Dim() int                                 { return 1 }
func (c *crossC) Func(t float64, y, dst []float64) error   { dst[0] = 1; return nil }
func (c *crossC) EventCount() int                          { return 1 }
func (c *crossC) EventDirection(int) int                   { return 1 }
func (c *crossC) Events(t float64, y, dst []float64) error { dst[0] = y[0] - c.at; return nil }
func (c *crossC) Reset(int, float64, []float64, []float64) (EventAction, error) {
	return EventContinue, nil
}

// TestDopriEventTruncatedStepC: a step cut short by an event counts as an
// accepted step, and bounds the next proposal by dpFacMax times the
// length actually covered. y' = 1 from 0 with InitialStep 1: the first
// step [0, 1] is error-free and proposes 10; the second trial [1, 11]
// meets y = 1.5 at t = 1.5, so the next proposal is 10·(1.5 − 1) = 5.
func TestDopriEventTruncatedStepC(t *testing.T) {
	a := newDPC(t, &crossC{at: 1.5}, DormandPrince{InitialStep: 1}, 0, 0)
	if _, err := a.Step(100); err != nil {
		t.Fatal(err)
	}
	rep, err := a.Step(100)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Event != 0 {
		t.Fatalf("second step %+v: no event", rep)
	}
	// The event is located to EventTol = 1e-12 on an exact (linear) dense output.
	numtest.ExpectWithin(t, "event time", rep.T1, 1.5, 1e-11)
	numtest.ExpectWithin(t, "next proposal after the truncated step", a.NextStep(), 5, 1e-10)
	if w := a.Work(); w.Steps != 2 || w.EventsHandled != 1 {
		t.Errorf("work %+v: want 2 accepted steps (the truncated one counts) and 1 event", w)
	}
}

// TestDopriTrialLimitC: MaxSteps also bounds the trials of one Step:
// stiffish with InitialStep 1 at RTol 1e-8 needs several rejections
// before its first accepted step, so with MaxSteps 2 the Step ends with
// MaxStepsReached (no component index) and the state unchanged.
func TestDopriTrialLimitC(t *testing.T) {
	a, err := NewAdaptive(DormandPrince{InitialStep: 1, RTol: 1e-8, ATol: 1e-10}, stiffish, &DriverOptions{MaxSteps: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Init(0, []float64{0}); err != nil {
		t.Fatal(err)
	}
	_, err = a.Step(2)
	var se *StepError
	if !errors.As(err, &se) || se.Status != MaxStepsReached || se.Index != -1 {
		t.Fatalf("err %v, want MaxStepsReached with Index -1", err)
	}
	if tt, y := a.State(); tt != 0 || y[0] != 0 {
		t.Errorf("state (%v, %v) after the failed Step, want (0, 0)", tt, y[0])
	}
}

// clockEventC is y' = 1 with the rising event g = t − at.
type clockEventC struct{ at float64 }

func (c clockEventC) Dim() int                                 { return 1 }
func (c clockEventC) Func(t float64, y, dst []float64) error   { dst[0] = 1; return nil }
func (c clockEventC) EventCount() int                          { return 1 }
func (c clockEventC) EventDirection(int) int                   { return 1 }
func (c clockEventC) Events(t float64, y, dst []float64) error { dst[0] = t - c.at; return nil }
func (c clockEventC) Reset(int, float64, []float64, []float64) (EventAction, error) {
	return EventContinue, nil
}

// TestDopriEventAtStepEndC: an event exactly at the end of a step does
// not truncate it, so it does not bound the next proposal: after the
// trimmed last step [0, 0.01] on which g = t − 0.01 reaches 0 at its
// end, NextStep keeps the proposal 1 (see
// TestDopriTrimmedLastStepKeepsProposalC), not 10·0.01.
func TestDopriEventAtStepEndC(t *testing.T) {
	a := newDPC(t, clockEventC{at: 0.01}, DormandPrince{InitialStep: 1}, 0, 0)
	rep, err := a.Step(0.01)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Event != 0 || rep.T1 != 0.01 {
		t.Fatalf("step %+v: want the event at its end 0.01", rep)
	}
	if got := a.NextStep(); got != 1 {
		t.Errorf("NextStep %v after an event at the step's end, want 1", got)
	}
}
