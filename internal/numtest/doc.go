// Package numtest holds the comparisons and counts that many packages'
// tests share, so that each is written, and proven, once:
//
//   - [Within], [Near], [ExpectWithin], [AtMost] and [FiniteScale] compare computed values with references
//     under a tolerance, relative to a scale when the tolerance is stated
//     as a fraction of the largest entry (of a Jacobian, say). Written
//     naively, such a check passes on garbage: |NaN − w| > tol is false,
//     and a NaN or infinite entry makes the scale, and every tolerance
//     taken of it, NaN or +Inf. These helpers fail instead.
//   - [AllocsPerRun] counts allocations with the garbage collector off:
//     a collection during the count empties sync.Pools (the node
//     kernels' scratch, the runtime's and libraries' own), whose refills
//     then count as allocations of whichever call met them.
//
// It is for tests only and imports nothing of cosim, so every package's
// tests, internal or external, may use it without an import cycle.
//
// # Invariants
//
//   - Within and Near are false, and ExpectWithin fails the test,
//     whenever got or want is NaN or infinite, or tol is NaN; AtMost whenever x is NaN or infinite, or bound is NaN: a check
//     written !Within(…) or !AtMost(…) fails on them.
//   - FiniteScale stops the test (Fatalf) on the first NaN or infinite
//     entry, naming what was scanned and the entry's index.
//
// # Concurrency
//
// Within and FiniteScale are pure. AllocsPerRun changes the process's
// garbage-collection setting for the duration of the count (restoring
// it after); a test calling it must not run in parallel with another
// that counts allocations or sets the collector (none calls t.Parallel
// around a count today).
package numtest
