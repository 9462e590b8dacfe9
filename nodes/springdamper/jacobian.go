package springdamper

import (
	"fmt"
	"math"

	"github.com/cosimgo/cosim/node"
)

// OutputsJacobian writes ∂y/∂u (Spec().OutputLayout.Size ×
// Spec().InputLayout.Size, row-major) into dst: the derivative of every
// output with respect to every input component, at (t, in).
//
// The force derivative is Exudyn's local Jacobian, ∂f_SD/∂Δp = diag(k)
// and ∂f_SD/∂Δv = diag(d) (zero when inactive), chained through the
// marker Jacobians: ∂Δp/∂x_k = ±MarkerJacobian, ∂Δv/∂x_k = ±∂vel/∂x_k,
// minus for marker 0. The load rows are L_k·(±∂f_SD/∂u) + J'_k, with L_k
// = ∂MarkerLoad/∂f and J'_k = ∂MarkerLoad(x_k, ·, ±f_SD)/∂x_k at fixed
// force: Exudyn's J_CSD′, the moment arm (R r) × f of a rigid body
// turning with its orientation.
//
// What node.Marker gives analytically is used as such: MarkerJacobian,
// and MarkerVelocityJacobian when the body has it (node.MarkerVelocityJacobian).
// The rest is derived from the body's marker maps without a contract for
// their derivatives: L_k exactly, by applying the unit forces (a marker
// load is linear in the force); the velocity columns of ∂vel/∂x_k exactly,
// by applying unit velocities (the marker velocity is assumed linear in
// the Velocity-role fields, as for every point and planar body); the
// position dependence of the velocity and J'_k by central differences of
// MarkerKinematics and MarkerLoad with the relative step ε^(1/3), about
// 1e-10 relative error (they are exactly zero for bodies whose maps do
// not depend on the coordinates: a difference of equal values is 0).
//
// With a user force function, ∂f_SD/∂Δp and ∂f_SD/∂Δv are central
// differences of the function (as Exudyn's item reference uses numerical
// differentiation then); everything else is as above. The Distance row is
// zero where the distance is zero (it is not differentiable there).
// It panics if dst is shorter than the Jacobian.
func (n *Node) OutputsJacobian(t float64, x []float64, in node.Inputs, dst []float64) error {
	ny, nu := n.sig.spec.OutputLayout.Size(), n.sig.spec.InputLayout.Size()
	if len(dst) < ny*nu {
		panic(fmt.Sprintf("%s: OutputsJacobian: len(dst) = %d, want %d × %d", TypeName, len(dst), ny, nu))
	}
	dst = dst[:ny*nu]
	clear(dst)
	u := in.Values
	if n.hot[0].kind != kindBody && n.hot[1].kind != kindBody && nu <= maxPointInputs {
		return n.pointJacobian(t, u, dst, nu)
	}
	dp, f, a, b, err := n.linearize(t, u)
	if err != nil {
		return err
	}

	// ∂Δp/∂u, ∂Δv/∂u and ∂f/∂u, each 3 × nu.
	dP, dV, dF := make([]float64, 3*nu), make([]float64, 3*nu), make([]float64, 3*nu)
	for k := range n.mk {
		mk := &n.mk[k]
		if mk.body == nil {
			continue
		}
		nk := mk.in1 - mk.in0
		jp, jv := make([]float64, 3*nk), make([]float64, 3*nk)
		xk := u[mk.in0:mk.in1]
		mk.body.MarkerJacobian(xk, mk.local, jp)
		node.VelocityJacobian(mk.body, xk, mk.local, mk.velCols, jv)
		s := float64(2*k - 1) // −1 for marker 0, +1 for marker 1
		for i := range 3 {
			for j := range nk {
				dP[i*nu+mk.in0+j] = s * jp[i*nk+j]
				dV[i*nu+mk.in0+j] = s * jv[i*nk+j]
			}
		}
	}
	n.kinematicRows(dp, &a, &b, dP, dV, dF, dst, nu)
	row := func(r int) []float64 { return dst[r*nu : (r+1)*nu] }

	for k := range n.mk {
		mk := &n.mk[k]
		nl := mk.y1 - mk.y0
		if nl == 0 {
			continue
		}
		s := float64(1 - 2*k) // the force on marker 0 is +f, on marker 1 −f
		fk := [3]float64{s * f[0], s * f[1], s * f[2]}
		xk := u[mk.in0:mk.in1]
		// L_k = ∂load/∂f, column by column (the load is linear in f).
		lf := make([]float64, nl)
		for c := range 3 {
			var e [3]float64
			e[c] = 1
			mk.body.MarkerLoad(xk, mk.local, e, lf)
			addLoadColumn(dst, mk.y0, lf, s, dF[c*nu:(c+1)*nu], nu)
		}
		// J'_k = ∂load(x_k, ±f)/∂x_k at fixed force.
		xp := append([]float64(nil), xk...)
		lp, lm := make([]float64, nl), make([]float64, nl)
		for j := range xp {
			h := node.FDStep(xk[j])
			xp[j] = xk[j] + h
			mk.body.MarkerLoad(xp, mk.local, fk, lp)
			xp[j] = xk[j] - h
			mk.body.MarkerLoad(xp, mk.local, fk, lm)
			xp[j] = xk[j]
			for i := range nl {
				row(mk.y0 + i)[mk.in0+j] += (lp[i] - lm[i]) / (2 * h)
			}
		}
	}
	return nil
}

// maxPointInputs is the inputs of a connector between two point markers.
const maxPointInputs = 12

// pointJacobian is OutputsJacobian for ground and point markers (the
// direct path of Outputs, PointMarker): the same formulas on the marker
// maps the PointMarker contract fixes (∂pos/∂x = [I 0], ∂vel/∂x = [0 I],
// the load is the force), without calls through node.Marker or
// allocations. The values are those of the general path (to the sign of
// zero entries); TestPointMarkerDirectJacobian checks it.
func (n *Node) pointJacobian(t float64, u, dst []float64, nu int) error {
	var dp, dv [3]float64
	{
		h0, h1 := &n.hot[0], &n.hot[1]
		p0x, p0y, p0z, v0x, v0y, v0z := h0.direct(u, &n.mk[0].local)
		p1x, p1y, p1z, v1x, v1y, v1z := h1.direct(u, &n.mk[1].local)
		dp = [3]float64{p1x - p0x, p1y - p0y, p1z - p0z}
		dv = [3]float64{v1x - v0x, v1y - v0y, v1z - v0z}
	}
	if _, err := n.m.Get().force(t, dp, dv); err != nil {
		return err
	}
	a, b, err := n.localJacobian(t, dp, dv)
	if err != nil {
		return err
	}
	if n.m.Get().uf == nil {
		n.pointJacobianLinear(dp, &a, &b, dst, nu)
		return nil
	}
	// ∂Δp/∂u, ∂Δv/∂u and ∂f/∂u, each 3 × nu: ±[I 0] and ±[0 I] over each
	// point marker's six inputs, minus for marker 0.
	var dP, dV, dF [3 * maxPointInputs]float64
	for k := range n.mk {
		if n.hot[k].kind != kindPoint {
			continue
		}
		in0 := int(n.hot[k].in0)
		s := float64(2*k - 1)
		for i := range 3 {
			for j := range 6 {
				jp, jv := 0.0, 0.0
				if j == i {
					jp = 1
				}
				if j == i+3 {
					jv = 1
				}
				dP[i*nu+in0+j] = s * jp
				dV[i*nu+in0+j] = s * jv
			}
		}
	}
	n.kinematicRows(dp, &a, &b, dP[:3*nu], dV[:3*nu], dF[:3*nu], dst, nu)
	// A point marker's load is the force, +f on marker 0 and −f on
	// marker 1: its rows are ±∂f/∂u (the general path's L_k = I, J'_k = 0).
	for k := range n.mk {
		if n.hot[k].kind != kindPoint {
			continue
		}
		mk := &n.mk[k]
		if mk.y1-mk.y0 != 3 {
			continue
		}
		s := float64(1 - 2*k)
		for c := range 3 {
			var e [3]float64
			e[c] = 1
			addLoadColumn(dst, mk.y0, e[:], s, dF[c*nu:(c+1)*nu], nu)
		}
	}
	return nil
}

// kinematicRows computes ∂f/∂u = a·∂Δp/∂u + b·∂Δv/∂u into dF (each
// 3 × nu) and writes the displacement, velocity, force, distance and
// energy rows of dst (ny × nu, zero on entry): the rows both paths of
// OutputsJacobian share.
func (n *Node) kinematicRows(dp [3]float64, a, b *[9]float64, dP, dV, dF, dst []float64, nu int) {
	for i := range 3 {
		for j := range nu {
			var sum float64
			for l := range 3 {
				sum += a[i*3+l]*dP[l*nu+j] + b[i*3+l]*dV[l*nu+j]
			}
			dF[i*nu+j] = sum
		}
	}
	copy(dst[yDisplacement*nu:(yDisplacement+3)*nu], dP)
	copy(dst[yVelocity*nu:(yVelocity+3)*nu], dV)
	copy(dst[yForce*nu:(yForce+3)*nu], dF)
	if l := math.Sqrt(dp[0]*dp[0] + dp[1]*dp[1] + dp[2]*dp[2]); l > 0 {
		r := dst[yDistance*nu : (yDistance+1)*nu]
		for i := range 3 {
			for j := range nu {
				r[j] += dp[i] / l * dP[i*nu+j]
			}
		}
	}
	if m := n.m.Get(); n.sig.hasPE && m.active {
		r := dst[yEnergy*nu : (yEnergy+1)*nu]
		for i := range 3 {
			c := m.k[i] * (dp[i] - m.off[i])
			for j := range nu {
				r[j] += c * dP[i*nu+j]
			}
		}
	}
}

// addLoadColumn adds the load rows' part of one force component c: lf
// is ∂load/∂f_c (one value per load row, from y0), s the force's sign on
// the marker, dFc row c of ∂f/∂u.
func addLoadColumn(dst []float64, y0 int, lf []float64, s float64, dFc []float64, nu int) {
	for i, l := range lf {
		r := dst[(y0+i)*nu : (y0+i+1)*nu]
		for j := range nu {
			r[j] += l * s * dFc[j]
		}
	}
}

// pointJacobianLinear is pointJacobian for the linear force law, whose
// local Jacobians a and b are diagonal: every row has at most one entry
// per point marker and axis, ±1 on the displacement and velocity rows,
// ±a_ii and ±b_ii on the force rows, and the products of the general
// formulas with those (their other terms are zeros), written directly
// into dst, which is zero.
func (n *Node) pointJacobianLinear(dp [3]float64, a, b *[9]float64, dst []float64, nu int) {
	l := math.Sqrt(dp[0]*dp[0] + dp[1]*dp[1] + dp[2]*dp[2])
	for k := range n.mk {
		h := &n.hot[k]
		if h.kind != kindPoint {
			continue
		}
		in0 := int(h.in0)
		s := float64(2*k - 1)
		for i := range 3 {
			jp, jv := in0+i, in0+3+i
			dst[(yDisplacement+i)*nu+jp] = s
			dst[(yVelocity+i)*nu+jv] = s
			fp, fv := a[i*4]*s, b[i*4]*s
			dst[(yForce+i)*nu+jp] = fp
			dst[(yForce+i)*nu+jv] = fv
			if l > 0 {
				dst[yDistance*nu+jp] = dp[i] / l * s
			}
			if m := n.m.Get(); n.sig.hasPE && m.active {
				dst[yEnergy*nu+jp] = m.k[i] * (dp[i] - m.off[i]) * s
			}
			// The loads: +f on marker 0, −f on marker 1.
			for q := range n.mk {
				mq := &n.mk[q]
				if n.hot[q].kind != kindPoint || mq.y1-mq.y0 != 3 {
					continue
				}
				sq := float64(1 - 2*q)
				dst[(mq.y0+i)*nu+jp] = sq * fp
				dst[(mq.y0+i)*nu+jv] = sq * fv
			}
		}
	}
}

// localJacobian returns ∂f_SD/∂Δp and ∂f_SD/∂Δv (3 × 3, row-major): Exudyn's
// diag(k) and diag(d), zero when inactive, central differences of
// the user function when set.
// linearize is the common start of OutputsJacobian and JacobianCSD: the
// relative displacement Δp at the inputs u, the force f there and its
// local Jacobians a = ∂f/∂Δp, b = ∂f/∂Δv.
func (n *Node) linearize(t float64, u []float64) (dp, f [3]float64, a, b [9]float64, err error) {
	p0, v0, p1, v1 := n.state(u, make([]float64, yForce))
	var dv [3]float64
	for i := range 3 {
		dp[i], dv[i] = p1[i]-p0[i], v1[i]-v0[i]
	}
	if f, err = n.m.Get().force(t, dp, dv); err != nil {
		return dp, f, a, b, err
	}
	a, b, err = n.localJacobian(t, dp, dv)
	return dp, f, a, b, err
}

func (n *Node) localJacobian(t float64, dp, dv [3]float64) (a, b [9]float64, err error) {
	m := n.m.Get()
	if !m.active {
		return a, b, nil
	}
	if m.uf == nil {
		for i := range 3 {
			a[i*4], b[i*4] = m.k[i], m.d[i]
		}
		return a, b, nil
	}
	for c := range 6 {
		arg := &dp
		if c >= 3 {
			arg = &dv
		}
		x0 := arg[c%3]
		h := node.FDStep(x0)
		arg[c%3] = x0 + h
		fp, err := m.force(t, dp, dv)
		if err != nil {
			return a, b, err
		}
		arg[c%3] = x0 - h
		fm, err := m.force(t, dp, dv)
		if err != nil {
			return a, b, err
		}
		arg[c%3] = x0
		dst := &a
		if c >= 3 {
			dst = &b
		}
		for i := range 3 {
			dst[i*3+c%3] = (fp[i] - fm[i]) / (2 * h)
		}
	}
	return a, b, nil
}

// JacobianCSD writes Exudyn's connector Jacobian
//
//	J_CSD = [ J0ᵀ J_loc1 J0   −J0ᵀ J_loc1 J1 ]  + J_CSD′,
//	        [ −J1ᵀ J_loc1 J0   J1ᵀ J_loc1 J1 ]
//
// J_loc1 = f_ODE2·∂f_SD/∂Δp + f_ODE2_t·∂f_SD/∂Δv (f_ODE2·diag(k) +
// f_ODE2_t·diag(d) without a user function), J_k = MarkerJacobian of
// marker k and J_CSD′ = blockdiag(−f_ODE2·∂(J0ᵀf)/∂q0, f_ODE2·∂(J1ᵀf)/∂q1)
// at fixed f = f_SD, into dst (nu × nu, row-major, nu =
// Spec().InputLayout.Size): rows and columns index the connector's input
// components, i.e. the coordinates q_m0, q_m1 of the markers' bodies
// (nothing for a ground marker). It is the derivative of Exudyn's
// left-hand-side terms f_LHS,m0 = −J0ᵀ f_SD and f_LHS,m1 = J1ᵀ f_SD, for
// an implicit solver that works in the bodies' coordinates: as in
// Exudyn, the velocity derivative is folded onto the position columns
// (∂v/∂q̇ = J_pos), so it is exact for bodies whose velocity fields are
// the rates of their position fields and whose marker velocity is J_pos·q̇
// (point masses, the planar body); columns of velocity fields are zero
// because J_pos is zero there. J_CSD′ uses central differences of
// MarkerJacobian (the contract has no second derivatives). It panics if
// dst is too short.
func (n *Node) JacobianCSD(fODE2, fODE2t float64, t float64, in node.Inputs, dst []float64) error {
	nu := n.sig.spec.InputLayout.Size()
	if len(dst) < nu*nu {
		panic(fmt.Sprintf("%s: JacobianCSD: len(dst) = %d, want %d × %d", TypeName, len(dst), nu, nu))
	}
	dst = dst[:nu*nu]
	clear(dst)
	u := in.Values
	_, f, a, b, err := n.linearize(t, u)
	if err != nil {
		return err
	}
	var jloc [9]float64
	for i := range jloc {
		jloc[i] = fODE2*a[i] + fODE2t*b[i]
	}
	// Jd = J1 − J0, 3 × nu; then the block matrix is Jdᵀ J_loc1 Jd.
	jd := make([]float64, 3*nu)
	for k := range n.mk {
		mk := &n.mk[k]
		if mk.body == nil {
			continue
		}
		nk := mk.in1 - mk.in0
		jp := make([]float64, 3*nk)
		mk.body.MarkerJacobian(u[mk.in0:mk.in1], mk.local, jp)
		s := float64(2*k - 1)
		for i := range 3 {
			for j := range nk {
				jd[i*nu+mk.in0+j] = s * jp[i*nk+j]
			}
		}
	}
	var lj [3]float64
	for c := range nu {
		for i := range 3 {
			lj[i] = jloc[i*3]*jd[c] + jloc[i*3+1]*jd[nu+c] + jloc[i*3+2]*jd[2*nu+c]
		}
		for r := range nu {
			dst[r*nu+c] = jd[r]*lj[0] + jd[nu+r]*lj[1] + jd[2*nu+r]*lj[2]
		}
	}
	// J_CSD′: ∓f_ODE2·∂(J_kᵀ f)/∂q_k at fixed f.
	if fODE2 != 0 {
		for k := range n.mk {
			mk := &n.mk[k]
			if mk.body == nil {
				continue
			}
			s := float64(2*k-1) * fODE2
			xk := u[mk.in0:mk.in1]
			nk := len(xk)
			xp := append([]float64(nil), xk...)
			jp, jm := make([]float64, 3*nk), make([]float64, 3*nk)
			for j := range nk {
				h := node.FDStep(xk[j])
				xp[j] = xk[j] + h
				mk.body.MarkerJacobian(xp, mk.local, jp)
				xp[j] = xk[j] - h
				mk.body.MarkerJacobian(xp, mk.local, jm)
				xp[j] = xk[j]
				for r := range nk {
					var d float64
					for i := range 3 {
						d += (jp[i*nk+r] - jm[i*nk+r]) * f[i]
					}
					dst[(mk.in0+r)*nu+mk.in0+j] += s * d / (2 * h)
				}
			}
		}
	}
	return nil
}
