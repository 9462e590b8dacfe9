// Package graph wires nodes into a simulation and steps it.
//
// # Overview
//
// A [Graph] holds named nodes and edges. An edge connects a source field
// of one node — a state field or an output, "node.field" — to a boundary
// input of another, "node.input", optionally through a [Transform]
// ([Scale], [Component], [Embed] or a user [Func]). [Graph.Build] validates
// everything at once and compiles a [Sim]; a [BuildError] lists every
// problem with close matches for misspelled names: unknown node or field,
// shape mismatch, units that differ between an edge's ends (unless its
// transform declares the conversion), two edges into a replacing input,
// additive and replacing edges mixed, a required input left unconnected,
// and algebraic loops (a cycle of direct feedthrough, [LoopError], listing
// its members).
//
// Build is linear in nodes and edges and allocates per node and edge only
// what the Sim keeps (issue 14: the W1 chain of 100 000 masses, 200 001
// nodes and 600 000 edges, builds in about half a second of CPU time with
// under 1 KB of live heap per node; go run ./benchmarks/report measures
// it). Edges are grouped by input with a counting sort, names resolve
// through a small cache of recently resolved nodes before the name map,
// edge strings are formatted only for error messages, and the Sim keeps
// no copy of the Graph's edges.
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
// state within a step. Additive inputs sum their edges in the order they
// were connected; a replacing input takes its one edge; an unconnected
// input keeps its default, or is absent (node.Inputs.Present false).
// Time is t0 + n·dt, never accumulated.
//
// # Coupling strategies
//
// Settings.Coupling selects another co-simulation strategy (package
// coupling): Gauss–Seidel stages, iterated (implicit) groups with
// relaxation, Aitken or IQN-ILS acceleration, and multirate subcycling.
// Run compiles the strategy into a plan when it starts (names resolved,
// buffers allocated; errors such as overlapping groups, *ConvergenceError
// aside, are returned then), and the step executes it on the same
// workers with the same rules: nodes of one stage run concurrently and
// write only their own slots, everything reduced across nodes runs in a
// fixed order, so results are bit-identical for any worker count.
// Sim.Schedule prints what a step does, stage by stage, with node names;
// Result.Coupling reports update counts per node and per-group iteration
// statistics. With Settings.Coupling nil the step is exactly the Jacobi
// step described above.
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
// its [System.NextTimeEvent], on which adaptive Dormand–Prince ends a
// step exactly (integrators.TimeEventSystem), and [System.Jacobian] assembles ∂f/∂y by
// the chain rule from node and connector Jacobians. [Sim.RunMonolithic]
// steps it with any fixed-step method of package integrators, keeping the
// stepper (and its memory) across calls; [Sim.Integrate] runs adaptive
// Dormand–Prince with event localization, likewise keeping its step-size
// controller and event state, so consecutive calls continue one run.
// A call with another method, other parameters or other settings than the
// kept stepper's is an error saying what differs; [Sim.ResetIntegrator]
// drops the kept stepper on purpose. Panics in node code or transforms
// reached from the System (Derivatives, Events, Reset, Jacobians) come
// back as errors naming the node, as in co-simulation. [NewNodeSystem] is
// the same view of a single node (the seeds' integrate_node).
//
// # Reading state every step
//
// [Sim.Field] resolves "node.field" or "node.field[i]" once into a
// [Field]; Field.Get, At and Set then read or write it without looking up
// a name or allocating (outputs are evaluated once per state when stale),
// across Run, Step, Integrate and SetState.
//
// # Checkpoints
//
// [Sim.Checkpoint] snapshots every node's state, layout and parameters,
// the clock, the monolithic or adaptive stepper's memory and settings, and the coupling strategy's
// cross-step memory; [Checkpoint.WriteFile] saves it atomically with a
// versioned header and a SHA-256 checksum, [ReadCheckpoint] rejects
// truncated or corrupted files, and [Sim.Restore] continues bit for bit or
// rejects a graph that differs, naming every difference ([MismatchError]).
//
// # Invariants
//
//   - Names resolve to offsets in Build. The per-step path does no map or
//     string look-up and allocates nothing (Sim.Step, and Sim.Run after
//     its set-up): state, outputs and inputs live in flat buffers sized
//     once.
//   - A failing step leaves the state at t_n. Node errors, panics in node
//     or transform code, and NaN or Inf in any state, output or input stop
//     the run with a *node.StateError naming node, field, step and time.
//   - Results are bit-identical for any worker count: every node's inputs
//     are gathered in a fixed order from values computed before the phase,
//     each node writes only its own slots, and errors are reported for the
//     first failing node in node order.
//
// # Concurrency
//
// Sim.Run starts Settings.Workers goroutines (an errgroup) for the run and
// hands each phase to them in contiguous chunks; the calling goroutine
// takes the first chunk. Phases with fewer node evaluations than
// Settings.Grain run on the calling goroutine, so small graphs pay no
// goroutine overhead. A Graph or Sim is not safe for concurrent use by
// several goroutines; nodes must be safe for concurrent calls on
// distinct slices (see package node).
package graph
