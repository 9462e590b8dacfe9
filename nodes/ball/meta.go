package ball

import "github.com/cosimgo/cosim/node"

func metadata() node.Metadata {
	const id = pkgPath + "."
	return node.Metadata{
		AlgorithmID: "MADD-NODE-001",
		Version:     "1.2.0",
		Stability:   node.Stable,
		Summary: "A point mass falling under gravity in one dimension, pushed by an optional external force, " +
			"with an optional perfectly rigid collision surface supplied as the boundary input table_position.",
		Equations: []string{
			`\dot{v} = g + F/m, \qquad \dot{x} = v`,
			`x < x_{\text{table}}: \qquad x \leftarrow x_{\text{table}}, \qquad v \leftarrow -e\,v`,
			`v \leftarrow 0 \quad \text{when} \quad |v| \le 10^{-4}`,
			`x^{n} \le x_{\text{table}},\ v^{n} \ge 0,\ x^{n+1} < x_{\text{table}}: \qquad x^{n+1} \leftarrow x_{\text{table}}, \qquad v^{n+1} \leftarrow 0`,
		},
		EquationNotes: "$x$ is the height of the ball (m) and $v$ its vertical velocity (m/s); $g$ is the " +
			"gravitational acceleration (`gravity`, m/s², negative points down); $F$ is the external force along the " +
			"ball's axis (the additive input `force`, N, positive up, 0 when nothing is connected) and $m$ the mass " +
			"(`mass`, kg); $e \\in [0, 1]$ is the " +
			"coefficient of restitution (`elasticity`); $x_{\\text{table}}$ is the surface height, the boundary " +
			"input `table_position`. Contact is $x < x_{\\text{table}}$, strictly. At an impact speed $|v|$ of at " +
			"most $10^{-4}$ m/s (`RestSpeed`) the bounce is replaced by $v \\leftarrow 0$, which is what stops the ball " +
			"chattering on the surface; the threshold is compared with the impact speed, before restitution, as " +
			"in the MADDENING BallNode (MADD-NODE-001 1.0.0), whose update bounces only when $|v| > 10^{-4}$. " +
			"The last equation is resting contact in `Update`: a ball that starts a step on (or below) the surface " +
			"and does not move into it ($v^n \\ge 0$) but ends the step under it stays on it at rest; the step's own " +
			"acceleration carried it under, which the normal force balances. " +
			"When `table_position` is not connected there is no surface and no contact.",
		Discretization: "semi-implicit-euler",
		DiscretizationNotes: "Semi-implicit (symplectic) Euler: the velocity is advanced first and the position is " +
			"advanced with the already-updated velocity, $v^{n+1} = v^n + (g + F^n/m)\\,\\Delta t$, " +
			"$x^{n+1} = x^n + \\Delta t\\, v^{n+1}$. Without contact this is the semi-implicit-euler step of " +
			"`Derivatives`. Contact is resolved once per step, after the integration: if " +
			"$x^{n+1} < x_{\\text{table}}$ then $x^{n+1} \\leftarrow x_{\\text{table}}$ and " +
			"$v^{n+1} \\leftarrow -e\\,v^{n+1}$, replaced by $0$ when $|v^{n+1}| \\le 10^{-4}$, or when the ball started the " +
			"step in contact without moving into the surface ($x^n \\le x_{\\text{table}}$, $v^n \\ge 0$): its rebound " +
			"would be slower than $|g + F/m|\\,\\Delta t$, a bounce shorter than the step, so the step cannot resolve " +
			"it and the ball rests. The force $F^n$ is the " +
			"input at the start of the step, held over it. Each product is " +
			"rounded before it is added (no fused multiply-add), so results are bit-identical across platforms. " +
			"Declared order of accuracy: no spatial order (the node integrates an ODE); temporal order 1, " +
			"globally, in the smooth (collision-free) regime only: a contact is a non-smooth event and no order " +
			"is claimed across one.",
		Order: node.Order{Temporal: 1, Note: "1st order globally in the smooth regime; no order is claimed across a contact"},
		Assumptions: []string{
			"Point mass: no rotational dynamics",
			"Perfectly rigid collision surface, at rest: restitution acts on the ball's absolute velocity",
			"Constant coefficient of restitution (not velocity-dependent)",
			"One translational degree of freedom",
			"No air resistance or drag",
			"Gravity is uniform and constant within a step; it may change between steps through SetParams",
			"The force input is held at its value at the start of the step; only its component along the ball's axis acts",
		},
		Limitations: []string{
			"One degree of freedom: a connector's force on a ball marker acts through its component along the " +
				"marker's axis (`MarkerLoad` writes $\\mathbf{f}\\cdot\\mathbf{a}$ into `force`); the component across " +
				"the axis is the reaction of the guide that keeps the ball on it and moves nothing. Until version 1.1.0 " +
				"the ball had no force input and a connector's force on it was lost (COSIM-ANO-002, resolved).",
			"1st-order integration: the error is $O(\\Delta t)$ in position and velocity.",
			"Tunnelling: contact is tested once per step, after the integration, so what happens inside a " +
				"step is lost. When $|v|\\,\\Delta t$ exceeds the gap the ball crosses the surface within the " +
				"step and is snapped back to it at the step's end (the surface is the half-space " +
				"$x < x_{\\text{table}}$, so a step never ends below it): the contact is late by up to " +
				"$\\Delta t$, the penetrated distance is discarded and the rebound speed is off by up to " +
				"$e\\,|g|\\,\\Delta t$.",
			"No order across a contact: the restitution law is non-smooth, so the declared order does not " +
				"apply to a step containing a bounce.",
			"Bounces shorter than a step end in rest: a ball that leaves the surface slower than " +
				"$|g + F/m|\\,\\Delta t$ is back under it at the next step's end and is held there at rest (resting " +
				"contact), where the exact motion would make a bounce of height $v^2/2|g|$ (at most $|g|\\,\\Delta t^2/2$, " +
				"0.5 mm at $\\Delta t = 0.01$ s) and further ones. So the ball comes to rest up to a few steps early, and the " +
				"effective rest threshold is $\\max(10^{-4}, |g|\\,\\Delta t)$ m/s in rebound speed. Until version 1.2.0 " +
				"a ball at rest chattered at $e\\,|g|\\,\\Delta t/(1+e)$ whenever $|g|\\,\\Delta t > 10^{-4}$ (COSIM-ANO-004, " +
				"resolved).",
			"`Derivatives` is the collision-free right-hand side $[v, g + F/m]$ (COSIM-ANO-001), except for " +
				"resting contact (at rest on or below the surface under a downward net acceleration it is zero, the state " +
				"the rest rule produces). It reads the current, possibly overridden, `gravity` as `Update` " +
				"does, but never `elasticity`, so an integrator stepping it passes through the surface: from 0.001 above the " +
				"table at −1 m/s, one 0.01 s forward-Euler step of `Derivatives` lands at −0.009, where " +
				"`Update` bounces to 0.0. Use `Update`, or an event-localizing integrator with `EventValues` " +
				"and `Reset`, for anything that reaches the table.",
			"Fixed-step parameter sensitivities through a bounce omit the contact-time derivative " +
				"(MADD-ANO-021). Contact is a per-step branch, so differentiating the fixed-step map follows " +
				"the branch each step took and never sees the moment of contact. With $\\Delta t = 10^{-3}$, a " +
				"drop from 1.0 and one bounce before $T = 0.8$ s, $\\partial x(T)/\\partial h$ is exactly 0 " +
				"against the exact $+0.5892$, and $\\partial x(T)/\\partial |g|$ is $+0.0651$ against $+0.0051$; " +
				"$\\partial x(T)/\\partial e$ is right, because the contact time does not depend on $e$. Nothing " +
				"warns. Localize the contact as an event (`EventValues`, `Reset`) for sensitivities across it.",
			"Restitution does not look at the direction of motion and the surface is assumed at rest: a " +
				"`table_position` that rises into the ball within a step snaps the ball up and reverses its " +
				"velocity without transferring the surface's motion.",
		},
		Regimes: []node.Regime{
			{Param: paramElasticity, Range: "$0$ – $1$", Notes: "$e = 0$ perfectly inelastic, $e = 1$ perfectly elastic"},
			{Param: "timestep", Range: "$10^{-4}$ – $10^{-1}$ s", Notes: "Tested range; smaller is more accurate"},
		},
		StabilityConditions: []string{
			"The collision-free scheme is unconditionally stable: the acceleration does not depend on the " +
				"ball's own state, so there is no amplification factor to bound. A stiff connector on the ball's " +
				"`force` input does bound the step: the connector states that limit, from the ball's mass " +
				"(`MarkerInverseMass`).",
			"The practical limit is accuracy at contact, not stability: keep $|v|\\,\\Delta t$ well below the " +
				"distance to the surface; bounces slower than $|g|\\,\\Delta t$ are not resolved (resting contact).",
		},
		StableStep: &node.StableStep{
			Unconditional: true,
			Notes: "Semi-implicit Euler under a state-independent acceleration $g + F/m$ is stable at every step. " +
				"A connector that pushes the ball with a force depending on its position (a spring) states its own " +
				"limit, in which the ball enters through its mass $m$.",
		},
		Mapping: []node.Mapping{
			{Term: `\dot v = g + F/m` + " (gravity and force)", Identifier: id + "Node.Update", Notes: "`vel + (g + f/mass)*dt`; `gravity` can be overridden with `SetParams`"},
			{Term: `F` + " (external force)", Identifier: id + "Node.MarkerLoad", Notes: "Input `force`, Additive, default 0; a connector's load is $\\mathbf{f}\\cdot\\mathbf{a}$ along the marker axis $\\mathbf{a}$"},
			{Term: `\dot x = v` + " (kinematics)", Identifier: id + "Node.Update", Notes: "`pos + dt*v`, using the new velocity"},
			{Term: "Contact detection", Identifier: id + "Node.Update", Notes: "`p < table`, strict, once per step after the integration"},
			{Term: `v \to -e v` + " (restitution)", Identifier: id + "Node.Update", Notes: "`-e*v`; at an impact speed up to `RestSpeed` the velocity is zeroed instead"},
			{Term: `10^{-4}` + " (rest threshold)", Identifier: id + "RestSpeed", Notes: "Compared with the impact speed, before restitution"},
			{Term: "Resting contact in a step", Identifier: id + "Node.Update", Notes: "`pos <= table && vel >= 0` at the start of a step that ends below the table: the velocity is zeroed"},
			{Term: `x_{\text{table}}` + " (surface)", Identifier: id + "Node.Spec", Notes: "Input `table_position`, Replacing, Absent: leaving it unconnected disables contact"},
			{Term: "Continuous right-hand side", Identifier: id + "Node.Derivatives", Notes: "Collision-free `[v, g + F/m]` (COSIM-ANO-001)"},
			{Term: `x - x_{\text{table}}` + " (contact event)", Identifier: id + "Node.EventValues", Notes: "Direction −1; +1 when there is no table"},
			{Term: "Restitution at a located contact", Identifier: id + "Node.Reset", Notes: "The same law as `Update`"},
			{Term: "Injected parameters", Identifier: id + "Node.SetParams", Notes: "Given values override the node's own; all are validated before any is applied"},
		},
		References: []node.Reference{
			{
				Key:  "Hairer2006",
				Text: "Hairer, E., Lubich, C. and Wanner, G. (2006). Geometric Numerical Integration. Springer.",
				Note: "Chapter VI: the order and the structure-preserving behaviour of the symplectic Euler scheme this node implements.",
			},
			{
				Key:  "LeVeque2007",
				Text: "LeVeque, R.J. (2007). Finite Difference Methods for Ordinary and Partial Differential Equations. SIAM.",
				Note: "Convergence theory for one-step ODE methods.",
			},
			{
				Key:  "Roache2002",
				Text: "Roache, P.J. (2002). Code verification by the Method of Manufactured Solutions. J. Fluids Eng.",
				Note: "The method the order claim above is measured with.",
			},
		},
		Anomalies: []string{"MADD-ANO-011", "MADD-ANO-013", "MADD-ANO-018", "MADD-ANO-021", "COSIM-ANO-001", "COSIM-ANO-002", "COSIM-ANO-004"},
		Evidence:  []string{"MADD-VER-010", "MADD-VER-012"},
		Changelog: []node.Change{
			{Version: "1.0.0", Date: "2025-03-01", Change: "Initial implementation"},
			{Version: "1.0.0", Date: "2026-09-20", Change: "Declared order of accuracy added and measured (MADD-VER-010); MADD-ANO-011 recorded"},
			{
				Version: "1.0.0", Date: "2026-12-02",
				Change: "Ported to cosim (Go). Metadata names semi-implicit-euler, the scheme Update runs, so " +
					"MADD-ANO-011 cannot recur; gravity is float64 throughout (MADD-ANO-013); Derivatives " +
					"honours parameter overrides exactly as Update does (MADD-ANO-018); the collision-free " +
					"Derivatives recorded as COSIM-ANO-001; resting contact in Derivatives so that event-localizing " +
					"integrators keep a ball that came to rest on the table.",
			},
			{
				Version: "1.1.0", Date: "2026-12-03",
				Change: "Additive input `force` and parameter `mass` (default 1 kg): the acceleration is $g + F/m$, and " +
					"`MarkerLoads` is `force`, so a connector's force on a ball marker reaches the ball (COSIM-ANO-002 " +
					"resolved). The rest rule compares the impact speed with $10^{-4}$ m/s (bounce when $|v| > 10^{-4}$), " +
					"as the MADDENING implementation does, instead of the rebound speed $|e\\,v|$. Without a force " +
					"input the trajectories are bit-identical to 1.0.0 except where $|e\\,v| < 10^{-4} < |v|$ at a contact.",
			},
			{
				Version: "1.2.0", Date: "2026-12-04",
				Change: "Resting contact in `Update`: a ball that starts a step on the surface without moving into it and " +
					"ends the step under it stays there at rest, instead of rebounding at $e\\,|g + F/m|\\,\\Delta t$, so a ball " +
					"at rest no longer chatters at $e\\,|g|\\,\\Delta t/(1+e)$ above $\\Delta t = 1.02 \\times 10^{-5}$ s " +
					"(COSIM-ANO-004 resolved). Trajectories are bit-identical to 1.1.0 up to the first contact that starts " +
					"on the surface, that is until the bounces are shorter than a step.",
			},
		},
	}
}
