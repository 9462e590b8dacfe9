// Package ball is a point mass falling under gravity in one dimension,
// pushed by an optional force and bouncing on an optional rigid surface:
// the BallNode of the MADDENING simulation framework (module
// maddening.nodes.ball, algorithm MADD-NODE-001, whose guide documents
// node version 1.0.0), registered as the node type "ball".
//
// # Equations
//
// The state is the height x (state field "position", m) and the vertical
// velocity v ("velocity", m/s); dx/dt = v and dv/dt = g, with g the
// parameter "gravity" (m/s², negative points down), plus F/m when the
// additive input "force" (N, along the ball's axis, default 0) pushes the
// ball of mass m (parameter "mass", kg, default 1). Update advances them
// by semi-implicit Euler, velocity first: v' = v + (g + F/m)·Δt,
// x' = x + Δt·v', with F held at its value at the start of the step.
// Then, once per step, when the boundary input "table_position" is
// connected and x' < table_position, the ball is put on the surface and
// bounces: x' = table_position, v' = −e·v', with e the parameter
// "elasticity" in [0, 1]; an impact no faster than [RestSpeed]
// (|v'| ≤ 1e-4 m/s, compared before restitution, as MADDENING's update
// does) ends in v' = 0 instead, and so does a step that starts on (or
// below) the surface without moving into it (x ≤ table_position, v ≥ 0):
// resting contact, which keeps a ball at rest on the table at any step
// (a rebound slower than |g + F/m|·Δt would be a bounce shorter than the
// step). Without a table_position edge there is no contact at all. Derivatives is the
// collision-free right-hand side [v, g + F/m]; it passes through the surface
// (COSIM-ANO-001). The contact event ("contact", position −
// table_position, falling) and its Reset apply the same restitution law
// for event-localizing integrators. A connector attached to the ball
// (node.Marker) reads x·axis and pushes it through force with the
// component of its force along the axis (MarkerLoad); MarkerInverseMass
// (node.MarkerMass) gives it the ball's inertia for its stable step.
// Semi-implicit Euler under a state-independent acceleration is stable at
// every step (Metadata.StableStep).
//
// For forward sensitivities (graph.Sim.Sensitivities) the ball supplies
// its derivatives exactly: ∂f/∂p (node.ParamJacobian: ∂(dv/dt)/∂gravity
// = 1 and ∂(dv/dt)/∂mass = −F/m², zero at rest), ∂x(t0)/∂p
// (node.InitialStateJacobian), the contact
// event's gradient (node.EventJacobian: ∂g/∂position = 1,
// ∂g/∂table_position = −1) and the reset's (node.ResetJacobian:
// ∂position⁺/∂table_position = 1, ∂velocity⁺/∂velocity = −e,
// ∂velocity⁺/∂elasticity = −v, all zero under the rest rule).
//
// Spec().Meta documents the scheme, the declared order (1, in the smooth
// regime), the limitations with their numbers, and the anomalies.
//
// # Invariants
//
//   - Update, Derivatives, EventValues and Reset read x and in and write
//     only dst; they never retain a slice. dst must not alias x.
//   - Field and input offsets are resolved once, at construction: the
//     per-step path looks up no name and allocates nothing.
//   - Update, Derivatives, EventValues, Reset and InitialState all read
//     the current parameters, overrides from SetParams included.
//   - Results are bit-identical across platforms: products are rounded
//     before they are added, so no fused multiply-add changes them.
//   - Metadata.Discretization is "semi-implicit-euler", the scheme Update
//     runs; the tests hold Update to that scheme applied to Derivatives.
//   - The node is a [node.Batcher]: a graph may step many balls in one
//     kernel call. The kernel runs, row by row, the functions Update and
//     Derivatives run (contact and checks included), from per-row copies
//     of the parameters that SetParams keeps current, so it computes the
//     same bits and fails exactly when one of its rows would. Events have
//     no batched form.
//
// # Errors
//
// Invalid parameters are *[node.ParamError]s naming the node "ball", the
// parameter, the value and the valid range. Update, Derivatives,
// EventValues and Reset return an error wrapping [node.ErrNonFinite] for a
// NaN or infinite value (and Update for a non-positive timestep), leaving
// dst unchanged. Slices of the wrong length are programmer errors and
// panic. [Node.CheckMarkerLocal] refuses a marker axis that is not finite,
// zero, or not of unit length (the ball does not normalize it);
// springdamper calls it when a connector is attached to the ball.
//
// # Drawing
//
// The ball draws itself (node.Drawer, Node.Draw) as a sphere of diameter
// draw_size on the world's vertical axis y, resting on its position; show,
// draw_size and color are visualization parameters the physics ignores.
//
// # Concurrency
//
// Update, Derivatives, EventValues, Reset, InitialState, Spec, Params and
// the Marker methods are safe for concurrent use with distinct dst
// slices, and the kernel's methods on disjoint row ranges. SetParams is not: call it between runs, or between steps when
// nothing else is using the node.
package ball
