package graph

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// workerPool runs the n parts of a job: part 0 on the caller's
// goroutine, parts 1..n-1 on goroutines that live for one Run, so that a
// step hands out work without starting goroutines or allocating. It
// knows nothing of the job: the engine writes the job before runParts
// and part(w, n) reads it. Every phase of a Run — batched phases, fused
// steps, coupling stages and the per-node path's lists — goes through
// the one pool.
//
// A phase of 10 000 rows takes tens of microseconds, about what waking a
// parked goroutine costs, so hand-offs spin: the caller publishes the
// job and bumps seq, workers that are spinning see it at once, and the
// caller spins (yielding) until every worker has counted itself done. A
// worker that polls spin times without a new job parks on a condition
// variable; the caller broadcasts under its mutex only when some worker
// is parked (parked > 0), so a pool whose workers spin takes no lock.
// No wake-up is lost: a worker counts itself parked before it checks seq
// under the mutex, and the caller bumps seq before it reads parked.
type workerPool struct {
	n    int
	part func(w, n int)
	seq  atomic.Uint64
	// started and done count the workers that picked up and finished
	// the current job.
	started  atomic.Int32
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
	// Caller-only: the limit spinning may use, consecutive phases whose
	// wait outlasted the spin, and phases left until spinning is tried
	// again.
	maxSpin, slow, probe int
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

// startWorkerPool starts n−1 workers that run part(w, n) for every job.
func startWorkerPool(n int, part func(w, n int)) *workerPool {
	p := &workerPool{n: n, part: part, maxSpin: spinLimit}
	p.cond = sync.NewCond(&p.mu)
	if n > runtime.GOMAXPROCS(0) {
		// Spinning goroutines would hold every P while the ones they
		// wait for cannot run.
		p.maxSpin = 0
	}
	p.spin.Store(int64(p.maxSpin))
	for w := 1; w < n; w++ {
		p.wg.Go(func() { p.work(w) })
	}
	return p
}

// work is worker w's loop: wait for the next job, run its part, count
// itself done.
func (p *workerPool) work(w int) {
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
		p.started.Add(1)
		p.part(w, p.n)
		p.done.Add(1)
	}
}

// runParts runs the current job's parts, part 0 on the caller, and
// returns when every part is done.
func (p *workerPool) runParts() {
	p.started.Store(0)
	p.done.Store(0)
	p.publish()
	p.part(0, p.n)
	lim := p.spin.Load()
	late := false
	for spins := int64(0); p.done.Load() != int32(p.n-1); spins++ {
		if spins >= lim {
			// A worker still running its part is no reason to stop
			// spinning (a long phase); one that has not started it
			// after the caller's part and the spin is (it was parked
			// or descheduled).
			late = late || p.started.Load() != int32(p.n-1)
			runtime.Gosched()
		}
	}
	p.adapt(lim, late)
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

// adapt stops spinning when it does not pay: after slowPhases
// consecutive phases in which some worker had not yet started its part
// when the caller had run its own and spun (late: the workers were not
// running, on a loaded machine, or parked because the caller's work
// between phases outlasts their spin), workers park at once; spinning
// is tried again after probePhases phases. A phase that is merely long
// keeps spinning: its workers are running.
func (p *workerPool) adapt(lim int64, late bool) {
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
}

// stop ends the workers and waits for them.
func (p *workerPool) stop() {
	p.stopping.Store(true)
	p.publish()
	p.wg.Wait()
}
