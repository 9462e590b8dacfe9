package springdamper

import "github.com/cosimgo/cosim/node"

var _ node.Drawer = (*Node)(nil)

// Draw appends the connector between its actual attachment points, the
// markers m0 and m1: a coil of diameter draw_size (set.ConnectorSize when
// −1) from one to the other with set.SpringWindings turns, and, when any
// damping coefficient is non-zero, a damper inside it (node.SpringDamper:
// a coil-over), in color (set.ConnectorColor when R = −1). With
// set.CartesianSprings it draws Exudyn's picture instead: three springs
// along world x, y and z in turn (node.CartesianSprings). The markers'
// positions come from the inputs as Outputs reads them: a ground marker
// is its fixed point, a body marker its body's MarkerKinematics. Each
// ground marker is drawn first (node.GroundMarker, a cube of half the
// spring's diameter). Nothing when show is false. An inactive connector is
// still drawn: active is physics, show is visibility.
func (n *Node) Draw(_ []float64, in node.Inputs, set *node.DrawSettings, dst []node.Primitive) []node.Primitive {
	vis := node.VisualOf(n.vals)
	if !vis.Show {
		return dst
	}
	p0, p1 := n.MarkerPositions(in)
	size := vis.Size(set.ConnectorSize)
	for k, p := range [2][3]float64{p0, p1} {
		if n.mk[k].body == nil {
			dst = node.GroundMarker(p, size/2, set, dst)
		}
	}
	color := vis.ColorOr(set.ConnectorColor)
	if set.CartesianSprings {
		return node.CartesianSprings(p0, p1, size, color, set, dst)
	}
	d := n.vals.Floats(paramDamping)
	damped := d[0] != 0 || d[1] != 0 || d[2] != 0
	return node.SpringDamper(p0, p1, size, color, damped, set, dst)
}

// MarkerPositions returns the world positions of the connector's two
// markers given its inputs, as Draw and Outputs compute them.
func (n *Node) MarkerPositions(in node.Inputs) (p0, p1 [3]float64) {
	var v [3]float64
	n.mk[0].kinematics(in.Values, &p0, &v)
	n.mk[1].kinematics(in.Values, &p1, &v)
	return p0, p1
}
