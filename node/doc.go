// Package node defines the contract every cosim physics element satisfies,
// and the vocabulary nodes use to describe themselves.
//
// # Overview
//
// A [Node] describes itself completely through its [Spec]: the state it
// integrates ([Field]s with shape, units, description and a [Role] that
// pairs positions with velocities), its parameters ([Param]s with a
// [ParamKind], default, units and validated [Range]), its boundary inputs
// ([Input]s whose [Combine] rule is [Additive] or [Replacing], with a
// default value or [Input.Absent] semantics), its outputs, its events and its [Metadata] (algorithm ID,
// version, [Stability], the scheme Update runs, the declared [Order] of
// accuracy, assumptions, limitations, validated regimes, the [StableStep]
// of explicit stepping, implementation mapping, references, anomaly IDs,
// verification evidence, changelog).
// Graphs are validated, documentation is generated and integrators are
// driven from the Spec without knowing the node's Go type.
//
// The core interface is small: Spec, InitialState and Update. Everything
// else is an optional capability found by type assertion, as io.WriterTo
// is beside io.Writer: [Deriver] (the continuous right-hand side),
// [Outputter] (values derived from state and inputs), [Tunable] (run-time
// parameter overrides), [Eventer] (zero crossings and reset maps; a
// reset returning [ErrStop] ends the run at the event),
// [TimeEventer] (times known in advance at which outputs jump, for
// sources), [StepCompleter] (told of every step a monolithic integrator
// accepts, where it may change its state: a step event),
// [DerivativesJacobian] and [OutputsJacobian] (analytic derivatives),
// [ParamJacobian], [InitialStateJacobian], [EventJacobian] and
// [ResetJacobian] (analytic parameter, event and reset-map derivatives
// for forward sensitivities; a graph finite-differences what a node
// lacks), [SensitivityChecker] (says when those cannot be right),
// [Marker] (a body connectors attach to) with [PointMarker] (the marker
// is the body itself), [MarkerMass] (a body's inverse mass at a marker),
// [MarkerVelocityJacobian] (its marker velocity's Jacobian) and
// [MarkerLocalChecker] (what local points it accepts), [Attached] (a
// connector that reports its ends and links), [StepLimiter] and
// [StepBounder] (a node that computes the largest stable step of
// explicit stepping, e.g. a spring from its stiffness and its bodies'
// MarkerMass; graphs warn when a run's step exceeds it), [Batcher] (a
// batch kernel, below), [Drawer] (the node's geometry for cosim view
// and cosim render: [Primitive] spheres, boxes, planes, coils, lines and
// cylinders computed from its parameters and state, with the shared
// visualization parameters of [VisualParams] — show, draw_size, color —
// and the renderer's [DrawSettings]; a node without it draws nothing),
// and [HiddenState] (a node whose model keeps state the graph's state
// vector does not hold, an imported FMU: graph checkpoints save and
// restore it, and coupling strategies that re-step nodes ask it first).
// A node that decorates another implements [Unwrapper]; use [As] to find
// a capability through wrappers. [Capabilities] names the capabilities a
// node has (`cosim describe` prints them); a test fails when this package
// declares a capability it does not list.
//
// # Connectors
//
// A connector type (a spring between two bodies) implements [Connector]:
// given its two ends it builds the node and returns the edges that attach
// it as data ([Link]: field names on the body and on the connector). An
// end is an [Attachment], the one way every connector names its ends: a
// point of a body given as a Go value ([At]), of a body a graph knows by
// name ([BodyAt], [Body]), or a fixed world point ([GroundAt]); its local
// point is checked once, when the connector is built
// ([Attachment.CheckLocal]). Graphs (graph.Graph.AddConnector, the
// [ConnectorHost] that [Connect] and the connector packages' Connect
// helpers take) and scene files apply a Connector to any connector type
// alike, so node packages never import graph and a new connector type
// needs only a registry [Type] with a Connector constructor. Errors about
// one end are [EndError] (errors.As), never matched by text. The
// capabilities of bodies that connectors use (PointMarker,
// MarkerVelocityJacobian, MarkerLocalChecker, MarkerMass) and the helper
// they share ([VelocityJacobian]) live here, so that connector packages
// do not import each other.
//
// # Batch kernels
//
// A node type may also implement [Batcher]: a graph then steps its
// instances of one wiring pattern as a family, one call of the type's
// [Batch] kernel per block of rows instead of one interface call per
// node, with every field of every row reached through a [Strided] view
// ([BatchArgs]). A Batch has no required method: like a node, it has
// capabilities — [BatchUpdater] for stateful members, [BatchOutputter]
// for members with outputs, [BatchDeriver] for Derivers — and a graph
// steps a family through the kernel only when it covers what the members
// need. The contract is strict: a kernel computes, row by row, the same
// bits as the member's own Update, Outputs and Derivatives (the shipped
// kernels call the same per-row function as those methods), may skip
// outputs nobody reads ([BatchArgs.Need]), allocates nothing, and is
// safe for concurrent calls on disjoint rows. A kernel's error only tells
// the graph that some row failed: the graph replays the step node by node
// to report it.
//
// A kernel reads its members' parameters from [Rows] ([NewRows],
// [NewUniformRows]), copies of each member's [Published] parameters:
// the member changes them only with Published.Set, which reaches every
// live copy, so a batch sees every later SetParams by construction; and
// the member refers to the copies weakly, so a batch whose graph was
// dropped or built again is collected (a node built into a thousand
// graphs in turn keeps none of the old batches). verification.CheckBatch
// holds a kernel to this contract, lifetime included. Rows made by
// NewUniformRows are stored once while every member holds equal
// parameters (a chain of equal springs keeps one row, not one per
// spring); their kernels read them with Rows.Walk or Rows.At, and
// Rows.Span, which would need a row per member, panics on them.
//
// Further kernel capabilities are kept because they are general
// contracts, not knowledge of one node type the engine could hold
// instead: [BatchPairAdder] (the kernel of any body receives an additive
// input with two edges — a body between two connectors — as its two
// terms and adds them itself, saving the graph a pass through scratch; the
// engine cannot fuse that sum into a kernel it does not know) and
// [BatchStepBounder] (the kernel of any [StepBounder] type answers its
// family's smallest stable step in one call, which every run's start
// checks). A third saves the graph a pass it would otherwise make after
// every call: [BatchDstChecker] (a kernel that tests the values it writes
// to Dst while they are in registers, and fails the call when one is NaN
// or ±Inf, spares the graph reading the new state back to check it; the
// failed call is replayed node by node, so the error still names the
// node, the component and the time). A fourth saves a kernel its own
// fixed cost per call: [BatchPlanner] (a kernel compiles a method for a
// call site a graph repeats every step — same rows, views and needs,
// only the time and the buffers changing — choosing its code path and
// checking its rows' extents once; on a chain of 10 masses that fixed
// cost was about a quarter of a step). Each has a runnable example
// (ExampleBatchPairAdder, ExampleBatchStepBounder, ExampleBatchDstChecker,
// ExampleBatchPlanner) built on a node written in a few lines: to add one
// to a kernel, implement the method and let verification.CheckBatch
// confirm the contract. masspoint implements the pair adder, the Dst
// check and the planner, springdamper the step bounder and the planner.
//
// Parameters come from typed Go values (each node package has a Params
// struct) or from a name→value map ([Resolve]), for scene files and
// overrides: given values override the node's own. Every invalid value is
// a *[ParamError] naming the node, the parameter, the value and the valid
// range; [Resolve] reports all of them at once.
//
// A [Registry] maps type names to constructors so that commands and
// documentation can list and build every node by name.
//
// # Invariants
//
//   - State lives in flat []float64 storage owned by the caller (a graph);
//     a node never retains a slice it is given. Update writes the new
//     state into dst, which never aliases x.
//   - Names resolve to offsets once ([Layout], Spec.StateFieldOffset);
//     nothing on the per-step path looks up a name.
//   - A Spec is immutable after [NewSpec]; Spec() returns the same value
//     every time. NewSpec panics on an inconsistent spec: that is a
//     programmer error in a node, not a user error.
//   - Update and Derivatives read the same parameter values, including
//     overrides, so the discrete and continuous views never disagree about
//     the model.
//   - Metadata.Discretization names the scheme Update really runs, with
//     the integrators package's method names; tests hold it to the code.
//
// # Errors
//
// User and data errors are returned: [ParamError] for parameters,
// [StateError] (node, field, step, time) for failures while stepping,
// [UnknownTypeError] for registry look-ups. Programmer errors inside the
// library (slices of the wrong length, an inconsistent spec) panic.
//
// Messages echo user input bounded ([FormatValue], [Quote], [Elide]): a
// list longer than [MaxWholeItems] shows its first [MaxShownItems]
// elements and a count ("[1, 2, 3, … 999 997 more]"), a string its first
// [MaxShownBytes] bytes, and [Resolve] reports at most
// [MaxReportedErrors] problems one by one, so a huge wrong input makes a
// message of a few hundred bytes.
//
// # Concurrency
//
// Update, Derivatives, Outputs, EventValues, Reset and the Marker methods
// must be safe to call concurrently on one node with distinct argument
// slices: they read the node's parameters and write only dst. SetParams is
// not safe for concurrent use with anything; call it between runs.
// Building Rows of the same members is safe from several goroutines (two
// graphs built at once). A Registry is read-only after NewRegistry and
// safe for concurrent use.
//
// # Reading order
//
// node.go holds the core contract ([Node], [Inputs]) and the first
// capabilities; spec.go, shape.go and param.go the self-description
// ([Spec], [Field], [Layout], [Param], [Resolve]); meta.go and text.go the
// metadata and its wording. capabilities.go lists every capability.
// marker.go, connector.go and steplimit.go are what bodies and connectors
// share (markers, attachments, stable steps); sensitivity.go,
// timeevent.go and draw.go the remaining capabilities. batch.go is the
// batch-kernel contract and rows.go the parameter rows kernels read.
// registry.go maps type names to constructors; bounded.go bounds what
// messages echo of user input.
package node
