package rigidbody

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/cosimgo/cosim/node"
)

// TypeName is the registry name of the node type.
const TypeName = "rigidbody"

// Type is the node type, for node.NewRegistry(rigidbody.Type(), …): a
// new value at each call, so that no caller can change another's.
func Type() node.Type { return node.Type{Name: TypeName, New: FromMap} }

// rotMode is how the constraints leave the orientation free.
type rotMode int

const (
	rotFree   rotMode = iota // no rotation held: Euler's equations
	rotHinge                 // two held: rotation about one fixed world axis
	rotFixed                 // three held: the orientation is constant
	rotGimbal                // one held: two free Z-Y-X angles (constraints_gimbal.go)
)

// model is the validated parameter set in the form the step reads.
type model struct {
	mass    float64
	gravity vec3
	ib      mat3 // body-frame inertia
	ibInv   mat3
	init    [stateLen]float64 // initial state, projected onto the constraints

	held  [3]bool // translation i is held
	holdX vec3    // … at this value

	rot rotMode
	// Hinge: q = pre ⊗ qaxis(k, φ) ⊗ post, turning about the fixed world
	// axis n = R(pre)·e_k with the constant moment inertiaN = uᵀ I_b u,
	// u = R(post)ᵀ e_k the same axis in the body frame.
	k             int
	pre, post     quat
	hasPre, hasPt bool // pre/post are not the identity
	n             vec3
	inertiaN      float64
	// Fixed: the held orientation.
	qFixed quat
	// Gimbal: the held angle and the two free ones.
	gim gimbal
}

func build(v node.Values) (model, error) {
	var errs []error
	m := model{mass: v.Float("mass")}
	copy(m.gravity[:], v.Floats("gravity"))

	// Inertia.
	im := v.Floats("inertia_matrix")
	if slices.ContainsFunc(im, func(x float64) bool { return x != 0 }) {
		scale := 0.0
		for _, x := range im {
			scale = max(scale, math.Abs(x))
		}
		sym := true
		for i := range 3 {
			for j := range i {
				if math.Abs(im[3*i+j]-im[3*j+i]) > 1e-12*scale {
					sym = false
				}
				avg := (im[3*i+j] + im[3*j+i]) / 2
				m.ib[3*i+j], m.ib[3*j+i] = avg, avg
			}
			m.ib[4*i] = im[4*i]
		}
		if !sym {
			errs = append(errs, paramError("inertia_matrix", slices.Clone(im), "is not symmetric", inertiaMatrixValid))
		} else if inv, bad, minor := inverseSPD(m.ib); bad != 0 {
			errs = append(errs, paramError("inertia_matrix", slices.Clone(im),
				fmt.Sprintf("is not positive definite (leading principal minor %d is %s)", bad, node.FormatValue(minor)), inertiaMatrixValid))
		} else {
			m.ibInv = inv
		}
	} else {
		d := v.Floats("inertia")
		m.ib = mat3{d[0], 0, 0, 0, d[1], 0, 0, 0, d[2]}
		m.ibInv = mat3{1 / d[0], 0, 0, 0, 1 / d[1], 0, 0, 0, 1 / d[2]}
	}

	// Orientation.
	var q0 quat
	copy(q0[:], v.Floats("initial_orientation"))
	if qnorm(q0) == 0 {
		errs = append(errs, paramError("initial_orientation", q0[:], "is the zero quaternion, which is no rotation", "4 finite values (w, x, y, z), not all zero"))
	}

	// Constraints.
	c, err := ParseConstraints(v.String("constraints"))
	if err != nil {
		errs = append(errs, paramError("constraints", v.String("constraints"), err.Error(), constraintsValid))
	}
	// A body free to rotate about every axis has principal moments that
	// satisfy the triangle inequality; one whose rotations are constrained
	// (a planar body, rotating about z only) uses only the moments about
	// its free axes, so the others may be any positive values.
	_, rx := c[RX]
	_, ry := c[RY]
	_, rz := c[RZ]
	if err == nil && !rx && !ry && !rz && len(errs) == 0 {
		if slices.ContainsFunc(im, func(x float64) bool { return x != 0 }) {
			if why := triangleViolation(principalMoments(m.ib)); why != "" {
				errs = append(errs, paramError("inertia_matrix", slices.Clone(im), "has principal moments that violate "+why+"; a body whose rotations are constrained (constraints rx, ry, rz) is exempt", inertiaMatrixValid))
			}
		} else if d := v.Floats("inertia"); triangleViolation([3]float64{d[0], d[1], d[2]}) != "" {
			errs = append(errs, paramError("inertia", slices.Clone(d), "violates "+triangleViolation([3]float64{d[0], d[1], d[2]})+"; a body whose rotations are constrained (constraints rx, ry, rz) is exempt", inertiaValid))
		}
	}
	if len(errs) > 0 {
		return model{}, errors.Join(errs...)
	}
	q0 = qunit(q0)

	copy(m.init[offPos:], v.Floats("initial_position"))
	copy(m.init[offVel:], v.Floats("initial_velocity"))
	copy(m.init[offOmega:], v.Floats("initial_angular_velocity"))
	for i := range 3 {
		if h, ok := c[Axis(i)]; ok {
			m.held[i], m.holdX[i] = true, h
			m.init[offPos+i], m.init[offVel+i] = h, 0
		}
	}
	var angles vec3
	var heldRot [3]bool
	nRot := 0
	for i := range 3 {
		angles[i], heldRot[i] = c[RX+Axis(i)]
		if heldRot[i] {
			nRot++
		}
	}
	switch nRot {
	case 1:
		m.rot = rotGimbal
		for i := range 3 {
			if heldRot[i] {
				m.gim = newGimbal(i, angles[i])
			}
		}
		a := zyxAngles(q0)
		a[m.gim.held] = m.gim.value
		q0 = m.gim.quat(a)
		w := m.gim.project(a, vec3(m.init[offOmega:offOmega+3]))
		copy(m.init[offOmega:offOmega+3], w[:])
	case 3:
		m.rot = rotFixed
		m.qFixed = qmul(qaxis(2, angles[2]), qmul(qaxis(1, angles[1]), qaxis(0, angles[0])))
		q0 = m.qFixed
		clear(m.init[offOmega : offOmega+3])
	case 2:
		m.rot = rotHinge
		m.pre, m.post = quat{1, 0, 0, 0}, quat{1, 0, 0, 0}
		for i := range 3 {
			if !heldRot[i] {
				m.k = i
			}
		}
		for i := 2; i > m.k; i-- { // outer rotations: pre = R_z ⊗ R_y …
			m.pre = qmul(m.pre, qaxis(i, angles[i]))
		}
		for i := m.k - 1; i >= 0; i-- { // inner rotations: post = … ⊗ R_x
			m.post = qmul(m.post, qaxis(i, angles[i]))
		}
		m.hasPre, m.hasPt = m.pre != quat{1, 0, 0, 0}, m.post != quat{1, 0, 0, 0}
		var ek vec3
		ek[m.k] = 1
		m.n = mulMV(rotation(m.pre), ek)
		u := mulMtV(rotation(m.post), ek)
		m.inertiaN = dot(u, mulMV(m.ib, u))
		q0 = m.hinge(zyxAngles(q0)[m.k])
		w := dot(m.n, vec3(m.init[offOmega:offOmega+3]))
		for i := range 3 {
			m.init[offOmega+i] = m.n[i] * w
		}
	}
	copy(m.init[offQuat:offQuat+4], q0[:])
	return m, nil
}

const inertiaMatrixValid = "9 finite values, row-major, of a symmetric positive definite matrix whose principal moments satisfy the triangle inequality; all zero (the default) to use the principal moments \"inertia\""

const inertiaValid = "3 positive values, each at most the sum of the other two (for a body free to rotate about every axis)"

// triangleViolation says how principal moments of inertia I break the
// triangle inequality, or returns "": every rigid body has
// I_i ≤ I_j + I_k (I_j + I_k − I_i = 2∫x_i² dm ≥ 0), with equality for a
// flat body (a disc's axial moment is the sum of its two in-plane ones),
// so equality to rounding (1e-12 relative) is accepted.
func triangleViolation(I [3]float64) string {
	for i := range 3 {
		j, k := (i+1)%3, (i+2)%3
		if I[i] > (I[j]+I[k])*(1+1e-12) {
			return fmt.Sprintf("the triangle inequality: I%d = %s is more than I%d + I%d = %s, which no mass distribution has (each principal moment is at most the sum of the other two)",
				i+1, node.FormatValue(I[i]), j+1, k+1, node.FormatValue(I[j]+I[k]))
		}
	}
	return ""
}

// principalMoments are the eigenvalues of the symmetric inertia tensor
// ib — the diagonal of a diagonal tensor, else largest first — by
// cyclic Jacobi rotations (Golub and Van Loan,
// "Matrix Computations", 4th ed., §8.5): each rotation zeroes one
// off-diagonal entry, the sum of their squares falls quadratically, and
// the moments come out within a few roundings of the largest moment,
// also for a repeated pair, so the triangle test's 1e-12 margin holds
// for a thin rod (two equal moments and a third near zero). Smith's
// closed form (acos of a cubic's discriminant), used before, split a
// repeated pair by about 1e-8 relative where acos is ill-conditioned,
// and refused a rotated rod diag(1, 1, 1e-9) that it accepted
// unrotated.
func principalMoments(ib mat3) [3]float64 {
	if ib[1] == 0 && ib[2] == 0 && ib[5] == 0 {
		return [3]float64{ib[0], ib[4], ib[8]}
	}
	a := [3][3]float64{{ib[0], ib[1], ib[2]}, {ib[1], ib[4], ib[5]}, {ib[2], ib[5], ib[8]}}
	// Sweeps until none rotates; the sum of the off-diagonal squares
	// falls quadratically, so a few sweeps do (50 is a guard).
	for sweep := 0; sweep < 50; sweep++ {
		rotated := false
		for _, pq := range [3][2]int{{0, 1}, {0, 2}, {1, 2}} {
			p, q := pq[0], pq[1]
			apq := a[p][q]
			if d := math.Abs(a[p][p]) + math.Abs(a[q][q]); d+1e3*math.Abs(apq) == d {
				// Zero, or below rounding against the diagonal: setting
				// it to zero moves the moments by less than 1e-19 of d.
				a[p][q], a[q][p] = 0, 0
				continue
			}
			rotated = true
			// The rotation's tangent t solves t² + 2θt − 1 = 0, the
			// smaller root (|t| ≤ 1: an angle of at most π/4); |θ| is
			// at most about 1e19 after the test above, so θ² is finite.
			theta := (a[q][q] - a[p][p]) / (2 * apq)
			t := 1 / (math.Abs(theta) + math.Sqrt(theta*theta+1))
			if theta < 0 {
				t = -t
			}
			c := 1 / math.Sqrt(t*t+1)
			sn := t * c
			a[p][p] -= t * apq
			a[q][q] += t * apq
			a[p][q], a[q][p] = 0, 0
			r := 3 - p - q // the third index
			arp, arq := a[r][p], a[r][q]
			a[r][p] = c*arp - sn*arq
			a[p][r] = a[r][p]
			a[r][q] = sn*arp + c*arq
			a[q][r] = a[r][q]
		}
		if !rotated {
			break
		}
	}
	e := [3]float64{a[0][0], a[1][1], a[2][2]}
	slices.SortFunc(e[:], func(x, y float64) int { return cmp.Compare(y, x) })
	return e
}

// zyxAngles returns (rx, ry, rz) of the unit quaternion q:
// R(q) = R_z(rz)·R_y(ry)·R_x(rx), with ry in [−π/2, π/2].
func zyxAngles(q quat) vec3 {
	w, x, y, z := q[0], q[1], q[2], q[3]
	return vec3{
		math.Atan2(2*(w*x+y*z), 1-2*(x*x+y*y)),
		math.Asin(max(-1, min(1, 2*(w*y-z*x)))),
		math.Atan2(2*(w*z+x*y), 1-2*(y*y+z*z)),
	}
}

// twist is the free hinge angle φ of q = pre ⊗ qaxis(k, φ) ⊗ post.
func (m *model) twist(q quat) float64 {
	if m.hasPre {
		q = qmul(qconj(m.pre), q)
	}
	if m.hasPt {
		q = qmul(q, qconj(m.post))
	}
	return 2 * math.Atan2(q[1+m.k], q[0])
}

// hinge is the orientation at hinge angle φ.
func (m *model) hinge(phi float64) quat {
	q := qaxis(m.k, phi)
	if m.hasPre {
		q = qmul(m.pre, q)
	}
	if m.hasPt {
		q = qmul(q, m.post)
	}
	return q
}

// Node is a 6-DOF rigid body. Build it with New or FromMap.
type Node struct {
	vals node.Values
	// m is what Update, Derivatives and the batch kernels read;
	// SetParams publishes it to the kernels.
	m    node.Published[model]
	spec *node.Spec // spec, or gimbalSpec with one held rotation
}

var (
	_ node.Node    = (*Node)(nil)
	_ node.Deriver = (*Node)(nil)
	_ node.Tunable = (*Node)(nil)
	_ node.Marker  = (*Node)(nil)
	_ node.Batcher = (*Node)(nil)

	_ node.MarkerVelocityJacobian = (*Node)(nil)
)

// New builds a rigid body from typed parameters. Every invalid value is a
// *node.ParamError (several are joined with errors.Join).
func New(p Params) (*Node, error) {
	if err := p.Constraints.validate(); err != nil {
		return nil, paramError("constraints", p.Constraints.String(), err.Error(), constraintsValid)
	}
	vals, err := node.Resolve(TypeName, spec.Params, nil, p.values())
	if err != nil {
		return nil, err
	}
	return newNode(vals)
}

// FromMap builds a rigid body from a name→value map; names not given take
// their defaults and a nil map gives the default body. "constraints" is
// the text form or a map axis → number (see Constraints).
func FromMap(m map[string]any) (node.Node, error) {
	m, err := normalizeMap(m)
	if err != nil {
		return nil, err
	}
	vals, err := node.Resolve(TypeName, spec.Params, nil, m)
	if err != nil {
		return nil, err
	}
	return newNode(vals)
}

func newNode(vals node.Values) (*Node, error) {
	md, err := build(vals)
	if err != nil {
		return nil, err
	}
	n := &Node{vals: vals, spec: specFor(md.rot)}
	n.m.Set(md)
	return n, nil
}

// Spec describes the node. It is the same value for every rigid body
// except in Metadata.Discretization: a body with exactly one held rotation
// runs DiscretizationGimbal, every other body Discretization. The fields,
// parameters and inputs never differ.
func (n *Node) Spec() *node.Spec { return n.spec }

// InitialState writes the initial state, projected onto the constraints:
// held coordinates at their values, their rates zero, the orientation
// normalised (and, with held rotations, on the hinge or fixed).
func (n *Node) InitialState(dst []float64) { copy(dst[:stateLen], n.m.Get().init[:]) }

// Params returns the parameter values in use, including overrides, as a
// copy; "constraints" is in the canonical text form.
func (n *Node) Params() node.Values {
	out := make(node.Values, len(n.vals))
	for k, v := range n.vals {
		if s, ok := v.([]float64); ok {
			v = slices.Clone(s)
		}
		out[k] = v
	}
	return out
}

// SetParams overrides parameters by name, as FromMap reads them. Every
// value is validated first; when one is invalid nothing changes. It must
// not be called while the node is stepping.
func (n *Node) SetParams(p map[string]any) error {
	p, err := normalizeMap(p)
	if err != nil {
		return err
	}
	vals, err := node.Resolve(TypeName, spec.Params, n.vals, p)
	if err != nil {
		return err
	}
	md, err := build(vals)
	if err != nil {
		return err
	}
	n.vals, n.spec = vals, specFor(md.rot)
	n.m.Set(md)
	return nil
}

// linAccel is dv_i/dt: F_i/m + g_i, or 0 for a held translation.
func (m *model) linAccel(f []float64, i int) float64 {
	if m.held[i] {
		return 0
	}
	return f[i]/m.mass + m.gravity[i]
}

// angAccel is dω/dt (world frame) for the free body: Euler's equations
// I_w ω̇ = τ − ω × (I_w ω) with I_w = R I_b Rᵀ, evaluated in the body frame
// as R I_b⁻¹ (Rᵀτ − ω_b × I_b ω_b), ω_b = Rᵀω.
func (m *model) angAccel(q quat, w, tau vec3) vec3 {
	r := rotation(q)
	wb := mulMtV(r, w)
	tb := mulMtV(r, tau)
	gyro := cross(wb, mulMV(m.ib, wb))
	return mulMV(r, mulMV(m.ibInv, vec3{tb[0] - gyro[0], tb[1] - gyro[1], tb[2] - gyro[2]}))
}

// hingeAccel is the hinge's angular acceleration (n·τ)/I_n; the
// gyroscopic term has no component along n when ω is parallel to n.
func (m *model) hingeAccel(tau vec3) float64 { return dot(m.n, tau) / m.inertiaN }

// Update advances the state by one step of the scheme Metadata names
// "semi-implicit-euler-lie": the velocities first, with the loads and the
// state at the start of the step,
//
//	v⁺ = v + Δt·(F/m + g),  ω⁺ = ω + Δt·ω̇(q, ω, τ),
//
// then the position and orientation with the new velocities,
//
//	x⁺ = x + Δt·v⁺,  q⁺ = exp(½Δt·ω⁺) ⊗ q, normalised.
//
// Held translations stay at their value with zero velocity. With a hinge,
// ω⁺ = n(n·ω + Δt(n·τ)/I_n) and the hinge angle φ⁺ = φ + Δt(n·ω⁺) is
// rebuilt into q⁺ = pre ⊗ qaxis(k, φ⁺) ⊗ post, which is the same rotation
// as the exponential update but stays on the hinge exactly. With a fixed
// orientation q and ω are left at the held orientation and 0.
//
// With exactly one held rotation Update runs DiscretizationGimbal, which
// the node's Spec names instead: the two free Z-Y-X angles a and their
// rates ȧ = (JᵀJ)⁻¹Jᵀω are read from q and ω, then
//
//	ȧ⁺ = ȧ + Δt·ä(a, ȧ, τ),  a⁺ = a + Δt·ȧ⁺,
//
// q⁺ is built from a⁺ and the held angle, and ω⁺ = J(a⁺)·ȧ⁺ (see
// constraints_gimbal.go for ä). Update returns an error wrapping
// node.ErrNonFinite for a non-finite dt.
func (n *Node) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	if dt-dt != 0 {
		return fmt.Errorf("%s: time step dt = %v: %w", TypeName, dt, node.ErrNonFinite)
	}
	u := in.Values
	n.m.Get().step(dt, (*[stateLen]float64)(x), (*vec3)(u[inForce:]), (*vec3)(u[inTorque:]), (*[stateLen]float64)(dst))
	return nil
}

// step is Update for one body from the state x under the force fv and
// the torque tv; Update and the batch kernel share it so that both
// compute the same bits.
func (m *model) step(dt float64, x *[stateLen]float64, fv, tv *vec3, dst *[stateLen]float64) {
	f := fv[:]
	for i := range 3 {
		if m.held[i] {
			dst[offVel+i], dst[offPos+i] = 0, m.holdX[i]
			continue
		}
		v := x[offVel+i] + dt*m.linAccel(f, i)
		dst[offVel+i] = v
		dst[offPos+i] = x[offPos+i] + dt*v
	}
	q := quat(x[offQuat : offQuat+4])
	w := vec3(x[offOmega : offOmega+3])
	tau := *tv
	var q1 quat
	var w1 vec3
	switch m.rot {
	case rotFree:
		a := m.angAccel(q, w, tau)
		for i := range 3 {
			w1[i] = w[i] + dt*a[i]
		}
		q1 = qunit(qmul(qexp(w1, dt), q))
	case rotHinge:
		wn := dot(m.n, w) + dt*m.hingeAccel(tau)
		q1 = m.hinge(m.twist(q) + dt*wn)
		w1 = vec3{m.n[0] * wn, m.n[1] * wn, m.n[2] * wn}
	case rotFixed:
		q1 = m.qFixed
	case rotGimbal:
		q1, w1 = m.gimbalStep(dt, q, w, tau)
	}
	copy(dst[offQuat:offQuat+4], q1[:])
	copy(dst[offOmega:offOmega+3], w1[:])
}

// Derivatives writes the constrained right-hand side: dx/dt = v,
// dv/dt = F/m + g, dq/dt = ½ (0, ω) ⊗ q and dω/dt from Euler's equations
// (world frame); held translations have zero rates, a hinge has
// dω/dt = n (n·τ)/I_n, a fixed orientation dω/dt = 0, a gimbal
// dω/dt = J·ä + J̇·ȧ from the projected Euler equations. It assumes x
// satisfies the constraints, as InitialState and Update leave it.
func (n *Node) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	u := in.Values
	n.m.Get().derivatives((*[stateLen]float64)(x), (*vec3)(u[inForce:]), (*vec3)(u[inTorque:]), (*[stateLen]float64)(dst))
	return nil
}

// derivatives is Derivatives for one body, shared with the batch kernel.
func (m *model) derivatives(x *[stateLen]float64, fv, tv *vec3, dst *[stateLen]float64) {
	f := fv[:]
	for i := range 3 {
		dst[offPos+i] = x[offVel+i]
		if m.held[i] {
			dst[offPos+i] = 0
		}
		dst[offVel+i] = m.linAccel(f, i)
	}
	q := quat(x[offQuat : offQuat+4])
	w := vec3(x[offOmega : offOmega+3])
	tau := *tv
	qd := qmul(quat{0, w[0], w[1], w[2]}, q)
	for i := range 4 {
		dst[offQuat+i] = qd[i] / 2
	}
	var a vec3
	switch m.rot {
	case rotFree:
		a = m.angAccel(q, w, tau)
	case rotHinge:
		an := m.hingeAccel(tau)
		a = vec3{m.n[0] * an, m.n[1] * an, m.n[2] * an}
	case rotGimbal:
		a = m.gimbalAccelWorld(q, w, tau)
	}
	copy(dst[offOmega:offOmega+3], a[:])
}

// MarkerFields: position, orientation, velocity, angular_velocity; the
// marker methods receive their values concatenated (13 numbers).
func (n *Node) MarkerFields() []string {
	return []string{"position", "orientation", "velocity", "angular_velocity"}
}

// MarkerKinematics writes the world position x + R(q̂)·r and velocity
// v + ω × R(q̂)·r of the body-fixed point r = local (body frame, m), with
// q̂ = q/|q|.
func (n *Node) MarkerKinematics(x []float64, local [3]float64, pos, vel *[3]float64) {
	rw := mulMV(rotation(quat(x[3:7])), local)
	wxr := cross(vec3(x[10:13]), rw)
	for i := range 3 {
		pos[i] = x[i] + rw[i]
		vel[i] = x[7+i] + wxr[i]
	}
}

// MarkerLoads: a force at a marker loads "force" and "torque".
func (n *Node) MarkerLoads() []string { return []string{"force", "torque"} }

// MarkerLoad writes the world force f into the force (dst[0:3]) and its
// moment about the centre of mass, (R(q̂)·r) × f, into the torque
// (dst[3:6]).
func (n *Node) MarkerLoad(x []float64, local [3]float64, f [3]float64, dst []float64) {
	rw := mulMV(rotation(quat(x[3:7])), local)
	tq := cross(rw, f)
	copy(dst[0:3], f[:])
	copy(dst[3:6], tq[:])
}

// MarkerJacobian writes ∂pos/∂x (3 × 13, row-major) over the MarkerFields:
// the identity on position; on the orientation the derivative of
// R(q/|q|)·r with respect to the four quaternion components,
// G(q̂)(I₄ − q̂q̂ᵀ)/|q|, where G is the derivative of the quadratic form
// (w² − v·v) r + 2(v·r)v + 2w(v × r) (it is tangent to the unit sphere:
// scaling q moves nothing); zero on velocity and angular_velocity.
//
// Unlike for bodies whose coordinates all have Position roles, the
// velocity Jacobian is not this matrix restricted to the velocity fields:
// ∂vel/∂v = I₃ but ∂vel/∂ω = −[R r]×, 3 × 3, while the orientation block
// is 3 × 4. Use MarkerVelocityJacobian for it.
func (n *Node) MarkerJacobian(x []float64, local [3]float64, dst []float64) {
	clear(dst[:3*stateLen])
	q := quat(x[3:7])
	nq := qnorm(q)
	qh := quat{q[0] / nq, q[1] / nq, q[2] / nq, q[3] / nq}
	_, g := rotateGrad(qh, local)
	for i := range 3 {
		dst[i*stateLen+i] = 1
		gq := dot4(g[i*4:i*4+4], qh)
		for j := range 4 {
			dst[i*stateLen+3+j] = (g[i*4+j] - gq*qh[j]) / nq
		}
	}
}

// MarkerVelocityJacobian writes ∂vel/∂x (3 × 13, row-major) over the
// MarkerFields: [ω]×·∂(R r)/∂q on the orientation, I₃ on velocity and
// −[R r]× on angular_velocity, zero on position. It is not part of the
// node.Marker contract (see MarkerJacobian).
func (n *Node) MarkerVelocityJacobian(x []float64, local [3]float64, dst []float64) {
	n.MarkerJacobian(x, local, dst)
	w := vec3(x[10:13])
	rw := mulMV(rotation(quat(x[3:7])), local)
	for i := range 3 {
		dst[i*stateLen+i] = 0
	}
	for j := range 4 { // ω × (∂(R r)/∂q_j)
		c := cross(w, vec3{dst[3+j], dst[stateLen+3+j], dst[2*stateLen+3+j]})
		for i := range 3 {
			dst[i*stateLen+3+j] = c[i]
		}
	}
	for i := range 3 {
		dst[i*stateLen+7+i] = 1
	}
	// ∂(ω × rw)/∂ω = −[rw]×.
	dst[0*stateLen+11], dst[0*stateLen+12] = rw[2], -rw[1]
	dst[1*stateLen+10], dst[1*stateLen+12] = -rw[2], rw[0]
	dst[2*stateLen+10], dst[2*stateLen+11] = rw[1], -rw[0]
}

func dot4(a []float64, b quat) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] + a[3]*b[3] }
