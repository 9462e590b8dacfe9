package rigidbody

import (
	"fmt"

	"github.com/cosimgo/cosim/node"
)

// The batch kernel (node.Batcher): a family of rigid bodies stepped in
// one call per row range. Each row runs model.step or model.derivatives,
// the functions Update and Derivatives run, from rows of the parameters
// (constraints included, node.Rows) that SetParams keeps current: the
// same bits either way.

var (
	_ node.BatchUpdater = (*batch)(nil)
	_ node.BatchDeriver = (*batch)(nil)
)

// rotKeys are the batch keys of the rotation modes.
var rotKeys = [...]string{rotFree: "free", rotHinge: "hinge", rotFixed: "fixed", rotGimbal: "gimbal"}

// BatchKey is the rotation mode the constraints leave (free, hinge, fixed
// or gimbal), so that a family runs one branch of the step. The kernel
// still dispatches per row, so a SetParams that changes a member's
// constraints after the family was formed stays exact.
func (n *Node) BatchKey() string { return rotKeys[n.m.Get().rot] }

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
	for i := a.Lo; i < a.Hi; i++ {
		b.models.At(i).step(a.Dt, (*[stateLen]float64)(x.Buf[x.Off+i*x.Stride:]),
			(*vec3)(f.Buf[f.Off+i*f.Stride:]), (*vec3)(tq.Buf[tq.Off+i*tq.Stride:]),
			(*[stateLen]float64)(d.Buf[d.Off+i*d.Stride:]))
	}
	return nil
}

func (b *batch) Derivatives(a *node.BatchArgs) error {
	x, f, tq, d := a.X, a.In[kForce], a.In[kTorque], a.Dst
	for i := a.Lo; i < a.Hi; i++ {
		b.models.At(i).derivatives((*[stateLen]float64)(x.Buf[x.Off+i*x.Stride:]),
			(*vec3)(f.Buf[f.Off+i*f.Stride:]), (*vec3)(tq.Buf[tq.Off+i*tq.Stride:]),
			(*[stateLen]float64)(d.Buf[d.Off+i*d.Stride:]))
	}
	return nil
}
