package table

import "github.com/cosimgo/cosim/node"

// The batch kernel (node.Batcher): a family of tables writes its
// heights in one call per row range. Outputs writes the parameter as it
// is, and so does the kernel, from a per-row copy that SetParams keeps
// current: the same bits either way.

var _ node.BatchOutputter = (*batch)(nil)

// BatchKey is the same for every table: one kernel serves them all.
func (n *Node) BatchKey() string { return "" }

// NewBatch copies the members' heights into one contiguous array and
// registers each row with its node, so that SetParams reaches the batch.
func (n *Node) NewBatch(members []node.Node) node.Batch {
	b := &batch{pos: make([]float64, len(members))}
	for i, mn := range members {
		m := mn.(*Node)
		b.pos[i] = m.pos
		m.mirrors = append(m.mirrors, &b.pos[i])
	}
	return b
}

type batch struct {
	pos []float64
}

// Update does nothing: the table has no state.
func (b *batch) Update(*node.BatchArgs) error { return nil }

// Outputs writes the height of every row of the call, unless nobody
// reads it.
func (b *batch) Outputs(a *node.BatchArgs) error {
	if !a.Needs(0) {
		return nil
	}
	o := a.Out[0]
	if o.Stride == 1 {
		copy(o.Buf[o.Off+a.Lo:o.Off+a.Hi], b.pos[a.Lo:a.Hi])
		return nil
	}
	for i := a.Lo; i < a.Hi; i++ {
		o.Buf[o.Off+i*o.Stride] = b.pos[i]
	}
	return nil
}
