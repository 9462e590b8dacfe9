package integrators

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
)

// TestBDFStepsOverJumpMatchCVODEA: BDF's step and order selection
// through repeated error-test failures is CVODE's. The problem is linear
// with a forcing that jumps at t = 1 (y₀' = −y₀ + 10·[t ≥ 1],
// y₁' = y₀ − 2y₁ from (1, 0), RTol 1e-6, ATol 1e-8, analytic Jacobian);
// the reference is CVODE's own trajectory (SUNDIALS 6.4.1, dense LU:
// testdata/cvode_jump_steps.c, its output in
// testdata/cvode_jump_steps.txt). CVODE reaches order 5 and meets the
// jump with steps that fail the error test, twice in a row at step 54
// (the second failure bounds the cut to 0.2). Over its first 58 steps
// (to t = 0.99999613, the steps before the first with more than three
// failures) BDF must take the same step sizes and orders and fail the
// same error tests at the same steps; the tolerance is that of
// TestBDFStepsMatchCVODE (1e-8 relative on step and time, 1e-8 absolute
// on y0; measured: 1.2e-9 on the step sizes). At the 59th step, after a
// fourth failure, CVODE 6.4.1 lowers the order by one (5 to 4) where
// BDF restarts at order 1 ("Repeated failures: drop to order 1" in
// bdfDriver.Step); the steps differ from there on.
func TestBDFStepsOverJumpMatchCVODEA(t *testing.T) {
	cvodeStepsA(t, "testdata/cvode_jump_steps.txt", 58, func(t float64) float64 {
		if t >= 1 {
			return 10
		}
		return 0
	})
}

// TestBDFStepsOverPulseMatchCVODEA: the same with a narrow pulse of
// forcing at t = 1 instead of the jump (y₀' = −y₀ + 10·exp(−1000(t − 1)²);
// testdata/cvode_pulse_steps.c and .txt): CVODE fails single error tests
// and lowers the order from 5 to 4 (step 105) and to 3 (step 110)
// before raising it again; BDF must follow over the first 130 steps
// (to t = 1.74; measured: 5.5e-10 relative on the step sizes; past
// step 130 the differences grow towards the tolerance).
func TestBDFStepsOverPulseMatchCVODEA(t *testing.T) {
	cvodeStepsA(t, "testdata/cvode_pulse_steps.txt", 130, func(t float64) float64 {
		return 10 * math.Exp(-1000*(t-1)*(t-1))
	})
}

// TestBDFStepsAfterStartJumpMatchCVODEA: the same from a forcing that
// switches on right after t0 = 0 (y₀' = [t > 0], y₁' = y₀ − y₁ from
// (0, 1), first step 1e-3; testdata/cvode_start_jump_steps.c and .txt):
// the first step fails the error test five times at order 1, the last
// two after three failures, where CVODE restarts the history from f and
// waits ten steps before considering a higher order. BDF must follow
// over all 41 steps to t = 1.
func TestBDFStepsAfterStartJumpMatchCVODEA(t *testing.T) {
	sys := jacSysA{n: 2,
		f: func(t float64, y, d []float64) {
			d[0] = 0
			if t > 0 {
				d[0] = 1
			}
			d[1] = y[0] - y[1]
		},
		jac: func(_ float64, _, d []float64) { copy(d, []float64{0, 0, 1, -1}) }}
	cvodeTrajectoryA(t, "testdata/cvode_start_jump_steps.txt", 41, sys, BDF{RTol: 1e-6, ATol: 1e-8, InitialStep: 1e-3}, []float64{0, 1}, 1)
}

// cvodeStepsA runs BDF on y₀' = −y₀ + u(t), y₁' = y₀ − 2y₁ from (1, 0)
// to 3 and compares its first n steps with CVODE's trajectory in file.
func cvodeStepsA(t *testing.T, file string, n int, u func(t float64) float64) {
	t.Helper()
	sys := jacSysA{n: 2,
		f: func(t float64, y, d []float64) {
			d[0] = -y[0] + u(t)
			d[1] = y[0] - 2*y[1]
		},
		jac: func(_ float64, _, d []float64) { copy(d, []float64{-1, 0, 1, -2}) }}
	cvodeTrajectoryA(t, file, n, sys, BDF{RTol: 1e-6, ATol: 1e-8}, []float64{1, 0}, 3)
}

// cvodeTrajectoryA runs m on sys from (0, y0) towards tEnd and compares
// its first n steps with CVODE's trajectory in file (lines: step, step
// size, order, time, y0, cumulative error-test and Newton failures):
// 1e-8 relative on step size and time, 1e-8 absolute on y0, the same
// order and the same rejections.
func cvodeTrajectoryA(t *testing.T, file string, n int, sys System, m BDF, y0 []float64, tEnd float64) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	d, err := m.NewDriver(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Init(0, y0); err != nil {
		t.Fatal(err)
	}
	bd := d.(*bdfDriver)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	worst := 0.0
	for _, line := range lines[:n] {
		var i, q, nef, ncf int
		var h, tc, y0 float64
		if _, err := fmt.Sscan(line, &i, &h, &q, &tc, &y0, &nef, &ncf); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		rep, err := d.Step(tEnd)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		tt, y := d.State()
		w := d.Work()
		worst = math.Max(worst, math.Abs(rep.H-h)/h)
		if math.Abs(rep.H-h) > 1e-8*h || math.Abs(tt-tc) > 1e-8*tc || math.Abs(y[0]-y0) > 1e-8 || w.Rejected != nef+ncf || bd.q != q {
			t.Fatalf("step %d: h %.17g t %.17g y0 %.17g order %d, %d rejected; CVODE: h %.17g t %.17g y0 %.17g order %d, %d error-test and %d Newton failures",
				i, rep.H, tt, y[0], bd.q, w.Rejected, h, tc, y0, q, nef, ncf)
		}
	}
	t.Logf("largest relative difference of a step size: %.3g", worst)
}
