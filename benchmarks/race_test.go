//go:build race

package benchmarks

// raceEnabled: the race detector adds allocations of its own, so
// allocation counts are only bounded without it.
const raceEnabled = true
