package node

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
