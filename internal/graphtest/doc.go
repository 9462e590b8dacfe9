// Package graphtest holds test fixtures that more than one package's
// tests build into graphs, so each is written once: [FloorMass], a
// point mass over a penalty floor whose Derivatives switch mode at the
// floor and that has no analytic Jacobian, and [FloorJacobian], which
// builds it alone into a graph and linearises it there (graph's tests
// check the Jacobian on either side of the switch; docs' tests take the
// error at the switch for docs/errors.md).
//
// It is for tests only. It imports node and graph, never a node package,
// so graph's external tests (package graph_test) and everything above
// graph may use it; graph's internal tests and node's tests may not (an
// import cycle).
//
// # Invariants
//
// The fixtures are deterministic and hold no state between calls: each
// call returns a fresh node or graph.
//
// # Concurrency
//
// Every function is safe for concurrent use; a FloorMass is immutable
// after construction.
package graphtest
