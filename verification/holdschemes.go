package verification

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/cosimgo/cosim/node"
)

// Reference schemes for nodes whose Update solves their own equations
// over the step with the inputs held at the step's start (the zero-order
// hold of co-simulation), as signal and control blocks do. Both are
// generic: defined on a node's Derivatives (and Jacobian), not on a node
// type.

// holdSubsteps is the number of classical Runge–Kutta substeps the
// exact-hold reference takes over one step. At the checker's step of
// 1e-3 s they are 1e-6 s long: for rates |λ| up to 1e3 s⁻¹, |λh| ≤ 1e-3
// and the fourth-order truncation is about (λh)⁵/120 ≈ 1e-17 per
// substep, and compensated summation keeps the rounding of a thousand
// additions near one ulp; together far below the checker's 1e-13.
const holdSubsteps = 1000

// exactHold is the reference of the scheme "exact-hold": the exact
// solution of ẋ = f(t, x, u) over the step with u held, computed by
// holdSubsteps RK4 substeps of the node's Derivatives with Kahan
// summation of the increments. It is independent of how the node solves
// its equations (closed forms, a matrix exponential).
func exactHold(n node.Node, x []float64, in node.Inputs, dt float64) ([]float64, error) {
	d, ok := node.As[node.Deriver](n)
	if !ok {
		return nil, errors.New("exact-hold needs Derivatives")
	}
	nx := len(x)
	y := append([]float64(nil), x...)
	comp := make([]float64, nx)
	k1, k2, k3, k4, tmp := make([]float64, nx), make([]float64, nx), make([]float64, nx), make([]float64, nx), make([]float64, nx)
	h := dt / holdSubsteps
	stage := func(t float64, base, k []float64, c float64, dst []float64) error {
		for i := range tmp {
			tmp[i] = base[i] + c*k[i]
		}
		return d.Derivatives(t, tmp, in, dst)
	}
	for s := range holdSubsteps {
		t := float64(s) * h
		if err := d.Derivatives(t, y, in, k1); err != nil {
			return nil, err
		}
		if err := stage(t+h/2, y, k1, h/2, k2); err != nil {
			return nil, err
		}
		if err := stage(t+h/2, y, k2, h/2, k3); err != nil {
			return nil, err
		}
		if err := stage(t+h, y, k3, h, k4); err != nil {
			return nil, err
		}
		for i := range y {
			inc := h*(k1[i]+2*k2[i]+2*k3[i]+k4[i])/6 - comp[i]
			next := y[i] + inc
			comp[i] = (next - y[i]) - inc
			y[i] = next
		}
	}
	return y, nil
}

// exponentialEuler is the reference of the scheme "exponential-euler":
// x⁺ = x + Δt φ₁(Δt J) f(x) with J = ∂f/∂x from the node's
// DerivativesJacobian (which the checker holds to finite differences),
// read off the exponential of the augmented matrix [[J, f], [0, 0]]·Δt
// computed by gonum's mat.Exp. It is exact for a right-hand side that is
// affine in x with the inputs held.
func exponentialEuler(n node.Node, x []float64, in node.Inputs, dt float64) ([]float64, error) {
	d, ok := node.As[node.Deriver](n)
	if !ok {
		return nil, errors.New("exponential-euler needs Derivatives")
	}
	dj, ok := node.As[node.InputJacobian](n)
	if !ok {
		return nil, errors.New("exponential-euler needs DerivativesJacobian (node.InputJacobian)")
	}
	nx := len(x)
	f, jx := make([]float64, nx), make([]float64, nx*nx)
	if err := d.Derivatives(0, x, in, f); err != nil {
		return nil, err
	}
	if err := dj.DerivativesJacobian(0, x, in, jx, nil); err != nil {
		return nil, fmt.Errorf("DerivativesJacobian: %w", err)
	}
	aug := mat.NewDense(nx+1, nx+1, nil)
	for i := range nx {
		for j := range nx {
			aug.Set(i, j, jx[i*nx+j]*dt)
		}
		aug.Set(i, nx, f[i]*dt)
	}
	var e mat.Dense
	e.Exp(aug)
	out := make([]float64, nx)
	for i := range nx {
		out[i] = x[i] + e.At(i, nx)
	}
	return out, nil
}
