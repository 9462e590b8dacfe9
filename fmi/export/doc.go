// Package export writes a cosim scene as an FMI 3.0 co-simulation FMU,
// and runs the instances of such an FMU.
//
// # Overview
//
// [Export] (`cosim export SCENE -o MODEL.fmu`) resolves the scene's fmu
// section against its graph into a [Model] — the FMU's variables, in
// value-reference order time, parameters, inputs, outputs — and writes
// the FMU: modelDescription.xml ([Model.ModelDescription], through
// fmi.ModelDescription.EncodeFMI3), the binary compiled from
// shim/fmu.c with the system's C compiler, and in resources/ the scene
// (with the files its nodes read) and the cosim program that runs it.
// The binary starts that program for each instance ([ServeCommand]) and
// forwards every fmi3 call to it over a Unix socket pair; [Serve] is the
// program's side: it builds the scene's graph with the parameters the
// master set, wires an input node (input.go) into the node inputs each
// FMU input drives, steps the graph in the scene's mode on
// fmi3DoStep, and keeps FMU states as graph checkpoints. docs/fmi.md
// ("Exporting a scene as an FMU") says why the binary is C and not a Go
// c-shared library.
//
// Reading order: model.go (the variables of a scene's FMU),
// description.go (its model description), export.go (the FMU file),
// protocol.go (the wire format the binary and Serve share),
// serve.go (an instance), input.go (the node an FMU input is),
// shim/fmu.c (the binary).
//
// # Invariants
//
//   - Both sides compute the Model from the same file (resources/scene.json)
//     with the same code, so they agree on every value reference; the
//     instantiation token hashes the scene and the variables, and an
//     instance whose token differs is refused.
//   - A communication step that is a whole number of the scene's steps
//     runs the scene's own grid: the FMU's outputs are the bits
//     `cosim run` computes. Any other step is split into the fewest equal
//     sub-steps no longer than the scene's dt.
//   - A refused Set changes nothing; after a failed step only Reset and
//     FreeInstance are accepted.
//   - The binary contains no Go: it loads beside any other FMU (Go-built
//     ones included) and into cosim's own process.
//
// # Concurrency
//
// Serve handles one instance on the calling goroutine; each instance is
// its own process. The binary keeps no global state: instances are
// independent, and FMI's rule that calls on one instance are not
// concurrent is the only one it relies on.
package export
