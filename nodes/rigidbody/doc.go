// Package rigidbody is a rigid body with six degrees of freedom, with
// optional coordinates held at values ([Constraints]). With constraints
// {z: 0, rx: 0, ry: 0} ([Planar]) it is the planar rigid body and replaces
// the deprecated rigidbody2d node, reproducing its trajectory.
//
// # Equations
//
// The state is the centre-of-mass position x (m), the orientation as a
// unit quaternion q = (w, x, y, z), scalar first, with R(q) taking
// body-frame vectors to the world frame, the velocity v (m/s), and the
// angular velocity ω (rad/s) in the world frame — every vector in this
// package, inputs included, is in the world frame unless it says "body".
// The model is m·dv/dt = F + m·g, dx/dt = v, Euler's equations
// I_w·dω/dt = τ − ω × (I_w·ω) with I_w = R·I_b·Rᵀ (I_b the body-frame
// inertia: principal moments or a full symmetric positive definite
// matrix), and dq/dt = ½·(0, ω) ⊗ q. A held translation keeps x_i at its
// value and v_i at 0. Held rotations refer to the angles (rx, ry, rz) of
// R = R_z(rz)·R_y(ry)·R_x(rx); one held leaves a two-axis gimbal whose two
// free angles a obey the projected Euler equations
// Jᵀ(I_w·ω̇ + ω × I_w·ω − τ) = 0 with ω = J(a)·ȧ (see
// [DiscretizationGimbal]); two held leave a hinge about the fixed world
// axis n, with I_n·d²φ/dt² = n·τ (I_n = nᵀ I_w n is constant); three held fix
// the orientation. [Node.Update] runs "semi-implicit-euler-lie": v and ω
// first with the loads and state at the start of the step, then
// x⁺ = x + Δt·v⁺ and q⁺ = exp(½Δt·ω⁺) ⊗ q, normalised (a hinge advances
// its angle φ⁺ = φ + Δt·(n·ω⁺) and rebuilds q, which is the same rotation).
// A gimbal runs "semi-implicit-euler-gimbal" instead, semi-implicit Euler
// in the free angles, and its Spec's Metadata.Discretization says so.
//
// # Gimbal singularities
//
// Holding rx or rz alone is regular everywhere: the free axes stay
// orthonormal, also where |ry| = π/2 (there only the Z-Y-X reading of the
// orientation is degenerate, and the node never reads the held angle
// back). Holding ry alone at ±π/2 locks the gimbal and is rejected
// (|cos ry| < 1e-3 is a parameter error).
//
// # Invariants
//
//   - Every invalid parameter is a *node.ParamError naming "rigidbody", the
//     parameter, the value and what is valid: non-positive or non-finite
//     mass or moments, an inertia matrix that is not symmetric positive
//     definite, principal moments that break the triangle inequality
//     (I_i ≤ I_j + I_k, which every mass distribution satisfies; a body
//     with constrained rotations is exempt, as only its free axes' moments
//     act), a zero initial quaternion, malformed constraints.
//   - The orientation Update writes is a unit quaternion (to rounding).
//     Held coordinates stay exactly at their values and their rates exactly
//     zero, whatever loads are applied (a held angle is a constant factor
//     of q); with {z: c, rx: 0, ry: 0} the
//     quaternion's x and y components and ω's x and y components are
//     exactly zero at every step.
//   - Update and Derivatives read the same parameters, including overrides
//     set with SetParams, and never retain their slice arguments. Update
//     writes only dst and returns an error for a non-finite Δt.
//   - As a [node.Marker], local is a body-fixed point in the body frame: its
//     world position is x + R·r and velocity v + ω × R·r, and a force f at
//     it loads the force input with f and the torque input with (R·r) × f.
//     Its inverse mass at the marker along world axis i (node.MarkerMass)
//     is 1/m plus (R·r × eᵢ)ᵀ I_w⁻¹ (R·r × eᵢ), constraints respected.
//   - The node is a [node.Batcher]: a graph may step many bodies in one
//     kernel call. BatchKey is the rotation mode (free, hinge, fixed,
//     gimbal), so a family runs one branch; the kernel runs, row by row,
//     the functions Update and Derivatives run, from rows of the
//     parameters (node.Rows) that SetParams keeps current, so it computes
//     the same bits (also after a SetParams that changes the mode).
//
// # Drawing
//
// The body draws itself (node.Drawer, Node.Draw) as a box at its centre
// of mass turned by its quaternion: by default the uniform box of the same
// mass and inertia (EquivalentBox), a cube of edge draw_size when set;
// show, draw_size and color are visualization parameters the physics
// ignores.
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
// rigidbody.go is the node: construction, SetParams, Update,
// Derivatives and the marker; params.go the parameters and constraints,
// spec.go the spec and metadata; quat.go the quaternion algebra the step
// uses, constraints_gimbal.go the step with one held rotation. batch.go
// is the kernel, markermass.go the inverse mass at a marker, draw.go the
// drawing.
package rigidbody
