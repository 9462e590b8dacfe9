package graph

// Fused steps: the output phase and the update (or derivatives) phase of
// a step interleaved block by block, a wavefront. Phase by phase, a large
// chain writes every connector's loads to memory and reads them back
// after the whole output phase, and reads every state twice; fused, a
// block of masses is updated right after the connectors it reads, while
// their loads and the states are still in L1.
//
// A fused step computes exactly the rows the phased step computes, each
// once, from the same values (outputs read the state at t, which no
// update overwrites: updates write Sim.xNext; derivatives write their
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
// boundary of a chain).

// fuseDep says that consumer rows [ilo, ihi) read producer rows a·i + c.
type fuseDep struct {
	prod     int // index in fusePlan.prods
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
	kind  int       // bUpdate or bDerivs: what the consumers compute
	prods []*family // the families of the outputs phase
	cons  []fuseCons
	rows  int // node evaluations, for the Grain decision
	// split caches, per number of parts, each part's runnable and
	// deferred consumer rows (see fuseSplit); split1 is split[1], for the
	// step on one goroutine without a map look-up. Filled before a Run's
	// steps (Sim.prepareFused), read-only while they run.
	split  map[int][]fuseSplit
	split1 []fuseSplit
	splitN []fuseSplit // split[len(splitN)]: the running pool's (prepare)
}

// prepare makes p ready to run split n ways (n > 1), before a Run's
// steps start.
func (p *fusePlan) prepare(n int) {
	if p != nil && len(p.splitN) != n {
		p.splitN = p.splitFor(n)
	}
}

// fuseSplit is one part's share of a fused step when split n ways: the
// kernel calls it makes, in order, in the first phase and after the
// barrier. A call is one block of at most sumBlock rows of one family,
// computing outputs (a producer) or the plan's kind (a consumer).
type fuseSplit struct {
	first, later []fuseCall
}

type fuseCall struct {
	f      *family
	out    bool
	lo, hi int
}

// compileFused builds the fused plans of a step and of a derivatives
// evaluation, or leaves them nil where fusion does not apply. It runs at
// the end of Build, after compactOutputs.
func (s *Sim) compileFused() {
	s.fuseStep, s.fuseDerivs = nil, nil
	if len(s.families) == 0 || len(s.looseStateful) > 0 {
		return
	}
	for _, l := range s.looseLevels {
		if len(l) > 0 {
			return
		}
	}
	var prods []*family
	for _, f := range s.families {
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
	s.fuseStep = s.fusePlanFor(bUpdate, prods)
	s.fuseDerivs = s.fusePlanFor(bDerivs, prods)
}

// fusePlanFor returns the plan whose consumers compute kind, or nil.
func (s *Sim) fusePlanFor(kind int, prods []*family) *fusePlan {
	p := &fusePlan{kind: kind, prods: prods, split: map[int][]fuseSplit{}}
	for _, f := range prods {
		p.rows += len(f.rows)
	}
	for _, f := range s.families {
		if f.xn == 0 || kind == bDerivs && f.der == nil {
			continue
		}
		fc := fuseCons{f: f}
		for ii := range f.in {
			for _, t := range f.in[ii].terms {
				if t.buf != bufY && t.buf != bufZ {
					continue
				}
				deps, ok := s.termDeps(p, t, len(f.rows))
				if !ok {
					return nil
				}
				fc.deps = append(fc.deps, deps...)
			}
		}
		p.cons = append(p.cons, fc)
		p.rows += len(f.rows)
	}
	if len(p.cons) == 0 {
		return nil
	}
	p.split1 = p.splitFor(1)
	return p
}

// termDeps maps the rows of a consumer's input term to the producer rows
// it reads, as segments of affine maps, or reports false when some row
// reads something that is not the start of a producer's output field
// row.
func (s *Sim) termDeps(p *fusePlan, t view, rows int) ([]fuseDep, bool) {
	var deps []fuseDep
	// find returns the producer and the row whose output field row
	// starts at position pos of t's buffer, trying hint first.
	find := func(pos, hint int) (int, int, bool) {
		for k := range p.prods {
			pk := (hint + k) % len(p.prods)
			f := p.prods[pk]
			for _, v := range f.outs {
				if v.buf != t.buf {
					continue
				}
				d := pos - v.off
				switch {
				case d < 0:
				case v.stride == 0 || len(f.rows) == 1:
					if d == 0 {
						return pk, 0, true
					}
				case d%v.stride == 0 && d/v.stride < len(f.rows):
					return pk, d / v.stride, true
				}
			}
		}
		return 0, 0, false
	}
	hint := 0
	for i := 0; i < rows; i++ {
		pk, r, ok := find(t.off+i*t.stride, hint)
		if !ok {
			return nil, false
		}
		hint = pk
		if n := len(deps); n > 0 {
			d := &deps[n-1]
			if d.prod == pk && d.ihi == i {
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
		deps = append(deps, fuseDep{prod: pk, ilo: i, ihi: i + 1, a: 0, c: r})
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
	for w := range n {
		calls := &sp[w]
		mark := make([]int, len(p.prods))
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
					for _, d := range fc.deps {
						if d.ilo < e && d.ihi > b {
							advance(d.prod, d.a*(min(e, d.ihi)-1)+d.c+1)
						}
					}
				})
				i = j
			}
		}
		for k, f := range p.prods {
			advance(k, len(f.rows)*(w+1)/n)
		}
	}
	p.split[n] = sp
	return sp
}

// fusedPart is part's work for a fused plan: worker w of n runs its
// share's kernel calls of the first phase (later false) or of the
// second.
func (s *Sim) fusedPart(p *fusePlan, j batchJob, wk *worker, w int, later bool) bool {
	calls := j.fsplit[w].first
	if later {
		calls = j.fsplit[w].later
	}
	jo, jc := j, j
	jo.kind, jc.kind = bOutputs, p.kind
	for i := range calls {
		c := &calls[i]
		jj := &jc
		if c.out {
			jj = &jo
		}
		if !s.block(wk, c.f, jj, c.lo, c.hi) {
			return false
		}
	}
	return true
}
