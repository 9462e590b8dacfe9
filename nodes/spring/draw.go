package spring

import "github.com/cosimgo/cosim/node"

var _ node.Drawer = (*Node)(nil)

// Draw appends the spring between its markers, in color (set.ConnectorColor
// when R = −1) with a coil of diameter draw_size (set.ConnectorSize when
// −1): each ground marker first (node.GroundMarker, a cube of half that
// diameter: a pendulum's pivot), then, for a spring with a rest length,
// rigid rods from both ends with a coil between them whose length changes
// by the spring's stretch (node.RodSpring), and for a spring of zero rest
// length a coil from marker to marker. The markers' positions come from
// the inputs as Outputs reads them. Nothing when show is false.
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
	return node.RodSpring(p0, p1, n.law.Get().l0, size, vis.ColorOr(set.ConnectorColor), set, dst)
}

// MarkerPositions returns the world positions of the spring's two markers
// given its inputs, as Draw and Outputs compute them.
func (n *Node) MarkerPositions(in node.Inputs) (p0, p1 [3]float64) {
	var scratch [6]float64
	p0, _ = n.mk[0].kinematics(in.Values, scratch[:])
	p1, _ = n.mk[1].kinematics(in.Values, scratch[:])
	return p0, p1
}
