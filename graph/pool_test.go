package graph

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestPoolRunsEveryPartOnce: whoever claims them, every part of every
// job runs exactly once, with the job's own data, for any pool size —
// the property that makes results independent of which goroutine runs
// which part.
func TestPoolRunsEveryPartOnce(t *testing.T) {
	for _, n := range []int{2, 3, 4, 8} {
		const jobs = 2000
		var job int // written by the caller before runParts, read by parts
		counts := make([][]atomic.Int32, jobs)
		for i := range counts {
			counts[i] = make([]atomic.Int32, n)
		}
		p := startWorkerPool(n, func(w, m int) {
			if m != n {
				t.Errorf("part(%d, %d) of a pool of %d", w, m, n)
			}
			counts[job][w].Add(1)
		})
		for job = range jobs {
			p.runParts()
		}
		p.stop()
		for j := range counts {
			for w := range counts[j] {
				if c := counts[j][w].Load(); c != 1 {
					t.Fatalf("n = %d: job %d part %d ran %d times", n, j, w, c)
				}
			}
		}
	}
}

// TestPoolRunsAloneWhenSharingLoses: with one P for two goroutines the
// worker cannot run while the caller does, so sharing saves nothing and
// the pool must switch to running jobs on the caller alone (the rule of
// workerPool.adapt), and still run every part once.
func TestPoolRunsAloneWhenSharingLoses(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var runs atomic.Int64
	p := startWorkerPool(2, func(w, n int) {
		// About 50 µs of work per part.
		for end := time.Now().Add(50 * time.Microsecond); time.Now().Before(end); {
		}
		runs.Add(1)
	})
	const jobs = 4 * soloWindow
	for range jobs {
		p.runParts()
	}
	p.stop()
	if got := runs.Load(); got != 2*jobs {
		t.Errorf("%d parts ran, want %d", got, 2*jobs)
	}
	if p.soloPhases == 0 {
		t.Errorf("no phase ran on the caller alone (%d shared)", p.sharedPhases)
	}
}
