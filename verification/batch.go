package verification

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"sync"

	"github.com/cosimgo/cosim/node"
)

// BatchOptions configures CheckBatch. The zero value is the default.
type BatchOptions struct {
	// Seed seeds every random draw: the same seed draws the same states,
	// inputs, layouts and faults.
	Seed uint64
	// Trials is the number of random draws per kernel method, before and
	// again after the SetParams check's overrides. Zero means 8.
	Trials int
	// Perturb overrides member i's parameters for the SetParams check
	// (it is called once per member, after NewBatch). Nil perturbs every
	// parameter the conformance checker's injection check can perturb,
	// each member its own way, through node.Tunable.SetParams, and puts
	// the old values back at the end.
	Perturb func(i int, n node.Node) error
}

// CheckBatch checks the batch kernel of a family against its members'
// own methods, like CheckConformance checks one node against the node
// contract, and returns every violation at once (each a Violation with
// Check "batch"; at most 20 of them).
//
// members must form one family: one concrete type implementing
// node.Batcher, equal BatchKeys and equal layouts. CheckBatch calls
// members[0].NewBatch(members), then for each of Trials random draws and
// each kernel method — Update when the members have state (the batch
// must be a node.BatchUpdater); Outputs when they have outputs (it must
// be a node.BatchOutputter); Derivatives when they are stateful
// node.Derivers (it must be a node.BatchDeriver):
//
//   - draws a time, a step (positive; in every third draw of Update 0,
//     negative, NaN or ±Inf in turn), states and inputs (normal values mixed with exact zeros,
//     tiny and large values), whether each absent-able input is present,
//     and, in every third draw, one NaN or ±Inf in one row;
//   - lays them out as the graph may: X, Dst and the outputs strided with
//     gaps after an offset, each input strided, broadcast (stride 0) or
//     held in a per-call buffer holding only the call's rows (negative
//     Off, as the graph's summed inputs); an absent input is zeros
//     broadcast;
//   - when the batch is a node.BatchPairAdder, passes each of its pair
//     inputs, in half the draws, as two random terms (BatchArgs.In and
//     In2) whose sum the members read, and requires of every call that
//     succeeds that a row with a non-finite term writes a non-finite
//     value to Dst (Update, Derivatives): the graph checks Dst, not the
//     terms;
//   - when the batch is a node.BatchDstChecker whose ChecksDst is true,
//     requires an Update or Derivatives call to fail when a member writes
//     a non-finite value on a row of the call, and allows that error
//     where the members return none (the graph does not check Dst after
//     such a kernel);
//   - draws Need: nil, or a random mask over the output fields;
//   - runs each member's own method on its row (inputs packed by
//     InputLayout), and the kernel over all rows in several chunkings:
//     one call, blocks of 1, 3 and 7 rows, and blocks of 5 run by three
//     goroutines at once on disjoint ranges (run the check under -race
//     to catch shared scratch);
//   - requires, per call, that the kernel returns an error exactly when
//     some member's method does on a row of the call; and, when neither
//     does, that every value the members write is written bit for bit
//     (math.Float64bits), except that an output field whose Need entry
//     is false may instead be left as it was; that nothing is written
//     outside the call's rows and fields (gaps, padding and the next
//     rows keep a sentinel); and that X and the inputs are not written.
//
// When the batch is a node.BatchStepBounder it also requires, per draw,
// that StableDt over every row — in one call, and as the smallest over
// blocks of 1, 3 and 7 rows — is bit for bit the smallest of the
// members' own StableDtAt, NaN left out (+Inf when none is left), and
// that it writes neither X nor the inputs.
//
// Then it overrides the members' parameters with SetParams (see
// BatchOptions.Perturb) and repeats the draws: a kernel that does not see
// SetParams on its members computes the old parameters' bits and fails.
// A panic in a kernel or a member's method is a violation, not a crash.
//
// Last it checks the batch's lifetime: it builds the family's batch
// again several times and requires that, once those batches are
// dropped, the garbage collector reclaims everything they allocated —
// every object a batch reaches that an earlier batch of the same
// members does not (shared data such as specs and the members
// themselves is reached by both) — so that members built into graph
// after graph keep none of the old batches alive (node.NewRows gives a
// kernel rows its members reference only weakly).
//
// An error that is not a Violation means the members are not a family
// (nothing was checked), or that BatchOptions.Perturb failed or a
// parameter could not be put back.
func CheckBatch(members []node.Node, opt BatchOptions) []error {
	c, err := newBatchCheck(members, opt)
	if err != nil {
		return []error{err}
	}
	c.run("")
	if len(c.errs) < maxBatchViolations {
		restore, err := c.perturb()
		if err != nil {
			return append(c.errs, err)
		}
		c.run(" after SetParams")
		if err := restore(); err != nil {
			c.errs = append(c.errs, err)
		}
	}
	if !c.full() {
		c.checkLifetime()
	}
	return c.errs
}

// maxBatchViolations bounds CheckBatch's report: a wrong kernel is wrong
// on most rows.
const maxBatchViolations = 20

// batchMethod is a kernel method CheckBatch checks.
type batchMethod int

const (
	mUpdate batchMethod = iota
	mOutputs
	mDerivs
)

func (m batchMethod) String() string { return [...]string{"Update", "Outputs", "Derivatives"}[m] }

// batchCheck is one run of CheckBatch.
type batchCheck struct {
	typ     string
	members []node.Node
	batch   node.Batch
	upd     node.BatchUpdater
	out     node.BatchOutputter
	der     node.BatchDeriver
	bound   node.BatchStepBounder
	// planner compiles the methods per call site (node.BatchPlanner);
	// planned is set while trial runs the calls through its plans.
	planner node.BatchPlanner
	planned bool
	spec    *node.Spec
	nx, ny  int
	nIn     []int  // components per input
	pairs   []bool // per input: the batch adds it as a pair (node.BatchPairAdder)
	// checksDst: the batch fails calls that write a non-finite value to
	// Dst (node.BatchDstChecker).
	checksDst bool
	nFields   []int // components per output field
	fOff      []int // offset of each output field in a row
	opt       BatchOptions
	rng       *rand.Rand
	badDt     int // bad steps drawn so far
	errs      []error
}

// sentinel marks values a kernel must not write: a NaN with a payload
// no arithmetic produces.
var sentinel = math.Float64frombits(0x7ff8_dead_beef_0001)

func isSentinel(v float64) bool { return math.Float64bits(v) == math.Float64bits(sentinel) }

func newBatchCheck(members []node.Node, opt BatchOptions) (*batchCheck, error) {
	if len(members) == 0 {
		return nil, errors.New("verification: CheckBatch: no members")
	}
	seed, ok := members[0].(node.Batcher)
	if !ok {
		return nil, fmt.Errorf("verification: CheckBatch: %T is not a node.Batcher", members[0])
	}
	s := members[0].Spec()
	key := seed.BatchKey()
	for i, m := range members {
		if reflect.TypeOf(m) != reflect.TypeOf(members[0]) {
			return nil, fmt.Errorf("verification: CheckBatch: member %d is a %T, member 0 a %T: not one family", i, m, members[0])
		}
		if k := m.(node.Batcher).BatchKey(); k != key {
			return nil, fmt.Errorf("verification: CheckBatch: member %d has BatchKey %q, member 0 %q: not one family", i, k, key)
		}
		if d := layoutDiff(s, m.Spec()); d != "" {
			return nil, Violation{Type: s.Type, Check: "batch", Msg: fmt.Sprintf("members 0 and %d have equal BatchKeys %q but different layouts: %s", i, key, d)}
		}
	}
	if opt.Trials <= 0 {
		opt.Trials = 8
	}
	c := &batchCheck{
		typ: s.Type, members: members, spec: s, opt: opt,
		nx: s.StateLayout.Size(), ny: s.OutputLayout.Size(),
		rng: rand.New(rand.NewPCG(opt.Seed, 0x6b65726e656c73)),
	}
	for _, in := range s.Inputs {
		c.nIn = append(c.nIn, in.Shape.Len())
	}
	for f := range s.OutputLayout.Len() {
		c.nFields = append(c.nFields, s.OutputLayout.Field(f).Shape.Len())
		c.fOff = append(c.fOff, s.OutputLayout.Offset(f))
	}
	var perr error
	func() {
		defer func() {
			if r := recover(); r != nil {
				perr = Violation{Type: c.typ, Check: "batch", Msg: fmt.Sprintf("NewBatch panicked: %v", r)}
			}
		}()
		c.batch = seed.NewBatch(members)
	}()
	if perr != nil {
		return nil, perr
	}
	if c.batch == nil {
		return nil, Violation{Type: c.typ, Check: "batch", Msg: "NewBatch returned nil"}
	}
	c.upd, _ = c.batch.(node.BatchUpdater)
	c.out, _ = c.batch.(node.BatchOutputter)
	c.der, _ = c.batch.(node.BatchDeriver)
	c.bound, _ = c.batch.(node.BatchStepBounder)
	c.planner, _ = c.batch.(node.BatchPlanner)
	if _, ok := members[0].(node.StepBounder); c.bound != nil && !ok {
		c.violation("the batch %T is a node.BatchStepBounder but the members are not node.StepBounders", c.batch)
		c.bound = nil
	}
	if pa, ok := c.batch.(node.BatchPairAdder); ok {
		c.pairs = make([]bool, len(c.nIn))
		copy(c.pairs, pa.PairInputs())
	}
	if dc, ok := c.batch.(node.BatchDstChecker); ok {
		c.checksDst = dc.ChecksDst()
	}
	if c.nx > 0 && c.upd == nil {
		c.violation("the members have state but the batch %T is not a node.BatchUpdater", c.batch)
	}
	if _, ok := members[0].(node.Outputter); ok && c.ny > 0 && c.out == nil {
		c.violation("the members have Outputs but the batch %T is not a node.BatchOutputter", c.batch)
	}
	if _, ok := members[0].(node.Deriver); ok && c.nx > 0 && c.der == nil {
		c.violation("the members have Derivatives but the batch %T is not a node.BatchDeriver", c.batch)
	}
	return c, nil
}

// layoutDiff describes how the layouts of two specs differ, or "".
func layoutDiff(a, b *node.Spec) string {
	for _, l := range [...]struct {
		name string
		a, b node.Layout
	}{{"state", a.StateLayout, b.StateLayout}, {"inputs", a.InputLayout, b.InputLayout}, {"outputs", a.OutputLayout, b.OutputLayout}} {
		if l.a.Len() != l.b.Len() || l.a.Size() != l.b.Size() {
			return fmt.Sprintf("%s %v against %v", l.name, l.a.Names(), l.b.Names())
		}
		for f := range l.a.Len() {
			if l.a.Offset(f) != l.b.Offset(f) || l.a.Field(f).Shape.Len() != l.b.Field(f).Shape.Len() {
				return fmt.Sprintf("%s field %d: %s against %s", l.name, f, l.a.Field(f).Name, l.b.Field(f).Name)
			}
		}
	}
	return ""
}

func (c *batchCheck) violation(format string, a ...any) {
	if len(c.errs) < maxBatchViolations {
		c.errs = append(c.errs, Violation{Type: c.typ, Check: "batch", Msg: fmt.Sprintf(format, a...)})
	}
}

func (c *batchCheck) full() bool { return len(c.errs) >= maxBatchViolations }

// run checks every method over Trials draws; when is appended to
// messages.
func (c *batchCheck) run(when string) {
	var methods []batchMethod
	if c.upd != nil {
		methods = append(methods, mUpdate)
	}
	if c.out != nil {
		methods = append(methods, mOutputs)
	}
	if c.der != nil && c.nx > 0 {
		methods = append(methods, mDerivs)
	}
	for trial := range c.opt.Trials {
		for _, m := range methods {
			if c.full() {
				return
			}
			c.trial(m, trial, when)
		}
		if c.bound != nil && !c.full() {
			c.boundTrial(trial, when)
		}
	}
}

// inputMode is how a draw lays out one input.
type inputMode int

const (
	inStrided   inputMode = iota // Buf over every row, stride ≥ n
	inBroadcast                  // one value for every row, stride 0
	inBlock                      // a per-call buffer of the call's rows only
)

// draw is one random case: values, layouts and the members' results.
type draw struct {
	t, dt   float64
	present []bool
	need    []bool

	xs, xBuf []float64 // state buffer and its copy
	x0, xStr int

	modes  []inputMode
	inBufs [][]float64 // per input: its buffer (inBlock: every row, packed)
	inOrig [][]float64
	in0    []int
	inStr  []int
	// in2Bufs has, per input passed as a pair (node.BatchPairAdder), the
	// second term laid out like inBufs; nil for other inputs. A member
	// reads the sum of the two terms.
	in2Bufs [][]float64
	in2Orig [][]float64

	dStr, yStr int // Dst and output row strides
	d0, y0     int // offsets of row 0

	// The members' results: per row, the error and the values.
	refErr []error
	ref    [][]float64 // len nx (Update, Derivatives) or ny (Outputs)
}

// value draws one state or input component.
func (c *batchCheck) value() float64 {
	r := c.rng.Float64()
	switch {
	case r < 0.6:
		return c.rng.NormFloat64()
	case r < 0.7:
		return 0
	case r < 0.8:
		return 1e-5 * c.rng.NormFloat64()
	case r < 0.9:
		return 1e3 * c.rng.NormFloat64()
	default:
		return float64(c.rng.IntN(5) - 2)
	}
}

func (c *batchCheck) newDraw(m batchMethod, trial int) *draw {
	n := len(c.members)
	d := &draw{t: 10 * c.rng.Float64(), dt: 1e-4 + 0.1*c.rng.Float64()}
	if m == mUpdate && trial%3 == 1 {
		// Every bad step in turn, across draws.
		d.dt = [...]float64{0, -0.01, math.NaN(), math.Inf(1), math.Inf(-1)}[c.badDt%5]
		c.badDt++
	}
	d.present = make([]bool, len(c.spec.Inputs))
	for k, in := range c.spec.Inputs {
		d.present[k] = !in.Absent || c.rng.IntN(3) > 0
	}
	if m == mOutputs && trial%2 == 1 {
		d.need = make([]bool, len(c.nFields))
		for f := range d.need {
			d.need[f] = c.rng.IntN(2) == 0
		}
	}
	// State: row i at x0 + i*xStr.
	d.x0, d.xStr = c.rng.IntN(4), c.nx+c.rng.IntN(3)
	d.xs = filled(d.x0 + n*d.xStr + 2)
	for i := range n {
		for k := range c.nx {
			d.xs[d.x0+i*d.xStr+k] = c.value()
		}
	}
	// Inputs.
	for k, nk := range c.nIn {
		mode := inputMode(c.rng.IntN(3))
		if !d.present[k] {
			mode = inBroadcast
		}
		d.modes = append(d.modes, mode)
		var buf []float64
		off, str := 0, 0
		switch mode {
		case inBroadcast:
			buf = make([]float64, nk)
			if d.present[k] {
				for j := range buf {
					buf[j] = c.value()
				}
			}
		default:
			off, str = c.rng.IntN(3), nk+c.rng.IntN(3)
			if mode == inBlock {
				off, str = 0, nk
			}
			buf = filled(off + n*str + 1)
			for i := range n {
				for j := range nk {
					buf[off+i*str+j] = c.value()
				}
			}
		}
		d.inBufs = append(d.inBufs, buf)
		d.in0 = append(d.in0, off)
		d.inStr = append(d.inStr, str)
		var buf2 []float64
		if c.pairs != nil && c.pairs[k] && mode != inBroadcast && c.rng.IntN(2) == 0 {
			buf2 = filled(len(buf))
			for i := range n {
				for j := range nk {
					buf2[off+i*str+j] = c.value()
				}
			}
		}
		d.in2Bufs = append(d.in2Bufs, buf2)
	}
	// One fault in every third draw: a NaN or ±Inf in one row's state or
	// per-row input.
	if trial%3 == 2 {
		i := c.rng.IntN(n)
		bad := [...]float64{math.NaN(), math.Inf(1), math.Inf(-1)}[c.rng.IntN(3)]
		var slots []*float64
		for k := range c.nx {
			slots = append(slots, &d.xs[d.x0+i*d.xStr+k])
		}
		for k, nk := range c.nIn {
			if d.modes[k] != inBroadcast {
				for j := range nk {
					slots = append(slots, &d.inBufs[k][d.in0[k]+i*d.inStr[k]+j])
					if d.in2Bufs[k] != nil {
						slots = append(slots, &d.in2Bufs[k][d.in0[k]+i*d.inStr[k]+j])
					}
				}
			}
		}
		if len(slots) > 0 {
			*slots[c.rng.IntN(len(slots))] = bad
		}
	}
	d.xBuf = append([]float64(nil), d.xs...)
	for _, b := range d.inBufs {
		d.inOrig = append(d.inOrig, append([]float64(nil), b...))
	}
	for _, b := range d.in2Bufs {
		d.in2Orig = append(d.in2Orig, append([]float64(nil), b...))
	}
	d.d0, d.dStr = c.rng.IntN(4), c.nx+c.rng.IntN(3)
	d.y0, d.yStr = c.rng.IntN(4), c.ny+c.rng.IntN(3)
	return d
}

// filled returns n sentinels.
func filled(n int) []float64 {
	b := make([]float64, n)
	for i := range b {
		b[i] = sentinel
	}
	return b
}

// rowInputs packs row i's inputs by InputLayout.
func (c *batchCheck) rowInputs(d *draw, i int) node.Inputs {
	u := make([]float64, c.spec.InputLayout.Size())
	for k, nk := range c.nIn {
		o := c.spec.InputLayout.Offset(k)
		src := d.in0[k] + i*d.inStr[k]
		copy(u[o:o+nk], d.inBufs[k][src:src+nk])
		if b := d.in2Bufs[k]; b != nil {
			// The sum the graph's per-node gather forms: the first term
			// copied, the second added.
			for j := range nk {
				u[o+j] += b[src+j]
			}
		}
	}
	return node.Inputs{Values: u, Present: d.present}
}

// reference runs every member's own method on its row.
func (c *batchCheck) reference(m batchMethod, d *draw) {
	n := len(c.members)
	d.refErr = make([]error, n)
	d.ref = make([][]float64, n)
	for i, mem := range c.members {
		x := append([]float64{}, d.xs[d.x0+i*d.xStr:d.x0+i*d.xStr+c.nx]...)
		in := c.rowInputs(d, i)
		var dst []float64
		d.refErr[i] = protect(func() error {
			switch m {
			case mUpdate:
				dst = make([]float64, c.nx)
				return mem.Update(d.t, d.dt, x, in, dst)
			case mOutputs:
				dst = make([]float64, c.ny)
				return mem.(node.Outputter).Outputs(d.t, x, in, dst)
			default:
				dst = make([]float64, c.nx)
				return mem.(node.Deriver).Derivatives(d.t, x, in, dst)
			}
		})
		var pe panicError
		if errors.As(d.refErr[i], &pe) {
			c.violation("member %d's own %s panicked: %v", i, m, pe.v)
		}
		d.ref[i] = dst
	}
}

// panicError is a recovered panic.
type panicError struct{ v any }

func (p panicError) Error() string { return fmt.Sprintf("panic: %v", p.v) }

func protect(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = panicError{r}
		}
	}()
	return f()
}

// trial draws one case for method m and checks every chunking.
func (c *batchCheck) trial(m batchMethod, trial int, when string) {
	d := c.newDraw(m, trial)
	c.reference(m, d)
	n := len(c.members)
	for _, blk := range []int{n, 1, 3, 7} {
		if c.full() {
			return
		}
		how := fmt.Sprintf("blocks of %d", blk)
		if blk == n {
			how = "one call"
		}
		c.chunking(m, d, fmt.Sprintf("trial %d%s, %s", trial, when, how), blk, 1)
	}
	// Concurrent calls only on a kernel that has passed so far: one that
	// writes outside its rows would race with the other goroutines.
	if len(c.errs) == 0 {
		c.chunking(m, d, fmt.Sprintf("trial %d%s, 3 goroutines, blocks of 5", trial, when), 5, 3)
	}
	if c.planner == nil {
		return
	}
	// The same calls compiled (node.BatchPlanner): each call planned on
	// its layout with other buffers, then run on the draw's.
	c.planned = true
	defer func() { c.planned = false }()
	for _, blk := range []int{n, 1, 3} {
		if c.full() {
			return
		}
		c.chunking(m, d, fmt.Sprintf("trial %d%s, compiled (Plan), blocks of %d", trial, when, blk), blk, 1)
	}
	if len(c.errs) == 0 {
		c.chunking(m, d, fmt.Sprintf("trial %d%s, compiled (Plan), 3 goroutines, blocks of 5", trial, when), 5, 3)
	}
}

// phases maps a checked method to node.BatchPlanner's name for it.
var phases = [...]node.BatchPhase{mUpdate: node.PhaseUpdate, mOutputs: node.PhaseOutputs, mDerivs: node.PhaseDerivatives}

// planOn compiles method m for the call whose arguments are a, as a
// graph compiles it (node.BatchPlanner): on a's layout, with every
// buffer replaced by another of the same length (views sharing a buffer
// share its replacement; Dst's is nil), so a plan that keeps a buffer
// instead of reading each call's writes or reads the wrong one. It
// returns the method itself when the batch compiles nothing for the
// call, and the error of a Plan that panics.
func (c *batchCheck) planOn(m batchMethod, a *node.BatchArgs) (func() error, error) {
	other := map[*float64][]float64{}
	swap := func(v node.Strided) node.Strided {
		if len(v.Buf) == 0 {
			return v
		}
		b, ok := other[&v.Buf[0]]
		if !ok || len(b) != len(v.Buf) {
			b = filled(len(v.Buf))
			other[&v.Buf[0]] = b
		}
		v.Buf = b
		return v
	}
	swapAll := func(vs []node.Strided) []node.Strided {
		if vs == nil {
			return nil
		}
		out := make([]node.Strided, len(vs))
		for i, v := range vs {
			out[i] = swap(v)
		}
		return out
	}
	pa := *a
	pa.X, pa.Dst = swap(a.X), node.Strided{Off: a.Dst.Off, Stride: a.Dst.Stride}
	pa.In, pa.In2, pa.Out = swapAll(a.In), swapAll(a.In2), swapAll(a.Out)
	var k node.BatchKernel
	if err := protect(func() error { k = c.planner.Plan(phases[m], &pa); return nil }); err != nil {
		return nil, err
	}
	if k == nil {
		return nil, nil
	}
	return func() error { return k(a) }, nil
}

// dstLayout returns the row layout of what a method writes: the offset
// of row 0, the row stride and the values per row.
func (c *batchCheck) dstLayout(m batchMethod, d *draw) (off, stride, width int) {
	if m == mOutputs {
		return d.y0, d.yStr, c.ny
	}
	return d.d0, d.dStr, c.nx
}

// chunking runs the kernel over every row in blocks of blk rows, split
// into parts contiguous ranges run by as many goroutines, and compares.
func (c *batchCheck) chunking(m batchMethod, d *draw, what string, blk, parts int) {
	n := len(c.members)
	off, stride, _ := c.dstLayout(m, d)
	buf := filled(off + n*stride + 8)
	type call struct {
		lo, hi int
		err    error
	}
	calls := make([][]call, parts)
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := n*p/parts, n*(p+1)/parts
		wg.Go(func() {
			for b := lo; b < hi; b += blk {
				e := min(b+blk, hi)
				err := c.call(m, d, buf, b, e)
				calls[p] = append(calls[p], call{b, e, err})
				if parts == 1 {
					// Alone, the next rows must still be untouched.
					for i := e; i < min(e+2, n); i++ {
						for k := range stride {
							if v := buf[off+i*stride+k]; !isSentinel(v) {
								c.violation("%s: %s rows [%d, %d) wrote row %d (component %d = %v), outside the call", what, m, b, e, i, k, v)
								return
							}
						}
					}
				}
			}
		})
	}
	wg.Wait()
	for _, cs := range calls {
		for _, cl := range cs {
			if c.full() {
				return
			}
			c.compare(m, d, what, buf, cl.lo, cl.hi, cl.err)
		}
	}
	// Padding before row 0 and after the last row.
	for j := range off {
		if !isSentinel(buf[j]) {
			c.violation("%s: %s wrote before row 0 (slot %d)", what, m, j-off)
		}
	}
	for j := off + n*stride; j < len(buf); j++ {
		if !isSentinel(buf[j]) {
			c.violation("%s: %s wrote after the last row (slot %d past it)", what, m, j-off-n*stride)
			break
		}
	}
	if !bitsEqual(d.xs, d.xBuf) {
		c.violation("%s: %s wrote into its state X", what, m)
		copy(d.xs, d.xBuf)
	}
	for k := range d.inBufs {
		if !bitsEqual(d.inBufs[k], d.inOrig[k]) {
			c.violation("%s: %s wrote into its input %s", what, m, c.spec.Inputs[k].Name)
			copy(d.inBufs[k], d.inOrig[k])
		}
	}
	for k := range d.in2Bufs {
		if d.in2Bufs[k] != nil && !bitsEqual(d.in2Bufs[k], d.in2Orig[k]) {
			c.violation("%s: %s wrote into the second term of its input %s", what, m, c.spec.Inputs[k].Name)
			copy(d.in2Bufs[k], d.in2Orig[k])
		}
	}
}

func bitsEqual(a, b []float64) bool {
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// args lays out draw d's state and inputs for a kernel call on rows
// [lo, hi), without Out and Dst.
func (c *batchCheck) args(d *draw, lo, hi int) *node.BatchArgs {
	a := &node.BatchArgs{T: d.t, Dt: d.dt, Lo: lo, Hi: hi, Present: d.present, Need: d.need}
	if c.nx > 0 {
		a.X = node.Strided{Buf: d.xs, Off: d.x0, Stride: d.xStr}
	}
	a.In = make([]node.Strided, len(c.nIn))
	for k, nk := range c.nIn {
		switch d.modes[k] {
		case inBroadcast:
			a.In[k] = node.Strided{Buf: d.inBufs[k]}
		case inStrided:
			a.In[k] = node.Strided{Buf: d.inBufs[k], Off: d.in0[k], Stride: d.inStr[k]}
		case inBlock:
			// A buffer holding only rows [lo, hi), as the graph's summed
			// inputs: row i at (i−lo)·n.
			blk := append([]float64(nil), d.inBufs[k][lo*nk:hi*nk]...)
			a.In[k] = node.Strided{Buf: blk, Off: -lo * nk, Stride: nk}
		}
	}
	if c.pairs != nil {
		a.In2 = make([]node.Strided, len(c.nIn))
		for k, nk := range c.nIn {
			b := d.in2Bufs[k]
			switch {
			case b == nil:
			case d.modes[k] == inBlock:
				blk := append([]float64(nil), b[lo*nk:hi*nk]...)
				a.In2[k] = node.Strided{Buf: blk, Off: -lo * nk, Stride: nk}
			default:
				a.In2[k] = node.Strided{Buf: b, Off: d.in0[k], Stride: d.inStr[k]}
			}
		}
	}
	return a
}

// call runs the kernel method m on rows [lo, hi), writing into buf;
// while planned, through the plan compiled for the call (planOn).
func (c *batchCheck) call(m batchMethod, d *draw, buf []float64, lo, hi int) error {
	a := c.args(d, lo, hi)
	var method func() error
	switch m {
	case mOutputs:
		a.Out = make([]node.Strided, len(c.nFields))
		for f := range c.nFields {
			a.Out[f] = node.Strided{Buf: buf, Off: d.y0 + c.fOff[f], Stride: d.yStr}
		}
		method = func() error { return c.out.Outputs(a) }
	case mDerivs:
		a.Dst = node.Strided{Buf: buf, Off: d.d0, Stride: d.dStr}
		method = func() error { return c.der.Derivatives(a) }
	default:
		if c.nx > 0 {
			a.Dst = node.Strided{Buf: buf, Off: d.d0, Stride: d.dStr}
		}
		method = func() error { return c.upd.Update(a) }
	}
	if c.planned {
		k, err := c.planOn(m, a)
		if err != nil {
			return err
		}
		if k != nil {
			method = k
		}
	}
	return protect(method)
}

// compare checks one call's error and, when neither it nor a member
// failed, its rows.
func (c *batchCheck) compare(m batchMethod, d *draw, what string, buf []float64, lo, hi int, err error) {
	var pe panicError
	if errors.As(err, &pe) {
		c.violation("%s: %s rows [%d, %d) panicked: %v", what, m, lo, hi, pe.v)
		return
	}
	first := -1
	for i := lo; i < hi; i++ {
		if d.refErr[i] != nil {
			first = i
			break
		}
	}
	switch {
	case err != nil && first < 0 && c.checksDst && m != mOutputs && c.refNonFinite(m, d, lo, hi):
		return // a node.BatchDstChecker fails a call whose rows write a non-finite value
	case err != nil && first < 0:
		c.violation("%s: %s rows [%d, %d) returned an error where no member's %s does: %v", what, m, lo, hi, m, err)
		return
	case err == nil && first >= 0:
		c.violation("%s: %s rows [%d, %d) returned no error where member %d's %s returns %v", what, m, lo, hi, first, m, d.refErr[first])
		return
	case err != nil:
		return // both failed: the kernel's rows are unspecified
	}
	off, stride, width := c.dstLayout(m, d)
	for i := lo; i < hi; i++ {
		row := buf[off+i*stride : off+(i+1)*stride]
		for k := width; k < stride; k++ {
			if !isSentinel(row[k]) {
				c.violation("%s: %s row %d: wrote the gap after its %d values (slot %d)", what, m, i, width, k)
				return
			}
		}
		if m != mOutputs {
			for k := range width {
				if math.Float64bits(row[k]) != math.Float64bits(d.ref[i][k]) {
					c.violation("%s: %s row %d, %s: kernel %v (%#016x), member %v (%#016x)", what, m, i,
						c.spec.StateLayout.Component(k), row[k], math.Float64bits(row[k]), d.ref[i][k], math.Float64bits(d.ref[i][k]))
					return
				}
			}
			continue
		}
		for f, nf := range c.nFields {
			needed := d.need == nil || d.need[f]
			for k := c.fOff[f]; k < c.fOff[f]+nf; k++ {
				got, want := math.Float64bits(row[k]), math.Float64bits(d.ref[i][k])
				if got == want || !needed && isSentinel(row[k]) {
					continue
				}
				how := "needed"
				if !needed {
					how = "not needed, so it may be left unwritten but not written wrong"
				}
				if needed && isSentinel(row[k]) {
					c.violation("%s: %s row %d, %s (%s): not written, member %v", what, m, i, c.spec.OutputLayout.Component(k), how, d.ref[i][k])
				} else {
					c.violation("%s: %s row %d, %s (%s): kernel %v (%#016x), member %v (%#016x)", what, m, i,
						c.spec.OutputLayout.Component(k), how, row[k], got, d.ref[i][k], want)
				}
				return
			}
		}
	}
	if m != mOutputs && c.checksDst && c.refNonFinite(m, d, lo, hi) {
		c.violation("%s: %s rows [%d, %d) wrote a non-finite value to Dst and returned no error, but the batch checks Dst (node.BatchDstChecker)", what, m, lo, hi)
		return
	}
	if m != mOutputs {
		c.pairsReach(m, d, what, buf, lo, hi)
	}
}

// refNonFinite reports whether a member writes a non-finite value to Dst
// on some row in [lo, hi) (Update, Derivatives).
func (c *batchCheck) refNonFinite(m batchMethod, d *draw, lo, hi int) bool {
	_, _, width := c.dstLayout(m, d)
	for i := lo; i < hi; i++ {
		for _, v := range d.ref[i][:width] {
			if isNonFinite(v) {
				return true
			}
		}
	}
	return false
}

// perturb overrides the members' parameters for the SetParams check and
// returns the function that puts them back.
func (c *batchCheck) perturb() (func() error, error) {
	if c.opt.Perturb != nil {
		for i, m := range c.members {
			if err := c.opt.Perturb(i, m); err != nil {
				return nil, fmt.Errorf("verification: CheckBatch: Perturb(%d): %w", i, err)
			}
		}
		return func() error { return nil }, nil
	}
	type change struct {
		t    node.Tunable
		orig map[string]any
	}
	var changes []change
	for i, m := range c.members {
		t, ok := node.As[node.Tunable](m)
		if !ok {
			continue
		}
		base := t.Params()
		ch := change{t: t, orig: map[string]any{}}
		for pi, p := range m.Spec().Params {
			if p.Kind == node.Function {
				continue
			}
			cands := perturbations(p, base[p.Name])
			// Each member tries the candidates from its own start, so
			// that the rows differ from each other too.
			for j := range cands {
				v := cands[(i+pi+j)%len(cands)]
				if t.SetParams(map[string]any{p.Name: v}) == nil {
					ch.orig[p.Name] = base[p.Name]
					break
				}
			}
		}
		changes = append(changes, ch)
	}
	return func() error {
		for i, ch := range changes {
			if len(ch.orig) == 0 {
				continue
			}
			if err := ch.t.SetParams(ch.orig); err != nil {
				return fmt.Errorf("verification: CheckBatch: restoring member %d's parameters: %w", i, err)
			}
		}
		return nil
	}, nil
}

// pairsReach checks node.BatchPairAdder's contract for a call that
// succeeded: a row whose pair input has a non-finite term must have a
// non-finite value in what the kernel wrote to Dst, since the graph does
// not check pairs where they are read.
func (c *batchCheck) pairsReach(m batchMethod, d *draw, what string, buf []float64, lo, hi int) {
	off, stride, width := c.dstLayout(m, d)
	for i := lo; i < hi; i++ {
		bad := ""
		for k, nk := range c.nIn {
			b := d.in2Bufs[k]
			if b == nil {
				continue
			}
			o := d.in0[k] + i*d.inStr[k]
			for j := range nk {
				if isNonFinite(d.inBufs[k][o+j]) || isNonFinite(b[o+j]) {
					bad = c.spec.Inputs[k].Name
				}
			}
		}
		if bad == "" {
			continue
		}
		reached := false
		for _, v := range buf[off+i*stride : off+i*stride+width] {
			reached = reached || isNonFinite(v)
		}
		if !reached {
			c.violation("%s: %s row %d: a non-finite term of the pair input %s reaches nothing the kernel writes to Dst and no error is returned (node.BatchPairAdder)", what, m, i, bad)
			return
		}
	}
}

func isNonFinite(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }
