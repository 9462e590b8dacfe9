package rigidbody

import (
	"fmt"

	"github.com/cosimgo/cosim/node"
)

// The batch kernel (node.Batcher): a family of rigid bodies stepped in
// one call per row range. Each row runs model.step or model.derivatives,
// the functions Update and Derivatives run, from per-row copies of the
// parameters (constraints included) that SetParams keeps current: the
// same bits either way.

var (
	_ node.Batch        = (*batch)(nil)
	_ node.BatchDeriver = (*batch)(nil)
)

// rotKeys are the batch keys of the rotation modes.
var rotKeys = [...]string{rotFree: "free", rotHinge: "hinge", rotFixed: "fixed", rotGimbal: "gimbal"}

// BatchKey is the rotation mode the constraints leave (free, hinge, fixed
// or gimbal), so that a family runs one branch of the step. The kernel
// still dispatches per row, so a SetParams that changes a member's
// constraints after the family was formed stays exact.
func (n *Node) BatchKey() string { return rotKeys[n.m.rot] }

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
	for i := a.Lo; i < a.Hi; i++ {
		b.models[i].step(a.Dt, (*[stateLen]float64)(x.Buf[x.Off+i*x.Stride:]),
			(*vec3)(f.Buf[f.Off+i*f.Stride:]), (*vec3)(tq.Buf[tq.Off+i*tq.Stride:]),
			(*[stateLen]float64)(d.Buf[d.Off+i*d.Stride:]))
	}
	return nil
}

func (b *batch) Derivatives(a *node.BatchArgs) error {
	x, f, tq, d := a.X, a.In[kForce], a.In[kTorque], a.Dst
	for i := a.Lo; i < a.Hi; i++ {
		b.models[i].derivatives((*[stateLen]float64)(x.Buf[x.Off+i*x.Stride:]),
			(*vec3)(f.Buf[f.Off+i*f.Stride:]), (*vec3)(tq.Buf[tq.Off+i*tq.Stride:]),
			(*[stateLen]float64)(d.Buf[d.Off+i*d.Stride:]))
	}
	return nil
}
