package rigidbody

import "math"

// Small fixed-size linear algebra on arrays, so the step allocates nothing.
// Quaternions are (w, x, y, z) with w the scalar part; matrices are 3 × 3
// row-major.
type (
	vec3 = [3]float64
	quat = [4]float64
	mat3 = [9]float64
)

func dot(a, b vec3) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

func cross(a, b vec3) vec3 {
	return vec3{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

func mulMV(m mat3, v vec3) vec3 {
	return vec3{
		m[0]*v[0] + m[1]*v[1] + m[2]*v[2],
		m[3]*v[0] + m[4]*v[1] + m[5]*v[2],
		m[6]*v[0] + m[7]*v[1] + m[8]*v[2],
	}
}

// mulMtV is mᵀ·v.
func mulMtV(m mat3, v vec3) vec3 {
	return vec3{
		m[0]*v[0] + m[3]*v[1] + m[6]*v[2],
		m[1]*v[0] + m[4]*v[1] + m[7]*v[2],
		m[2]*v[0] + m[5]*v[1] + m[8]*v[2],
	}
}

// qmul is the Hamilton product a ⊗ b.
func qmul(a, b quat) quat {
	return quat{
		a[0]*b[0] - a[1]*b[1] - a[2]*b[2] - a[3]*b[3],
		a[0]*b[1] + a[1]*b[0] + a[2]*b[3] - a[3]*b[2],
		a[0]*b[2] - a[1]*b[3] + a[2]*b[0] + a[3]*b[1],
		a[0]*b[3] + a[1]*b[2] - a[2]*b[1] + a[3]*b[0],
	}
}

func qconj(q quat) quat { return quat{q[0], -q[1], -q[2], -q[3]} }

// qnorm is |q|, scaled so that neither tiny nor huge components underflow
// or overflow.
func qnorm(q quat) float64 {
	s := max(math.Abs(q[0]), math.Abs(q[1]), math.Abs(q[2]), math.Abs(q[3]))
	if s == 0 || math.IsInf(s, 0) {
		return s
	}
	a, b, c, d := q[0]/s, q[1]/s, q[2]/s, q[3]/s
	return s * math.Sqrt(a*a+b*b+c*c+d*d)
}

// qunit returns q/|q|; q must not be zero.
func qunit(q quat) quat {
	n := qnorm(q)
	return quat{q[0] / n, q[1] / n, q[2] / n, q[3] / n}
}

// qaxis is the rotation by angle about coordinate axis k (0: x, 1: y, 2: z).
func qaxis(k int, angle float64) quat {
	s, c := math.Sincos(angle / 2)
	q := quat{c, 0, 0, 0}
	q[1+k] = s
	return q
}

// qexp is exp(½·h·ω) as a unit quaternion: the rotation by the angle
// |ω|·h about ω/|ω|.
func qexp(w vec3, h float64) quat {
	n := math.Sqrt(dot(w, w))
	if n == 0 {
		return quat{1, 0, 0, 0}
	}
	s, c := math.Sincos(n * h / 2)
	s /= n
	return quat{c, s * w[0], s * w[1], s * w[2]}
}

// rotation is R(q/|q|): the matrix that takes body-frame vectors to the
// world frame.
func rotation(q quat) mat3 {
	q = qunit(q)
	w, x, y, z := q[0], q[1], q[2], q[3]
	return mat3{
		1 - 2*(y*y+z*z), 2 * (x*y - w*z), 2 * (x*z + w*y),
		2 * (x*y + w*z), 1 - 2*(x*x+z*z), 2 * (y*z - w*x),
		2 * (x*z - w*y), 2 * (y*z + w*x), 1 - 2*(x*x+y*y),
	}
}

// rotateGrad returns p = R(q)·r for a unit q and G = ∂p/∂q (3 × 4,
// row-major), evaluated from the homogeneous form
// p(q) = (w² − v·v) r + 2 (v·r) v + 2 w (v × r), which equals R(q)·r on
// unit quaternions.
func rotateGrad(q quat, r vec3) (p vec3, g [12]float64) {
	w := q[0]
	v := vec3{q[1], q[2], q[3]}
	vr, vv := dot(v, r), dot(v, v)
	vxr := cross(v, r)
	for i := range 3 {
		p[i] = (w*w-vv)*r[i] + 2*vr*v[i] + 2*w*vxr[i]
		g[i*4] = 2*w*r[i] + 2*vxr[i]
		for j := range 3 {
			d := -2*r[i]*v[j] + 2*v[i]*r[j]
			if i == j {
				d += 2 * vr
			}
			g[i*4+1+j] = d
		}
	}
	// −2w[r]×: [r]× = [[0, −r2, r1], [r2, 0, −r0], [−r1, r0, 0]].
	g[0*4+2] += 2 * w * r[2]
	g[0*4+3] -= 2 * w * r[1]
	g[1*4+1] -= 2 * w * r[2]
	g[1*4+3] += 2 * w * r[0]
	g[2*4+1] += 2 * w * r[1]
	g[2*4+2] -= 2 * w * r[0]
	return p, g
}

// inverseSPD inverts a symmetric matrix after checking that it is positive
// definite by its leading principal minors (Sylvester's criterion). It
// returns the index (1–3) of the first minor that is not positive, or 0.
func inverseSPD(m mat3) (inv mat3, badMinor int, minor float64) {
	d1 := m[0]
	d2 := m[0]*m[4] - m[1]*m[3]
	c0 := m[4]*m[8] - m[5]*m[7]
	c1 := m[5]*m[6] - m[3]*m[8]
	c2 := m[3]*m[7] - m[4]*m[6]
	d3 := m[0]*c0 + m[1]*c1 + m[2]*c2
	for i, d := range []float64{d1, d2, d3} {
		if !(d > 0) {
			return mat3{}, i + 1, d
		}
	}
	inv = mat3{
		c0, m[2]*m[7] - m[1]*m[8], m[1]*m[5] - m[2]*m[4],
		c1, m[0]*m[8] - m[2]*m[6], m[2]*m[3] - m[0]*m[5],
		c2, m[1]*m[6] - m[0]*m[7], m[0]*m[4] - m[1]*m[3],
	}
	for i := range inv {
		inv[i] /= d3
	}
	return inv, 0, 0
}
