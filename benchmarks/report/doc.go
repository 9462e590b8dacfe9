// Command report runs cosim's standard performance workloads (package
// benchmarks), prints a table of the results and writes
// benchmarks/REPORT.md and the plot benchmarks/cost-vs-n.png.
//
// Usage, from the module root:
//
//	go run ./benchmarks/report [-max 100000] [-dir benchmarks]
//
// -max caps the chain size (the sizes are 10, 100, 1 000, 10 000 and
// 100 000); the default runs them all and takes a few minutes on two
// cores. Every timing is the fastest of several interleaved repetitions
// (at least one, more for short runs), so the ratios compare runs made
// under the same machine load.
//
// Invariants: every number in REPORT.md comes from the run that wrote
// it (sections rewritten alone, such as -w4 or -sched, replace only
// their own marked block); peer programs (PETSc, CVODE) are built and
// run by the report itself when their packages are installed, and the
// report says so when they are not. Concurrency: the workloads run one
// at a time (each timing in a child process where peak memory matters),
// so no two measurements share the machine.
package main
