package rigidbody

import "github.com/cosimgo/cosim/node"

var _ node.MarkerMass = (*Node)(nil)

// MarkerInverseMass writes the inverse effective mass of the body-fixed
// point r = local along each world axis eᵢ, at the orientation in x (the
// 13 MarkerFields values): the translational part 1/m (0 on a held
// translation) plus the rotational part aᵢᵀ I_w⁻¹ aᵢ, with aᵢ = (R r) × eᵢ
// and I_w⁻¹ = R I_b⁻¹ Rᵀ the world inverse inertia; for a hinge only
// the rotation about its axis n counts, (aᵢ·n)²/I_n, and a fixed
// orientation adds nothing. With one rotation held (gimbal) it uses the
// free body's rotational part, which overestimates the mobility and so
// errs towards a smaller stable step. A connector uses it to compute its
// stable step (node.StepLimiter).
func (n *Node) MarkerInverseMass(x []float64, local [3]float64, dst *[3]float64) {
	m := n.m.Get()
	r := rotation(quat(x[3:7]))
	rw := mulMV(r, local)
	for i := range 3 {
		var w float64
		if !m.held[i] {
			w = 1 / m.mass
		}
		var e vec3
		e[i] = 1
		a := cross(rw, e)
		switch m.rot {
		case rotFree, rotGimbal:
			// aᵀ R I_b⁻¹ Rᵀ a = bᵀ I_b⁻¹ b with b = Rᵀ a.
			b := mulMtV(r, a)
			w += dot(b, mulMV(m.ibInv, b))
		case rotHinge:
			an := dot(a, m.n)
			w += an * an / m.inertiaN
		}
		dst[i] = w
	}
}
