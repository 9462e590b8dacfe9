package ball

import "github.com/cosimgo/cosim/node"

var _ node.Drawer = (*Node)(nil)

// Draw appends the ball: a sphere of diameter draw_size (set.BodySize by
// default) on the world's vertical axis y, resting on its position (the
// ball's coordinate is the height of its contact point, where the table
// stops it), so its centre is at (0, position + radius, 0). Nothing when
// show is false.
func (n *Node) Draw(x []float64, _ node.Inputs, set *node.DrawSettings, dst []node.Primitive) []node.Primitive {
	vis := node.VisualOf(n.vals)
	if !vis.Show {
		return dst
	}
	r := vis.Size(set.BodySize) / 2
	return append(dst, node.Primitive{
		Kind:  node.Sphere,
		P:     [3]float64{0, x[n.posOff] + r, 0},
		Size:  [3]float64{r, r, r},
		Color: vis.ColorOr(set.BodyColor),
	})
}
