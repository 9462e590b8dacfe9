package rigidbody

import (
	"math"

	"github.com/cosimgo/cosim/node"
)

var _ node.Drawer = (*Node)(nil)

// Draw appends a box centred at the body's position, turned by its
// orientation quaternion. Its edges are draw_size (a cube) when set;
// by default they are those of the uniform box with the body's mass and
// the diagonal of its body-frame inertia, EquivalentBox. Nothing when show
// is false.
func (n *Node) Draw(x []float64, _ node.Inputs, set *node.DrawSettings, dst []node.Primitive) []node.Primitive {
	vis := node.VisualOf(n.vals)
	if !vis.Show {
		return dst
	}
	var size [3]float64
	if vis.DrawSize >= 0 {
		size = [3]float64{vis.DrawSize, vis.DrawSize, vis.DrawSize}
	} else {
		size = EquivalentBox(n.m.Get().mass, [3]float64{n.m.Get().ib[0], n.m.Get().ib[4], n.m.Get().ib[8]}, set.BodySize)
	}
	s := node.Primitive{Kind: node.Box, Size: size, Color: vis.ColorOr(set.BodyColor)}
	copy(s.P[:], x[offPos:offPos+3])
	copy(s.Rot[:], x[offQuat:offQuat+4])
	return append(dst, s)
}

// EquivalentBox returns the edge lengths (a, b, c) of the uniform box of
// mass m whose principal moments about its axes are I: I₁ = m(b²+c²)/12
// and cyclically, so a² = 6(I₂+I₃−I₁)/m. An edge that comes out shorter
// than a tenth of the longest (a thin plate or rod, I₁ = I₂ + I₃) is drawn
// a tenth of the longest; min is used when all are zero.
func EquivalentBox(m float64, I [3]float64, minEdge float64) [3]float64 {
	var e [3]float64
	longest := 0.0
	for i := range 3 {
		a2 := 6 * (I[(i+1)%3] + I[(i+2)%3] - I[i]) / m
		e[i] = math.Sqrt(max(a2, 0))
		longest = max(longest, e[i])
	}
	if !(longest > 0) || math.IsInf(longest, 0) {
		return [3]float64{minEdge, minEdge, minEdge}
	}
	for i := range e {
		e[i] = max(e[i], longest/10)
	}
	return e
}
