package control_test

import (
	"math"
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/control"
)

// oneInput is the inputs of a block with one input of size len(u), all
// present.
func oneInput(u ...float64) node.Inputs {
	p := make([]bool, 1)
	p[0] = true
	return node.Inputs{Values: u, Present: p}
}

// The rate limiter's Update is the exact solution of
// ẏ = clamp((u − y)/T, −F, R) over dt with u held. Reference: the same
// equation integrated independently with classical RK4 at h = dt/2·10^5
// (the right-hand side is Lipschitz with a kink where the clamp starts
// to act, so a step across the kink errs O(h²) ≈ 1e-15 locally; the
// smooth parts O(h⁵)); tolerance 1e-9 absolute on outputs of order 1.
// The cases cover a ramp up cut short by the step, a ramp up then the
// exponential approach, the same two down (F ≠ R), and a small jump
// closed exponentially only.
func TestRateLimiterExact(t *testing.T) {
	const rise, fall, tau = 2.0, 3.0, 0.05
	n, err := registry(t).New("ratelimiter", map[string]any{"rising": rise, "falling": fall, "time_constant": tau})
	if err != nil {
		t.Fatal(err)
	}
	f := func(y, u float64) float64 { return math.Max(-fall, math.Min(rise, (u-y)/tau)) }
	for _, c := range []struct{ y, u, dt float64 }{
		{0, 1, 0.1},      // ramp for (1 − 0.1)/2 = 0.45 s: cut short
		{0, 1, 0.6},      // ramp 0.45 s, then exponential
		{1, -1, 0.2},     // ramp down for (2 − 0.15)/3 ≈ 0.617 s: cut short
		{1, -1, 0.9},     // ramp down, then exponential
		{0.2, 0.25, 0.1}, // within R·T: exponential only
		{0.3, 0.2, 0.1},  // within F·T below: exponential only
	} {
		dst := make([]float64, 1)
		if err := n.Update(0, c.dt, []float64{c.y}, oneInput(c.u), dst); err != nil {
			t.Fatal(err)
		}
		steps := 200000
		h, y := c.dt/float64(steps), c.y
		for range steps {
			k1 := f(y, c.u)
			k2 := f(y+h/2*k1, c.u)
			k3 := f(y+h/2*k2, c.u)
			k4 := f(y+h*k3, c.u)
			y += h / 6 * (k1 + 2*k2 + 2*k3 + k4)
		}
		if math.Abs(dst[0]-y) > 1e-9 {
			t.Errorf("y0 = %v, u = %v, dt = %v: Update gives %.15g, RK4 %.15g", c.y, c.u, c.dt, dst[0], y)
		}
	}
}

// Dead zone and saturation on the three sides of their band, per
// component (lower −0.5, upper 0.75 for the first; −2, 1 for the
// second). Reference: the definitions, y = u − b above b, u − a below
// a, 0 between (dead zone) and y = clamp(u, a, b) (saturation); exact
// (the values are binary fractions).
func TestLimiterValues(t *testing.T) {
	reg := registry(t)
	lower, upper := []float64{-0.5, -2}, []float64{0.75, 1}
	for _, c := range []struct {
		typ  string
		u    []float64
		want []float64
	}{
		{"deadzone", []float64{1, 3}, []float64{0.25, 2}},
		{"deadzone", []float64{0.2, -1}, []float64{0, 0}},
		{"deadzone", []float64{-1, -2.5}, []float64{-0.5, -0.5}},
		{"deadzone", []float64{0.75, -2}, []float64{0, 0}},
		{"saturation", []float64{1, 3}, []float64{0.75, 1}},
		{"saturation", []float64{0.2, -1}, []float64{0.2, -1}},
		{"saturation", []float64{-1, -2.5}, []float64{-0.5, -2}},
	} {
		n, err := reg.New(c.typ, map[string]any{"size": 2, "lower": lower, "upper": upper})
		if err != nil {
			t.Fatal(err)
		}
		dst := make([]float64, 2)
		if err := n.(node.Outputter).Outputs(0, nil, oneInput(c.u...), dst); err != nil {
			t.Fatal(err)
		}
		if dst[0] != c.want[0] || dst[1] != c.want[1] {
			t.Errorf("%s of %v: %v, want %v", c.typ, c.u, dst, c.want)
		}
	}
}

// The switch's criteria on both sides of the threshold 0.5 and at it:
// "ge" is on at c = 0.5, "gt" is off there, "ne0" is off only at 0
// (it ignores the threshold). Inputs on = 1, off = −1.
func TestSwitchCriteria(t *testing.T) {
	reg := registry(t)
	for _, c := range []struct {
		criterion string
		control   float64
		on        bool
	}{
		{control.CriterionAtLeast, 0.4, false}, {control.CriterionAtLeast, 0.5, true}, {control.CriterionAtLeast, 0.6, true},
		{control.CriterionAbove, 0.4, false}, {control.CriterionAbove, 0.5, false}, {control.CriterionAbove, 0.6, true},
		{control.CriterionNonZero, 0, false}, {control.CriterionNonZero, 0.4, true}, {control.CriterionNonZero, -0.1, true},
	} {
		n, err := reg.New("switch", map[string]any{"criterion": c.criterion, "threshold": 0.5})
		if err != nil {
			t.Fatal(err)
		}
		in := node.Inputs{Values: []float64{1, c.control, -1}, Present: []bool{true, true, true}}
		dst := make([]float64, 1)
		if err := n.(node.Outputter).Outputs(0, nil, in, dst); err != nil {
			t.Fatal(err)
		}
		if got := dst[0] == 1; got != c.on {
			t.Errorf("%s at c = %v: out %v, want on %v", c.criterion, c.control, dst[0], c.on)
		}
	}
}
