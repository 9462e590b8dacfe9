// Package verification proves cosim's numerical claims: every declared
// order of accuracy is measured by the method of manufactured solutions,
// and the seeds' published reference numbers are reproduced.
//
// # Overview
//
// Run `go test ./verification` (add -v for a table of measured against
// declared values). Every measurement is recorded as a [Measurement] in
// testdata/evidence.json; `go test ./verification -update` rewrites the
// file and a plain run fails when it is stale. The documentation
// generator renders the file as each node's Verification Evidence, so no
// guide claims a number that no test produced.
//
// # Invariants
//
//   - Declared orders are read from node metadata and integrator
//     descriptions, never repeated in a test.
//   - Every reference value cites where it comes from (a seed, an
//     analytic solution, an independent computation) and every tolerance
//     says why it is what it is.
//
// # Concurrency
//
// [Evidence] and [EvidenceFor] only read embedded data and are safe for
// concurrent use.
package verification
