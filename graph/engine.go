package graph

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/cosimgo/cosim/node"
)

// The batched engine: a step (or a monolithic evaluation) as phases over
// families and loose nodes. Reading order: stepBatched and derivsBatched
// are the two entry points; runPhase hands a phase to the workers; part
// is what one worker does of a phase; block is one kernel call with its
// summed inputs before it and its finiteness check after it.
//
// Any failure in a batched phase — a kernel error, a panic, a non-finite
// value in a checked block, an error of a loose node — makes the caller
// replay the whole step or evaluation on the per-node path from the
// retained state, which reports exactly the *node.StateError of the first
// failing node. The batched path therefore never has to name a node.

// phase kinds of the batched engine.
const (
	bOutputs = iota
	bUpdate
	bDerivs
)

// worker is one worker's scratch: summed inputs, the kernel arguments and
// the failure flag of the current phase. Each worker writes only its own.
type worker struct {
	sums  []float64
	in    []node.Strided
	in2   []node.Strided
	terms []node.Strided // one summed input's terms
	args  node.BatchArgs
	bad   bool
	_     [64]byte // keep workers' flags on separate cache lines
}

// batchJob is the phase the pool's workers run.
type batchJob struct {
	kind  int
	level int
	t, dt float64
	dst   []float64 // bDerivs: where dx/dt goes
	sys   *System   // bDerivs: the loose nodes' Derivatives
	// units, when set, is the phase's work instead of every family of the
	// kind (and level): a stage of a coupling strategy.
	units *unitList
	// fuse, when set, makes the job a fused step or evaluation (fused.go)
	// split as fsplit; later selects its second phase.
	fuse   *fusePlan
	fsplit []fuseSplit
	later  bool
}

// unitList is a set of nodes (a stage of a coupling strategy) compiled
// for the batched engine: the rows of each family it holds, as contiguous
// row ranges, and the loose nodes in the set's order.
type unitList struct {
	fams  []famRange
	loose []int32
	rows  int // node evaluations
}

type famRange struct {
	f      *family
	lo, hi int
}

// compileUnits compiles a set of nodes for runList.
func (s *Sim) compileUnits(nodes []int32) *unitList {
	ul := &unitList{rows: len(nodes)}
	rows := map[*family][]int{}
	var order []*family
	for _, i := range nodes {
		if s.famOf[i] < 0 {
			ul.loose = append(ul.loose, i)
			continue
		}
		f := s.families[s.famOf[i]]
		if rows[f] == nil {
			order = append(order, f)
		}
		rows[f] = append(rows[f], int(s.rowOf[i]))
	}
	for _, f := range order {
		rs := rows[f]
		slices.Sort(rs)
		lo := rs[0]
		for k := 1; k <= len(rs); k++ {
			if k == len(rs) || rs[k] != rs[k-1]+1 {
				ul.fams = append(ul.fams, famRange{f: f, lo: lo, hi: rs[k-1] + 1})
				if k < len(rs) {
					lo = rs[k]
				}
			}
		}
	}
	return ul
}

// runList runs phase (phaseOutputs or phaseUpdate) on a set of nodes:
// batched when the engine is on and the set was compiled (ul), replayed
// on the per-node path when the batched attempt fails (the set's nodes
// write only their own slots, so the replay starts from the same
// values), and on the per-node path when ul is nil.
func (s *Sim) runList(phase int, nodes []int32, ul *unitList, t, dt float64) error {
	if ul != nil && s.batching() {
		kind := bOutputs
		if phase == phaseUpdate {
			kind = bUpdate
		}
		if s.runPhase(batchJob{kind: kind, t: t, dt: dt, units: ul}) {
			return nil
		}
		s.replays++
	}
	return s.run(phase, nodes, t, dt)
}

// batchPool runs the parts of a phase on workers 1..n-1 while the caller
// runs part 0. It lives for one Run.
//
// A W1 phase of 10 000 rows takes tens of microseconds, about what waking
// a parked goroutine costs, so hand-offs spin: the caller publishes the
// job and bumps seq, workers that are spinning see it at once, and the
// caller spins (yielding) until every worker has counted itself done. A
// worker that polls spin times without a new job parks on a condition
// variable; the caller broadcasts under its mutex only when some worker
// is parked (parked > 0), so a pool whose workers spin takes no lock.
// No wake-up is lost: a worker counts itself parked before it checks seq
// under the mutex, and the caller bumps seq before it reads parked.
type batchPool struct {
	s   *Sim
	n   int
	job batchJob // written by the caller before seq moves
	seq atomic.Uint64
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
// phase (1 << 14 polls, some microseconds, against a 45 µs W1 phase of
// 10 000 masses) a worker that finished early parked and woke late, and
// two workers were slower than one. Spinning pays only while every
// worker has a core: batchPool.adapt turns it off for a while when
// workers keep starting late.
const spinLimit = 1 << 17

func startBatchPool(s *Sim, n int) *batchPool {
	p := &batchPool{s: s, n: n, maxSpin: spinLimit}
	p.cond = sync.NewCond(&p.mu)
	s.fuseStep.prepare(n)
	s.fuseDerivs.prepare(n)
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
func (p *batchPool) work(w int) {
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
		p.s.part(p.job, w, p.n)
		p.done.Add(1)
	}
}

// run runs job j on every worker, part 0 on the caller, and returns when
// every part is done.
func (p *batchPool) run(j batchJob) {
	p.job = j
	p.started.Store(0)
	p.done.Store(0)
	p.publish()
	p.s.part(j, 0, p.n)
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
func (p *batchPool) publish() {
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
func (p *batchPool) adapt(lim int64, late bool) {
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

func (p *batchPool) stop() {
	p.stopping.Store(true)
	p.publish()
	p.wg.Wait()
}

// ensureWorkers sizes the per-worker scratch for n workers (set-up only).
func (s *Sim) ensureWorkers(n int) {
	sums, ins, terms := 0, 0, 0
	for _, f := range s.families {
		sums = max(sums, f.sumSize)
		ins = max(ins, len(f.in))
		for _, fi := range f.in {
			terms = max(terms, len(fi.terms))
		}
	}
	for len(s.workers) < n {
		s.workers = append(s.workers, &worker{sums: make([]float64, sums), in: make([]node.Strided, ins), in2: make([]node.Strided, ins), terms: make([]node.Strided, terms)})
	}
}

// stepBatched is the Jacobi step on families: outputs at t level by
// level, then every stateful node to t+dt. It reports false when the
// step must be replayed on the per-node path.
func (s *Sim) stepBatched(t, dt float64) bool {
	// Outputs kept in Sim.z (compact.go) are computed only here: a fresh
	// Sim.y (after Value or a recorded row) does not hold them.
	if !s.yFresh || len(s.z) > 0 {
		if s.fuseStep != nil && s.cplan == nil {
			return s.runFused(s.fuseStep, batchJob{t: t, dt: dt})
		}
		for l := range s.levels {
			if !s.runPhase(batchJob{kind: bOutputs, level: l, t: t}) {
				return false
			}
		}
	}
	return s.runPhase(batchJob{kind: bUpdate, t: t, dt: dt})
}

// outputsBatched evaluates the outputs that edges read, at the current
// state, level by level.
func (s *Sim) outputsBatched(t float64) bool {
	for l := range s.levels {
		if !s.runPhase(batchJob{kind: bOutputs, level: l, t: t}) {
			return false
		}
	}
	return true
}

// runPhase runs one phase on every worker and reports whether all parts
// succeeded.
func (s *Sim) runPhase(j batchJob) bool {
	p := s.bpool
	if p == nil || s.phaseRows(j) < s.grain {
		s.part(j, 0, 1)
		return !s.workers[0].bad
	}
	p.run(j)
	ok := true
	for w := 0; w < p.n; w++ {
		ok = ok && !s.workers[w].bad
	}
	return ok
}

// compileArgs builds each family's output views as kernel arguments
// (family.outArgs, outArgsY), once: they point into Sim.y and Sim.z,
// which Build allocates for the Sim's lifetime.
func (s *Sim) compileArgs() {
	for _, f := range s.families {
		f.outArgs = s.strided(f.outs)
		if f.outsY != nil {
			f.outArgsY = s.strided(f.outsY)
		}
	}
}

func (s *Sim) strided(vs []view) []node.Strided {
	out := make([]node.Strided, len(vs))
	for i := range vs {
		v := &vs[i]
		out[i] = node.Strided{Buf: s.buffer(v), Off: v.off, Stride: v.stride}
	}
	return out
}

// runFused runs a fused step or evaluation (fused.go): on the calling
// goroutine when the pool is off or the work is below Grain, else in two
// phases on the workers. It reports whether every part succeeded.
func (s *Sim) runFused(p *fusePlan, j batchJob) bool {
	j.fuse = p
	bp := s.bpool
	if bp == nil || p.rows < s.grain {
		j.fsplit = p.split1
		s.part(j, 0, 1)
		return !s.workers[0].bad
	}
	j.fsplit = p.splitN
	for _, later := range [...]bool{false, true} {
		if later && p.window {
			break // one phase: no part reads another's rows
		}
		j.later = later
		bp.run(j)
		for w := 0; w < bp.n; w++ {
			if s.workers[w].bad {
				return false
			}
		}
	}
	return true
}

// phaseRows is the number of node evaluations in a phase.
func (s *Sim) phaseRows(j batchJob) int {
	if j.units != nil {
		return j.units.rows
	}
	n := 0
	switch j.kind {
	case bOutputs:
		for _, f := range s.families {
			if f.level == j.level {
				n += len(f.rows)
			}
		}
		n += len(s.looseLevels[j.level])
	default:
		for _, f := range s.families {
			if f.xn > 0 {
				n += len(f.rows)
			}
		}
		n += len(s.looseStateful)
	}
	return n
}

// part runs worker w's share of a phase (of n workers): a contiguous
// range of every family's rows and of the loose nodes. Results do not
// depend on n: every row is computed alone, from values computed before
// the phase.
func (s *Sim) part(j batchJob, w, n int) {
	wk := s.workers[w]
	wk.bad = false
	defer func() {
		if r := recover(); r != nil {
			wk.bad = true
		}
	}()
	if j.units != nil {
		s.partOf(j, wk, w, n)
		return
	}
	if j.fuse != nil {
		wk.bad = !s.fusedPart(j.fuse, j, wk, w, j.later)
		return
	}
	for _, f := range s.families {
		switch j.kind {
		case bOutputs:
			if f.level != j.level {
				continue
			}
		case bUpdate:
			if f.xn == 0 {
				continue
			}
		case bDerivs:
			if f.xn == 0 || f.der == nil {
				continue
			}
		}
		rows := len(f.rows)
		lo, hi := rows*w/n, rows*(w+1)/n
		for b := lo; b < hi; b += sumBlock {
			if !s.block(wk, f, &j, b, min(b+sumBlock, hi), nil) {
				wk.bad = true
				return
			}
		}
	}
	var tasks []int32
	switch j.kind {
	case bOutputs:
		tasks = s.looseLevels[j.level]
	case bUpdate:
		tasks = s.looseStateful
	case bDerivs:
		tasks = j.sys.looseDerivs
	}
	lo, hi := len(tasks)*w/n, len(tasks)*(w+1)/n
	if lo == hi {
		return
	}
	var err error
	switch j.kind {
	case bOutputs:
		err = s.chunk(phaseOutputs, tasks[lo:hi], j.t, 0)
	case bUpdate:
		err = s.chunk(phaseUpdate, tasks[lo:hi], j.t, j.dt)
	case bDerivs:
		err = j.sys.derivNodes(tasks[lo:hi], j.t, s.x, j.dst)
	}
	if err != nil {
		wk.bad = true
	}
}

// partOf is part for a compiled set of nodes (batchJob.units).
func (s *Sim) partOf(j batchJob, wk *worker, w, n int) {
	for _, fr := range j.units.fams {
		rows := fr.hi - fr.lo
		lo, hi := fr.lo+rows*w/n, fr.lo+rows*(w+1)/n
		for b := lo; b < hi; b += sumBlock {
			if !s.block(wk, fr.f, &j, b, min(b+sumBlock, hi), nil) {
				wk.bad = true
				return
			}
		}
	}
	tasks := j.units.loose
	lo, hi := len(tasks)*w/n, len(tasks)*(w+1)/n
	if lo == hi {
		return
	}
	phase := phaseOutputs
	if j.kind == bUpdate {
		phase = phaseUpdate
	}
	if s.chunk(phase, tasks[lo:hi], j.t, j.dt) != nil {
		wk.bad = true
	}
}

// block runs the kernel of f on rows [lo, hi) (at most sumBlock rows):
// sums the additive inputs into the worker's scratch, calls the kernel
// and checks what it wrote. It reports false on any failure. c, when not
// nil, is the fused call this is, whose views (fused.go: windows) replace
// the family's own.
func (s *Sim) block(wk *worker, f *family, j *batchJob, lo, hi int, c *fuseCall) bool {
	a := &wk.args
	a.T, a.Dt, a.Lo, a.Hi = j.t, j.dt, lo, hi
	a.Present = f.present
	a.X = node.Strided{Buf: s.x, Off: f.x0, Stride: f.xs}
	outArgs, fins := s.views(f)
	var tv []node.Strided
	if c != nil {
		tv = c.terms
		if c.outs != nil {
			outArgs = c.outs
		}
	}
	in := wk.in[:len(fins)]
	a.In2 = nil
	if f.pairs {
		a.In2 = wk.in2[:len(fins)]
	}
	k := 0 // the flat index of fins[ii].terms[0]
	for ii := range fins {
		fi := &fins[ii]
		if a.In2 != nil {
			a.In2[ii] = node.Strided{}
		}
		switch {
		case fi.pair:
			in[ii], a.In2[ii] = s.termView(&fi.terms[0], tv, k), s.termView(&fi.terms[1], tv, k+1)
			// The kernel's contract (node.BatchPairAdder) makes a
			// non-finite term reach Dst, which Update and Derivatives
			// check; outputs are checked only where read, so here the
			// terms are checked.
			if j.kind == bOutputs && fi.checkY && (!finiteRows(in[ii], fi.n, lo, hi) || !finiteRows(a.In2[ii], fi.n, lo, hi)) {
				return false
			}
		case fi.sum >= 0:
			buf := wk.sums[fi.sum : fi.sum+sumBlock*fi.n]
			ts := wk.terms[:len(fi.terms)]
			for ti := range fi.terms {
				ts[ti] = s.termView(&fi.terms[ti], tv, k+ti)
			}
			if !sumInto(buf, ts, fi.n, lo, hi) && fi.checkY {
				return false
			}
			in[ii] = node.Strided{Buf: buf, Off: -lo * fi.n, Stride: fi.n}
		default:
			in[ii] = s.termView(&fi.terms[0], tv, k)
			if fi.checkY && !finiteRows(in[ii], fi.n, lo, hi) {
				return false
			}
		}
		k += len(fi.terms)
	}
	a.In = in
	var err error
	switch j.kind {
	case bOutputs:
		a.Out = outArgs
		a.Need = f.need
		err = f.out.Outputs(a)
		if err == nil {
			return checkRuns(s.y, f.y0, f.ys, f.needed, lo, hi)
		}
	case bUpdate:
		a.Dst = node.Strided{Buf: s.xNext, Off: f.x0, Stride: f.xs}
		a.Need = nil
		err = f.upd.Update(a)
		if err == nil {
			return checkRows(s.xNext, f.x0, f.xs, f.xn, lo, hi)
		}
	case bDerivs:
		a.Dst = node.Strided{Buf: j.dst, Off: f.x0, Stride: f.xs}
		a.Need = nil
		err = f.der.Derivatives(a)
		if err == nil {
			return checkRows(j.dst, f.x0, f.xs, f.xn, lo, hi)
		}
	}
	return false
}

// termView is the kernel view of input term t, flat index k of its
// family's terms: tv[k] when the call gives one (a window), else t in
// its buffer.
func (s *Sim) termView(t *view, tv []node.Strided, k int) node.Strided {
	if tv != nil && tv[k].Buf != nil {
		return tv[k]
	}
	return node.Strided{Buf: s.buffer(t), Off: t.off, Stride: t.stride}
}

func (s *Sim) buffer(v *view) []float64 {
	switch v.buf {
	case bufX:
		return s.x
	case bufY:
		return s.y
	case bufZ:
		return s.z
	}
	return v.c
}

// sumInto writes the additive input of rows [lo, hi) whose terms are
// the views terms (n components each) into dst (row i at (i−lo)·n), the
// terms added in connection order as the per-node gathers add them: the
// first copied, each next one added. It reports whether every sum is
// finite; a non-finite term makes its sum non-finite, so this checks the
// terms too.
func sumInto(dst []float64, terms []node.Strided, n, lo, hi int) bool {
	dst = dst[:(hi-lo)*n]
	if n == 3 && len(terms) == 2 {
		// The common case (a mass between two connectors) in one pass:
		// a+b is what copying a and adding b computes.
		// The rows of both terms are checked once (Span), then addressed
		// with unsafe.Add.
		a, b := terms[0], terms[1]
		ap := unsafe.Pointer(&a.Span(lo, hi, 3)[0])
		bp := unsafe.Pointer(&b.Span(lo, hi, 3)[0])
		as, bs := uintptr(a.Stride)*8, uintptr(b.Stride)*8
		var acc float64
		for k := 0; k < hi-lo; k++ {
			u := uintptr(k)
			p, q, r := (*[3]float64)(unsafe.Add(ap, u*as)), (*[3]float64)(unsafe.Add(bp, u*bs)), (*[3]float64)(dst[3*k:])
			r[0] = p[0] + q[0]
			r[1] = p[1] + q[1]
			r[2] = p[2] + q[2]
			acc += r[0]*0 + r[1]*0 + r[2]*0
		}
		return acc == 0
	}
	for ti, t := range terms {
		src := t.Buf
		o := t.Off + lo*t.Stride
		if ti == 0 {
			for d := 0; d < len(dst); d += n {
				for k, v := range src[o : o+n] {
					dst[d+k] = v
				}
				o += t.Stride
			}
			continue
		}
		for d := 0; d < len(dst); d += n {
			for k, v := range src[o : o+n] {
				dst[d+k] += v
			}
			o += t.Stride
		}
	}
	return allFinite(dst)
}

// checkRows reports whether rows [lo, hi) of a strided block of width n
// are all finite. It is one multiply-add per value: v·0 is 0 for every
// finite v and NaN for NaN and ±Inf, so the sum is 0 exactly when every
// value is finite.
func checkRows(buf []float64, off, stride, n, lo, hi int) bool {
	if stride == n {
		return allFinite(buf[off+lo*n : off+hi*n])
	}
	var acc float64
	for i := lo; i < hi; i++ {
		o := off + i*stride
		for _, v := range buf[o : o+n] {
			acc += v * 0
		}
	}
	return acc == 0
}

// finiteRows is checkRows of a view.
func finiteRows(v node.Strided, n, lo, hi int) bool {
	return checkRows(v.Buf, v.Off, v.Stride, n, lo, hi)
}

// checkRuns is checkRows over the given [a, b) runs of every row.
func checkRuns(buf []float64, off, stride int, runs [][2]int, lo, hi int) bool {
	var acc float64
	for _, r := range runs {
		for i := lo; i < hi; i++ {
			o := off + i*stride
			for _, v := range buf[o+r[0] : o+r[1]] {
				acc += v * 0
			}
		}
	}
	return acc == 0
}

// allFinite reports whether every value of v is finite (see checkRows).
// Eight values per iteration through one bounds-checked slice of the
// whole run, four independent sums: the check of a step's new state is
// the one pass over it the hand-written loop does not make.
func allFinite(v []float64) bool {
	var a0, a1, a2, a3 float64
	i := 0
	for ; i+8 <= len(v); i += 8 {
		q := (*[8]float64)(v[i : i+8])
		a0 += q[0]*0 + q[4]*0
		a1 += q[1]*0 + q[5]*0
		a2 += q[2]*0 + q[6]*0
		a3 += q[3]*0 + q[7]*0
	}
	for ; i < len(v); i++ {
		a0 += v[i] * 0
	}
	return a0+a1+a2+a3 == 0
}
