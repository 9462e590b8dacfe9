package source

import (
	"strconv"

	"github.com/cosimgo/cosim/node"
)

// The batch kernels (node.Batcher): a family of sources of one type and
// one output size writes its values in one call per row range. Each row
// runs the function the member's Outputs runs (sineRow, stepRow, rampRow,
// pulseRow, table.eval) on rows of the members' parameters (node.Rows)
// that SetParams keeps current, so both paths write the same bits. Time events
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

// rows are the parameter rows of a family of sine, step, ramp or pulse
// sources of output size n: row i is its member's rowParams (node.Rows,
// which SetParams keeps current).
type rows struct {
	p *node.Rows[[]float64]
	n int
}

// rowed is a sine, step, ramp or pulse source: its parameter row and
// its output size.
type rowed interface {
	paramRow() *rowParams
	size() int
}

func (r *rowParams) paramRow() *rowParams { return r }
func (b *base) size() int                 { return b.n }

// newRows keeps the members' parameter rows.
func newRows(members []node.Node) rows {
	return rows{
		p: node.NewRows(members, func(m node.Node) *node.Published[[]float64] { return &m.(rowed).paramRow().row }),
		n: members[0].(rowed).size(),
	}
}

// row returns row i's parameters.
func (r *rows) row(i int) []float64 { return *r.p.At(i) }

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

// NewBatch returns the kernel of a family of lookup sources: rows of the
// members' tables (node.Rows, which SetParams keeps current; the
// breakpoints and values are shared, not copied: they are never written).
func (l *Lookup) NewBatch(members []node.Node) node.Batch {
	return &lookupBatch{tabs: node.NewRows(members, func(m node.Node) *node.Published[table] { return &m.(*Lookup).tab }), n: l.n}
}

type lookupBatch struct {
	tabs *node.Rows[table]
	n    int
}

// Outputs writes every row's table interpolated at T. When nobody reads
// the value it writes nothing but still fails where a member's Outputs
// does (outside = "error" and T outside its table).
func (b *lookupBatch) Outputs(a *node.BatchArgs) error {
	tabs := b.tabs.Span(a.Lo, a.Hi)
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
