package gimbal

import (
	"errors"
	"math"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/rigidbody"
)

// Name is the discretization ReferenceStep checks:
// rigidbody.DiscretizationGimbal.
const Name = rigidbody.DiscretizationGimbal

// ReferenceStep is one step of rigidbody.DiscretizationGimbal applied to
// Derivatives, written from its documentation without the package's
// internals, in the form verification.SchemeFunc takes: the translation by
// semi-implicit Euler on Derivatives; the free Z-Y-X angles a read from q
// (the held one is the constraint's value) and their rates
// ȧ = (JᵀJ)⁻¹Jᵀω, with J the free columns of
// [c_x c_y c_z] = [R_zR_y e_x, R_z e_y, e_z]; ä = (JᵀJ)⁻¹Jᵀ(ω̇ − J̇ȧ) from
// Derivatives' ω̇, J̇ȧ = ṙyṙz c_z×c_y + ṙxṙz c_z×c_x + ṙxṙy c_y×c_x; then
// ȧ⁺ = ȧ + Δt·ä, a⁺ = a + Δt·ȧ⁺, q⁺ = q_z q_y q_x (in q's hemisphere) and
// ω⁺ = J(a⁺)ȧ⁺.
func ReferenceStep(n node.Node, x []float64, in node.Inputs, dt float64) ([]float64, error) {
	tn, ok := node.As[node.Tunable](n)
	if !ok {
		return nil, errors.New("no Params: the held rotation is unknown")
	}
	c, err := rigidbody.ParseConstraints(tn.Params().String("constraints"))
	if err != nil {
		return nil, err
	}
	held, value, nHeld := 0, 0.0, 0
	for i, ax := range []rigidbody.Axis{rigidbody.RX, rigidbody.RY, rigidbody.RZ} {
		if v, ok := c[ax]; ok {
			held, value = i, v
			nHeld++
		}
	}
	if nHeld != 1 {
		return nil, errors.New("not a gimbal: hold exactly one rotation")
	}
	d, ok := node.As[node.Deriver](n)
	if !ok {
		return nil, errors.New("no Derivatives")
	}
	s := n.Spec()
	f := make([]float64, len(x))
	if err := d.Derivatives(0, x, in, f); err != nil {
		return nil, err
	}
	out := append([]float64(nil), x...)
	po, vo := s.StateFieldOffset("position"), s.StateFieldOffset("velocity")
	qo, wo := s.StateFieldOffset("orientation"), s.StateFieldOffset("angular_velocity")
	for i := range 3 {
		out[vo+i] = x[vo+i] + dt*f[vo+i]
		out[po+i] = x[po+i] + dt*out[vo+i]
	}

	q := x[qo : qo+4]
	w, qx, qy, qz := q[0], q[1], q[2], q[3]
	r := [3][3]float64{
		{1 - 2*(qy*qy+qz*qz), 2 * (qx*qy - w*qz), 2 * (qx*qz + w*qy)},
		{2 * (qx*qy + w*qz), 1 - 2*(qx*qx+qz*qz), 2 * (qy*qz - w*qx)},
		{2 * (qx*qz - w*qy), 2 * (qy*qz + w*qx), 1 - 2*(qx*qx+qy*qy)},
	}
	sv, cv := math.Sincos(value)
	var a [3]float64
	a[held] = value
	switch held {
	case 2: // R_z(v)ᵀR = R_y R_x
		a[1] = math.Atan2(-r[2][0], cv*r[0][0]+sv*r[1][0])
		a[0] = math.Atan2(-(-sv*r[0][2] + cv*r[1][2]), -sv*r[0][1]+cv*r[1][1])
	case 0: // R R_x(v)ᵀ = R_z R_y
		a[2] = math.Atan2(-(cv*r[0][1] - sv*r[0][2]), cv*r[1][1]-sv*r[1][2])
		a[1] = math.Atan2(-r[2][0], sv*r[2][1]+cv*r[2][2])
	case 1:
		sg := math.Copysign(1, cv)
		a[0] = math.Atan2(sg*r[2][1], sg*r[2][2])
		a[2] = math.Atan2(sg*r[1][0], sg*r[0][0])
	}
	cols := func(a [3]float64) [3][3]float64 {
		sy, cy := math.Sincos(a[1])
		sz, cz := math.Sincos(a[2])
		return [3][3]float64{{cz * cy, sz * cy, -sy}, {-sz, cz, 0}, {0, 0, 1}}
	}
	dot := func(u, v [3]float64) float64 { return u[0]*v[0] + u[1]*v[1] + u[2]*v[2] }
	cross := func(u, v [3]float64) [3]float64 {
		return [3]float64{u[1]*v[2] - u[2]*v[1], u[2]*v[0] - u[0]*v[2], u[0]*v[1] - u[1]*v[0]}
	}
	var fr [2]int
	for i, k := 0, 0; i < 3; i++ {
		if i != held {
			fr[k] = i
			k++
		}
	}
	lsq := func(c [3][3]float64, v [3]float64) [2]float64 { // (JᵀJ)⁻¹Jᵀv
		j0, j1 := c[fr[0]], c[fr[1]]
		g00, g01, g11 := dot(j0, j0), dot(j0, j1), dot(j1, j1)
		r0, r1 := dot(j0, v), dot(j1, v)
		det := g00*g11 - g01*g01
		return [2]float64{(g11*r0 - g01*r1) / det, (g00*r1 - g01*r0) / det}
	}
	cl := cols(a)
	om := [3]float64{x[wo], x[wo+1], x[wo+2]}
	ad := lsq(cl, om)
	var rate [3]float64
	rate[fr[0]], rate[fr[1]] = ad[0], ad[1]
	zy, zx, yx := cross(cl[2], cl[1]), cross(cl[2], cl[0]), cross(cl[1], cl[0])
	var res [3]float64 // ω̇ − J̇ȧ
	for i := range 3 {
		res[i] = f[wo+i] - (rate[1]*rate[2]*zy[i] + rate[0]*rate[2]*zx[i] + rate[0]*rate[1]*yx[i])
	}
	add := lsq(cl, res)
	for k := range 2 {
		ad[k] += dt * add[k]
		a[fr[k]] += dt * ad[k]
	}
	qa := func(k int, ang float64) [4]float64 {
		s, c := math.Sincos(ang / 2)
		v := [4]float64{c, 0, 0, 0}
		v[1+k] = s
		return v
	}
	mul := func(p, q [4]float64) [4]float64 {
		return [4]float64{
			p[0]*q[0] - p[1]*q[1] - p[2]*q[2] - p[3]*q[3],
			p[0]*q[1] + p[1]*q[0] + p[2]*q[3] - p[3]*q[2],
			p[0]*q[2] - p[1]*q[3] + p[2]*q[0] + p[3]*q[1],
			p[0]*q[3] + p[1]*q[2] - p[2]*q[1] + p[3]*q[0],
		}
	}
	q1 := mul(qa(2, a[2]), mul(qa(1, a[1]), qa(0, a[0])))
	if q1[0]*q[0]+q1[1]*q[1]+q1[2]*q[2]+q1[3]*q[3] < 0 {
		q1 = [4]float64{-q1[0], -q1[1], -q1[2], -q1[3]}
	}
	copy(out[qo:qo+4], q1[:])
	c1 := cols(a)
	for i := range 3 {
		out[wo+i] = ad[0]*c1[fr[0]][i] + ad[1]*c1[fr[1]][i]
	}
	return out, nil
}

// Reference is the former name of ReferenceStep.
//
// Deprecated: use ReferenceStep (node.Reference is a literature reference
// in a node's metadata).
func Reference(n node.Node, x []float64, in node.Inputs, dt float64) ([]float64, error) {
	return ReferenceStep(n, x, in, dt)
}
