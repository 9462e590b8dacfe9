// Command w4child runs one W4 configuration (benchmarks.RunW4) and
// prints its measurement as one JSON line:
//
//	w4child N,method,solver,steps
//
// The report (go run ./benchmarks/report -w4) builds it and runs it in a
// child process per configuration, so that the peak resident size it
// records is that of a program that runs W4 and nothing else — as the C
// peers are — and not that of the report, whose own code and data
// (plots, the peers' drivers, FMI) add about 13 MB.
//
// Invariants: it prints exactly one JSON line (benchmarks.W4Run) on
// success and exits non-zero with a message otherwise; what it measures
// is RunW4's, so the report's table and a run of the child by hand agree.
// Concurrency: one configuration per process; the graph runs with its
// default workers.
package main
