package springdamper

import "github.com/cosimgo/cosim/node"

var _ node.Drawer = (*Node)(nil)

// Draw appends the connector as Exudyn's item reference draws it: three springs of
// diameter draw_size (set.ConnectorSize when −1) along world x, y and z
// in turn from marker m0 to marker m1 (node.CartesianSprings), each with
// set.SpringWindings turns, or straight lines when set.Simplified, in
// color (set.ConnectorColor when R = −1). The markers' positions come
// from the inputs as Outputs reads them: a ground marker is its fixed
// point, a body marker its body's MarkerKinematics. A ground marker is
// drawn first, as a cube of half the spring's diameter in
// set.GroundColor. Nothing when show is
// false. An inactive connector is still drawn: active is physics, show
// is visibility.
func (n *Node) Draw(_ []float64, in node.Inputs, set *node.DrawSettings, dst []node.Primitive) []node.Primitive {
	vis := node.VisualOf(n.vals)
	if !vis.Show {
		return dst
	}
	p0, p1 := n.MarkerPositions(in)
	size := vis.Size(set.ConnectorSize)
	for k, p := range [2][3]float64{p0, p1} {
		if n.mk[k].body == nil {
			dst = append(dst, node.Primitive{Kind: node.Box, P: p, Size: [3]float64{size / 2, size / 2, size / 2}, Color: set.GroundColor})
		}
	}
	return node.CartesianSprings(p0, p1, size, vis.ColorOr(set.ConnectorColor), set, dst)
}

// MarkerPositions returns the world positions of the connector's two
// markers given its inputs, as Draw and Outputs compute them.
func (n *Node) MarkerPositions(in node.Inputs) (p0, p1 [3]float64) {
	var v [3]float64
	n.mk[0].kinematics(in.Values, &p0, &v)
	n.mk[1].kinematics(in.Values, &p1, &v)
	return p0, p1
}
