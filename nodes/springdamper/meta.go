package springdamper

import "github.com/cosimgo/cosim/node"

// meta is the metadata every connector shares.
var meta = node.Metadata{
	AlgorithmID: "COSIM-NODE-301",
	Version:     "1.0.0",
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
		"$\\mathbf{f}_{SD}$ is zero when the connector is inactive. The seed's left-hand-side terms move to the right-hand side as the loads the bodies receive: " +
		"marker 0 is pushed by $+\\mathbf{f}_{SD}$ and marker 1 by $-\\mathbf{f}_{SD}$ (a stretched spring pulls the markers together), each turned into the body's load inputs by its `MarkerLoad` (for a rigid body the force at the centre of mass and the moment $(R\\mathbf{r})\\times\\mathbf{f}$). " +
		"$V$ is zero when inactive and undefined with a user function. $\\mathbf{J}_{loc}$ is the seed's local Jacobian with the factors $f_{ODE2}$ (positions) and $f_{ODE2_t}$ (velocities).",
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
		"A ball marker cannot be pushed: the ball has no force input (MarkerLoads is empty), so it acts as prescribed motion for the connector and the connector's force on it is lost, without an error or a warning (COSIM-ANO-002)",
		"Explicit coupling: a stiff connector is stable only for $\\Delta t < 2/\\omega_{max}$ with $\\omega_{max} = \\sqrt{k/m_{eff}}$ (semi-implicit Euler bodies); use a small step",
		"With isotropic damping the damper force $\\mathbf{d}\\,\\Delta\\mathbf{v}$ is not along $\\Delta\\mathbf{p}$: the pair of forces is a couple, so angular momentum is not conserved (as in Exudyn)",
		"With a user force function there is no PotentialEnergy output, and the output Jacobian differentiates the function numerically",
		"node.Marker gives only the position Jacobian: the position dependence of the marker velocity and of the marker load (J_CSD') are central differences of the body's marker maps (about 1e-10 relative) unless the body provides MarkerVelocityJacobian",
		"A marker on a planar body drops the out-of-plane force component and the in-plane moment it carries (the body's MarkerLoad does), without an error (COSIM-ANO-003)",
		"Distance is not differentiable at zero: its Jacobian row is zero there",
	},
	Regimes: []node.Regime{
		{Param: "stiffness", Range: "$0$ – $10^{6}$ N/m", Notes: "Tested (mini example 5000, chains 100, pendulum $10^6$); negative values are accepted as in Exudyn but not validated physically"},
		{Param: "damping", Range: "$0$ – $250$ N s/m", Notes: "Tested (mini example)"},
	},
	StabilityConditions: []string{
		"The connector itself is algebraic. Coupled to bodies integrated with semi-implicit Euler, a spring of stiffness $k$ between masses requires $\\Delta t < 2\\sqrt{m_{eff}/k}$; damping lowers the bound further ($\\Delta t < 2 m_{eff}/d$ for a pure damper).",
	},
	Mapping: []node.Mapping{
		{Term: `\Delta\mathbf{p},\ \Delta\mathbf{v},\ L`, Identifier: pkgPath + ".Node.Outputs"},
		{Term: `\mathbf{f}_{SD}`, Identifier: pkgPath + ".Node.Force", Notes: "the law Outputs evaluates; zero when inactive, UF when set"},
		{Term: `\mathrm{UF}`, Identifier: pkgPath + ".ForceFunc"},
		{Term: `-\mathbf{J}_{pos,m0}^{\mathsf T}\mathbf{f}_{SD},\ \mathbf{J}_{pos,m1}^{\mathsf T}\mathbf{f}_{SD}`, Identifier: pkgPath + ".Node.Outputs", Notes: "the load outputs m<k>_<load>, via the body's MarkerLoad of $\\pm\\mathbf{f}_{SD}$"},
		{Term: `V`, Identifier: pkgPath + ".Node.PotentialEnergy", Notes: "ErrPotentialEnergy with a user function"},
		{Term: `\mathbf{J}_{loc0},\ \mathbf{J}_{loc1},\ \mathbf{J}_{CSD'}`, Identifier: pkgPath + ".Node.OutputsJacobian", Notes: "∂outputs/∂inputs"},
		{Term: `\mathbf{J}_{CSD}`, Identifier: pkgPath + ".Node.JacobianCSD", Notes: "the seed's 4-block matrix for given $f_{ODE2}, f_{ODE2_t}$"},
		{Term: "markers", Identifier: pkgPath + ".Marker"},
		{Term: "CreateCartesianSpringDamper", Identifier: pkgPath + ".Connect"},
	},
	References: []node.Reference{
		{Key: "Exudyn", Text: "Gerstmayr, J. Exudyn theory and user documentation: ObjectConnectorCartesianSpringDamper (cosim seed cartesian-spring-damper.md).", Note: "Force law, sign convention, outputs, user function, analytic Jacobian and mini example."},
		{Key: "Gerstmayr2023", Text: "Gerstmayr, J. (2023). Exudyn – a C++-based Python package for flexible multibody systems. Multibody System Dynamics.", Note: "The multibody framework the connector comes from."},
		{Key: "Hairer2006", Text: "Hairer, E., Lubich, C. and Wanner, G. (2006). Geometric Numerical Integration. Springer.", Note: "Symplectic Euler conserves linear and angular momentum for pair forces: the basis of the conservation tests."},
	},
	Anomalies: []string{"COSIM-ANO-002", "COSIM-ANO-003"},
	Evidence:  []string{"COSIM-VER-301", "COSIM-VER-302"},
	Changelog: []node.Change{
		{Version: "1.0.0", Date: "2026-12-02", Change: "Initial implementation: markers through node.Marker, analytic output Jacobian with the seed's J_CSD′ term, user force function, Connect helper."},
	},
}
