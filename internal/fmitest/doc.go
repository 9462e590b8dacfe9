// Package fmitest builds FMUs for tests: the FMI standard's Reference
// FMUs from their C sources in ../shared/fmi/reference-fmus (relative to
// the module root) and test FMUs of cosim's own, with gcc, into a cache
// directory. It is for tests only.
//
// # Invariants
//
//   - Each FMU is built once per machine and set of sources: the cache
//     key hashes the sources, the compiler flags and the compiler's
//     version, so a changed source rebuilds. A build goes to a temporary
//     directory renamed into place, so concurrent test binaries never
//     see a half-built FMU.
//   - A missing prerequisite (gcc, the sources) skips the calling test,
//     and fails it when the environment variable CI is "true": CI must
//     run every FMU test.
//
// # Concurrency
//
// The functions are safe for concurrent use; a process builds each FMU
// once (sync.Once per key).
package fmitest
