package masspoint

import "github.com/cosimgo/cosim/node"

var _ node.Drawer = (*Node)(nil)

// Draw appends a sphere at the mass's position: diameter draw_size
// (set.BodySize by default), color color (set.BodyColor by default).
// Nothing when show is false.
func (n *Node) Draw(x []float64, _ node.Inputs, set *node.DrawSettings, dst []node.Primitive) []node.Primitive {
	vis := n.appearance().Visual()
	if n.vals != nil {
		vis = node.VisualOf(n.vals)
	}
	if !vis.Show {
		return dst
	}
	d := vis.Size(set.BodySize)
	s := node.Primitive{Kind: node.Sphere, Size: [3]float64{d / 2, d / 2, d / 2}, Color: vis.ColorOr(set.BodyColor)}
	copy(s.P[:], x[offPosition:offPosition+3])
	return append(dst, s)
}
