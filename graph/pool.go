package graph

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// workerPool runs the n parts of a job on the caller's goroutine and on
// n−1 goroutines that live for one Run, so that a step hands out work
// without starting goroutines or allocating. It knows nothing of the
// job: the engine writes the job before runParts and part(w, n) reads
// it. Every phase of a Run — batched phases, fused steps, coupling
// stages and the per-node path's lists — goes through the one pool.
//
// Parts are claimed, not assigned: the caller and every worker take the
// next unclaimed part until none is left, so a worker that is not
// running when a job is published (descheduled by another process on a
// busy machine, or parked) leaves its part to whoever is. Which
// goroutine runs part w does not matter to the result: a part writes
// only its own rows and its own scratch (engine.workers[w]), and the
// split of a job into parts depends on n alone, so the bits are the same
// whoever runs what.
//
// A phase of 10 000 rows takes tens of microseconds, about what waking a
// parked goroutine costs, so hand-offs spin: the caller publishes the
// job and bumps seq, workers that are spinning see it at once, and the
// caller spins (yielding) until every part is done. A worker that polls
// spin times without a new job parks on a condition variable; the caller
// broadcasts under its mutex only when some worker is parked (parked >
// 0), so a pool whose workers spin takes no lock. No wake-up is lost: a
// worker counts itself parked before it checks seq under the mutex, and
// the caller bumps seq before it reads parked.
//
// Claiming cannot help when a worker is descheduled in the middle of a
// part: the caller then waits for it. When that keeps happening (another
// process holds a core), sharing costs more than it gains, and the pool
// runs jobs on the caller alone for a while (see adapt).
type workerPool struct {
	n    int
	part func(w, n int)
	seq  atomic.Uint64
	// next is the next unclaimed part of the current job (≥ n when
	// every part is claimed); done counts the parts finished.
	next     atomic.Int32
	done     atomic.Int32
	stopping atomic.Bool
	parked   atomic.Int32
	mu       sync.Mutex
	cond     *sync.Cond
	wg       sync.WaitGroup
	// spin is the polls a waiting worker makes before it parks and the
	// caller before it yields: spinLimit, or 0 when spinning does not
	// pay (more workers than GOMAXPROCS, or a loaded machine: see adapt).
	spin atomic.Int64

	// Caller-only adaptation state (see adapt).
	maxSpin int
	// slow counts consecutive phases whose workers started late; probe
	// the phases left until spinning is tried again.
	slow, probe int
	// solo is the phases left to run on the caller alone; soloLen the
	// length of the next such spell (doubling while sharing keeps
	// losing).
	solo, soloLen int
	// Over the current window of shared phases: their number, their
	// wall time, and the caller's estimate of what the same phases would
	// have cost on one goroutine (its own time per part, times n).
	phases         int
	shared, single time.Duration
	// Counters for tests and reports: phases run shared and alone.
	sharedPhases, soloPhases int64
}

// spinLimit bounds the polls of a waiting worker or caller before it
// parks (a worker) or yields (the caller): about a hundred microseconds.
// A worker waits, between phases, for the slowest part of the phase and
// for the caller's work between phases; with a spin much shorter than a
// phase (1 << 14 polls, some microseconds, against a 45 µs phase of the
// W1 chain's 10 000 masses) a worker that finished early parked and woke
// late, and two workers were slower than one. Spinning pays only while
// every worker has a core: workerPool.adapt turns it off for a while
// when workers keep starting late.
const spinLimit = 1 << 17

// The solo rule's constants: shared phases are judged in windows of
// soloWindow; a window whose wall time exceeds soloLoss times the
// single-goroutine estimate starts a solo spell of soloMin phases,
// doubling up to soloMax while the following windows keep losing.
const (
	soloWindow = 64
	soloLoss   = 0.9
	soloMin    = 256
	soloMax    = 1 << 14
)

// startWorkerPool starts n−1 workers that run part(w, n) for every job.
func startWorkerPool(n int, part func(w, n int)) *workerPool {
	p := &workerPool{n: n, part: part, maxSpin: spinLimit, soloLen: soloMin}
	p.cond = sync.NewCond(&p.mu)
	if n > runtime.GOMAXPROCS(0) {
		// Spinning goroutines would hold every P while the ones they
		// wait for cannot run.
		p.maxSpin = 0
	}
	p.spin.Store(int64(p.maxSpin))
	// No part is claimable before the first job.
	p.next.Store(int32(n))
	for range n - 1 {
		p.wg.Go(p.work)
	}
	return p
}

// work is a worker's loop: wait for the next job, claim its parts.
func (p *workerPool) work() {
	var last uint64
	for {
		lim := p.spin.Load()
		for spins := int64(0); spins < lim && p.seq.Load() == last; spins++ {
		}
		if p.seq.Load() == last {
			p.parked.Add(1)
			p.mu.Lock()
			for p.seq.Load() == last {
				p.cond.Wait()
			}
			p.mu.Unlock()
			p.parked.Add(-1)
		}
		last = p.seq.Load()
		if p.stopping.Load() {
			return
		}
		p.claim()
	}
}

// claim runs unclaimed parts of the current job until none is left and
// returns how many it ran. A claim that lands after the job's last part
// was taken returns at once; one that lands after the next job was
// published takes a part of that job, which is as good: the caller
// publishes a job only when every part of the last one is done.
func (p *workerPool) claim() int {
	ran := 0
	for {
		w := int(p.next.Add(1)) - 1
		if w >= p.n {
			return ran
		}
		p.part(w, p.n)
		p.done.Add(1)
		ran++
	}
}

// runParts runs the current job's parts and returns when every part is
// done.
func (p *workerPool) runParts() {
	if p.solo > 0 {
		p.solo--
		p.soloPhases++
		for w := range p.n {
			p.part(w, p.n)
		}
		if p.solo == 0 {
			// Try sharing again, spinning included.
			p.phases, p.shared, p.single = 0, 0, 0
			p.slow = 0
			p.spin.Store(int64(p.maxSpin))
		}
		return
	}
	p.sharedPhases++
	p.done.Store(0)
	start := time.Now()
	p.next.Store(0)
	p.publish()
	ran := p.claim()
	own := time.Since(start)
	lim := p.spin.Load()
	for spins := int64(0); p.done.Load() != int32(p.n); spins++ {
		if spins >= lim {
			runtime.Gosched()
		}
	}
	wall := time.Since(start)
	p.adapt(lim, ran, own, wall)
}

// publish moves seq, waking the parked workers.
func (p *workerPool) publish() {
	p.seq.Add(1)
	if p.parked.Load() > 0 {
		p.mu.Lock()
		p.cond.Broadcast()
		p.mu.Unlock()
	}
}

// adapt decides, after a shared phase, how the next ones run. Two rules:
//
// Spinning: after slowPhases consecutive phases in which some worker
// started late, leaving its part to the caller (the workers were not
// running, on a loaded machine, or parked because the caller's work
// between phases outlasts their spin), workers park at once; spinning is tried again after
// probePhases phases. A phase that is merely long keeps spinning: its
// workers are running.
//
// Sharing: over a window of soloWindow shared phases, the pool compares
// their wall time with what one goroutine would have taken (the
// caller's time per part it ran, times n). When sharing did not save at
// least 1 − soloLoss of that — a core is busy with another process, so
// a worker descheduled in the middle of its part keeps the caller
// waiting — the next soloLen phases run on the caller alone, and the
// next spell is twice as long if the window after it loses again. The
// decision uses measured times, so it may differ from run to run; the
// results do not (see workerPool).
func (p *workerPool) adapt(lim int64, ran int, own, wall time.Duration) {
	// A worker still running its part is no reason to stop spinning (a
	// long phase); a caller that ran more than its share is: some
	// worker had not claimed a part by the time the caller finished its
	// first (it was parked or descheduled).
	late := ran > 1
	const slowPhases, probePhases = 8, 1024
	switch {
	case p.maxSpin == 0:
	case lim == 0:
		if p.probe--; p.probe <= 0 {
			p.slow = 0
			p.spin.Store(int64(p.maxSpin))
		}
	case late:
		if p.slow++; p.slow >= slowPhases {
			p.probe = probePhases
			p.spin.Store(0)
		}
	default:
		p.slow = 0
	}

	p.shared += wall
	if ran > 0 {
		p.single += own * time.Duration(p.n) / time.Duration(ran)
	} else {
		// The workers took every part: sharing cost the caller
		// nothing it could have used.
		p.single += wall
	}
	if p.phases++; p.phases < soloWindow {
		return
	}
	if float64(p.shared) > soloLoss*float64(p.single) {
		p.solo = p.soloLen
		p.soloLen = min(2*p.soloLen, soloMax)
		// Idle workers park at once.
		p.spin.Store(0)
	} else {
		p.soloLen = soloMin
	}
	p.phases, p.shared, p.single = 0, 0, 0
}

// stop ends the workers and waits for them.
func (p *workerPool) stop() {
	p.stopping.Store(true)
	p.publish()
	p.wg.Wait()
}
