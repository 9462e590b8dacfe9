package masspoint

import (
	"fmt"

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
	_ node.Batch        = (*batch)(nil)
	_ node.BatchDeriver = (*batch)(nil)
)

func (b *batch) Update(a *node.BatchArgs) error {
	if !finite(a.Dt) {
		return fmt.Errorf("%s: time step dt = %v: %w", TypeName, a.Dt, node.ErrNonFinite)
	}
	ms := b.models[a.Lo:a.Hi]
	x, f, d := a.X, a.In[0], a.Dst
	for k := range ms {
		i := a.Lo + k
		ms[k].step(a.Dt, (*[stateSize]float64)(x.Buf[x.Off+i*x.Stride:]), (*[3]float64)(f.Buf[f.Off+i*f.Stride:]), (*[stateSize]float64)(d.Buf[d.Off+i*d.Stride:]))
	}
	return nil
}

func (b *batch) Derivatives(a *node.BatchArgs) error {
	ms := b.models[a.Lo:a.Hi]
	x, f, d := a.X, a.In[0], a.Dst
	for k := range ms {
		i := a.Lo + k
		ms[k].derivatives((*[stateSize]float64)(x.Buf[x.Off+i*x.Stride:]), (*[3]float64)(f.Buf[f.Off+i*f.Stride:]), (*[stateSize]float64)(d.Buf[d.Off+i*d.Stride:]))
	}
	return nil
}
