package graph

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// workerPool runs the parts of a job on the caller's goroutine and on
// n−1 goroutines that live for one Run, so that a step hands out work
// without starting goroutines or allocating. It knows nothing of the
// job: the engine writes the job before runParts and part(w, k) reads
// it (part w of k). Every phase of a Run — batched phases, fused steps, coupling
// stages and the per-node path's lists — goes through the one pool.
//
// Parts are claimed, not assigned: the caller and every worker take the
// next unclaimed part until none is left, so a worker that is not
// running when a job is published (descheduled by another process on a
// busy machine, or parked) leaves its part to whoever is. A large job
// has a few parts per goroutine (engine.partsFor), so that a goroutine
// that runs slower, starts late or stops running holds up only a small
// part while the others claim the rest. Which goroutine runs part w
// does not matter to the result: a part writes only its own rows and
// its own scratch (engine.workers[w]), and the split of a job into parts
// depends on the job alone, so the bits are the same whoever runs
// what.
//
// A phase of 10 000 rows takes tens of microseconds, about what waking a
// parked goroutine costs, so hand-offs spin: the caller publishes the
// job and bumps seq, workers that are spinning see it at once. A worker
// polls for the next job for a few times the interval between jobs
// (sharing.period; from minWorkerSpin to maxWorkerSpin) and then parks
// on a condition variable; the caller broadcasts under its mutex only when some worker
// is parked (parked > 0), so a pool whose workers spin takes no lock. No
// wake-up is lost: a worker counts itself parked before it checks seq
// under the mutex, and the caller bumps seq before it reads parked.
//
// The caller, once its own parts are done, polls for the others' for
// about the time one part took it, the work a part is expected to need;
// past that the worker holding the part is not running (its thread was
// descheduled: another process holds the core), and the caller sleeps
// until that worker finishes, giving its core to it instead of spinning
// against it — the waits that outlast the phase end in a hand-off, not
// in a spin of a scheduler time slice. Whether sharing pays at all is
// decided job by job by the caller's sharing state (see sharing): when
// it does not, the engine runs jobs alone, on its single-goroutine path,
// and the workers stay parked.
type workerPool struct {
	n    int
	part func(w, n int)
	seq  atomic.Uint64
	// next holds the current job's parts (high 32 bits) and its next
	// unclaimed part (low 32 bits, ≥ the parts when every part is
	// claimed), in one word so that a claim reads both at once: a
	// worker's late claim on a finished job lands on the next one
	// whole. done counts the parts finished.
	next     atomic.Uint64
	done     atomic.Int32
	stopping atomic.Bool
	parked   atomic.Int32
	mu       sync.Mutex
	cond     *sync.Cond
	wg       sync.WaitGroup
	// spin is how long, in nanoseconds, a worker waiting for the next
	// job polls before it parks: 0 while jobs run on the caller alone,
	// and always with more workers than GOMAXPROCS (spinning goroutines
	// would hold every P while the ones they wait for cannot run).
	spin    atomic.Int64
	canSpin bool
	// sleeping says that the caller waits on wake for the job's last
	// part; the worker that finishes it takes the flag and sends.
	sleeping atomic.Bool
	wake     chan struct{}

	// s is the caller's sharing state, kept by the engine from Run to
	// Run; the workers never touch it.
	s *sharing
	// lastPublish is when the caller published the previous shared job
	// (the zero time: none yet in this Run).
	lastPublish time.Time
}

// minWorkerSpin and maxWorkerSpin bound a worker's poll for the next
// job. Waking a parked worker takes tens of microseconds on an idle
// machine and, on a busy one, may wait for another process's time slice,
// so a worker that parked between two phases of a step starts the second
// late and leaves its parts to the caller; beyond a couple of hundred
// microseconds of the caller's work between phases, parking and being
// woken costs less than the core spent polling.
const (
	minWorkerSpin = 50 * time.Microsecond
	maxWorkerSpin = 200 * time.Microsecond
)

// callerSlack is added to the caller's poll for the other parts of a job
// (one part's time): the spread of start times of goroutines that are
// all running.
const callerSlack = 5 * time.Microsecond

// startWorkerPool starts n−1 workers that run part(w, n) for every job,
// deciding when to share with s.
func startWorkerPool(n int, part func(w, n int), s *sharing) *workerPool {
	p := &workerPool{n: n, part: part, s: s, wake: make(chan struct{}, 1)}
	p.cond = sync.NewCond(&p.mu)
	p.canSpin = n <= runtime.GOMAXPROCS(0)
	s.begin(time.Now())
	p.setSpin()
	// No part is claimable before the first job (a job of no parts).
	p.next.Store(0)
	for range n - 1 {
		p.wg.Go(p.work)
	}
	return p
}

// setSpin sets how long the workers poll between jobs: four times the
// interval between jobs, within [minWorkerSpin, maxWorkerSpin], or not
// at all while jobs run alone.
func (p *workerPool) setSpin() {
	var d time.Duration
	if p.canSpin && !p.s.alone {
		d = min(max(4*p.s.period, minWorkerSpin), maxWorkerSpin)
	}
	p.spin.Store(int64(d))
}

// work is a worker's loop: wait for the next job, claim its parts.
func (p *workerPool) work() {
	var last uint64
	for {
		if p.seq.Load() == last && p.spin.Load() > 0 {
			start := time.Now()
			for i := 1; p.seq.Load() == last; i++ {
				if i%64 == 0 && time.Since(start) > time.Duration(p.spin.Load()) {
					break
				}
			}
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
		if p.claim() {
			// This worker woke the caller: let it have this thread
			// at once rather than poll beside it for the next job.
			runtime.Gosched()
		}
	}
}

// claim runs unclaimed parts of the current job until none is left. A
// claim that lands after the job's last part was taken returns at once;
// one that lands after the next job was published takes a part of that
// job, which is as good: the caller publishes a job only when every
// part of the last one is done. It reports whether it woke the caller
// (from a worker: it finished the last part while the caller slept).
func (p *workerPool) claim() (woke bool) {
	for {
		w, k := claimed(p.next.Add(1))
		if w >= k {
			return woke
		}
		p.part(w, k)
		if p.done.Add(1) == int32(k) && p.sleeping.CompareAndSwap(true, false) {
			p.wake <- struct{}{}
			woke = true
		}
	}
}

// claimed splits the value a claim's Add returned into the part claimed
// and the job's parts.
func claimed(v uint64) (w, k int) {
	return int(uint32(v)) - 1, int(v >> 32)
}

// runParts runs the current job's k parts, rows node evaluations in all,
// and returns when every part is done. The engine calls it for a job
// that workerPool.share said to share.
func (p *workerPool) runParts(rows, k int) {
	p.done.Store(0)
	start := time.Now()
	if !p.lastPublish.IsZero() {
		p.s.period = (3*p.s.period + start.Sub(p.lastPublish)) / 4
	}
	p.lastPublish = start
	p.next.Store(uint64(k) << 32)
	p.publish()
	ran := 0
	for {
		w, _ := claimed(p.next.Add(1))
		if w >= k {
			break
		}
		p.part(w, k)
		p.done.Add(1)
		ran++
	}
	mine := time.Now()
	own := mine.Sub(start)
	slept := false
	if p.done.Load() != int32(k) {
		// Poll for about one part's time: the work left in the others'
		// parts when they all started with the caller's.
		budget := callerSlack
		if ran > 0 {
			budget += own / time.Duration(ran)
		}
		for i := 1; p.done.Load() != int32(k); i++ {
			if i%64 == 0 && time.Since(mine) > budget {
				slept = p.sleep(k)
				break
			}
		}
	}
	end := time.Now()
	p.s.shared(rows, k, ran, own, end.Sub(start), end, slept)
	p.setSpin()
}

// sleep waits on wake until the last of the job's k parts is done; it
// reports whether it slept.
func (p *workerPool) sleep(k int) bool {
	p.sleeping.Store(true)
	if p.done.Load() == int32(k) && p.sleeping.CompareAndSwap(true, false) {
		return false // finished in between: nobody will send
	}
	<-p.wake
	return true
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

// share reports whether the next job, of rows node evaluations, runs
// shared (the engine then calls runParts) or alone (the engine runs it
// on its single-goroutine path): see sharing.
func (p *workerPool) share(rows int) bool {
	if p.s.share(p, rows) {
		return true
	}
	p.lastPublish = time.Time{} // the interval between shared jobs skips the spell
	return false
}

// stop ends the workers and waits for them.
func (p *workerPool) stop() {
	p.stopping.Store(true)
	p.publish()
	p.wg.Wait()
	p.s.end()

}

// sharing decides, job by job, whether the caller shares a job with the
// workers or runs it alone, from measured times: sharing must save at
// least 1 − shareGain of the time the same jobs take on one goroutine,
// or the jobs run alone. It is the caller's (the engine keeps it from
// Run to Run, so that a Run starts from what the last one learnt), and
// its decisions may differ from run to run; the results do not, since a
// job computes the same bits however it is split and whoever runs it.
//
// Jobs alternate between windows shared with the workers and spells run
// alone. A window lasts at least windowJobs jobs and windowTime; it is
// judged on its wall time, from its first job's start to the next job's
// (the caller's work between jobs included, as in a spell), against the
// time per row measured alone, in spells: the lesser of the last two
// spells' (one disturbed spell does not make sharing look good), or
// before the first spell the caller's own estimate (its time per part
// it ran, times the parts, plus the time between jobs). That estimate is
// free but biased: a caller slowed by a worker that shares its core
// looks slower alone than it is. So the first window is always followed
// by a spell, whatever its outcome, and a run that keeps sharing still
// runs a spell every refreshWindows windows to keep the time alone
// current. Since the caller's work between jobs counts on both sides,
// only jobs spaced like the run's steps are judged: the check at the
// start of a Run, whose trial steps are spaced by the analysis's own
// arithmetic, holds the judging (hold; its spells measured a time alone
// five times the steps' at 10⁴ masses). A window that loses — or that
// has already taken longer than earlyLoss times the same rows alone
// after earlyJobs jobs, or as soon as the caller had to sleep for a part
// (a worker descheduled in the middle of it: the condition of a core
// busy with another process) and the window is that far behind, which
// ends it at once — starts a spell of spell's length, which doubles
// while the windows after the spells keep losing and is back at minSpell
// once one wins. The doubling keeps the cost of testing sharing on a
// busy machine small; but a spell runs at most lossShare times what the
// window before it lost against running alone (and maxSpell), since a
// longer one saves nothing more and only delays sharing again once the
// other process has gone: a spell left unbounded doubled, on a machine with
// bursts of other work, to a second and carried over whole Runs (a spell
// runs on the clock from Run to Run), which then ran alone on an idle
// machine. A spell is counted in rows (its length over the time per row
// alone), so that running alone costs no clock reading per job.
//
// With sharing.trace set (tests: Sim.TraceSharing, TestSharingTrace)
// every decision is recorded; it is nil in a normal run, and the
// decisions are taken once per window or spell, never per job.
type sharing struct {
	alone bool // in a spell
	// spell is the doubling length of the next spell after a loss (the
	// spell run is at most lossShare times the loss); left the current
	// spell's rows still to run; until its end on the clock, which a Run
	// starting later checks (the machine may have changed in between).
	spell time.Duration
	left  int64
	until time.Time
	// The current window or spell: since when, its jobs and rows, and
	// for a window the sum of its jobs' wall times and of their
	// single-goroutine estimates, when its last job ended and whether
	// the caller slept.
	open      bool
	t0, last  time.Time
	jobs      int
	rows      int64
	wall, est time.Duration
	stalled   bool
	early     bool // judging before the window's end
	// held: the jobs are not the run's steps (hold); they are neither
	// judged nor counted in a window or spell.
	held    bool
	windows int // windows won since the last spell
	// soloPerRow is the time per row alone, the lesser of the last two
	// spells' (lastSolo the last one's); 0: none yet.
	soloPerRow, lastSolo float64
	// period is the interval between shared jobs (an average): the
	// workers' poll is four times that.
	period time.Duration
	// Counters for tests and reports: jobs run shared and alone.
	sharedJobs, soloJobs int64
	// trace, when not nil, records every decision (tests and
	// diagnostics; nil in a normal run).
	trace *[]sharingEvent
}

// sharingEvent is one decision of sharing, recorded when sharing.trace
// is set: a Run begun, a window judged, a spell ended, the judging held
// or released.
type sharingEvent struct {
	at time.Time
	// kind: 'B' a Run begins; 'W' a window won, 'L' lost, 'E' lost
	// before its full length, 'M' not lost but followed by a spell that
	// measures the time alone; 'S' a spell ended; 'H' the judging held,
	// 'R' released (jobs: the jobs run so far, shared or alone).
	kind byte
	jobs int
	rows int64
	// span is the window's or the spell's wall time; alone the
	// window's rows at the time alone used to judge it (ns); spell the
	// spell started (0: none).
	span    time.Duration
	alone   float64
	spell   time.Duration
	stalled bool
	perRow  float64 // soloPerRow after the event
}

func (s *sharing) record(e sharingEvent) {
	if s.trace != nil {
		e.perRow = s.soloPerRow
		*s.trace = append(*s.trace, e)
	}
}

const (
	shareGain  = 0.9
	windowJobs = 16
	windowTime = 2 * time.Millisecond
	earlyJobs  = 4
	// earlyLoss is how far behind the time alone a window must be to
	// end before windowJobs: a core taken by another process makes
	// shared jobs several times slower, while the first jobs after a
	// spell pay the parked workers' wake-up and, at 10⁴ masses on an
	// idle machine, ended windows that would have won (measured: -sched
	// idle 1.05-1.12x at N = 10⁴ with 1, 1.44-1.54x with 2).
	earlyLoss = 2.0
	minSpell  = 4 * time.Millisecond
	maxSpell  = 1 * time.Second
	// lossShare bounds a spell after a loss to lossShare times what the
	// window lost against running alone: testing sharing again then costs
	// at most 1/lossShare (1.6 %) of the time beside a busy core, while a
	// core that frees up is used again within a few tens of
	// milliseconds at 10⁴ masses (a window that ends early there loses
	// 0.4-1 ms).
	lossShare      = 64
	refreshWindows = 64
)

// newSharing returns the state of an engine that has not run shared.
func newSharing() *sharing {
	return &sharing{spell: minSpell, period: 20 * time.Microsecond}
}

// begin starts a Run's accounting at now: the window or spell in
// progress when the last Run ended is not judged (the time between
// Runs is not the jobs'), and a spell whose time has passed ends.
func (s *sharing) begin(now time.Time) {
	s.record(sharingEvent{at: now, kind: 'B'})
	s.open = false
	if s.alone && now.After(s.until) {
		s.alone = false
	}
}

// hold stops (on) or restarts (off) the judging for jobs that are not
// the run's steps: the check at the start of a Run, whose trial steps are
// spaced by the analysis's own arithmetic on the caller and would time
// neither a window nor a spell like the steps that follow. While held,
// jobs run shared unless a spell is in progress, and are not counted in
// it; the window or spell open when the hold starts or ends is dropped
// unjudged, as at the start of a Run.
func (s *sharing) hold(on bool) {
	s.held, s.open = on, false
	if s.trace != nil {
		k := byte('R')
		if on {
			k = 'H'
		}
		s.record(sharingEvent{at: time.Now(), kind: k, jobs: int(s.sharedJobs + s.soloJobs)})
	}
}

// end closes a Run's accounting.
func (s *sharing) end() { s.open = false }

// share is workerPool.share's decision.
func (s *sharing) share(p *workerPool, rows int) bool {
	if s.held {
		if s.alone {
			s.soloJobs++
			return false
		}
		s.sharedJobs++
		return true
	}
	if s.alone {
		if !s.open {
			s.open, s.t0, s.rows, s.jobs = true, time.Now(), 0, 0
		}
		if s.left > 0 {
			s.left -= int64(rows)
			s.rows += int64(rows)
			s.jobs++
			s.soloJobs++
			return false
		}
		// The spell is over: its time per row, then a window.
		now := time.Now()
		if s.rows > 0 {
			r := float64(now.Sub(s.t0)) / float64(s.rows)
			s.soloPerRow = r
			if s.lastSolo > 0 {
				s.soloPerRow = min(r, s.lastSolo)
			}
			s.lastSolo = r
		}
		s.record(sharingEvent{at: now, kind: 'S', jobs: s.jobs, rows: s.rows, span: now.Sub(s.t0)})
		s.alone, s.windows = false, 0
		s.startWindow(now)
		p.setSpin()
	} else if !s.open {
		s.startWindow(time.Now())
	} else if s.stalled && s.soloPerRow == 0 || (s.stalled || s.jobs >= earlyJobs) && s.soloPerRow > 0 && float64(s.last.Sub(s.t0)) > earlyLoss*s.soloPerRow*float64(s.rows) {
		// Lost already (or the caller slept before the time alone is
		// known): judged at the last job's end.
		s.early = true
		if s.judge(s.last.Sub(s.t0), s.last) {
			p.setSpin() // the workers park at once
			return s.share(p, rows)
		}
	} else if s.jobs >= windowJobs {
		now := time.Now()
		if span := now.Sub(s.t0); span >= windowTime {
			if s.judge(span, now) {
				p.setSpin()
				return s.share(p, rows)
			}
		}
	}
	s.sharedJobs++
	return true
}

// startWindow opens a shared window at now.
func (s *sharing) startWindow(now time.Time) {
	s.open, s.t0, s.jobs, s.rows, s.wall, s.est, s.stalled = true, now, 0, 0, 0, 0, false
}

// shared records a shared job: rows node evaluations in n parts, ran of
// them by the caller in own, the whole in wall, ending at end; slept
// says the caller slept waiting for a part.
func (s *sharing) shared(rows, n, ran int, own, wall time.Duration, end time.Time, slept bool) {
	if s.held {
		return
	}
	s.jobs++
	s.last = end
	s.rows += int64(rows)
	s.wall += wall
	if ran > 0 {
		s.est += own * time.Duration(n) / time.Duration(ran)
	} else {
		// The workers ran every part: no estimate of the caller's;
		// count the job as neither gained nor lost.
		s.est += wall
	}
	s.stalled = s.stalled || slept
}

// judge ends the window of span (now its end) and reports whether a
// spell starts: when the window took more than shareGain of what the
// same jobs would have taken alone, or to measure the time alone.
func (s *sharing) judge(span time.Duration, now time.Time) bool {
	alone := float64(s.est + span - s.wall) // the caller's estimate, gaps included
	if s.soloPerRow > 0 && s.rows > 0 {
		alone = s.soloPerRow * float64(s.rows)
	}
	lost := float64(span) > shareGain*alone
	early := s.early
	s.early = false
	if !lost && s.soloPerRow > 0 && s.windows+1 < refreshWindows {
		s.record(sharingEvent{at: now, kind: 'W', jobs: s.jobs, rows: s.rows, span: span, alone: alone})
		s.windows++
		s.spell = minSpell
		s.startWindow(now)
		return false
	}
	spell := minSpell // not a loss: a short spell to measure the time alone again
	if lost {
		// The window cost span − alone more than running alone; a spell
		// lossShare times that keeps the cost of testing sharing below
		// 1/lossShare of the time while it keeps losing, and a longer
		// one would only delay sharing once a core frees up. The
		// doubling goes on beneath the bound, so that a window that
		// loses by little (a short spell) does not start it again.
		limit := time.Duration(min(max(lossShare*(float64(span)-alone), float64(minSpell)), float64(maxSpell)))
		spell = min(s.spell, limit)
		s.spell = min(2*s.spell, maxSpell)
	} else {
		s.spell = minSpell
	}
	if s.trace != nil {
		k := byte('M')
		switch {
		case lost && early:
			k = 'E'
		case lost:
			k = 'L'
		}
		s.record(sharingEvent{at: now, kind: k, jobs: s.jobs, rows: s.rows, span: span, alone: alone, spell: spell, stalled: s.stalled})
	}
	perRow := s.soloPerRow
	if perRow == 0 && s.rows > 0 {
		perRow = alone / float64(s.rows)
	}
	s.alone, s.open, s.left = true, false, 1
	if perRow > 0 {
		s.left = max(int64(float64(spell)/perRow), 1)
	}
	s.until = now.Add(spell)
	return true
}

// holdSharing holds (on) or restarts (off) the pool's judging of
// sharing around work of a Run that is not its steps (sharing.hold); a
// no-op without a pool.
func (e *engine) holdSharing(on bool) {
	if e.pool != nil {
		e.pool.s.hold(on)
	}
}
