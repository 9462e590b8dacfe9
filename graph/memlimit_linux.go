//go:build linux

package graph

import (
	"os"
	"syscall"
)

// processMemoryLimit returns the default RecordLimit and where it comes
// from (defaultRecordLimit, on this system's files and rlimits).
func processMemoryLimit() (int64, string) {
	var rl syscall.Rlimit
	as := uint64(0)
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err == nil && rl.Cur < 1<<63 { // RLIM_INFINITY is all ones
		as = rl.Cur
	}
	return defaultRecordLimit(os.ReadFile, as)
}
