package rigidbody

import "github.com/cosimgo/cosim/node"

const pkgPath = "github.com/cosimgo/cosim/nodes/rigidbody"

// Discretization is the name of the scheme Update runs (see Node.Update):
// semi-implicit Euler for the translation and the angular velocity, and
// the Lie-group (exponential map) update of the orientation with the new
// angular velocity. It is not the integrators package's
// "semi-implicit-euler" applied to Derivatives, which would advance the
// quaternion additively with the old ω.
const Discretization = "semi-implicit-euler-lie"

// spec is built once; it is immutable and shared by every rigid body.
var spec = node.NewSpec(node.Spec{
	Type:    TypeName,
	Package: pkgPath,
	State: []node.Field{
		{Name: "position", Shape: node.Vec(3), Units: "m", Description: "Centre-of-mass position $\\mathbf{x}$, world frame", Role: node.Position, Rate: "velocity"},
		{Name: "orientation", Shape: node.Vec(4), Units: "1", Description: "Unit quaternion $q = (w, x, y, z)$, scalar first, taking body-frame vectors to the world frame"},
		{Name: "velocity", Shape: node.Vec(3), Units: "m/s", Description: "Centre-of-mass velocity $\\mathbf{v}$, world frame", Role: node.Velocity},
		{Name: "angular_velocity", Shape: node.Vec(3), Units: "rad/s", Description: "Angular velocity $\\boldsymbol{\\omega}$ in the world frame (not the body frame); role other: it is not the rate of a position field"},
	},
	Params: append([]node.Param{
		{Name: "mass", Kind: node.Real, Default: 1.0, Units: "kg", Description: "Mass $m$", Range: node.Positive()},
		{Name: "inertia", Kind: node.Vector, Shape: node.Vec(3), Default: []float64{1, 1, 1}, Units: "kg m^2", Description: "Principal moments of inertia $(I_1, I_2, I_3)$ about the body axes through the centre of mass; ignored when inertia_matrix is set", Range: node.Positive()},
		{Name: "inertia_matrix", Kind: node.Vector, Shape: node.Vec(9), Default: make([]float64, 9), Units: "kg m^2", Description: "Full body-frame inertia tensor, row-major, symmetric positive definite; all zero (the default) means unset: use inertia"},
		{Name: "gravity", Kind: node.Vector, Shape: node.Vec(3), Default: []float64{0, 0, 0}, Units: "m/s^2", Description: "Uniform gravitational acceleration $\\mathbf{g}$, world frame; zero by default (no up axis is assumed)"},
		{Name: "initial_position", Kind: node.Vector, Shape: node.Vec(3), Default: []float64{0, 0, 0}, Units: "m", Description: "Initial centre-of-mass position"},
		{Name: "initial_orientation", Kind: node.Vector, Shape: node.Vec(4), Default: []float64{1, 0, 0, 0}, Units: "1", Description: "Initial orientation quaternion (w, x, y, z); normalised on construction; zero is invalid"},
		{Name: "initial_velocity", Kind: node.Vector, Shape: node.Vec(3), Default: []float64{0, 0, 0}, Units: "m/s", Description: "Initial centre-of-mass velocity, world frame"},
		{Name: "initial_angular_velocity", Kind: node.Vector, Shape: node.Vec(3), Default: []float64{0, 0, 0}, Units: "rad/s", Description: "Initial angular velocity, world frame"},
		{Name: "constraints", Kind: node.Text, Default: "", Units: "m, rad", Description: "Coordinates held at values, e.g. \"z=0,rx=0,ry=0\" (or a map {\"z\": 0, …}); axes x, y, z (m) and the Z-Y-X angles rx, ry, rz (rad) of $R = R_z(r_z)R_y(r_y)R_x(r_x)$, in any combination: one held rotation leaves a two-axis gimbal, two a hinge, three a fixed orientation; ry held alone needs $|\\cos r_y| \\ge 10^{-3}$ (gimbal lock at $\\pm\\pi/2$); \"\" holds nothing"},
	}, node.VisualParams("edge of the cube drawn for the body; by default the uniform box of the same mass and principal moments of inertia")...),
	Inputs: []node.Input{
		{Name: "force", Shape: node.Vec(3), Units: "N", Description: "External force $\\mathbf{F}$ at the centre of mass, world frame", Combine: node.Additive, Default: []float64{0, 0, 0}},
		{Name: "torque", Shape: node.Vec(3), Units: "N m", Description: "External torque $\\boldsymbol{\\tau}$ about the centre of mass, world frame", Combine: node.Additive, Default: []float64{0, 0, 0}},
	},
	Meta: node.Metadata{
		AlgorithmID: "COSIM-NODE-202",
		Version:     "1.1.0",
		Stability:   node.Evolving,
		Summary:     "A 6-DOF rigid body (unit-quaternion orientation, world-frame angular velocity) under gravity and an external force and torque, with optional coordinates held at values. With constraints {z: 0, rx: 0, ry: 0} it replaces the deprecated rigidbody2d node and reproduces its trajectory.",
		Equations: []string{
			`m\,\dot{\mathbf{v}} = \mathbf{F} + m\,\mathbf{g}, \qquad \dot{\mathbf{x}} = \mathbf{v}`,
			`I_w\,\dot{\boldsymbol\omega} = \boldsymbol\tau - \boldsymbol\omega \times (I_w\,\boldsymbol\omega), \qquad I_w = R\,I_b\,R^\mathsf{T}`,
			`\dot q = \tfrac12\,(0, \boldsymbol\omega) \otimes q`,
			`\text{hinge about } \mathbf{n}:\ I_n\,\ddot\varphi = \mathbf{n}\cdot\boldsymbol\tau, \qquad I_n = \mathbf{n}^\mathsf{T} I_w\,\mathbf{n}`,
			`\text{gimbal}:\ \boldsymbol\omega = J(\mathbf{a})\,\dot{\mathbf{a}}, \qquad J^\mathsf{T}\left(I_w\,\dot{\boldsymbol\omega} + \boldsymbol\omega \times I_w\boldsymbol\omega - \boldsymbol\tau\right) = 0, \qquad \dot{\boldsymbol\omega} = J\,\ddot{\mathbf{a}} + \dot J\,\dot{\mathbf{a}}`,
		},
		EquationNotes: "$\\mathbf{x}, \\mathbf{v}$: centre-of-mass position and velocity; $q = (w, x, y, z)$: unit quaternion, $R = R(q)$ takes body to world; " +
			"$\\boldsymbol\\omega$: angular velocity in the world frame; $I_b$: body-frame inertia (principal moments or the full matrix), $I_w$ the same in the world frame; " +
			"$\\mathbf{F}, \\boldsymbol\\tau$: external force and torque about the centre of mass, world frame. " +
			"Constraints hold coordinates: a held translation $x_i = c_i$, $v_i = 0$; the rotation angles are those of $R = R_z(r_z)R_y(r_y)R_x(r_x)$. " +
			"Two held rotations leave a hinge: $q = A \\otimes q_k(\\varphi) \\otimes B$ turns about the fixed world axis $\\mathbf{n} = R(A)\\,\\mathbf{e}_k$, $I_n$ is constant along the motion and the gyroscopic term has no component along $\\mathbf{n}$. " +
			"One held rotation leaves a two-axis gimbal: the other two Z-Y-X angles $\\mathbf{a} = (a_1, a_2)$ are generalized coordinates, $J(\\mathbf{a})$ holds the two world axes they turn about ($\\mathbf{c}_x = R_zR_y\\mathbf{e}_x$, $\\mathbf{c}_y = R_z\\mathbf{e}_y$, $\\mathbf{c}_z = \\mathbf{e}_z$), and the constraint torque, orthogonal to them, drops out of the projected Euler equations, so $M\\ddot{\\mathbf{a}} = J^\\mathsf{T}(\\boldsymbol\\tau - \\boldsymbol\\omega\\times I_w\\boldsymbol\\omega - I_w\\dot J\\dot{\\mathbf{a}})$ with $M = J^\\mathsf{T} I_w J$; $\\dot J\\dot{\\mathbf{a}} = \\dot r_y\\dot r_z\\,\\mathbf{c}_z\\times\\mathbf{c}_y + \\dot r_x\\dot r_z\\,\\mathbf{c}_z\\times\\mathbf{c}_x + \\dot r_x\\dot r_y\\,\\mathbf{c}_y\\times\\mathbf{c}_x$. " +
			"Three held rotations fix the orientation. With $\\{z: 0, r_x: 0, r_y: 0\\}$ the body is the planar rigid body of rigidbody2d: $q = (\\cos\\tfrac\\theta2, 0, 0, \\sin\\tfrac\\theta2)$, $\\boldsymbol\\omega = (0, 0, \\dot\\theta)$, $I_n = I_{zz}$.",
		Discretization: Discretization,
		DiscretizationNotes: "Semi-implicit Euler on the Lie group: the velocities first, with loads and state at $t_n$, " +
			"$\\mathbf{v}^{n+1} = \\mathbf{v}^n + \\Delta t(\\mathbf{F}^n/m + \\mathbf{g})$, $\\boldsymbol\\omega^{n+1} = \\boldsymbol\\omega^n + \\Delta t\\,\\dot{\\boldsymbol\\omega}(q^n, \\boldsymbol\\omega^n, \\boldsymbol\\tau^n)$; " +
			"then $\\mathbf{x}^{n+1} = \\mathbf{x}^n + \\Delta t\\,\\mathbf{v}^{n+1}$ and $q^{n+1} = \\exp(\\tfrac12\\Delta t\\,\\boldsymbol\\omega^{n+1}) \\otimes q^n$, normalised. " +
			"The translational and angular-velocity components are exactly `semi-implicit-euler` applied to `Derivatives`; the orientation is not (that would add $\\Delta t\\,\\dot q$ with the old $\\boldsymbol\\omega$ and leave the unit sphere), hence the distinct name. " +
			"A hinge advances its angle, $\\varphi^{n+1} = \\varphi^n + \\Delta t\\,\\omega_n^{n+1}$, and rebuilds $q$ from it: the same rotation as the exponential update, but exactly on the hinge. Held coordinates are set to their values, their rates to zero. " +
			"A body with exactly one held rotation runs `" + DiscretizationGimbal + "` instead, and its instance's `Metadata.Discretization` says so: semi-implicit Euler in the two free angles, $\\dot{\\mathbf{a}}^{n+1} = \\dot{\\mathbf{a}}^n + \\Delta t\\,\\ddot{\\mathbf{a}}(\\mathbf{a}^n, \\dot{\\mathbf{a}}^n, \\boldsymbol\\tau^n)$, $\\mathbf{a}^{n+1} = \\mathbf{a}^n + \\Delta t\\,\\dot{\\mathbf{a}}^{n+1}$, then $q^{n+1} = q_z q_y q_x$ built from the angles (the held factor is a constant, so the held angle is exact for ever) and $\\boldsymbol\\omega^{n+1} = J(\\mathbf{a}^{n+1})\\,\\dot{\\mathbf{a}}^{n+1}$; $\\mathbf{a}^n, \\dot{\\mathbf{a}}^n$ are read back from $q^n, \\boldsymbol\\omega^n$ by formulas regular everywhere on the gimbal. The translation is the same semi-implicit Euler. The kinetic energy (zero torque) and the momentum about the outer free axis drift at $O(\\Delta t)$.",
		Order: node.Order{Temporal: 1, Note: "1st order globally over the state; for torque-free tumbling the drift of the world angular momentum and of the kinetic energy shrinks linearly with $\\Delta t$ (COSIM-VER-202); with one held rotation (`" + DiscretizationGimbal + "`) the drift of the kinetic energy and of the momentum about the outer free axis does too (TestGimbalEnergy)."},
		Assumptions: []string{
			"Rigid body: no deformation; constant mass and inertia",
			"Uniform gravity acting at the centre of mass; no gravity by default",
			"Force and torque act at the centre of mass and are held constant over a step; a marker load adds the moment of an off-centre force",
			"Constraints are ideal (workless) and hold coordinates at constant values",
			"Held rotations refer to the Z-Y-X angles of $R = R_z(r_z)R_y(r_y)R_x(r_x)$: one held angle is a two-axis gimbal (a Cardan suspension) whose free axes are the world axes of the other two angles, not an arbitrary pair of body axes",
		},
		Limitations: []string{
			"1st-order integration: the error is $O(\\Delta t)$; energy and angular momentum drift at $O(\\Delta t)$ in torque-free tumbling",
			"Holding ry alone at $\\pm\\pi/2$ locks the gimbal (both free axes are the world z axis): rejected when $|\\cos r_y| < 10^{-3}$; near that limit the free angles' rates grow as $1/|\\cos r_y|$ and the step must shrink accordingly. Holding rx or rz alone is regular at every orientation",
			"With rx or rz held, the Z-Y-X angles read back from $q$ do not tell rx from rz where $|r_y| = \\pi/2$: the node never reads the held angle back (it builds $q$ from it), but an observer that extracts Z-Y-X angles from the orientation output sees the held one ill-conditioned there",
			"With one held rotation the kinetic energy (zero torque) and the momentum about the outer free axis drift at $O(\\Delta t)$, as for free tumbling: the scheme is semi-implicit Euler in the angles' rates, not a variational integrator",
			"Derivatives assumes the state satisfies the constraints (as InitialState and Update leave it); a general-purpose integrator does not renormalise the quaternion, and its orientation update differs from Update's",
			"The principal moments are not checked against the triangle inequality $I_1 + I_2 \\ge I_3$",
			"No contact or collision handling",
			"The velocity Jacobian of a marker is not the position Jacobian restricted to the velocity fields (the orientation has 4 coordinates, ω has 3); see Node.MarkerVelocityJacobian",
		},
		Regimes: []node.Regime{
			{Param: "mass", Range: "$10^{-6}$ – $10^{6}$ kg", Notes: "Tested range"},
			{Param: "inertia", Range: "$10^{-6}$ – $10^{6}$ kg·m²", Notes: "Tested range"},
		},
		StabilityConditions: []string{
			"Translation: unconditionally stable for a state-independent force; a coupled stiffness $k$ brings back $\\Delta t < 2\\sqrt{m/k}$.",
			"Free rotation: the gyroscopic term is explicit; keep $|\\boldsymbol\\omega|\\,\\Delta t \\ll 1$ for accuracy, since energy grows at $O(\\Delta t)$ per unit time in tumbling.",
		},
		StableStep: &node.StableStep{
			Unconditional: true,
			Notes: "No step bound of its own: translation and hinge rotation under state-independent loads are stable at every step. Free rotation " +
				"has no stability bound either way: its explicit gyroscopic term lets a tumbling body's energy drift at $O(\\Delta t)$ per unit time " +
				"at every step, which is an accuracy limit (keep $|\\boldsymbol\\omega|\\,\\Delta t \\ll 1$), not a step beyond which it blows up. A " +
				"connector whose force depends on the body's pose states the bound of the pair, with the body's inverse mass at the marker " +
				"(`MarkerInverseMass`: $1/m$ plus $(R\\mathbf{r} \\times \\mathbf{e}_i)^{\\mathsf T} I_w^{-1} (R\\mathbf{r} \\times \\mathbf{e}_i)$).",
		},
		Mapping: []node.Mapping{
			{Term: `\mathbf{F}/m + \mathbf{g}`, Identifier: pkgPath + ".model.linAccel", Notes: "zero for a held translation"},
			{Term: `I_w^{-1}(\boldsymbol\tau - \boldsymbol\omega\times I_w\boldsymbol\omega)`, Identifier: pkgPath + ".model.angAccel", Notes: "evaluated in the body frame"},
			{Term: `(\mathbf{n}\cdot\boldsymbol\tau)/I_n`, Identifier: pkgPath + ".model.hingeAccel"},
			{Term: `\exp(\tfrac12\Delta t\,\boldsymbol\omega) \otimes q`, Identifier: pkgPath + ".qexp"},
			{Term: "hinge angle and rebuild", Identifier: pkgPath + ".model.twist", Notes: "and model.hinge"},
			{Term: `M\,\ddot{\mathbf{a}} = J^\mathsf{T}(\boldsymbol\tau - \boldsymbol\omega\times I_w\boldsymbol\omega - I_w\dot J\dot{\mathbf{a}})`, Identifier: pkgPath + ".model.gimbalAccel", Notes: "one held rotation"},
			{Term: `J(\mathbf{a}) = [\mathbf{c}_i]`, Identifier: pkgPath + ".columns", Notes: "the gimbal's free axes"},
			{Term: "gimbal angles and rebuild", Identifier: pkgPath + ".gimbal.angles", Notes: "and gimbal.quat"},
			{Term: "semi-implicit Euler in the free angles", Identifier: pkgPath + ".model.gimbalStep", Notes: DiscretizationGimbal},
			{Term: "semi-implicit Euler on the Lie group", Identifier: pkgPath + ".Node.Update"},
			{Term: "continuous right-hand side", Identifier: pkgPath + ".Node.Derivatives"},
			{Term: "constraints", Identifier: pkgPath + ".Constraints", Notes: "text form parsed by ParseConstraints"},
			{Term: `\mathbf{x} + R\mathbf{r},\ \mathbf{v} + \boldsymbol\omega\times R\mathbf{r}`, Identifier: pkgPath + ".Node.MarkerKinematics"},
			{Term: `(R\mathbf{r})\times\mathbf{f}`, Identifier: pkgPath + ".Node.MarkerLoad"},
		},
		References: []node.Reference{
			{Key: "Hairer2006", Text: "Hairer, E., Lubich, C. and Wanner, G. (2006). Geometric Numerical Integration. Springer.", Note: "Chapters IV and VII: rigid body and Lie-group integrators."},
			{Key: "Goldstein2002", Text: "Goldstein, H., Poole, C. and Safko, J. (2002). Classical Mechanics, 3rd ed. Addison-Wesley.", Note: "Chapter 5: Euler's equations, torque-free motion."},
		},
		Anomalies: []string{},
		Evidence:  []string{"COSIM-VER-202"},
		Changelog: []node.Change{
			{Version: "1.0.0", Date: "2026-12-02", Change: "Initial implementation, with constraints; replaces rigidbody2d (MADD-NODE-004) through constraints {z: 0, rx: 0, ry: 0}"},
			{Version: "1.1.0", Date: "2026-12-02", Change: "Constraints may hold exactly one rotation (a two-axis gimbal): constrained Euler equations in the two free Z-Y-X angles, integrated by " + DiscretizationGimbal + ", which such an instance's Metadata.Discretization names; ry held alone at ±π/2 (gimbal lock) is a parameter error"},
		},
	},
})

const stateLen = 13

// gimbalSpec is spec with the scheme a body with exactly one held rotation
// runs; everything else is shared.
var gimbalSpec = func() *node.Spec {
	s := *spec
	s.Meta.Discretization = DiscretizationGimbal
	return node.NewSpec(s)
}()

// specFor is the spec of a body whose rotations are constrained as rot.
func specFor(rot rotMode) *node.Spec {
	if rot == rotGimbal {
		return gimbalSpec
	}
	return spec
}

var (
	offPos   = spec.StateFieldOffset("position")
	offQuat  = spec.StateFieldOffset("orientation")
	offVel   = spec.StateFieldOffset("velocity")
	offOmega = spec.StateFieldOffset("angular_velocity")
	inForce  = spec.InputOffset("force")
	inTorque = spec.InputOffset("torque")
)
