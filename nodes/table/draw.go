package table

import "github.com/cosimgo/cosim/node"

var _ node.Drawer = (*Node)(nil)

// TableSizes is the side of a table drawn with draw_size −1, in body
// sizes (DrawSettings.BodySize).
const TableSizes = 20

// Draw appends the surface: a horizontal square plane at height position
// (world y), of side draw_size (TableSizes·set.BodySize by default), in
// color (set.GroundColor by default). Nothing when show is false.
func (n *Node) Draw(_ []float64, _ node.Inputs, set *node.DrawSettings, dst []node.Primitive) []node.Primitive {
	vis := node.VisualOf(n.vals)
	if !vis.Show {
		return dst
	}
	a := vis.Size(TableSizes * set.BodySize)
	return append(dst, node.Primitive{
		Kind:  node.Plane,
		P:     [3]float64{0, *n.pos.Get(), 0},
		Size:  [3]float64{a, 0, a},
		Color: vis.ColorOr(set.GroundColor),
	})
}
