package ball

import (
	"math"

	"github.com/cosimgo/cosim/node"
)

// The batch kernel (node.Batcher): a family of balls stepped in one call
// per row range. Each row runs model.step (Update's arithmetic, contact
// and checks) or model.rates (Derivatives'), the functions the node's
// own methods call, so the kernel computes the same bits and fails on
// the same rows. The kernel reads the members' parameters from rows
// (node.Rows) that SetParams keeps current.
//
// The contact event (node.Eventer) has no batched form: event-locating
// integrators call EventValues and Reset per node.

var (
	_ node.BatchUpdater = (*batch)(nil)
	_ node.BatchDeriver = (*batch)(nil)
)

// BatchKey is the same for every ball: whether table_position is
// connected is part of a family's wiring (node.BatchArgs.Present), not
// of the kernel.
func (n *Node) BatchKey() string { return "" }

// NewBatch keeps the members' parameters as rows (node.Rows) that
// SetParams keeps current.
func (n *Node) NewBatch(members []node.Node) node.Batch {
	return &batch{
		models: node.NewRows(members, func(m node.Node) *node.Published[model] { return &m.(*Node).m }),
		pos:    n.posOff, vel: n.velOff, table: n.tableIdx, force: n.spec.InputLayout.Index(inputForce),
	}
}

type batch struct {
	models   *node.Rows[model]
	pos, vel int // state offsets within a row
	table    int // index of table_position in the inputs
	force    int // index of force in the inputs
}

// Update advances every row of the call as Node.Update does: contact
// resolved once, and an error (Update's, for the first failing row) when
// dt is not finite and positive or a value read or computed is not
// finite. Rows before a failing row are written; the graph replays the
// step per node on any error.
func (b *batch) Update(a *node.BatchArgs) error {
	if !(a.Dt > 0 && a.Dt <= math.MaxFloat64) {
		return stepError(a.T, a.Dt)
	}
	x, d, tb, fb := a.X, a.Dst, a.In[b.table], a.In[b.force]
	present := a.Present[b.table]
	ms := b.models.Span(a.Lo, a.Hi)
	for k := range ms {
		i := a.Lo + k
		xr := x.Buf[x.Off+i*x.Stride:]
		p, v, err := ms[k].step(a.T, a.Dt, xr[b.pos], xr[b.vel], fb.Buf[fb.Off+i*fb.Stride], present, tb.Buf[tb.Off+i*tb.Stride])
		if err != nil {
			return err
		}
		dr := d.Buf[d.Off+i*d.Stride:]
		dr[b.pos], dr[b.vel] = p, v
	}
	return nil
}

// Derivatives writes the collision-free right-hand side of every row of
// the call, with Node.Derivatives' resting contact, as Node.Derivatives
// does.
func (b *batch) Derivatives(a *node.BatchArgs) error {
	x, d, tb, fb := a.X, a.Dst, a.In[b.table], a.In[b.force]
	present := a.Present[b.table]
	ms := b.models.Span(a.Lo, a.Hi)
	for k := range ms {
		i := a.Lo + k
		xr := x.Buf[x.Off+i*x.Stride:]
		dp, dv, err := ms[k].rates(a.T, xr[b.pos], xr[b.vel], fb.Buf[fb.Off+i*fb.Stride], present, tb.Buf[tb.Off+i*tb.Stride])
		if err != nil {
			return err
		}
		dr := d.Buf[d.Off+i*d.Stride:]
		dr[b.pos], dr[b.vel] = dp, dv
	}
	return nil
}
