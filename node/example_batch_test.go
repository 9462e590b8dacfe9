package node_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/source"
)

// bead is a node written for these examples: a one-dimensional mass m
// on a spring of stiffness k to the origin, pushed by the additive input
// force, stepped by semi-implicit Euler:
//
//	v⁺ = v + Δt·(F − k·x)/m,  x⁺ = x + Δt·v⁺.
//
// It has a batch kernel (node.Batcher) whose rows read the parameters
// from node.Rows, so they see every Set on a bead's node.Published
// parameters; the kernel adds the two terms of a force fed by two edges
// itself (node.BatchPairAdder), checks the states it writes
// (node.BatchDstChecker) and bounds the stable step of its rows
// (node.BatchStepBounder).
type bead struct {
	p node.Published[beadLaw]
}

// beadLaw is what the step reads: one function, beadLaw.step, serves
// Update and the kernel, so both compute the same bits.
type beadLaw struct{ m, k float64 }

func (l *beadLaw) step(dt, x, v, f float64) (float64, float64) {
	v += dt * (f - l.k*x) / l.m
	return x + dt*v, v
}

// stableDt is 2·√(m/k): semi-implicit Euler on the undamped oscillator is
// stable for ω·Δt < 2.
func (l *beadLaw) stableDt() float64 { return 2 * math.Sqrt(l.m/l.k) }

var beadSpec = node.NewSpec(node.Spec{
	Type: "bead",
	State: []node.Field{
		{Name: "x", Units: "m", Description: "position", Role: node.Position, Rate: "v"},
		{Name: "v", Units: "m/s", Description: "velocity", Role: node.Velocity},
	},
	Inputs: []node.Input{{Name: "force", Units: "N", Description: "force", Combine: node.Additive, Default: []float64{0}}},
})

func newBead(m, k float64) *bead {
	b := &bead{}
	b.p.Set(beadLaw{m: m, k: k})
	return b
}

func (b *bead) Spec() *node.Spec                                   { return beadSpec }
func (b *bead) InitialState(dst []float64)                         { dst[0], dst[1] = 1, 0 }
func (b *bead) BatchKey() string                                   { return "" }
func (b *bead) StableDtAt(float64, []float64, node.Inputs) float64 { return b.p.Get().stableDt() }
func (b *bead) StableStepAt(t float64, x []float64, in node.Inputs) node.StepLimit {
	return node.StepLimit{Dt: b.StableDtAt(t, x, in), Why: "2·√(m/k)"}
}

func (b *bead) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0], dst[1] = b.p.Get().step(dt, x[0], x[1], in.Values[0])
	return nil
}

func (b *bead) NewBatch(members []node.Node) node.Batch {
	return &beadBatch{laws: node.NewRows(members, func(n node.Node) *node.Published[beadLaw] { return &n.(*bead).p })}
}

// beadBatch is the kernel of a family of beads.
type beadBatch struct {
	laws *node.Rows[beadLaw]
}

// The examples count the kernel calls that took the force as a pair and
// the StableDt calls, to show that the graph used the capabilities.
var pairCalls, boundCalls, dstFails atomic.Int64

// Update steps rows [Lo, Hi). The force of row i is In[0] row i, plus
// In2[0] row i when the graph passes it as a pair: the first term plus
// the second, the sum the per-node path's gather forms.
func (b *beadBatch) Update(a *node.BatchArgs) error {
	pair := a.In2 != nil && a.In2[0].Buf != nil
	if pair {
		pairCalls.Add(1)
	}
	var acc float64 // node.BatchDstChecker: Σ v·0 over what is written
	for i := a.Lo; i < a.Hi; i++ {
		f := a.In[0].Row(i, 1)[0]
		if pair {
			f += a.In2[0].Row(i, 1)[0]
		}
		x, d := a.X.Row(i, 2), a.Dst.Row(i, 2)
		d[0], d[1] = b.laws.At(i).step(a.Dt, x[0], x[1], f)
		acc += d[0]*0 + d[1]*0
	}
	if acc != 0 {
		dstFails.Add(1)
		return fmt.Errorf("bead: a new state is not finite: %w", node.ErrNonFinite)
	}
	return nil
}

// ChecksDst: Update fails when a value it writes is not finite, so the
// graph need not read the new states back to check them.
func (b *beadBatch) ChecksDst() bool { return true }

// PairInputs: the kernel adds both terms of the force itself.
func (b *beadBatch) PairInputs() []bool { return []bool{true} }

// StableDt is the smallest of the rows' StableDtAt.
func (b *beadBatch) StableDt(a *node.BatchArgs) float64 {
	boundCalls.Add(1)
	best := math.Inf(1)
	for _, l := range b.laws.Span(a.Lo, a.Hi) {
		best = min(best, l.stableDt())
	}
	return best
}

// beadGraph is n beads of masses 1, 2, … kg on springs of 100 N/m, each
// pushed by sources sine sources.
func beadGraph(n, sources int) *graph.Graph {
	g := graph.New()
	for i := range n {
		name := fmt.Sprintf("b%d", i)
		g.Add(name, newBead(1+float64(i), 100))
		for k := range sources {
			src, err := source.NewSine(source.SineParams{Amplitude: []float64{float64(k + 1)}, Omega: []float64{3}, Units: "N"})
			if err != nil {
				panic(err)
			}
			s := fmt.Sprintf("f%d_%d", i, k)
			g.Add(s, src)
			g.Connect(s+".value", name+".force")
		}
	}
	return g
}

// A kernel that implements node.BatchPairAdder receives an additive
// input with exactly two edges (a body between two connectors, here a
// bead between two sources) as its two terms, BatchArgs.In and In2, and
// adds them itself, instead of the graph first summing them into
// scratch. The result is the per-node path's, bit for bit.
func ExampleBatchPairAdder() {
	run := func(batching bool) ([]float64, *graph.Sim) {
		s, err := beadGraph(3, 2).Build()
		if err != nil {
			panic(err)
		}
		s.SetBatching(batching)
		if _, err := s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Workers: 1}, Dt: 1e-3, Steps: 100}); err != nil {
			panic(err)
		}
		return s.State(nil), s
	}
	perNode, _ := run(false)
	pairCalls.Store(0)
	batched, _ := run(true)
	same := true
	for i := range perNode {
		same = same && math.Float64bits(perNode[i]) == math.Float64bits(batched[i])
	}
	// One call per step, and 12 more at the start: a co-simulation run
	// first checks its coupling's stability (Result.Stability), stepping
	// the graph once from each of the 6 states perturbed both ways.
	fmt.Println("kernel calls with the force as two terms:", pairCalls.Load())
	fmt.Println("bit-identical to the per-node path:", same)
	fmt.Printf("b0.x = %.6f\n", batched[0])
	// Output:
	// kernel calls with the force as two terms: 112
	// bit-identical to the per-node path: true
	// b0.x = 0.537511
}

// A kernel that implements node.BatchStepBounder answers, in one call,
// the smallest stable step of a family of node.StepBounder nodes, which
// a graph checks at the start of every run (Sim.StepWarnings); only when
// the step exceeds it are the rows asked one by one, for the warnings'
// messages.
func ExampleBatchStepBounder() {
	s, err := beadGraph(3, 0).Build()
	if err != nil {
		panic(err)
	}
	// The beads' masses are 1, 2 and 3 kg on springs of 100 N/m: their
	// stable steps are 2·√(m/100) = 0.2, 0.283 and 0.346 s.
	for _, dt := range []float64{0.1, 0.3} {
		boundCalls.Store(0)
		ws, err := s.StepWarnings(dt)
		if err != nil {
			panic(err)
		}
		fmt.Printf("dt = %v: %d kernel call, %d warnings\n", dt, boundCalls.Load(), len(ws))
		for _, w := range ws {
			fmt.Printf("  %s: stable below %.3f s\n", w.Node, w.Dt)
		}
	}
	// Output:
	// dt = 0.1: 1 kernel call, 0 warnings
	// dt = 0.3: 1 kernel call, 2 warnings
	//   b0: stable below 0.200 s
	//   b1: stable below 0.283 s
}

// A kernel that implements node.BatchDstChecker tests the values it
// writes to Dst itself, while they are in registers, and fails the call
// when one is not finite; the graph then skips its own pass over the new
// state. A failed call is replayed node by node, so the error still names
// the node, the component and the time.
func ExampleBatchDstChecker() {
	s, err := beadGraph(3, 0).Build()
	if err != nil {
		panic(err)
	}
	// b1 starts so far out that its spring force overflows: k·x = 100 ·
	// 1e307 is +Inf, so its new velocity is −Inf and so is its new
	// position, the first component the replay finds.
	x := s.State(nil)
	x[2] = 1e307
	if err := s.SetState(x, 0); err != nil {
		panic(err)
	}
	dstFails.Store(0)
	_, err = s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Workers: 1}, Dt: 1e-3, Steps: 10})
	// The kernel's own check fails the call (the run's start-of-run
	// stability analysis steps the graph too, so it may see more than one
	// failed call), and the graph replays the step node by node to name
	// the value.
	fmt.Println("a kernel call failed:", dstFails.Load() > 0)
	fmt.Println(errors.Is(err, node.ErrNonFinite))
	fmt.Println(err)
	// Output:
	// a kernel call failed: true
	// true
	// node b1.x: step 0 at t=0: value is not finite
}

// compiledBead is a bead whose kernel compiles its Update for each call
// site (node.BatchPlanner); compiledBeadBatch is that kernel.
type compiledBead struct{ *bead }

func (b compiledBead) NewBatch(members []node.Node) node.Batch {
	inner := make([]node.Node, len(members))
	for i, m := range members {
		inner[i] = m.(compiledBead).bead
	}
	return &compiledBeadBatch{beadBatch: b.bead.NewBatch(inner).(*beadBatch)}
}

type compiledBeadBatch struct{ *beadBatch }

var plans atomic.Int64

// Plan compiles Update when the force is one term (In2 carries no second
// one): the extent of each view's rows and the strides are taken once;
// each call slices its own buffers with them — the Sim swaps its state
// buffers between steps — and reads the laws from node.Rows, which
// SetParams keeps current. Any other call site gets nil, and the graph
// calls Update. The arithmetic is beadLaw.step's, so the bits are
// Update's.
func (b *compiledBeadBatch) Plan(ph node.BatchPhase, a *node.BatchArgs) node.BatchKernel {
	if ph != node.PhaseUpdate || a.Lo >= a.Hi || a.In2 != nil && a.In2[0].Buf != nil {
		return nil
	}
	plans.Add(1)
	lo, hi := a.Lo, a.Hi
	x0, x1 := a.X.Extent(lo, hi, 2)
	f0, f1 := a.In[0].Extent(lo, hi, 1)
	d0, d1 := a.Dst.Extent(lo, hi, 2)
	xs, fs, ds := a.X.Stride, a.In[0].Stride, a.Dst.Stride
	return func(a *node.BatchArgs) error {
		x, f, d := a.X.Buf[x0:x1], a.In[0].Buf[f0:f1], a.Dst.Buf[d0:d1]
		var acc float64
		for k := range hi - lo {
			xk, dk := x[k*xs:k*xs+2], d[k*ds:k*ds+2]
			dk[0], dk[1] = b.laws.At(lo+k).step(a.Dt, xk[0], xk[1], f[k*fs])
			acc += dk[0]*0 + dk[1]*0
		}
		if acc != 0 {
			return fmt.Errorf("bead: a new state is not finite: %w", node.ErrNonFinite)
		}
		return nil
	}
}

// A kernel that implements node.BatchPlanner compiles a method for each
// call site a graph repeats every step — the same rows, views and needs,
// only the time and the buffers changing — so a small family's call
// skips the kernel's own path selection and row checks. The graph calls
// Plan when it compiles its calls and then runs the returned kernel in
// place of the method, with the method's bits.
func ExampleBatchPlanner() {
	run := func(compiled bool) []float64 {
		g := graph.New()
		for i := range 3 {
			b := newBead(1+float64(i), 100)
			if compiled {
				g.Add(fmt.Sprintf("b%d", i), compiledBead{b})
			} else {
				g.Add(fmt.Sprintf("b%d", i), b)
			}
			src, err := source.NewSine(source.SineParams{Amplitude: []float64{1}, Omega: []float64{3}, Units: "N"})
			if err != nil {
				panic(err)
			}
			g.Add(fmt.Sprintf("f%d", i), src)
			g.Connect(fmt.Sprintf("f%d.value", i), fmt.Sprintf("b%d.force", i))
		}
		s, err := g.Build()
		if err != nil {
			panic(err)
		}
		if _, err := s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Workers: 1}, Dt: 1e-3, Steps: 100}); err != nil {
			panic(err)
		}
		return s.State(nil)
	}
	plain := run(false)
	plans.Store(0)
	compiled := run(true)
	same := true
	for i := range plain {
		same = same && math.Float64bits(plain[i]) == math.Float64bits(compiled[i])
	}
	fmt.Println("Update compiled:", plans.Load() > 0)
	fmt.Println("bit-identical to Update:", same)
	fmt.Printf("b0.x = %.6f\n", compiled[0])
	// Output:
	// Update compiled: true
	// bit-identical to Update: true
	// b0.x = 0.536565
}
