// Package anomalies is the registry of cosim's known defects.
//
// # Overview
//
// Each [Entry] names a defect (ID, title, description, severity, affected
// components, status, the versions it was found and resolved in, a
// workaround, the public document it comes from when another code found it first) and the test that pins it. The
// registry is data in this package, queryable with [All], [ByID],
// [Filter] and [ForComponent], and exported as JSON with [WriteJSON]
// (`cosim anomalies --json`).
//
// # Invariants (the pinning discipline)
//
//   - IDs are unique and every field a record needs is set (TestRecords).
//   - Every open or wont-fix anomaly has a test that reproduces it and
//     fails when it stops reproducing, with a message saying to mark it
//     resolved: a strict expected failure.
//   - Every resolved anomaly has a regression test that fails if it
//     returns.
//   - Every anomaly ID in any node's metadata exists here, and every
//     record's Test names a test function that exists (checked by
//     docs.TestAnomalyCrossReferences and verification.TestAnomalyTestsExist, which parse the sources).
//
// The package imports nothing of cosim: it is the ground floor, so that
// any package may cite it.
//
// # Concurrency
//
// The registry is immutable; every function is safe for concurrent use
// and returns fresh slices.
package anomalies
