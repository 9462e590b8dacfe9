// Package layering holds the tests that keep cosim's dependencies
// pointing down and its API free of exported mutable state; it has no
// code of its own.
//
// # Invariants
//
// The rules its tests enforce, from the package layout every doc.go
// describes:
//
//   - node/ and anomalies/ import nothing of cosim; integrators/ knows
//     only its own System interfaces (nothing of cosim);
//   - graph/ knows the node contract, never a concrete node package;
//   - every node package nodes/<name> imports only node/ (and the
//     standard library), never graph/ or another node package;
//   - verification's exported API, scene/ and coupling/ import no node
//     package (nodes/ is the catalog the commands and tests use); scene
//     keeps one exception, nodes/source, whose lookup CSV files it reads;
//   - fmi/ (the FMU importer) imports only node/ and integrators/ (and
//     the standard library): scene and the commands reach it through
//     the registry's dynamic type "fmu" (nodes.Registry), never by name;
//   - fmi/export (the FMU exporter) imports no node package: the
//     command passes it the registry;
//   - no package exports a mutable variable — a table (map, slice), a
//     struct of function fields (a node.Type), a value such as a default
//     limit, a pointer or a function — only error sentinels; tables and
//     values are unexported behind functions that return copies
//     (TestNoExportedMutableState);
//   - a name declared at the top level (type, function, constant,
//     variable) by two importable packages (every package but commands
//     and internal ones; the test lists the few not yet covered) names
//     one thing in both, and the names renamed because their meanings
//     differed (coupling.Method, graph.Func, node.Kind, node.Coupling,
//     source.Hold, control.Hold, …) stay gone, but as deprecated aliases
//     the test lists (TestOneNameOneMeaning);
//   - "Coupling" in an exported name means the co-simulation coupling of
//     package coupling only, and package coupling has no "Method"
//     (TestCouplingMeansStrategies; docs/glossary.md has the words);
//   - pairs of functions that did the same thing keep the one that reads
//     best (TestNoRedundantPairs), and the describe JSON types live in
//     node/describe.
//
// # Concurrency
//
// The tests run `go list` once and parse source files; they share
// nothing.
package layering
