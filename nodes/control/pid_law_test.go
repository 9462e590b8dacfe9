package control_test

import (
	"math"
	"testing"

	"github.com/cosimgo/cosim/node"
)

// The PID's right-hand side, output, output Jacobian and initial state
// are the equations its metadata states, recomputed here from them
// independently, per component, for a size-3 limited controller whose
// components differ in every parameter: component 0's unlimited output
// v is above its upper limit, 1's inside, 2's below its lower limit:
//
//	G_r = K_p b + (K_d/T_f) c,  G_y = K_p + K_d/T_f
//	v = g_r r − g_y y − z + I,  u = clamp(v, lower, upper)
//	ż = ((K_d/T_f)(c r − y) − z)/T_f,  ġ_r = (G_r − g_r)/T_b,  ġ_y = (G_y − g_y)/T_b
//	İ = K_i (r − y) − r ġ_r + y ġ_y + K_b (u − v)
//	∂u/∂r = g_r, ∂u/∂y = −g_y inside the limits, 0 outside
//	x(t0) = [I_0, (K_d/T_f) w_0, G_r, G_y]
//
// The finite-difference conformance check cannot catch a wrong limit
// test or a wrong target gain: Derivatives, Update and the Jacobians
// share them and stay consistent with each other. Tolerance 1e-12
// relative: the same few operations in another order.
func TestPIDLawPerComponent(t *testing.T) {
	kp, ki, kd := []float64{1, 2, 0.5}, []float64{0.5, 1, 2}, []float64{0.1, 0.2, 0.05}
	tf, b, c := []float64{0.02, 0.05, 0.01}, []float64{0.8, 1, 0.6}, []float64{0.5, 0.3, 1}
	kb, lo, hi := []float64{2, 3, 4}, []float64{-1, 0.1, -0.6}, []float64{1, 0.5, 0.7}
	tb, i0, w0 := []float64{0.2, 0.1, 0.3}, []float64{0.1, -0.2, 0.3}, []float64{0.2, 0.4, -0.1}
	n, err := registry(t).New("pid", map[string]any{"size": 3, "kp": kp, "ki": ki, "kd": kd, "tf": tf,
		"setpoint_weight": b, "derivative_weight": c, "kb": kb, "limit_output": true, "lower": lo, "upper": hi,
		"retune_time": tb, "initial_integral": i0, "initial_filter_input": w0})
	if err != nil {
		t.Fatal(err)
	}
	near := func(got, want float64) bool { return math.Abs(got-want) <= 1e-12*math.Max(1, math.Abs(want)) }
	cd := func(i int) float64 { return kd[i] / tf[i] }
	targets := func(i int) (float64, float64) { return kp[i]*b[i] + cd(i)*c[i], kp[i] + cd(i) }

	x0 := make([]float64, 12)
	n.(interface{ InitialState([]float64) }).InitialState(x0)
	for i := range 3 {
		gr, gy := targets(i)
		for k, w := range []float64{i0[i], cd(i) * w0[i], gr, gy} {
			if !near(x0[k*3+i], w) {
				t.Errorf("initial state field %d component %d = %v, want %v", k, i, x0[k*3+i], w)
			}
		}
	}

	// State [I, z, g_r, g_y] per component, applied gains away from
	// their targets; r and y chosen so that v = 1.36 > 1, 0.48 inside
	// [0.1, 0.5], −2.56 < −0.6. Component 1's band is narrow, so that v
	// computed from another component's filter or gain leaves it.
	x := []float64{0.5, 0.1, -0.4, 0.2, -0.1, 0.3, 1.5, 2.5, 1.2, 1.1, 2.2, 1.4}
	r, y := []float64{1, 0.2, -0.5}, []float64{0.4, 0.1, 0.9}
	in := node.Inputs{Values: append(append([]float64(nil), r...), y...), Present: []bool{true, true}}
	v := func(i int) float64 { return x[2*3+i]*r[i] - x[3*3+i]*y[i] - x[3+i] + x[i] }
	for i, w := range []float64{1.36, 0.48, -2.56} {
		if got := v(i); !near(got, w) {
			t.Fatalf("test set-up: v_%d = %v, meant %v", i, got, w)
		}
	}
	f := make([]float64, 12)
	if err := n.(node.Deriver).Derivatives(0, x, in, f); err != nil {
		t.Fatal(err)
	}
	u := make([]float64, 3)
	if err := n.(node.Outputter).Outputs(0, x, in, u); err != nil {
		t.Fatal(err)
	}
	jac := make([]float64, 3*6)
	if err := n.(node.OutputsJacobian).OutputsJacobian(0, x, in, jac); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		gr, gy := targets(i)
		dgr, dgy := (gr-x[6+i])/tb[i], (gy-x[9+i])/tb[i]
		ui := math.Min(math.Max(v(i), lo[i]), hi[i])
		want := []float64{
			ki[i]*(r[i]-y[i]) - r[i]*dgr + y[i]*dgy + kb[i]*(ui-v(i)),
			(cd(i)*(c[i]*r[i]-y[i]) - x[3+i]) / tf[i],
			dgr, dgy,
		}
		for k, w := range want {
			if !near(f[k*3+i], w) {
				t.Errorf("rate of state field %d component %d = %v, want %v", k, i, f[k*3+i], w)
			}
		}
		if !near(u[i], ui) {
			t.Errorf("u_%d = %v, want %v", i, u[i], ui)
		}
		wr, wy := x[6+i], -x[9+i]
		if i != 1 {
			wr, wy = 0, 0 // limited
		}
		for j := range 6 {
			w := 0.0
			switch j {
			case i:
				w = wr
			case 3 + i:
				w = wy
			}
			if jac[i*6+j] != w {
				t.Errorf("∂u_%d/∂(input %d) = %v, want %v", i, j, jac[i*6+j], w)
			}
		}
	}
}

// On a limit itself (v = upper or v = lower exactly) the output is not
// yet limited: ∂u/∂r = g_r and ∂u/∂y = −g_y, the one-sided derivative
// from inside, as for a saturation at its band's ends; and the
// back-calculation is off (İ = K_i e there, with the applied gains at
// their targets). g_r = 2, g_y = 1, z = 0.5, I = 0: v = 2 r − y − 0.5,
// exactly 1 at r = 1, y = 0.5 and exactly −1 at r = 0, y = 0.5.
func TestPIDOnItsLimits(t *testing.T) {
	// K_p = 1, b = 1, K_d = 0.1, T_f = 0.1, c = 1: G_r = 1 + 1 = 2, G_y = 2,
	// but g_y = 1 here (off target): ġ_y = (2 − 1)/T_b.
	n, err := registry(t).New("pid", map[string]any{"kp": 1.0, "ki": 0.5, "kd": 0.1, "tf": 0.1, "kb": 5.0,
		"limit_output": true, "lower": -1.0, "upper": 1.0, "retune_time": 0.5})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ r, y float64 }{{1, 0.5}, {0, 0.5}} {
		x := []float64{0, 0.5, 2, 1}
		in := node.Inputs{Values: []float64{c.r, c.y}, Present: []bool{true, true}}
		jac := make([]float64, 2)
		if err := n.(node.OutputsJacobian).OutputsJacobian(0, x, in, jac); err != nil {
			t.Fatal(err)
		}
		if jac[0] != 2 || jac[1] != -1 {
			t.Errorf("v on a limit (r = %v, y = %v): ∂u/∂(r, y) = %v, want [2 −1]", c.r, c.y, jac)
		}
		f := make([]float64, 4)
		if err := n.(node.Deriver).Derivatives(0, x, in, f); err != nil {
			t.Fatal(err)
		}
		// ∂İ/∂I = −K_b only while limited: 0 here.
		dx := make([]float64, 16)
		if err := n.(node.DerivativesJacobian).DerivativesJacobian(0, x, in, dx, nil); err != nil {
			t.Fatal(err)
		}
		if dx[0] != 0 {
			t.Errorf("v on a limit (r = %v, y = %v): ∂İ/∂I = %v, want 0 (no back-calculation)", c.r, c.y, dx[0])
		}
		// İ = K_i (r − y) − r ġ_r + y ġ_y with ġ_r = 0, ġ_y = 2: no K_b term.
		if want := 0.5*(c.r-c.y) + c.y*2; math.Abs(f[0]-want) > 1e-15 {
			t.Errorf("v on a limit (r = %v, y = %v): İ = %v, want %v (no back-calculation)", c.r, c.y, f[0], want)
		}
	}
}
