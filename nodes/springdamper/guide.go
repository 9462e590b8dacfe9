package springdamper

import (
	"fmt"
	"strings"

	"github.com/cosimgo/cosim/node"
)

// GuideSections contributes Exudyn's item reference to the node's
// generated guide (docs.Sectioner: the docs package finds it by type
// assertion; the return type is the unnamed struct docs.Section aliases,
// so this package does not import docs). The generator already renders
// the summary, the markers list, the equations, the parameter table (the
// visualization parameters included), the user function's Go signature
// with its arguments' Go types, the outputs and the Example functions;
// these sections add what it cannot know: the Go names and the marker
// wiring, the definition of quantities, the connector forces with the
// sign convention and the analytic Jacobian, Exudyn's description of
// the user function's arguments, Exudyn's visualization names and Exudyn's
// mini example.
func (n *Node) GuideSections() []struct{ Title, After, Body string } {
	return []struct{ Title, After, Body string }{
		{Title: "Interface Details", After: "Interface", Body: guideInterface},
		{Title: "Definition of Quantities", After: "Governing Equations", Body: guideQuantities},
		{Title: "Connector Forces", After: "Governing Equations", Body: guideForces},
		{Title: "Visualization Parameters", After: "Parameters", Body: guideVisualization()},
		{Title: "User Function", After: "User Function Arguments", Body: guideUserFunction},
		{Title: "Mini Example", After: "Outputs", Body: guideMiniExample},
	}
}

const guideInterface = `Exudyn's ` + "`ObjectConnectorCartesianSpringDamper`" + ` (Python ` + "`CartesianSpringDamper`" + `) in Go:

| Exudyn | cosim |
|---|---|
| item type | registry name ` + "`springdamper`" + ` (` + "`springdamper.TypeName`" + `), Go type ` + "`*springdamper.Node`" + ` |
| ` + "`mbs.AddObject(CartesianSpringDamper(...))`" + ` | ` + "`springdamper.New(p, m0, m1)`" + ` with ` + "`springdamper.Params`" + ` (start from ` + "`springdamper.DefaultParams()`" + `); ` + "`springdamper.FromMap`" + ` builds one between two ground markers at the origin from a parameter map |
| ` + "`mbs.CreateCartesianSpringDamper(...)`" + ` | ` + "`springdamper.Connect(g, name, p, node.BodyAt(body0, local0), node.BodyAt(body1, local1))`" + `: adds the connector to a graph and wires every edge |
| ` + "`markerNumbers = [m0, m1]`" + ` | two ` + "`node.Attachment`" + ` values: ` + "`node.GroundAt(p)`" + ` (a fixed world point) or ` + "`node.At(body, local)`" + ` (a point of a body implementing ` + "`node.Marker`" + `) |
| ` + "`springForceUserFunction`" + ` | ` + "`Params.ForceFunc`" + `, a ` + "`springdamper.ForceFunc`" + ` |
| ` + "`activeConnector`" + ` | ` + "`Params.Active`" + ` (parameter ` + "`active`" + `) |

What ` + "`local`" + ` means depends on the body: a fixed world point for the ground (no body), nothing for a point mass (its marker is the mass itself), the unit world axis its coordinate runs along for a one-dimensional body (the ball), and a body-fixed point in the body frame for a planar or 6-DOF rigid body.

Each connector's spec is built from its markers' bodies. For a body marker k (0 or 1):

- one **replacing input** ` + "`m<k>_<field>`" + ` per name in the body's ` + "`MarkerFields`" + `, with the body's shape and units (e.g. ` + "`m1_position`" + `, ` + "`m1_velocity`" + ` for a point mass), fed by edges from the body's state;
- one **output** ` + "`m<k>_<load>`" + ` per name in the body's ` + "`MarkerLoads`" + `, the load this connector puts on the body (e.g. ` + "`m1_force`" + `, or ` + "`m1_force`" + ` and ` + "`m1_torque`" + ` for a rigid body), fed into the body's additive input of the same name (a ball takes the scalar ` + "`m<k>_force`" + `, the force's component along its axis). A body without loads would be prescribed motion for the connector, not pushed back.

A ground marker has neither. ` + "`Connect`" + ` adds all these edges; the default construction the tables below describe has two ground markers, hence no inputs.`

const guideQuantities = `| Intermediate variable | Symbol | Description |
|---|---|---|
| marker m0 position | $\mathbf{p}_{m0}$ | current world position of marker m0, from its body's ` + "`MarkerKinematics`" + ` (a ground marker: its fixed point) |
| marker m1 position | $\mathbf{p}_{m1}$ | current world position of marker m1 |
| marker m0 velocity | $\mathbf{v}_{m0}$ | current world velocity of marker m0 (a ground marker: zero) |
| marker m1 velocity | $\mathbf{v}_{m1}$ | current world velocity of marker m1 |
| relative displacement | $\Delta\mathbf{p}$ | $\mathbf{p}_{m1} - \mathbf{p}_{m0}$, the output ` + "`displacement`" + ` |
| relative velocity | $\Delta\mathbf{v}$ | $\mathbf{v}_{m1} - \mathbf{v}_{m0}$, the output ` + "`velocity`" + ` |
| distance | $L$ | $\lVert\Delta\mathbf{p}\rVert$, the output ` + "`distance`" + ` |
| stiffness, damping, offset | $\mathbf{k}, \mathbf{d}, \mathbf{v}_{\mathrm{off}}$ | the parameters ` + "`stiffness`, `damping`, `offset`" + `, one entry per world axis |
| connector force | $\mathbf{f}_{SD}$ | the spring-damper force, world frame, the output ` + "`force`" + ` |
| item number | $i_N$ | the parameter ` + "`item_number`" + `, passed to the user function |
| marker coordinates | $\mathbf{q}_{m0}, \mathbf{q}_{m1}$ | the marker bodies' ` + "`MarkerFields`" + ` values: the connector's inputs ` + "`m0_…`" + ` and ` + "`m1_…`" + ` |
| position Jacobians | $\mathbf{J}_{pos,m0}, \mathbf{J}_{pos,m1}$ | $\partial\mathbf{p}_{mk}/\partial\mathbf{q}_{mk}$, the body's ` + "`MarkerJacobian`" + ` ($3 \times$ the number of marker coordinates; none for a ground marker) |
| Jacobian factors | $f_{ODE2}, f_{ODE2_t}$ | weights of the position and velocity derivatives, the arguments ` + "`fODE2`, `fODE2t`" + ` of ` + "`Node.JacobianCSD`" + ` |`

const guideForces = `Connector forces are based on relative displacements and relative velocities in world coordinates. The relative displacement from marker m0 to marker m1 and the relative velocity are

$$
\Delta\mathbf{p} = \mathbf{p}_{m1} - \mathbf{p}_{m0}, \qquad \Delta\mathbf{v} = \mathbf{v}_{m1} - \mathbf{v}_{m0} .
$$

If the connector is active (` + "`active = true`" + `), the force is

$$
\mathbf{f}_{SD} = \operatorname{diag}(\mathbf{k})\,(\Delta\mathbf{p} - \mathbf{v}_{\mathrm{off}}) + \operatorname{diag}(\mathbf{d})\,\Delta\mathbf{v} ,
$$

component by component $f_{SD,i} = k_i(\Delta p_i - v_{\mathrm{off},i}) + d_i\,\Delta v_i$ along the fixed world axes. With a user function $\mathrm{UF}$ (` + "`spring_force_user_function`" + `, see User Function) the law is replaced by

$$
\mathbf{f}_{SD} = \mathrm{UF}(t, i_N, \Delta\mathbf{p}, \Delta\mathbf{v}, \mathbf{k}, \mathbf{d}, \mathbf{v}_{\mathrm{off}}) ,
$$

and if the connector is inactive, $\mathbf{f}_{SD} = \mathbf{0}$ (the user function is not called).

**Sign convention.** The force acts through the markers' position Jacobians. Exudyn's item reference adds to the left-hand side of the equations of motion, for marker m0 and marker m1,

$$
\mathbf{f}_{LHS,m0} = -\mathbf{J}_{pos,m0}^{\mathsf T}\,\mathbf{f}_{SD}, \qquad \mathbf{f}_{LHS,m1} = +\mathbf{J}_{pos,m1}^{\mathsf T}\,\mathbf{f}_{SD} ;
$$

the different signs come from $\Delta\mathbf{p} = \mathbf{p}_{m1} - \mathbf{p}_{m0}$. In a cosim graph the bodies take their loads on the right-hand side, so marker m0 is pushed by $+\mathbf{f}_{SD}$ and marker m1 by $-\mathbf{f}_{SD}$: the load outputs ` + "`m0_<load>`" + ` and ` + "`m1_<load>`" + ` are the bodies' ` + "`MarkerLoad`" + ` of $\pm\mathbf{f}_{SD}$ at the marker, i.e. $\pm\mathbf{J}_{pos,mk}^{\mathsf T}\mathbf{f}_{SD}$ in the body's coordinates (for a rigid body the force at the centre of mass and its moment $(R\mathbf{r}) \times (\pm\mathbf{f}_{SD})$). A stretched spring ($k_i > 0$, $\Delta p_i > v_{\mathrm{off},i}$) pulls the markers together. The two loads are equal and opposite, so linear momentum is conserved.

**Analytic Jacobian.** Without a user function the connector differentiates its force law analytically (with one, it differentiates the function numerically, as Exudyn's item reference does). The local Jacobians of the force with respect to the markers' positions and velocities, weighted with $f_{ODE2}$ and $f_{ODE2_t}$ so that both parts are computed at once, are

$$
\begin{aligned}
\mathbf{J}_{loc0} &= f_{ODE2}\,\frac{\partial\mathbf{f}_{SD}}{\partial\mathbf{p}_{m0}} + f_{ODE2_t}\,\frac{\partial\mathbf{f}_{SD}}{\partial\mathbf{v}_{m0}} = -f_{ODE2}\operatorname{diag}(\mathbf{k}) - f_{ODE2_t}\operatorname{diag}(\mathbf{d}) , \\
\mathbf{J}_{loc1} &= f_{ODE2}\,\frac{\partial\mathbf{f}_{SD}}{\partial\mathbf{p}_{m1}} + f_{ODE2_t}\,\frac{\partial\mathbf{f}_{SD}}{\partial\mathbf{v}_{m1}} = f_{ODE2}\operatorname{diag}(\mathbf{k}) + f_{ODE2_t}\operatorname{diag}(\mathbf{d}) = -\mathbf{J}_{loc0} .
\end{aligned}
$$

The Jacobian of the left-hand-side terms with respect to the marker coordinates $\mathbf{q}_{m0}, \mathbf{q}_{m1}$ is then

$$
\mathbf{J}_{CSD} =
\begin{bmatrix}
\dfrac{\partial\mathbf{f}_{LHS,m0}}{\partial\mathbf{q}_{m0}} & \dfrac{\partial\mathbf{f}_{LHS,m0}}{\partial\mathbf{q}_{m1}} \\
\dfrac{\partial\mathbf{f}_{LHS,m1}}{\partial\mathbf{q}_{m0}} & \dfrac{\partial\mathbf{f}_{LHS,m1}}{\partial\mathbf{q}_{m1}}
\end{bmatrix}
=
\begin{bmatrix}
\mathbf{J}_{pos,m0}^{\mathsf T}\mathbf{J}_{loc1}\mathbf{J}_{pos,m0} & -\mathbf{J}_{pos,m0}^{\mathsf T}\mathbf{J}_{loc1}\mathbf{J}_{pos,m1} \\
-\mathbf{J}_{pos,m1}^{\mathsf T}\mathbf{J}_{loc1}\mathbf{J}_{pos,m0} & \mathbf{J}_{pos,m1}^{\mathsf T}\mathbf{J}_{loc1}\mathbf{J}_{pos,m1}
\end{bmatrix}
+ \mathbf{J}_{CSD'} .
$$

The second term is non-zero only for markers whose position Jacobian depends on their coordinates ($\partial\mathbf{J}_{pos,mk}^{\mathsf T}/\partial\mathbf{q}_{mk} \ne 0$, e.g. a body-fixed point of a rotating body). As that derivative is a three-dimensional array, it is computed as the derivative of the product at a fixed force,

$$
\mathbf{J}_{CSD'} =
\begin{bmatrix}
-f_{ODE2}\,\dfrac{\partial\left(\mathbf{J}_{pos,m0}^{\mathsf T}\mathbf{f}'\right)}{\partial\mathbf{q}_{m0}} & \mathbf{0} \\
\mathbf{0} & f_{ODE2}\,\dfrac{\partial\left(\mathbf{J}_{pos,m1}^{\mathsf T}\mathbf{f}'\right)}{\partial\mathbf{q}_{m1}}
\end{bmatrix} ,
\qquad \mathbf{f}' = \mathbf{f}_{SD} \text{ held constant.}
$$

` + "`Node.JacobianCSD(fODE2, fODE2t, t, in, dst)`" + ` writes this matrix (rows and columns are the connector's inputs, i.e. the marker coordinates; as in Exudyn's item reference the velocity derivative is folded onto the position columns through $\partial\mathbf{v}/\partial\dot{\mathbf{q}} = \mathbf{J}_{pos}$). ` + "`Node.OutputsJacobian`" + ` is the same derivative in the graph's form, $\partial(\text{outputs})/\partial(\text{inputs})$, with the position and velocity columns kept apart; its load rows are the right-hand-side loads, the negatives of the $\mathbf{f}_{LHS}$ rows. The node.Marker contract has no second derivatives, so $\mathbf{J}_{CSD'}$ and the position dependence of a marker's velocity are central differences of the body's marker maps (about $10^{-10}$ relative).`

const guideUserFunction = "Exudyn's `springForceUserFunction(mbs, t, itemNumber, displacement, velocity, stiffness, damping, offset)` is the Go type `springdamper.ForceFunc`, set as `Params.ForceFunc`. " +
	"It computes the 3D spring force vector from the time, the connector's current relative displacement and velocity and its parameters, and replaces the linear law while the connector is active; an inactive connector never calls it. " +
	"It must be a pure function of its arguments and safe for concurrent use (a graph may evaluate several connectors that share it at once), and it must not retain anything. " +
	"With it the connector has no `potential_energy` output (Exudyn raises: the energy of a user force law is undefined), and its Jacobians differentiate the function numerically. " +
	"A user function exists only in Go: a scene file cannot name one.\n\n" +
	"| Exudyn argument | Go argument | Symbol | Description |\n|---|---|---|---|\n" +
	"| `mbs` | — | — | Exudyn's MainSystem; it has no counterpart: a Go closure captures whatever else it needs |\n" +
	"| `t` | `t float64` | $t$ | current time of the simulation, s |\n" +
	"| `itemNumber` | `itemNumber int` | $i_N$ | integer number of the object; Exudyn's item reference uses it to look up object data. cosim has no global item index: it is the parameter `item_number`, whatever integer the caller chooses, e.g. to tell apart connectors sharing one function |\n" +
	"| `displacement` | `displacement [3]float64` | $\\Delta\\mathbf{p}$ | relative displacement $\\mathbf{p}_{m1} - \\mathbf{p}_{m0}$, world frame, m |\n" +
	"| `velocity` | `velocity [3]float64` | $\\Delta\\mathbf{v}$ | relative velocity $\\mathbf{v}_{m1} - \\mathbf{v}_{m0}$, world frame, m/s |\n" +
	"| `stiffness` | `stiffness [3]float64` | $\\mathbf{k}$ | copied from the connector (parameter `stiffness`), N/m |\n" +
	"| `damping` | `damping [3]float64` | $\\mathbf{d}$ | copied from the connector (parameter `damping`), N s/m |\n" +
	"| `offset` | `offset [3]float64` | $\\mathbf{v}_{\\mathrm{off}}$ | copied from the connector (parameter `offset`), m |\n" +
	"| **return value** | `[3]float64` | $\\mathbf{f}_{SD}$ | the computed spring force, world frame, N; a non-finite component makes `Outputs` return an error wrapping `node.ErrNonFinite` that names the time and the arguments |\n\n" +
	"Exudyn's example `UFforce` (returning $u_i k_i$, ignoring damping and offset) is `Example_userFunction` in the Example section."

// guideVisualization renders Exudyn's visualization parameters from
// the parameter list, so that the defaults cannot drift from the code.
func guideVisualization() string {
	exudyn := []struct{ name, param, typ string }{
		{"show", paramShow, "Bool"},
		{"drawSize", paramDrawSize, "float"},
		{"color", paramColor, "Float4"},
	}
	var b strings.Builder
	b.WriteString("Exudyn's `VObjectConnectorCartesianSpringDamper`, given as `visualization`, is three ordinary parameters of the connector; scene files set them, `cosim view` and `cosim render` draw with them, and the physics ignores them.\n\n")
	b.WriteString("| Exudyn name | Parameter | Exudyn type | Default | Description |\n|---|---|---|---|---|\n")
	for _, s := range exudyn {
		p := paramByName(s.param)
		fmt.Fprintf(&b, "| `%s` | `%s` | %s | `%s` | %s |\n", s.name, p.Name, s.typ, node.FormatValue(p.Default), p.Description)
	}
	d := node.DefaultDrawSettings()
	b.WriteString("\nDrawn between its actual attachment points (`Node.Draw`, the node's `node.Drawer` capability): a spring of diameter `draw_size` from marker m0 to marker m1, " +
		"a helix whose ends sit on the axis at the markers, with a damper inside it (a housing from m0 and a piston rod from m1) when any damping coefficient is non-zero, and a cube at each ground marker. " +
		"With `DrawSettings.CartesianSprings` (`--cartesian-springs`) it is drawn as Exudyn's item reference draws it: three springs along world x, y and z in turn " +
		"(from $\\mathbf{p}_{m0}$ to $(p_{m1,x}, p_{m0,y}, p_{m0,z})$, then to $(p_{m1,x}, p_{m1,y}, p_{m0,z})$, then to $\\mathbf{p}_{m1}$; a spring of zero length is left out). " +
		"Exudyn's drawing settings are the renderer's (`node.DrawSettings`, flags of `cosim view` and `cosim render`):\n\n")
	b.WriteString("| Exudyn setting | cosim | Default |\n|---|---|---|\n")
	fmt.Fprintf(&b, "| `connectors.defaultSize` (used when `drawSize` is −1) | `DrawSettings.ConnectorSize`, `--spring-size` | %s m |\n", node.FormatValue(d.ConnectorSize))
	fmt.Fprintf(&b, "| `connectors.defaultColor` (used when R is −1) | `DrawSettings.ConnectorColor` | `%s` |\n", node.FormatValue(d.ConnectorColor[:]))
	fmt.Fprintf(&b, "| `connectors.springNumberOfWindings` | `DrawSettings.SpringWindings`, `--windings` | %d |\n", d.SpringWindings)
	fmt.Fprintf(&b, "| `connectors.curveTiling` (segments per winding) | `DrawSettings.CurveTiling`, `--tiling` | %d |\n", d.CurveTiling)
	fmt.Fprintf(&b, "| `connectors.drawSimplified` (springs as straight lines) | `DrawSettings.Simplified`, `--simplified` | %v |\n", d.Simplified)
	b.WriteString("\nExudyn's `general.cylinderTiling` has no counterpart: the renderers choose the tubes' tiling.")
	return b.String()
}

func paramByName(name string) node.Param {
	for _, p := range params {
		if p.Name == name {
			return p
		}
	}
	panic("springdamper: no parameter " + name)
}

const guideMiniExample = "Exudyn's mini example: a mass point of 5 kg at $[1, 1, 0]$ hangs from a ground point at $[1, 1, 0]$ through the connector, with $k = 5000$ N/m in every direction, damping $[0,\\ 0.05k,\\ 0] = [0, 250, 0]$ N s/m and a load of $[0, -5, 0]$ N on the mass. " +
	"The static solution is a displacement of $-5/5000 = -0.001$ m in y. In cosim:\n\n" +
	"| Exudyn | cosim |\n|---|---|\n" +
	"| `NodePoint` + `MassPoint(mass = 5)` | `masspoint.New(masspoint.Params{Mass: 5, InitialPosition: [3]float64{1, 1, 0}})`, added to a graph |\n" +
	"| `MarkerNodePosition(nodeNumber = nMass)` | the body name `\"mass\"` given to `Connect` (a point mass's marker is the mass itself) |\n" +
	"| `MarkerBodyPosition(bodyNumber = oGround, localPosition = [1, 1, 0])` | the ground: `node.GroundAt([3]float64{1, 1, 0})` |\n" +
	"| `CartesianSpringDamper(markerNumbers = [mGround, mMass], ...)` | `springdamper.Connect(g, \"sd\", p, node.GroundAt([3]float64{1, 1, 0}), node.Body(\"mass\"))` |\n" +
	"| `Force(markerNumber = mMass, loadVector = [0, -5, 0])` | a constant source node wired into the mass's additive `force` input |\n" +
	"| `mbs.SolveDynamic()` | `sim.Run` with $\\Delta t = 1$ ms to $t = 2$ s (semi-implicit Euler bodies, explicit coupling) |\n" +
	"| `GetNodeOutput(nMass, Displacement)[1]` | `mass.position` y minus its initial 1 |\n\n" +
	"The code is `ExampleConnect` in the Example section below: `go test` compiles and runs it, and checks that it prints the static solution, −0.001000 m."
