// Package springdamper is Exudyn's ObjectConnectorCartesianSpringDamper:
// springs and dampers along the three world axes between two markers.
//
// # Equations
//
// With the marker positions p_m0, p_m1 and velocities v_m0, v_m1 (world
// frame), the relative displacement is Δp = p_m1 − p_m0 and the relative
// velocity Δv = v_m1 − v_m0; the connector force is
// f_SD = diag(k)·(Δp − v_off) + diag(d)·Δv with the stiffness k (N/m),
// damping d (N·s/m) and offset v_off (m) per world axis, or
// f_SD = UF(t, i_N, Δp, Δv, k, d, v_off) when a user function
// ([ForceFunc]) is set, and f_SD = 0 when the connector is inactive. Exudyn's
// item reference adds f_LHS,m0 = −J_pos,m0ᵀ f_SD and f_LHS,m1 = +J_pos,m1ᵀ f_SD to
// the left-hand side of the equations of motion; on the right-hand side,
// which is where a graph's bodies take their loads, marker 0 is pushed by
// +f_SD and marker 1 by −f_SD: a stretched spring (Δp beyond the offset,
// k > 0) pulls the markers together. The potential energy is
// V = ½ Σ k_i (Δp_i − v_off,i)², zero when inactive.
//
// # Markers
//
// An end (a [node.Attachment]) is a fixed world point (node.GroundAt) or a
// point of any body implementing [node.Marker]: a point mass (Local is
// ignored), a one-dimensional body such as the ball (Local is the unit
// world axis its coordinate runs along), or a body-fixed point of a
// planar or 6-DOF rigid body (Local in the body frame). The package never
// imports body packages: a connector's [Node.Spec] is built from the
// bodies' MarkerFields and specs, once per signature (see below). For a
// body marker k it has the
// replacing inputs "m<k>_<field>", one per marker field with the body's
// shape and units, and, for a body that can be pushed (MarkerLoads not
// empty), the outputs "m<k>_<load>": the body's MarkerLoad of the force on
// that marker (for a rigid body the force and its moment (R r) × f about
// the centre of mass). [New] takes the bodies as Go values
// (node.At(body, local)); [Connect] adds a connector and all its edges to
// a graph in one call, as Exudyn's CreateCartesianSpringDamper does, with
// ends naming the graph's bodies (node.Body("m1"), node.BodyAt,
// node.GroundAt(p)). It takes a *graph.Graph through the
// node.ConnectorHost interface, so this package imports only node:
// [Params] are a node.Connector (its Attach returns the node and its
// links to the bodies as data) and graph.Graph.AddConnector does the
// wiring, as it does for any connector type; scene files reach the type
// through the registry ([Type]'s Connector, [NewConnector]). A ball is
// pushed back like any body: its MarkerLoad is its scalar force input,
// which takes the force's component along the ball's axis (since ball
// 1.1.0; COSIM-ANO-002, resolved).
//
// The outputs are displacement, distance, velocity, force and
// potential_energy — Exudyn's output variables Displacement, Distance,
// Velocity, Force and PotentialEnergy in the snake_case of every cosim
// field; the CamelCase names, which the outputs had before, still
// resolve with a deprecation warning (node.Field.Formerly) — then the
// load outputs. With a user
// force function the energy is undefined (Exudyn raises): the node then
// has no potential_energy output, so wiring or recording it is a graph
// error, [Node.PotentialEnergy] returns [ErrPotentialEnergy], and
// [Node.MissingFieldReason] says why for a graph that asks.
//
// [Node.OutputsJacobian] is Exudyn's analytic Jacobian, chained through
// the markers' Jacobians, with its J_CSD′ term for markers whose
// Jacobian depends on the coordinates; [Node.JacobianCSD] is Exudyn's
// 4-block matrix for given f_ODE2 and f_ODE2_t factors. With a user
// function both differentiate it numerically.
//
// # Stable step
//
// [Node.StableStepAt] (node.StepLimiter) computes the largest step at
// which explicit co-simulation with the connector stays bounded: per world
// axis the damped-oscillator bound of semi-implicit Euler,
// (√(c² + 4ω²) − c)/ω² with ω² = k/μ and c = d/μ, μ the effective mass of
// the two markers from their bodies' node.MarkerMass; the smallest over
// the axes. graph.Sim.StepWarnings turns it into cosim run's warning.
//
// # Invariants
//
//   - Parameters are validated at construction and by SetParams; every
//     invalid value is a *node.ParamError naming "springdamper", the
//     parameter, the value and the valid range. Stiffness and damping may
//     be any finite number, negative included, as in Exudyn.
//   - The Spec never changes after construction: adding or removing the
//     user function with SetParams is refused.
//   - Outputs reads only its inputs and parameters, writes only dst and
//     allocates nothing; the connector has no state. Spec().Feedthrough is
//     true: a graph evaluates it after the bodies' state is known.
//   - The two forces are equal and opposite, so a graph of bodies joined
//     by connectors conserves linear momentum to round-off.
//   - Connectors of one signature — with or without a user function,
//     between bodies of equal content (type, marker fields and loads with
//     their shapes, units, roles and descriptions; the ground) — share one
//     immutable Spec, marker layout, edge names and batch key (sig.go):
//     building 100 000 connectors builds a handful of specs. The caches
//     are keyed by content, never by a body's identity, so they grow with
//     the distinct signatures a program uses.
//   - Connectors built from equal Params (without a user function, which
//     cannot be compared) share one validated node.Values: it is never
//     modified in place (SetParams replaces a node's map, Params copies).
//   - The batch kernel (batch.go) computes each row's outputs bit for bit
//     as Outputs does. A family of connectors with one linear law (equal
//     stiffness, damping, offset and activity, no user function) reads one
//     row of parameters; a SetParams that makes a row differ switches it
//     to per-row parameters. The stable step (node.StepLimiter) is also
//     given without its message (node.StepBounder), so that a run's
//     start-up check formats messages only for exceeded limits.
//   - A connector with one ground marker has the BatchKey of its mirror
//     image (ground first): the walls at both ends of a chain, ground–mass
//     and mass–ground, have specs of equal layouts and form one family,
//     one kernel call per step instead of two. The kernel reads per row
//     which end is the ground (batch.mirror); the differences and the
//     load change sign with it, as in each member's own Outputs.
//
// # Drawing
//
// The connector draws itself (node.Drawer, Node.Draw) between its actual
// attachment points: a spring from marker m0 to marker m1 with a damper
// inside it when damped (node.SpringDamper), of diameter draw_size, with
// the renderer's node.DrawSettings for windings, tiling and simplified
// lines; ground markers are small cubes. DrawSettings.CartesianSprings
// draws Exudyn's picture instead: three springs along world x, y and z
// (node.CartesianSprings).
//
// # Concurrency
//
// Outputs, OutputsJacobian, JacobianCSD, Force and PotentialEnergy are
// safe for concurrent use with distinct argument slices; they call the
// bodies' Marker methods and the user function concurrently too, so those
// must be safe for concurrent use (node.Marker requires it of bodies).
// SetParams is not safe for concurrent use with anything. New and
// Connect may run concurrently: the signature and parameter caches
// are guarded by a mutex or atomic pointers and hold immutable values.
//
// # Reading order
//
// springdamper.go is the node: parameters, the force law (model),
// construction from two ends and Outputs; sig.go the signature cache that
// shares specs and marker layouts between connectors; connect.go attaches
// it to a graph (node.Connector, Connect, Attachments). jacobian.go holds
// OutputsJacobian and JacobianCSD, steplimit.go the stable step,
// batch.go the kernel. meta.go and guide.go are the metadata and the
// Exudyn guide the documentation generator reads; draw.go the drawing.
package springdamper
