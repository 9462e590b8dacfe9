package graph

import "github.com/cosimgo/cosim/node"

// Fused steps: the output phase and the update (or derivatives) phase of
// a step interleaved block by block, a wavefront. Phase by phase, a large
// chain writes every connector's loads to memory and reads them back
// after the whole output phase, and reads every state twice; fused, a
// block of masses is updated right after the connectors it reads, while
// their loads and the states are still in L1.
//
// A fused step computes exactly the rows the phased step computes (in
// window mode, below, a few boundary rows twice), from the same values (outputs read the state at t, which no
// update overwrites: updates write Sim.nextState; derivatives write their
// own buffer), so its results are the same bits. Only the order changes.
//
// Fusion applies when the outputs phase is a single level of families
// (no loose node has outputs or state), and every input term of a
// consumer family that reads an output reads it at rows affine in the
// consumer's row, within one producer family per segment of rows
// (fuseDep). Otherwise steps run phase by phase.
//
// With one worker a fused step is one pass: before each consumer block,
// the producer rows it reads are computed (each producer's watermark
// advances), and the producer rows nobody consumed are computed at the
// end. With n workers, worker w owns a proportional share of every
// producer's rows and of every consumer's rows; in a first phase it runs
// the consumer rows whose producers it owns, fused, and all its producer
// rows; after the barrier it runs the consumer rows it deferred (those
// reading a producer row of another worker: a row or two at each
// boundary of a chain). Window mode (windowPart) replaces engine.packed with
// per-part windows and needs no barrier.

// fuseDep says that consumer rows [ilo, ihi) read, as input term term
// (flat index over the consumer's inputs' terms), output field field of
// producer rows a·i + c.
type fuseDep struct {
	prod     int // index in fusePlan.prods
	term     int
	field    int // index in the producer's outs
	ilo, ihi int
	a, c     int
}

// fuseCons is a consumer family of a fused step and what it reads.
type fuseCons struct {
	f    *family
	deps []fuseDep
}

// fusePlan is the fused form of a step or a derivatives evaluation.
type fusePlan struct {
	phase phase     // phaseUpdate or phaseDerivs: what the consumers compute
	prods []*family // the families of the outputs phase
	cons  []fuseCons
	rows  int // node evaluations, for the Grain decision
	// split caches, per number of parts, each part's runnable and
	// deferred consumer rows (see fuseSplit); split1 is split[1], for the
	// step on one goroutine without a map look-up. Filled before a Run's
	// steps (prepare), read-only while they run.
	split  map[int][]fuseSplit
	split1 []fuseSplit
	splitN []fuseSplit // split[len(splitN)]: the running pool's (prepare)
	// window: the producers' outputs go to per-part windows (see
	// windowPart), not to engine.packed; windowRow[k] is the values of
	// one row of producer k in a window, windowOff[k][fi] where its
	// output field fi starts in that row (−1: not in the window). The
	// fields nothing reads, which a kernel may write all the same, go
	// likewise to a discard buffer, rows discardRow[k] long, at
	// discardOff[k][fi].
	window                bool
	windowRow, discardRow []int
	windowOff, discardOff [][]int
	// eng is the engine whose workers' scratch compiled calls use.
	eng *engine
	// bound is the pairing of (state, destination) buffers split1's args
	// (bound[0]) and alts (bound[1]) were last bound to by solo, and
	// next the one solo binds anew when neither matches.
	bound [2][2][]float64
	next  int
}

// prepare makes p ready to run split n ways (n > 1), before a Run's
// steps start.
func (p *fusePlan) prepare(n int) {
	if len(p.splitN) != n {
		p.splitN = p.splitFor(n)
	}
}

// fuseSplit is one part's share of a fused step when split n ways: the
// kernel calls it makes, in order, in the first phase and after the
// barrier. A call is one block of at most sumBlock rows of one family,
// computing outputs (a producer) or the plan's phase (a consumer).
type fuseSplit struct {
	first, later []fuseCall
}

type fuseCall struct {
	f      *family
	out    bool
	lo, hi int
	// outs (a producer) and terms (a consumer, per flat input term)
	// are the call's views of windows (a nil Buf: the family's own view);
	// nil outside window mode.
	outs, terms []node.Strided
	// f nil: a slide, copying n values of a window from src to dst.
	win           []float64
	src, dst, cnt int
	// args is the call compiled for its part (compileCall), set when
	// the split is made. alt is a second compilation of the same call,
	// made for the one-part split only (solo): the Sim swaps two state
	// buffers from step to step, and each of args and alt stays bound to
	// one of the two pairings (fusePlan.variant), so a step runs its
	// calls without re-pointing their views.
	args, alt *callArgs
}

// compileFused builds the fused plans of a step and of a derivatives
// evaluation, or leaves them nil where fusion does not apply. It runs at
// the end of Build, after compactOutputs.
func (e *engine) compileFused() {
	e.fuseStep, e.fuseDerivs = nil, nil
	if len(e.families) == 0 || len(e.looseStateful) > 0 {
		return
	}
	for _, l := range e.looseLevels {
		if len(l) > 0 {
			return
		}
	}
	var prods []*family
	for _, f := range e.families {
		switch {
		case f.level == 0:
			prods = append(prods, f)
		case f.level > 0:
			return
		}
	}
	if len(prods) == 0 {
		return // nothing to interleave
	}
	e.fuseStep = e.fusePlanFor(phaseUpdate, prods)
	e.fuseDerivs = e.fusePlanFor(phaseDerivs, prods)
}

// fusePlanFor returns the plan whose consumers compute ph, or nil.
func (e *engine) fusePlanFor(ph phase, prods []*family) *fusePlan {
	p := &fusePlan{phase: ph, prods: prods, split: map[int][]fuseSplit{}, eng: e}
	window := true // every term a consumer reads of a producer is in engine.packed
	for _, f := range prods {
		p.rows += len(f.rows)
	}
	for _, f := range e.families {
		if !f.computes(ph, 0) {
			continue
		}
		fc := fuseCons{f: f}
		term := 0
		for ii := range f.in {
			for ti, t := range f.in[ii].terms {
				flat := term + ti
				if t.buf != bufOutputs && t.buf != bufPacked {
					continue
				}
				deps, ok := termDeps(p, t, len(f.rows))
				if !ok {
					return nil
				}
				for k := range deps {
					deps[k].term = flat
				}
				fc.deps = append(fc.deps, deps...)
				if t.buf != bufPacked {
					window = false
				}
			}
			term += len(f.in[ii].terms)
		}
		p.cons = append(p.cons, fc)
		p.rows += len(f.rows)
	}
	if len(p.cons) == 0 {
		return nil
	}
	if window && (e.windows == windowsAlways || e.windows == windowsAuto && len(e.packed) >= windowMinValues) {
		e.setWindow(p)
	}
	p.split1 = p.splitFor(1)
	return p
}

// setWindow puts p in window mode when every output its producers
// compute lives in engine.packed (nothing on the per-node path reads it): each
// producer's window row holds its needed fields, packed.
func (e *engine) setWindow(p *fusePlan) {
	for _, f := range p.prods {
		if len(f.needed) > 0 {
			return
		}
		for fi, v := range f.outs {
			if f.need[fi] && v.buf != bufPacked {
				return
			}
		}
	}
	p.windowRow, p.discardRow = make([]int, len(p.prods)), make([]int, len(p.prods))
	p.windowOff, p.discardOff = make([][]int, len(p.prods)), make([][]int, len(p.prods))
	for k, f := range p.prods {
		p.windowOff[k], p.discardOff[k] = make([]int, len(f.outs)), make([]int, len(f.outs))
		for fi := range f.outs {
			n := e.layout.nodes[f.rows[0]].spec.OutputLayout.Field(fi).Shape.Len()
			if f.need[fi] {
				p.windowOff[k][fi], p.discardOff[k][fi] = p.windowRow[k], -1
				p.windowRow[k] += n
			} else {
				p.windowOff[k][fi], p.discardOff[k][fi] = -1, p.discardRow[k]
				p.discardRow[k] += n
			}
		}
	}
	p.window = true
}

// termDeps maps the rows of a consumer's input term to the producer rows
// it reads, as segments of affine maps, or reports false when some row
// reads something that is not the start of a producer's output field
// row.
func termDeps(p *fusePlan, t view, rows int) ([]fuseDep, bool) {
	var deps []fuseDep
	// find returns the producer, the output field and the row whose
	// field row starts at position pos of t's buffer, trying hint first.
	find := func(pos, hint int) (int, int, int, bool) {
		for k := range p.prods {
			pk := (hint + k) % len(p.prods)
			f := p.prods[pk]
			for fi, v := range f.outs {
				if v.buf != t.buf {
					continue
				}
				d := pos - v.off
				switch {
				case d < 0:
				case v.stride == 0 || len(f.rows) == 1:
					if d == 0 {
						return pk, fi, 0, true
					}
				case d%v.stride == 0 && d/v.stride < len(f.rows):
					return pk, fi, d / v.stride, true
				}
			}
		}
		return 0, 0, 0, false
	}
	hint := 0
	for i := 0; i < rows; i++ {
		pk, fi, r, ok := find(t.off+i*t.stride, hint)
		if !ok {
			return nil, false
		}
		hint = pk
		if n := len(deps); n > 0 {
			d := &deps[n-1]
			if d.prod == pk && d.field == fi && d.ihi == i {
				switch {
				case d.ihi-d.ilo == 1 && r >= d.c:
					d.a, d.c = r-d.c, d.c-(r-d.c)*d.ilo
					d.ihi++
					continue
				case d.a*i+d.c == r:
					d.ihi++
					continue
				}
			}
		}
		deps = append(deps, fuseDep{prod: pk, field: fi, ilo: i, ihi: i + 1, a: 0, c: r})
	}
	return deps, true
}

// splitFor returns the parts of p split n ways (computed once per n).
//
// Part w owns a proportional share of every producer's rows and of every
// consumer's rows. It runs, fused, the consumer rows whose producer rows
// are all its own — each block right after the producer rows it reads,
// each producer's rows advancing as a watermark — then the rest of its
// producer rows; after the barrier it runs the consumer rows it deferred.
func (p *fusePlan) splitFor(n int) []fuseSplit {
	if sp, ok := p.split[n]; ok {
		return sp
	}
	sp := make([]fuseSplit, n)
	if p.window {
		for w := range n {
			sp[w] = p.windowPart(w, n)
		}
		p.compileSplit(sp)
		return sp
	}
	for w := range n {
		calls := &sp[w]
		mark, need := make([]int, len(p.prods)), make([]int, len(p.prods))
		for k, f := range p.prods {
			mark[k] = len(f.rows) * w / n
		}
		advance := func(k, need int) {
			for mark[k] < need {
				e := min(mark[k]+sumBlock, need)
				calls.first = append(calls.first, fuseCall{f: p.prods[k], out: true, lo: mark[k], hi: e})
				mark[k] = e
			}
		}
		blocks := func(dst *[]fuseCall, f *family, lo, hi int, before func(b, e int)) {
			for b := lo; b < hi; b += sumBlock {
				e := min(b+sumBlock, hi)
				if before != nil {
					before(b, e)
				}
				*dst = append(*dst, fuseCall{f: f, lo: b, hi: e})
			}
		}
		for _, fc := range p.cons {
			rows := len(fc.f.rows)
			lo, hi := rows*w/n, rows*(w+1)/n
			// ok(i): every producer row consumer row i reads is w's.
			ok := func(i int) bool {
				for _, d := range fc.deps {
					if i < d.ilo || i >= d.ihi {
						continue
					}
					pr := len(p.prods[d.prod].rows)
					r := d.a*i + d.c
					if r < pr*w/n || r >= pr*(w+1)/n {
						return false
					}
				}
				return true
			}
			for i := lo; i < hi; {
				good := ok(i)
				j := i + 1
				for j < hi && ok(j) == good {
					j++
				}
				if !good {
					blocks(&calls.later, fc.f, i, j, nil)
					i = j
					continue
				}
				blocks(&calls.first, fc.f, i, j, func(b, e int) {
					// Each producer advances once per block, to the
					// furthest row the block reads through any of its
					// terms: a family whose rows several terms read (the
					// two walls of a chain, read by its first and its last
					// mass) is then one call, not one per term.
					for k := range need {
						need[k] = 0
					}
					for _, d := range fc.deps {
						if d.ilo < e && d.ihi > b {
							need[d.prod] = max(need[d.prod], d.a*(min(e, d.ihi)-1)+d.c+1)
						}
					}
					for k, r := range need {
						advance(k, r)
					}
				})
				i = j
			}
		}
		for k, f := range p.prods {
			advance(k, len(f.rows)*(w+1)/n)
		}
	}
	p.compileSplit(sp)
	return sp
}

// compileSplit compiles every kernel call of split sp (part w's with
// worker w's scratch, which ensureWorkers made before) and caches sp.
func (p *fusePlan) compileSplit(sp []fuseSplit) {
	for w := range sp {
		wk := p.eng.workers[w]
		for _, calls := range [...][]fuseCall{sp[w].first, sp[w].later} {
			for i := range calls {
				if c := &calls[i]; c.f != nil {
					c.args = p.eng.compileCall(c, p.phase, wk)
					if len(sp) == 1 && p.alternates() {
						c.alt = p.eng.compileCall(c, p.phase, wk)
					}
				}
			}
		}
	}
	p.split[len(sp)] = sp
}

// fusedPart is part's work for a fused job: worker w runs its share's
// kernel calls of the first phase (j.later false) or of the second.
func (e *engine) fusedPart(j *job, w int) bool {
	calls := j.split[w].first
	if j.later {
		calls = j.split[w].later
	}
	for i := range calls {
		c := &calls[i]
		if c.f == nil {
			copy(c.win[c.dst:c.dst+c.cnt], c.win[c.src:c.src+c.cnt])
			continue
		}
		if !e.run(c.args, j) {
			return false
		}
	}
	return true
}

// solo runs plan p whole on the calling goroutine (split1, one part):
// the step or evaluation of a graph below Grain, or of a Run with one
// worker. The state being read is Sim.state and the destination dst
// (Sim.nextState for a step, the evaluation's buffer for derivatives).
// It is fusedPart without a job: a small graph's step is a few kernel
// calls, and the job's assembly and each call's re-pointing of its views
// were a measurable share of it. A panic fails the call, as in part.
func (e *engine) solo(p *fusePlan, t, dt float64, dst []float64) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			ok = false
		}
	}()
	st := e.buf.state
	alt := p.alternates() && p.variant(st, dst) == 1
	for _, calls := range [...][]fuseCall{p.split1[0].first, p.split1[0].later} {
		for i := range calls {
			c := &calls[i]
			if c.f == nil {
				copy(c.win[c.dst:c.dst+c.cnt], c.win[c.src:c.src+c.cnt])
				continue
			}
			ca := c.args
			if alt {
				ca = c.alt
			}
			if !ca.exec(e, st, dst, t, dt) {
				return false
			}
		}
	}
	return true
}

// altRows is the largest step plan (in node evaluations) whose one-part
// split is compiled twice (fuseCall.alt). Above it a call's rows, up to
// sumBlock, outweigh re-pointing its views, and a second compilation
// would only take memory.
const altRows = 1024

// alternates reports whether p's one-part split is compiled twice: a
// step's plan (a derivatives evaluation reads an integrator's stage
// vectors, more than two pairings, and rebinds) of at most altRows node
// evaluations.
func (p *fusePlan) alternates() bool { return p.phase == phaseUpdate && p.rows <= altRows }

// variant returns which compilation of split1's calls, args (0) or alt
// (1), solo runs for the state st and destination dst: the one bound to
// them, or else the one bound longer ago, which solo then binds anew. A
// co-simulation step alternates between two pairings (the Sim swaps
// state and nextState), so each variant stays bound to one; the stages
// of a monolithic method rebind.
func (p *fusePlan) variant(st, dst []float64) int {
	for v := range p.bound {
		if sameBuf(p.bound[v][0], st) && sameBuf(p.bound[v][1], dst) {
			return v
		}
	}
	v := p.next
	p.next ^= 1
	p.bound[v] = [2][]float64{st, dst}
	return v
}

// Window mode. When every output a fused step's consumers read lives in
// engine.packed, nothing outside the step reads those values (compact.go), so a
// part keeps only the producer rows its next consumer blocks read, in a
// window of its own a few blocks long that stays in L1, instead of
// writing every row to engine.packed and reading it back: a W1 connector's two
// loads never reach memory. Each part computes every producer row its
// consumers read, including the row or two at each boundary another part
// owns (computed twice, from the same values, so in the same bits), and
// no part reads another's window: a window-mode step is one phase, with
// no barrier between its parts. The output fields nothing reads, which a
// kernel may write all the same (the per-row fallbacks write every
// field), go to a buffer of the part's that nothing reads, so two parts
// computing a boundary row never write the same memory. Producer rows no consumer reads are
// computed by the part owning them, into its window, so that a kernel
// error in them fails the step as on the per-node path.
//
// A part's call schedule is static (computed once per split): the
// consumer blocks (at most sumBlock rows, cut where a dependence segment
// starts or ends), each after the producer rows it reads that its window
// does not hold. A window holds producer rows [lo, hi); rows are appended
// at hi; when the next rows would not fit, the rows still needed slide to
// the start; when the rows needed start before lo or after hi, the
// window restarts there. Every call's views (the producer's output
// fields, the consumer's terms) are fixed at the window's position then.

// windowMinValues is the size of engine.packed from which fused steps use
// windows (Build's choice; tests force either mode): 4 Ki values, 32 KiB,
// most of a core's L1. A smaller engine.packed stays in L1 from one evaluation
// to the next, so writing it costs no misses, while windows cut consumer
// blocks where their terms move from one producer family to the next (a
// chain's ends), a kernel call or two more per evaluation, which a chain
// of ten masses would pay for nothing.
const windowMinValues = 1 << 12

// windowSlack is the rows a window holds beyond the widest span a block
// reads.
const windowSlack = 8

// windowPart returns part w of n of a plan in window mode.
func (p *fusePlan) windowPart(w, n int) fuseSplit {
	type span struct{ lo, hi int } // producer rows; hi 0: none
	// walk visits part w's consumer blocks and the producer rows each
	// reads.
	walk := func(visit func(fc *fuseCons, b, e int, need []span)) {
		need := make([]span, len(p.prods))
		for ci := range p.cons {
			fc := &p.cons[ci]
			rows := len(fc.f.rows)
			for b, hi := rows*w/n, rows*(w+1)/n; b < hi; {
				e := min(b+sumBlock, hi)
				for _, d := range fc.deps {
					if d.ilo > b && d.ilo < e {
						e = d.ilo
					}
					if d.ihi > b && d.ihi < e {
						e = d.ihi
					}
				}
				clear(need)
				for _, d := range fc.deps {
					if d.ilo >= e || d.ihi <= b {
						continue
					}
					r0, r1 := d.a*b+d.c, d.a*(e-1)+d.c+1
					if nd := &need[d.prod]; nd.hi == 0 {
						*nd = span{r0, r1}
					} else {
						nd.lo, nd.hi = min(nd.lo, r0), max(nd.hi, r1)
					}
				}
				visit(fc, b, e, need)
				b = e
			}
		}
	}
	// A window's capacity: the widest span a block reads and a few rows,
	// so that it slides at almost every block (a row or two) and stays
	// small: a window that cycles through more rows is evicted from L1
	// by the state streaming past between its uses. A producer no
	// consumer of this plan reads has a block of rows.
	capRows := make([]int, len(p.prods))
	walk(func(_ *fuseCons, _, _ int, need []span) {
		for k, nd := range need {
			capRows[k] = max(capRows[k], nd.hi-nd.lo)
		}
	})
	win, discard := make([][]float64, len(p.prods)), make([][]float64, len(p.prods))
	for k := range p.prods {
		if capRows[k] == 0 {
			capRows[k] = sumBlock
		}
		capRows[k] += windowSlack
		win[k] = make([]float64, capRows[k]*p.windowRow[k])
		discard[k] = make([]float64, capRows[k]*p.discardRow[k])
	}

	var part fuseSplit
	held := make([]span, len(p.prods))
	done := make([][]bool, len(p.prods)) // rows this part computes
	for k, f := range p.prods {
		done[k] = make([]bool, len(f.rows))
	}
	produce := func(k, lo, hi int) {
		h, ws := &held[k], p.windowRow[k]
		if lo >= h.lo && hi <= h.hi {
			return
		}
		if lo < h.lo || lo > h.hi {
			*h = span{lo, lo}
		}
		if hi-h.lo > capRows[k] {
			if h.hi > lo {
				part.first = append(part.first, fuseCall{win: win[k], src: (lo - h.lo) * ws, dst: 0, cnt: (h.hi - lo) * ws})
			}
			h.lo = lo
		}
		f := p.prods[k]
		for r := h.hi; r < hi; r += sumBlock {
			e := min(r+sumBlock, hi)
			outs := make([]node.Strided, len(f.outs))
			for fi, o := range p.windowOff[k] {
				if o >= 0 {
					outs[fi] = node.Strided{Buf: win[k], Off: o - h.lo*ws, Stride: ws}
				} else {
					ds := p.discardRow[k]
					outs[fi] = node.Strided{Buf: discard[k], Off: p.discardOff[k][fi] - h.lo*ds, Stride: ds}
				}
			}
			part.first = append(part.first, fuseCall{f: f, out: true, lo: r, hi: e, outs: outs})
			for q := r; q < e; q++ {
				done[k][q] = true
			}
		}
		h.hi = hi
	}
	walk(func(fc *fuseCons, b, e int, need []span) {
		for k, nd := range need {
			if nd.hi > 0 {
				produce(k, nd.lo, nd.hi)
			}
		}
		nterms := 0
		for _, fi := range fc.f.in {
			nterms += len(fi.terms)
		}
		terms := make([]node.Strided, nterms)
		for _, d := range fc.deps {
			if d.ilo <= b && d.ihi >= e {
				ws := p.windowRow[d.prod]
				terms[d.term] = node.Strided{Buf: win[d.prod], Off: (d.c-held[d.prod].lo)*ws + p.windowOff[d.prod][d.field], Stride: d.a * ws}
			}
		}
		part.first = append(part.first, fuseCall{f: fc.f, lo: b, hi: e, terms: terms})
	})
	for k, f := range p.prods {
		hi := len(f.rows) * (w + 1) / n
		for r := len(f.rows) * w / n; r < hi; {
			if done[k][r] {
				r++
				continue
			}
			e := r + 1
			for e < hi && e-r < min(sumBlock, capRows[k]) && !done[k][e] {
				e++
			}
			produce(k, r, e)
			r = e
		}
	}
	return part
}
