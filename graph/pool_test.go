package graph

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// poolJob runs one job of cells on p as the engine does (dispatch): split
// among the workers when the pool shares it, else whole on the caller.
// mark(lo, hi) is the work on cells [lo, hi).
func poolJob(p *workerPool, cells int, job *func(lo, hi int)) {
	if p.share(cells) {
		p.runParts(cells, p.n)
		return
	}
	(*job)(0, cells)
}

// startCellPool starts a pool of n whose part w of m runs *job on its
// share of cells.
func startCellPool(n, cells int, job *func(lo, hi int)) *workerPool {
	return startWorkerPool(n, func(w, m int) {
		(*job)(cells*w/m, cells*(w+1)/m)
	}, newSharing())
}

// TestPoolRunsEveryCellOnce: whoever claims the parts, and whether a job
// is shared or run alone, every cell of every job is computed exactly
// once, with the job's own data, for any pool size — the property that
// makes results independent of which goroutine runs which part.
func TestPoolRunsEveryCellOnce(t *testing.T) {
	for _, n := range []int{2, 3, 4, 8} {
		const jobs, cells = 3000, 64
		counts := make([][cells]atomic.Int32, jobs)
		var cur int // the job: written by the caller before the parts run
		job := func(lo, hi int) {
			for c := lo; c < hi; c++ {
				counts[cur][c].Add(1)
			}
		}
		p := startCellPool(n, cells, &job)
		for cur = range jobs {
			poolJob(p, cells, &job)
		}
		p.stop()
		for j := range counts {
			for c := range counts[j] {
				if got := counts[j][c].Load(); got != 1 {
					t.Fatalf("n = %d: job %d cell %d computed %d times", n, j, c, got)
				}
			}
		}
	}
}

// busyFor works (does not sleep) for d.
func busyFor(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
	}
}

// TestPoolRunsAloneWhenSharingLoses: with one P for two goroutines the
// worker cannot run while the caller does, so sharing saves nothing and
// the pool must switch to running jobs on the caller alone, and still
// compute every cell once.
func TestPoolRunsAloneWhenSharingLoses(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var cells atomic.Int64
	job := func(lo, hi int) {
		busyFor(time.Duration(hi-lo) * time.Microsecond) // 50 µs a job
		cells.Add(int64(hi - lo))
	}
	const jobs = 400
	p := startCellPool(2, 50, &job)
	for range jobs {
		poolJob(p, 50, &job)
	}
	p.stop()
	if got := cells.Load(); got != 50*jobs {
		t.Errorf("%d cells computed, want %d", got, 50*jobs)
	}
	if p.s.soloJobs == 0 {
		t.Errorf("no job ran on the caller alone (%d shared)", p.s.sharedJobs)
	}
}

// TestPoolCallerSleepsForDescheduledPart: a part that is held up far
// longer than the caller's own (a worker whose thread stopped running in
// the middle of it) makes the caller sleep rather than spin, the worker
// wake it, and the pool run the next jobs alone. Part 1 of every job is
// held up; the caller, which claims part 0 first and works on it for
// 200 µs, sleeps as soon as a worker has claimed part 1 (the worker may not be running yet for the
// first jobs, which the caller then runs whole).
func TestPoolCallerSleepsForDescheduledPart(t *testing.T) {
	const jobs = 200
	var ran [jobs][2]atomic.Int32
	var cur int
	p := startWorkerPool(2, func(w, n int) {
		if w == 1 {
			time.Sleep(2 * time.Millisecond) // held up, not working
		} else {
			busyFor(200 * time.Microsecond) // time for a worker to claim part 1
		}
		ran[cur][w].Add(1)
	}, newSharing())
	stalls := 0
	for cur = range jobs {
		if p.share(2) {
			p.runParts(2, 2)
			if p.s.stalled {
				stalls++
			}
		} else {
			ran[cur][0].Add(1) // the job alone
			ran[cur][1].Add(1)
		}
		if stalls > 0 && p.s.soloJobs > 0 {
			break
		}
	}
	p.stop()
	for j := 0; j <= cur; j++ {
		for w := range ran[j] {
			if got := ran[j][w].Load(); got != 1 {
				t.Errorf("job %d part %d ran %d times", j, w, got)
			}
		}
	}
	if stalls == 0 {
		t.Errorf("the caller never slept for a held-up part in %d jobs", cur+1)
	}
	if p.s.soloJobs == 0 {
		t.Errorf("after the caller slept, no job ran alone (%d shared)", p.s.sharedJobs)
	}
}

// TestSharingJudge holds the decision rule to synthetic times: before
// any time alone is measured, a window is followed by a measuring spell
// whatever its outcome; then windows that save time keep sharing, a
// window that loses starts a spell whose length doubles while windows
// keep losing, up to lossShare times what the losing window cost against
// running alone, and comes back to the shortest after a win; a spell's
// rows follow the time per row alone, a window already lost after
// earlyJobs jobs is judged at once, and a run that keeps winning still
// measures the time alone now and then.
func TestSharingJudge(t *testing.T) {
	us := time.Microsecond
	now := time.Unix(1000, 0)
	s := newSharing()
	// Sixteen jobs of 100 rows: the caller ran one part of two in 10 µs
	// (20 µs alone by its estimate) and the job took wall.
	fill := func(wall time.Duration) {
		s.startWindow(now)
		for range windowJobs {
			s.shared(100, 2, 1, 10*us, wall, now, false)
		}
	}
	fill(11 * us)
	if !s.judge(windowJobs*12*us, now) || s.until != now.Add(minSpell) {
		t.Fatalf("the first window, time alone unmeasured, did not start a spell of %v", minSpell)
	}
	// Its rows at the caller's estimate: 336 µs (320 of parts, 16
	// between jobs) for 1 600 rows.
	perRow := 336e3 / 1600.0
	if want := int64(float64(minSpell) / perRow); s.left != want {
		t.Errorf("measuring spell of %d rows, want %d", s.left, want)
	}
	s.alone = false
	s.soloPerRow = 200 // ns per row alone: 20 µs a job
	fill(11 * us)
	if s.judge(windowJobs*12*us, now) {
		t.Fatalf("a window at 0.6 of the time alone started a spell")
	}
	if s.windows != 1 || s.spell != minSpell {
		t.Errorf("after a win: %d windows, spell %v; want 1, %v", s.windows, s.spell, minSpell)
	}
	// The same jobs at 40 µs each: twice the time alone, lost, 320 µs
	// more than alone over the window; the spells double from minSpell
	// up to lossShare times that, 20.48 ms.
	limit := time.Duration(lossShare * windowJobs * 20 * us)
	for k, want := range []time.Duration{minSpell, 2 * minSpell, 4 * minSpell, limit, limit} {
		fill(40 * us)
		if !s.judge(windowJobs*40*us, now) {
			t.Fatalf("loss %d: a window at twice the time alone kept sharing", k)
		}
		if !s.alone || s.until != now.Add(want) {
			t.Errorf("loss %d: alone %v until %v, want a spell of %v", k, s.alone, s.until.Sub(now), want)
		}
		if wantRows := int64(want / (200 * time.Nanosecond)); s.left != wantRows {
			t.Errorf("loss %d: spell of %d rows, want %d", k, s.left, wantRows)
		}
		s.alone = false
	}
	// A window at 0.95 of the time alone loses (above shareGain) but
	// costs nothing against running alone: the spell after it is the
	// shortest, however long the last one was.
	fill(19 * us)
	if !s.judge(windowJobs*19*us, now) || !s.alone || s.until != now.Add(minSpell) {
		t.Errorf("a window at 0.95 of the time alone: alone %v, spell %v; want a spell of %v", s.alone, s.until.Sub(now), minSpell)
	}
	s.alone = false
	// It does not start the doubling again: the next window at twice
	// the time alone is followed by a spell at the bound.
	fill(40 * us)
	if !s.judge(windowJobs*40*us, now) || s.until != now.Add(limit) {
		t.Errorf("a loss after a loss by little: spell %v, want %v", s.until.Sub(now), limit)
	}
	s.alone = false
	// The caller's own estimate no longer counts once the time alone is
	// measured: 0.1 µs a row alone makes 12 µs a job of 100 rows a loss
	// though the caller's estimate is 20 µs.
	s.soloPerRow = 100
	fill(11 * us)
	if !s.judge(windowJobs*12*us, now) {
		t.Errorf("a window slower than the time measured alone kept sharing")
	}
	s.alone = false
	fill(4 * us)
	if s.judge(windowJobs*5*us, now) || s.spell != minSpell {
		t.Errorf("a window at half the time alone: spell %v, want sharing and %v", s.spell, minSpell)
	}
	// A window that has already taken longer than earlyLoss times its
	// rows alone after earlyJobs jobs ends at the next job, judged at the
	// last job's end; one only 1.5 times behind is left to the full
	// window (its first jobs may pay the parked workers' wake-up).
	p := &workerPool{s: s}
	s.startWindow(now)
	for j := range earlyJobs + 2 {
		if !p.share(100) {
			t.Fatalf("job %d of a window at 1.5 times the time alone: ended before the full window", j)
		}
		s.shared(100, 2, 1, 10*us, 15*us, now.Add(time.Duration(j+1)*15*us), false)
	}
	s.alone = false
	s.startWindow(now)
	for j := range earlyJobs {
		if !p.share(100) {
			t.Fatalf("job %d of a window at 2.5 times the time alone: ended before %d jobs", j, earlyJobs)
		}
		s.shared(100, 2, 1, 10*us, 25*us, now.Add(time.Duration(j+1)*25*us), false)
	}
	if p.share(100) || !s.alone || s.until != now.Add(earlyJobs*25*us+minSpell) {
		t.Errorf("a window at 2.5 times the time alone after %d jobs was not ended at once (alone %v)", earlyJobs, s.alone)
	}
	// A run that keeps winning still measures the time alone, in a short
	// spell, every refreshWindows windows.
	s.alone = false
	s.windows = refreshWindows - 1
	fill(4 * us)
	if !s.judge(windowJobs*5*us, now) || s.until != now.Add(minSpell) {
		t.Errorf("no refresh spell after %d windows won", refreshWindows)
	}
}

// TestSharingHold: jobs run while the judging is held (the check at the
// start of a Run, whose trial steps are spaced by the analysis's
// arithmetic) run shared — or alone while a spell is in progress — and
// count in no window or spell, however slow they are; released, the pool
// starts a fresh window that holds only the jobs after the hold.
func TestSharingHold(t *testing.T) {
	us := time.Microsecond
	now := time.Unix(1000, 0)
	s := newSharing()
	s.soloPerRow, s.lastSolo = 200, 200 // 20 µs for a job of 100 rows
	p := &workerPool{s: s}
	if !p.share(100) {
		t.Fatalf("the first job did not share")
	}
	s.shared(100, 2, 1, 10*us, 12*us, now.Add(12*us), false)
	s.hold(true)
	for j := range 3 * windowJobs {
		if !p.share(100) {
			t.Fatalf("held job %d ran alone", j)
		}
		// Each held job 100 times behind the time alone, and the caller
		// slept: judged, this would start a spell at once.
		s.shared(100, 2, 1, 10*us, 2000*us, now.Add(time.Duration(j+2)*2000*us), true)
	}
	if s.alone || s.jobs != 1 || s.stalled {
		t.Errorf("held jobs were judged or counted: alone %v, %d jobs (want the one before the hold), stalled %v", s.alone, s.jobs, s.stalled)
	}
	s.hold(false)
	if s.open {
		t.Fatalf("the window open before the hold was kept")
	}
	later := now.Add(time.Second)
	s.startWindow(later) // as the first job after the hold does
	for j := range windowJobs {
		if !p.share(100) {
			t.Fatalf("job %d after the hold ran alone", j)
		}
		s.shared(100, 2, 1, 10*us, 11*us, later.Add(time.Duration(j+1)*11*us), false)
	}
	if s.jobs != windowJobs || s.rows != 100*windowJobs || s.stalled {
		t.Errorf("the window after the hold holds %d jobs, %d rows, stalled %v; want only its own %d jobs", s.jobs, s.rows, s.stalled, windowJobs)
	}
	// A spell in progress when the hold starts keeps the held jobs alone
	// and does not count them: its rows are still to run after the hold.
	s.alone, s.left, s.open = true, 500, false
	s.hold(true)
	for j := range 10 {
		if p.share(100) {
			t.Fatalf("held job %d shared during a spell", j)
		}
	}
	if s.left != 500 {
		t.Errorf("held jobs counted in the spell: %d rows left, want 500", s.left)
	}
	s.hold(false)
	if p.share(100) || s.left != 400 || s.rows != 100 {
		t.Errorf("after the hold the spell did not resume, counting from its first job: %d rows left, %d counted", s.left, s.rows)
	}
}

// BenchmarkPool runs jobs of 2 000 cells, each a few nanoseconds of
// arithmetic (about 10 µs a job on one goroutine), on a pool of two as
// the engine does (shared or alone as the pool decides), and on the
// caller alone: the pool's own overhead and speed-up, without a kernel's
// memory traffic. ns/op is per job; shared% is the share of jobs the
// pool ran shared.
func BenchmarkPool(b *testing.B) {
	const cells = 2000
	data := make([]float64, cells)
	job := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			x := data[i]
			for range 8 {
				x = x*0.999 + 1e-3
			}
			data[i] = x
		}
	}
	b.Run("alone", func(b *testing.B) {
		for b.Loop() {
			job(0, cells)
		}
	})
	for _, parts := range []int{2, 8} {
		b.Run(fmt.Sprintf("workers=2/parts=%d", parts), func(b *testing.B) {
			p := startWorkerPool(2, func(w, k int) { job(cells*w/k, cells*(w+1)/k) }, newSharing())
			for b.Loop() {
				if p.share(cells) {
					p.runParts(cells, parts)
				} else {
					job(0, cells)
				}
			}
			p.stop()
			b.ReportMetric(100*float64(p.s.sharedJobs)/float64(p.s.sharedJobs+p.s.soloJobs), "shared%")
		})
	}
}
