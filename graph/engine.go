package graph

import (
	"slices"

	"github.com/cosimgo/cosim/node"
)

// The batched engine: a step (or a monolithic evaluation) as phases over
// families and loose nodes.
//
// Reading order: the engine type and the methods the Sim drives (step,
// outputs, derivatives, stage, runNodes, startWorkers) come first;
// dispatch hands a job to the workers (pool.go); part is what one worker
// does of a job; block (kernels.go) is one kernel call with its summed
// inputs before it and its finiteness check after it, run and exec the
// same for a call compiled at Build (callArgs: a fused plan's calls),
// solo (fused.go) a fused plan run whole on the calling goroutine without
// a job, and family.kernel and exec the places a family's kernels are
// called. Build compiles the engine in newEngine: families (family.go),
// the packed output columns (compact.go) and the fused plans (fused.go).
//
// Any failure in a batched phase — a kernel error, a panic, a non-finite
// value in a checked block, an error of a loose node — makes the caller
// replay the whole step or evaluation on the per-node path from the
// retained state, which reports exactly the *node.StateError of the first
// failing node. The batched path therefore never has to name a node.

// phase is what one pass over nodes computes.
type phase uint8

const (
	// phaseOutputs evaluates outputs (node.Outputter, node.BatchOutputter)
	// from the state being read.
	phaseOutputs phase = iota
	// phaseUpdate advances stateful nodes by one step (node.Node.Update,
	// node.Batch.Update), their inputs gathered first, into
	// Sim.nextState.
	phaseUpdate
	// phaseHeld is phaseUpdate with the inputs already in Sim.inputs, not
	// gathered: an iterated coupling group writes its interface iterate
	// there itself. The per-node path only.
	phaseHeld
	// phaseDerivs evaluates dx/dt (node.Deriver, node.BatchDeriver) for a
	// monolithic evaluation, into the evaluation's buffer.
	phaseDerivs
)

// engine is the batched engine of a Sim. It reads the Sim's layout
// (fixed at Build) and buffers (whose state slices the Sim swaps between
// calls), and owns what batching needs: the families and their compiled
// views, the packed output columns, the fused plans, the workers'
// scratch and the worker pool of a Run. It hands the nodes it cannot
// batch (the loose nodes) back to the per-node path through evalNodes.
//
// The Sim drives it with a few methods: step, outputs and derivatives (a
// Jacobi step, an output evaluation, a monolithic evaluation; false means
// "replay it per node"), stage (a coupling strategy's stage, compiled by
// compileStage), runNodes (a phase of the per-node path, split across
// the workers) and startWorkers/stopWorkers around a Run.
type engine struct {
	layout *layout
	buf    *buffers
	// evalNodes is the per-node path (Sim.evalNodes): it runs a phase
	// on the nodes given, in order, and returns the first node's error.
	evalNodes func(ph phase, nodes []int32, t, dt float64) error

	families      []*family
	inFamily      []bool    // per node
	famOf, rowOf  []int32   // per node: its family (−1: none) and row
	looseLevels   [][]int32 // per output level, nodes not in a family
	looseStateful []int32   // stateful nodes not in a family

	// packed holds the output fields only families read, in compact
	// columns (compact.go); kernels write and read them there, the
	// per-node path never.
	packed []float64
	// fuseStep and fuseDerivs are the fused forms of a step and of a
	// derivatives evaluation (fused.go); nil where fusion does not apply.
	fuseStep, fuseDerivs *fusePlan
	windows              windowMode

	// unpacked is set during a coupled Run: kernels then read and write
	// the outputs in Sim.outputs (family.outsFull, inFull), because
	// coupling stages mix batched and per-node evaluations of the same
	// outputs.
	unpacked bool
	// off is SetBatching(false): every phase runs on the per-node path.
	off bool

	workers []*worker   // per worker: scratch; workers[0] is the caller's
	pool    *workerPool // the workers of the current Run; nil: none
	grain   int         // the smallest phase the pool splits (CoSimulation.Grain)
	job     job         // the job the pool's parts run
	// sharing decides when the pool's jobs run alone; kept from Run to
	// Run (pool.go).
	sharing *sharing
}

// windowMode selects window mode for fused steps (fused.go).
type windowMode int8

const (
	// windowsAuto uses windows where the packed columns hold at least
	// windowMinValues values: Build's choice.
	windowsAuto windowMode = iota
	// windowsAlways and windowsNever force the choice, for tests'
	// comparisons.
	windowsAlways
	windowsNever
)

// newEngine compiles the batched engine of s at the end of Build: the
// families, the packed output columns, the nodes left to the per-node
// path, the kernels' output views and the fused plans.
func newEngine(s *Sim) *engine {
	e := &engine{layout: &s.layout, buf: &s.buffers, evalNodes: s.evalNodes}
	e.compileFamilies()
	e.compactOutputs()
	e.compileLoose()
	e.compileArgs()
	e.ensureWorkers(1) // before compileFused: compiled calls use the workers' scratch
	e.compileFused()
	return e
}

// on reports whether steps and evaluations use families.
func (e *engine) on() bool { return len(e.families) > 0 && !e.off }

// worker is one worker's scratch: summed inputs, the kernel arguments and
// the outcome of its part of the current job. Each worker writes only its
// own.
type worker struct {
	sums  []float64
	in    []node.Strided
	in2   []node.Strided
	terms []node.Strided // one summed input's terms
	args  node.BatchArgs
	bad   bool  // a batched part failed: the job must be replayed
	err   error // a per-node part's error (jobNodes)
	_     [64]byte
}

// jobKind is what a job's parts run.
type jobKind uint8

const (
	// jobPhase is one phase over every family of the phase (of the level,
	// for outputs) and the loose nodes.
	jobPhase jobKind = iota
	// jobStage is one phase over a coupling stage (job.stage).
	jobStage
	// jobFused is a fused step or evaluation (job.fuse).
	jobFused
	// jobNodes is one phase of the per-node path over job.nodes.
	jobNodes
)

// job is the work the workers share: the caller writes it before the
// pool starts the parts, and the parts only read it.
type job struct {
	kind  jobKind
	phase phase
	level int // jobPhase, phaseOutputs: the output level
	t, dt float64
	dst   []float64 // phaseDerivs: where dx/dt goes
	sys   *System   // phaseDerivs: the loose nodes' Derivatives
	stage *unitList // jobStage
	nodes []int32   // jobNodes
	// fuse is the fused plan of a jobFused, split as split; later
	// selects its second phase (fused.go).
	fuse  *fusePlan
	split []fuseSplit
	later bool
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

// compileStage compiles a set of nodes for stage.
func (e *engine) compileStage(nodes []int32) *unitList {
	ul := &unitList{rows: len(nodes)}
	rows := map[*family][]int{}
	var order []*family
	for _, i := range nodes {
		if e.famOf[i] < 0 {
			ul.loose = append(ul.loose, i)
			continue
		}
		f := e.families[e.famOf[i]]
		if rows[f] == nil {
			order = append(order, f)
		}
		rows[f] = append(rows[f], int(e.rowOf[i]))
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

// compilePlan compiles the node sets of a coupling plan's Gauss–Seidel
// stages and rate classes for the batched engine. Iterated groups stay
// on the per-node path: their iteration reads the members' gathered
// inputs (Sim.inputs), which batch kernels do not fill.
func (e *engine) compilePlan(p *coupledPlan) {
	if len(e.families) == 0 {
		return
	}
	for k := range p.stages {
		g := &p.stages[k]
		g.units = e.compileStage(g.nodes)
		for b := range g.reeval {
			g.reeval[b].units = e.compileStage(g.reeval[b].nodes)
		}
	}
	for k := range p.classes {
		rc := &p.classes[k]
		rc.units = e.compileStage(rc.nodes)
		rc.reevalUnits = make([]*unitList, len(rc.reeval))
		for l, ns := range rc.reeval {
			rc.reevalUnits[l] = e.compileStage(ns)
		}
	}
}

// ensureWorkers sizes the per-worker scratch for n workers (set-up only).
func (e *engine) ensureWorkers(n int) {
	sums, ins, terms := 0, 0, 0
	for _, f := range e.families {
		sums = max(sums, f.sumSize)
		ins = max(ins, len(f.in))
		for _, fi := range f.in {
			terms = max(terms, len(fi.terms))
		}
	}
	for len(e.workers) < n {
		e.workers = append(e.workers, &worker{sums: make([]float64, sums), in: make([]node.Strided, ins), in2: make([]node.Strided, ins), terms: make([]node.Strided, terms)})
	}
}

// startWorkers starts the pool of n workers for a Run (n > 1) and sets
// the grain below which phases run on the caller; stopWorkers stops it.
func (e *engine) startWorkers(n, grain int) {
	e.grain = grain
	if n <= 1 {
		return
	}
	e.ensureWorkers(n * partsPerWorker)
	if p := e.fuseStep; p != nil {
		p.prepare(e.partsFor(n, p.rows))
	}
	if p := e.fuseDerivs; p != nil {
		p.prepare(e.partsFor(n, p.rows))
	}
	if e.sharing == nil {
		e.sharing = newSharing()
	}
	e.pool = startWorkerPool(n, e.part, e.sharing)
}

// partRows and partsPerWorker set how finely a shared job is split:
// into partsPerWorker parts per worker when every part then has at least
// partRows node evaluations, fewer otherwise, and never fewer than one
// per worker. Parts are claimed (pool.go): a worker that runs slower or
// starts late takes fewer of them, and one that stops running in the
// middle of a part holds up only that part. A part costs two atomic
// operations on a cache line the goroutines share (a claim and its
// completion, a few hundred nanoseconds between cores) and a few
// boundary rows in window mode, which 4 096 rows (about 20 µs of the W1
// chain) make small.
const (
	partRows       = 4096
	partsPerWorker = 2
)

// partsFor is the parts of a shared job of rows node evaluations with n
// workers.
func (e *engine) partsFor(n, rows int) int {
	return n * min(max(rows/(n*partRows), 1), partsPerWorker)
}

func (e *engine) stopWorkers() {
	if e.pool != nil {
		e.pool.stop()
		e.pool = nil
	}
}

// step is the Jacobi step on families: outputs at t level by level, then
// every stateful node to t+dt. fresh says that Sim.outputs already holds
// the outputs at t. It reports false when the step must be replayed on
// the per-node path.
func (e *engine) step(t, dt float64, fresh bool) bool {
	// Outputs kept in the packed columns (compact.go) are computed only
	// here: a fresh Sim.outputs (after Value or a recorded row) does not
	// hold them.
	if !fresh || len(e.packed) > 0 {
		if e.fuseStep != nil && !e.unpacked {
			return e.dispatchFused(e.fuseStep, t, dt, e.buf.nextState)
		}
		if !e.outputs(t) {
			return false
		}
	}
	return e.dispatch(job{phase: phaseUpdate, t: t, dt: dt})
}

// outputs evaluates the outputs that edges read, at the state being read,
// level by level.
func (e *engine) outputs(t float64) bool {
	for l := range e.layout.levels {
		if !e.dispatch(job{phase: phaseOutputs, level: l, t: t}) {
			return false
		}
	}
	return true
}

// derivatives writes dx/dt at the state being read into dst (a
// monolithic evaluation, System.Func): outputs, then derivatives, fused
// where the plan allows.
func (e *engine) derivatives(t float64, dst []float64, sys *System) bool {
	if e.fuseDerivs != nil && !e.unpacked && len(sys.looseDerivs) == 0 {
		return e.dispatchFused(e.fuseDerivs, t, 0, dst)
	}
	return e.outputs(t) && e.dispatch(job{phase: phaseDerivs, t: t, dst: dst, sys: sys})
}

// stage runs phase ph (phaseOutputs or phaseUpdate) on a compiled stage
// of a coupling strategy.
func (e *engine) stage(ph phase, ul *unitList, t, dt float64) bool {
	return e.dispatch(job{kind: jobStage, phase: ph, t: t, dt: dt, stage: ul})
}

// runNodes runs phase ph of the per-node path on nodes, split across the
// pool when there is one and the list is large enough. The error is the
// one of the first failing node in list order, whatever the split.
func (e *engine) runNodes(ph phase, nodes []int32, t, dt float64) error {
	if e.pool == nil || len(nodes) < e.grain || !e.pool.share(len(nodes)) {
		return e.evalNodes(ph, nodes, t, dt)
	}
	e.job = job{kind: jobNodes, phase: ph, t: t, dt: dt, nodes: nodes}
	k := e.partsFor(e.pool.n, len(nodes))
	e.pool.runParts(len(nodes), k)
	for _, wk := range e.workers[:k] {
		if wk.err != nil {
			return wk.err
		}
	}
	return nil
}

// dispatch runs job j, on the workers when there is a pool, j is at
// least Grain rows and the pool shares it (workerPool.share), and
// reports whether every part succeeded.
func (e *engine) dispatch(j job) bool {
	e.job = j
	if e.pool == nil {
		e.part(0, 1)
		return !e.workers[0].bad
	}
	rows := e.jobRows(&e.job)
	if rows < e.grain || !e.pool.share(rows) {
		e.part(0, 1)
		return !e.workers[0].bad
	}
	k := e.partsFor(e.pool.n, rows)
	e.pool.runParts(rows, k)
	return e.partsOK(k)
}

// dispatchFused runs fused plan p at time t with step dt, its consumers
// writing dst (Sim.nextState for a step, dx/dt for an evaluation): on the
// calling goroutine, whole (solo), when there is no pool, the work is
// below Grain or the pool runs it alone (workerPool.share), else in two
// phases on the workers (one in window mode). It reports whether every
// part succeeded.
func (e *engine) dispatchFused(p *fusePlan, t, dt float64, dst []float64) bool {
	if e.pool == nil || p.rows < e.grain || !e.pool.share(p.rows) {
		return e.solo(p, t, dt, dst)
	}
	j := job{kind: jobFused, fuse: p, t: t, dt: dt, split: p.splitN}
	if p.phase == phaseDerivs {
		j.dst = dst
	}
	rows := p.rows // counted with the first phase
	for _, later := range [...]bool{false, true} {
		if later && p.window {
			break // one phase: no part reads another's rows
		}
		j.later = later
		e.job = j
		e.pool.runParts(rows, len(p.splitN))
		rows = 0
		if !e.partsOK(len(p.splitN)) {
			return false
		}
	}
	return true
}

// partsOK reports whether no part of the pool's last job, of k parts,
// failed.
func (e *engine) partsOK(k int) bool {
	for _, wk := range e.workers[:k] {
		if wk.bad {
			return false
		}
	}
	return true
}

// jobRows is the number of node evaluations in a job.
func (e *engine) jobRows(j *job) int {
	switch j.kind {
	case jobStage:
		return j.stage.rows
	case jobFused:
		return j.fuse.rows
	case jobNodes:
		return len(j.nodes)
	}
	n := 0
	switch j.phase {
	case phaseOutputs:
		for _, f := range e.families {
			if f.level == j.level {
				n += len(f.rows)
			}
		}
		n += len(e.looseLevels[j.level])
	default:
		for _, f := range e.families {
			if f.xn > 0 {
				n += len(f.rows)
			}
		}
		n += len(e.looseStateful)
	}
	return n
}

// part runs worker w's share of the current job (of n workers): a
// contiguous range of every family's rows and of the loose nodes. Results
// do not depend on n: every row is computed alone, from values computed
// before the phase.
func (e *engine) part(w, n int) {
	j := &e.job
	wk := e.workers[w]
	wk.bad = false
	if j.kind == jobNodes {
		lo, hi := len(j.nodes)*w/n, len(j.nodes)*(w+1)/n
		wk.err = e.evalNodes(j.phase, j.nodes[lo:hi], j.t, j.dt)
		return
	}
	defer func() {
		if r := recover(); r != nil {
			wk.bad = true
		}
	}()
	switch j.kind {
	case jobStage:
		e.stagePart(j, wk, w, n)
		return
	case jobFused:
		wk.bad = !e.fusedPart(j, w)
		return
	}
	for _, f := range e.families {
		if !f.computes(j.phase, j.level) {
			continue
		}
		rows := len(f.rows)
		lo, hi := rows*w/n, rows*(w+1)/n
		for b := lo; b < hi; b += sumBlock {
			if !e.block(wk, f, j.phase, j, b, min(b+sumBlock, hi)) {
				wk.bad = true
				return
			}
		}
	}
	var loose []int32
	switch j.phase {
	case phaseOutputs:
		loose = e.looseLevels[j.level]
	case phaseUpdate:
		loose = e.looseStateful
	case phaseDerivs:
		loose = j.sys.looseDerivs
	}
	lo, hi := len(loose)*w/n, len(loose)*(w+1)/n
	if lo == hi {
		return
	}
	var err error
	if j.phase == phaseDerivs {
		err = j.sys.derivNodes(loose[lo:hi], j.t, e.buf.state, j.dst)
	} else {
		err = e.evalNodes(j.phase, loose[lo:hi], j.t, j.dt)
	}
	if err != nil {
		wk.bad = true
	}
}

// stagePart is part for a compiled stage (jobStage).
func (e *engine) stagePart(j *job, wk *worker, w, n int) {
	for _, fr := range j.stage.fams {
		rows := fr.hi - fr.lo
		lo, hi := fr.lo+rows*w/n, fr.lo+rows*(w+1)/n
		for b := lo; b < hi; b += sumBlock {
			if !e.block(wk, fr.f, j.phase, j, b, min(b+sumBlock, hi)) {
				wk.bad = true
				return
			}
		}
	}
	loose := j.stage.loose
	lo, hi := len(loose)*w/n, len(loose)*(w+1)/n
	if lo == hi {
		return
	}
	if e.evalNodes(j.phase, loose[lo:hi], j.t, j.dt) != nil {
		wk.bad = true
	}
}
