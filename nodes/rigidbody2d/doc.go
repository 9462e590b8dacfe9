// Package rigidbody2d is the deprecated planar rigid body (MADDENING's
// RigidBody2DNode, MADD-NODE-004, node version 1.0.0), kept so that scenes and evidence built
// on it stay traceable. New models use the rigidbody package with
// constraints {z: 0, rx: 0, ry: 0}, which reproduces this node's
// trajectory (see that package's planar-equivalence test).
//
// # Equations
//
// The state is the centre-of-mass position x ∈ ℝ² (m), the angle θ (rad),
// the velocity v ∈ ℝ² (m/s) and the angular velocity ω (rad/s); the
// parameters are the mass m > 0, the moment of inertia I > 0 about the
// centre of mass and a uniform gravity g ∈ ℝ² (default (0, −9.81) m/s²);
// the additive inputs are the force F ∈ ℝ² (N) and the torque τ (N·m), both
// applied at the centre of mass. The model is m·dv/dt = F + m·g,
// I·dω/dt = τ, dx/dt = v, dθ/dt = ω ([Node.Derivatives] writes
// dv/dt = F/m + g and dω/dt = τ/I). [Node.Update] runs semi-implicit Euler
// in both groups, as MADDENING's RigidBody2DNode does: v⁺ = v + Δt·(F/m + g),
// ω⁺ = ω + Δt·τ/I, then x⁺ = x + Δt·v⁺ and θ⁺ = θ + Δt·ω⁺. That is the
// integrators package's "semi-implicit-euler" applied to Derivatives, bit
// for bit. Unlike MADDENING's RigidBody2DNode, gravity is applied in float64.
//
// # Deprecation
//
// Every successful construction (New, FromMap, and so Type.New and the
// default construction in node.NewRegistry) logs one warning at
// slog.LevelWarn on Params.Logger, or slog.Default() when it is nil (always
// for FromMap). The message is [DeprecationMessage]; its attributes are
// node, algorithm_id, deprecated_since and replacement.
//
// # Invariants
//
//   - Every invalid parameter (zero, negative or non-finite mass or
//     inertia, non-finite vectors, unknown names) is a *node.ParamError
//     naming "rigidbody2d"; nothing divides by zero at run time.
//   - Update and Derivatives read the same parameters, including overrides
//     set with SetParams, and never retain their slice arguments. Update
//     writes only dst and returns an error for a non-finite Δt.
//   - As a [node.Marker] the body is planar: the local point is
//     (local[0], local[1]) in the body frame, local[2] is ignored, and the
//     marker's world z position and velocity are always 0. A force at the
//     marker enters as its x and y components (its z component is
//     dropped: the body cannot move out of plane) plus the torque
//     (R(θ)r) × f about z. Its inverse mass at the marker
//     (node.MarkerMass) is 1/m + r_y²/I along x, 1/m + r_x²/I along y
//     (r = R(θ)·local) and 0 along z.
//   - The node is a [node.Batcher]: a graph may step many bodies in one
//     kernel call. The kernel runs, row by row, the functions Update and
//     Derivatives run, from rows of the parameters (node.Rows) that
//     SetParams keeps current, so it computes the same bits.
//
// # Drawing
//
// The body draws itself (node.Drawer, Node.Draw) as a square plate in the
// x–y plane turned by its angle, of side √(6I/m) (the uniform square of
// the same mass and inertia) or draw_size; show, draw_size and color are
// visualization parameters the physics ignores.
//
// # Concurrency
//
// Update, Derivatives and the Marker methods are safe for concurrent use
// on one node with distinct argument slices. The kernel's methods are safe
// for concurrent calls on disjoint row ranges. SetParams is not safe for
// concurrent use with anything; call it between runs.
//
// # Reading order
//
// rigidbody2d.go is the node (construction with its deprecation warning,
// Update, Derivatives, the marker); spec.go its spec and metadata.
// batch.go is the kernel, markermass.go the inverse mass at a marker,
// draw.go the drawing.
package rigidbody2d
