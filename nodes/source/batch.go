package source

import (
	"strconv"

	"github.com/cosimgo/cosim/node"
)

// The batch kernels (node.Batcher): a family of sources of one type and
// one output size writes its values in one call per row range. Each row
// runs the function the member's Outputs runs (sineRow, stepRow, rampRow,
// pulseRow, table.eval) on a per-row copy of the member's parameters that
// SetParams keeps current, so both paths write the same bits. Time events
// (node.TimeEventer) have no batched form: a graph asks each source for
// them, as before.

var (
	_ node.Batcher        = (*Sine)(nil)
	_ node.Batcher        = (*Step)(nil)
	_ node.Batcher        = (*Ramp)(nil)
	_ node.Batcher        = (*Pulse)(nil)
	_ node.Batcher        = (*Lookup)(nil)
	_ node.BatchOutputter = (*sineBatch)(nil)
	_ node.BatchOutputter = (*stepBatch)(nil)
	_ node.BatchOutputter = (*rampBatch)(nil)
	_ node.BatchOutputter = (*pulseBatch)(nil)
	_ node.BatchOutputter = (*lookupBatch)(nil)
)

// BatchKey is the output size, the only thing that sets a source's
// layout. Parameter values (per-component or shared, a lookup's table
// length, interpolation and outside behaviour) are per-row data.
func (b *base) BatchKey() string { return strconv.Itoa(b.n) }

// rows is the per-row parameter data of a family of sine, step, ramp or
// pulse sources: row i's copy of its member's rowParams.p at
// p[i*w:(i+1)*w], for output size n.
type rows struct {
	p    []float64
	w, n int
}

// rowed is a sine, step, ramp or pulse source: its parameter row and
// its output size.
type rowed interface {
	paramRow() *rowParams
	size() int
}

func (r *rowParams) paramRow() *rowParams { return r }
func (b *base) size() int                 { return b.n }

// newRows copies the members' parameter rows into one contiguous array
// and registers each row with its member, so that SetParams reaches the
// batch.
func newRows(members []node.Node) rows {
	m0 := members[0].(rowed)
	r := rows{w: len(m0.paramRow().p), n: m0.size()}
	r.p = make([]float64, len(members)*r.w)
	for i, m := range members {
		mp := m.(rowed).paramRow()
		row := r.p[i*r.w : (i+1)*r.w : (i+1)*r.w]
		copy(row, mp.p)
		mp.mirrors = append(mp.mirrors, row)
	}
	return r
}

// row returns row i's parameters.
func (r *rows) row(i int) []float64 { return r.p[i*r.w : (i+1)*r.w : (i+1)*r.w] }

// Update does nothing: a source has no state.
func (r *rows) Update(*node.BatchArgs) error { return nil }

// NewBatch returns the kernel of a family of sine sources.
func (s *Sine) NewBatch(members []node.Node) node.Batch {
	return &sineBatch{newRows(members)}
}

type sineBatch struct{ rows }

// Outputs writes every row's value, unless nobody reads it.
func (b *sineBatch) Outputs(a *node.BatchArgs) error {
	if !a.Needs(0) {
		return nil
	}
	o := a.Out[0]
	for i := a.Lo; i < a.Hi; i++ {
		sineRow(a.T, b.row(i), o.Row(i, b.n))
	}
	return nil
}

// NewBatch returns the kernel of a family of step sources.
func (s *Step) NewBatch(members []node.Node) node.Batch {
	return &stepBatch{newRows(members)}
}

type stepBatch struct{ rows }

// Outputs writes every row's value, unless nobody reads it.
func (b *stepBatch) Outputs(a *node.BatchArgs) error {
	if !a.Needs(0) {
		return nil
	}
	o := a.Out[0]
	for i := a.Lo; i < a.Hi; i++ {
		stepRow(a.T, b.row(i), o.Row(i, b.n))
	}
	return nil
}

// NewBatch returns the kernel of a family of ramp sources.
func (r *Ramp) NewBatch(members []node.Node) node.Batch {
	return &rampBatch{newRows(members)}
}

type rampBatch struct{ rows }

// Outputs writes every row's value, unless nobody reads it.
func (b *rampBatch) Outputs(a *node.BatchArgs) error {
	if !a.Needs(0) {
		return nil
	}
	o := a.Out[0]
	for i := a.Lo; i < a.Hi; i++ {
		rampRow(a.T, b.row(i), o.Row(i, b.n))
	}
	return nil
}

// NewBatch returns the kernel of a family of pulse sources.
func (p *Pulse) NewBatch(members []node.Node) node.Batch {
	return &pulseBatch{newRows(members)}
}

type pulseBatch struct{ rows }

// Outputs writes every row's value, unless nobody reads it.
func (b *pulseBatch) Outputs(a *node.BatchArgs) error {
	if !a.Needs(0) {
		return nil
	}
	o := a.Out[0]
	for i := a.Lo; i < a.Hi; i++ {
		pulseRow(a.T, b.row(i), o.Row(i, b.n))
	}
	return nil
}

// NewBatch returns the kernel of a family of lookup sources: a copy of
// every member's table (the breakpoints and values are shared, not
// copied: they are never written), registered with its member so that
// SetParams reaches the batch.
func (l *Lookup) NewBatch(members []node.Node) node.Batch {
	b := &lookupBatch{tabs: make([]table, len(members)), n: l.n}
	for i, mn := range members {
		m := mn.(*Lookup)
		b.tabs[i] = m.tab
		m.mirrors = append(m.mirrors, &b.tabs[i])
	}
	return b
}

type lookupBatch struct {
	tabs []table
	n    int
}

// Update does nothing: a source has no state.
func (b *lookupBatch) Update(*node.BatchArgs) error { return nil }

// Outputs writes every row's table interpolated at T. When nobody reads
// the value it writes nothing but still fails where a member's Outputs
// does (outside = "error" and T outside its table).
func (b *lookupBatch) Outputs(a *node.BatchArgs) error {
	tabs := b.tabs[a.Lo:a.Hi]
	if !a.Needs(0) {
		for k := range tabs {
			if err := tabs[k].check(a.T); err != nil {
				return err
			}
		}
		return nil
	}
	o := a.Out[0]
	for k := range tabs {
		if err := tabs[k].eval(a.T, o.Row(a.Lo+k, b.n)); err != nil {
			return err
		}
	}
	return nil
}
