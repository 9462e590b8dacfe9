// Package fmi imports Functional Mock-up Units (FMI 2.0 and 3.0) as
// cosim nodes: an FMU exported by Modelica tools, Simulink, Python or C
// runs in a cosim graph beside native nodes, coupled by cosim's
// strategies, integrated by cosim's integrators, checkpointed with the
// graph. The name is the standard's (the Functional Mock-up Interface);
// the package is the importer, kept beside nodes/ rather than in it
// because an FMU node's spec comes from a file, not from Go code.
//
// # Overview
//
// [Open] reads an FMU — an .fmu zip archive, unpacked into a temporary
// directory, or an unpacked directory — and parses its
// modelDescription.xml ([ParseModelDescription], FMI 2.0 or 3.0, into one
// [ModelDescription]); [FMU.New] loads its binary for this platform with
// dlopen (cgo), resolves every function the interface and the declared
// capabilities need (a [*MissingFunctionError] lists each one missing),
// instantiates it, sets its parameters, initializes it at t = 0 and
// returns a node: a [*CoSimNode] for the co-simulation interface (the
// FMU's own solver, one fmi3DoStep per Update) or a [*ModelExchangeNode]
// for model exchange (Derivatives, Outputs, events and time events, so
// that every integrator of package integrators steps it; with
// directional derivatives it is also a node.DerivativesJacobian). [Load] is
// Open and New in one call; [Type] is the registry type "fmu" that scene
// files name (nodes.Registry holds it). [FMU.Describe] tells what the
// node would be from the model description alone (`cosim describe
// FILE.fmu`).
//
// Variables map onto the node contract by causality: parameters (fixed
// and tunable, structural ones fixing array shapes) become node
// parameters with the FMU's start values, min/max and units, beside the
// node's own "path", "interface", "instance" (and "rtol", "atol" for
// model exchange); inputs become replacing boundary inputs whose default
// is the start value; outputs become state fields or outputs (a
// co-simulation node keeps in its state its time, "time", and the
// outputs that do not depend on its inputs; the others are node outputs,
// read after setting the inputs, so direct feedthrough is exact); a
// model-exchange node's state is the FMU's continuous-state vector.
// Float32, the integer types, Boolean and Enumeration are carried as
// float64 with their FMI type in the description: a value the variable
// cannot hold (a non-integer, out of range, an Int64 beyond 2^53 that has
// no exact float64 form) is an error wrapping [ErrNotRepresentable].
// String, Binary and Clock variables are not carried (the node lists them
// in its limitations and a graph asking for one gets the reason). Names
// are the FMU's where cosim's paths accept them; others have their
// characters outside [A-Za-z0-9_] replaced by "_" (and, on a clash, the
// value reference appended). Units are rewritten into cosim's spelling by
// [MapUnit] ("m/s2" → "m/s^2") or carried as given.
//
// # Invariants
//
//   - Nothing is left half-loaded: an FMU that fails to open, load,
//     instantiate or initialize leaves no instance, no loaded binary and
//     no temporary directory behind.
//   - Every instance is freed exactly once: Close terminates it (when it
//     was initialized and has not failed) and frees it; a node dropped
//     without Close is freed by a runtime cleanup when it is collected;
//     graph.Sim.Close and scene runs close the nodes they hold. The one
//     exception is the standard's: after a function returned Fatal no
//     function of that binary is called again, FreeInstance included.
//   - The FMU's hidden state follows the graph: a node steps only from
//     the state the FMU is in, one it saved (before the current step
//     when re-stepping is allowed, around a model-exchange FMU's last
//     event, after initialization) or a restored checkpoint; anything
//     else is an error wrapping [ErrState], never a silent result from
//     the wrong state. An Update or Outputs repeated with the same
//     arguments returns its result again without calling the FMU (a
//     graph replays a failed step to name the failing node).
//   - Every status other than OK — Warning, Discard, Error, Fatal — is an
//     error: a [*CallError] naming the FMU, the instance, the function,
//     the status, the simulation time and the messages the FMU logged
//     during the call. A NaN or infinite value read from the FMU is an
//     error wrapping [ErrNonFinite] naming the function and the variable.
//   - The per-step path (Update, Derivatives, Outputs, EventValues)
//     allocates nothing and looks up no name: value references, function
//     pointers and buffers are resolved when the node is made.
//
// # Checkpoints and coupling
//
// Both node types are node.HiddenState: graph checkpoints store the
// FMU's serialized state (fmi3SerializeFMUState; FMI 2.0:
// fmi2SerializeFMUstate) with the node's bookkeeping, and restore it, so
// that a resumed run continues bit for bit. An FMU without
// canSerializeFMUState makes a checkpoint fail, naming it. A coupling
// strategy that steps nodes again from the start of a step (iterated
// groups) asks AllowRestep first; an FMU without canGetAndSetFMUState is
// refused there, naming the strategy and the FMU; one with it saves its
// state (fmi3GetFMUState) before every step.
//
// # Step events and sensitivities
//
// A model-exchange FMU is told of every accepted step
// (fmi3CompletedIntegratorStep) by the node's own integration in
// co-simulation and, through node.StepCompleter, by a graph's integrator
// in monolithic runs; a step event it asks for there gets the FMU's event
// update at the end of the step, and the integration restarts from the
// state after it. An FMU that asks to terminate ends a monolithic run at
// that step (graph.Result.StopCause names it). Sensitivities go through
// the FMU's right-hand side only, so the node refuses them
// (node.SensitivityChecker) when the FMU has events or discrete state,
// whose updates run hidden inside it.
//
// # Transports
//
// The node types reach the FMU through one internal interface,
// instance (calls.go), whose methods map one to one onto the FMI
// functions of both versions: initialization, get and set by type (values
// as float64, value references as uint32), fmi3DoStep (and stepAndGet,
// a step with its Float64 outputs in one call: one round trip), the
// model-exchange functions, directional derivatives, FMU states in
// numbered slots and serialized to bytes, reset, terminate and free. A
// transport makes instances (the transport interface). This package
// builds one: in-process, the binary loaded with dlopen and called
// through C wrappers (cgo.go, cfmi.c; without cgo, nocgo.go refuses with
// [ErrNeedsCgo]). A second transport — the FMU in a child process,
// reached over a pipe, so that an FMU that crashes cannot take cosim down
// — implements the same interface: every argument and result is plain
// data (numbers, value references, byte slices; FMU states are slot
// numbers, never pointers), every method returns a *CallError for a
// status other than OK with the messages logged during the call, and the
// node types need no change. Its contract: calls on one instance arrive
// one at a time; free is called exactly once and calls nothing in the FMU
// after a Fatal status; get reports an integer without an exact float64
// form as ErrNotRepresentable; a crash of the child is an error naming
// the FMU and the function.
//
// # Reading order
//
// modeldesc.go (the version-neutral model description) with xml2.go and
// xml3.go (the two schemas); archive.go (Open, unpacking, platforms);
// calls.go (the instance interface, statuses, errors); cgo.go and cfmi.c
// (the in-process transport) or nocgo.go; spec.go (variables → the
// node's spec) and units.go; node.go (what both node types share:
// parameters, initialization, errors, lifetime); cosim.go and me.go (the
// two node types); hidden.go (checkpoints and re-stepping); meta.go,
// describe.go and load.go (metadata, descriptions, the registry type).
//
// # Concurrency
//
// An FMU and the nodes made from it are safe for concurrent use: calls
// into one instance are serialized by the node (FMI instances are not
// reentrant), distinct instances run concurrently, so a graph steps many
// FMU nodes on its workers. SetParams must not be called while a graph
// holding the node runs.
package fmi
