// Package export writes a cosim scene as an FMI 3.0 co-simulation FMU,
// and runs the instances of such an FMU.
//
// # Overview
//
// [Export] (`cosim export SCENE -o MODEL.fmu`) resolves the scene's fmu
// section against its graph into a [Model] — the FMU's variables, in
// value-reference order time, parameters, inputs, outputs — and writes
// the FMU: modelDescription.xml ([Model.ModelDescription], through
// fmi.ModelDescription.EncodeFMI3), the binary, and in resources/ the
// scene with the files its nodes read. An [Instance] is one instance of
// the FMU: its methods are the fmi3 co-simulation functions; it builds
// the scene's graph with the parameters the master set, wires an input
// node (input.go) into the node inputs each FMU input drives, steps the
// graph in the scene's mode on DoStep, and keeps FMU states as graph
// checkpoints. The graph is built once, at initialization, and DoStep
// advances it in place (graph.Sim.Step per scene step) in the default
// co-simulation mode; other modes, and graphs large enough for a run to
// share a step among workers, run the graph once per DoStep. Both
// binaries run it:
//
//   - c-shared ([BinaryCShared], the default): the Go library of package
//     fmi/export/cshared, built at export with go build
//     -buildmode=c-shared from cosim's source (cshared.go finds it and
//     caches the library); its fmi3 functions call an Instance in the
//     master's process.
//   - process ([BinaryProcess]): the C library compiled from shim/fmu.c,
//     which starts the cosim program the FMU carries for each instance
//     ([ServeCommand]) and forwards every call over a Unix socket pair;
//     [Serve] is that program's side, decoding each request into the
//     Instance's method.
//
// docs/fmi.md ("How the binary works, and why") says when to choose
// which.
//
// Reading order: model.go (the variables of a scene's FMU),
// description.go (its model description), export.go (the FMU file),
// cshared.go (building the c-shared binary), instance.go (an instance),
// input.go (the node an FMU input is), protocol.go and serve.go (the
// process binary's wire format and its cosim side), shim/fmu.c (the
// process binary), cshared/ (the c-shared binary).
//
// # Invariants
//
//   - Export and the binary compute the Model from the same file
//     (resources/scene.json) with the same code, so they agree on every
//     value reference; the instantiation token hashes the scene and the
//     variables, and an instance whose token differs is refused. (A
//     c-shared binary is built from the source tree cosim export finds:
//     it must be the cosim that exports, or the token may differ.)
//   - A communication step that is a whole number of the scene's steps
//     runs the scene's own grid: the FMU's outputs are the bits
//     `cosim run` computes, with either binary. Any other step is split
//     into the fewest equal sub-steps no longer than the scene's dt.
//   - A start time t0 other than 0 starts the graph's clock at t0; the
//     steps are counted from there.
//   - In the default co-simulation mode a master's step (Set of inputs,
//     DoStep, Get of outputs) allocates nothing: names and value
//     references resolve to fields and slices when the graph is built.
//   - A refused Set changes nothing; after a failed step only Reset and
//     FreeInstance are accepted.
//   - The process binary contains no Go: it loads beside any other FMU
//     (Go-built ones included) and into cosim's own process. The c-shared
//     binary holds a Go runtime: cosim's importer refuses it in-process
//     (fmi.ErrNeedsIsolation) and runs it isolated.
//
// # Concurrency
//
// An Instance is not safe for concurrent use; instances are
// independent. Serve handles one instance on the calling goroutine, and
// each process-binary instance is its own process. The c-shared binary
// locks each instance for the duration of a call, so calls from any
// thread work. Export may run concurrently with itself (the c-shared
// cache is written by rename).
package export
