//go:build !linux

package graph

import "errors"

// processMemoryLimit returns the default RecordLimit and where it comes
// from: GOMEMLIMIT when set, else 4 GiB (no /proc or rlimit to read).
func processMemoryLimit() (int64, string) {
	return defaultRecordLimit(func(string) ([]byte, error) { return nil, errors.New("not Linux") }, 0)
}
