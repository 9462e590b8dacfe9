package integrators

import (
	"math"
	"testing"
)

// The fixed-step BDF Stepper of order q has global order q (BDF.New:
// the starting steps by ESDIRK43 keep it). On y' = −y + sin t from
// t0 = 0.5 (not 0, so that sums and differences of the starting times
// differ), y(t) = C·e^{−t} + (sin t − cos t)/2 with C fixed by
// y(0.5) = 1, the error at t = 1.5 after steps of 1/40 and 1/80 must
// shrink by 2^q within a factor 2^{±0.4} (measured: within 2^{±0.1}).
func TestBDFStepperOrderA(t *testing.T) {
	sys := jacSysA{n: 1,
		f:   func(t float64, y, d []float64) { d[0] = -y[0] + math.Sin(t) },
		jac: func(_ float64, _, d []float64) { d[0] = -1 }}
	const t0, t1 = 0.5, 1.5
	part := func(t float64) float64 { return (math.Sin(t) - math.Cos(t)) / 2 }
	c := (1 - part(t0)) * math.Exp(t0)
	exact := c*math.Exp(-t1) + part(t1)
	errAt := func(q, n int) float64 {
		s, err := BDF{MaxOrder: q, Newton: NewtonOptions{Tol: 1e-14}}.New(sys, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Init(t0, []float64{1}); err != nil {
			t.Fatal(err)
		}
		dt := (t1 - t0) / float64(n)
		for i := 0; i < n; i++ {
			if err := s.Step(dt); err != nil {
				t.Fatal(err)
			}
		}
		_, y := s.State()
		return math.Abs(y[0] - exact)
	}
	for q := 2; q <= 5; q++ {
		e1, e2 := errAt(q, 40), errAt(q, 80)
		p := math.Log2(e1 / e2)
		t.Logf("BDF-%d: errors %.3g, %.3g: observed order %.2f", q, e1, e2, p)
		if math.Abs(p-float64(q)) > 0.4 {
			t.Errorf("BDF-%d: observed order %.2f (errors %.3g at 1/40, %.3g at 1/80)", q, p, e1, e2)
		}
	}
}

// With a constant step the fixed-step BDF Stepper takes the classical
// BDF-q steps from its starting values (Nordsieck form with the history
// interpolating the last q values: the corrector polynomial then
// interpolates q + 1 values and has slope f at the new point):
// Σ_j α_j·y_{n+1−j} = h·f(t_{n+1}, y_{n+1}) with the textbook
// coefficients (Hairer, Nørsett & Wanner I, §III.1, Table 1.2). Checked
// for the first six BDF steps after the start, Newton converged to
// Tol = 1e-14, to 1e-12 absolute (the residual of the formula is then
// rounding, measured below 1e-15; history built with wrong past steps,
// the sums of the starting times instead of their differences, leaves
// residuals above 1e-11 at the first BDF step).
func TestBDFStepperClassicalFormulaA(t *testing.T) {
	alpha := map[int][]float64{
		2: {3.0 / 2, -2, 1.0 / 2},
		3: {11.0 / 6, -3, 3.0 / 2, -1.0 / 3},
		4: {25.0 / 12, -4, 3, -4.0 / 3, 1.0 / 4},
		5: {137.0 / 60, -5, 5, -10.0 / 3, 5.0 / 4, -1.0 / 5},
	}
	f := func(t, y float64) float64 { return -y + math.Sin(t) }
	sys := jacSysA{n: 1,
		f:   func(t float64, y, d []float64) { d[0] = f(t, y[0]) },
		jac: func(_ float64, _, d []float64) { d[0] = -1 }}
	const t0, dt = 0.5, 1.0 / 40
	for q := 2; q <= 5; q++ {
		s, err := BDF{MaxOrder: q, Newton: NewtonOptions{Tol: 1e-14}}.New(sys, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Init(t0, []float64{1}); err != nil {
			t.Fatal(err)
		}
		ys, ts := []float64{1}, []float64{t0}
		for i := 0; i < q+5; i++ {
			if err := s.Step(dt); err != nil {
				t.Fatal(err)
			}
			tt, y := s.State()
			ys, ts = append(ys, y[0]), append(ts, tt)
		}
		for n := q; n < len(ys); n++ { // y_n is a BDF step from y_{n−q} … y_{n−1}
			lhs := 0.0
			for j, a := range alpha[q] {
				lhs += a * ys[n-j]
			}
			if r := lhs - dt*f(ts[n], ys[n]); math.Abs(r) > 1e-12 {
				t.Errorf("BDF-%d, step %d: residual of the classical formula %.3g", q, n, r)
			}
		}
	}
}

// A fixed-step BDF Stepper restored from its own checkpoint reports the
// checkpoint's Work, the starting steps' work included once, and steps
// on as the uninterrupted one: BDF-3 checkpointed after 5 steps (its
// two ESDIRK43 starting steps and three BDF steps), stepped on 4 more,
// restored and stepped the same 4 again; and BDF-1, which has no
// starting steps.
func TestBDFStepperRestoreOwnCheckpointA(t *testing.T) {
	sys := jacSysA{n: 1,
		f:   func(t float64, y, d []float64) { d[0] = -y[0] + math.Sin(t) },
		jac: func(_ float64, _, d []float64) { d[0] = -1 }}
	for _, q := range []int{3, 1} {
		s, err := BDF{MaxOrder: q}.New(sys, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Init(0, []float64{1}); err != nil {
			t.Fatal(err)
		}
		step := func(k int) float64 {
			for i := 0; i < k; i++ {
				if err := s.Step(0.05); err != nil {
					t.Fatal(err)
				}
			}
			_, y := s.State()
			return y[0]
		}
		step(5)
		cp := s.(Checkpointer).Checkpoint()
		w5 := s.Work()
		y9 := step(4)
		if err := s.(Checkpointer).Restore(cp); err != nil {
			t.Fatalf("BDF-%d: %v", q, err)
		}
		if w := s.Work(); w != w5 {
			t.Errorf("BDF-%d: Work after Restore %+v, want the checkpoint's %+v", q, w, w5)
		}
		if y := step(4); y != y9 {
			t.Errorf("BDF-%d: y after the restored steps %.17g, the run's %.17g", q, y, y9)
		}
	}
}

// The error estimate of a constant-step fixed BDF-q step (LocalError,
// tq₂·Δ) uses BDF-q's error constant relative to the correction,
// 1/((q + 1)·l₁) with l₁ = Σ_{j≤q} 1/j (bdfCoefficients), from the first
// BDF step after the start on.
func TestBDFStepperErrorConstantA(t *testing.T) {
	sys := jacSysA{n: 1,
		f:   func(t float64, y, d []float64) { d[0] = -y[0] + math.Sin(t) },
		jac: func(_ float64, _, d []float64) { d[0] = -1 }}
	for q := 2; q <= 5; q++ {
		s, err := BDF{MaxOrder: q}.New(sys, nil)
		if err != nil {
			t.Fatal(err)
		}
		bs, ok := s.(*bdfStepper)
		if !ok {
			t.Fatalf("BDF.New returned %T", s)
		}
		if err := s.Init(0.5, []float64{1}); err != nil {
			t.Fatal(err)
		}
		l1 := 0.0
		for j := 1; j <= q; j++ {
			l1 += 1 / float64(j)
		}
		want := 1 / (float64(q+1) * l1)
		for i := 0; i < q+2; i++ {
			if err := s.Step(0.025); err != nil {
				t.Fatal(err)
			}
			if i >= q-1 && math.Abs(bs.d.lastTq2-want) > 1e-12*want {
				t.Errorf("BDF-%d, step %d: error constant %.17g, want %.17g", q, i+1, bs.d.lastTq2, want)
			}
		}
	}
}
