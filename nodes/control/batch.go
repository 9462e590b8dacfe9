package control

import (
	"fmt"
	"math"

	"github.com/cosimgo/cosim/node"
)

// The batch kernels (node.Batcher): a graph steps the blocks of one type
// and one layout as a family, one kernel call per block of rows instead
// of one interface call per block. Every kernel runs, row by row, the
// per-row function its block's own methods run (gainRow, sumRow,
// pidStep, lti.step, …) on the row's parameters, which it reads from
// node.Rows that every SetParams keeps current, so the two paths write
// the same bits.
//
// The sampled blocks (zoh, unitdelay, transportdelay) have no kernel:
// their state changes only at sample instants, which each block declares
// as time events and events of its own, and a graph asks every block for
// those one by one anyway; package doc.go says which kernels pay.

var (
	_ node.Batcher = (*Gain)(nil)
	_ node.Batcher = (*Sum)(nil)
	_ node.Batcher = (*Product)(nil)
	_ node.Batcher = (*Limiter)(nil)
	_ node.Batcher = (*Switch)(nil)
	_ node.Batcher = (*FirstOrder)(nil)
	_ node.Batcher = (*Integrator)(nil)
	_ node.Batcher = (*RateLimiter)(nil)
	_ node.Batcher = (*PID)(nil)
	_ node.Batcher = (*TransferFunction)(nil)
	_ node.Batcher = (*StateSpace)(nil)

	_ node.BatchOutputter = (*gainBatch)(nil)
	_ node.BatchOutputter = (*sumBatch)(nil)
	_ node.BatchOutputter = (*productBatch)(nil)
	_ node.BatchOutputter = (*limiterBatch)(nil)
	_ node.BatchOutputter = (*switchBatch)(nil)
	_ stateBatch          = (*firstOrderBatch)(nil)
	_ stateBatch          = (*integratorBatch)(nil)
	_ stateBatch          = (*rateLimiterBatch)(nil)
	_ stateBatch          = (*pidBatch)(nil)
	_ stateBatch          = (*ltiBatch)(nil)
)

// stateBatch is the kernel of a block with state: all three methods.
type stateBatch interface {
	node.BatchUpdater
	node.BatchOutputter
	node.BatchDeriver
}

// rowsOf returns the parameter rows of a family of blocks (node.Rows
// over each member's block.row). They are uniform while every member
// has the same row, bit for bit, and the kernels then read row 0 for
// all, so that a thousand equal controllers read one row.
func rowsOf(members []node.Node) *node.Rows[[]float64] {
	return node.NewUniformRows(members, func(m node.Node) *node.Published[[]float64] { return &m.(rowed).base().row }, sameBits)
}

// rowed is a block with a parameter row.
type rowed interface{ base() *block }

func (b *block) base() *block { return b }

// sameBits reports whether two rows hold the same bits: 0 and −0 differ
// (a gain of −0 gives −0 for a positive input), so == is not enough.
func sameBits(a, b *[]float64) bool {
	if len(*a) != len(*b) {
		return false
	}
	for i, v := range *a {
		if math.Float64bits(v) != math.Float64bits((*b)[i]) {
			return false
		}
	}
	return true
}

// params is a family's parameter rows.
type params struct{ rows *node.Rows[[]float64] }

// at returns row i's parameters (row 0's while the rows are uniform).
func (p params) at(i int) []float64 {
	if p.rows.Uniform() {
		i = 0
	}
	return *p.rows.At(i)
}

// --- stateless blocks ---

// BatchKey is the size, the number of outputs and whether the gain is a
// matrix: they set the layout and the code path.
func (g *Gain) BatchKey() string { return fmt.Sprintf("%d/%d/%t", g.n, g.m, g.matrix) }

// NewBatch returns the kernel of a family of gains.
func (g *Gain) NewBatch(members []node.Node) node.Batch {
	return &gainBatch{params{rowsOf(members)}, g.n, g.m, g.matrix}
}

type gainBatch struct {
	params
	n, m   int
	matrix bool
}

// Outputs writes y = K u of every row, unless nobody reads it.
func (b *gainBatch) Outputs(a *node.BatchArgs) error {
	if !a.Needs(0) {
		return nil
	}
	u, y := a.In[0], a.Out[0]
	for i := a.Lo; i < a.Hi; i++ {
		gainRow(b.at(i), b.matrix, u.Row(i, b.n), y.Row(i, b.m))
	}
	return nil
}

// BatchKey is the size and the number of inputs (the layout).
func (s *Sum) BatchKey() string { return fmt.Sprintf("%d/%d", s.n, len(s.Spec().Inputs)) }

// NewBatch returns the kernel of a family of sums.
func (s *Sum) NewBatch(members []node.Node) node.Batch {
	return &sumBatch{params{rowsOf(members)}, s.n}
}

type sumBatch struct {
	params
	n int
}

// Outputs writes the signed sum of every row, unless nobody reads it.
func (b *sumBatch) Outputs(a *node.BatchArgs) error {
	if !a.Needs(0) {
		return nil
	}
	var u [MaxPorts][]float64
	for i := a.Lo; i < a.Hi; i++ {
		for j, in := range a.In {
			u[j] = in.Row(i, b.n)
		}
		sumRow(b.at(i), &u, a.Out[0].Row(i, b.n))
	}
	return nil
}

// BatchKey is the size and the number of inputs (the layout).
func (pr *Product) BatchKey() string { return fmt.Sprintf("%d/%d", pr.n, len(pr.Spec().Inputs)) }

// NewBatch returns the kernel of a family of products.
func (pr *Product) NewBatch(members []node.Node) node.Batch {
	return &productBatch{params{rowsOf(members)}, pr.n}
}

type productBatch struct {
	params
	n int
}

// Outputs writes the product of every row; it fails where a member's
// Outputs does (a zero divisor), even when nobody reads the value.
func (b *productBatch) Outputs(a *node.BatchArgs) error {
	var u [MaxPorts][]float64
	var scratch [MaxSize]float64
	for i := a.Lo; i < a.Hi; i++ {
		for j, in := range a.In {
			u[j] = in.Row(i, b.n)
		}
		y := scratch[:b.n]
		if a.Needs(0) {
			y = a.Out[0].Row(i, b.n)
		}
		if productRow(b.at(i), &u, y) >= 0 {
			return fmt.Errorf("%s: %w", ProductName, ErrDivideByZero)
		}
	}
	return nil
}

// BatchKey is the size and whether the block is a dead zone.
func (l *Limiter) BatchKey() string { return fmt.Sprintf("%d/%t", l.n, l.dead) }

// NewBatch returns the kernel of a family of saturations or dead zones.
func (l *Limiter) NewBatch(members []node.Node) node.Batch {
	return &limiterBatch{params{rowsOf(members)}, l.n, l.dead}
}

type limiterBatch struct {
	params
	n    int
	dead bool
}

// Outputs writes the limited input of every row, unless nobody reads it.
func (b *limiterBatch) Outputs(a *node.BatchArgs) error {
	if !a.Needs(0) {
		return nil
	}
	u, y := a.In[0], a.Out[0]
	for i := a.Lo; i < a.Hi; i++ {
		if b.dead {
			deadZoneRow(b.at(i), u.Row(i, b.n), y.Row(i, b.n))
		} else {
			saturationRow(b.at(i), u.Row(i, b.n), y.Row(i, b.n))
		}
	}
	return nil
}

// BatchKey is the size.
func (s *Switch) BatchKey() string { return fmt.Sprint(s.n) }

// NewBatch returns the kernel of a family of switches.
func (s *Switch) NewBatch(members []node.Node) node.Batch {
	return &switchBatch{params{rowsOf(members)}, s.n}
}

type switchBatch struct {
	params
	n int
}

// Outputs writes on or off of every row, unless nobody reads it.
func (b *switchBatch) Outputs(a *node.BatchArgs) error {
	if !a.Needs(0) {
		return nil
	}
	on, c, off, y := a.In[0], a.In[1], a.In[2], a.Out[0]
	for i := a.Lo; i < a.Hi; i++ {
		switchRow(b.at(i), on.Row(i, b.n), c.Row(i, 1)[0], off.Row(i, b.n), y.Row(i, b.n))
	}
	return nil
}

// --- continuous blocks ---

// stateOutputs writes every row's state (n values) to its output, the
// Outputs of a block whose output is its state, unless nobody reads it.
func stateOutputs(a *node.BatchArgs, n int) error {
	if !a.Needs(0) {
		return nil
	}
	for i := a.Lo; i < a.Hi; i++ {
		copy(a.Out[0].Row(i, n), a.X.Row(i, n))
	}
	return nil
}

// BatchKey is the size and whether the block is a derivative.
func (f *FirstOrder) BatchKey() string { return fmt.Sprintf("%d/%t", f.n, f.deriv) }

// NewBatch returns the kernel of a family of lags or derivatives.
func (f *FirstOrder) NewBatch(members []node.Node) node.Batch {
	return &firstOrderBatch{params{rowsOf(members)}, f.n, f.deriv, f.typ}
}

type firstOrderBatch struct {
	params
	n     int
	deriv bool
	typ   string
}

func (b *firstOrderBatch) Update(a *node.BatchArgs) error {
	if err := checkDt(b.typ, a.Dt); err != nil {
		return err
	}
	for i := a.Lo; i < a.Hi; i++ {
		firstOrderStep(b.at(i), b.deriv, a.Dt, a.X.Row(i, b.n), a.In[0].Row(i, b.n), a.Dst.Row(i, b.n))
	}
	return nil
}

func (b *firstOrderBatch) Outputs(a *node.BatchArgs) error {
	if !a.Needs(0) {
		return nil
	}
	for i := a.Lo; i < a.Hi; i++ {
		firstOrderOutputs(b.at(i), b.deriv, a.X.Row(i, b.n), a.In[0].Row(i, b.n), a.Out[0].Row(i, b.n))
	}
	return nil
}

func (b *firstOrderBatch) Derivatives(a *node.BatchArgs) error {
	for i := a.Lo; i < a.Hi; i++ {
		firstOrderRates(b.at(i), b.deriv, a.X.Row(i, b.n), a.In[0].Row(i, b.n), a.Dst.Row(i, b.n))
	}
	return nil
}

// BatchKey is the size.
func (g *Integrator) BatchKey() string { return fmt.Sprint(g.n) }

// NewBatch returns the kernel of a family of integrators. Their limit
// and reset events stay the members' own (a graph asks each node).
func (g *Integrator) NewBatch(members []node.Node) node.Batch {
	return &integratorBatch{params{rowsOf(members)}, g.n}
}

type integratorBatch struct {
	params
	n int
}

// resetting is the member's resetting for row i.
func (b *integratorBatch) resetting(a *node.BatchArgs, i int) bool {
	return a.Present[1] && a.In[1].Row(i, 1)[0] >= ResetThreshold
}

func (b *integratorBatch) Update(a *node.BatchArgs) error {
	if err := checkDt(IntegratorName, a.Dt); err != nil {
		return err
	}
	for i := a.Lo; i < a.Hi; i++ {
		integratorStep(b.at(i), a.Dt, a.X.Row(i, b.n), a.In[0].Row(i, b.n), b.resetting(a, i), a.Dst.Row(i, b.n))
	}
	return nil
}

func (b *integratorBatch) Outputs(a *node.BatchArgs) error { return stateOutputs(a, b.n) }

func (b *integratorBatch) Derivatives(a *node.BatchArgs) error {
	for i := a.Lo; i < a.Hi; i++ {
		integratorRates(b.at(i), a.X.Row(i, b.n), a.In[0].Row(i, b.n), b.resetting(a, i), a.Dst.Row(i, b.n))
	}
	return nil
}

// BatchKey is the size.
func (r *RateLimiter) BatchKey() string { return fmt.Sprint(r.n) }

// NewBatch returns the kernel of a family of rate limiters.
func (r *RateLimiter) NewBatch(members []node.Node) node.Batch {
	return &rateLimiterBatch{params{rowsOf(members)}, r.n}
}

type rateLimiterBatch struct {
	params
	n int
}

func (b *rateLimiterBatch) Update(a *node.BatchArgs) error {
	if err := checkDt(RateLimiterName, a.Dt); err != nil {
		return err
	}
	for i := a.Lo; i < a.Hi; i++ {
		rateLimiterStep(b.at(i), a.Dt, a.X.Row(i, b.n), a.In[0].Row(i, b.n), a.Dst.Row(i, b.n))
	}
	return nil
}

func (b *rateLimiterBatch) Outputs(a *node.BatchArgs) error { return stateOutputs(a, b.n) }

func (b *rateLimiterBatch) Derivatives(a *node.BatchArgs) error {
	for i := a.Lo; i < a.Hi; i++ {
		rateLimiterRates(b.at(i), a.X.Row(i, b.n), a.In[0].Row(i, b.n), a.Dst.Row(i, b.n))
	}
	return nil
}

// BatchKey is the size.
func (c *PID) BatchKey() string { return fmt.Sprint(c.n) }

// NewBatch returns the kernel of a family of PID controllers.
func (c *PID) NewBatch(members []node.Node) node.Batch {
	return &pidBatch{params{rowsOf(members)}, c.n}
}

type pidBatch struct {
	params
	n int
}

func (b *pidBatch) Update(a *node.BatchArgs) error {
	if err := checkDt(PIDName, a.Dt); err != nil {
		return err
	}
	n := b.n
	for i := a.Lo; i < a.Hi; i++ {
		pidStep(b.at(i), n, a.Dt, a.X.Row(i, 4*n), a.In[0].Row(i, n), a.In[1].Row(i, n), a.Dst.Row(i, 4*n))
	}
	return nil
}

func (b *pidBatch) Outputs(a *node.BatchArgs) error {
	if !a.Needs(0) {
		return nil
	}
	n := b.n
	for i := a.Lo; i < a.Hi; i++ {
		p, x, r, y, u := b.at(i), a.X.Row(i, 4*n), a.In[0].Row(i, n), a.In[1].Row(i, n), a.Out[0].Row(i, n)
		for k := range u {
			u[k] = pidOutput(p, n, k, x, r, y)
		}
	}
	return nil
}

func (b *pidBatch) Derivatives(a *node.BatchArgs) error {
	n := b.n
	for i := a.Lo; i < a.Hi; i++ {
		pidRates(b.at(i), n, a.X.Row(i, 4*n), a.In[0].Row(i, n), a.In[1].Row(i, n), a.Dst.Row(i, 4*n))
	}
	return nil
}

// --- linear systems ---

// BatchKey is the number of states, inputs and outputs (the layout).
func (b *ltiBlock) BatchKey() string {
	s := b.sys()
	return fmt.Sprintf("%d/%d/%d", s.n, s.m, s.q)
}

// NewBatch returns the kernel of a family of transfer functions or
// state-space blocks: rows of the members' published systems, each with
// the discretization it caches (shared with the member, which computes
// the same bits).
func (b *ltiBlock) NewBatch(members []node.Node) node.Batch {
	s := b.sys()
	return &ltiBatch{
		rows: node.NewRows(members, func(m node.Node) *node.Published[*lti] { return &m.(ltiMember).lb().cur }),
		n:    s.n, m: s.m, q: s.q, typ: b.typ,
	}
}

// ltiMember is a transfer-function or state-space block.
type ltiMember interface{ lb() *ltiBlock }

func (b *ltiBlock) lb() *ltiBlock { return b }

type ltiBatch struct {
	rows    *node.Rows[*lti]
	n, m, q int
	typ     string
}

func (b *ltiBatch) Update(a *node.BatchArgs) error {
	if err := checkDt(b.typ, a.Dt); err != nil {
		return err
	}
	for i := a.Lo; i < a.Hi; i++ {
		(*b.rows.At(i)).step(a.Dt, a.X.Row(i, b.n), a.In[0].Row(i, b.m), a.Dst.Row(i, b.n))
	}
	return nil
}

func (b *ltiBatch) Outputs(a *node.BatchArgs) error {
	if !a.Needs(0) {
		return nil
	}
	for i := a.Lo; i < a.Hi; i++ {
		(*b.rows.At(i)).outputs(a.X.Row(i, b.n), a.In[0].Row(i, b.m), a.Out[0].Row(i, b.q))
	}
	return nil
}

func (b *ltiBatch) Derivatives(a *node.BatchArgs) error {
	for i := a.Lo; i < a.Hi; i++ {
		(*b.rows.At(i)).derivatives(a.X.Row(i, b.n), a.In[0].Row(i, b.m), a.Dst.Row(i, b.n))
	}
	return nil
}
