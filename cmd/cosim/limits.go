package main

import (
	"github.com/cosimgo/cosim/calibrate"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/textio"
)

// The size limits of the files cosim reads, enforced while reading (a
// file that never ends, such as /dev/zero, costs at most the limit), so
// that no input can exhaust memory. Scene files (scene.MaxBytes), lookup
// tables (scene.MaxTableBytes), fit data (calibrate.MaxDataBytes and
// MaxDataValues) and checkpoints (graph.MaxCheckpointBytes) have their
// own, in their packages; docs/errors.md lists them all.
var (
	// maxHistoryBytes and maxHistoryValues bound a recorded history read
	// by plot, view --history and render --history: a history of
	// 2^25 values holds 256 MiB of floats.
	maxHistoryBytes  int64 = 512 << 20
	maxHistoryValues       = 1 << 25

	// maxSweepTableBytes bounds each table sweep merge reads, and
	// maxListBytes the --list file of a sweep.
	maxSweepTableBytes int64 = 256 << 20
	maxListBytes       int64 = 64 << 20

	// maxFitDataBytes bounds fit --data (calibrate.ReadCSV's own
	// limit, applied here too so that a test can lower it).
	maxFitDataBytes int64 = calibrate.MaxDataBytes

	// maxRuns bounds the runs of a sweep: a grid's size (checked before
	// anything of that size is allocated), a list's sets, and the runs
	// a merged table says the sweep has.
	maxRuns = 10_000_000
)

// They are variables only so that tests can lower them (lowLimits) and
// read an endless input in a moment.

// countValues refuses the next row of n values of a history being read
// when the history would hold more than maxHistoryValues values.
func countValues(h *graph.History, n int) error {
	if (len(h.Times)+1)*n > maxHistoryValues {
		return &textio.TooLargeError{What: "the history", Limit: int64(maxHistoryValues), Unit: "values"}
	}
	return nil
}
