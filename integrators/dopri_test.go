package integrators

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
)

// TestAdaptiveToleranceSweep: on the oscillator over [0, 10] the global
// error follows the tolerance (bounded by 100·RTol here) and the number
// of steps grows like RTol^(−1/5), the signature of a controller driving
// the local error of the embedded 4th-order estimate: the fitted slope of
// log(steps) against log(RTol) must be within 0.05 of −1/5. Every step
// costs 6 evaluations (FSAL) plus 2 at the start (first stage and the
// initial-step guess).
func TestAdaptiveToleranceSweep(t *testing.T) {
	const T = 10
	var logTol, logSteps []float64
	prevErr := math.Inf(1)
	for _, tol := range []float64{1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10} {
		res, err := integrateS(&oscillator{}, 0, []float64{1, 0}, T, &settings{RTol: tol, ATol: tol})
		if err != nil {
			t.Fatal(err)
		}
		e := math.Hypot(res.Y[0]-math.Cos(T), res.Y[1]+math.Sin(T))
		t.Logf("rtol %.0e: error %.3e, %d steps, %d rejected, %d evaluations", tol, e, res.Steps, res.Rejected, res.FuncEvals)
		if !numtest.AtMost(e, 100*tol) || e >= prevErr {
			t.Errorf("rtol %g: error %g (previous %g)", tol, e, prevErr)
		}
		if res.FuncEvals != 6*(res.Steps+res.Rejected)+2 {
			t.Errorf("evaluations %d for %d trials: FSAL broken", res.FuncEvals, res.Steps+res.Rejected)
		}
		prevErr = e
		logTol = append(logTol, math.Log(tol))
		logSteps = append(logSteps, math.Log(float64(res.Steps)))
	}
	n := float64(len(logTol))
	var sx, sy, sxx, sxy float64
	for i := range logTol {
		sx += logTol[i]
		sy += logSteps[i]
		sxx += logTol[i] * logTol[i]
		sxy += logTol[i] * logSteps[i]
	}
	slope := (n*sxy - sx*sy) / (n*sxx - sx*sx)
	t.Logf("slope d log(steps)/d log(rtol) = %.3f", slope)
	numtest.ExpectWithin(t, "step-count slope", slope, -0.2, 0.05)
}

// TestAdaptiveFixedStepMatchesStepper: DormandPrince.FixedStep turns the
// driver into the fixed-step 5th-order method, bit-identical to the
// "dormand-prince" Stepper, and its observed order is 5 (|p − 5| ≤ 0.1).
func TestAdaptiveFixedStepMatchesStepper(t *testing.T) {
	const T = 2
	var errs []float64
	for _, n := range []int{20, 40, 80} {
		res, err := integrateS(&oscillator{}, 0, []float64{1, 0}, T, &settings{FixedStep: T / float64(n)})
		if err != nil {
			t.Fatal(err)
		}
		y := runFixed(t, DormandPrince{}, &oscillator{}, []float64{1, 0}, T, n)
		if res.Y[0] != y[0] || res.Y[1] != y[1] || res.Steps != n {
			t.Errorf("n=%d: driver %v (%d steps), stepper %v", n, res.Y, res.Steps, y)
		}
		errs = append(errs, math.Hypot(res.Y[0]-math.Cos(T), res.Y[1]+math.Sin(T)))
	}
	p := observedOrder(errs)
	t.Logf("fixed-step errors %.3e → order %.3f", errs, p)
	numtest.ExpectWithin(t, "fixed-step Dormand–Prince order", p, 5, 0.1)
}

// TestDenseOutput: samples at requested times between steps. With a
// fixed step h the error at step midpoints is the global error plus the
// local error of the 4th-order continuous extension, O(h^5) each; we
// require an observed order ≥ 3.9 (the extension's declared order 4,
// less 0.1). With adaptive steps every sample is within 1e-4 of the
// exact solution at the default RTol = 1e-6 (the global error over 10 s
// measured in TestAdaptiveToleranceSweep is 3e-6).
func TestDenseOutput(t *testing.T) {
	const T = 2
	var errs []float64
	for _, n := range []int{10, 20, 40} {
		h := T / float64(n)
		var out []float64
		for i := 0; i < n; i++ {
			out = append(out, (float64(i)+0.5)*h)
		}
		res, err := integrateS(&oscillator{}, 0, []float64{1, 0}, T, &settings{FixedStep: h, Output: out})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Samples) != n {
			t.Fatalf("%d samples", len(res.Samples))
		}
		worst := 0.0
		for _, s := range res.Samples {
			worst = math.Max(worst, math.Abs(s.Y[0]-math.Cos(s.T)))
		}
		errs = append(errs, worst)
	}
	p := observedOrder(errs)
	t.Logf("midpoint dense-output errors %.3e → order %.3f", errs, p)
	if p < 3.9 {
		t.Errorf("dense output order %v", p)
	}
	out := []float64{0, 0.1, 0.2, 1.5, 3, 7.25, 10}
	res, err := integrateS(&oscillator{}, 0, []float64{1, 0}, 10, &settings{Output: out})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Samples) != len(out) || res.Steps > 100 {
		t.Fatalf("%d samples, %d steps", len(res.Samples), res.Steps)
	}
	for i, s := range res.Samples {
		if s.T != out[i] {
			t.Errorf("sample %d at %v", i, s.T)
		}
		numtest.ExpectWithin(t, fmt.Sprintf("x(%v)", s.T), s.Y[0], math.Cos(s.T), 1e-4)
	}
	if _, err := integrateS(&oscillator{}, 0, []float64{1, 0}, 1, &settings{Output: []float64{0.5, 0.2}}); err == nil {
		t.Error("unsorted output times accepted")
	}
}

// stiffish is y' = −50·(y − cos t): a fast transient onto a slow
// solution, to exercise rejections.
var stiffish = SystemFunc{N: 1, F: func(t float64, y, dst []float64) error {
	dst[0] = -50 * (y[0] - math.Cos(t))
	return nil
}}

// TestAdaptiveRejectionsAndLimits: a too-large initial step is rejected
// and shrunk (the accepted result still meets the tolerance); a MinStep
// the controller cannot honour ends with StepTooSmall, and MaxSteps with
// MaxStepsReached, both naming the time and leaving the last accepted
// state in the Outcome.
func TestAdaptiveRejectionsAndLimits(t *testing.T) {
	res, err := integrateS(stiffish, 0, []float64{0}, 2, &settings{InitialStep: 1, RTol: 1e-8, ATol: 1e-10})
	if err != nil {
		t.Fatal(err)
	}
	// Exact: y = (2500 cos t + 50 sin t)/2501 + C e^{−50t}, C = −2500/2501.
	exact := (2500*math.Cos(2)+50*math.Sin(2))/2501 - 2500.0/2501*math.Exp(-100)
	numtest.ExpectWithin(t, "y(2)", res.Y[0], exact, 1e-7)
	if res.Rejected == 0 {
		t.Error("no rejected step with InitialStep = 1")
	}
	t.Logf("stats %+v", res.Work)

	res, err = integrateS(stiffish, 0, []float64{0}, 2, &settings{MinStep: 0.5})
	var se *StepError
	if !errors.Is(err, ErrStepTooSmall) || res.Status != StepTooSmall || !errors.As(err, &se) {
		t.Errorf("MinStep: %v %v", err, res.Status)
	}
	res, err = integrateS(stiffish, 0, []float64{0}, 2, &settings{MaxSteps: 5})
	if !errors.Is(err, ErrMaxSteps) || res.Status != MaxStepsReached || res.Status.Err() != ErrMaxSteps {
		t.Errorf("MaxSteps: %v %v", err, res.Status)
	}
	t.Log(err)
	if res.T <= 0 || len(res.Y) != 1 {
		t.Errorf("last accepted state %v %v", res.T, res.Y)
	}
}

// TestAdaptiveCheckpoint: N adaptive steps (with events, rejections and
// the PI controller's memory), checkpoint, restore into a fresh Adaptive,
// M more steps: bit-identical to N+M uninterrupted.
func TestAdaptiveCheckpoint(t *testing.T) {
	for _, sys := range []System{&ball{g: 9.81, e: 0.9}, stiffish} {
		s := &settings{MaxStep: 1, InitialStep: 0.7}
		y0 := []float64{10, 0}[:sys.Dim()]
		run := func(a *Adaptive, k int) {
			for i := 0; i < k; i++ {
				if _, err := a.Step(100); err != nil {
					t.Fatal(err)
				}
			}
		}
		ref, _ := newAdaptiveS(sys, s)
		ref.Init(0, y0)
		run(ref, 40)
		a, _ := newAdaptiveS(sys, s)
		a.Init(0, y0)
		run(a, 17)
		cp := a.Checkpoint()
		b, _ := newAdaptiveS(sys, s)
		if err := b.Restore(cp); err != nil {
			t.Fatal(err)
		}
		run(b, 23)
		t1, y1 := ref.State()
		t2, y2 := b.State()
		if t1 != t2 || y1[0] != y2[0] || ref.NextStep() != b.NextStep() || ref.Work() != b.Work() {
			t.Errorf("restored (%v %v %v %+v) differs from uninterrupted (%v %v %v %+v)",
				t2, y2, b.NextStep(), b.Work(), t1, y1, ref.NextStep(), ref.Work())
		}
		t.Logf("after 40 steps: t=%v, %+v", t1, ref.Work())
	}
}

func ExampleIntegrate() {
	// A ball dropped from 10 m bounces with restitution 0.9; the impacts
	// are located on the dense output and the reset v ← −e·v applied.
	res, err := integrateS(&ball{g: 9.81, e: 0.9}, 0, []float64{10, 0}, 10, &settings{MaxStep: 1, Output: []float64{10}})
	if err != nil {
		panic(err)
	}
	for _, ev := range res.Events {
		fmt.Printf("impact at t = %.7f s, v = %.4f → %.4f m/s\n", ev.T, ev.Before[1], ev.After[1])
	}
	fmt.Printf("%v: h(10) = %.7f m, v(10) = %.7f m/s\n", res.Status, res.Samples[0].Y[0], res.Samples[0].Y[1])
	// Output:
	// impact at t = 1.4278431 s, v = -14.0071 → 12.6064 m/s
	// impact at t = 3.9979607 s, v = -12.6064 → 11.3458 m/s
	// impact at t = 6.3110666 s, v = -11.3458 → 10.2112 m/s
	// impact at t = 8.3928619 s, v = -10.2112 → 9.1901 m/s
	// Success: h(10) = 2.1006464 m, v(10) = -6.5759398 m/s
}
