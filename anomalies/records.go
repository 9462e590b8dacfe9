package anomalies

// records is the registry. Add a record with its pinning test in the same
// commit; TestRecords, docs.TestAnomalyCrossReferences and
// verification.TestAnomalyTestsExist hold
// every record to its test and every node's metadata to the records.
var records = []Entry{
	{
		ID:    "MADD-ANO-011",
		Title: "Metadata names a different scheme from the one Update runs",
		Description: "In MADDENING's BallNode (MADD-NODE-001 1.0.0), `NodeMeta.discretization` named forward Euler while `update()` ran semi-implicit Euler: " +
			"both first order, but the sign of the leading position error, the long-run energy behaviour and agreement with " +
			"`integrate_node(..., method=\"euler\")` were not what the metadata implied. In cosim, `Metadata.Discretization` holds the " +
			"integrators package's method name and a conformance test steps every node's `Update` against that method applied to its " +
			"`Derivatives`, so the mismatch cannot be built.",
		Severity:   Major,
		Components: []string{"ball", "node", "verification"},
		Status:     Resolved,
		Found:      "MADDENING 0.3",
		Fixed:      "0.1.0",
		Test:       "github.com/cosimgo/cosim/verification.TestUpdateMatchesNamedScheme",
		Source:     "MADDENING BallNode guide (module maddening.nodes.ball, algorithm MADD-NODE-001, node version 1.0.0, MADDENING 0.4 documentation), Discretization (Warning)",
	},
	{
		ID:    "MADD-ANO-013",
		Title: "Injected gravity added in a different dtype",
		Description: "MADDENING's BallNode `derivatives()` once added an injected gravity in a dtype other than the velocity's (the " +
			"BallNode instance of this anomaly). cosim computes in float64 throughout; the regression test checks the " +
			"injected gravity reaches `Derivatives` bit for bit.",
		Severity:   Minor,
		Components: []string{"ball"},
		Status:     Resolved,
		Found:      "MADDENING (before 0.4.0)",
		Fixed:      "0.1.0",
		Test:       "github.com/cosimgo/cosim/verification.TestInjectedGravityFloat64",
		Source:     "MADDENING BallNode guide (module maddening.nodes.ball, algorithm MADD-NODE-001, node version 1.0.0, MADDENING 0.4 documentation), Known Limitations (derivatives()); resolved there in MADDENING 0.4.0",
	},
	{
		ID:    "MADD-ANO-018",
		Title: "Derivatives ignore injected parameters",
		Description: "MADDENING's BallNode `derivatives()` once read only the node's own parameters, not the injected ones by the " +
			"`{**self.params, **params}` rule `update()` uses, so a gravity injected through params changed `update()` but " +
			"not the continuous right-hand side. In cosim, `Update` and `Derivatives` read the same parameter values, " +
			"including overrides set with `SetParams`, for every registered node type.",
		Severity:   Major,
		Components: []string{"ball", "node"},
		Status:     Resolved,
		Found:      "MADDENING (before 0.4.0)",
		Fixed:      "0.1.0",
		Test:       "github.com/cosimgo/cosim/verification.TestParameterInjection",
		Source:     "MADDENING BallNode guide (module maddening.nodes.ball, algorithm MADD-NODE-001, node version 1.0.0, MADDENING 0.4 documentation), Known Limitations (derivatives()); resolved there in MADDENING 0.4.0",
	},
	{
		ID:    "MADD-ANO-021",
		Title: "Fixed-step bounce sensitivities miss the contact-time derivative",
		Description: "Contact is a per-step branch in `Update`, so a sensitivity of the state after a bounce, taken through the " +
			"fixed-step co-simulation (by finite differences here, by `jax.grad` in MADDENING, a JAX code), never sees the moment of contact. " +
			"With $\\Delta t = 10^{-3}$, a drop from 1.0 and one bounce before $T = 0.8$ s, $\\partial x(T)/\\partial h$ is $0$ against " +
			"the exact $+0.5892$ and $\\partial x(T)/\\partial |g|$ is $+0.0651$ against $+0.0051$. " +
			"Resolution: `graph.Sim.Sensitivities` integrates the forward sensitivities with the state and maps them through every " +
			"located contact with the saltation jump, so the contact time's dependence on the parameters is part of the derivative: " +
			"it gives the exact values (to $10^{-8}$ relative, against closed forms through one and three bounces), with adaptive " +
			"Dormand–Prince and with the fixed-step methods, which locate the contact by re-stepping. The fixed-step " +
			"co-simulation path still shows the anomaly, by design: an `Update` is not differentiated, and `Sensitivities` rejects " +
			"co-simulation (`graph.ErrNotDifferentiable`) instead of returning its numbers.",
		Severity:   Major,
		Components: []string{"ball", "graph"},
		Status:     Resolved,
		Found:      "MADDENING 0.4",
		Fixed:      "0.1.0",
		Workaround: "For sensitivities through contact use graph.Sim.Sensitivities (or cosim sensitivity), not differences " +
			"of fixed-step co-simulation runs.",
		Test:   "github.com/cosimgo/cosim/verification.TestAnomalyMADDANO021",
		Source: "MADDENING BallNode guide (module maddening.nodes.ball, algorithm MADD-NODE-001, node version 1.0.0, MADDENING 0.4 documentation), Known Limitations (MADD-ANO-021)",
	},
	{
		ID:    "COSIM-ANO-001",
		Title: "The ball's Derivatives pass through the table",
		Description: "`Derivatives` is the collision-free right-hand side $[v, g]$: it never reads `elasticity`, and reads " +
			"`table_position` only for resting contact (a ball at rest, $v = 0$ exactly, on or below the table under " +
			"gravity $g \\le 0$ gets $[0, 0]$, the state the rest rule produces). A moving ball gets $[v, g]$ wherever it is, " +
			"so an integrator stepping `Derivatives` passes through the table: from 0.001 above the table at −1 m/s, one " +
			"0.01 s forward-Euler step of `Derivatives` lands at −0.009, where `Update` bounces to 0.0.",
		Severity:   Minor,
		Components: []string{"ball"},
		Status:     WontFix,
		Found:      "MADDENING 0.4",
		Workaround: "Use `Update` (co-simulation) or an event-localizing integrator, which applies the ball's contact event " +
			"and reset, for anything that reaches the table.",
		Test:   "github.com/cosimgo/cosim/verification.TestAnomalyCOSIMANO001",
		Source: "MADDENING BallNode guide (module maddening.nodes.ball, algorithm MADD-NODE-001, node version 1.0.0, MADDENING 0.4 documentation), Known Limitations (derivatives())",
	},
	{
		ID:    "COSIM-ANO-002",
		Title: "A spring-damper's force on a ball marker is lost",
		Description: "Until ball 1.1.0 the ball had no force input (`MarkerLoads` was empty), so a spring-damper with a " +
			"marker on a ball had no load output for that marker and `springdamper.Connect` wired none: the ball drove " +
			"the connector as prescribed motion and the connector's force on it went nowhere, without an error or a " +
			"warning. A vertical spring of $k_z = 1000$ N/m from a ball at 0 to the world point $(0, 0, 1)$ pulled the " +
			"ball up with 1000 N, and the ball fell freely, bit for bit; the pair of forces was not equal and opposite. " +
			"Fixed by giving the ball an additive input `force` (N, along its axis) and a `mass` parameter: its " +
			"`MarkerLoads` is `force` and `MarkerLoad` writes the component of the connector's force along the marker " +
			"axis, so the ball obeys $\\ddot x = g + F/m$. The regression test runs that spring on a 1 kg ball for 0.1 s " +
			"and matches the semi-implicit Euler recurrence under the spring's force to $10^{-12}$ m.",
		Severity:   Major,
		Components: []string{"springdamper", "ball"},
		Status:     Resolved,
		Found:      "0.1.0",
		Fixed:      "0.1.0",
		Test:       "github.com/cosimgo/cosim/verification.TestAnomalyCOSIMANO002",
	},
	{
		ID:    "COSIM-ANO-003",
		Title: "A marker on a planar body drops the out-of-plane force component",
		Description: "rigidbody2d's `MarkerLoad` turns the connector's force $\\mathbf{f}$ at a body point into the force " +
			"$(f_x, f_y)$ and the torque $(R\\mathbf{r}) \\times \\mathbf{f}$ about $z$ only: $f_z$, and the in-plane moment " +
			"it carries, reach nothing, without an error. A spring of $k_z = 1000$ N/m between the body point " +
			"$(1, 0, 0)$ and the world point $(1, 0, 1)$ pushes the marker with $(0, 0, 1000)$ N (moment " +
			"$(0, -1000, 0)$ N·m) and the body receives zero force and torque. For a body confined to its plane this " +
			"is the plane's reaction, by design; but against a body that can take $f_z$ (a rigidbody or masspoint on " +
			"the other marker) the pair of forces is not equal and opposite.",
		Severity:   Minor,
		Components: []string{"springdamper", "rigidbody2d"},
		Status:     WontFix,
		Found:      "0.1.0",
		Workaround: "Keep both markers of a connector on a planar body in the plane $z = 0$ and give the spring no " +
			"z stiffness or damping, or use rigidbody with constraints {z: 0, rx: 0, ry: 0} (rigidbody2d's replacement), " +
			"whose constraint reactions are explicit.",
		Test: "github.com/cosimgo/cosim/verification.TestAnomalyCOSIMANO003",
	},
	{
		ID:    "COSIM-ANO-004",
		Title: "A ball at rest kept a spurious upward velocity above the rest threshold's step",
		Description: "The rest rule ($v \\leftarrow 0$ at an impact speed of at most $10^{-4}$ m/s) held a ball on the table " +
			"only when $|g|\\,\\Delta t \\le 10^{-4}$, that is $\\Delta t \\le 1.02 \\times 10^{-5}$ s for $g = -9.81$, below " +
			"the whole validated timestep range. At larger steps a ball at rest fell below the surface within each " +
			"step, was snapped back and rebounded: $v_{k+1} = e(|g|\\Delta t - v_k)$, which tends to " +
			"$e\\,|g|\\,\\Delta t/(1+e)$, 0.0436 m/s for the defaults at $\\Delta t = 0.01$ s (0.0327 m/s for $e = 0.5$), " +
			"instead of 0. The position read exactly the table's every step, so only the velocity (and the kinetic energy) " +
			"was wrong, and nothing warned. Resolution (ball 1.2.0): resting contact in `Update`: a ball that starts a step on " +
			"the surface without moving into it and ends the step under it stays there at rest, as the normal force " +
			"would hold it; only bounces shorter than a step (rebound below $|g|\\,\\Delta t$) are given up. The " +
			"regression test holds a resting ball at exactly $[0, +0]$ at steps from $1.05 \\times 10^{-5}$ to 0.1 s, and " +
			"drops a ball with $e = 0.5$ from 10 m: it comes to rest and stays, at a time that converges to the closed form " +
			"(4.2835 s) as the step shrinks.",
		Severity:   Major,
		Components: []string{"ball"},
		Status:     Resolved,
		Found:      "0.1.0",
		Fixed:      "0.1.0",
		Test:       "github.com/cosimgo/cosim/verification.TestAnomalyCOSIMANO004",
	},
	{
		ID:    "COSIM-ANO-005",
		Title: "Simultaneous events: the integrators applied one reset per located time",
		Description: "When several events crossed at the same time, the adaptive and the fixed-step drivers of package integrators " +
			"applied the reset of one of them (the first in index order) and ended the step there; the others then read zero (or " +
			"a hair past it) at the step's start, were unarmed, and fired only if their function left zero and crossed again. " +
			"No event could fire at the start of a run either. Sampled control blocks (`zoh`, `unitdelay`, `transportdelay`) " +
			"that share a sample instant met this at every instant and worked around it with a ladder of four time-event rungs " +
			"after each instant: adaptive runs took shared samples up to $8 \\cdot 10^{-9}\\max(1, |t|)$ s late and the one due " +
			"at the start 2e-9 s late, and with a fixed-step method a third block sharing an instant had its sample skipped " +
			"(ErrSampleSkipped). Resolution: every driver applies every event due at a located instant, in index order, and " +
			"repeats the event functions' check at the instant in rounds until no event fires (FMI's event iteration), ending " +
			"the run with ZenoDetected, naming the events, after EventCount + ZenoLimit rounds; events due at the start of a run " +
			"(zero there, arriving from their near side, as a time event on the start time) fire at the start; and the " +
			"fixed-step methods end a sub-step on every time event. The sampled blocks' ladder is gone: the regression test runs " +
			"nine sampled blocks, eight of them sharing instants and the start, through RK4 (with steps that do and do not divide " +
			"the periods), backward Euler and adaptive Dormand–Prince, ESDIRK43 and BDF, and checks every sample event and every " +
			"output against the closed form to $10^{-13}$.",
		Severity:   Major,
		Components: []string{"integrators", "zoh", "unitdelay", "transportdelay"},
		Status:     Resolved,
		Found:      "0.1.0",
		Fixed:      "0.1.0",
		Test:       "github.com/cosimgo/cosim/nodes/control.TestAnomalyCOSIMANO005",
	},
}
