//go:build unix

package main

import (
	"errors"
	"syscall"
)

// processRuns reports whether a process with the id runs on this host
// (kill with signal 0: it exists, or exists and is not ours).
func processRuns(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
