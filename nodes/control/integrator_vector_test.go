package control_test

import (
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/control"
)

// A limited integrator of size 3 holds each component at its own limits
// only: the rate, the input Jacobian, the event functions and the resets
// of component i use lower_i and upper_i (parameter rows k·n + i), never
// a neighbour's. The limits differ per component and the states are
// chosen inside their own band but beyond a neighbour's limit, so that a
// wrong offset changes the answer. Expected values are the block's
// definition (integrator.go, Derivatives/EventValues/Reset): ẏ_i = K_i u_i,
// or 0 where y_i is at a limit and K_i u_i pushes beyond it; event values
// y_i − upper_i, then lower_i − y_i, then reset − 0.5; a reset sets
// component i to the limit it reached, or all to `initial`.
func TestIntegratorVectorLimitsPerComponent(t *testing.T) {
	gain := []float64{2, -1, 3}
	initial := []float64{0.1, -0.2, 0.2}
	lower := []float64{-0.3, -0.5, -0.2}
	upper := []float64{0.4, 0.6, 0.25}
	it, err := control.NewIntegrator(control.IntegratorParams{Size: 3, Gain: gain, Initial: initial, Limit: true, Lower: lower, Upper: upper})
	if err != nil {
		t.Fatal(err)
	}
	free := func(u []float64) []float64 { return []float64{gain[0] * u[0], gain[1] * u[1], gain[2] * u[2]} }
	zero := []float64{0, 0, 0}
	up, down := []float64{1, -1, 1}, []float64{-1, 1, -1} // K u > 0, < 0 in every component
	for _, c := range []struct {
		name string
		x, u []float64
		want []float64
	}{
		{"each at its own upper limit pushed up: held", upper, up, zero},
		{"each at its own lower limit pushed down: held", lower, down, zero},
		{"each at its own upper limit pulled down: free", upper, down, free(down)},
		// 0.35 is above upper_2, 0.5 above upper_0 and upper_2, 0.2 below upper_2.
		{"inside its band, beyond a neighbour's upper limit, pushed up: free", []float64{0.35, 0.5, 0.2}, up, free(up)},
		// −0.25 is below lower_2, −0.4 below lower_0 and lower_2.
		{"inside its band, beyond a neighbour's lower limit, pushed down: free", []float64{-0.25, -0.4, -0.15}, down, free(down)},
		{"held and free mixed", []float64{0.4, 0, -0.2}, []float64{1, 1, -1}, []float64{0, -1, 0}},
	} {
		in := node.Inputs{Values: append(append([]float64(nil), c.u...), 0), Present: []bool{true, true}}
		rate := make([]float64, 3)
		if err := it.Derivatives(0, c.x, in, rate); err != nil {
			t.Fatal(err)
		}
		dU := make([]float64, 3*4)
		if err := it.DerivativesJacobian(0, c.x, in, nil, dU); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			if rate[i] != c.want[i] {
				t.Errorf("%s: ẏ_%d = %v, want %v", c.name, i, rate[i], c.want[i])
			}
			// ∂ẏ_i/∂u_i is K_i where the component is free, 0 where held.
			wantD := gain[i]
			if c.want[i] == 0 {
				wantD = 0
			}
			for j := range 4 {
				w := 0.0
				if j == i {
					w = wantD
				}
				if dU[i*4+j] != w {
					t.Errorf("%s: ∂ẏ_%d/∂u_%d = %v, want %v", c.name, i, j, dU[i*4+j], w)
				}
			}
		}
	}

	x := []float64{0.3, -0.1, 0.1}
	ev := make([]float64, 7)
	in := node.Inputs{Values: []float64{0, 0, 0, 0.2}, Present: []bool{true, true}}
	if err := it.EventValues(0, x, in, ev); err != nil {
		t.Fatal(err)
	}
	wantEv := []float64{x[0] - upper[0], x[1] - upper[1], x[2] - upper[2], lower[0] - x[0], lower[1] - x[1], lower[2] - x[2], 0.2 - control.ResetThreshold}
	for k := range ev {
		if ev[k] != wantEv[k] {
			t.Errorf("limited, reset connected: event value %d = %v, want %v", k, ev[k], wantEv[k])
		}
	}
	in.Present[1] = false
	if err := it.EventValues(0, x, in, ev); err != nil {
		t.Fatal(err)
	}
	if ev[6] != -1 {
		t.Errorf("reset unconnected: reset event value %v, want −1 (never crosses)", ev[6])
	}
	for ev := range 7 {
		dst := make([]float64, 3)
		if err := it.Reset(ev, 0, x, in, dst); err != nil {
			t.Fatal(err)
		}
		want := append([]float64(nil), x...)
		switch {
		case ev < 3:
			want[ev] = upper[ev]
		case ev < 6:
			want[ev-3] = lower[ev-3]
		default:
			want = initial
		}
		for i := range 3 {
			if dst[i] != want[i] {
				t.Errorf("reset by event %d: component %d = %v, want %v", ev, i, dst[i], want[i])
			}
		}
	}

	unl, err := control.NewIntegrator(control.IntegratorParams{Size: 3, Gain: gain})
	if err != nil {
		t.Fatal(err)
	}
	reset := 0.7 // a variable: 0.7 − 0.5 in float64, as the block computes it
	in = node.Inputs{Values: []float64{0, 0, 0, reset}, Present: []bool{true, true}}
	if err := unl.EventValues(0, x, in, ev); err != nil {
		t.Fatal(err)
	}
	for k, w := range []float64{-1, -1, -1, -1, -1, -1, reset - control.ResetThreshold} {
		if ev[k] != w {
			t.Errorf("unlimited: event value %d = %v, want %v", k, ev[k], w)
		}
	}
	// Unlimited, beyond the default band [−1, 1] and pushing outwards:
	// never held.
	in = node.Inputs{Values: []float64{1, -1, -1, 0}, Present: []bool{true, true}}
	rate := make([]float64, 3)
	if err := unl.Derivatives(0, []float64{2, -2, -3}, in, rate); err != nil {
		t.Fatal(err)
	}
	for i, w := range free([]float64{1, -1, -1}) {
		if rate[i] != w {
			t.Errorf("unlimited: ẏ_%d = %v, want %v", i, rate[i], w)
		}
	}
}
