package graph

import (
	"unsafe"

	"github.com/cosimgo/cosim/node"
)

// One kernel call of the batched engine: block gathers a block of a
// family's rows' inputs as kernel views (summing additive inputs into the
// worker's scratch), calls the kernel (family.kernel) and checks what it
// wrote. The checks are one multiply-add per value (checkRows), skipped
// for the destination of a kernel that checks it itself
// (node.BatchDstChecker). A fused
// plan's calls do the same from arguments compiled once (callArgs, run).

// block runs the kernel of f for phase ph on rows [lo, hi) (at most
// sumBlock rows) of job j: sums the additive inputs into the worker's
// scratch, calls the kernel and checks what it wrote. It reports false on
// any failure. Fused plans run their calls compiled instead (callArgs,
// run), with the same result.
func (e *engine) block(wk *worker, f *family, ph phase, j *job, lo, hi int) bool {
	a := &wk.args
	a.T, a.Dt, a.Lo, a.Hi = j.t, j.dt, lo, hi
	a.Present = f.present
	a.X = node.Strided{Buf: e.buf.state, Off: f.x0, Stride: f.xs}
	outArgs, fins := e.views(f)
	in := wk.in[:len(fins)]
	a.In2 = nil
	if f.pairs {
		a.In2 = wk.in2[:len(fins)]
	}
	// The outputs of a family at output level 0 read no output (a node
	// whose outputs read another's is at a higher level), and the outputs
	// its inputs read are being written by the other calls of this phase,
	// on other workers: those inputs are left unread (unsummed and
	// unchecked) here, and read where the family's update reads them.
	skipY := ph == phaseOutputs && f.level == 0
	for ii := range fins {
		fi := &fins[ii]
		if a.In2 != nil {
			a.In2[ii] = node.Strided{}
		}
		switch {
		case fi.pair:
			in[ii], a.In2[ii] = e.termView(&fi.terms[0]), e.termView(&fi.terms[1])
			// The kernel's contract (node.BatchPairAdder) makes a
			// non-finite term reach Dst, which Update and Derivatives
			// check; outputs are checked only where read, so here the
			// terms are checked.
			if ph == phaseOutputs && fi.readsOutput && !skipY && (!finiteRows(in[ii], fi.n, lo, hi) || !finiteRows(a.In2[ii], fi.n, lo, hi)) {
				return false
			}
		case fi.sum >= 0:
			buf := wk.sums[fi.sum : fi.sum+sumBlock*fi.n]
			if !fi.readsOutput || !skipY {
				ts := wk.terms[:len(fi.terms)]
				for ti := range fi.terms {
					ts[ti] = e.termView(&fi.terms[ti])
				}
				if !sumInto(buf, ts, fi.n, lo, hi) && fi.readsOutput {
					return false
				}
			}
			in[ii] = node.Strided{Buf: buf, Off: -lo * fi.n, Stride: fi.n}
		default:
			in[ii] = e.termView(&fi.terms[0])
			if fi.readsOutput && !skipY && !finiteRows(in[ii], fi.n, lo, hi) {
				return false
			}
		}
	}
	a.In = in
	switch ph {
	case phaseOutputs:
		a.Out, a.Need = outArgs, f.need
		return f.kernel(ph, a) == nil && checkRuns(e.buf.outputs, f.y0, f.ys, f.needed, lo, hi)
	case phaseUpdate:
		a.Dst, a.Need = node.Strided{Buf: e.buf.nextState, Off: f.x0, Stride: f.xs}, nil
		return f.kernel(ph, a) == nil && (f.checksDst || checkRows(e.buf.nextState, f.x0, f.xs, f.xn, lo, hi))
	case phaseDerivs:
		a.Dst, a.Need = node.Strided{Buf: j.dst, Off: f.x0, Stride: f.xs}, nil
		return f.kernel(ph, a) == nil && (f.checksDst || checkRows(j.dst, f.x0, f.xs, f.xn, lo, hi))
	}
	return false
}

// callArgs is one kernel call of a fused plan compiled once, when the
// plan is split (fusePlan.splitFor): its node.BatchArgs with every view in
// place — the family's packed columns or the call's windows, the
// constants, the worker's sum scratch — except the views of the state
// being read and of the destination, which the Sim swaps between calls
// (state with nextState after a step, state with the integrator's y in
// System.Func) and run patches. It computes what block computes for the
// same call, in the same order, so the same bits; it saves block's
// per-call assembly of a dozen views and its per-input branching, which
// is most of the cost of a call on a small graph.
//
// A callArgs belongs to one part of one split; the part's worker is the
// only goroutine that runs it, so patching it in place is race-free.
type callArgs struct {
	f    *family
	ph   phase
	args node.BatchArgs
	// stIn and stIn2 are the entries of args.In and args.In2 that read
	// Sim.state.
	stIn, stIn2 []int32
	sums        []callSum
	checks      []callCheck
	// plan is the kernel compiled for this call (node.BatchPlanner), nil
	// when the batch compiles none: run then calls the method.
	plan node.BatchKernel
	// st and dst are the buffers the views are bound to (bind): the state
	// being read and the destination (nil for an output call).
	st, dst []float64
}

// callSum is a summed input of a compiled call: its terms' views (those
// of Sim.state patched per call, st) summed into dst, the worker's
// scratch that args.In reads.
type callSum struct {
	dst         []float64
	terms       []node.Strided
	st          []int32
	n           int
	readsOutput bool
}

// callCheck is an input view checked for finiteness before the kernel
// runs (an input that reads outputs; see block): entry in of args.In, n
// components.
type callCheck struct {
	in int32
	n  int
}

// compileCall compiles fused call c (of a plan whose consumers compute
// ph) for the part whose scratch is wk.
func (e *engine) compileCall(c *fuseCall, ph phase, wk *worker) *callArgs {
	f := c.f
	if c.out {
		ph = phaseOutputs
	}
	ca := &callArgs{f: f, ph: ph}
	a := &ca.args
	a.Lo, a.Hi = c.lo, c.hi
	a.Present = f.present
	a.X = node.Strided{Buf: e.buf.state, Off: f.x0, Stride: f.xs}
	outArgs, fins := f.outArgs, f.in
	if c.outs != nil {
		outArgs = c.outs
	}
	a.In = make([]node.Strided, len(fins))
	if f.pairs {
		a.In2 = make([]node.Strided, len(fins))
	}
	view := func(t *view, k int) (node.Strided, bool) {
		if c.terms != nil && c.terms[k].Buf != nil {
			return c.terms[k], false
		}
		return node.Strided{Buf: e.buffer(t), Off: t.off, Stride: t.stride}, t.buf == bufState
	}
	// A fused plan's output calls are those of its producers, all at
	// output level 0 (compileFused): as in block, the inputs they take
	// from outputs are left unread (a pair, whose kernel checks it where
	// it is read, by its contract, is never checked here).
	skipY := ph == phaseOutputs
	k := 0 // the flat index of fins[ii].terms[0]
	for ii := range fins {
		fi := &fins[ii]
		switch {
		case fi.pair:
			v, st := view(&fi.terms[0], k)
			v2, st2 := view(&fi.terms[1], k+1)
			a.In[ii], a.In2[ii] = v, v2
			if st {
				ca.stIn = append(ca.stIn, int32(ii))
			}
			if st2 {
				ca.stIn2 = append(ca.stIn2, int32(ii))
			}
		case fi.sum >= 0:
			cs := callSum{dst: wk.sums[fi.sum : fi.sum+sumBlock*fi.n], terms: make([]node.Strided, len(fi.terms)), n: fi.n, readsOutput: fi.readsOutput}
			for ti := range fi.terms {
				v, st := view(&fi.terms[ti], k+ti)
				cs.terms[ti] = v
				if st {
					cs.st = append(cs.st, int32(ti))
				}
			}
			if !fi.readsOutput || !skipY {
				ca.sums = append(ca.sums, cs)
			}
			a.In[ii] = node.Strided{Buf: cs.dst, Off: -c.lo * fi.n, Stride: fi.n}
		default:
			v, st := view(&fi.terms[0], k)
			a.In[ii] = v
			if st {
				ca.stIn = append(ca.stIn, int32(ii))
			}
			if fi.readsOutput && !skipY {
				ca.checks = append(ca.checks, callCheck{in: int32(ii), n: fi.n})
			}
		}
		k += len(fi.terms)
	}
	switch ph {
	case phaseOutputs:
		a.Out, a.Need = outArgs, f.need
	default:
		a.Dst = node.Strided{Off: f.x0, Stride: f.xs}
	}
	if p, ok := f.batch.(node.BatchPlanner); ok {
		// The layout is final here; run changes only T, Dt and the
		// buffers of the views that read the state (all to one buffer)
		// and of Dst, as node.BatchPlanner allows.
		ca.plan = p.Plan(ph.batchPhase(), a)
	}
	return ca
}

// batchPhase is ph as node.BatchPlanner names it.
func (ph phase) batchPhase() node.BatchPhase {
	switch ph {
	case phaseOutputs:
		return node.PhaseOutputs
	case phaseUpdate:
		return node.PhaseUpdate
	case phaseDerivs:
		return node.PhaseDerivatives
	}
	panic("graph: no batch kernel for this phase")
}

// kernel calls the compiled call's kernel: its plan, or the family's
// method for its phase.
func (c *callArgs) kernel() error {
	if c.plan != nil {
		return c.plan(&c.args)
	}
	return c.f.kernel(c.ph, &c.args)
}

// run runs compiled call c of job j: block's work with the state views
// patched instead of assembled. It reports false on any failure.
func (e *engine) run(c *callArgs, j *job) bool {
	dst := e.buf.nextState
	if c.ph == phaseDerivs {
		dst = j.dst
	}
	return c.exec(e, e.buf.state, dst, j.t, j.dt)
}

// bind points c's views of the state being read at st and its
// destination (an Update's or a Derivatives') at dst (nil for an output
// call): a slice header per view that reads the state. exec calls it
// only when they point elsewhere.
func (c *callArgs) bind(st, dst []float64) {
	c.st, c.dst = st, dst
	a := &c.args
	a.X.Buf = st
	for _, k := range c.stIn {
		a.In[k].Buf = st
	}
	for _, k := range c.stIn2 {
		a.In2[k].Buf = st
	}
	for i := range c.sums {
		s := &c.sums[i]
		for _, k := range s.st {
			s.terms[k].Buf = st
		}
	}
	if dst != nil {
		a.Dst.Buf = dst
	}
}

// sameBuf reports whether a and b are the same buffer (the same first
// element and length).
func sameBuf(a, b []float64) bool {
	return len(a) == len(b) && unsafe.SliceData(a) == unsafe.SliceData(b)
}

// exec runs compiled call c on the state st, writing dst (an Update's or
// a Derivatives' destination; ignored by an output call), at time t with
// step dt: its views bound to the buffers (bind, only when they point
// elsewhere: a small graph's step alternates between two compilations of
// its calls, each bound to one pairing, see solo), the summed inputs, the
// checks of the inputs that read outputs, the kernel and the check of
// what it wrote. It reports false on any failure.
func (c *callArgs) exec(e *engine, st, dst []float64, t, dt float64) bool {
	a, f := &c.args, c.f
	if c.ph == phaseOutputs {
		dst = nil
	}
	if !sameBuf(c.st, st) || !sameBuf(c.dst, dst) {
		c.bind(st, dst)
	}
	a.T, a.Dt = t, dt
	for i := range c.sums {
		s := &c.sums[i]
		if !sumInto(s.dst, s.terms, s.n, a.Lo, a.Hi) && s.readsOutput {
			return false
		}
	}
	for _, ck := range c.checks {
		if !finiteRows(a.In[ck.in], ck.n, a.Lo, a.Hi) {
			return false
		}
	}
	if c.kernel() != nil {
		return false
	}
	if c.ph == phaseOutputs {
		return len(f.needed) == 0 || checkRuns(e.buf.outputs, f.y0, f.ys, f.needed, a.Lo, a.Hi)
	}
	return f.checksDst || checkRows(a.Dst.Buf, f.x0, f.xs, f.xn, a.Lo, a.Hi)
}

// kernel calls f's kernel for phase ph on the rows and views of a: the
// one place the engine calls a family's batch.
func (f *family) kernel(ph phase, a *node.BatchArgs) error {
	switch ph {
	case phaseOutputs:
		return f.out.Outputs(a)
	case phaseUpdate:
		return f.upd.Update(a)
	case phaseDerivs:
		return f.der.Derivatives(a)
	}
	panic("graph: no batch kernel for this phase")
}

// computes reports whether f takes part in phase ph, at output level
// level for outputs.
func (f *family) computes(ph phase, level int) bool {
	switch ph {
	case phaseOutputs:
		return f.level == level
	case phaseUpdate:
		return f.xn > 0
	case phaseDerivs:
		return f.xn > 0 && f.der != nil
	}
	return false
}

// termView is the kernel view of input term t in its buffer.
func (e *engine) termView(t *view) node.Strided {
	return node.Strided{Buf: e.buffer(t), Off: t.off, Stride: t.stride}
}

// buffer is the buffer view v reads, as it is now (the Sim swaps its
// state buffers between calls).
func (e *engine) buffer(v *view) []float64 {
	switch v.buf {
	case bufState:
		return e.buf.state
	case bufOutputs:
		return e.buf.outputs
	case bufPacked:
		return e.packed
	}
	return v.c
}

// views returns the output views and inputs a kernel call uses: those of
// the packed columns outside coupled Runs, those of Sim.outputs within
// one (engine.unpacked). Coupled steps mix batched and per-node
// evaluations of the same outputs (iterated groups, stage replays), and
// the per-node path reads Sim.outputs only.
func (e *engine) views(f *family) ([]node.Strided, []famInput) {
	if e.unpacked && f.inFull != nil {
		return f.outArgsFull, f.inFull
	}
	return f.outArgs, f.in
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
