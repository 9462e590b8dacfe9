package spring

import (
	"fmt"
	"math"

	"github.com/cosimgo/cosim/node"
)

// LocalJacobian returns the derivatives of the force on marker 0,
// F = f u with f = k(ℓ − ℓ₀) + c ℓ̇, with respect to the separation
// d = p1 − p0 and the relative velocity w = v1 − v0 (3 × 3, row-major),
// in the outer-product form
//
//	∂F/∂d = k u uᵀ + (c/ℓ) u (w − ℓ̇ u)ᵀ + (f/ℓ)(I − u uᵀ),
//	∂F/∂w = c u uᵀ,
//
// from ∂u/∂d = (I − u uᵀ)/ℓ and ∂ℓ̇/∂d = (w − ℓ̇ u)ᵀ/ℓ. The transverse
// term (f/ℓ)(I − u uᵀ) is the geometric stiffness of a tensioned spring:
// it grows as 1/ℓ when ℓ → 0 (see the package documentation).
func LocalJacobian(k, c, l0 float64, d, w [3]float64) (a, b [9]float64) {
	l := math.Sqrt(d[0]*d[0] + d[1]*d[1] + d[2]*d[2])
	var u [3]float64
	for i := range 3 {
		u[i] = d[i] / l
	}
	rate := u[0]*w[0] + u[1]*w[1] + u[2]*w[2]
	f := k*(l-l0) + c*rate
	for i := range 3 {
		for j := range 3 {
			uu := u[i] * u[j]
			var id float64
			if i == j {
				id = 1
			}
			a[i*3+j] = k*uu + c/l*u[i]*(w[j]-rate*u[j]) + f/l*(id-uu)
			b[i*3+j] = c * uu
		}
	}
	return a, b
}

// OutputsJacobian writes ∂y/∂u (Spec().OutputLayout.Size ×
// Spec().InputLayout.Size, row-major) into dst. The spring's own
// derivatives are analytic (LocalJacobian, and ∂ℓ/∂d = uᵀ,
// ∂ℓ̇/∂d = (w − ℓ̇u)ᵀ/ℓ, ∂ℓ̇/∂w = uᵀ, ∂V/∂d = k(ℓ − ℓ₀)uᵀ), chained through
// the markers: for a point body (a mass point) and the ground exactly
// (∂p/∂x = [I 0], ∂v/∂x = [0 I]); for other bodies through MarkerJacobian,
// MarkerVelocityJacobian when the body has it, unit loads for
// ∂MarkerLoad/∂f (a load is linear in the force) and central differences
// of MarkerKinematics and MarkerLoad for the rest, as springdamper does.
// Below min_length it returns Outputs' error. It panics if dst is too
// short.
func (n *Node) OutputsJacobian(t float64, x []float64, in node.Inputs, dst []float64) error {
	ny, nu := n.spec.OutputLayout.Size(), n.spec.InputLayout.Size()
	if len(dst) < ny*nu {
		panic(fmt.Sprintf("%s: OutputsJacobian: len(dst) = %d, want %d × %d", TypeName, len(dst), ny, nu))
	}
	dst = dst[:ny*nu]
	clear(dst)
	u := in.Values
	g, err := n.geometry(t, u, make([]float64, 6))
	if err != nil {
		return err
	}
	a, b := LocalJacobian(n.law.Get().k, n.law.Get().c, n.law.Get().l0, g.d, g.w)
	f := n.law.Get().k*(g.l-n.law.Get().l0) + n.law.Get().c*g.rate

	// ∂d/∂u and ∂w/∂u (3 × nu each).
	dD, dW := make([]float64, 3*nu), make([]float64, 3*nu)
	for k := range n.mk {
		mk := &n.mk[k]
		if mk.body == nil {
			continue
		}
		s := float64(2*k - 1) // d = p1 − p0
		nk := mk.in1 - mk.in0
		if mk.point {
			for i := range 3 {
				dD[i*nu+mk.in0+i] = s
				dW[i*nu+mk.in0+3+i] = s
			}
			continue
		}
		jp, jv := make([]float64, 3*nk), make([]float64, 3*nk)
		xk := u[mk.in0:mk.in1]
		mk.body.MarkerJacobian(xk, mk.local, jp)
		node.VelocityJacobian(mk.body, xk, mk.local, mk.velCols, jv)
		for i := range 3 {
			for j := range nk {
				dD[i*nu+mk.in0+j] = s * jp[i*nk+j]
				dW[i*nu+mk.in0+j] = s * jv[i*nk+j]
			}
		}
	}
	row := func(r int) []float64 { return dst[r*nu : (r+1)*nu] }
	// Scalar rows: length, length rate, tension, energy.
	var dRate [3]float64 // ∂ℓ̇/∂d
	for i := range 3 {
		dRate[i] = (g.w[i] - g.rate*g.u[i]) / g.l
	}
	rl, rr, rt, re := row(yLength), row(yRate), row(yTension), row(yEnergy)
	for i := range 3 {
		for j := range nu {
			pd, pw := dD[i*nu+j], dW[i*nu+j]
			rl[j] += g.u[i] * pd
			rr[j] += dRate[i]*pd + g.u[i]*pw
			re[j] += n.law.Get().k * (g.l - n.law.Get().l0) * g.u[i] * pd
		}
	}
	for j := range nu {
		rt[j] = n.law.Get().k*rl[j] + n.law.Get().c*rr[j]
	}
	// Force rows: a·∂d/∂u + b·∂w/∂u.
	dF := dst[yForce*nu : (yForce+3)*nu]
	for i := range 3 {
		for j := range nu {
			var sum float64
			for l := range 3 {
				sum += a[i*3+l]*dD[l*nu+j] + b[i*3+l]*dW[l*nu+j]
			}
			dF[i*nu+j] = sum
		}
	}
	// Load rows: ±L_k·∂F/∂u + ∂MarkerLoad(x_k, ±F)/∂x_k at fixed force.
	fv := [3]float64{f * g.u[0], f * g.u[1], f * g.u[2]}
	for k := range n.mk {
		mk := &n.mk[k]
		nl := mk.y1 - mk.y0
		if nl == 0 {
			continue
		}
		s := float64(1 - 2*k)
		if mk.point {
			for i := range 3 {
				r := row(mk.y0 + i)
				for j := range nu {
					r[j] = s * dF[i*nu+j]
				}
			}
			continue
		}
		fk := [3]float64{s * fv[0], s * fv[1], s * fv[2]}
		xk := u[mk.in0:mk.in1]
		lf := make([]float64, nl)
		for c := range 3 {
			var e [3]float64
			e[c] = 1
			mk.body.MarkerLoad(xk, mk.local, e, lf)
			for i := range nl {
				r := row(mk.y0 + i)
				for j := range nu {
					r[j] += lf[i] * s * dF[c*nu+j]
				}
			}
		}
		xp := append([]float64(nil), xk...)
		lp, lm := make([]float64, nl), make([]float64, nl)
		for j := range xp {
			h := node.FDStep(xk[j])
			xp[j] = xk[j] + h
			mk.body.MarkerLoad(xp, mk.local, fk, lp)
			xp[j] = xk[j] - h
			mk.body.MarkerLoad(xp, mk.local, fk, lm)
			xp[j] = xk[j]
			for i := range nl {
				row(mk.y0 + i)[mk.in0+j] += (lp[i] - lm[i]) / (2 * h)
			}
		}
	}
	return nil
}
