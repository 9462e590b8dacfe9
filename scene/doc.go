// Package scene reads, checks, builds, runs and writes scene files: JSON
// descriptions of a whole simulation (docs/scenes.md).
//
// # Overview
//
// [Decode] reads a file strictly and checks its structure; [Load] also
// checks it against a registry, reporting both at once; [Scene.Build]
// turns it into a *graph.Graph from a node registry, attaching the
// connectors of the Connectors section with graph.Graph.AddConnector and
// the registry's node.Connector of their type (any connector type the
// registry holds: springdamper, spring, or one registered later, with no
// change here);
// [Scene.Compile] also compiles the graph; [Scene.Simulate] runs it in the
// scene's mode (co-simulation with its coupling strategy, fixed-step
// monolithic with its integrator, or adaptive monolithic with dense
// output and events) with one graph.Sim.Run of the scene's run settings
// ([Scene.Settings] gives the same graph.Settings) and returns a
// [Result]: that run's graph.Result — the Stats, Status and mode parts
// every mode shares — and the compiled Sim in its end state. The run
// section maps onto the packages that run it: the run.coupling section
// ([Coupling], [Coupling.Strategy]) is a coupling.Strategy and
// run.integrator ([IntegrationMethod], [IntegrationMethod.Configure]) an integration
// method of package integrators, from its registry (integrators.ByName,
// so a method a program registered can be named too) with the scene's
// options set on it, and its integrators.DriverOptions: graph.Settings
// Method, Options and Adaptive. [Scene.With] applies --set style overrides of parameters
// and run settings. [FromGraph] and [Scene.Encode] save a graph built in
// Go. [Schema] generates the JSON Schema of scene files from a registry
// (docs/scene.schema.json).
//
// [LoadFile] and [DecodeFile] read a scene from a path and set
// [Scene.Dir], against which a lookup node's "file" (a CSV column, with
// "column" and optionally "time_column") is read when the scene is built:
// at most [MaxTableBytes] and source.MaxRows rows; a missing file or
// column, a value that is not a finite number or times that do not
// strictly increase is an error at nodes[i].params.file naming the file,
// the line and the column ([ErrTableFile]). The file's data replace those
// three parameters by "times" and "values" before the node is built.
//
// A registry type's file parameters (node.Type.Paths: an imported FMU's
// "path", node type "fmu") are likewise resolved against [Scene.Dir].
// Nodes that hold resources outside Go memory (io.Closer: an FMU's
// instance) are closed when a scene does not compile or its run cannot
// start; a run that starts leaves them to Result.Sim.Close.
//
// # Invariants
//
//   - Every error is reported with its place: a *Error whose Path is a
//     JSON path with array indices ("nodes[1].params",
//     "connectors[0].bodies[1]", "edges[2].transform.factor",
//     "record.fields[0]", "run.integrator.rho_inf"), followed by the line
//     and column when the problem is found while reading the file (unknown
//     keys, wrong JSON types, null or out-of-range parameter values), or a
//     line and column alone for syntax errors.
//   - Problems are reported at once (errors.Join, at most MaxErrors):
//     Decode reports every format or structural problem of a file; Load,
//     Build, Compile and Simulate report the structural problems together
//     with unknown types, bad parameters, connectors that cannot attach,
//     recorded fields the nodes lack and graph wiring errors mapped back to
//     the edge or connector they come from. A part with a problem is left
//     out of the graph with what is attached to it, so its consequences
//     are not reported. Only a syntax error, or a file that does not decode
//     into a Scene (unknown keys, wrong types), stops before the checks.
//   - Files are strict: keys are exact and case-sensitive (with a "did
//     you mean"), a key given twice in one object is an error naming both
//     places, steps with end and a dt larger than end are errors, and so
//     are an edge from a node into its own input, a connector whose two
//     bodies are one node, and the same edge twice (or an edge a
//     connector makes already), which would count twice in an additive
//     input. Problems a Scene.With override causes name the "--set" key
//     ([Scene.SetBy]), not the file's place.
//   - Simulate returns no Result for a scene with a problem: a run that
//     starts has valid parameters, wiring and recorded fields.
//   - Simulate's Options.Observer is the graph's observer hook
//     (graph.Observer) and Options.RecordTo its row stream, in every
//     mode; neither can change the results. Simulate derives nothing
//     from the run's Result: it is the graph's.
//     Options.Resume continues a checkpoint of the same scene bit for bit.
//   - Scenes never carry code: only registered node types, the three
//     transform kinds and the connector types exist; function-valued
//     parameters cannot be set or saved.
//   - Build is deterministic: nodes in file order, then connectors with
//     their edges, then edges; additive inputs sum in that order.
//   - A saved graph loads back into a graph whose runs are bit-identical,
//     and settings that do not apply (an integrator in co-simulation, a
//     tolerance of a fixed-step method) are errors, never ignored.
//
// # Concurrency
//
// A Scene is a plain value: reading it concurrently is safe, and With
// returns a copy, so sweeps run many variants of one scene at once.
// Simulate builds a fresh graph every call; its Observer and Prepare are
// called on the goroutine that called Simulate.
//
// # Reading order
//
// scene.go defines the format (the Go types a file decodes into) and
// lists the other files by responsibility: decode.go and walk.go read a
// file, check.go checks its structure, compile.go builds the graph,
// settings.go the run settings, with.go the overrides, run.go Simulate,
// save.go FromGraph and Encode, schema.go the JSON schema, files.go and
// errors.go the files a scene reads and its errors.
package scene
