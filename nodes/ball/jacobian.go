package ball

import "github.com/cosimgo/cosim/node"

var _ node.DerivativesJacobian = (*Node)(nil)

// DerivativesJacobian writes the exact Jacobians of Derivatives: in
// flight ẋ = v and v̇ = g + F/m, so ∂ẋ/∂v = 1 and ∂v̇/∂F = 1/m, every
// other entry zero (the table height enters only the resting test).
// Resting on the table v̇ is held at zero, so ∂v̇/∂F = 0; ẋ = v = 0 there
// still, and ∂ẋ/∂v stays 1, as the position's role (node.Position, rate
// "velocity") promises the graph's Jacobian assembly. dstX is 2 × 2 and
// dstU 2 × InputLayout.Size(), row-major; either may be nil.
func (n *Node) DerivativesJacobian(t float64, x []float64, in node.Inputs, dstX, dstU []float64) error {
	checkLen("DerivativesJacobian", "x", x, 2)
	pos, vel, f := x[n.posOff], x[n.velOff], in.Values[n.forceOff]
	if !finite(pos) {
		return nonFinite("DerivativesJacobian", t, fieldPosition, pos)
	}
	if !finite(vel) {
		return nonFinite("DerivativesJacobian", t, fieldVelocity, vel)
	}
	if !finite(f) {
		return nonFinite("DerivativesJacobian", t, inputForce, f)
	}
	nu := n.spec.InputLayout.Size()
	if dstX != nil {
		clear(dstX[:4])
	}
	if dstU != nil {
		clear(dstU[:2*nu])
	}
	if dstX != nil {
		dstX[n.posOff*2+n.velOff] = 1
	}
	if vel == 0 && n.m.Get().accel(f) <= 0 && in.Present[n.tableIdx] && pos <= in.Values[n.tableOff] {
		return nil // resting: v̇ is held at zero
	}
	if dstU != nil {
		dstU[n.velOff*nu+n.forceOff] = 1 / n.m.Get().mass
	}
	return nil
}
