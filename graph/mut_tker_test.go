package graph_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/control"
)

// Mutation tests of graph/kernels.go: what one kernel call of the batched
// engine sums, checks and hands its kernel. Every test holds the batched
// engine to its reference, the per-node path (Sim.SetBatching(false),
// which runs every node's own Update, Outputs and Derivatives and checks
// every value it writes): the same state bit for bit and no step replayed
// per node (Replays 0) when every value is finite, and, when a node
// writes a NaN, the per-node path's error (node, field, step and time),
// since a failing batched step is replayed per node to name it
// (graph/doc.go, Finiteness). The nodes are written here so that a test
// lays out families, fields and strides as it needs.

// mutTkerSrc is a stateless source with two output fields a and b of n
// components each: a_k = c + k + t and b_k = c·t − k, and b = NaN from
// t = nanAt on when nanAt > 0 (a node that fails mid-run). Its batch
// also has a Derivatives method, which fails: a stateless family has no
// derivatives to compute, and the engine must not ask for them.
type mutTkerSrc struct {
	spec  *node.Spec
	c     float64
	nanAt float64
}

func mutTkerNewSrc(typ string, n int, c float64) *mutTkerSrc {
	return &mutTkerSrc{c: c, spec: node.NewSpec(node.Spec{
		Type: typ,
		Outputs: []node.Field{
			{Name: "a", Shape: mutTkerShape(n), Units: "1", Description: "c + k + t"},
			{Name: "b", Shape: mutTkerShape(n), Units: "1", Description: "c·t − k"},
		},
	})}
}

func (s *mutTkerSrc) Spec() *node.Spec     { return s.spec }
func (*mutTkerSrc) InitialState([]float64) {}
func (*mutTkerSrc) BatchKey() string       { return "" }
func (*mutTkerSrc) Update(float64, float64, []float64, node.Inputs, []float64) error {
	return nil
}

func (s *mutTkerSrc) a(t float64, k int) float64 { return s.c + float64(k) + t }
func (s *mutTkerSrc) b(t float64, k int) float64 {
	if s.nanAt > 0 && t >= s.nanAt {
		return math.NaN()
	}
	return s.c*t - float64(k)
}

func (s *mutTkerSrc) Outputs(t float64, _ []float64, _ node.Inputs, dst []float64) error {
	n := len(dst) / 2
	for k := range n {
		dst[k], dst[n+k] = s.a(t, k), s.b(t, k)
	}
	return nil
}

func (s *mutTkerSrc) NewBatch(members []node.Node) node.Batch {
	b := &mutTkerSrcBatch{}
	for _, m := range members {
		b.rows = append(b.rows, m.(*mutTkerSrc))
	}
	return b
}

type mutTkerSrcBatch struct{ rows []*mutTkerSrc }

func (b *mutTkerSrcBatch) Outputs(a *node.BatchArgs) error {
	n := b.rows[0].spec.Outputs[0].Shape.Len()
	for i := a.Lo; i < a.Hi; i++ {
		r := b.rows[i]
		for k := range n {
			if a.Needs(0) {
				a.Out[0].Buf[a.Out[0].Off+i*a.Out[0].Stride+k] = r.a(a.T, k)
			}
			if a.Needs(1) {
				a.Out[1].Buf[a.Out[1].Off+i*a.Out[1].Stride+k] = r.b(a.T, k)
			}
		}
	}
	return nil
}

func (*mutTkerSrcBatch) Derivatives(*node.BatchArgs) error {
	return errors.New("mutTkerSrc: Derivatives asked of a stateless family")
}

// mutTkerShape is the shape of n components: a scalar for n = 1.
func mutTkerShape(n int) node.Shape {
	if n == 1 {
		return node.Scalar
	}
	return node.Vec(n)
}

// mutTkerAcc is a stateful node with a state x of n components and an
// additive input u of n components: x_k⁺ = x_k + Δt·g(u_k) (Derivatives
// g(u_k)), where g(u) = u below 1e6 and 1e6 otherwise, so that a NaN u
// gives a finite state (the node reads its input through a comparison,
// as a saturation or a switch does): a NaN it is fed is reported only if
// the engine checks the input. From t = nanAt on (nanAt > 0) its new
// state is NaN instead. Its kernel reads the input by index,
// u_k = In.Buf[In.Off + i·In.Stride + k], the addressing node.Strided
// documents, so that a view whose Buf is too short fails the call.
type mutTkerAcc struct {
	spec  *node.Spec
	x0    float64
	nanAt float64
}

func mutTkerNewAcc(typ string, n int, x0 float64) *mutTkerAcc {
	return &mutTkerAcc{x0: x0, spec: node.NewSpec(node.Spec{
		Type:   typ,
		State:  []node.Field{{Name: "x", Shape: mutTkerShape(n), Units: "1", Description: "accumulated input"}},
		Inputs: []node.Input{{Name: "u", Shape: mutTkerShape(n), Units: "1", Description: "rate", Combine: node.Additive, Default: make([]float64, max(n, 1))}},
	})}
}

// mutTkerNewAccOut is mutTkerNewAcc with an output y = x (no
// feedthrough: the output is the state, at output level 0).
func mutTkerNewAccOut(typ string, n int, x0 float64) *mutTkerAcc {
	m := mutTkerNewAcc(typ, n, x0)
	sp := *m.spec
	sp.Outputs = []node.Field{{Name: "y", Shape: mutTkerShape(n), Units: "1", Description: "the state"}}
	m.spec = node.NewSpec(sp)
	return m
}

func (m *mutTkerAcc) Outputs(_ float64, x []float64, _ node.Inputs, dst []float64) error {
	copy(dst, x)
	return nil
}

func (m *mutTkerAcc) Spec() *node.Spec { return m.spec }
func (m *mutTkerAcc) InitialState(dst []float64) {
	for k := range dst {
		dst[k] = m.x0 + 0.5*float64(k)
	}
}
func (*mutTkerAcc) BatchKey() string { return "" }

func mutTkerG(u float64) float64 {
	if u < 1e6 {
		return u
	}
	return 1e6
}

func (m *mutTkerAcc) step(t, dt, x, u float64) float64 {
	if m.nanAt > 0 && t >= m.nanAt {
		return math.NaN()
	}
	return x + dt*mutTkerG(u)
}

func (m *mutTkerAcc) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	for k := range x {
		dst[k] = m.step(t, dt, x[k], in.Values[k])
	}
	return nil
}

func (m *mutTkerAcc) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	for k := range x {
		dst[k] = mutTkerG(in.Values[k])
	}
	return nil
}

func (m *mutTkerAcc) NewBatch(members []node.Node) node.Batch {
	b := &mutTkerAccBatch{}
	for _, r := range members {
		b.rows = append(b.rows, r.(*mutTkerAcc))
	}
	return b
}

type mutTkerAccBatch struct{ rows []*mutTkerAcc }

func (b *mutTkerAccBatch) Update(a *node.BatchArgs) error {
	n := b.rows[0].spec.State[0].Shape.Len()
	u := a.In[0]
	for i := a.Lo; i < a.Hi; i++ {
		x, d := a.X.Row(i, n), a.Dst.Row(i, n)
		for k := range n {
			d[k] = b.rows[i].step(a.T, a.Dt, x[k], u.Buf[u.Off+i*u.Stride+k])
		}
	}
	return nil
}

func (b *mutTkerAccBatch) Outputs(a *node.BatchArgs) error {
	n := b.rows[0].spec.State[0].Shape.Len()
	for i := a.Lo; i < a.Hi; i++ {
		copy(a.Out[0].Row(i, n), a.X.Row(i, n))
	}
	return nil
}

func (b *mutTkerAccBatch) Derivatives(a *node.BatchArgs) error {
	n := b.rows[0].spec.State[0].Shape.Len()
	u := a.In[0]
	for i := a.Lo; i < a.Hi; i++ {
		d := a.Dst.Row(i, n)
		for k := range n {
			d[k] = mutTkerG(u.Buf[u.Off+i*u.Stride+k])
		}
	}
	return nil
}

// mutTkerSink is a node with neither state nor outputs (a probe left
// wired): it has no batch, so it stays on the per-node path, which never
// evaluates it; the outputs it reads are checked at their source.
type mutTkerSink struct{ spec *node.Spec }

var mutTkerSinkSpec = node.NewSpec(node.Spec{
	Type:   "tkersink",
	Inputs: []node.Input{{Name: "u", Units: "1", Description: "probed value", Combine: node.Replacing}},
})

func (s *mutTkerSink) Spec() *node.Spec     { return mutTkerSinkSpec }
func (*mutTkerSink) InitialState([]float64) {}
func (*mutTkerSink) Update(float64, float64, []float64, node.Inputs, []float64) error {
	return nil
}

// mutTkerPair is a stateless node with an additive scalar input u whose
// kernel takes two terms as a pair (node.BatchPairAdder) and one output
// y. With feedthrough it is a switch, y = 1 when u > 0 and 0 otherwise
// (a NaN u gives 0); without, y = c and u is read by nobody.
type mutTkerPair struct {
	spec *node.Spec
	c    float64
}

func mutTkerNewPair(typ string, feedthrough bool, c float64) *mutTkerPair {
	return &mutTkerPair{c: c, spec: node.NewSpec(node.Spec{
		Type:        typ,
		Inputs:      []node.Input{{Name: "u", Units: "1", Description: "switched value", Combine: node.Additive, Default: []float64{0}}},
		Outputs:     []node.Field{{Name: "y", Units: "1", Description: "switch"}},
		Feedthrough: feedthrough,
	})}
}

func (p *mutTkerPair) Spec() *node.Spec     { return p.spec }
func (*mutTkerPair) InitialState([]float64) {}
func (*mutTkerPair) BatchKey() string       { return "" }
func (*mutTkerPair) Update(float64, float64, []float64, node.Inputs, []float64) error {
	return nil
}

func (p *mutTkerPair) y(u float64) float64 {
	if !p.spec.Feedthrough {
		return p.c
	}
	if u > 0 {
		return 1
	}
	return 0
}

func (p *mutTkerPair) Outputs(_ float64, _ []float64, in node.Inputs, dst []float64) error {
	dst[0] = p.y(in.Values[0])
	return nil
}

func (p *mutTkerPair) NewBatch(members []node.Node) node.Batch {
	b := &mutTkerPairBatch{}
	for _, r := range members {
		b.rows = append(b.rows, r.(*mutTkerPair))
	}
	return b
}

type mutTkerPairBatch struct{ rows []*mutTkerPair }

func (*mutTkerPairBatch) PairInputs() []bool { return []bool{true} }

// Outputs reads the input only with feedthrough: without, the outputs
// do not depend on it, and a node's Outputs then must not read it.
func (b *mutTkerPairBatch) Outputs(a *node.BatchArgs) error {
	for i := a.Lo; i < a.Hi; i++ {
		var u float64
		if b.rows[i].spec.Feedthrough {
			u = a.In[0].Row(i, 1)[0]
			if a.In2 != nil && a.In2[0].Buf != nil {
				u += a.In2[0].Row(i, 1)[0]
			}
		}
		a.Out[0].Row(i, 1)[0] = b.rows[i].y(u)
	}
	return nil
}

// mutTkerCase is one way of running a Sim.
type mutTkerCase struct {
	batching, fusion, windows bool
	workers                   int
	mono                      bool // RunMonolithic with RK4 instead of a co-simulation Run
}

func (c mutTkerCase) String() string {
	return fmt.Sprintf("batching %v, fusion %v, windows %v, %d workers, monolithic %v", c.batching, c.fusion, c.windows, c.workers, c.mono)
}

// mutTkerRun builds a Sim and runs it as c says, 12 steps of 0.1 s with
// Grain 1 (so that two workers split every phase), and returns its
// state, the run's error and the steps replayed per node.
func mutTkerRun(t *testing.T, build func() *graph.Graph, c mutTkerCase) ([]float64, error, int) {
	t.Helper()
	s, err := build().Build()
	if err != nil {
		t.Fatal(err)
	}
	s.SetBatching(c.batching)
	s.SetWindows(c.windows)
	s.SetFusion(c.fusion)
	set := graph.Settings{Mode: graph.CoSimulation{Workers: c.workers, Grain: 1}, Dt: 0.1, Steps: 12}
	if c.mono {
		rk4, err := integrators.ByName(integrators.MethodRK4)
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.RunMonolithic(context.Background(), rk4, nil, set)
		return s.State(nil), err, s.Replays()
	}
	_, err = s.Run(context.Background(), set)
	return s.State(nil), err, s.Replays()
}

// mutTkerCases are the batched ways of running: phased (fusion off) and
// fused with windows on and off, on one and two workers, co-simulated
// and monolithic.
func mutTkerCases() []mutTkerCase {
	var cs []mutTkerCase
	for _, mono := range []bool{false, true} {
		for _, workers := range []int{1, 2} {
			for _, fw := range [][2]bool{{false, false}, {true, false}, {true, true}} {
				cs = append(cs, mutTkerCase{batching: true, fusion: fw[0], windows: fw[1], workers: workers, mono: mono})
			}
		}
	}
	return cs
}

// mutTkerSame requires every batched case to give the per-node path's
// state bit for bit with no step replayed (every value of these graphs
// is finite, so a replay is a batched call that failed where it must
// not: a panic on a view, a check on a value that is not the one read).
func mutTkerSame(t *testing.T, build func() *graph.Graph) {
	t.Helper()
	for _, mono := range []bool{false, true} {
		want, err, _ := mutTkerRun(t, build, mutTkerCase{workers: 1, mono: mono})
		if err != nil {
			t.Fatalf("per-node path, monolithic %v: %v", mono, err)
		}
		for _, c := range mutTkerCases() {
			if c.mono != mono {
				continue
			}
			got, err, replays := mutTkerRun(t, build, c)
			if err != nil {
				t.Errorf("%v: %v", c, err)
				continue
			}
			if replays != 0 {
				t.Errorf("%v: %d steps replayed per node, want 0", c, replays)
			}
			for i := range want {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Errorf("%v: state[%d] = %v, per-node path %v", c, i, got[i], want[i])
					break
				}
			}
		}
	}
}

// mutTkerSameError requires every batched co-simulation case to fail
// with the per-node path's error, which must name wantNode.
func mutTkerSameError(t *testing.T, build func() *graph.Graph, wantNode string) {
	t.Helper()
	_, want, _ := mutTkerRun(t, build, mutTkerCase{workers: 1})
	var se *node.StateError
	if !errors.As(want, &se) || se.Node != wantNode || !errors.Is(want, node.ErrNonFinite) {
		t.Fatalf("per-node path: %v, want a non-finite value of %s", want, wantNode)
	}
	for _, c := range mutTkerCases() {
		if c.mono {
			continue
		}
		_, err, _ := mutTkerRun(t, build, c)
		if err == nil || err.Error() != want.Error() {
			t.Errorf("%v: %v, per-node path %v", c, err, want)
		}
	}
}

// mutTkerSums: 400 sources of two-component outputs and 200 accumulators
// whose input u adds two of them, a[2i] + a[2i+1]: an additive input of
// two terms that the engine sums into worker scratch (the kernel is no
// pair adder) with n = 2 components, over two blocks of sumBlock = 128
// rows (the second starting at row 128) and, with two workers, parts
// starting mid-family.
func mutTkerSums() *graph.Graph {
	g := graph.New()
	for i := range 400 {
		g.Add(fmt.Sprintf("p%d", i), mutTkerNewSrc("tkersrc", 2, 0.01*float64(i)))
	}
	for i := range 200 {
		g.Add(fmt.Sprintf("s%d", i), mutTkerNewAcc("tkeracc", 2, float64(i)))
		g.Connect(fmt.Sprintf("p%d.a", 2*i), fmt.Sprintf("s%d.u", i))
		g.Connect(fmt.Sprintf("p%d.a", 2*i+1), fmt.Sprintf("s%d.u", i))
	}
	return g
}

// A summed input is written block by block into the worker's scratch,
// row lo+k at k·n, and handed to the kernel as a view of that scratch
// with Off = −lo·n, a Buf of sumBlock·n values per input: the kernel
// reads row i at Buf[Off + i·n + k] (node.Strided) for every row of its
// call. The sums are the per-node gather's (first term copied, the second
// added), so the states are the per-node path's bit for bit, phased,
// fused (its calls compiled once, compileCall) and monolithic (RK4, whose
// derivatives evaluations run the same way); no call may fail, so no
// step is replayed. The sources' batch has a Derivatives that fails: the
// engine must never ask a stateless family for derivatives (its
// family.computes is false for them), or every monolithic evaluation
// would be replayed.
func TestMutTkerSummedInputs(t *testing.T) {
	s, err := mutTkerSums().Build()
	if err != nil {
		t.Fatal(err)
	}
	if fams := s.Families(); len(fams) != 2 || len(fams[0].Nodes) != 400 || len(fams[1].Nodes) != 200 {
		t.Fatalf("families %v, want the 400 sources and the 200 accumulators", len(fams))
	}
	if step, derivs := s.Fused(); !step || !derivs {
		t.Fatalf("fused step %v, derivatives %v, want both", step, derivs)
	}
	mutTkerSame(t, mutTkerSums)
}

// mutTkerProbed: 8 sources of scalar outputs a and b, the first nodes
// with outputs (so their rows start the output buffer and end it: no
// other node has outputs), each source's b read by a probe (mutTkerSink,
// left on the per-node path), and 3 accumulators fed by nothing (the
// stateful family a fused step needs). The probes' reads are checked at
// the source after each batched output call (family.needed: field b,
// component 1 of each 2-value row), since the per-node path's plain-copy
// gathers trust an output to be checked where it is written. With
// nanRow ≥ 0 source nanRow's b is NaN from t = 0.35 on (step 4).
func mutTkerProbed(nanRow int) func() *graph.Graph {
	return func() *graph.Graph {
		g := graph.New()
		for i := range 8 {
			p := mutTkerNewSrc("tkersrc", 1, 1+float64(i))
			if i == nanRow {
				p.nanAt = 0.35
			}
			g.Add(fmt.Sprintf("p%d", i), p)
		}
		for i := range 8 {
			g.Add(fmt.Sprintf("probe%d", i), &mutTkerSink{})
			g.Connect(fmt.Sprintf("p%d.b", i), fmt.Sprintf("probe%d.u", i))
		}
		for i := range 3 {
			g.Add(fmt.Sprintf("s%d", i), mutTkerNewAcc("tkeracc", 1, float64(i)))
		}
		return g
	}
}

// The check after a batched output call (checkRuns) reads, for every row
// of the call, the components the probes read: row i's b at
// y0 + i·ys + 1. Finite everywhere, no call may fail, on any path, so
// no step is replayed and the state is the per-node path's (the probes
// change nothing). With source 6's b NaN from step 4 on, the check must
// find it in row 6 of the call: the per-node path fails there with
// p6.b's *node.StateError (it checks every output it writes), and every
// batched run must replay that step and return the same error, fused
// (its compiled output calls check family.needed too) or not. A check
// that missed it would let the run end without an error: the probes
// are never evaluated and the accumulators read nothing.
func TestMutTkerProbedOutputsChecked(t *testing.T) {
	s, err := mutTkerProbed(-1)().Build()
	if err != nil {
		t.Fatal(err)
	}
	if step, derivs := s.Fused(); !step || !derivs {
		t.Fatalf("fused step %v, derivatives %v, want both", step, derivs)
	}
	mutTkerSame(t, mutTkerProbed(-1))
	mutTkerSameError(t, mutTkerProbed(6), "p6")
}

// mutTkerInterleaved: accumulators of two types added alternately, x0,
// y0, x1, y1, …: each type is one family whose rows' states are every
// other value of the state (stride 2, one value per row), so the check
// of what a kernel wrote walks the rows by stride. With nanRow ≥ 0,
// x<nanRow>'s new state is NaN from t = 0.35 on (step 4).
func mutTkerInterleaved(nanRow int) func() *graph.Graph {
	return func() *graph.Graph {
		g := graph.New()
		for i := range 6 {
			x := mutTkerNewAcc("tkeraccx", 1, float64(i))
			if i == nanRow {
				x.nanAt = 0.35
			}
			g.Add(fmt.Sprintf("x%d", i), x)
			g.Add(fmt.Sprintf("y%d", i), mutTkerNewAcc("tkeraccy", 1, -float64(i)))
		}
		return g
	}
}

// The new state a kernel writes is checked (checkRows) row by row when
// the rows are not contiguous: x3's NaN at step 4 must fail the batched
// step, which the per-node path then names as x3.x at step 4; a check
// that read no row would let the NaN stay in the state with no error
// (nothing else reads it). Finite, the batched states are the per-node
// path's with no step replayed.
func TestMutTkerStridedStateChecked(t *testing.T) {
	s, err := mutTkerInterleaved(-1)().Build()
	if err != nil {
		t.Fatal(err)
	}
	if fams := s.Families(); len(fams) != 2 || len(fams[0].Nodes) != 6 || len(fams[1].Nodes) != 6 {
		t.Fatalf("families %v, want x0..x5 and y0..y5", fams)
	}
	mutTkerSame(t, mutTkerInterleaved(-1))
	mutTkerSameError(t, mutTkerInterleaved(3), "x3")
}

// mutTkerSwitched: 8 sources; 4 switches (mutTkerPair with feedthrough,
// y = 1 when u > 0) whose input u adds the b of sources i and 4 + i, a
// pair their kernel adds itself (node.BatchPairAdder); 4 accumulators,
// each fed by one switch's y. The switches read outputs, so they form
// output level 1 and a step runs phase by phase. With nanRow ≥ 0 that
// source's b is NaN from t = 0.35 on (step 4).
func mutTkerSwitched(nanRow int) func() *graph.Graph {
	return func() *graph.Graph {
		g := graph.New()
		for i := range 8 {
			p := mutTkerNewSrc("tkersrc", 1, 1-0.3*float64(i))
			if i == nanRow {
				p.nanAt = 0.35
			}
			g.Add(fmt.Sprintf("p%d", i), p)
		}
		for i := range 4 {
			g.Add(fmt.Sprintf("w%d", i), mutTkerNewPair("tkerswitch", true, 0))
			g.Connect(fmt.Sprintf("p%d.b", i), fmt.Sprintf("w%d.u", i))
			g.Connect(fmt.Sprintf("p%d.b", 4+i), fmt.Sprintf("w%d.u", i))
			g.Add(fmt.Sprintf("s%d", i), mutTkerNewAcc("tkeracc", 1, float64(i)))
			g.Connect(fmt.Sprintf("w%d.y", i), fmt.Sprintf("s%d.u", i))
		}
		return g
	}
}

// An input a kernel adds as a pair is not summed by the engine, so it is
// checked as its two terms where an output evaluation reads them (its
// state, if any, would be checked after an update, which the pair
// reaches by the node.BatchPairAdder contract; a switch's output does
// not carry a NaN). Source 5's NaN b, read only by switch 1, must fail
// the batched step, which the per-node path then names as p5.b at step
// 4; without the check the switch outputs 0 and the run ends with no
// error. Finite, the states are the per-node path's, with no replay.
func TestMutTkerPairTermsChecked(t *testing.T) {
	s, err := mutTkerSwitched(-1)().Build()
	if err != nil {
		t.Fatal(err)
	}
	if step, _ := s.Fused(); step {
		t.Fatal("the step is fused; the switches' level 1 should prevent it")
	}
	mutTkerSame(t, mutTkerSwitched(-1))
	mutTkerSameError(t, mutTkerSwitched(5), "p5")
}

// mutTkerHeld: 8 sources; 4 holds (mutTkerPair without feedthrough:
// y = c, their input u read by nobody) whose u adds the b of sources i
// and 4 + i as a pair; 4 accumulators, accumulator i fed by hold i's y
// plus source 4 + i's a. Every node with outputs is at level 0.
func mutTkerHeld() *graph.Graph {
	g := graph.New()
	for i := range 8 {
		g.Add(fmt.Sprintf("p%d", i), mutTkerNewSrc("tkersrc", 1, 1-0.3*float64(i)))
	}
	for i := range 4 {
		g.Add(fmt.Sprintf("h%d", i), mutTkerNewPair("tkerhold", false, float64(i)))
		g.Connect(fmt.Sprintf("p%d.b", i), fmt.Sprintf("h%d.u", i))
		g.Connect(fmt.Sprintf("p%d.b", 4+i), fmt.Sprintf("h%d.u", i))
		g.Add(fmt.Sprintf("s%d", i), mutTkerNewAcc("tkeracc", 1, float64(i)))
		g.Connect(fmt.Sprintf("h%d.y", i), fmt.Sprintf("s%d.u", i))
		g.Connect(fmt.Sprintf("p%d.a", 4+i), fmt.Sprintf("s%d.u", i))
	}
	return g
}

// mutTkerRing: 300 integrators (nodes/control, with a batch kernel), each
// integrating the output of the one before it, the first the last's.
// An integrator's output is its state, so every one is at output level
// 0 while reading the output of another.
func mutTkerRing() *graph.Graph {
	const n = 300
	g := graph.New()
	for i := range n {
		in, err := control.NewIntegrator(control.IntegratorParams{Gain: []float64{-0.5}, Initial: []float64{math.Sin(float64(i))}})
		if err != nil {
			panic(err)
		}
		g.Add(fmt.Sprintf("i%d", i), in)
		g.Connect(fmt.Sprintf("i%d.out", (i+n-1)%n), fmt.Sprintf("i%d.in", i))
	}
	return g
}

// mutTkerSumRing: 200 accumulators with an output y = x, each adding
// the outputs of the two before it (a summed input of two terms, over
// two blocks of sumBlock rows): a stateful family at output level 0
// whose update reads a sum of outputs.
func mutTkerSumRing() *graph.Graph {
	const n = 200
	g := graph.New()
	for i := range n {
		g.Add(fmt.Sprintf("a%d", i), mutTkerNewAccOut("tkeraccout", 1, math.Cos(float64(i))))
	}
	for i := range n {
		g.Connect(fmt.Sprintf("a%d.y", (i+n-1)%n), fmt.Sprintf("a%d.u", i))
		g.Connect(fmt.Sprintf("a%d.y", (i+n-2)%n), fmt.Sprintf("a%d.u", i))
	}
	return g
}

// A family at output level 0 computes its outputs from its state alone
// (a node whose outputs read another's output is at a higher level), so
// its output calls leave the inputs it takes from outputs unread: those
// outputs are written in the same phase by the other calls, on other
// workers. Reading them there (to sum or check them) was a data race
// with two workers — a ring of integrators, or holds reading sources at
// level 0 — that go test -race reported in this test before block and
// compileCall skipped them; the inputs are read, summed and checked
// where the update or the derivatives read them (a ring of accumulators
// summing two outputs each: the update must sum them afresh). Every
// batched run, on
// one and two workers, phased and fused, co-simulated and monolithic,
// must give the per-node path's state bit for bit with no replay.
func TestMutTkerLevelZeroInputsUnread(t *testing.T) {
	for _, build := range []func() *graph.Graph{mutTkerRing, mutTkerHeld, mutTkerSumRing} {
		s, err := build().Build()
		if err != nil {
			t.Fatal(err)
		}
		if step, derivs := s.Fused(); !step || !derivs {
			t.Fatalf("fused step %v, derivatives %v, want both", step, derivs)
		}
		mutTkerSame(t, build)
	}
}
