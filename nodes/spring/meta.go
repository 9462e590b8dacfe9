package spring

import "github.com/cosimgo/cosim/node"

func metadata() node.Metadata {
	return node.Metadata{
		AlgorithmID: "COSIM-NODE-302",
		Version:     "1.0.0",
		Stability:   node.Stable,
		Summary:     "A geometric spring-damper between two markers: a force along the line between them, f = k(ℓ − ℓ₀) + c ℓ̇, the spring most people mean (the Cartesian springdamper acts per world axis).",
		Equations: []string{
			`\mathbf{d} = \mathbf{p}_1 - \mathbf{p}_0,\quad \ell = |\mathbf{d}|,\quad \mathbf{u} = \mathbf{d}/\ell,\quad \dot\ell = \mathbf{u}\cdot(\mathbf{v}_1 - \mathbf{v}_0)`,
			`f = k(\ell - \ell_0) + c\,\dot\ell, \qquad \mathbf{F}_0 = f\,\mathbf{u},\quad \mathbf{F}_1 = -f\,\mathbf{u}, \qquad V = \tfrac12 k (\ell - \ell_0)^2`,
			`\frac{\partial \mathbf{F}_0}{\partial \mathbf{d}} = k\,\mathbf{u}\mathbf{u}^\top + \frac{c}{\ell}\,\mathbf{u}(\mathbf{w} - \dot\ell\,\mathbf{u})^\top + \frac{f}{\ell}(I - \mathbf{u}\mathbf{u}^\top), \qquad \frac{\partial \mathbf{F}_0}{\partial \mathbf{w}} = c\,\mathbf{u}\mathbf{u}^\top`,
		},
		EquationNotes: "$\\mathbf{p}_k, \\mathbf{v}_k$ are the world position and velocity of marker $k$ (a ground point, or a body's marker through node.Marker), " +
			"$\\mathbf{w} = \\mathbf{v}_1 - \\mathbf{v}_0$, $k$ `stiffness`, $c$ `damping`, $\\ell_0$ `rest_length`. The force is central (along $\\mathbf{u}$), so a network of these springs " +
			"conserves linear and angular momentum; without damping it conserves $V$ plus the bodies' kinetic energy.",
		Order: node.Order{Note: "Exact: a stateless map of the markers' positions and velocities; the accuracy of a run is the bodies' integrator's."},
		Assumptions: []string{
			"Massless spring and damper acting along the straight line between the markers",
			"Linear in the elongation and in the length rate",
			"The markers stay farther apart than `min_length` (default 1e-9 m)",
		},
		Limitations: []string{
			"As ℓ → 0 the direction u is undefined: markers closer than `min_length` at construction are an error (ErrCoincident), and during a run Outputs returns an error naming the node, `length` and the time, which stops the run; nothing is clamped",
			"Near ℓ → 0 the transverse (geometric) stiffness f/ℓ grows without bound: explicit integrators need ever smaller steps there",
			"No compression-only or tension-only (cable) behaviour; no pre-load other than through the rest length",
			"The Jacobian is analytic for ground and point-mass markers; for rigid bodies the moment-arm terms use central differences of the body's marker maps (about 1e-10 relative), as springdamper does",
		},
		StableStep: &node.StableStep{
			Limit: `\Delta t < \frac{\sqrt{c^2 + 4\omega^2} - c}{\omega^2}, \qquad \omega^2 = \frac{k}{\mu}, \quad c = \frac{c_d}{\mu}, \quad \frac{1}{\mu} = \sum_{k \in \{m0, m1\}} \sum_i u_i^2\, w_{k,i}`,
			Units: "s",
			Notes: "For explicit co-simulation (bodies stepped by semi-implicit Euler with the spring's force of the step's start), along the spring's " +
				"direction $\\mathbf{u}$ at the start of the run: $k$ is the stiffness, $c_d$ the damping, $w_{k,i}$ the inverse effective mass of marker $k$ " +
				"along world axis $i$ (`node.MarkerMass`; 0 for the ground). It is the damped-oscillator bound of semi-implicit Euler, $2/\\omega$ undamped " +
				"(see the springdamper guide for its derivation). The geometric stiffness $f/\\ell$ across the spring is not counted, and the bound is per " +
				"spring: a body held by several springs can be unstable at up to about half of it.",
			Computed: true,
		},
		StabilityConditions: []string{
			"Between two point masses, explicit co-simulation with semi-implicit Euler is stable along the spring for $\\Delta t < 2/\\omega$, $\\omega^2 = k/\\mu$ with $\\mu$ the reduced mass. Transversely the geometric stiffness $f/\\ell = k(1 - \\ell_0/\\ell)$ (undamped) is below $k$ and does not tighten the limit; in compression it is negative: the straight configuration is unstable, as a compressed spring buckles.",
		},
		Mapping: []node.Mapping{
			{Term: `\ell,\ \mathbf{u},\ \dot\ell`, Identifier: pkgPath + ".Node.geometry"},
			{Term: `f,\ \mathbf{F}_0,\ \mathbf{F}_1,\ V`, Identifier: pkgPath + ".Node.Outputs"},
			{Term: `\partial\mathbf{F}_0/\partial\mathbf{d},\ \partial\mathbf{F}_0/\partial\mathbf{w}`, Identifier: pkgPath + ".LocalJacobian"},
			{Term: `\partial y/\partial u`, Identifier: pkgPath + ".Node.OutputsJacobian", Notes: "chained through the markers"},
			{Term: "coincident markers at t0", Identifier: pkgPath + ".marker.initialPosition"},
		},
		References: []node.Reference{
			{Key: "Exudyn", Text: "Exudyn item reference: ObjectConnectorSpringDamper (referenceLength, stiffness, damping, force along the line between two markers).", Note: "Same law; cosim names the reference length `rest_length` and has no user force function or offset force."},
			{Key: "Wriggers2008", Text: "Wriggers, P. (2008). Nonlinear Finite Element Methods. Springer. Section 4.2 (truss element: material and geometric stiffness).", Note: "The outer-product Jacobian: material stiffness k u uᵀ plus geometric stiffness (f/ℓ)(I − u uᵀ)."},
		},
		Anomalies: []string{},
		Evidence:  []string{"COSIM-VER-303"},
		Changelog: []node.Change{{Version: "1.0.0", Date: "2026-12-03", Change: "Initial implementation"}},
	}
}
