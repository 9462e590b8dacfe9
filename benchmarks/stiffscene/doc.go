// Command stiffscene writes examples/scenes/stiff-chain-20000.json: the
// W4 stiff chain (package benchmarks, StiffChain) of 20 000 masspoints
// and 20 001 springdampers (k = 1e7 N/m, c = 10 N·s/m on every axis)
// between two walls, started in its first mode, integrated
// monolithically by generalized-alpha with GMRES and block-Jacobi. The
// file is generated (its description says so) and a test fails when it
// is stale.
//
// Run it from the module root: go run ./benchmarks/stiffscene
//
// Invariants: the output is deterministic (same bytes on every run).
// Concurrency: it runs on one goroutine.
package main
