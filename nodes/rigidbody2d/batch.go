package rigidbody2d

import (
	"fmt"

	"github.com/cosimgo/cosim/node"
)

// The batch kernel (node.Batcher): a family of planar bodies stepped in
// one call per row range. Each row runs model.step or model.derivatives,
// the functions Update and Derivatives run, from rows of the parameters
// (node.Rows) that SetParams keeps current: the same bits either way.

var (
	_ node.BatchUpdater = (*batch)(nil)
	_ node.BatchDeriver = (*batch)(nil)
)

// BatchKey is the same for every body: one kernel serves them all.
func (n *Node) BatchKey() string { return "" }

// NewBatch keeps the members' parameters as rows (node.Rows) that
// SetParams keeps current.
func (n *Node) NewBatch(members []node.Node) node.Batch {
	return &batch{models: node.NewRows(members, func(m node.Node) *node.Published[model] { return &m.(*Node).m })}
}

type batch struct {
	models *node.Rows[model]
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
	ms := b.models.Span(a.Lo, a.Hi)
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
	ms := b.models.Span(a.Lo, a.Hi)
	for k := range ms {
		i := a.Lo + k
		fr := f.Buf[f.Off+i*f.Stride:]
		ms[k].derivatives((*[stateLen]float64)(x.Buf[x.Off+i*x.Stride:]), fr[0], fr[1], tq.Buf[tq.Off+i*tq.Stride],
			(*[stateLen]float64)(d.Buf[d.Off+i*d.Stride:]))
	}
	return nil
}
