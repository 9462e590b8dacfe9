// Package graph wires nodes into a simulation and steps it.
//
// # Overview
//
// A [Graph] holds named nodes and edges. An edge connects a source field
// of one node — a state field or an output, "node.field" — to a boundary
// input of another, "node.input", optionally through a [Transform]
// ([Scale], [Component], [Embed] or a user [TransformFunc]).
// [Graph.Build] validates everything at once and compiles a [Sim]; a
// [BuildError] lists every
// problem with close matches for misspelled names: unknown node or field,
// shape mismatch, units that differ between an edge's ends (unless its
// transform declares the conversion), two edges into a replacing input,
// additive and replacing edges mixed, a required input left unconnected,
// and, when the graph asks for it ([LoopSettings] Refuse), algebraic loops
// (a cycle of direct feedthrough, [LoopError], listing its members).
// Otherwise Build compiles each algebraic loop to be solved at every
// output evaluation ([Sim.Loops] lists them; see Algebraic loops below).
//
// [Graph.AddConnector] attaches a connector of any type (a
// node.Connector: springdamper.Params, spring.Params, a registry type's
// connector) between two bodies and connects the links it returns; the
// graph knows the node contract only, never a concrete node type.
//
// A [Subsystem] (subsystem.go) wraps a Graph as a reusable part with
// declared input, output and parameter ports; [Graph.AddSubsystem] adds
// it to a parent, whose edges wire its ports as "name.port". Subsystems
// nest to any depth. Build first flattens them ([Graph.Flatten]): every
// inner node becomes a node named by its path ("leg2.knee.spring") and
// every edge through a port an edge between paths, so the engine and
// everything below see only nodes, and a path splits from its field at
// the last '.'. Port problems are [PortError], reported with the wiring
// problems of the flattened graph.
//
// Build is linear in nodes and edges and allocates per node and edge only
// what the Sim keeps (the W1 chain of benchmarks/doc.go with 100 000
// masses, 200 001 nodes and 600 000 edges, builds in about half a second
// of CPU time with under 1 KB of live heap per node; go run
// ./benchmarks/report measures it). Edges are grouped by input with a counting sort, names resolve
// through a small cache of recently resolved nodes before the name map,
// edge strings are formatted only for error messages, and the Sim keeps
// no copy of the Graph's edges nor of its name map: Build reads the
// Graph's map in place, and the Sim resolves names afterwards (never per
// step) by binary search in its node indices sorted by name.
//
// # Step semantics
//
// Each step from t_n to t_n+dt has two phases:
//
//  1. Outputs are evaluated from the state at t_n, in dependency order:
//     nodes whose outputs read their inputs (connectors, Spec.Feedthrough)
//     gather their inputs first; independent nodes of one depth are
//     evaluated concurrently.
//  2. Every stateful node gathers its inputs (state fields and outputs at
//     t_n) and advances from t_n to t_n+dt with its own Update, all
//     concurrently, each writing only its own slots of the next state.
//
// This is explicit Jacobi co-simulation: no node sees another's new
// state within a step. How the edges into one input combine is the
// input's combine rule (node.Combine; [CombineAs] declares it on an edge):
// additive inputs sum their edges in the order they were connected; a
// replacing input takes its one edge; an unconnected input keeps its
// default, or is absent (node.Inputs.Present false).
// Time is t0 + n·dt, never accumulated.
//
// # Execution model
//
// Build compiles the graph for two paths that compute the same bits: the
// per-node path (pernode.go) and the batched engine (engine.go), a type
// of its own that owns the families, the packed output columns, the
// fused plans and the workers, and that the Sim drives with a handful of
// methods (engine.step, outputs, derivatives, stage, runNodes).
//
// The batched path is the default. Nodes whose
// type implements node.Batcher are grouped into families: nodes of one
// type, one BatchKey, one output level and one wiring pattern — every
// edge into row i comes, without a transform, from the same kind of
// buffer at an offset affine in i, with a non-negative stride, and so do
// the rows' state and outputs. Build finds families in one pass in node
// order and compiles each edge into a strided view: a plain edge becomes
// a view of its source's buffer (the kernel reads the source directly,
// no gather copy), an unconnected input a broadcast constant, and an
// additive input with several edges a sum the engine writes into worker
// scratch block by block (sumBlock rows), adding terms in connection
// order as the per-node gathers do — or, for an input of two edges whose
// kernel adds pairs itself (node.BatchPairAdder: a mass between two
// connectors), two views the kernel adds. A step (engine.step) is a
// sequence of phases — outputs, level by level, then updates — and a
// monolithic evaluation (System.Func) outputs then derivatives. Each phase calls
// every family's kernel once per block of its rows (one interface call
// per block, not per node) and runs the nodes left out of families (the
// loose nodes: types without a kernel, edges with transforms) one by one
// as before. Outputs that no edge reads are not computed (node.BatchArgs
// Need); Sim.Value and recorded outputs are evaluated on the per-node
// path, which computes every output.
//
// Where the outputs are one level of families and no node is loose, a
// step and an evaluation run fused (fused.go): the output and update (or
// derivatives) phases interleaved block by block, each block of a
// consumer family right after the producer rows it reads (Build maps
// every input term to producer rows, affine by segments), so that a
// chain's loads and states are still in L1 when the masses read them.
// Before a consumer block each producer advances once, to the furthest
// row the block reads through any term, so that a producer family read
// by several terms (a chain's two walls, one family, read by its first
// and its last mass) is one call per block. Fusion changes the order in which rows are computed, never what a row
// computes nor from which values (outputs read the state at t, which
// updates do not overwrite), so it keeps the bits.
//
// A fused plan's kernel calls are compiled once, when the plan is split
// among workers (kernels.go, callArgs): each call's node.BatchArgs is
// built with every view in place, and a step only points the views of
// the state being read and of the destination at the buffers the Sim
// swaps (engine.run patches them). On a small graph, where a step is a few
// kernel calls, assembling the views per call cost as much as the
// kernels; the phased and stage paths still assemble them (block). A
// kernel that is a node.BatchPlanner is asked, when its call is
// compiled, for a kernel compiled for that call (its code path and row
// extents fixed), which the call then runs instead of the method
// (callArgs.kernel); only the buffers change between calls, as its
// contract requires.
//
// When every output the consumers read is one only families read (in
// the packed columns, below), a fused step runs in window mode: the
// producers write those rows into a small window per worker, a few
// blocks long, that the next consumer blocks read while it is in L1, so a
// chain's loads never reach memory (the packed columns are then not
// written). Each worker computes every
// producer row its consumers read, including the one or two at each
// boundary of its share that another worker also computes (from the same
// values, so in the same bits), and no worker reads another's window.
//
// Outputs that only families read are moved at Build into packed
// columns (engine.packed, compact.go): a connector's loads, 6 of its 17
// output values, are then dense rows instead of being spread across its
// output row, which halves the memory a large chain's step moves. The
// per-node path, Sim.Value and recording keep using the full output
// buffer (Sim.outputs); a batched step computes the outputs it reads
// itself, and coupled Runs use the full buffer's views.
//
// Finiteness is checked once per block, right after the kernel writes
// it: the new state (or dx/dt) of the block (by the kernel itself when it
// is a node.BatchDstChecker, which fails the call instead), every input
// a family reads from outputs (a summed input is checked as a sum, which
// is non-finite whenever a term is; a pair, by its contract, makes the
// state it feeds non-finite), and the outputs that loose nodes read. Any
// failure — a non-finite value, a kernel's error, a panic, a loose node's
// error — makes the step (or evaluation) replay on the per-node path from
// the retained state (the batched step writes only the next-state buffer
// and outputs), so the error is exactly the per-node path's
// *node.StateError, naming the first failing node, field, step and time.
//
// A Run starts by checking its step against the stable steps nodes state
// (StepWarnings). A family whose kernel is a node.BatchStepBounder is
// asked for its smallest bound in one call; only when that bound is below
// the step are its rows asked one by one, for the warnings' messages.
//
// With several workers, a phase is split into contiguous ranges of every
// family's rows and of the loose nodes, one or two parts per worker
// (engine.partsFor); rows are computed independently from values
// computed before the phase, so results do not depend on the split. Phases smaller than CoSimulation.Grain run on the caller's
// goroutine. A fused step splits every producer's and every consumer's
// rows among the workers. In window mode that is one phase. Otherwise
// each worker first runs, fused, the consumer rows whose producer rows it
// owns, and after a barrier the few rows it deferred (those reading
// another worker's producer rows: one or two at each boundary of a
// chain). Parts are claimed by whichever goroutine is running, so a
// worker that is not running leaves its part to the others. Workers wait
// for a phase by polling an atomic counter for a few times the interval
// between phases (50 to 200 microseconds) before parking, since
// a phase of ten thousand rows takes less than waking a parked
// goroutine; the caller, its parts done, polls for the others' for about
// one part's time and then sleeps until the last part is done, so that a
// worker descheduled in the middle of a part (another process holding a
// core) gets the caller's core instead of a spinning rival. Whether
// sharing a phase pays is measured as the run goes (pool.go, sharing):
// windows of shared phases are timed against the time per row measured
// with phases run alone and against the caller's own time per part, and
// while sharing loses the phases run on the caller's single-goroutine
// path (the same bits) in spells that double while it keeps losing, up
// to a bound in proportion to what sharing lost, with the workers
// parked; with more workers than GOMAXPROCS they park at once. The
// stability check at the start of a Run shares its trial steps without
// judging them.
//
// The per-node path (Sim.stepPerNode, System.funcPerNode) calls each node's
// Update, Outputs or Derivatives with its inputs gathered into the Sim's
// input buffer, checking every value of each node. It is the reference:
// Sim.SetBatching(false) selects it, and tests hold every kernel and
// whole graphs bit for bit to it. The default Jacobi step
// (CoSimulation.Coupling nil) and both monolithic modes evaluate through
// families,
// and so do the coupling strategies' Gauss–Seidel stages, rate classes
// (multirate substeps) and the Jacobi stage of any strategy: each stage
// is compiled at Run start into the contiguous row ranges of the
// families it holds (a stage that splits a family runs the kernel on its
// part of the rows) and its loose nodes, and a failing stage is replayed
// per node. Iterated coupling groups run per node: their iteration reads
// the members' gathered inputs, which kernels do not gather. The
// Jacobian assembly, events, Sim.Value and recording use the per-node
// path. Sim.Families lists the families of a Sim; Result.Replays counts
// the steps or stages a Run replayed per node.
//
// # Coupling strategies
//
// CoSimulation.Coupling selects another co-simulation strategy (package
// coupling; "coupling" in this package's names always means such a
// strategy): Gauss–Seidel stages, iterated (implicit) groups with
// relaxation, Aitken or IQN-ILS acceleration (coupling.Accel), and
// multirate subcycling.
// Run compiles the strategy into a plan when it starts (names resolved,
// buffers allocated; errors such as overlapping groups, *ConvergenceError
// aside, are returned then), and the step executes it on the same
// workers with the same rules: nodes of one stage run concurrently and
// write only their own slots, everything reduced across nodes runs in a
// fixed order, so results are bit-identical for any worker count.
// Sim.Schedule prints what a step does, stage by stage, with node names;
// Result.Coupling reports update counts per node and per-group iteration
// statistics. With CoSimulation.Coupling nil the step is exactly the Jacobi
// step described above.
//
// # Running and results
//
// [Sim.Run] is the one entry point for every way of running a Sim, and
// Settings.Mode, a [Mode] value, selects the mode with the options of
// that mode alone, as the Method value of gonum's optimize.Minimize does:
// [CoSimulation] (the zero Mode; its Coupling, Workers, Grain and
// OnGroupStep), [Monolithic] (a fixed-step integrators.Method value
// carrying its own options, built in or the caller's, and the driver
// options every method shares: event tolerance, position/velocity pairs)
// or [MonolithicAdaptive] (an integrators.AdaptiveMethod holding the
// tolerances: DormandPrince, the default, or for stiff graphs BDF,
// ESDIRK43, ESDIRK32; and the driver options with the output times). No
// Settings can mix two modes. [Sim.RunMonolithic] and [Sim.Integrate] are
// short forms of Run for the two monolithic modes. Every mode records
// Settings.Record (an adaptive run at the sample times of its dense
// output), streams Settings.RecordTo and calls Settings.Observer the same
// way, and returns the same [Result], shaped like gonum's
// optimize.Result: the shared [Stats] of the run (steps, time reached,
// wall time, node updates and output evaluations, right-hand-side
// evaluations, rejected steps, Newton and coupling iterations, events,
// replays), a [Status] saying how it ended (EndReached, StoppedByEvent,
// StoppedByObserver, Cancelled, Failed; Status.Err is nil for the first
// two), and beside them the parts of one mode, nil in the others:
// Result.Coupling (a coupling strategy's statistics per node and group)
// and Result.Integrator ([Integration]: the integrator's own counts, the
// located events and dense-output samples of an adaptive run). Stats
// count the work of that run alone. Invalid settings are an error before
// any step with a nil Result; once a run has started, its Result
// describes the steps that succeeded whatever ended it. A node event
// whose reset returns node.ErrStop ends a monolithic run at the event
// (StoppedByEvent, no error, Result.StopCause saying who and when), as
// does a node.StepCompleter that returns it at an accepted step. A
// StepCompleter that changes its state there (a step event, counted in
// Stats.StepEvents) has the integrator restart from the new state, as
// after an event's reset (stepcompleted.go).
//
// # Algebraic loops
//
// A cycle of feedthrough nodes (each one's outputs reading its inputs at
// the same instant, through the others) has no evaluation order. Build
// finds each such cycle (a strongly connected component of the
// feedthrough dependencies, or a node reading its own output), chooses
// tear variables — the loop-read outputs of a greedy feedback vertex set,
// the nodes with the largest product of feedthrough in- and out-degree
// first — and places all the members at one output level. Evaluating
// that level solves the loop: Newton on the tear variables from zero,
// the Newton matrix by the chain rule from the members' OutputsJacobian
// (node.OutputJacobian; central differences of a member's Outputs where
// it has none), or forward differences of the whole residual when an
// edge inside the loop has a transform, and an Anderson-accelerated
// fixed-point iteration when Newton fails. A loop that does not converge
// within [LoopSettings] (Graph.SetLoopSettings at Build, Settings.Loops
// for one run) fails the evaluation with a [*LoopSolveError] naming its
// members, the residual and the time. The loop's first member solves it
// on one goroutine (the others' tasks are empty), so a loop serialises its
// members while the rest of its level runs in parallel; members stay on
// the per-node path (no batch family). Every strategy and mode evaluates
// outputs this way, so loops work in co-simulation under every coupling
// strategy, in monolithic runs (the loop solved in every right-hand-side
// evaluation) and in sensitivities; the monolithic Jacobian, which
// implicit methods and Sensitivities use, goes through a loop by the
// implicit-function theorem on the converged loop, dz/dy = (I −
// ∂F/∂z)⁻¹·∂F/∂y, from the members' output Jacobians inside the chain
// rule of jacobian.go (loop_jacobian.go). Sensitivities differentiate
// with respect to parameters by the same theorem, dz/dp = (I −
// ∂F/∂z)⁻¹·∂F/∂p: what they difference over a parameter, the state or
// the time (∂f/∂p without a node.ParamJacobian, an event function or
// reset map without its node's Jacobian, an event's or reset's inputs, a
// recorded output) is evaluated with each loop frozen at its solution
// and moved along that direction's tangent, never re-solved, so the
// loop's tolerance is not divided by the difference step
// (loop_sensitivity.go).
// loop.go holds the solver; docs/composition.md the user's guide.
//
// # Monolithic mode
//
// [Sim.System] views the graph's stateful nodes as one first-order system
// y' = f(t, y) over the flat state: every evaluation installs the given
// state, re-evaluates the outputs (connector forces) in dependency order
// and calls every node's Derivatives, so inputs are never frozen within an
// integrator step. Position/velocity roles give its Pairs, node events
// (node.Eventer) its EventSystem, the known discontinuity times of any
// node (node.TimeEventer: a step, a pulse's edges, a table's breakpoints)
// its [System.NextTimeEvent], on which every adaptive method ends a
// step exactly (integrators.TimeEventSystem), and [System.JacobianRows]
// assembles ∂f/∂y by the chain rule from node and connector Jacobians,
// row by row over column sets fixed from the edges at its first use (a
// node's own blocks are taken dense; the integrators store only the
// non-zeros), [System.SparseJacobian] lays the same rows out on a fixed
// pattern (CSR, [System.JacobianPattern]) for callers that want one,
// with [System.Blocks] giving each node's state range to block-Jacobi
// preconditioning; [System.Jacobian] is the same assembly scattered into
// a dense matrix for dense LU. A run in the mode Monolithic
// ([Sim.RunMonolithic]) steps it with any fixed-step method of package integrators, keeping the
// stepper (and its memory) across calls; node events are handled by the
// fixed-step methods too (located by re-stepping, reset, the step
// finished; see package integrators, Events), so a ball does not fall
// through its table under RK4; a run in the mode MonolithicAdaptive
// ([Sim.Integrate]) runs its adaptive method (Dormand–Prince, ESDIRK or
// BDF) with event localization, likewise keeping its step-size
// controller and event state, so consecutive calls continue one run.
// A call with another method, other parameters or options than the
// kept stepper's is an error saying what differs; [Sim.ResetIntegrator]
// drops the kept stepper on purpose. Panics in node code or transforms
// reached from the System (Derivatives, Events, Reset, Jacobians) come
// back as errors naming the node, as in co-simulation. [NewNodeSystem] is
// the same view of a single node (MADDENING's integrate_node).
//
// # Sensitivities
//
// [Sim.Sensitivities] integrates the monolithic system together with the
// forward sensitivities S = ∂y/∂p of named parameters, with the same
// method and steps (the integrator steps [y, S]), and maps S through
// every located event with the saltation jump, so that derivatives stay
// right across contacts (MADD-ANO-021). Node capabilities
// (node.ParamJacobian, node.InitialStateJacobian, node.EventJacobian,
// node.ResetJacobian) give exact derivatives; everything else is
// differenced over SetParams and the node methods. SensitivityOptions.Mode
// chooses the integration with the values of Settings.Mode: adaptive
// Dormand–Prince (nil, or MonolithicAdaptive) or any fixed-step method
// (Monolithic, with events located by re-stepping). Co-simulation runs,
// grazing contacts and parameters that move time events are rejected
// with [ErrNotDifferentiable].
// Sensitivities leaves the Sim's state untouched and restores every
// parameter.
//
// # Reading state every step
//
// [Sim.Field] resolves "node.field" or "node.field[i]" once into a
// [Field]; Field.Get, At and Set then read or write it without looking up
// a name or allocating (outputs are evaluated once per state when stale),
// across Run, Step, Integrate and SetState.
//
// # Bounded memory and work
//
// Settings are checked before the first step: a mode value (not a nil
// pointer) with what its mode needs (Monolithic a Method that is not nil;
// CoSimulation's Workers and Grain not negative); Dt finite and positive
// (an adaptive run needs only End); End finite, not before the current
// time and at most [MaxSteps] (2^53) steps away; Steps at most MaxSteps;
// RecordEvery, ObserveEvery and RecordLimit not negative.
// [Sim.SetState] and [Sim.Integrate] refuse a non-finite time. Recorded
// rows are stored as they arrive (storage
// chunks doubling up to 65 536 rows), never preallocated for the whole
// run, and a recording whose rows could need more than
// Settings.RecordLimit bytes ([DefaultRecordLimit]: half of the least of
// GOMEMLIMIT, RLIMIT_AS, the cgroup's free memory and MemAvailable) is
// refused up front, before the first step, with the row count, the
// memory it would need (the values, the growth of the History's slices
// and the garbage collector's headroom: the peak, not the live size) and
// where the limit comes from. Settings.RecordTo streams every row as CSV as it is
// recorded (flushed when the run returns, also on an error or
// cancellation), and with StreamOnly keeps none in memory. Cancellation
// is checked between steps and, inside a step, between the iterations of
// a coupling group and between multirate substeps, whose counts package
// coupling caps (MaxIterLimit, MaxRate); a cancelled step leaves the
// state at its start.
//
// # Observing a run
//
// Settings.Observer (an [Observer], or a function through
// [ObserverFunc]) is called on the running goroutine at the start of a
// run, every Settings.ObserveEvery steps (accepted steps of an adaptive
// run; Integrate takes the Observer as its last argument) and at the
// end, in every mode, with a [View]: time, step, planned steps and end
// time, wall time and the work so far, as the [Stats] the Result will
// report. Values are read through Fields
// resolved before the run. Returning an error stops the run at the
// observed (good) state with an [*ObserverError] wrapping it. Observing
// allocates nothing per step and does not change the results.
//
// # Checkpoints
//
// [Sim.Checkpoint] snapshots every node's state, layout and parameters,
// the clock, the monolithic or adaptive stepper's memory and settings, and the coupling strategy's
// cross-step memory; [Checkpoint.WriteFile] saves it atomically with a
// versioned header and a SHA-256 checksum, [ReadCheckpoint] rejects
// truncated or corrupted files, and [Sim.Restore] continues bit for bit or
// rejects a graph that differs, naming every difference ([MismatchError]).
// A node whose model keeps state outside the state vector
// (node.HiddenState: an imported FMU) adds a snapshot of it, restored
// with the state; one that cannot (an FMU that cannot serialize its
// state) makes the checkpoint fail, naming it (Checkpoint.Err). Before a
// run whose coupling strategy steps nodes again from the start of a step
// (iterated groups), such nodes are asked whether they can
// (AllowRestep), and the run is refused, naming the strategy and the
// node, when one cannot. [Sim.Close] closes the nodes that hold
// resources outside Go memory (io.Closer: an FMU's instance and binary).
//
// The file format (version [CheckpointVersion], docs/checkpoint-format.md)
// is a schema of its own: tagged types owned by the checkpoint code
// (checkpoint_schema.go) to which [Checkpoint.Encode] converts the
// in-memory types and from which [DecodeCheckpoint] converts back, so
// renaming a Go field here or in integrators or coupling does not change
// the files. New optional quantities get new keys, left out when zero and
// meaning the old behaviour when absent; anything else bumps the version.
// Older versions (from [MinCheckpointVersion]) are read through frozen
// copies of their schemas and converted; an unknown version is an
// [ErrCheckpointVersion] error. Golden files of every integration method
// and coupling strategy, in every version (testdata/checkpoints), must
// resume bit for bit on every test run (TestGoldenCheckpoints; -update
// rewrites the current version's).
//
// # Invariants
//
//   - Names resolve to offsets in Build. The per-step path does no map or
//     string look-up and allocates nothing (Sim.Step, and Sim.Run after
//     its set-up): state, outputs and inputs live in flat buffers sized
//     once, and kernels' views and scratch are compiled at Build.
//   - The batched and per-node paths give bit-identical results; the
//     flat state layout (node order, each node's fields in StateLayout
//     order) is the same for both, so checkpoints and System vectors do
//     not depend on the path.
//   - A failing step leaves the state at t_n. Node errors, panics in node
//     or transform code, and NaN or Inf in any state, output or input stop
//     the run with a *node.StateError naming node, field, step and time.
//     Every path (co-simulation under each coupling strategy,
//     RunMonolithic, Integrate, Jacobian assembly, events and resets)
//     builds it with one constructor, which names the field of a
//     node.FieldError the node returned: the same failing node reads
//     "node m.v: step 3 …" whatever path evaluated it (monolithic runs
//     wrap it in the integrator's step error).
//   - Results are bit-identical for any worker count: every node's inputs
//     are gathered in a fixed order from values computed before the phase,
//     each node writes only its own slots, and errors are reported for the
//     first failing node in node order.
//
// # Concurrency
//
// Sim.Run starts CoSimulation.Workers goroutines for the run (one pool,
// pool.go, whatever the phase: batched phases, fused steps, coupling
// stages and the per-node path's lists) and hands each phase to them in
// contiguous parts, which the calling goroutine and the workers claim
// one at a time, or runs the phase on the calling goroutine alone while
// sharing does not pay. Each part
// writes only its own rows and its own part's scratch and error slot,
// read in part order after the phase, so results and errors do not depend
// on the split. Phases with fewer node evaluations than
// CoSimulation.Grain run on the calling goroutine, so small graphs pay no
// goroutine overhead. A Graph or Sim is not safe for concurrent use by
// several goroutines; nodes must be safe for concurrent calls on
// distinct slices (see package node).
//
// # Coupled stability
//
// A co-simulation can grow without bound at a step every node accepts on
// its own: the stable step depends on the coupling scheme. A Run
// therefore also starts with Sim.CheckStability (stability.go,
// amplifier.go): the spectral radius of the one-step amplification
// operator of the run's scheme, applied by central differences of trial
// steps of the actual scheme (the nodes' own Update, its stages, groups
// iterated to their fixed point, rates and interpolation) from the
// current state, restored afterwards. Up to DenseStabilityStates values
// the whole matrix and its eigenvalues (gonum's mat.Eigen); above, a
// matrix-free estimate by restarted Arnoldi, at most
// 2·KrylovDim·KrylovCycles trial steps whatever the size, replaced up to
// DenseMaxStates values by the dense radius when it decides nothing (the
// eigenvalues of undamped oscillators cluster on the unit circle, where
// Arnoldi cannot converge). An iterated group's trial step reaches its
// fixed point by Newton's method with the interface Jacobian formed once
// (newtonAccel), in 3 to 4 evaluations of the group's map. At a run's
// start the check's cost is bounded by the run's: at most
// max(steps/StartCheckShare, StartCheckFloor/n) passes over the n state
// values (trial steps and arithmetic counted alike), taking the dense
// matrix or a smaller Krylov space when the full analysis does not fit,
// and not analysing a run too short for one Arnoldi cycle of dimension
// 4. A fixed-step
// Monolithic run starts with Sim.CheckMonolithicStability, the same for
// one step of its method on the System; adaptive runs are kept stable
// by their error control and not analysed. The analysis is judged over
// the run (StabilityAnalysis.Over): it is Unstable when the linearised
// growth over the run's steps exceeds MaxRunGrowth; then the
// alternatives and the largest stable steps (bisection) fill
// Result.Stability, and the Observer's start call sees the same value
// (View.Stability), so that cosim run prints its Warning before the
// first step without analysing again. Sim.Stability
// computes the whole table, Sim.Amplification the dense matrix. The
// analysis runs once per strategy (method) and step of a Sim, after the
// run's workers start: its trial steps are steps of the run's own
// engine (the same bits for any worker count), its arithmetic on the
// calling goroutine. During a co-simulation a
// watch (growth.go) samples the largest change of the state every few
// steps, without allocating, and stops exponential growth that neither
// the physics nor an input explains with a *GrowthError
// (CoSimulation.AllowGrowth turns it off).
//
// # Reading order
//
// The files, in the order a newcomer might read them:
//
//   - graph.go, edges.go, option.go, transform.go, connector.go: building a
//     Graph (nodes, edges, transforms, connectors; edges.go: how a Graph
//     stores its edges compactly until Build);
//   - subsystem.go: Subsystem, its ports and metadata, and Flatten,
//     which Build runs first when a graph holds subsystems;
//   - build.go (then repeat.go, units.go): Graph.Build, from names to a
//     compiled layout (cnode, gather) and the errors it reports; repeat.go
//     refuses an edge that repeats another into an additive input,
//     units.go checks a transform's own settings and writes the Scale
//     Build suggests for units that differ;
//   - sim.go: the Sim (layout, buffers, engine, clock) and its accessors;
//     field.go, history.go (then memlimit.go, memlimit_linux.go,
//     memlimit_other.go: the default RecordLimit from the memory the
//     process may still use), observe.go: reading state, recording and
//     observing; close.go: Sim.Close for nodes holding resources outside
//     Go memory;
//   - settings.go, run.go, result.go: Settings and its Mode values, Run
//     and the co-simulation loop, Result and Status; apicheck.go checks
//     the arguments a caller can get wrong without a type error, and
//     runident.go the kind of run a restored checkpoint may continue;
//   - pernode.go: the per-node path, the reference every other path
//     matches bit for bit;
//   - loop.go, loop_jacobian.go, loop_sensitivity.go: algebraic loops,
//     torn at Build and solved at every output evaluation, the monolithic
//     Jacobian's rows through a loop, and the differences of
//     Sensitivities through one (both by the implicit-function theorem);
//   - engine.go (then pool.go, kernels.go, family.go, compact.go,
//     fused.go): the batched engine, its own reading order in engine.go;
//   - coupled.go (then coupled_compile.go, coupled_analysis.go,
//     coupled_schedule.go, coupled_step.go, coupled_iterate.go,
//     coupled_memory.go): the coupling strategies, in the order
//     coupled.go gives;
//   - system.go, nodesystem.go, monolithic.go, timeevents.go,
//     stepcompleted.go, jacobian.go (then release.go): the monolithic
//     view, the two monolithic modes, the nodes told of accepted steps
//     (node.StepCompleter, and the integrator's restart after a step
//     event) and the sparse Jacobian, whose plan returns the heap's free
//     pages before a large first assembly;
//   - sensitivity.go (then sensitivity_system.go, sensitivity_params.go,
//     sensitivity_inputs.go, sensitivity_events.go, sensitivity_run.go):
//     forward sensitivities;
//   - stablestep.go, steperror.go: stable-step warnings and step errors;
//     stability.go (then amplifier.go), growth.go: the stability
//     analysis of a coupling scheme's or a monolithic method's step
//     (its amplification operator, dense or matrix-free) and the
//     run-time growth watch;
//   - checkpoint.go (then checkpoint_schema.go, checkpoint_v1.go,
//     hidden.go): checkpoints and their file format; hidden.go carries
//     the snapshots of nodes that keep state outside the state vector
//     (node.HiddenState) and asks them before an iterated coupling
//     steps them again.
//
// docs/architecture.md draws the packages and one step's data flow.
package graph
