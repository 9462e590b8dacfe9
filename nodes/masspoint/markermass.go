package masspoint

import "github.com/cosimgo/cosim/node"

var _ node.MarkerMass = (*Node)(nil)

// MarkerInverseMass writes 1/m on every world axis: a force on the mass
// accelerates it by f/m whatever the axis and the marker point. A
// connector uses it to compute its stable step (node.StepLimiter).
func (n *Node) MarkerInverseMass(x []float64, local [3]float64, dst *[3]float64) {
	w := 1 / n.law.Get().mass
	*dst = [3]float64{w, w, w}
}
