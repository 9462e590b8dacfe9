package rigidbody2d

import (
	"fmt"

	"github.com/cosimgo/cosim/node"
)

// The batch kernel (node.Batcher): a family of planar bodies stepped in
// one call per row range. Each row runs model.step or model.derivatives,
// the functions Update and Derivatives run, from per-row copies of the
// parameters that SetParams keeps current: the same bits either way.

var (
	_ node.Batch        = (*batch)(nil)
	_ node.BatchDeriver = (*batch)(nil)
)

// BatchKey is the same for every body: one kernel serves them all.
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

// Inputs of the kernel, in Spec().Inputs order.
const (
	kForce  = 0
	kTorque = 1
)

func (b *batch) Update(a *node.BatchArgs) error {
	if a.Dt-a.Dt != 0 {
		return fmt.Errorf("%s: time step dt = %v: %w", TypeName, a.Dt, node.ErrNonFinite)
	}
	x, f, tq, d := a.X, a.In[kForce], a.In[kTorque], a.Dst
	ms := b.models[a.Lo:a.Hi]
	for k := range ms {
		i := a.Lo + k
		fr := f.Buf[f.Off+i*f.Stride:]
		ms[k].step(a.Dt, (*[stateLen]float64)(x.Buf[x.Off+i*x.Stride:]), fr[0], fr[1], tq.Buf[tq.Off+i*tq.Stride],
			(*[stateLen]float64)(d.Buf[d.Off+i*d.Stride:]))
	}
	return nil
}

func (b *batch) Derivatives(a *node.BatchArgs) error {
	x, f, tq, d := a.X, a.In[kForce], a.In[kTorque], a.Dst
	ms := b.models[a.Lo:a.Hi]
	for k := range ms {
		i := a.Lo + k
		fr := f.Buf[f.Off+i*f.Stride:]
		ms[k].derivatives((*[stateLen]float64)(x.Buf[x.Off+i*x.Stride:]), fr[0], fr[1], tq.Buf[tq.Off+i*tq.Stride],
			(*[stateLen]float64)(d.Buf[d.Off+i*d.Stride:]))
	}
	return nil
}
