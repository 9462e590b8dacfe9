//go:build race

package graph_test

// raceEnabled: the race detector adds allocations of its own, so
// allocation counts are only compared exactly without it.
const raceEnabled = true
