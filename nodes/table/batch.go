package table

import "github.com/cosimgo/cosim/node"

// The batch kernel (node.Batcher): a family of tables writes its
// heights in one call per row range. Outputs writes the parameter as it
// is, and so does the kernel, from its rows: the same bits either way.

var _ node.BatchOutputter = (*batch)(nil)

// BatchKey is the same for every table: one kernel serves them all.
func (n *Node) BatchKey() string { return "" }

// NewBatch keeps the members' heights as rows (node.Rows) that
// SetParams keeps current.
func (n *Node) NewBatch(members []node.Node) node.Batch {
	return &batch{pos: node.NewRows(members, func(m node.Node) *node.Published[float64] { return &m.(*Node).pos })}
}

type batch struct {
	pos *node.Rows[float64]
}

// Outputs writes the height of every row of the call, unless nobody
// reads it.
func (b *batch) Outputs(a *node.BatchArgs) error {
	if !a.Needs(0) {
		return nil
	}
	o := a.Out[0]
	pos := b.pos.Span(a.Lo, a.Hi)
	if o.Stride == 1 {
		copy(o.Buf[o.Off+a.Lo:o.Off+a.Hi], pos)
		return nil
	}
	for k, p := range pos {
		o.Buf[o.Off+(a.Lo+k)*o.Stride] = p
	}
	return nil
}
