// Package spring is cosim's geometric spring-damper: a stateless
// connector between two markers (ground points, or points of bodies that
// implement node.Marker) whose force acts along the line between them.
//
// # Equations
//
// With d = p₁ − p₀ the separation of the markers, ℓ = |d| the length,
// u = d/ℓ the unit vector from marker 0 to marker 1 and ℓ̇ = u·(v₁ − v₀)
// the length rate, the tension is f = k(ℓ − ℓ₀) + c ℓ̇ and the force on
// marker 0 is f u (on marker 1, −f u); V = ½k(ℓ − ℓ₀)². The force is
// central, so a network of springs conserves linear and angular
// momentum, unlike the Cartesian springdamper, which acts per world axis.
// The analytic Jacobian is the outer-product form ∂F/∂d = k uuᵀ +
// (c/ℓ) u (w − ℓ̇u)ᵀ + (f/ℓ)(I − uuᵀ), ∂F/∂w = c uuᵀ ([LocalJacobian]).
//
// # Invariants
//
//   - Markers closer than min_length (default 1e-9 m) have no direction:
//     at construction (their initial positions, from the bodies'
//     InitialState) it is an error wrapping ErrCoincident; during a run
//     Outputs returns a *node.FieldError for "length" wrapping
//     ErrCoincident, so the graph reports node, field, step and time.
//     Nothing is clamped or regularized. Near that limit the geometric
//     stiffness f/ℓ grows as 1/ℓ.
//   - Outputs allocates nothing and writes only dst; OutputsJacobian is
//     analytic for ground and point-mass markers.
//   - Connect adds the spring to a graph with every edge to its bodies,
//     as springdamper.Connect does: its ends are node.Attachment values
//     (node.Body, node.BodyAt, node.GroundAt), and node.Connect wires
//     them through graph.Graph.AddConnector (node.ConnectorHost), with
//     Params as the node.Connector, so the package imports only node;
//     errors about one end are *node.EndError. An end's local point is
//     checked once (node.Attachment.CheckLocal): finite, and accepted by
//     a node.MarkerLocalChecker body (the ball's unit axis).
//   - The node is a [node.Batcher]: a graph may evaluate a family of
//     springs in one kernel call per row range. BatchKey names each
//     marker's kind (ground, point body, other body), body type, marker
//     fields and loads. Between ground points and point bodies (masses)
//     the kernel reads the markers' fields directly and writes only the
//     outputs the graph reads, running the same law.geometry,
//     law.tension, law.energy and forceOn0 as Outputs on rows of the
//     parameters (node.Rows) that SetParams keeps current; with a marker on
//     any other body (rigid, planar, ball) it runs each member's own
//     Outputs. Either way it computes the same bits as Outputs, and fails
//     (markers closer than min_length, or a non-finite length) exactly
//     when a row's Outputs would. It allocates nothing in steady state.
//   - [Node.StableStepAt] (node.StepLimiter) states the explicit stable
//     step along the spring from its stiffness, damping and the bodies'
//     node.MarkerMass, as springdamper does per axis.
//
// # Concurrency
//
// Outputs, OutputsJacobian and the kernel's methods (on disjoint row
// ranges) are safe for concurrent use; SetParams is not safe during a
// run.
//
// # Reading order
//
// spring.go is the node: parameters, construction from two ends, the
// law (geometry, tension, energy) and Outputs; connect.go attaches it to
// a graph (node.Connector, Connect, Attachments); meta.go its metadata.
// jacobian.go is OutputsJacobian, steplimit.go the stable step, batch.go
// the kernel.
package spring
