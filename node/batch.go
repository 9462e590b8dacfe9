package node

// This file declares the batch capability: a node type whose instances a
// graph can step together, one call per (family, phase, row range),
// instead of one interface call per node. It is an optional capability
// like the others; a node without it is stepped one instance at a time
// through Update, Outputs and Derivatives, with the same results.

// Strided is a view of one field of every row of a family: component k
// of row i is Buf[Off+i*Stride+k]. Stride 0 broadcasts one value to every
// row (an unconnected input's default, a ground point). Off may be
// negative when Buf holds only a block of rows (scratch for rows
// [lo, hi) starts at row lo). A kernel reads or writes only the rows of
// its call. Stride is never negative, so a kernel may walk the rows of
// its call forwards by advancing a slice by Stride.
type Strided struct {
	Buf    []float64
	Off    int
	Stride int
}

// Row returns row i of the view, n components long.
func (s Strided) Row(i, n int) []float64 {
	o := s.Off + i*s.Stride
	return s.Buf[o : o+n : o+n]
}

// Span returns the values rows [lo, hi) of width n occupy in Buf (from
// the first value of row lo to the last of row hi−1), or nil when
// lo == hi; it panics when they do not fit in Buf. A kernel checks a
// call's rows once with Span and may then address row lo+k at
// unsafe.Add(unsafe.Pointer(&span[0]), 8·k·Stride) without per-row bounds
// checks.
func (s Strided) Span(lo, hi, n int) []float64 {
	if lo >= hi {
		return nil
	}
	return s.Buf[s.Off+lo*s.Stride : s.Off+(hi-1)*s.Stride+n]
}

// Extent returns the bounds in Buf of rows [lo, hi) of width n (lo < hi):
// Span is Buf[start:end]. A compiled kernel ([BatchPlanner]) takes them
// once and slices each call's buffer with them.
func (s Strided) Extent(lo, hi, n int) (start, end int) {
	return s.Off + lo*s.Stride, s.Off + (hi-1)*s.Stride + n
}

// Shift reports how far t is from s within the same buffer when both
// have the same stride — row i of t starts Shift values after row i of s
// — or −1 when they are not windows of one buffer at a fixed distance
// (or t lies before s). Kernels use it to read several fields of a row
// as one window.
func (s Strided) Shift(t Strided) int {
	if len(s.Buf) == 0 || len(s.Buf) != len(t.Buf) || &s.Buf[0] != &t.Buf[0] || s.Stride != t.Stride || t.Off < s.Off {
		return -1
	}
	return t.Off - s.Off
}

// BatchArgs is one kernel call: rows [Lo, Hi) of a family at time T.
//
// X is the state at T (len(State) components per row, laid out by
// Spec().StateLayout; unused by stateless nodes). Dst receives the new
// state (Update) or dx/dt (Derivatives), laid out likewise. Out has one
// view per output field, in Spec().Outputs order (Outputs): the graph
// places each field where its readers find it, so a kernel writes field
// f of row i at Out[f].Row(i, len). In has one view per input, in
// Spec().Inputs order; an unconnected input is its default broadcast (or
// zeros when Present is false). Present has one entry per input and is
// the same for every row of a family. Need has one entry per output
// field: an output whose entry is false is read by nobody in this call
// and need not be computed (its slots may be left stale); nil means every
// output is needed.
//
// In2 is nil unless the Batch is a BatchPairAdder: then it has one entry
// per input, and an input the kernel adds itself (see BatchPairAdder)
// that has exactly two connected terms arrives as its first term in In
// and its second in In2; every other input has its whole value in In and
// a zero Strided (nil Buf) in In2.
type BatchArgs struct {
	T, Dt   float64
	Lo, Hi  int
	X, Dst  Strided
	Out     []Strided
	In      []Strided
	In2     []Strided
	Present []bool
	Need    []bool
}

// Needs reports whether output field i is needed (see BatchArgs.Need).
func (a *BatchArgs) Needs(i int) bool { return a.Need == nil || a.Need[i] }

// Batcher is the capability of a node type whose instances can be
// stepped as a family. A graph groups, at Build, the nodes of one
// concrete type whose BatchKey is equal and whose wiring follows one
// pattern (every edge into row i comes from the same field of a source
// whose offset is affine in i), and calls NewBatch once per family.
//
// BatchKey names everything about a node that selects a kernel's code
// path or layout — not parameter values, which the batch holds per row.
// Two nodes with equal keys must have specs with equal layouts.
type Batcher interface {
	Node
	BatchKey() string
	// NewBatch returns the kernel of a family. members are nodes of the
	// receiver's concrete type with the receiver's key, in row order
	// (the receiver is members[0]). The batch reads the members'
	// parameters from [Rows] made by [NewRows] over each member's
	// [Published] parameters, so that it sees every later SetParams on
	// any member, and the members do not keep it alive.
	NewBatch(members []Node) Batch
}

// Batch is a family's kernel. It has no required method: what it
// computes is found by type assertion, as a node's optional capabilities
// are — [BatchUpdater] for stateful members, [BatchOutputter] for
// members with outputs, [BatchDeriver] for members that are [Deriver]s,
// and the optional [BatchStepBounder], [BatchPairAdder],
// [BatchDstChecker] and [BatchPlanner]. A graph steps a
// family through the kernel only when the kernel covers what the
// members need (an update for state, outputs for outputs); otherwise it
// steps the members one by one.
//
// Each method computes, for every row of the call, exactly what the
// member's own Update, Outputs or Derivatives computes — bit for bit,
// since a graph may run either path — and is safe for concurrent calls
// on disjoint row ranges. A kernel returns an error when any row fails;
// the graph then replays the step node by node to report the failing
// node exactly, so the error's wording is free. Kernels allocate nothing.
type Batch any

// BatchUpdater is the capability of a Batch whose members have state:
// Update advances rows [Lo, Hi) from X at T by Dt into Dst, as each
// member's Update does.
type BatchUpdater interface {
	Update(a *BatchArgs) error
}

// BatchPairAdder is the capability of a Batch that adds the two terms of
// an additive input itself, so that the graph passes them unsummed
// (BatchArgs.In and In2) instead of first writing their sum to scratch:
// the common case of a body between two connectors. PairInputs reports,
// per input in Spec().Inputs order, whether the kernel takes that input
// as a pair; it is called once, when the family is built.
//
// The kernel must compute exactly In[i] + In2[i] per component, the sum
// the per-node path forms (the first term copied, the second added), and
// a non-finite term must make the call fail: either the value reaches
// what the kernel writes to Dst, which the graph checks, or the kernel
// returns an error. The graph then does not check the pair where it is
// read.
type BatchPairAdder interface {
	PairInputs() []bool
}

// BatchDstChecker is the capability of a Batch whose Update and
// Derivatives check what they write: a call returns an error when any
// value it writes to Dst is NaN or ±Inf. The graph then skips its own
// pass over Dst after the call — on a small graph a measurable share of
// an evaluation, since the kernel tests values still in registers while
// the graph would read them back. ChecksDst is called once, when the
// family is built; false keeps the graph's check.
//
// The test must fail exactly when a written value is not finite. The
// graph's own is v·0 summed over the values, 0 exactly when every v is
// finite (each value multiplied by zero before adding, so that finite
// values whose sum overflows do not fail the call). Cheaper: add the
// values themselves, and when the total is not finite — a non-finite
// value, or finite values whose sum overflowed — test them again by the
// v·0 sum (nodes/masspoint does). As for any kernel error, the graph
// replays the step node by node to name the failing node and component.
type BatchDstChecker interface {
	ChecksDst() bool
}

// BatchPhase names a kernel method: what a [BatchPlanner] compiles.
type BatchPhase int

// The kernel methods a BatchPlanner may compile.
const (
	PhaseUpdate      BatchPhase = iota // BatchUpdater.Update
	PhaseOutputs                       // BatchOutputter.Outputs
	PhaseDerivatives                   // BatchDeriver.Derivatives
)

// BatchKernel is a kernel method compiled for one call site
// ([BatchPlanner]).
type BatchKernel func(a *BatchArgs) error

// BatchPlanner is the capability of a Batch whose kernel methods can be
// compiled once for a call site that a graph repeats every step: the
// same rows, views and needs, only the time and the buffers changing. On
// a small graph a kernel's own fixed cost per call — choosing its code
// path from the views (Needs, Shift), checking each view's rows (Span) —
// is a measurable share of an evaluation (a few nanoseconds against
// 3–4 ns per row); a plan does that work once.
//
// A graph calls Plan when it compiles a call (at Build, or when it
// splits a step for a run's workers), with a holding that call's Lo, Hi,
// Present, Need, and every view's Off and Stride. Between Plan and each
// call of the returned kernel only T, Dt and the views' Buf fields
// change: a Buf may become another buffer (a Sim swaps its state
// buffers between steps, and an integrator's stage vector is the state
// of a derivative call) at least as long as the views address, and views
// that share one buffer at Plan time (Strided.Shift ≥ 0) share one at
// every call. Dst's Buf may be nil at Plan time. So a plan may fix the
// code path, the strides, the distances between views and the extent of
// each view's rows, but must read each Buf (and check that it is long
// enough) at every call, and must read the parameters ([Rows]) at every
// call, since SetParams may change them between calls.
//
// The compiled kernel computes exactly what the method computes for the
// same arguments — bit for bit, failing where it fails — and is, like
// the method, safe for concurrent calls on disjoint rows. Plan returns
// nil for a phase or layout it does not compile: the graph then calls
// the method. Plan may allocate (the closure); the kernel it returns
// must not.
type BatchPlanner interface {
	Plan(ph BatchPhase, a *BatchArgs) BatchKernel
}

// BatchOutputter is the capability of a Batch whose nodes have outputs.
type BatchOutputter interface {
	Outputs(a *BatchArgs) error
}

// BatchDeriver is the capability of a Batch whose nodes have
// Derivatives: it writes dx/dt of rows [Lo, Hi) into Dst.
type BatchDeriver interface {
	Derivatives(a *BatchArgs) error
}

// BatchStepBounder is the capability of a Batch whose nodes are
// [StepBounder]s: StableDt returns the smallest StableDtAt of rows
// [Lo, Hi), each row's state in X and inputs in In as for Outputs (Out,
// Dst and Need are unused). A row whose bound is NaN states no bound and
// is left out, as a graph reads a NaN bound; StableDt returns +Inf when
// no row is left. The value must be exactly the smallest of the members'
// own StableDtAt, bit for bit.
//
// A graph checks a run's step against the stated limits at every start
// (graph.Sim.StepWarnings): with this capability that costs one kernel
// call per family instead of a call per node, and the nodes are asked
// one by one (StableStepAt, for the message) only when the family's
// bound is below the step.
type BatchStepBounder interface {
	StableDt(a *BatchArgs) float64
}
