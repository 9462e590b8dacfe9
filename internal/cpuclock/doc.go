// Package cpuclock reads CPU-time clocks: [Thread], the CPU time of the
// calling OS thread (Linux's CLOCK_THREAD_CPUTIME_ID), and [Process],
// the user and system CPU time of every thread of the process. A busy
// shared machine disturbs them less than wall time, so the benchmark
// report (benchmarks/report, -cpu-clock) and graph's layer benchmark
// (BenchmarkStepLayers, cpu-ns/op) time with them; both read the one
// implementation here.
//
// # Invariants
//
// Each clock returns −1 where the platform has no such clock or the
// system call fails, never a made-up value: callers fall back to wall
// time or leave the measurement out. On Linux both are monotonic for a
// given thread or process.
//
// # Concurrency
//
// Both functions are safe for concurrent use. Thread's value is that of
// whichever thread the goroutine runs on: a caller timing a span locks
// the goroutine to its thread (runtime.LockOSThread) for the span.
package cpuclock
