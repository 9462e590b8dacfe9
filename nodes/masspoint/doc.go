// Package masspoint is a point mass in three dimensions: the body a
// Cartesian spring-damper pulls on in its mini example, and the simplest
// node a connector can attach to.
//
// # Equations
//
// The state is the position x ∈ ℝ³ (m) and the velocity v ∈ ℝ³ (m/s); the
// parameters are the mass m > 0 (kg) and a uniform gravitational
// acceleration g ∈ ℝ³ (m/s², zero by default); the boundary input is the
// additive external force F ∈ ℝ³ (N, zero when nothing is connected). The
// continuous model is m·dv/dt = F + m·g, dx/dt = v, written by
// [Node.Derivatives] as dv/dt = F/m + g. [Node.Update] runs semi-implicit
// (symplectic) Euler on it: v⁺ = v + Δt·(F/m + g), then x⁺ = x + Δt·v⁺,
// with the force held at its value at the start of the step. That is
// exactly the integrators package's "semi-implicit-euler" applied to
// Derivatives, bit for bit; Metadata.Discretization says so. The model is
// linear, so [Node.DerivativesJacobian] is exact: ∂ẋ/∂v = I, ∂v̇/∂F = I/m.
//
// # Invariants
//
//   - Parameters are validated at construction and by SetParams; every
//     invalid value is a *node.ParamError naming "masspoint", the
//     parameter, the value and the valid range. Nothing is clamped. New
//     recognizes valid typed Params without building a node.Values (a
//     test holds that check to node.Resolve); the values are built
//     when Params or SetParams asks, so a mass costs one allocation.
//   - MarkerFields and MarkerLoads return slices shared by every mass:
//     callers must not modify them.
//   - Update and Derivatives read the same parameter values, including
//     overrides set with SetParams, and never retain their slice arguments.
//     Update writes only dst and returns an error for a non-finite Δt.
//   - The node is a point body for connectors ([node.Marker]): the marker
//     is the mass itself whatever local point is asked for, and a force
//     applied at it goes unchanged into the "force" input. Its inverse
//     mass at the marker (node.MarkerMass) is 1/m on every axis.
//   - The batch kernel (batch.go, node.Batcher) computes each row with the
//     operations and order of the node's own Update and Derivatives, bit
//     for bit. It takes the force of a mass between two connectors as two
//     terms it adds itself (node.BatchPairAdder). A family whose masses
//     all have equal parameters reads one row of them; a SetParams that
//     makes a row differ switches the family to per-row parameters.
//
// # Drawing
//
// The mass draws itself (node.Drawer, Node.Draw) as a sphere of diameter
// draw_size at its position; show, draw_size and color are visualization
// parameters the physics ignores.
//
// # Concurrency
//
// Update, Derivatives and the Marker methods are safe for concurrent use
// on one node with distinct argument slices. SetParams is not safe for
// concurrent use with anything; call it between runs.
//
// # Reading order
//
// masspoint.go is the node: parameters, construction, the law of motion
// (law.accel, advance and law.derivatives, which Update, Derivatives and
// the kernel share) and the marker; spec.go its spec, metadata and
// layout constants. batch.go is the kernel; markermass.go the inverse
// mass connectors read; draw.go the drawing.
package masspoint
