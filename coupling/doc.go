// Package coupling describes how the nodes of a cosim graph exchange
// values within a step — the co-simulation strategy — and implements the
// numerics of interface-value acceleration. It does not run anything: the
// graph package compiles a [Strategy] into an execution plan when a run
// starts (graph.CoSimulation.Coupling; graph.Sim.Schedule prints the plan)
// and executes it on its worker pool; a scene file selects one in its
// run.coupling section (scene.Coupling).
//
// # Overview
//
// A [Strategy] is a plain value with stable names, so that command lines
// and scene files can select one: [ParseStrategy]("iterative:aitken,
// atol=1e-9"), [ByName]("gauss-seidel"). Its parts are a [Scheme]
// ([Jacobi], [GaussSeidel], [Iterative]), Gauss–Seidel stages (Order),
// iterated [Group]s with their [Iteration] settings ([Acceleration],
// tolerances, [Predictor], [Policy]), and multirate Rates with an
// [Interpolation]. The numerics are [Accelerator]s built by
// [NewAccelerator], [Converged] and [Predictor.Predict]: pure functions
// and objects over []float64, usable without a graph.
//
// In cosim "coupling" means this package's subject only: how nodes
// exchange values within a step — the strategy, its groups, its
// statistics (graph.CouplingStats) and its cross-step memory
// (graph.CouplingCheckpoint). How several edges into one input combine
// (additive or replacing) is node.Combine; a "method" is an integration
// method (package integrators), and an iteration's acceleration is named
// by an [Accel]. docs/glossary.md lists the words.
//
// # What each node sees within a step t_n → t_n+Δt
//
// Jacobi (the default): outputs are evaluated from the state at t_n (in
// feedthrough order), then every stateful node advances with its inputs
// at t_n, all concurrently. No node sees another's new state. First
// order in Δt for first-order nodes, whatever their own order.
//
// Gauss–Seidel: the stateful nodes update in declared stages. Stage k
// reads the state at t_{n+1} of every node in stages 1…k−1 and at t_n of
// the rest; before stage k the graph re-evaluates only the output nodes
// upstream of stage k's nodes whose values depend on state changed by
// earlier stages (a set computed when the run starts). Each is evaluated
// at the time of its own state: a stateful output node that an earlier
// stage updated at t_{n+1}, every other one (connectors, which have no
// state of their own and whose readers step from t_n; nodes not yet
// updated) at t_n. So a time-dependent output of an updated node agrees
// with its state, and a connector is evaluated at the start time of the
// update that reads it. Nodes of one stage update concurrently. Still
// first order, but the order matters: updating the heavier body first is
// usually more stable.
//
// Iterative: each [Group] is re-advanced from its start-of-step state
// until its interface values converge. The interface u is the inputs of
// the group's stateful nodes that have an edge from a group node (an
// additive input with such an edge counts whole). One iteration is
//
//	u^{k+1} = acc(u^k, G(u^k))
//
// where G advances the group's stateful nodes from x_n by Δt with the
// interface inputs held at u^k (their other inputs at t_n), evaluates the
// group's output nodes at the resulting state at t_{n+1}, and returns the
// interface inputs gathered there. At the fixed point the inputs a node
// used over the step are those of its end-of-step state: the coupling is
// implicit. For semi-implicit-Euler masses joined by a spring-damper
// connector, the converged group is exactly backward Euler on the
// monolithic system (tested against the integrators package's backward
// Euler through graph.Sim.System()). The state accepted is the one G
// computed from the last iterate. Nodes outside groups step as Jacobi
// (first, from t_n); a group sees the others at t_n. Put the connectors
// between group members into the group: an edge through a connector
// outside the group is not iterated. Groups may not share a node.
//
// # Convergence
//
// A group has converged when every interface value satisfies
// |G(u)_i − u_i| ≤ ATol + RTol·|G(u)_i| (defaults [DefaultATol],
// [DefaultRTol]); the check runs after every evaluation of G, so a step
// ends as soon as it holds (one evaluation when the prediction is already
// converged). MaxIter ([DefaultMaxIter]) bounds the evaluations per step.
// With ATol = 0 the test is scale-invariant: the same problem in other
// units (all values times 1e-10 or 1e10) converges after the same
// iterations (TestConvergedBoundaries, TestIQNILSScaleInvariant).
// Without convergence, [Stop] (the default) ends the run with an error
// wrapping [ErrNotConverged] (graph.ConvergenceError names the group,
// step, time, iterations and residual) and keeps the state at t_n;
// [Accept] takes the last iterate and counts the step in the run's
// statistics (graph.GroupStats: steps, total, maximum and last
// iterations, last residual max|G(u)−u|, non-converged steps, IQN-ILS
// fallbacks). Step by step, graph.CoSimulation.OnGroupStep receives every
// group's iterations, final residual and convergence for every step.
//
// The first iterate comes from the [Predictor]: [Constant] uses the
// interface values at t_n; [LinearPredictor] extrapolates 2·u_n − u_{n−1}
// from the values at the starts of this and the previous step (Constant
// on the first step after the coupling memory was reset; see
// Checkpoints).
//
// # Limits
//
// One step's work is bounded: Iteration.MaxIter is at most
// [MaxIterLimit] (10 000) and a rate at most [MaxRate] (10⁶ substeps
// per macro step); Validate names the limit a strategy exceeds. The graph
// checks for cancellation between iterations and between substeps, so a
// step at the limits still stops promptly.
//
// # Acceleration
//
// Acceleration.Accel ([Accel]) names how a group's next iterate is
// computed from the current one and its image; [AccelStats] and
// [AccelState] name it too.
//
// [Relaxation]: u^{k+1} = u^k + ω·r^k with r = G(u) − u and a constant ω
// (Acceleration.Omega; 1, plain fixed-point iteration, by default).
//
// [Aitken]: relaxation with Aitken's dynamic factor (Irons–Tuck form, as
// in Küttler & Wall 2008),
//
//	ω_k = −ω_{k−1} · r_{k−1}ᵀ(r_k − r_{k−1}) / ‖r_k − r_{k−1}‖².
//
// The first iteration of the first step uses ω0 = Acceleration.Omega
// (default [DefaultOmega0] = 0.5); the first iteration of each later step
// uses sign(ω)·min(|ω|, ω0) of the previous step's last factor. Bounds:
// 0 < |ω| ≤ OmegaMax (default [DefaultOmegaMax] = 4); a factor that is
// zero or not finite (no change in the residual) keeps the previous one.
// There is no lower clamp: strongly coupled problems need small factors
// (ω ≈ 1/(1 − λ) for a dominant eigenvalue λ of G's Jacobian).
//
// [IQNILS]: interface quasi-Newton with an inverse Jacobian from least
// squares (Degroote, Bathe & Vierendeels 2009). The columns are
// differences of successive residuals and images, newest first,
// V_i = r_{i+1} − r_i and W_i = G(u_{i+1}) − G(u_i), and
//
//	u^{k+1} = G(u^k) + W·α,  α = argmin ‖V·α + r^k‖₂,
//
// solved by QR with gonum's mat.QR. Column filtering: after each
// factorization, the first column whose |R_ii| (its part orthogonal to the
// newer columns) is at most Filter·‖V_i‖ (default [DefaultFilter]) is
// dropped and the QR is redone. The filter is relative, so it drops the
// same columns at any scale of the interface values. At most MaxColumns
// columns are kept (default the interface dimension, so the problem is
// never underdetermined). Reuse > 0 keeps the columns of that many past steps
// (IQN-ILS(q)); then even a step's first iteration is a quasi-Newton step.
// Without columns (the first iteration), or when the least-squares step
// is not finite, the iteration falls back to relaxation with ω0 and the
// fallback is counted. All matrices are allocated when the accelerator
// is built; gonum's QR allocates a few small slices per factorization.
//
// Measured iteration counts (generated by TestIterationTable, which also
// checks that converged runs equal backward Euler): see [IterationTable]
// and ITERATIONS.md. On the strongly coupled two-body problem (mass
// ratio 100, k·Δt²/m = 1) plain iteration diverges, Aitken converges in
// about 6 iterations per step and IQN-ILS in 4 (under 3 with reuse).
//
// # Multirate
//
// Rates gives integer substeps per macro step Δt for stateful nodes
// (default 1). Under Jacobi nodes are advanced by rate class, slowest
// first: the rate-1 class steps as Jacobi from t_n; a class of rate r
// then takes r substeps of h = Δt/r. At substep j (time τ_j = t_n + j·h)
// its nodes read their own current state, slower classes' state held at
// t_n ([Hold]) or linearly interpolated between t_n and t_{n+1} to τ_j
// ([Linear]; the slower nodes are already advanced, so both end points
// are computed values, not predictions), and faster classes at t_n; every
// output node upstream of the class is re-evaluated from that view at τ_j
// before the substep. Only nodes due for an update are computed: a node
// of rate r is updated exactly r times per macro step
// (graph.CouplingStats.Updates counts them). Ordering by rate, slowest
// first, with the faster classes reading the slower ones' new state, is
// itself a Gauss–Seidel order, so Rates with [GaussSeidel] stages is
// rejected ([ErrUnsupported]): the two orders would contradict each
// other.
//
// Inside an iterated group (Iterative), one evaluation of G advances the
// group's members by rate class, slowest first, each from x_n. The
// slowest class reads the interface iterate: with rate 1 held at u^k (as
// without multirate, whatever the interpolation); subcycling, at substep
// j held at u^k ([Hold]) or interpolated between the start-of-step value
// u_n and u^k to the substep's end, u_n + (j+1)/r·(u^k − u_n) ([Linear]).
// Each faster class subcycles reading the slower members at their state
// of this evaluation (the current iterate of the end-of-step value) held
// ([Hold]) or interpolated between x_n and it to the substep's end τ_{j+1}
// ([Linear]) — the end, not the start as under Jacobi, because the group
// is implicit: with one substep both give the end-of-step iterate — its
// own class at the current substep state, faster members and nodes
// outside the group at t_n; the output nodes upstream of it (also outside
// the group) are re-evaluated from that view at τ_j, so a stiff fast
// subsystem (a node and its connectors) is resolved at every substep.
// The interface the group iterates on is the slowest class's: the faster
// members gather their inputs afresh at every substep. The group's
// outputs and interface are then evaluated from the trial state at
// t_{n+1} as without multirate, and the group iterates on those
// end-of-step values. Each iteration updates a member of rate r r times
// (Updates = r × iterations). Nodes outside the groups step as multirate
// Jacobi: their rate-1 class first, their subcycling classes after the
// groups (reading slower nodes, group members included, held or
// interpolated), so that their substeps do not disturb the t_n outputs
// the groups read.
//
// # Checkpoints
//
// The graph keeps a coupled run's cross-step memory in the graph.Sim
// between Run calls while the strategy (compared by [Strategy.String],
// with a nil strategy meaning Jacobi) and the step stay the same and
// nothing else changed the state, so that Run(N) then Run(M) is Run(N+M)
// bit for bit: each group's interface at the start of the last step (the
// [LinearPredictor]'s u_{n−1}) and its accelerator's memory — Aitken's
// last factor, IQN-ILS's step count and the columns kept with Reuse > 0
// ([AccelState], through [StateSaver]); relaxation carries nothing.
// Jacobi, Gauss–Seidel and multirate carry no memory across macro steps
// (all substeps of a step are taken within it; there is no phase or
// counter to resume). graph.Sim.Checkpoint stores the memory with the
// strategy (graph.CouplingCheckpoint) and graph.Sim.Restore loads it,
// and continuing gives the uninterrupted run's bits for every strategy.
// A restored memory continues only under the same strategy and step: a
// Run with another is an error naming the difference (never a silent
// restart); graph.Sim.ResetCoupling drops the memory deliberately. A run
// whose step failed keeps no memory.
//
// # Determinism and concurrency
//
// A Strategy is a value; the graph copies what it needs when a run
// starts and resolves every name to an index then: no map or string
// look-up and no allocation per step for Jacobi, Gauss–Seidel, multirate
// and the relaxation and Aitken iterations (IQN-ILS allocates inside
// gonum's QR). Node evaluations of one stage run concurrently on the
// graph's workers, each writing only its own slots; everything that
// reduces across nodes — the interface vector, convergence checks and the
// accelerators' arithmetic — runs on one goroutine in a fixed order.
// Results are therefore bit-identical for any number of workers (tested
// with 1, 2 and 8 for every strategy, multirate inside groups included).
// An [Accelerator] is not safe for concurrent use; a graph owns one per
// group.
package coupling
