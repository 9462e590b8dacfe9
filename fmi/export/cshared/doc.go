// Command cshared is the c-shared binary of an FMU exported by cosim:
// built with go build -buildmode=c-shared (cosim export does, from
// cosim's source), it is a shared library exporting every function of
// FMI 3.0's C API, and runs the scene of the FMU's resources folder in
// the master's process. It is not a program: main is empty.
//
// fmu.c defines the fmi3 functions (the standard's signatures: the
// tests build it against fmi3Functions.h with -DCOSIM_FMI3_HEADERS); each
// checks the master's pointers and calls the Go function of main.go of
// the same name, which calls the export.Instance of the instance — the
// implementation the process binary's cosim process runs too, so the two
// binaries compute the same bits. Messages go to the master's logger
// through the C trampoline cosim_log (bridge.h). Two headers are shared
// with the process binary: fmi3state.h defines the FMU state functions
// over a transport each binary supplies, and fmi3unsupported.h defines the functions of what the FMU
// does not support (model exchange, scheduled execution, clocks, the
// other value types), which return fmi3Error with a logged reason.
//
// # Invariants
//
//   - An fmi3Instance is a C struct (bridge.h) holding the
//     runtime/cgo.Handle of its Go side; no Go pointer is held by C.
//   - A panic in cosim's Go code (a bug: user mistakes are errors) is
//     the call's fmi3Fatal, logged with its stack, not the end of the
//     master's process; the instance then accepts only
//     fmi3FreeInstance. (A Go runtime's fatal error still ends the
//     process.)
//   - An fmi3FMUState is a C struct holding the id of the Go instance's
//     state and, once asked for, its serialized bytes (C memory, freed
//     with the state).
//
// # Concurrency
//
// Instances share nothing but the Go runtime: any number of them, called
// from any threads, run independently. The calls on one instance are
// serialized by a lock (FMI does not allow concurrent calls on one
// instance; the lock turns a master's mistake into waiting, not a data
// race).
//
// A process holds one Go runtime: this library cannot be loaded into a
// Go program (cosim itself, which imports it isolated) nor beside
// another Go-built FMU. docs/fmi.md says when to choose the process
// binary instead.
package main
