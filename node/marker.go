package node

import "math"

// Marker is the capability of a body that connectors attach to (Exudyn's
// position-based markers). A connector reads the body's state
// through graph edges from the fields MarkerFields names, and pushes its
// force back through edges into the inputs MarkerLoads names. Bodies
// implement it; connectors use it without importing the body's package.
//
// All methods are pure functions of their arguments and safe for
// concurrent use. MarkerFields and MarkerLoads may return slices the body
// shares (a package-level list): callers must not modify them.
type Marker interface {
	// MarkerFields names the state fields, in order, whose concatenated
	// values are the x the other methods receive.
	MarkerFields() []string
	// MarkerKinematics writes the world position and velocity of the
	// marker given the body state x. For a rigid body, local is the
	// body-fixed point in the body frame; a point body ignores it; a
	// one-dimensional body (the ball) reads it as the unit world axis its
	// coordinate runs along, so the marker sits at x·local.
	MarkerKinematics(x []float64, local [3]float64, pos, vel *[3]float64)
	// MarkerLoads names the additive inputs, in order, that receive a
	// force applied at a marker; nil when the body cannot be pushed (it
	// then acts as prescribed motion for the connector).
	MarkerLoads() []string
	// MarkerLoad writes the contribution of the world force f, applied at
	// local, to the inputs MarkerLoads names, concatenated, into dst.
	MarkerLoad(x []float64, local [3]float64, f [3]float64, dst []float64)
	// MarkerJacobian writes the marker's position Jacobian
	// ∂pos/∂x (3 × len(x), row-major) into dst. The velocity Jacobian
	// ∂vel/∂(velocity fields) equals ∂pos/∂(position fields): the marker's
	// velocity is the time derivative of its position.
	MarkerJacobian(x []float64, local [3]float64, dst []float64)
}

// PointMarker is the capability of a Marker body whose marker is the
// body itself: its MarkerFields are a position (3) and a velocity (3),
// MarkerKinematics copies them to pos and vel whatever local is, and
// MarkerLoads is one 3-vector input into which MarkerLoad copies the
// force. When PointMarker reports true, a connector may read the marker
// fields and write the load itself instead of calling the Marker methods
// through the interface: the results are bit-identical, and an
// evaluation saves four dynamic calls and the copies around them (the
// hot spot of a chain of point masses). masspoint implements it.
type PointMarker interface {
	Marker
	PointMarker() bool
}

// MarkerVelocityJacobian is the capability of a Marker whose marker
// velocity is not linear in its Velocity-role fields with the position
// Jacobian as coefficients (a rigid body with a quaternion and a world
// angular velocity): MarkerVelocityJacobian writes ∂vel/∂x (3 × len(x),
// row-major) over the MarkerFields. Without it, VelocityJacobian derives
// the Jacobian from MarkerKinematics.
type MarkerVelocityJacobian interface {
	MarkerVelocityJacobian(x []float64, local [3]float64, dst []float64)
}

// MarkerLocalChecker is the capability of a Marker body that gives the
// local point a meaning with constraints beyond being finite (the ball
// reads it as a unit world axis). Connectors call it once, when they are
// built (Attachment.CheckLocal), and refuse an end it returns an error
// for; the error should name the body and the value.
type MarkerLocalChecker interface {
	CheckMarkerLocal(local [3]float64) error
}

// VelocityJacobian writes ∂vel/∂x (3 × len(x), row-major) of body's
// marker at local into dst, for the marker fields' values x: the body's
// MarkerVelocityJacobian when it has one; otherwise, from
// MarkerKinematics, unit velocities on the Velocity-role columns (exact
// for a velocity linear in them, as MarkerJacobian's contract makes it)
// and central differences (FDStep) on the others. velocity has one entry
// per component of x: whether it belongs to a Velocity-role field. It
// allocates a copy of x, so it is for Jacobians, not the step.
func VelocityJacobian(body Marker, x []float64, local [3]float64, velocity []bool, dst []float64) {
	if vj, ok := body.(MarkerVelocityJacobian); ok {
		vj.MarkerVelocityJacobian(x, local, dst)
		return
	}
	nx := len(x)
	var pos, vel, base [3]float64
	xp := append([]float64(nil), x...)
	for j, isVel := range velocity {
		if isVel {
			xp[j] = 0
		}
	}
	body.MarkerKinematics(xp, local, &pos, &base)
	for j, isVel := range velocity {
		if !isVel {
			continue
		}
		xp[j] = 1
		body.MarkerKinematics(xp, local, &pos, &vel)
		xp[j] = 0
		for i := range 3 {
			dst[i*nx+j] = vel[i] - base[i]
		}
	}
	copy(xp, x)
	var vm [3]float64
	for j, isVel := range velocity {
		if isVel {
			continue
		}
		h := FDStep(x[j])
		xp[j] = x[j] + h
		body.MarkerKinematics(xp, local, &pos, &vel)
		xp[j] = x[j] - h
		body.MarkerKinematics(xp, local, &pos, &vm)
		xp[j] = x[j]
		for i := range 3 {
			dst[i*nx+j] = (vel[i] - vm[i]) / (2 * h)
		}
	}
}

// fdRelStep is the relative central-difference step ε^(1/3) ≈ 6.06e-6:
// it balances the truncation error h²·|f⁽³⁾|/6 against the round-off
// error ε·|f|/h, leaving about 1e-10 relative error.
var fdRelStep = math.Cbrt(0x1p-52)

// FDStep is the step of a central difference at x, fdRelStep·max(1, |x|):
// the one the connectors and VelocityJacobian use for the derivatives
// they approximate.
func FDStep(x float64) float64 { return fdRelStep * max(1, math.Abs(x)) }
