package graph_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
)

// Fused steps over producer families laid out as a test likes
// (graph/fused.go). tfusProd is a stateless producer with a batch kernel:
// y = b + k·t (read by the consumers) and z = (−2·y − 1, y/4) (read by nobody:
// its kernel writes it all the same, field after field — every row's y,
// then every row's z — which BatchArgs allows). tfusCons is a stateful
// consumer, x⁺ = x + Δt·(u + 2w), u and w one term each. Producers of
// one batch key form one family; packed in node order, families added one
// after the other sit end to end in engine.packed, so a consumer family
// reading positions p0 + s·i crosses from one producer family into the
// next mid-way (a new dependence segment, not at its producer's row 0
// when s > 1). Families of different sizes split proportionally make a
// consumer row read a producer row another part owns, in every way.
//
// The kernel counts every row it computes (and the per-node Outputs
// every evaluation), and it can sleep before writing: a producer row
// that a consumer of a later part reads is written late, so a schedule
// that runs that consumer before the barrier reads last step's value,
// whatever the goroutines' timing (a few milliseconds, many steps).

// tfusWorld is what the nodes of one Sim share: counts per producer (in
// node order), the rows that sleep, a failing producer.
type tfusWorld struct {
	counts   []atomic.Int64
	slow     []bool
	sleep    time.Duration
	failRow  int // producer whose Outputs fails from failT on (−1: none)
	failT    float64
	sleeping atomic.Bool
}

var errTfusFail = errors.New("tfus producer failed")

type tfusProd struct {
	spec *node.Spec
	key  string
	idx  int // index among the producers, in node order
	k, b float64
	w    *tfusWorld
}

func tfusNewProd(w *tfusWorld, key string, idx int) *tfusProd {
	return &tfusProd{key: key, idx: idx, w: w, k: 1 + 0.125*float64(idx), b: 0.5 * float64(idx%7), spec: node.NewSpec(node.Spec{
		Type: "tfusprod",
		Outputs: []node.Field{
			{Name: "y", Units: "m/s", Description: "b + k·t"},
			{Name: "z", Shape: node.Vec(2), Units: "m/s", Description: "(−2·y − 1, y/4), read by nobody"},
		},
	})}
}

func (n *tfusProd) Spec() *node.Spec         { return n.spec }
func (n *tfusProd) InitialState(_ []float64) {}
func (n *tfusProd) BatchKey() string         { return n.key }
func (n *tfusProd) Update(_, _ float64, _ []float64, _ node.Inputs, _ []float64) error {
	return nil
}
func (n *tfusProd) y(t float64) float64 { return n.b + n.k*t }
func (n *tfusProd) fails(t float64) bool {
	return n.idx == n.w.failRow && t >= n.w.failT
}
func (n *tfusProd) Outputs(t float64, _ []float64, _ node.Inputs, dst []float64) error {
	n.w.counts[n.idx].Add(1)
	if n.fails(t) {
		return errTfusFail
	}
	y := n.y(t)
	dst[0], dst[1], dst[2] = y, -2*y-1, y/4
	return nil
}

func (n *tfusProd) NewBatch(members []node.Node) node.Batch {
	b := tfusProdBatch{rows: make([]*tfusProd, len(members))}
	for i, m := range members {
		b.rows[i] = m.(*tfusProd)
	}
	return b
}

type tfusProdBatch struct{ rows []*tfusProd }

func (b tfusProdBatch) Outputs(a *node.BatchArgs) error {
	rows := b.rows[a.Lo:a.Hi]
	if w := rows[0].w; w.sleeping.Load() {
		for _, r := range rows {
			if w.slow[r.idx] {
				time.Sleep(w.sleep)
				break
			}
		}
	}
	for i, r := range rows {
		r.w.counts[r.idx].Add(1)
		if r.fails(a.T) {
			return errTfusFail
		}
		if a.Needs(0) {
			a.Out[0].Row(a.Lo+i, 1)[0] = r.y(a.T)
		}
	}
	for i, r := range rows {
		y, z := r.y(a.T), a.Out[1].Row(a.Lo+i, 2)
		z[0], z[1] = -2*y-1, y/4
	}
	return nil
}

type tfusCons struct{ spec *node.Spec }

func tfusNewCons() *tfusCons {
	return &tfusCons{spec: node.NewSpec(node.Spec{
		Type:  "tfuscons",
		State: []node.Field{{Name: "x", Units: "m", Description: "position"}},
		Inputs: []node.Input{
			{Name: "u", Units: "m/s", Description: "rate", Combine: node.Additive, Default: []float64{0}},
			{Name: "w", Units: "m/s", Description: "half rate", Combine: node.Additive, Default: []float64{0}},
		},
	})}
}

func (n *tfusCons) Spec() *node.Spec           { return n.spec }
func (n *tfusCons) InitialState(dst []float64) { dst[0] = 0.25 }
func (n *tfusCons) BatchKey() string           { return "" }
func (n *tfusCons) Update(_, dt float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = x[0] + dt*(in.Values[0]+2*in.Values[1])
	return nil
}
func (n *tfusCons) NewBatch([]node.Node) node.Batch { return tfusConsBatch{} }

type tfusConsBatch struct{}

func (tfusConsBatch) Update(a *node.BatchArgs) error {
	for i := a.Lo; i < a.Hi; i++ {
		a.Dst.Row(i, 1)[0] = a.X.Row(i, 1)[0] + a.Dt*(a.In[0].Row(i, 1)[0]+2*a.In[1].Row(i, 1)[0])
	}
	return nil
}

// tfusLayout is a fused graph: producer families of sizes fams (keys
// f0, f1, ..., added one after the other: producer p is the p-th added),
// then nc consumers; consumer i's u reads producer u0 + us·i, and, when
// ws > 0, its w reads producer w0 + ws·i.
type tfusLayout struct {
	name       string
	fams       []int
	nc         int
	u0, us     int
	w0, ws     int
	failRow    int
	failT      float64
	sleepParts int // the part count whose cross-part reads sleep (0: none)
}

func (l tfusLayout) producers() int {
	n := 0
	for _, f := range l.fams {
		n += f
	}
	return n
}

// famRow returns producer p's family and row.
func (l tfusLayout) famRow(p int) (int, int) {
	for k, f := range l.fams {
		if p < f {
			return k, p
		}
		p -= f
	}
	panic("no such producer")
}

// slowRows marks the producer rows that a consumer row of a later part
// reads, when the step is split n ways proportionally (fused.go: part w
// owns rows [len·w/n, len·(w+1)/n) of every family).
func (l tfusLayout) slowRows(n int) []bool {
	slow := make([]bool, l.producers())
	part := func(i, rows int) int {
		for w := range n {
			if i < rows*(w+1)/n {
				return w
			}
		}
		return n - 1
	}
	for i := range l.nc {
		reads := []int{l.u0 + l.us*i}
		if l.ws > 0 {
			reads = append(reads, l.w0+l.ws*i)
		}
		for _, p := range reads {
			k, r := l.famRow(p)
			if part(r, l.fams[k]) < part(i, l.nc) {
				slow[p] = true
			}
		}
	}
	return slow
}

func (l tfusLayout) build(w *tfusWorld) (*graph.Sim, error) {
	g := graph.New()
	p := 0
	for k, size := range l.fams {
		for range size {
			g.Add(fmt.Sprintf("p%d", p), tfusNewProd(w, fmt.Sprintf("f%d", k), p))
			p++
		}
	}
	for i := range l.nc {
		name := fmt.Sprintf("c%d", i)
		g.Add(name, tfusNewCons())
		g.Connect(fmt.Sprintf("p%d.y", l.u0+l.us*i), name+".u")
		if l.ws > 0 {
			g.Connect(fmt.Sprintf("p%d.y", l.w0+l.ws*i), name+".w")
		}
	}
	return g.Build()
}

type tfusRun struct {
	state  []float64
	counts []int64
	err    error
}

// run builds l and runs steps steps of 0.125 s: per node (batching
// false) or batched, fused, with windows on or off, split among workers
// with Grain 1.
func (l tfusLayout) run(t *testing.T, batching, windows bool, workers, steps int) tfusRun {
	t.Helper()
	w := &tfusWorld{counts: make([]atomic.Int64, l.producers()), failRow: -1, sleep: 3 * time.Millisecond}
	if l.failT > 0 {
		w.failRow, w.failT = l.failRow, l.failT
	}
	w.slow = make([]bool, l.producers())
	if batching && !windows && workers == l.sleepParts {
		w.slow = l.slowRows(workers)
		w.sleeping.Store(true)
	}
	s, err := l.build(w)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(s.Families()); got != len(l.fams)+1 {
		t.Fatalf("%s: %d families, want %d: %v", l.name, got, len(l.fams)+1, s.Families())
	}
	s.SetBatching(batching)
	s.SetWindows(windows)
	if batching {
		if step, _ := s.Fused(); !step {
			t.Fatalf("%s: the step is not fused", l.name)
		}
		if ws, _ := s.Windowed(); ws != windows {
			t.Fatalf("%s: windowed %v, want %v", l.name, ws, windows)
		}
	}
	_, err = s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Workers: workers, Grain: 1}, Dt: 0.125, Steps: steps})
	if batching && err == nil && s.Replays() != 0 {
		t.Errorf("%s, windows %v, %d workers: %d steps replayed per node", l.name, windows, workers, s.Replays())
	}
	r := tfusRun{state: s.State(nil), err: err, counts: make([]int64, l.producers())}
	for p := range r.counts {
		r.counts[p] = w.counts[p].Load()
	}
	return r
}

// tfusLayouts are the graphs the tests step. Under each, what a split in
// two makes of it (consumers C, producer families A, B).
var tfusLayouts = []tfusLayout{
	// One family A of 16 rows, C of 8 reading A0..A7: part 1's consumers
	// C4..C7 all read rows of part 0 (A0..A7), so they run after the
	// barrier; A8..A15 nobody reads (part 1 computes them, alone).
	{name: "lower half", fams: []int{16}, nc: 8, u0: 0, us: 1, sleepParts: 2},
	// A (4 rows) then B (10), C of 8 reading them in turn: C4 starts a
	// segment at B0 (part 0's), C0..C1 read part 0's A rows, C2..C3
	// part 1's A2, A3 (part 0 may not compute them).
	{name: "segment start", fams: []int{4, 10}, nc: 8, u0: 0, us: 1, sleepParts: 2},
	// C of 4 reading A2..A5 of A (6 rows): C1 reads A3, part 1's first
	// row.
	{name: "boundary row", fams: []int{6}, nc: 4, u0: 2, us: 1, sleepParts: 2},
	// u reads B2..B5 all along; w goes with stride 2 across A (2 rows)
	// into B (8): C0 reads A1, C1..C3 read B1, B3, B5, a segment
	// starting at C1 with the map 2i − 1.
	{name: "stride two", fams: []int{2, 8}, nc: 4, u0: 4, us: 1, w0: 1, ws: 2, sleepParts: 2},
	// u reads B2..B5 all along; w crosses from A (2 rows) into B (6) at
	// C2, so the block C0..C1 reads B through u only, and its window
	// holds B2..B3.
	{name: "two terms", fams: []int{2, 6}, nc: 4, u0: 4, us: 1, w0: 0, ws: 1, sleepParts: 2},
	// Sizes past a block (128 rows): u crosses from A (50 rows, read from
	// A10 on) into B (400) at C40, w reads B10..B309; blocks are cut at
	// 128 rows and at C40, windows slide and restart.
	{name: "long", fams: []int{50, 400}, nc: 300, u0: 10, us: 1, w0: 60, ws: 1, sleepParts: 2},
}

// A fused step computes exactly the rows the phased step computes, from
// the same values (graph/fused.go), so with every layout, windows on or
// off and 1 to 4 parts (Grain 1), the consumers' states after the steps
// must be the per-node path's bits, no step replayed per node. Without
// windows every producer row is computed exactly as often as on the
// per-node path (once per step: a part computes only its own rows, and a
// consumer row reading another part's row waits for the barrier); in
// windows at least as often (boundary rows may be computed twice; rows
// nobody reads are still computed, by their owner, so that their errors
// fail the step). A schedule that runs a consumer row before the barrier
// reading another part's producer row reads, with the sleeping rows, the
// value of the step before: other bits.
func TestMutTfusFusedLayouts(t *testing.T) {
	const steps = 6
	for _, l := range tfusLayouts {
		t.Run(l.name, func(t *testing.T) {
			ref := l.run(t, false, false, 1, steps)
			if ref.err != nil {
				t.Fatal(ref.err)
			}
			for _, windows := range []bool{false, true} {
				for _, workers := range []int{1, 2, 3, 4} {
					got := l.run(t, true, windows, workers, steps)
					if got.err != nil {
						t.Fatalf("windows %v, %d workers: %v", windows, workers, got.err)
					}
					if i, same := kernelFirstDiff(ref.state, got.state); !same {
						t.Errorf("windows %v, %d workers: state[%d] = %v, per-node path %v", windows, workers, i, got.state[i], ref.state[i])
					}
					for p, c := range got.counts {
						if c < ref.counts[p] || !windows && c != ref.counts[p] {
							t.Errorf("windows %v, %d workers: producer %d computed %d times, per-node path %d", windows, workers, p, c, ref.counts[p])
							break
						}
					}
				}
			}
		})
	}
}

// A producer row nobody reads still fails the step when its Outputs
// fails, as on the per-node path (graph/fused.go: the part owning such
// rows computes them): with A16 of "lower half", whose rows A8..A15
// nobody reads, A12 failing from t = 0.5 on, every batched run — windows
// on and off, 1 to 3 parts — must end with the per-node path's error.
func TestMutTfusUnreadRowFails(t *testing.T) {
	l := tfusLayouts[0]
	l.failRow, l.failT = 12, 0.5
	want := l.run(t, false, false, 1, 8).err
	var se *node.StateError
	if !errors.As(want, &se) || !errors.Is(want, errTfusFail) {
		t.Fatalf("per-node path: %v, want a *node.StateError wrapping the producer's error", want)
	}
	for _, windows := range []bool{false, true} {
		for _, workers := range []int{1, 2, 3} {
			got := l.run(t, true, windows, workers, 8).err
			if got == nil || got.Error() != want.Error() {
				t.Errorf("windows %v, %d workers: %v, want %v", windows, workers, got, want)
			}
		}
	}
}
