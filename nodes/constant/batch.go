package constant

import "github.com/cosimgo/cosim/node"

// The batch kernel (node.Batcher): a family of constants writes its
// values in one call per row range, each row with put, the function
// Outputs calls, so that both paths write the same bits.

var (
	_ node.Batcher        = (*Node)(nil)
	_ node.BatchOutputter = (*batch)(nil)
)

// BatchKey is the same for every constant: the units, the only
// difference between specs, change no layout.
func (n *Node) BatchKey() string { return "" }

// NewBatch keeps the members' values as rows (node.Rows) that SetParams
// keeps current.
func (n *Node) NewBatch(members []node.Node) node.Batch {
	return &batch{values: node.NewRows(members, func(m node.Node) *node.Published[[3]float64] { return &m.(*Node).value })}
}

type batch struct {
	values *node.Rows[[3]float64]
}

// Outputs writes the value of every row of the call, unless nobody reads
// it.
func (b *batch) Outputs(a *node.BatchArgs) error {
	if !a.Needs(0) {
		return nil
	}
	o := a.Out[0]
	vs := b.values.Span(a.Lo, a.Hi)
	for k := range vs {
		put(vs[k], (*[3]float64)(o.Buf[o.Off+(a.Lo+k)*o.Stride:]))
	}
	return nil
}
