package masspoint

import (
	"fmt"
	"unsafe"

	"github.com/cosimgo/cosim/node"
)

// The batch kernel (node.Batcher): a family of mass points stepped in
// one call per row range. Each row runs the member's own model.step and
// model.derivatives, so the kernel and the per-node methods agree bit
// for bit.

// BatchKey is the same for every mass point: one kernel serves them all.
func (n *Node) BatchKey() string { return "" }

// NewBatch copies the members' parameters into one contiguous array and
// registers each row with its node, so that SetParams reaches the batch.
func (n *Node) NewBatch(members []node.Node) node.Batch {
	b := &batch{models: make([]model, len(members))}
	for i, mn := range members {
		m := mn.(*Node)
		b.models[i] = m.m
		m.mirrors = append(m.mirrors, &b.models[i])
	}
	return b
}

type batch struct {
	models []model
}

var (
	_ node.Batch          = (*batch)(nil)
	_ node.BatchDeriver   = (*batch)(nil)
	_ node.BatchPairAdder = (*batch)(nil)
)

// PairInputs: the force of a mass between two connectors arrives as the
// two loads, added here per row (stepPair, derivativesPair) in the order
// the per-node gather adds them. A non-finite load makes the new velocity
// (Update) or the acceleration (Derivatives) non-finite, which the graph
// checks: F/m + g with a finite positive mass and finite gravity is
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
	ms := b.models[a.Lo:a.Hi]
	x, f, d := a.X, a.In[0], a.Dst
	if a.In2 != nil && a.In2[0].Buf != nil {
		b.updatePair(a)
		return nil
	}
	xp := unsafe.Pointer(&x.Span(a.Lo, a.Hi, stateSize)[0])
	fp := unsafe.Pointer(&f.Span(a.Lo, a.Hi, 3)[0])
	dp := unsafe.Pointer(&d.Span(a.Lo, a.Hi, stateSize)[0])
	xs, fs, ds := uintptr(x.Stride)*8, uintptr(f.Stride)*8, uintptr(d.Stride)*8
	for k := range ms {
		u := uintptr(k)
		ms[k].step(dt, (*[stateSize]float64)(unsafe.Add(xp, u*xs)), (*[3]float64)(unsafe.Add(fp, u*fs)), (*[stateSize]float64)(unsafe.Add(dp, u*ds)))
	}
	return nil
}

func (b *batch) Derivatives(a *node.BatchArgs) error {
	if a.Lo >= a.Hi {
		return nil
	}
	ms := b.models[a.Lo:a.Hi]
	x, f, d := a.X, a.In[0], a.Dst
	if a.In2 != nil && a.In2[0].Buf != nil {
		g := a.In2[0]
		xp := unsafe.Pointer(&x.Span(a.Lo, a.Hi, stateSize)[0])
		fp := unsafe.Pointer(&f.Span(a.Lo, a.Hi, 3)[0])
		gp := unsafe.Pointer(&g.Span(a.Lo, a.Hi, 3)[0])
		dp := unsafe.Pointer(&d.Span(a.Lo, a.Hi, stateSize)[0])
		xs, fs, gs, ds := uintptr(x.Stride)*8, uintptr(f.Stride)*8, uintptr(g.Stride)*8, uintptr(d.Stride)*8
		for k := range ms {
			u := uintptr(k)
			ms[k].derivativesPair((*[stateSize]float64)(unsafe.Add(xp, u*xs)), (*[3]float64)(unsafe.Add(fp, u*fs)), (*[3]float64)(unsafe.Add(gp, u*gs)), (*[stateSize]float64)(unsafe.Add(dp, u*ds)))
		}
		return nil
	}
	xp := unsafe.Pointer(&x.Span(a.Lo, a.Hi, stateSize)[0])
	fp := unsafe.Pointer(&f.Span(a.Lo, a.Hi, 3)[0])
	dp := unsafe.Pointer(&d.Span(a.Lo, a.Hi, stateSize)[0])
	xs, fs, ds := uintptr(x.Stride)*8, uintptr(f.Stride)*8, uintptr(d.Stride)*8
	for k := range ms {
		u := uintptr(k)
		ms[k].derivatives((*[stateSize]float64)(unsafe.Add(xp, u*xs)), (*[3]float64)(unsafe.Add(fp, u*fs)), (*[stateSize]float64)(unsafe.Add(dp, u*ds)))
	}
	return nil
}

// updatePair is Update with the force given as two terms (PairInputs).
func (b *batch) updatePair(a *node.BatchArgs) {
	dt := a.Dt
	ms := b.models[a.Lo:a.Hi]
	x, f, g, d := a.X, a.In[0], a.In2[0], a.Dst
	xp := unsafe.Pointer(&x.Span(a.Lo, a.Hi, stateSize)[0])
	fp := unsafe.Pointer(&f.Span(a.Lo, a.Hi, 3)[0])
	gp := unsafe.Pointer(&g.Span(a.Lo, a.Hi, 3)[0])
	dp := unsafe.Pointer(&d.Span(a.Lo, a.Hi, stateSize)[0])
	xs, fs, gs, ds := uintptr(x.Stride)*8, uintptr(f.Stride)*8, uintptr(g.Stride)*8, uintptr(d.Stride)*8
	for k := range ms {
		u := uintptr(k)
		ms[k].stepPair(dt, (*[stateSize]float64)(unsafe.Add(xp, u*xs)), (*[3]float64)(unsafe.Add(fp, u*fs)), (*[3]float64)(unsafe.Add(gp, u*gs)), (*[stateSize]float64)(unsafe.Add(dp, u*ds)))
	}
}
