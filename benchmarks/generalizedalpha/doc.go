// Command generalizedalpha is the driver validation of the
// two-mass consumer of MADDENING's generalized-alpha guide ("Two masses,
// two known modes", MADDENING 0.4 documentation): it checks the package
// driver (integrators.SecondOrderStepper) against the independent dense
// reference of internal/twomass, registered Newmark, the refinement
// order with the algorithmic acceleration carried and reset, the
// spectral radius and the MADDENING two-mass guide's negative controls, and counts its
// work; it writes VALIDATION.md and validation.json into -out. Every
// number comes from the run. README.md says how the work is split with
// benchmarks/structuralmodes.
//
// Run it from the module root: go run ./benchmarks/generalizedalpha
//
// Invariants: the files it writes are a pure function of the run (no
// timing enters VALIDATION.md's pass/fail lines), so a rerun on any
// machine gives the same verdicts. Concurrency: it runs on one goroutine.
package main
