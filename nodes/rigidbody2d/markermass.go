package rigidbody2d

import "github.com/cosimgo/cosim/node"

var _ node.MarkerMass = (*Node)(nil)

// MarkerInverseMass writes the inverse effective mass of the body-fixed
// point r = (local[0], local[1]) along the world axes, at the angle in x:
// along x, 1/m + r_y²/I, along y, 1/m + r_x²/I (r in world axes,
// R(θ)·r), and 0 along z, which the planar body cannot move along (its
// MarkerLoad drops f_z). A connector uses it to compute its stable step
// (node.StepLimiter).
func (n *Node) MarkerInverseMass(x []float64, local [3]float64, dst *[3]float64) {
	rx, ry := rotate(x[2], local[0], local[1])
	w := 1 / n.m.Get().mass
	*dst = [3]float64{w + ry*ry/n.m.Get().inertia, w + rx*rx/n.m.Get().inertia, 0}
}
