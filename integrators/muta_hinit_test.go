package integrators

import (
	"math"
	"testing"
)

// hinitHNW follows Hairer, Nørsett & Wanner's HINIT (Solving ODEs I,
// §II.4) in the RMS norms of the error test, sc_i = ATol + RTol·|y_i|:
// d0 = ‖y0‖, d1 = ‖f0‖, h0 = 0.01·d0/d1 (1e-6 when d0 or d1 < 1e-5),
// bounded by hmax and tMax − t; one explicit Euler step of h0 gives
// d2 = ‖f(t + h0, y0 + h0·f0) − f0‖/h0; h1 = (0.01/max(d1, d2))^(1/(p+1))
// (max(1e-6, 1e-3·h0) when max(d1, d2) ≤ 1e-15); the step is
// min(100·h0, h1, hmax, tMax − t). Each case below has its value in
// closed form from that recipe, written out for the case's own
// right-hand side; they differ only by rounding from the code's
// evaluation order, so the tolerance is 1e-12 relative.
func TestHinitHNWClosedFormA(t *testing.T) {
	type fn = func(t float64, y, dst []float64) error
	cases := []struct {
		name                   string
		f                      fn
		t0                     float64
		y                      []float64
		p                      int
		rtol, atol, hmax, tMax float64
		want                   float64
	}{
		{
			// f = (2t·y₁, −y₂) at t = 1, y = (1, 3), RTol = ATol = 1:
			// sc = (2, 4), f0 = (2, −3), d0² = (1/4 + 9/16)/2 = 0.40625,
			// d1² = (1 + 9/16)/2 = 0.78125, h0 = 0.01·√(0.52). The Euler
			// step gives f1 − f0 = (2(1+h0)(1+2h0) − 2, 3h0)
			// = (6h0 + 4h0², 3h0), so d2² = ((3 + 2h0)² + (3/4)²)/2 > d1²,
			// and h1 = (0.01/d2)^(1/4) (order 3) is the step.
			name: "generic, order 3",
			f: func(t float64, y, d []float64) error {
				d[0], d[1] = 2*t*y[0], -y[1]
				return nil
			},
			t0: 1, y: []float64{1, 3}, p: 3, rtol: 1, atol: 1, hmax: math.Inf(1), tMax: 10,
			want: func() float64 {
				h0 := 0.01 * math.Sqrt(0.40625/0.78125)
				d2 := math.Sqrt((math.Pow(3+2*h0, 2) + 0.5625) / 2)
				return math.Pow(0.01/d2, 0.25)
			}(),
		},
		{
			// y = 1e-5, ATol = 1, RTol = 0: d0 = 1e-5 exactly (√ of the
			// rounded square gives the number back), which is not below
			// 1e-5, so h0 = 0.01·1e-5/1e-3 = 1e-4 (f = −100y, d1 = 1e-3).
			// d2 = 100·|f0| = 0.1 and h1 = √(0.01/0.1) ≈ 0.32 (order 1):
			// the step is 100·h0 = 0.01.
			name: "d0 at 1e-5",
			f: func(_ float64, y, d []float64) error {
				d[0] = -100 * y[0]
				return nil
			},
			y: []float64{1e-5}, p: 1, rtol: 0, atol: 1, hmax: math.Inf(1), tMax: 10,
			want: 100 * (0.01 * 1e-5 / 1e-3),
		},
		{
			// f = 1e-5 (constant), y = 1, ATol = 1: d1 = 1e-5 exactly, so
			// h0 = 0.01·1/1e-5 = 1000; d2 = 0, h1 = √(0.01/1e-5) ≈ 31.6
			// (order 1) is below 100·h0.
			name: "d1 at 1e-5",
			f: func(_ float64, _, d []float64) error {
				d[0] = 1e-5
				return nil
			},
			y: []float64{1}, p: 1, rtol: 0, atol: 1, hmax: math.Inf(1), tMax: 1e9,
			want: math.Sqrt(0.01 / 1e-5),
		},
		{
			// f = 1e-15: max(d1, d2) = 1e-15 exactly, the tiny-derivative
			// branch: h0 = 1e-6 (d1 < 1e-5), h1 = max(1e-6, 1e-9) = 1e-6.
			name: "max(d1, d2) at 1e-15",
			f: func(_ float64, _, d []float64) error {
				d[0] = 1e-15
				return nil
			},
			y: []float64{1}, p: 1, rtol: 0, atol: 1, hmax: math.Inf(1), tMax: 1e9,
			want: 1e-6,
		},
		{
			// f = 0: the same branch, h1 = max(1e-6, 1e-3·h0) = 1e-6.
			name: "f = 0",
			f: func(_ float64, _, d []float64) error {
				d[0] = 0
				return nil
			},
			y: []float64{1}, p: 1, rtol: 0, atol: 1, hmax: math.Inf(1), tMax: 1e9,
			want: 1e-6,
		},
		{
			// f = 1 + s + s², s = t − 5, from t = 5 with tMax = 6 and
			// y = 1000 (ATol = 1): d0 = 1000, d1 = 1, h0 = 10 cut to
			// tMax − t = 1; the Euler step to t = 6 gives f1 − f0 = 2, so
			// d2 = 2 and h1 = √(0.01/2) (order 1).
			name: "h0 bounded by tMax − t",
			f: func(t float64, _, d []float64) error {
				s := t - 5
				d[0] = 1 + s + s*s
				return nil
			},
			t0: 5, y: []float64{1000}, p: 1, rtol: 0, atol: 1, hmax: math.Inf(1), tMax: 6,
			want: math.Sqrt(0.01 / 2),
		},
		{
			// The same from t = 5 to tMax = 5.01: h0 = 0.01, d2 = 1.01,
			// h1 = √(0.01/1.01) ≈ 0.0995, and the step is tMax − t = 0.01.
			name: "step bounded by tMax − t",
			f: func(t float64, _, d []float64) error {
				s := t - 5
				d[0] = 1 + s + s*s
				return nil
			},
			t0: 5, y: []float64{1000}, p: 1, rtol: 0, atol: 1, hmax: math.Inf(1), tMax: 5.01,
			want: 5.01 - 5,
		},
	}
	for _, c := range cases {
		n := len(c.y)
		f0, f1, tmp := make([]float64, n), make([]float64, n), make([]float64, n)
		if err := c.f(c.t0, c.y, f0); err != nil {
			t.Fatal(err)
		}
		got, err := hinitHNW(c.f, c.t0, c.y, f0, f1, tmp, c.p, c.rtol, c.atol, c.hmax, c.tMax)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if math.Abs(got-c.want) > 1e-12*c.want {
			t.Errorf("%s: initial step %.17g, want %.17g", c.name, got, c.want)
		}
	}
}
