package rigidbody2d

import "github.com/cosimgo/cosim/node"

const pkgPath = "github.com/cosimgo/cosim/nodes/rigidbody2d"

// spec is built once; it is immutable and shared by every node.
var spec = node.NewSpec(node.Spec{
	Type:    TypeName,
	Package: pkgPath,
	State: []node.Field{
		{Name: "x", Shape: node.Vec(2), Units: "m", Description: "Centre-of-mass position $[x, y]$", Role: node.Position, Rate: "v"},
		{Name: "angle", Shape: node.Scalar, Units: "rad", Description: "Orientation $\\theta$ (counter-clockwise, not wrapped)", Role: node.Position, Rate: "omega"},
		{Name: "v", Shape: node.Vec(2), Units: "m/s", Description: "Linear velocity $[v_x, v_y]$", Role: node.Velocity},
		{Name: "omega", Shape: node.Scalar, Units: "rad/s", Description: "Angular velocity $\\omega$", Role: node.Velocity},
	},
	Params: append([]node.Param{
		{Name: "mass", Kind: node.Real, Default: 1.0, Units: "kg", Description: "Body mass $m$", Range: node.Positive()},
		{Name: "inertia", Kind: node.Real, Default: 1.0, Units: "kg m^2", Description: "Moment of inertia $I$ about the centre of mass", Range: node.Positive()},
		{Name: "gravity", Kind: node.Vector, Shape: node.Vec(2), Default: []float64{0, -9.81}, Units: "m/s^2", Description: "Gravitational acceleration $[g_x, g_y]$"},
		{Name: "initial_x", Kind: node.Real, Default: 0.0, Units: "m", Description: "Initial position $x$"},
		{Name: "initial_y", Kind: node.Real, Default: 0.0, Units: "m", Description: "Initial position $y$"},
		{Name: "initial_vx", Kind: node.Real, Default: 0.0, Units: "m/s", Description: "Initial velocity $v_x$"},
		{Name: "initial_vy", Kind: node.Real, Default: 0.0, Units: "m/s", Description: "Initial velocity $v_y$"},
		{Name: "initial_angle", Kind: node.Real, Default: 0.0, Units: "rad", Description: "Initial orientation $\\theta$"},
		{Name: "initial_omega", Kind: node.Real, Default: 0.0, Units: "rad/s", Description: "Initial angular velocity $\\omega$"},
	}, node.VisualParams("side of the square plate drawn for the body; by default the uniform square of the same mass and moment of inertia")...),
	Inputs: []node.Input{
		{Name: "force", Shape: node.Vec(2), Units: "N", Description: "External force $[F_x, F_y]$ at the centre of mass", Combine: node.Additive, Default: []float64{0, 0}},
		{Name: "torque", Shape: node.Scalar, Units: "N m", Description: "External torque $\\tau$", Combine: node.Additive, Default: []float64{0}},
	},
	Meta: node.Metadata{
		AlgorithmID:     "MADD-NODE-004",
		Version:         "1.0.0",
		Stability:       node.Deprecated,
		Replacement:     Replacement,
		DeprecatedSince: "0.1.0",
		Summary:         "A planar rigid body with two translational degrees of freedom and one rotational, driven by an external force and torque applied at the centre of mass. Deprecated: use rigidbody with constraints {z: 0, rx: 0, ry: 0}.",
		Equations: []string{
			`m\,\ddot{\mathbf{x}} = \mathbf{F} + m\,\mathbf{g}, \qquad I\,\ddot{\theta} = \tau`,
		},
		EquationNotes:  "$\\mathbf{x} = (x, y)$ is the centre-of-mass position, $\\theta$ the orientation, $m$ the mass, $I$ the moment of inertia about the centre of mass, $\\mathbf{g}$ the gravitational acceleration, $\\mathbf{F}$ the external force and $\\tau$ the external torque.",
		Discretization: "semi-implicit-euler",
		DiscretizationNotes: "Semi-implicit (symplectic) Euler in both degree-of-freedom groups: the linear and angular velocities are advanced first, and the position and angle are advanced with the already-updated velocities: " +
			"$\\mathbf{v}^{n+1} = \\mathbf{v}^n + \\Delta t\\,(\\mathbf{F}^n/m + \\mathbf{g})$, $\\omega^{n+1} = \\omega^n + \\Delta t\\,\\tau^n/I$, " +
			"$\\mathbf{x}^{n+1} = \\mathbf{x}^n + \\Delta t\\,\\mathbf{v}^{n+1}$, $\\theta^{n+1} = \\theta^n + \\Delta t\\,\\omega^{n+1}$. " +
			"The acceleration is evaluated as $\\mathbf{F}/m + \\mathbf{g}$ (MADDENING's RigidBody2DNode wrote $(\\mathbf{F} + m\\mathbf{g})/m$, equal in exact arithmetic). " +
			"This is the integrators package's `semi-implicit-euler` applied to `Derivatives`, bit for bit.",
		Order: node.Order{Temporal: 1, Note: "1st order globally over the state as a whole (a joint error norm). " +
			"Position and angle converge at 2nd order only when the force and torque are state-independent and vanish at $t_0$; " +
			"otherwise the first step's extra $\\tfrac12\\Delta t^2\\mathbf{F}^0/m$ makes them 1st order too (for a constant force the velocities are exact and the position error is $\\tfrac12\\Delta t\\,t\\,\\mathbf{F}/m$). " +
			"MADDENING's wording, 2nd order for any state-independent force, is too broad; see TestOrderStudy."},
		Assumptions: []string{
			"Rigid body: no deformation",
			"Constant mass and moment of inertia",
			"Planar motion only — no out-of-plane translation or rotation",
			"Forces and torques are applied at the centre of mass (a marker load converts an off-centre force into force plus torque)",
			"No contact, collision or constraint handling",
		},
		Limitations: []string{
			"Deprecated: superseded by rigidbody with constraints {z: 0, rx: 0, ry: 0}",
			"1st-order integration: the error is $O(\\Delta t)$ over the state as a whole",
			"No collision detection: bodies can overlap with no penalty",
			"No constraint handling: no joints or hinges",
			"A connector's force at a marker loses its out-of-plane component: `MarkerLoad` keeps $(f_x, f_y)$ and the torque about $z$, so $f_z$ and the in-plane moment it carries reach nothing, without an error (COSIM-ANO-003)",
			"Gravity is applied in float64. MADDENING's RigidBody2DNode truncated it to float32 (about $10^{-7}$ relative error); trajectories under gravity therefore differ from MADDENING's in the 8th significant digit, and this port does not reproduce that truncation",
			"MADDENING's RigidBody2DNode had no derivatives(), so its integrators could not drive it; this port has Derivatives, so any integrator can, but only `semi-implicit-euler` reproduces Update's trajectory",
			"The angle is not wrapped: it grows without bound under steady rotation, losing absolute precision as $|\\theta|$ grows",
		},
		Regimes: []node.Regime{
			{Param: "mass", Range: "$10^{-6}$ – $10^{6}$ kg", Notes: "Zero, negative or non-finite mass is rejected at construction"},
			{Param: "inertia", Range: "$10^{-6}$ – $10^{6}$ kg·m²", Notes: "Zero, negative or non-finite inertia is rejected at construction"},
		},
		StabilityConditions: []string{
			"Unconditionally stable for a state-independent force and torque: the accelerations do not depend on the state, so there is no amplification factor to bound. A force supplied by a coupled node that depends on this node's position reintroduces the usual explicit-scheme limit.",
		},
		StableStep: &node.StableStep{
			Unconditional: true,
			Notes: "Semi-implicit Euler under state-independent loads is stable at every step. A connector whose force depends on the body's " +
				"position states the bound of the pair, with the body's inverse mass at the marker (`MarkerInverseMass`: $1/m + r_y^2/I$ along x, " +
				"$1/m + r_x^2/I$ along y, 0 along z).",
		},
		Mapping: []node.Mapping{
			{Term: `(\mathbf{F} + m\mathbf{g})/m`, Identifier: pkgPath + ".model.accelerations", Notes: "evaluated as `F/m + g`, float64 throughout"},
			{Term: `\tau / I`, Identifier: pkgPath + ".model.accelerations", Notes: "`alpha = torque / inertia`"},
			{Term: "Linear and angular velocity update", Identifier: pkgPath + ".Node.Update", Notes: "`v + dt*a`, `omega + dt*alpha`"},
			{Term: `\dot{\mathbf{x}} = \mathbf{v},\ \dot\theta = \omega`, Identifier: pkgPath + ".Node.Update", Notes: "uses the new velocities"},
			{Term: "Continuous right-hand side", Identifier: pkgPath + ".Node.Derivatives"},
			{Term: `\mathbf{F},\ \tau`, Identifier: pkgPath + ".Node.Spec", Notes: "`force` and `torque`, both additive"},
			{Term: "Deprecation warning", Identifier: pkgPath + ".New", Notes: "slog warning on every construction"},
		},
		References: []node.Reference{
			{Key: "Hairer2006", Text: "Hairer, E., Lubich, C. and Wanner, G. (2006). Geometric Numerical Integration. Springer.", Note: "Chapter VI: order and structure preservation for symplectic Euler, the scheme used here in both DOF groups."},
			{Key: "LeVeque2007", Text: "LeVeque, R.J. (2007). Finite Difference Methods for Ordinary and Partial Differential Equations. SIAM.", Note: "Convergence theory for one-step ODE methods."},
			{Key: "Roache2002", Text: "Roache, P.J. (2002). Code verification by the Method of Manufactured Solutions. J. Fluids Eng.", Note: "The method the order claim is measured with."},
		},
		Anomalies: []string{"COSIM-ANO-003"},
		Evidence:  []string{"MADD-VER-011"},
		Changelog: []node.Change{
			{Version: "1.0.0", Date: "2025-03-01", Change: "Initial implementation"},
			{Version: "1.0.0", Date: "2026-09-20", Change: "Declared order of accuracy added and measured (MADD-VER-011)"},
			{Version: "1.0.0", Date: "2026-12-02", Change: "Ported to cosim (Go), deprecated since cosim 0.1.0 in favour of rigidbody with constraints {z: 0, rx: 0, ry: 0}. Gravity is applied in float64 instead of MADDENING's float32 truncation; Derivatives added, so integrators can drive the node; zero or non-finite mass and inertia are construction errors; a planar Marker added; every construction logs a slog deprecation warning."},
		},
	},
})

const stateLen = 6

var (
	offX     = spec.StateFieldOffset("x")
	offAngle = spec.StateFieldOffset("angle")
	offV     = spec.StateFieldOffset("v")
	offOmega = spec.StateFieldOffset("omega")
	inForce  = spec.InputOffset("force")
	inTorque = spec.InputOffset("torque")
)
