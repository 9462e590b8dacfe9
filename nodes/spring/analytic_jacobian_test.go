package spring_test

import (
	"math"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/nodes/spring"
)

// springForce is the force on marker 0 of a spring with marker 1 at
// offset d and relative velocity w: F = (k(ℓ − ℓ0) + c ℓ̇) u with
// ℓ = |d|, u = d/ℓ, ℓ̇ = u·w (the package's law, written out here).
func springForce(k, c, l0 float64, d, w [3]float64) [3]float64 {
	l := math.Sqrt(d[0]*d[0] + d[1]*d[1] + d[2]*d[2])
	u := [3]float64{d[0] / l, d[1] / l, d[2] / l}
	f := k*(l-l0) + c*(u[0]*w[0]+u[1]*w[1]+u[2]*w[2])
	return [3]float64{f * u[0], f * u[1], f * u[2]}
}

// TestLocalJacobianFiniteDifferences: LocalJacobian's ∂F/∂d and ∂F/∂w
// against central differences of springForce, at a general offset and
// velocity (no zero component, spring stretched and moving) and at a
// compressed one. Step h = 1e-6 on order-one arguments: the difference's
// truncation error is h²·|F‴| ≈ 1e-12 and its rounding ε|F|/h ≈ 1e-9,
// so the tolerance is 1e-7 relative to the largest entry. This closed
// check is fast; the graph-level Jacobian tests (TestJacobian*) reach
// LocalJacobian too, but through whole systems, and this file sorts
// before theirs so that go test meets the direct check first.
func TestLocalJacobianFiniteDifferences(t *testing.T) {
	for _, c := range []struct {
		k, c, l0 float64
		d, w     [3]float64
	}{
		{40, 0.7, 1.5, [3]float64{1.2, -0.8, 2.1}, [3]float64{0.3, 0.9, -0.4}},
		{15, 2.5, 4, [3]float64{-0.6, 1.1, 0.5}, [3]float64{-1.2, 0.2, 0.7}},
	} {
		a, b := spring.LocalJacobian(c.k, c.c, c.l0, c.d, c.w)
		const h = 1e-6
		var scale float64
		for _, v := range append(a[:], b[:]...) {
			scale = max(scale, math.Abs(v))
		}
		for j := range 3 {
			dp, dm, wp, wm := c.d, c.d, c.w, c.w
			dp[j] += h
			dm[j] -= h
			wp[j] += h
			wm[j] -= h
			fdp, fdm := springForce(c.k, c.c, c.l0, dp, c.w), springForce(c.k, c.c, c.l0, dm, c.w)
			fwp, fwm := springForce(c.k, c.c, c.l0, c.d, wp), springForce(c.k, c.c, c.l0, c.d, wm)
			for i := range 3 {
				if fd := (fdp[i] - fdm[i]) / (2 * h); !numtest.Within(a[i*3+j], fd, 1e-7*scale) {
					t.Errorf("d %v: ∂F%d/∂d%d = %v, central difference %v", c.d, i, j, a[i*3+j], fd)
				}
				if fd := (fwp[i] - fwm[i]) / (2 * h); !numtest.Within(b[i*3+j], fd, 1e-7*scale) {
					t.Errorf("d %v: ∂F%d/∂w%d = %v, central difference %v", c.d, i, j, b[i*3+j], fd)
				}
			}
		}
	}
}
