package masspoint

import (
	"fmt"
	"unsafe"

	"github.com/cosimgo/cosim/node"
)

// The batch kernel (node.Batcher): a family of mass points stepped in
// one call per row range. Each row runs accel and advance, or
// law.derivatives — the functions the node's own Update and Derivatives
// run, inlined — so the kernel and the per-node methods agree bit for
// bit.

// BatchKey is the same for every mass point: one kernel serves them all.
func (n *Node) BatchKey() string { return "" }

// NewBatch keeps the members' laws of motion as rows (node.Rows) that
// SetParams keeps current. The rows are uniform while every member has
// the same law, and the kernels then read that one row for all (a chain
// of equal masses moves no parameter bytes per row).
func (n *Node) NewBatch(members []node.Node) node.Batch {
	return &batch{laws: node.NewUniformRows(members, lawOf, sameLaw)}
}

func lawOf(m node.Node) *node.Published[law] { return &m.(*Node).law }

func sameLaw(a, b *law) bool { return *a == *b }

type batch struct {
	laws *node.Rows[law]
}

var (
	_ node.BatchUpdater    = (*batch)(nil)
	_ node.BatchDeriver    = (*batch)(nil)
	_ node.BatchPairAdder  = (*batch)(nil)
	_ node.BatchDstChecker = (*batch)(nil)
)

// ChecksDst: Update and Derivatives test every value they write (zeroed,
// below) and fail the call when one is not finite, so the graph does not
// read the new state back to check it.
func (b *batch) ChecksDst() bool { return true }

// zeroed is 0 when every value of s is finite and NaN otherwise: each
// value times zero, added — the exact test of node.BatchDstChecker.
func zeroed(s *state) float64 {
	return (s.pos.x*0 + s.pos.y*0 + s.pos.z*0) + (s.vel.x*0 + s.vel.y*0 + s.vel.z*0)
}

// summed is the sum of s's values, the kernels' cheap test: a sum of
// finite values is finite unless it overflows, and a NaN or ±Inf value
// makes it NaN or ±Inf. A kernel adds it up over its rows; when the total
// is not finite, checkDst tells overflow from a non-finite value with
// zeroed. Six additions per row where zeroed costs six multiplications
// and six additions: about 0.5 ns per mass, a tenth of a small graph's
// mass call.
func summed(s *state) float64 {
	return (s.pos.x + s.pos.y + s.pos.z) + (s.vel.x + s.vel.y + s.vel.z)
}

// checkDst is the end of a kernel's test of what it wrote: acc is the
// total of summed over the n rows of the destination at dp (row stride ds
// bytes). A finite total passes; otherwise each row is tested exactly
// (zeroed), so finite values whose sum overflows do not fail the call.
func checkDst(acc float64, dp unsafe.Pointer, ds uintptr, n int) error {
	if finite(acc) {
		return nil
	}
	var z float64
	for k := range n {
		z += zeroed((*state)(unsafe.Add(dp, uintptr(k)*ds)))
	}
	if z != 0 {
		return errDst
	}
	return nil
}

// errDst is the error of a kernel call that wrote a non-finite value; the
// graph replays the step node by node to name the row and component.
var errDst = fmt.Errorf("%s: a new state or derivative is not finite: %w", TypeName, node.ErrNonFinite)

// PairInputs: the force of a mass between two connectors arrives as the
// two loads, added here per row (updatePair, Derivatives) in the order
// the per-node gather adds them. A non-finite load makes the new velocity
// (Update) or the acceleration (Derivatives) non-finite, which the
// kernel checks (ChecksDst): F/m + g with a finite positive mass and finite gravity is
// non-finite exactly when F is.
func (b *batch) PairInputs() []bool { return pairForce }

var pairForce = []bool{true}

// The kernels check each view's rows once (node.Strided.Span) and then
// address row k of the call at base + 8·k·stride with unsafe.Add: per-row
// slicing and bounds checks cost more than the arithmetic of a mass.

func (b *batch) Update(a *node.BatchArgs) error {
	if !finite(a.Dt) {
		return fmt.Errorf("%s: time step dt = %v: %w", TypeName, a.Dt, node.ErrNonFinite)
	}
	if a.Lo >= a.Hi {
		return nil
	}
	dt := a.Dt
	mp, msz := b.laws.Walk(a.Lo, a.Hi)
	x, f, d := a.X, a.In[0], a.Dst
	if a.In2 != nil && a.In2[0].Buf != nil {
		return b.updatePair(a)
	}
	xp := unsafe.Pointer(&x.Span(a.Lo, a.Hi, stateSize)[0])
	fp := unsafe.Pointer(&f.Span(a.Lo, a.Hi, 3)[0])
	dp := unsafe.Pointer(&d.Span(a.Lo, a.Hi, stateSize)[0])
	xs, fs, ds := uintptr(x.Stride)*8, uintptr(f.Stride)*8, uintptr(d.Stride)*8
	var acc float64
	for k := range a.Hi - a.Lo {
		u := uintptr(k)
		f := (*vec)(unsafe.Add(fp, u*fs))
		dst := (*state)(unsafe.Add(dp, u*ds))
		advance(dt, (*state)(unsafe.Add(xp, u*xs)), (*law)(unsafe.Add(mp, u*msz)).accel(*f), dst)
		acc += summed(dst)
	}
	return checkDst(acc, dp, ds, a.Hi-a.Lo)
}

func (b *batch) Derivatives(a *node.BatchArgs) error {
	if a.Lo >= a.Hi {
		return nil
	}
	mp, msz := b.laws.Walk(a.Lo, a.Hi)
	x, f, d := a.X, a.In[0], a.Dst
	if a.In2 != nil && a.In2[0].Buf != nil {
		g := a.In2[0]
		xp := unsafe.Pointer(&x.Span(a.Lo, a.Hi, stateSize)[0])
		fp := unsafe.Pointer(&f.Span(a.Lo, a.Hi, 3)[0])
		gp := unsafe.Pointer(&g.Span(a.Lo, a.Hi, 3)[0])
		dp := unsafe.Pointer(&d.Span(a.Lo, a.Hi, stateSize)[0])
		return derivPairRows(a.Hi-a.Lo, mp, msz, xp, uintptr(x.Stride)*8, fp, uintptr(f.Stride)*8, gp, uintptr(g.Stride)*8, dp, uintptr(d.Stride)*8)
	}
	xp := unsafe.Pointer(&x.Span(a.Lo, a.Hi, stateSize)[0])
	fp := unsafe.Pointer(&f.Span(a.Lo, a.Hi, 3)[0])
	dp := unsafe.Pointer(&d.Span(a.Lo, a.Hi, stateSize)[0])
	xs, fs, ds := uintptr(x.Stride)*8, uintptr(f.Stride)*8, uintptr(d.Stride)*8
	var acc float64
	for k := range a.Hi - a.Lo {
		u := uintptr(k)
		f := (*vec)(unsafe.Add(fp, u*fs))
		dst := (*state)(unsafe.Add(dp, u*ds))
		(*law)(unsafe.Add(mp, u*msz)).derivatives((*state)(unsafe.Add(xp, u*xs)), *f, dst)
		acc += summed(dst)
	}
	return checkDst(acc, dp, ds, a.Hi-a.Lo)
}

// updatePair is Update with the force given as two terms (PairInputs).
func (b *batch) updatePair(a *node.BatchArgs) error {
	mp, msz := b.laws.Walk(a.Lo, a.Hi)
	x, f, g, d := a.X, a.In[0], a.In2[0], a.Dst
	xp := unsafe.Pointer(&x.Span(a.Lo, a.Hi, stateSize)[0])
	fp := unsafe.Pointer(&f.Span(a.Lo, a.Hi, 3)[0])
	gp := unsafe.Pointer(&g.Span(a.Lo, a.Hi, 3)[0])
	dp := unsafe.Pointer(&d.Span(a.Lo, a.Hi, stateSize)[0])
	return updatePairRows(a.Dt, a.Hi-a.Lo, mp, msz, xp, uintptr(x.Stride)*8, fp, uintptr(f.Stride)*8, gp, uintptr(g.Stride)*8, dp, uintptr(d.Stride)*8)
}

// updatePairRows is updatePair's loop over n rows: the laws from mp, the
// state from xp, the force's two terms from fp and gp, the new state to
// dp (row strides msz, xs, fs, gs and ds bytes). The compiled call (Plan)
// runs it too, so both compute the same bits.
func updatePairRows(dt float64, n int, mp unsafe.Pointer, msz uintptr, xp unsafe.Pointer, xs uintptr, fp unsafe.Pointer, fs uintptr, gp unsafe.Pointer, gs uintptr, dp unsafe.Pointer, ds uintptr) error {
	var acc float64
	for k := range n {
		// The summed force p + q, added as the per-node gather adds it.
		u := uintptr(k)
		p, q := (*vec)(unsafe.Add(fp, u*fs)), (*vec)(unsafe.Add(gp, u*gs))
		dst := (*state)(unsafe.Add(dp, u*ds))
		advance(dt, (*state)(unsafe.Add(xp, u*xs)), (*law)(unsafe.Add(mp, u*msz)).accel(vec{p.x + q.x, p.y + q.y, p.z + q.z}), dst)
		acc += summed(dst)
	}
	return checkDst(acc, dp, ds, n)
}

// derivPairRows is Derivatives' loop over n rows with the force given
// as two terms, laid out as for updatePairRows.
func derivPairRows(n int, mp unsafe.Pointer, msz uintptr, xp unsafe.Pointer, xs uintptr, fp unsafe.Pointer, fs uintptr, gp unsafe.Pointer, gs uintptr, dp unsafe.Pointer, ds uintptr) error {
	var acc float64
	for k := range n {
		// The summed force p + q, added as the per-node gather adds it
		// (the first term, plus the second).
		u := uintptr(k)
		p, q := (*vec)(unsafe.Add(fp, u*fs)), (*vec)(unsafe.Add(gp, u*gs))
		dst := (*state)(unsafe.Add(dp, u*ds))
		(*law)(unsafe.Add(mp, u*msz)).derivatives((*state)(unsafe.Add(xp, u*xs)), vec{p.x + q.x, p.y + q.y, p.z + q.z}, dst)
		acc += summed(dst)
	}
	return checkDst(acc, dp, ds, n)
}

var _ node.BatchPlanner = (*batch)(nil)

// Plan compiles Update and Derivatives for a call site whose force
// arrives as two terms (PairInputs: a mass between two connectors, the
// calls of a chain's step and evaluation): the test for the pair and the
// rows' extents are taken here once, and a call checks each buffer's
// length and runs the method's own loop (updatePairRows, derivPairRows),
// so the bits are the method's. Other call sites get nil and run the
// methods.
func (b *batch) Plan(ph node.BatchPhase, a *node.BatchArgs) node.BatchKernel {
	if ph == node.PhaseOutputs || a.Lo >= a.Hi || a.In2 == nil || a.In2[0].Buf == nil {
		return nil
	}
	lo, hi := a.Lo, a.Hi
	x, f, g, d := a.X, a.In[0], a.In2[0], a.Dst
	x0, x1 := x.Extent(lo, hi, stateSize)
	f0, f1 := f.Extent(lo, hi, 3)
	g0, g1 := g.Extent(lo, hi, 3)
	d0, d1 := d.Extent(lo, hi, stateSize)
	xs, fs, gs, ds := uintptr(x.Stride)*8, uintptr(f.Stride)*8, uintptr(g.Stride)*8, uintptr(d.Stride)*8
	if ph == node.PhaseDerivatives {
		return func(a *node.BatchArgs) error {
			mp, msz := b.laws.Walk(lo, hi)
			xp := unsafe.Pointer(&a.X.Buf[x0:x1][0])
			fp := unsafe.Pointer(&a.In[0].Buf[f0:f1][0])
			gp := unsafe.Pointer(&a.In2[0].Buf[g0:g1][0])
			dp := unsafe.Pointer(&a.Dst.Buf[d0:d1][0])
			return derivPairRows(hi-lo, mp, msz, xp, xs, fp, fs, gp, gs, dp, ds)
		}
	}
	return func(a *node.BatchArgs) error {
		if !finite(a.Dt) {
			return fmt.Errorf("%s: time step dt = %v: %w", TypeName, a.Dt, node.ErrNonFinite)
		}
		mp, msz := b.laws.Walk(lo, hi)
		xp := unsafe.Pointer(&a.X.Buf[x0:x1][0])
		fp := unsafe.Pointer(&a.In[0].Buf[f0:f1][0])
		gp := unsafe.Pointer(&a.In2[0].Buf[g0:g1][0])
		dp := unsafe.Pointer(&a.Dst.Buf[d0:d1][0])
		return updatePairRows(a.Dt, hi-lo, mp, msz, xp, xs, fp, fs, gp, gs, dp, ds)
	}
}
