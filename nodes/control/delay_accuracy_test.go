package control_test

import (
	"context"
	"math"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/nodes/control"
	"github.com/cosimgo/cosim/nodes/source"
)

// The transport delay's stated accuracy (its guide and metadata): the
// output between history samples is the linear interpolation of exact
// samples, so |y(t) − u(t − T)| ≤ h²/8·max|ü| with h = T/N, in
// co-simulation with a step that divides h. Input u = sin 3t (max|ü| =
// 9), T = 0.25 s, N = 10, 20, 40, steps of h/5 (so four of every five
// recorded outputs fall between samples), over 2 s; the reference is
// the closed form sin 3(t − T), the initial value 0 before T. The bound
// holds with a rounding allowance of 1e-14, and the error falls by the
// interpolation's order 2 when N doubles: the observed ratio of the
// largest errors is within 10 % of 4 (the largest error of linear
// interpolation, h²/8·|ü| at a midpoint, converges to that ratio as the
// samples refine). Measured: 0.96 of the bound at each N, ratios 4.0.
func TestTransportDelayInterpolationAccuracy(t *testing.T) {
	const T, omega, end = 0.25, 3.0, 2.0
	var worst []float64
	for _, N := range []int{10, 20, 40} {
		h := T / float64(N)
		u, err := source.NewSine(source.SineParams{Omega: []float64{omega}})
		if err != nil {
			t.Fatal(err)
		}
		d, err := control.NewTransportDelay(control.TransportDelayParams{Delay: T, Samples: N})
		if err != nil {
			t.Fatal(err)
		}
		g := graph.New()
		g.Add("u", u)
		g.Add("d", d)
		g.Connect("u.value", "d.in")
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		dt := h / 5
		steps := int(math.Round(end / dt))
		res, err := s.Run(context.Background(), graph.Settings{Dt: dt, Steps: steps, Record: []string{"d.out"}})
		if err != nil {
			t.Fatal(err)
		}
		y := res.History.Column("d.out")
		if len(y) != steps+1 {
			t.Fatalf("N = %d: %d rows, want %d", N, len(y), steps+1)
		}
		bound := h * h / 8 * omega * omega
		w := 0.0
		for n, v := range y {
			tn := float64(n) * dt
			want := 0.0
			if tn >= T-1e-12 {
				want = math.Sin(omega * (tn - T))
			}
			e := math.Abs(v - want)
			if !numtest.AtMost(e, bound+1e-14) {
				t.Errorf("N = %d, t = %.6g: |y − u(t − T)| = %.3g, above the stated h²/8·max|ü| = %.3g", N, tn, e, bound)
			}
			w = math.Max(w, e)
		}
		t.Logf("N = %d: largest error %.3g, bound %.3g", N, w, bound)
		worst = append(worst, w)
	}
	for k := 1; k < len(worst); k++ {
		if r := worst[k-1] / worst[k]; !numtest.Within(r, 4, 0.4) {
			t.Errorf("largest error at N = %d over that at N = %d: %.3g, want 4 ± 0.4 (second order)", 10<<(k-1), 10<<k, r)
		}
	}
}
