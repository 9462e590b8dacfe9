package masspoint

import (
	"fmt"
	"unsafe"

	"github.com/cosimgo/cosim/node"
)

// The batch kernel (node.Batcher): a family of mass points stepped in
// one call per row range. Each row runs the member's own law.step and
// law.derivatives, so the kernel and the per-node methods agree bit
// for bit.

// BatchKey is the same for every mass point: one kernel serves them all.
func (n *Node) BatchKey() string { return "" }

// NewBatch copies the members' parameters into one contiguous array and
// registers each row with its node, so that SetParams reaches the batch.
func (n *Node) NewBatch(members []node.Node) node.Batch {
	b := &batch{models: make([]law, len(members)), uniform: true}
	for i, mn := range members {
		m := mn.(*Node)
		b.models[i] = m.m.law
		b.uniform = b.uniform && m.m.law == b.models[0]
		m.mirrors = append(m.mirrors, mirror{b, i})
	}
	return b
}

type batch struct {
	// models are the members' laws of motion (not their initial
	// conditions, which only Init reads).
	models []law
	// uniform: every row has the parameters of row 0, so the kernels
	// read that one row (a chain of equal masses moves no parameter
	// bytes per row). A SetParams that makes a row differ clears it.
	uniform bool
}

// mirror is a node's row in a batch.
type mirror struct {
	b *batch
	i int
}

func (r mirror) set(m model) {
	if m.law != r.b.models[r.i] {
		r.b.models[r.i] = m.law
		r.b.uniform = false
	}
}

// rows returns the address of row lo's parameters and the distance in
// bytes from one row's to the next: 0 when the batch is uniform. It
// checks rows [lo, hi) once.
func (b *batch) rows(lo, hi int) (unsafe.Pointer, uintptr) {
	ms := b.models[lo:hi]
	if b.uniform {
		return unsafe.Pointer(&b.models[0]), 0
	}
	return unsafe.Pointer(&ms[0]), unsafe.Sizeof(law{})
}

var (
	_ node.Batch          = (*batch)(nil)
	_ node.BatchDeriver   = (*batch)(nil)
	_ node.BatchPairAdder = (*batch)(nil)
)

// PairInputs: the force of a mass between two connectors arrives as the
// two loads, added here per row (updatePair, Derivatives) in the order
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
	mp, msz := b.rows(a.Lo, a.Hi)
	x, f, d := a.X, a.In[0], a.Dst
	if a.In2 != nil && a.In2[0].Buf != nil {
		b.updatePair(a)
		return nil
	}
	xp := unsafe.Pointer(&x.Span(a.Lo, a.Hi, stateSize)[0])
	fp := unsafe.Pointer(&f.Span(a.Lo, a.Hi, 3)[0])
	dp := unsafe.Pointer(&d.Span(a.Lo, a.Hi, stateSize)[0])
	xs, fs, ds := uintptr(x.Stride)*8, uintptr(f.Stride)*8, uintptr(d.Stride)*8
	for k := range a.Hi - a.Lo {
		u := uintptr(k)
		(*law)(unsafe.Add(mp, u*msz)).step(dt, (*[stateSize]float64)(unsafe.Add(xp, u*xs)), (*[3]float64)(unsafe.Add(fp, u*fs)), (*[stateSize]float64)(unsafe.Add(dp, u*ds)))
	}
	return nil
}

func (b *batch) Derivatives(a *node.BatchArgs) error {
	if a.Lo >= a.Hi {
		return nil
	}
	mp, msz := b.rows(a.Lo, a.Hi)
	x, f, d := a.X, a.In[0], a.Dst
	if a.In2 != nil && a.In2[0].Buf != nil {
		g := a.In2[0]
		xp := unsafe.Pointer(&x.Span(a.Lo, a.Hi, stateSize)[0])
		fp := unsafe.Pointer(&f.Span(a.Lo, a.Hi, 3)[0])
		gp := unsafe.Pointer(&g.Span(a.Lo, a.Hi, 3)[0])
		dp := unsafe.Pointer(&d.Span(a.Lo, a.Hi, stateSize)[0])
		xs, fs, gs, ds := uintptr(x.Stride)*8, uintptr(f.Stride)*8, uintptr(g.Stride)*8, uintptr(d.Stride)*8
		for k := range a.Hi - a.Lo {
			// law.derivatives on the summed force p + q, written out
			// as in updatePair.
			u := uintptr(k)
			m := (*law)(unsafe.Add(mp, u*msz))
			x := (*[stateSize]float64)(unsafe.Add(xp, u*xs))
			p, q := (*[3]float64)(unsafe.Add(fp, u*fs)), (*[3]float64)(unsafe.Add(gp, u*gs))
			dst := (*[stateSize]float64)(unsafe.Add(dp, u*ds))
			dst[offPosition], dst[offPosition+1], dst[offPosition+2] = x[offVelocity], x[offVelocity+1], x[offVelocity+2]
			dst[offVelocity] = (p[0]+q[0])/m.mass + m.gravity[0]
			dst[offVelocity+1] = (p[1]+q[1])/m.mass + m.gravity[1]
			dst[offVelocity+2] = (p[2]+q[2])/m.mass + m.gravity[2]
		}
		return nil
	}
	xp := unsafe.Pointer(&x.Span(a.Lo, a.Hi, stateSize)[0])
	fp := unsafe.Pointer(&f.Span(a.Lo, a.Hi, 3)[0])
	dp := unsafe.Pointer(&d.Span(a.Lo, a.Hi, stateSize)[0])
	xs, fs, ds := uintptr(x.Stride)*8, uintptr(f.Stride)*8, uintptr(d.Stride)*8
	for k := range a.Hi - a.Lo {
		u := uintptr(k)
		(*law)(unsafe.Add(mp, u*msz)).derivatives((*[stateSize]float64)(unsafe.Add(xp, u*xs)), (*[3]float64)(unsafe.Add(fp, u*fs)), (*[stateSize]float64)(unsafe.Add(dp, u*ds)))
	}
	return nil
}

// updatePair is Update with the force given as two terms (PairInputs).
func (b *batch) updatePair(a *node.BatchArgs) {
	dt := a.Dt
	mp, msz := b.rows(a.Lo, a.Hi)
	x, f, g, d := a.X, a.In[0], a.In2[0], a.Dst
	xp := unsafe.Pointer(&x.Span(a.Lo, a.Hi, stateSize)[0])
	fp := unsafe.Pointer(&f.Span(a.Lo, a.Hi, 3)[0])
	gp := unsafe.Pointer(&g.Span(a.Lo, a.Hi, 3)[0])
	dp := unsafe.Pointer(&d.Span(a.Lo, a.Hi, stateSize)[0])
	xs, fs, gs, ds := uintptr(x.Stride)*8, uintptr(f.Stride)*8, uintptr(g.Stride)*8, uintptr(d.Stride)*8
	for k := range a.Hi - a.Lo {
		// law.step on the summed force p + q, written out: a call
		// per row cost a third of the row. The operations and their
		// order are step's (acceleration(f, i) = f[i]/mass + gravity[i]).
		u := uintptr(k)
		m := (*law)(unsafe.Add(mp, u*msz))
		x := (*[stateSize]float64)(unsafe.Add(xp, u*xs))
		p, q := (*[3]float64)(unsafe.Add(fp, u*fs)), (*[3]float64)(unsafe.Add(gp, u*gs))
		dst := (*[stateSize]float64)(unsafe.Add(dp, u*ds))
		v0 := x[offVelocity] + dt*((p[0]+q[0])/m.mass+m.gravity[0])
		v1 := x[offVelocity+1] + dt*((p[1]+q[1])/m.mass+m.gravity[1])
		v2 := x[offVelocity+2] + dt*((p[2]+q[2])/m.mass+m.gravity[2])
		dst[offVelocity], dst[offVelocity+1], dst[offVelocity+2] = v0, v1, v2
		dst[offPosition] = x[offPosition] + dt*v0
		dst[offPosition+1] = x[offPosition+1] + dt*v1
		dst[offPosition+2] = x[offPosition+2] + dt*v2
	}
}
