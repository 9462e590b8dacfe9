//go:build race

package control_test

// raceEnabled: the race detector allocates on its own, so allocation
// counts are only checked without it.
const raceEnabled = true
