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

// NewBatch copies the members' values into one contiguous array and
// registers each row with its node, so that SetParams reaches the batch.
func (n *Node) NewBatch(members []node.Node) node.Batch {
	b := &batch{values: make([][3]float64, len(members))}
	for i, mn := range members {
		m := mn.(*Node)
		b.values[i] = m.value
		m.mirrors = append(m.mirrors, &b.values[i])
	}
	return b
}

type batch struct {
	values [][3]float64
}

// Update does nothing: the node has no state.
func (b *batch) Update(*node.BatchArgs) error { return nil }

// Outputs writes the value of every row of the call, unless nobody reads
// it.
func (b *batch) Outputs(a *node.BatchArgs) error {
	if !a.Needs(0) {
		return nil
	}
	o := a.Out[0]
	vs := b.values[a.Lo:a.Hi]
	for k := range vs {
		put(vs[k], (*[3]float64)(o.Buf[o.Off+(a.Lo+k)*o.Stride:]))
	}
	return nil
}
