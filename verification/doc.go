// Package verification proves cosim's numerical claims: every declared
// order of accuracy is measured by the method of manufactured solutions,
// and the ported codes' published reference numbers are reproduced.
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
// # Methods on whole graphs
//
// [Manufactured] holds one node's own Update to its declared order;
// [MonolithicStudy] holds an integration method — built in, or a
// caller's own integrators.Method — to its declared Order on a whole graph
// run by graph.Sim.RunMonolithic against a closed-form or manufactured
// solution, over a ladder of step counts (the tests hold a three-stage
// SSP Runge–Kutta method defined outside package integrators to order 3
// this way).
//
// # Conformance
//
// [CheckConformance] checks any node against the node contract (spec,
// scheme, Jacobians, parameter injection) and reports every violation at
// once. It knows no concrete node: a node's Update is held to an
// integrators method, to a generic built-in scheme ([Schemes], a copy:
// semi-implicit Euler with a Lie-group rotation, the exact solution with
// the inputs held, exponential Euler), or
// to a reference the caller supplies with [WithScheme] (verification/gimbal
// holds rigidbody's gimbal scheme). Nothing in the package's exported API
// imports a node package.
//
// # Batch kernels
//
// [CheckBatch] holds a family's batch kernel (node.Batcher) bit for bit
// to its members' own Update, Outputs and Derivatives, over random
// states, inputs, layouts and row chunkings, and checks that the kernel
// fails exactly when a member does, sees SetParams on its members, and
// leaves nothing alive once dropped (members that kept their batches
// would keep every graph's). The tests run it on every node type of the
// registry at family sizes from 1 to 300, check at graph level (graph's
// batch tests) that the batched and per-node paths give the same bits,
// and build a graph of every type a thousand times with the live heap
// flat.
//
// # Invariants
//
//   - Declared orders are read from node metadata and integrator
//     descriptions, never repeated in a test.
//   - Every reference value cites where it comes from (a published
//     document named by title and version, an analytic solution, an independent computation) and every tolerance
//     says why it is what it is.
//
// # Concurrency
//
// [Evidence] and [EvidenceFor] only read embedded data and are safe for
// concurrent use. [CheckBatch] calls its members' methods and SetParams
// and must not run while anything else uses them; it calls the kernel
// from several goroutines at once (on disjoint rows) to expose shared
// scratch to the race detector.
//
// # Reading order
//
// conformance.go is CheckConformance (one node against the contract);
// mms.go and mms_graph.go the method of manufactured solutions and the
// observed orders; evidence.go the recorded measurements. batch.go is
// CheckBatch, with batch_bound.go (the stable-step bound) and
// batch_lifetime.go (what a dropped batch must leave behind: nothing).
package verification
