package springdamper

import "github.com/cosimgo/cosim/node"

// meta is the metadata every connector shares.
var meta = node.Metadata{
	AlgorithmID: "COSIM-NODE-301",
	Version:     "1.1.0",
	Stability:   node.Stable,
	Summary:     "A 3D spring-damper with springs and dampers in the three global directions x, y, z between two markers: a fixed world point, a point mass, a one-dimensional body, or a body-fixed point of a planar or 6-DOF rigid body (Exudyn's ObjectConnectorCartesianSpringDamper).",
	Equations: []string{
		`\Delta\mathbf{p} = \mathbf{p}_{m1} - \mathbf{p}_{m0}, \qquad \Delta\mathbf{v} = \mathbf{v}_{m1} - \mathbf{v}_{m0}`,
		`\mathbf{f}_{SD} = \operatorname{diag}(\mathbf{k})\,(\Delta\mathbf{p} - \mathbf{v}_{\mathrm{off}}) + \operatorname{diag}(\mathbf{d})\,\Delta\mathbf{v}`,
		`\mathbf{f}_{SD} = \mathrm{UF}(t, i_N, \Delta\mathbf{p}, \Delta\mathbf{v}, \mathbf{k}, \mathbf{d}, \mathbf{v}_{\mathrm{off}}) \quad \text{(user function, when set)}`,
		`\mathbf{f}_{LHS,m0} = -\mathbf{J}_{pos,m0}^{\mathsf T}\,\mathbf{f}_{SD}, \qquad \mathbf{f}_{LHS,m1} = \mathbf{J}_{pos,m1}^{\mathsf T}\,\mathbf{f}_{SD}`,
		`V = \tfrac12 \sum_i k_i\,(\Delta p_i - v_{\mathrm{off},i})^2`,
		`\mathbf{J}_{loc1} = f_{ODE2}\operatorname{diag}(\mathbf{k}) + f_{ODE2_t}\operatorname{diag}(\mathbf{d}) = -\mathbf{J}_{loc0}`,
	},
	EquationNotes: "The boundary inputs (`m0_position`, `m0_velocity`, …) and load outputs (`m0_force`, …) of an instance depend on the bodies its markers attach to (none for two ground markers, the registry's default); `Connect` creates and wires them, and the guide's Interface section lists them per marker kind. " +
		"$\\mathbf{p}_{mi}, \\mathbf{v}_{mi}$ are the world position and velocity of marker $i$ (the body's `MarkerKinematics`; a ground marker is a fixed point with zero velocity), " +
		"$\\mathbf{k}, \\mathbf{d}, \\mathbf{v}_{\\mathrm{off}}$ the stiffness, damping and offset, $\\mathrm{UF}$ the optional user force function and $i_N$ the item number given to it. " +
		"$\\mathbf{f}_{SD}$ is zero when the connector is inactive. Exudyn's left-hand-side terms move to the right-hand side as the loads the bodies receive: " +
		"marker 0 is pushed by $+\\mathbf{f}_{SD}$ and marker 1 by $-\\mathbf{f}_{SD}$ (a stretched spring pulls the markers together), each turned into the body's load inputs by its `MarkerLoad` (for a rigid body the force at the centre of mass and the moment $(R\\mathbf{r})\\times\\mathbf{f}$). " +
		"$V$ is zero when inactive and undefined with a user function. $\\mathbf{J}_{loc}$ is Exudyn's local Jacobian with the factors $f_{ODE2}$ (positions) and $f_{ODE2_t}$ (velocities).",
	Discretization:      "",
	DiscretizationNotes: "None: the connector is stateless. It evaluates an algebraic force law at the state the graph hands it (the start of each co-simulation step); the bodies integrate.",
	Order:               node.Order{Temporal: 0, Note: "No discretization: the force law is evaluated exactly, to round-off; the accuracy of a simulation is that of the bodies' schemes and of the explicit co-simulation coupling."},
	Assumptions: []string{
		"Springs and dampers act along the fixed world axes x, y, z, not along the line between the markers (a Cartesian, not an axial, spring)",
		"Linear force law (unless a user function is given): no preload other than the offset, no rest length other than the offset",
		"The force is held constant over a co-simulation step (explicit Jacobi coupling): the bodies see the force at the start of the step",
		"Massless connector: equal and opposite forces on the two markers",
	},
	Limitations: []string{
		"A ball marker takes only the component of the force along the ball's axis (the ball's MarkerLoad); until ball 1.1.0 a ball could not be pushed at all (COSIM-ANO-002, resolved)",
		"Explicit coupling: a stiff connector is stable only below the step stated in Stable step (Stability Conditions); `cosim run` warns when `dt` exceeds it. The bound is per connector: a body held by several springs oscillates faster, so a network may need up to about half of it",
		"With isotropic damping the damper force $\\mathbf{d}\\,\\Delta\\mathbf{v}$ is not along $\\Delta\\mathbf{p}$: the pair of forces is a couple, so angular momentum is not conserved (as in Exudyn)",
		"With a user force function there is no potential_energy output, and the output Jacobian differentiates the function numerically",
		"node.Marker gives only the position Jacobian: the position dependence of the marker velocity and of the marker load (J_CSD') are central differences of the body's marker maps (about 1e-10 relative) unless the body provides MarkerVelocityJacobian",
		"A marker on a planar body drops the out-of-plane force component and the in-plane moment it carries (the body's MarkerLoad does), without an error (COSIM-ANO-003)",
		"The distance is not differentiable at zero: its Jacobian row is zero there",
	},
	Regimes: []node.Regime{
		{Param: "stiffness", Range: "$0$ – $10^{6}$ N/m", Notes: "Tested (mini example 5000, chains 100, pendulum $10^6$); negative values are accepted as in Exudyn but not validated physically"},
		{Param: "damping", Range: "$0$ – $250$ N s/m", Notes: "Tested (mini example)"},
	},
	StabilityConditions: []string{
		"The connector itself is algebraic. Coupled to bodies integrated with semi-implicit Euler, a spring of stiffness $k$ between masses requires $\\Delta t < 2\\sqrt{m_{eff}/k}$; damping lowers the bound further ($\\Delta t < 2 m_{eff}/d$ for a pure damper).",
	},
	StableStep: &node.StableStep{
		Limit: `\Delta t < \min_{i \in \{x, y, z\}} \frac{\sqrt{c_i^2 + 4\omega_i^2} - c_i}{\omega_i^2}, \qquad \omega_i^2 = \frac{k_i}{\mu_i}, \quad c_i = \frac{d_i}{\mu_i}, \quad \frac{1}{\mu_i} = w_{m0,i} + w_{m1,i}`,
		Units: "s",
		Notes: "For explicit co-simulation: each body advances by semi-implicit Euler with the connector's force of the step's start. " +
			"Along each world axis $i$ the connector and its markers form one damped oscillator $\\ddot u + c_i \\dot u + \\omega_i^2 u = 0$; " +
			"semi-implicit Euler maps $(v, u)$ by a matrix of trace $2 - c_i\\Delta t - \\omega_i^2\\Delta t^2$ and determinant $1 - c_i\\Delta t$, " +
			"which is stable exactly when $\\omega_i^2\\Delta t^2 + 2c_i\\Delta t < 4$: the bound above, $2/\\omega_i = 2\\sqrt{\\mu_i/k_i}$ undamped. " +
			"$w_{mk,i}$ is the inverse effective mass of marker $k$ along axis $i$ (`node.MarkerMass`: $1/m$ for a mass point, plus the rotational part " +
			"$(R\\mathbf{r} \\times \\mathbf{e}_i)^{\\mathsf T} I_w^{-1} (R\\mathbf{r} \\times \\mathbf{e}_i)$ for a rigid body, $a_i^2/m$ for a ball on the unit axis $\\mathbf{a}$, " +
			"0 for the ground). Axes without a positive spring or damper, an inactive connector and a user force function (whose stiffness is unknown) state no bound. " +
			"The rotational coupling between axes is neglected and the bound is per connector: a body held by several springs can be unstable at up to about half of it.",
		Computed: true,
	},
	Mapping: []node.Mapping{
		{Term: `\Delta\mathbf{p},\ \Delta\mathbf{v},\ L`, Identifier: pkgPath + ".Node.Outputs"},
		{Term: `\mathbf{f}_{SD}`, Identifier: pkgPath + ".Node.Force", Notes: "the law Outputs evaluates; zero when inactive, UF when set"},
		{Term: `\mathrm{UF}`, Identifier: pkgPath + ".ForceFunc"},
		{Term: `-\mathbf{J}_{pos,m0}^{\mathsf T}\mathbf{f}_{SD},\ \mathbf{J}_{pos,m1}^{\mathsf T}\mathbf{f}_{SD}`, Identifier: pkgPath + ".Node.Outputs", Notes: "the load outputs m<k>_<load>, via the body's MarkerLoad of $\\pm\\mathbf{f}_{SD}$"},
		{Term: `V`, Identifier: pkgPath + ".Node.PotentialEnergy", Notes: "ErrPotentialEnergy with a user function"},
		{Term: `\mathbf{J}_{loc0},\ \mathbf{J}_{loc1},\ \mathbf{J}_{CSD'}`, Identifier: pkgPath + ".Node.OutputsJacobian", Notes: "∂outputs/∂inputs"},
		{Term: `\mathbf{J}_{CSD}`, Identifier: pkgPath + ".Node.JacobianCSD", Notes: "Exudyn's 4-block matrix for given $f_{ODE2}, f_{ODE2_t}$"},
		{Term: "markers", Identifier: pkgPath + ".New", Notes: "ends as node.Attachment values: node.At(body, local), node.GroundAt(point)"},
		{Term: "CreateCartesianSpringDamper", Identifier: pkgPath + ".Connect"},
	},
	References: []node.Reference{
		{Key: "Exudyn", Text: "Gerstmayr, J. Exudyn theory and user documentation: ObjectConnectorCartesianSpringDamper Exudyn 1.10, University of Innsbruck.", Note: "Force law, sign convention, outputs, user function, analytic Jacobian and mini example."},
		{Key: "Gerstmayr2023", Text: "Gerstmayr, J. (2023). Exudyn – a C++-based Python package for flexible multibody systems. Multibody System Dynamics.", Note: "The multibody framework the connector comes from."},
		{Key: "Hairer2006", Text: "Hairer, E., Lubich, C. and Wanner, G. (2006). Geometric Numerical Integration. Springer.", Note: "Symplectic Euler conserves linear and angular momentum for pair forces: the basis of the conservation tests."},
	},
	Anomalies: []string{"COSIM-ANO-002", "COSIM-ANO-003"},
	Evidence:  []string{"COSIM-VER-301", "COSIM-VER-302"},
	Changelog: []node.Change{
		{Version: "1.0.0", Date: "2026-12-02", Change: "Initial implementation: markers through node.Marker, analytic output Jacobian with Exudyn's J_CSD′ term, user force function, Connect helper."},
		{Version: "1.1.0", Date: "2026-12-04", Change: "Outputs renamed to the snake_case of every cosim field: displacement, distance, velocity, force, potential_energy. The former names (Displacement, Distance, Velocity, Force, PotentialEnergy) still resolve, with a deprecation warning. The computation is unchanged."},
	},
}
