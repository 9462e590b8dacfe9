package main

import (
	"runtime"
	"time"

	"github.com/cosimgo/cosim/internal/cpuclock"
)

// The clock of the hand-written loops' and the graph's one-worker runs
// (co-simulation, monolithic, adaptive): wall time since the report
// started, or with -cpu-clock the CPU time of the calling thread, to
// which the report's goroutine is then locked. On a machine shared with
// other work a run's wall time includes the time other processes held
// its core; its thread's CPU time does not, so the ratio of two runs
// taken in the same rounds moves less. Two-worker runs are not measured
// on this clock's CPU variant (another thread's work is not counted):
// -cpu-clock is for -small, which reports one worker only.

var wallStart = time.Now()

// threadClock is set by -cpu-clock, when the platform has a per-thread
// CPU clock (cpuclock.Thread).
var threadClock bool

func clock() time.Duration {
	if threadClock {
		return cpuclock.Thread()
	}
	return time.Since(wallStart)
}

// useThreadClock switches clock to the thread's CPU time and locks the
// calling goroutine to its thread; it reports false where there is no
// per-thread CPU clock.
func useThreadClock() bool {
	if cpuclock.Thread() < 0 {
		return false
	}
	runtime.LockOSThread()
	threadClock = true
	return true
}
