package rigidbody2d

import (
	"math"

	"github.com/cosimgo/cosim/node"
)

var _ node.Drawer = (*Node)(nil)

// Draw appends a square plate in the world x–y plane (z = 0) centred at
// the body's position and turned by its angle about z. Its side is
// draw_size when set; by default that of the uniform square with the
// body's mass and moment of inertia, I = m·a²/6, so a = √(6I/m). The plate
// is a tenth of its side thick. Nothing when show is false.
func (n *Node) Draw(x []float64, _ node.Inputs, set *node.DrawSettings, dst []node.Primitive) []node.Primitive {
	vis := node.VisualOf(n.vals)
	if !vis.Show {
		return dst
	}
	a := vis.DrawSize
	if a < 0 {
		a = math.Sqrt(6 * n.m.Get().inertia / n.m.Get().mass)
		if !(a > 0) || math.IsInf(a, 0) {
			a = set.BodySize
		}
	}
	th := x[offAngle]
	s := node.Primitive{
		Kind:  node.Box,
		P:     [3]float64{x[offX], x[offX+1], 0},
		Size:  [3]float64{a, a, a / 10},
		Rot:   [4]float64{math.Cos(th / 2), 0, 0, math.Sin(th / 2)},
		Color: vis.ColorOr(set.BodyColor),
	}
	return append(dst, s)
}
