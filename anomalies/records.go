package anomalies

// records is the registry. Add a record with its pinning test in the same
// commit; TestRecords, docs.TestAnomalyCrossReferences and
// verification.TestAnomalyTestsExist hold
// every record to its test and every node's metadata to the records.
var records = []Record{
	{
		ID:    "MADD-ANO-011",
		Title: "Metadata names a different scheme from the one Update runs",
		Description: "In the seed's BallNode, `NodeMeta.discretization` named forward Euler while `update()` ran semi-implicit Euler: " +
			"both first order, but the sign of the leading position error, the long-run energy behaviour and agreement with " +
			"`integrate_node(..., method=\"euler\")` were not what the metadata implied. In cosim, `Metadata.Discretization` holds the " +
			"integrators package's method name and a conformance test steps every node's `Update` against that method applied to its " +
			"`Derivatives`, so the mismatch cannot be built.",
		Severity:   Major,
		Components: []string{"ball", "node", "verification"},
		Status:     Resolved,
		Found:      "seed (maddening 0.3)",
		Fixed:      "0.1.0",
		Test:       "github.com/cosimgo/cosim/verification.TestUpdateMatchesNamedScheme",
		Seed:       "shared/seeds/ball-node.md, Discretization (Warning)",
	},
	{
		ID:    "MADD-ANO-013",
		Title: "Derivatives ignore injected parameters",
		Description: "The seed's `derivatives()` once read only the node's own parameters, so a gravity injected through params " +
			"changed `update()` but not the continuous right-hand side (the BallNode instance). In cosim, `Update` and " +
			"`Derivatives` read the same parameter values, including overrides set with `SetParams`.",
		Severity:   Major,
		Components: []string{"ball", "node"},
		Status:     Resolved,
		Found:      "seed (maddening)",
		Fixed:      "0.1.0",
		Test:       "github.com/cosimgo/cosim/verification.TestParameterInjection",
		Seed:       "shared/seeds/ball-node.md, Known Limitations (derivatives())",
	},
	{
		ID:    "MADD-ANO-018",
		Title: "Injected gravity added in a different dtype",
		Description: "The seed's `derivatives()` once added an injected gravity in a dtype other than the velocity's. cosim " +
			"computes in float64 throughout; the regression test checks the injected gravity reaches `Derivatives` bit for bit.",
		Severity:   Minor,
		Components: []string{"ball"},
		Status:     Resolved,
		Found:      "seed (maddening)",
		Fixed:      "0.1.0",
		Test:       "github.com/cosimgo/cosim/verification.TestInjectedGravityFloat64",
		Seed:       "shared/seeds/ball-node.md, Known Limitations (derivatives())",
	},
	{
		ID:    "MADD-ANO-021",
		Title: "Fixed-step bounce sensitivities miss the contact-time derivative",
		Description: "Contact is a per-step branch in `Update`, so a sensitivity of the state after a bounce, taken through the " +
			"fixed-step co-simulation (by finite differences here, by `jax.grad` in the seed), never sees the moment of contact. " +
			"With $\\Delta t = 10^{-3}$, a drop from 1.0 and one bounce before $T = 0.8$ s, $\\partial x(T)/\\partial h$ is $0$ against " +
			"the exact $+0.5892$ and $\\partial x(T)/\\partial |g|$ is $+0.0651$ against $+0.0051$. Event-localized integration " +
			"(the ball's contact event) gets the exact values.",
		Severity:   Major,
		Components: []string{"ball", "graph"},
		Status:     Open,
		Found:      "seed (maddening)",
		Workaround: "Integrate the ball with an event-localizing integrator (integrators.DormandPrince with events) when " +
			"sensitivities or contact times matter.",
		Test: "github.com/cosimgo/cosim/verification.TestAnomalyMADDANO021",
		Seed: "shared/seeds/ball-node.md, Known Limitations (MADD-ANO-021)",
	},
	{
		ID:    "COSIM-ANO-001",
		Title: "The ball's Derivatives pass through the table",
		Description: "`Derivatives` is the collision-free right-hand side: it never reads `table_position` or `elasticity`. " +
			"From 0.001 above the table at −1 m/s, one 0.01 s forward-Euler step of `Derivatives` lands at −0.009, where " +
			"`Update` bounces to 0.0.",
		Severity:   Minor,
		Components: []string{"ball"},
		Status:     WontFix,
		Found:      "seed (maddening)",
		Workaround: "Use `Update` (co-simulation) or an event-localizing integrator, which applies the ball's contact event " +
			"and reset, for anything that reaches the table.",
		Test: "github.com/cosimgo/cosim/verification.TestAnomalyCOSIMANO001",
		Seed: "shared/seeds/ball-node.md, Known Limitations (derivatives())",
	},
}
