package rigidbody2d

import (
	"math"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
)

// The validated regime of the metadata (mass and inertia from 1e-6 to
// 1e6) holds: at both ends, with the force and torque scaled with them so
// that the accelerations are O(1), the trajectory is the closed form of
// semi-implicit Euler, v_n = v0 + n·Δt·a, x_n = x0 + n·Δt·v0 + Δt²·a·n(n+1)/2
// (as in TestConstantForce), to 1e-12 (relative, absolute below 1): the scheme's arithmetic
// does not lose accuracy at the ends of the range.
func TestValidatedRegimeEnds(t *testing.T) {
	for _, scale := range []float64{1e-6, 1, 1e6} {
		p := DefaultParams()
		p.Mass, p.Inertia = 4*scale, 0.25*scale
		p.InitialX, p.InitialY, p.InitialVX, p.InitialVY = 1, -1, 0.5, 2
		p.InitialAngle, p.InitialOmega = 0.1, -0.3
		nd := mustNew(t, p)
		const dt, steps = 1e-3, 1000
		x := run(t, nd, dt, steps, func(float64) (float64, float64, float64) { return 2 * scale, 6 * scale, 0.05 * scale })
		n := float64(steps)
		acc := []float64{0.5, 1.5 - 9.81, 0.2}
		x0 := []float64{1, -1, 0.1}
		v0 := []float64{0.5, 2, -0.3}
		pos := []int{offX, offX + 1, offAngle}
		vel := []int{offV, offV + 1, offOmega}
		for i, a := range acc {
			wantV := v0[i] + n*dt*a
			wantX := x0[i] + n*dt*v0[i] + dt*dt*a*n*(n+1)/2
			if !numtest.Near(x[vel[i]], wantV, 1e-12) || !numtest.Near(x[pos[i]], wantX, 1e-12) {
				t.Errorf("mass scale %g, dof %d: pos %v vel %v, want %v %v", scale, i, x[pos[i]], x[vel[i]], wantX, wantV)
			}
		}
	}
}

// The limitation's claim about MADDENING's float32 gravity: truncating
// g = −9.81 to float32 changes a free fall in the 8th significant digit
// (|Δy/y| between 1e-8 and 1e-7; float32(9.81) = 9.8100004196…, a
// relative change of 4.3e-8), which is why this port, in float64, does
// not reproduce MADDENING's numbers beyond that.
func TestFloat32GravityDigit(t *testing.T) {
	fall := func(g float64) float64 {
		p := DefaultParams()
		p.Gravity = [2]float64{0, g}
		p.InitialY = 0
		nd := mustNew(t, p)
		x := run(t, nd, 1e-3, 1000, func(float64) (float64, float64, float64) { return 0, 0, 0 })
		return x[offX+1]
	}
	y64, y32 := fall(-9.81), fall(float64(float32(-9.81)))
	rel := math.Abs(y32-y64) / math.Abs(y64)
	if rel < 1e-8 || rel > 1e-7 {
		t.Errorf("float32 gravity changes y(1) by %.2e relative, want the 8th significant digit (1e-8 … 1e-7)", rel)
	}
}
