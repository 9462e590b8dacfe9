//go:build !linux

package main

import "time"

// threadCPU: no per-thread CPU clock here (−1); -cpu-clock keeps wall time.
func threadCPU() time.Duration { return -1 }

// processCPU: not measured here (−1).
func processCPU() time.Duration { return -1 }
