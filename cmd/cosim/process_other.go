//go:build !unix

package main

// processRuns reports whether a process runs; without a way to ask, every
// process is taken to run, so that no temporary file is removed.
func processRuns(pid int) bool { return true }
