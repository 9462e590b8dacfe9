//go:build !linux

package cpuclock

import "time"

// Thread: no per-thread CPU clock here (−1).
func Thread() time.Duration { return -1 }

// Process: not measured here (−1).
func Process() time.Duration { return -1 }
