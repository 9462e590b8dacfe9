package ball

import (
	"fmt"
	"math"

	"github.com/cosimgo/cosim/node"
)

// Parameter columns of the Jacobians below: the order of paramSpecs
// (TestParamColumns holds them to it).
const (
	colInitialPosition = iota
	colInitialVelocity
	colElasticity
	colGravity
	colMass
)

var (
	_ node.ParamJacobian        = (*Node)(nil)
	_ node.InitialStateJacobian = (*Node)(nil)
	_ node.EventJacobian        = (*Node)(nil)
	_ node.ResetJacobian        = (*Node)(nil)
)

// DerivativesParamJacobian writes ∂f/∂p of Derivatives into dst (2 ×
// len(Spec().Params), row-major): a moving ball has f = [v, g + F/m], so
// the non-zero entries are ∂(dv/dt)/∂gravity = 1 and ∂(dv/dt)/∂mass =
// −F/m²; a ball resting on the table (the Derivatives rest rule) has
// f = [0, 0] and a zero Jacobian.
func (n *Node) DerivativesParamJacobian(t float64, x []float64, in node.Inputs, dst []float64) error {
	np := len(n.spec.Params)
	checkLen("DerivativesParamJacobian", "x", x, 2)
	checkLen("DerivativesParamJacobian", "dst", dst, 2*np)
	clear(dst)
	vel, pos, f := x[n.velOff], x[n.posOff], in.Values[n.forceOff]
	if !finite(pos) {
		return nonFinite("DerivativesParamJacobian", t, fieldPosition, pos)
	}
	if !finite(vel) {
		return nonFinite("DerivativesParamJacobian", t, fieldVelocity, vel)
	}
	if !finite(f) {
		return nonFinite("DerivativesParamJacobian", t, inputForce, f)
	}
	if vel == 0 && n.m.Get().accel(f) <= 0 && in.Present[n.tableIdx] && pos <= in.Values[n.tableOff] {
		return nil
	}
	dst[n.velOff*np+colGravity] = 1
	dst[n.velOff*np+colMass] = -f / (n.m.Get().mass * n.m.Get().mass)
	return nil
}

// InitialStateParamJacobian writes ∂x(t0)/∂p into dst (2 ×
// len(Spec().Params)): position = initial_position and velocity =
// initial_velocity, so two ones.
func (n *Node) InitialStateParamJacobian(dst []float64) {
	np := len(n.spec.Params)
	checkLen("InitialStateParamJacobian", "dst", dst, 2*np)
	clear(dst)
	dst[n.posOff*np+colInitialPosition] = 1
	dst[n.velOff*np+colInitialVelocity] = 1
}

// EventValuesJacobian differentiates the contact event g = position −
// table_position: ∂g/∂position = 1, ∂g/∂table_position = −1, no
// parameter or explicit time dependence. Without a table g is the
// constant +1 and every derivative is zero.
func (n *Node) EventValuesJacobian(event int, t float64, x []float64, in node.Inputs, dstX, dstU, dstP []float64) (float64, error) {
	if event != 0 {
		panic(fmt.Sprintf("ball: EventValuesJacobian: event %d out of range [0, 1)", event))
	}
	checkLen("EventValuesJacobian", "x", x, 2)
	clear(dstX)
	clear(dstU)
	clear(dstP)
	if !in.Present[n.tableIdx] {
		return 0, nil
	}
	if dstX != nil {
		dstX[n.posOff] = 1
	}
	if dstU != nil {
		dstU[n.tableOff] = -1
	}
	return 0, nil
}

// ResetJacobian differentiates the contact reset at the state before it:
// position⁺ = table_position (∂/∂table_position = 1), velocity⁺ = −e·v
// (∂/∂v = −e, ∂/∂elasticity = −v), or velocity⁺ = 0 with zero derivatives
// when the impact speed |v| is at most RestSpeed (the rest rule). The
// reset does not depend on time explicitly.
func (n *Node) ResetJacobian(event int, t float64, x []float64, in node.Inputs, dstX, dstU, dstP, dstT []float64) error {
	if event != 0 {
		panic(fmt.Sprintf("ball: ResetJacobian: event %d out of range [0, 1)", event))
	}
	checkLen("ResetJacobian", "x", x, 2)
	if !in.Present[n.tableIdx] {
		return fmt.Errorf("ball: ResetJacobian at t=%s: %w", node.FormatValue(t), errNoTable)
	}
	vel := x[n.velOff]
	if !finite(vel) {
		return nonFinite("ResetJacobian", t, fieldVelocity, vel)
	}
	np, nu := len(n.spec.Params), n.spec.InputLayout.Size()
	clear(dstX)
	clear(dstU)
	clear(dstP)
	clear(dstT)
	rest := math.Abs(vel) <= RestSpeed
	if dstX != nil && !rest {
		dstX[n.velOff*2+n.velOff] = -n.m.Get().e
	}
	if dstU != nil {
		dstU[n.posOff*nu+n.tableOff] = 1
	}
	if dstP != nil && !rest {
		dstP[n.velOff*np+colElasticity] = -vel
	}
	return nil
}
