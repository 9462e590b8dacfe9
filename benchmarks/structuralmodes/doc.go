// Command structuralmodes is the behaviour report of the two-mass
// consumer of MADDENING's generalized-alpha guide: it runs the package
// driver on its problem (modes of 1 and 40 rad/s, dt = 0.1 s, 120 steps) for registered
// Newmark and generalized-alpha at ρ∞ = 1, 0.8, 0.5 and 0, and writes
// REPORT.md and report.json (the MADDENING two-mass guide's table, the counted work and the
// refinement study on the resolved 1 and 3 rad/s problem) into -out, and
// the four-panel figure into -figure. Every number comes from the run.
// README.md says how the work is split with benchmarks/generalizedalpha.
//
// Run it from the module root: go run ./benchmarks/structuralmodes
//
// Invariants: the written tables and figure are a pure function of the
// run's numbers. Concurrency: it runs on one goroutine.
package main
