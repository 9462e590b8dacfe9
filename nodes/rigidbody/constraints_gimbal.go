package rigidbody

import "math"

// One held rotation: a two-axis gimbal.
//
// With R = R_z(ψ)·R_y(θ)·R_x(φ), (φ, θ, ψ) = (rx, ry, rz), the world
// angular velocity is
//
//	ω = φ̇·c_x + θ̇·c_y + ψ̇·c_z,  c_x = R_z R_y e_x = (cψcθ, sψcθ, −sθ),
//	                             c_y = R_z e_y = (−sψ, cψ, 0),  c_z = e_z.
//
// Holding one angle leaves the other two, a = (a₁, a₂), as generalized
// coordinates: ω = J(a)·ȧ with J the two free columns (3 × 2). The
// constraint torque does no work on any motion the gimbal allows, so it is
// orthogonal to the columns of J, and Euler's equations projected onto
// them are the constrained equations of motion (d'Alembert; they are the
// Euler–Lagrange equations of T = ½ωᵀI_wω):
//
//	Jᵀ(I_w·ω̇ + ω × I_w·ω − τ) = 0,  ω̇ = J·ä + J̇·ȧ,
//
// i.e. M·ä = Jᵀ(τ − ω × I_w·ω − I_w·J̇ȧ) with the 2 × 2 mass matrix
// M = Jᵀ·I_w·J. Each column turns with the rates of the angles outside
// it, so
//
//	J̇·ȧ = θ̇ψ̇·(c_z × c_y) + φ̇ψ̇·(c_z × c_x) + φ̇θ̇·(c_y × c_x)
//
// with the held rate zero. With zero torque dT/dt = ω·τ = 0: the kinetic
// energy is conserved, and the momentum about the outer free axis (a
// fixed world axis: c_z when rx or ry is held, c_y when rz is held) too,
// since the outer free angle is cyclic.
//
// Singularities. M is singular only where the two free columns are
// parallel. c_x·c_y = 0 and c_y·c_z = 0 always, so holding rx (free c_y,
// c_z) or rz (free c_x, c_y) is regular at every orientation: the columns
// stay orthonormal, even where |ry| = π/2. (There the Z-Y-X angles of
// the orientation do not tell rx from rz: read back from q with
// zyxAngles, the held angle is ill-conditioned, but the node never reads
// it back — it keeps the held angle as a parameter and builds q from the
// angles — so nothing degrades.) Holding ry alone leaves c_x and c_z with
// c_x·c_z = −sin ry: at ry = ±π/2 both free axes are the world z axis (the
// gimbal is locked in its held position) and M is singular for ever, so
// such a constraint is rejected; near it the free angles' rates grow as
// 1/|cos ry|. The limit is |cos ry| ≥ gimbalLockTol.

// DiscretizationGimbal is the name of the scheme Update runs for a body
// with exactly one held rotation (see Node.Update): semi-implicit Euler in
// the two free Z-Y-X angles and their rates, ȧ⁺ = ȧ + Δt·ä(a, ȧ, τ),
// a⁺ = a + Δt·ȧ⁺, with q⁺ built from the angles and ω⁺ = J(a⁺)·ȧ⁺; the
// translation is semi-implicit Euler as in every other case. Such a body's
// Metadata.Discretization names it.
const DiscretizationGimbal = "semi-implicit-euler-gimbal"

// gimbalLockTol is the smallest |cos ry| at which ry may be held alone:
// ry must stay at least about 1e-3 rad away from ±π/2.
const gimbalLockTol = 1e-3

// gimbal is a body with one held rotation angle.
type gimbal struct {
	held  int     // the held angle: 0 rx, 1 ry, 2 rz
	free  [2]int  // the free angles, ascending
	value float64 // the held angle, rad
	qHeld quat    // qaxis(held, value): the held factor of q
	s, c  float64 // sin, cos of value
	sgn   float64 // sign of cos(value): the branch of the angles when ry is held
}

func newGimbal(held int, value float64) gimbal {
	g := gimbal{held: held, value: value, qHeld: qaxis(held, value), sgn: 1}
	g.s, g.c = math.Sincos(value)
	if g.c < 0 {
		g.sgn = -1
	}
	k := 0
	for i := range 3 {
		if i != held {
			g.free[k] = i
			k++
		}
	}
	return g
}

// quat is q = q_z(a₂) ⊗ q_y(a₁) ⊗ q_x(a₀) for the angles a = (rx, ry, rz),
// with the held factor exactly qHeld.
func (g *gimbal) quat(a vec3) quat {
	var f [3]quat
	for i := range 3 {
		if i == g.held {
			f[i] = g.qHeld
		} else {
			f[i] = qaxis(i, a[i])
		}
	}
	return qmul(f[2], qmul(f[1], f[0]))
}

// angles returns (rx, ry, rz) of an orientation q on the gimbal: the held
// angle exactly, the free ones in (−π, π] from formulas that are regular
// everywhere on the gimbal (unlike zyxAngles, whose rx and rz are
// singular at |ry| = π/2, and whose ry is limited to [−π/2, π/2]).
//
//   - rz held: N = R_z(rz)ᵀR = R_y(ry)R_x(rx), so ry = atan2(−N₃₁, N₁₁) and
//     rx = atan2(−N₂₃, N₂₂).
//   - rx held: N = R·R_x(rx)ᵀ = R_z(rz)R_y(ry), so rz = atan2(−N₁₂, N₂₂) and
//     ry = atan2(−N₃₁, N₃₃).
//   - ry held: R₃₂ = cos ry·sin rx, R₃₃ = cos ry·cos rx, R₂₁ = sin rz·cos ry,
//     R₁₁ = cos rz·cos ry, with cos ry of known sign and |cos ry| ≥
//     gimbalLockTol.
func (g *gimbal) angles(q quat) vec3 {
	r := rotation(q) // R_ij = r[3(i−1)+(j−1)]
	var a vec3
	a[g.held] = g.value
	c, s := g.c, g.s
	switch g.held {
	case 2:
		a[1] = math.Atan2(-r[6], c*r[0]+s*r[3])
		a[0] = math.Atan2(s*r[2]-c*r[5], c*r[4]-s*r[1])
	case 0:
		a[2] = math.Atan2(s*r[2]-c*r[1], c*r[4]-s*r[5])
		a[1] = math.Atan2(-r[6], s*r[7]+c*r[8])
	case 1:
		a[0] = math.Atan2(g.sgn*r[7], g.sgn*r[8])
		a[2] = math.Atan2(g.sgn*r[3], g.sgn*r[0])
	}
	return a
}

// columns returns c_x, c_y, c_z at the angles a: ω = Σ ȧ_i·c_i.
func columns(a vec3) [3]vec3 {
	sy, cy := math.Sincos(a[1])
	sz, cz := math.Sincos(a[2])
	return [3]vec3{{cz * cy, sz * cy, -sy}, {-sz, cz, 0}, {0, 0, 1}}
}

// rates returns the free angles' rates ȧ that best reproduce ω:
// (JᵀJ)⁻¹Jᵀω, exact when ω = J·ȧ (as Update leaves it), the least-squares
// projection otherwise.
func (g *gimbal) rates(cols [3]vec3, w vec3) [2]float64 {
	j0, j1 := cols[g.free[0]], cols[g.free[1]]
	a, b, d := dot(j0, j0), dot(j0, j1), dot(j1, j1)
	r0, r1 := dot(j0, w), dot(j1, w)
	det := a*d - b*b
	return [2]float64{(d*r0 - b*r1) / det, (a*r1 - b*r0) / det}
}

// omega is J·ȧ.
func (g *gimbal) omega(cols [3]vec3, ad [2]float64) vec3 {
	j0, j1 := cols[g.free[0]], cols[g.free[1]]
	return vec3{
		ad[0]*j0[0] + ad[1]*j1[0],
		ad[0]*j0[1] + ad[1]*j1[1],
		ad[0]*j0[2] + ad[1]*j1[2],
	}
}

// project returns the angular velocity the gimbal allows closest to w (in
// the Euclidean norm) at the angles a: J(JᵀJ)⁻¹Jᵀw.
func (g *gimbal) project(a vec3, w vec3) vec3 {
	cols := columns(a)
	return g.omega(cols, g.rates(cols, w))
}

// gimbalAccel returns the free angles' accelerations ä, solving
// M·ä = Jᵀ(τ − ω × I_w·ω − I_w·J̇ȧ) with M = JᵀI_wJ and ω = J·ȧ, and the
// world angular acceleration ω̇ = J·ä + J̇·ȧ. I_w = R(q)·I_b·R(q)ᵀ.
func (m *model) gimbalAccel(q quat, cols [3]vec3, ad [2]float64, tau vec3) ([2]float64, vec3) {
	g := &m.gim
	var rate vec3
	rate[g.free[0]], rate[g.free[1]] = ad[0], ad[1]
	cx, cy, cz := cols[0], cols[1], cols[2]
	zy, zx, yx := cross(cz, cy), cross(cz, cx), cross(cy, cx)
	var b vec3 // J̇·ȧ
	for i := range 3 {
		b[i] = rate[1]*rate[2]*zy[i] + rate[0]*rate[2]*zx[i] + rate[0]*rate[1]*yx[i]
	}
	w := g.omega(cols, ad)
	r := rotation(q)
	iw := func(v vec3) vec3 { return mulMV(r, mulMV(m.ib, mulMtV(r, v))) }
	gyro := cross(w, iw(w))
	ib := iw(b)
	f := vec3{tau[0] - gyro[0] - ib[0], tau[1] - gyro[1] - ib[1], tau[2] - gyro[2] - ib[2]}
	j0, j1 := cols[g.free[0]], cols[g.free[1]]
	m00, m01, m11 := dot(j0, iw(j0)), dot(j0, iw(j1)), dot(j1, iw(j1))
	r0, r1 := dot(j0, f), dot(j1, f)
	det := m00*m11 - m01*m01
	acc := [2]float64{(m11*r0 - m01*r1) / det, (m00*r1 - m01*r0) / det}
	wd := g.omega(cols, acc)
	for i := range 3 {
		wd[i] += b[i]
	}
	return acc, wd
}

// gimbalAccelWorld is ω̇ for Derivatives: the angles and rates are read
// from q and ω, which are assumed to be on the gimbal.
func (m *model) gimbalAccelWorld(q quat, w, tau vec3) vec3 {
	g := &m.gim
	cols := columns(g.angles(q))
	_, wd := m.gimbalAccel(q, cols, g.rates(cols, w), tau)
	return wd
}

// gimbalStep is one step of DiscretizationGimbal for the orientation:
// the angles a and rates ȧ are read from q and ω, then
//
//	ȧ⁺ = ȧ + Δt·ä(a, ȧ, τ),  a⁺ = a + Δt·ȧ⁺,  q⁺ = q(a⁺),  ω⁺ = J(a⁺)·ȧ⁺.
//
// q⁺ takes the sign that keeps it in the hemisphere of q (q and −q are
// the same rotation; the angles are read modulo 2π).
func (m *model) gimbalStep(dt float64, q quat, w, tau vec3) (quat, vec3) {
	g := &m.gim
	a := g.angles(q)
	cols := columns(a)
	ad := g.rates(cols, w)
	acc, _ := m.gimbalAccel(q, cols, ad, tau)
	for k := range 2 {
		ad[k] += dt * acc[k]
		a[g.free[k]] += dt * ad[k]
	}
	q1 := g.quat(a)
	if q1[0]*q[0]+q1[1]*q[1]+q1[2]*q[2]+q1[3]*q[3] < 0 {
		q1 = quat{-q1[0], -q1[1], -q1[2], -q1[3]}
	}
	return q1, g.omega(columns(a), ad)
}
