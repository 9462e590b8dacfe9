//go:build race

package verification

// raceEnabled: the race detector adds allocations of its own (and makes
// sync.Pool drop entries), so allocation counts are only checked without
// it.
const raceEnabled = true
