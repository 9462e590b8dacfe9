package masspoint

import "github.com/cosimgo/cosim/node"

const pkgPath = "github.com/cosimgo/cosim/nodes/masspoint"

// spec is built once; it is immutable and shared by every mass point.
var spec = node.NewSpec(node.Spec{
	Type:    TypeName,
	Package: pkgPath,
	State: []node.Field{
		{Name: "position", Shape: node.Vec(3), Units: "m", Description: "Position $\\mathbf{x}$ of the mass, world frame", Role: node.Position, Rate: "velocity"},
		{Name: "velocity", Shape: node.Vec(3), Units: "m/s", Description: "Velocity $\\mathbf{v}$ of the mass, world frame", Role: node.Velocity},
	},
	Params: append([]node.Param{
		{Name: "mass", Kind: node.Real, Default: 1.0, Units: "kg", Description: "Mass $m$", Range: node.Positive()},
		{Name: "gravity", Kind: node.Vector, Shape: node.Vec(3), Default: []float64{0, 0, 0}, Units: "m/s^2", Description: "Uniform gravitational acceleration $\\mathbf{g}$, world frame (zero by default: no gravity)"},
		{Name: "initial_position", Kind: node.Vector, Shape: node.Vec(3), Default: []float64{0, 0, 0}, Units: "m", Description: "Initial position $\\mathbf{x}(t_0)$"},
		{Name: "initial_velocity", Kind: node.Vector, Shape: node.Vec(3), Default: []float64{0, 0, 0}, Units: "m/s", Description: "Initial velocity $\\mathbf{v}(t_0)$"},
	}, node.VisualParams("diameter of the sphere drawn at the mass")...),
	Inputs: []node.Input{
		{Name: "force", Shape: node.Vec(3), Units: "N", Description: "External force $\\mathbf{F}$ on the mass, world frame", Combine: node.Additive, Default: []float64{0, 0, 0}},
	},
	Meta: node.Metadata{
		AlgorithmID: "COSIM-NODE-201",
		Version:     "1.1.0",
		Stability:   node.Stable,
		Summary:     "A point mass in three dimensions under a uniform gravity and an external force: the body connectors such as the Cartesian spring-damper attach to.",
		Equations: []string{
			`m\,\dot{\mathbf{v}} = \mathbf{F} + m\,\mathbf{g}, \qquad \dot{\mathbf{x}} = \mathbf{v}`,
		},
		EquationNotes:  "$\\mathbf{x}, \\mathbf{v} \\in \\mathbb{R}^3$ are the position and velocity of the mass in the world frame, $m$ the mass, $\\mathbf{g}$ a uniform gravitational acceleration and $\\mathbf{F}$ the sum of the forces connected to the `force` input.",
		Discretization: "semi-implicit-euler",
		DiscretizationNotes: "Semi-implicit (symplectic) Euler: the velocity is advanced first with the force held at its value at the start of the step, then the position with the new velocity, " +
			"$\\mathbf{v}^{n+1} = \\mathbf{v}^n + \\Delta t\\,(\\mathbf{F}^n/m + \\mathbf{g})$, $\\mathbf{x}^{n+1} = \\mathbf{x}^n + \\Delta t\\,\\mathbf{v}^{n+1}$. " +
			"This is the integrators package's `semi-implicit-euler` applied to `Derivatives`, bit for bit.",
		Order: node.Order{Temporal: 1, Note: "Globally first order over the state as a whole. For a constant force the velocity is exact and the position error is exactly $\\tfrac12\\,\\Delta t\\,t\\,(\\mathbf{F}/m + \\mathbf{g})$."},
		Assumptions: []string{
			"Point mass: no extent, no rotation",
			"Constant mass",
			"Uniform gravity",
			"Forces are applied at the mass and held constant over a step",
		},
		Limitations: []string{
			"1st-order integration: the error is $O(\\Delta t)$ over the state as a whole",
			"No contact or collision handling",
			"A force that depends on the state (a stiff spring attached through a connector) brings back the explicit-scheme stability limit",
		},
		Regimes: []node.Regime{
			{Param: "mass", Range: "$10^{-6}$ – $10^{6}$ kg", Notes: "Tested range"},
		},
		StabilityConditions: []string{
			"Unconditionally stable for a state-independent force: the acceleration does not depend on the state.",
			"With a linear spring of stiffness $k$ attached, the scheme is stable for $\\Delta t < 2\\sqrt{m/k}$.",
		},
		StableStep: &node.StableStep{
			Unconditional: true,
			Notes: "Semi-implicit Euler under a force that does not depend on the mass's own state is stable at every step. A connector whose force " +
				"does (a spring) states the bound of the pair, in which the mass enters through `MarkerInverseMass` ($1/m$ on every axis).",
		},
		Mapping: []node.Mapping{
			{Term: `\mathbf{F}/m + \mathbf{g}`, Identifier: pkgPath + ".law.accel", Notes: "shared by Update, Derivatives and the batch kernel"},
			{Term: `\mathbf{v}^{n+1} = \mathbf{v}^n + \Delta t\,\dot{\mathbf{v}}`, Identifier: pkgPath + ".Node.Update"},
			{Term: `\mathbf{x}^{n+1} = \mathbf{x}^n + \Delta t\,\mathbf{v}^{n+1}`, Identifier: pkgPath + ".Node.Update", Notes: "uses the new velocity"},
			{Term: `\dot{\mathbf{x}} = \mathbf{v},\ \dot{\mathbf{v}} = \mathbf{F}/m + \mathbf{g}`, Identifier: pkgPath + ".Node.Derivatives"},
			{Term: `\mathbf{F}`, Identifier: pkgPath + ".Node.Spec", Notes: "additive input `force`"},
			{Term: "point marker", Identifier: pkgPath + ".Node.MarkerKinematics"},
			{Term: `\partial f/\partial x,\ \partial f/\partial \mathbf{F}`, Identifier: pkgPath + ".Node.DerivativesJacobian", Notes: "exact: the model is linear"},
		},
		References: []node.Reference{
			{Key: "Hairer2006", Text: "Hairer, E., Lubich, C. and Wanner, G. (2006). Geometric Numerical Integration. Springer.", Note: "Chapter VI: symplectic Euler."},
			{Key: "Exudyn", Text: "Exudyn item reference: ObjectConnectorCartesianSpringDamper Exudyn 1.10, University of Innsbruck.", Note: "Its mini example is a mass point held by a Cartesian spring-damper; this node is that body."},
		},
		Anomalies: []string{},
		Evidence:  []string{"COSIM-VER-201"},
		Changelog: []node.Change{
			{Version: "1.0.0", Date: "2026-12-02", Change: "Initial implementation"},
			{Version: "1.1.0", Date: "2026-12-03", Change: "Analytic DerivativesJacobian (exact), so graphs no longer finite-difference it"},
		},
	},
})

// The layout as constants, so that the step indexes fixed-size arrays
// without bounds checks; init checks them against the spec.
const (
	offPosition = 0
	offVelocity = 3
	offForce    = 0
	stateSize   = 6
)

func init() {
	if spec.StateFieldOffset("position") != offPosition || spec.StateFieldOffset("velocity") != offVelocity ||
		spec.InputOffset("force") != offForce || spec.StateLayout.Size() != stateSize {
		panic("masspoint: layout constants do not match the spec")
	}
}
