package graph_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/node"
)

// Tests of the batched engine (engine.go): which path a step takes, how
// a phase is split among workers, and what each part of a job computes.
//
// mutTengNode is the node these tests build graphs of. Three kinds:
// stateful (state x, output y = x, additive input u, x⁺ = x + Δt·(u −
// c·x), dx/dt = u − c·x), feedthrough (stateless, y = 2u) and source
// (stateless, not feedthrough, y = c). A *mutTengNode is not a
// node.Batcher, so it is a loose node; a *mutTengBatched wraps one and
// adds a batch kernel that computes the same expressions row by row
// (bit for bit, the node.Batch contract), so nodes of one key form a
// family. Probes and a call log watch what runs.
type mutTengNode struct {
	spec   *node.Spec
	kind   mutTengKind
	key    string
	x0, c  float64
	noDer  bool    // the batch has no Derivatives (node.BatchDeriver)
	failAt float64 // > 0: Update fails from t ≥ failAt

	// Watched calls (nil: none): upd and out of the family's kernel
	// (Update; Outputs), pnUpd and pnOut of the node's own methods.
	upd, out, pnUpd, pnOut *mutTengProbe
	log                    *mutTengLog   // kernel calls (nil: none)
	outCalls, derCalls     *atomic.Int64 // the node's own Outputs and Derivatives calls (nil: not counted)
}

type mutTengKind int

const (
	mutTengState mutTengKind = iota
	mutTengFeed
	mutTengSource
)

func mutTengMake(typ string, kind mutTengKind, x0, c float64) *mutTengNode {
	s := node.Spec{
		Type:    typ,
		Inputs:  []node.Input{{Name: "u", Units: "m/s", Description: "rate", Combine: node.Additive, Default: []float64{0}}},
		Outputs: []node.Field{{Name: "y", Units: "m/s", Description: "the value passed on"}},
	}
	switch kind {
	case mutTengState:
		s.State = []node.Field{{Name: "x", Units: "m/s", Description: "the state"}}
	case mutTengFeed:
		s.Feedthrough = true
	}
	return &mutTengNode{spec: node.NewSpec(s), kind: kind, key: typ, x0: x0, c: c}
}

func (n *mutTengNode) Spec() *node.Spec { return n.spec }
func (n *mutTengNode) InitialState(dst []float64) {
	if n.kind == mutTengState {
		dst[0] = n.x0
	}
}

// next, y and deriv are what both paths compute.
func (n *mutTengNode) next(t, dt, x, u float64) (float64, error) {
	if n.failAt > 0 && t >= n.failAt {
		return 0, errors.New("mutteng: failing on purpose")
	}
	return x + dt*(u-n.c*x), nil
}

func (n *mutTengNode) y(x, u float64) float64 {
	switch n.kind {
	case mutTengState:
		return x
	case mutTengFeed:
		return 2 * u
	}
	return n.c
}

func (n *mutTengNode) deriv(x, u float64) float64 { return u - n.c*x }

func (n *mutTengNode) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	if n.kind != mutTengState {
		return nil
	}
	n.pnUpd.enter()
	defer n.pnUpd.leave()
	v, err := n.next(t, dt, x[0], in.Values[0])
	if err != nil {
		return err
	}
	dst[0] = v
	return nil
}

func (n *mutTengNode) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	n.pnOut.enter()
	defer n.pnOut.leave()
	if n.outCalls != nil {
		n.outCalls.Add(1)
	}
	var xv float64
	if n.kind == mutTengState {
		xv = x[0]
	}
	dst[0] = n.y(xv, in.Values[0])
	return nil
}

func (n *mutTengNode) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	if n.derCalls != nil {
		n.derCalls.Add(1)
	}
	if n.kind == mutTengState {
		dst[0] = n.deriv(x[0], in.Values[0])
	}
	return nil
}

// mutTengBatched is a mutTengNode with a batch kernel.
type mutTengBatched struct{ *mutTengNode }

func (b *mutTengBatched) BatchKey() string { return b.key }
func (b *mutTengBatched) NewBatch(members []node.Node) node.Batch {
	k := &mutTengBatch{}
	for _, m := range members {
		k.rows = append(k.rows, m.(*mutTengBatched).mutTengNode)
	}
	k.head = k.rows[0]
	if k.head.noDer {
		return &mutTengBatchNoDer{k}
	}
	return k
}

type mutTengBatch struct {
	rows []*mutTengNode
	head *mutTengNode // probes, log and kind of the family
}

func (b *mutTengBatch) Update(a *node.BatchArgs) error {
	b.head.log.add("update", a.Lo, a.Hi)
	b.head.upd.enter()
	defer b.head.upd.leave()
	for i := a.Lo; i < a.Hi; i++ {
		v, err := b.rows[i].next(a.T, a.Dt, a.X.Row(i, 1)[0], a.In[0].Row(i, 1)[0])
		if err != nil {
			return err
		}
		a.Dst.Row(i, 1)[0] = v
	}
	return nil
}

func (b *mutTengBatch) Outputs(a *node.BatchArgs) error {
	b.head.log.add("outputs", a.Lo, a.Hi)
	b.head.out.enter()
	defer b.head.out.leave()
	if !a.Needs(0) {
		return nil
	}
	for i := a.Lo; i < a.Hi; i++ {
		var x, u float64
		switch b.head.kind {
		case mutTengState:
			x = a.X.Row(i, 1)[0]
		case mutTengFeed:
			u = a.In[0].Row(i, 1)[0]
		}
		a.Out[0].Row(i, 1)[0] = b.rows[i].y(x, u)
	}
	return nil
}

func (b *mutTengBatch) Derivatives(a *node.BatchArgs) error {
	b.head.log.add("derivs", a.Lo, a.Hi)
	for i := a.Lo; i < a.Hi; i++ {
		a.Dst.Row(i, 1)[0] = b.rows[i].deriv(a.X.Row(i, 1)[0], a.In[0].Row(i, 1)[0])
	}
	return nil
}

// mutTengBatchNoDer is a kernel without Derivatives: its family's
// derivatives are evaluated node by node (System.looseDerivs).
type mutTengBatchNoDer struct{ b *mutTengBatch }

func (k *mutTengBatchNoDer) Update(a *node.BatchArgs) error  { return k.b.Update(a) }
func (k *mutTengBatchNoDer) Outputs(a *node.BatchArgs) error { return k.b.Outputs(a) }

// mutTengProbe watches calls of one kind for overlap in time: two calls
// in flight at once, which happens only when a phase is split among
// goroutines. A call that finds itself alone waits, within a total
// budget, for another one to start, so that a split phase shows its
// overlap whatever the scheduling: the part the caller runs holds its
// goroutine while the other part, which only a worker can then claim,
// starts (workerPool.runParts). The budget bounds the time a phase that
// is not split loses waiting.
type mutTengProbe struct {
	inflight atomic.Int32
	overlap  atomic.Bool
	budget   atomic.Int64 // nanoseconds the calls may still wait
	calls    atomic.Int64
}

func mutTengNewProbe(budget time.Duration) *mutTengProbe {
	p := &mutTengProbe{}
	p.budget.Store(int64(budget))
	return p
}

func (p *mutTengProbe) enter() {
	if p == nil {
		return
	}
	p.calls.Add(1)
	if p.inflight.Add(1) >= 2 {
		p.overlap.Store(true)
		return
	}
	last := time.Now()
	for !p.overlap.Load() && p.budget.Load() > 0 {
		time.Sleep(20 * time.Microsecond)
		now := time.Now()
		p.budget.Add(-int64(now.Sub(last)))
		last = now
	}
}

func (p *mutTengProbe) leave() {
	if p != nil {
		p.inflight.Add(-1)
	}
}

// mutTengLog records a family's kernel calls.
type mutTengLog struct {
	mu    sync.Mutex
	calls []mutTengCall
}

type mutTengCall struct {
	phase  string
	lo, hi int
}

func (l *mutTengLog) add(ph string, lo, hi int) {
	if l == nil {
		return
	}
	l.mu.Lock()
	l.calls = append(l.calls, mutTengCall{ph, lo, hi})
	l.mu.Unlock()
}

// mutTengFamily adds nodes prefix0… of one batched family (type and key
// typ) to g and returns them.
func mutTengFamily(g *graph.Graph, prefix, typ string, kind mutTengKind, n int) []*mutTengNode {
	var out []*mutTengNode
	for i := range n {
		m := mutTengMake(typ, kind, 1+0.25*float64(i), 0.3+0.1*float64(i%7))
		g.Add(fmt.Sprintf("%s%d", prefix, i), &mutTengBatched{m})
		out = append(out, m)
	}
	return out
}

func mutTengBits(t *testing.T, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("%s: state[%d] = %v, the per-node path's %v", what, i, got[i], want[i])
		}
	}
}

// A Sim without families has no batched step: every step runs on the
// per-node path, so a failing step is not a batched step handed back to
// it, and Result.Replays ("the steps the batched engine handed back to
// the per-node path") stays 0 while the failing node's error is
// returned. Three loose nodes (no node.Batcher), the second failing from
// t = 0.25 (the third step of 0.125 s).
func TestMutTengNoFamiliesNoReplays(t *testing.T) {
	g := graph.New()
	for i := range 3 {
		n := mutTengMake("mutteng-loose", mutTengState, float64(i+1), 0.5)
		if i == 1 {
			n.failAt = 0.25
		}
		g.Add(fmt.Sprintf("l%d", i), n)
	}
	g.Connect("l0.y", "l1.u")
	g.Connect("l1.y", "l2.u")
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	if f := s.Families(); len(f) != 0 {
		t.Fatalf("families %v, want none", f)
	}
	res, err := s.Run(context.Background(), graph.Settings{Dt: 0.125, Steps: 4, Mode: graph.CoSimulation{Workers: 1}})
	if err == nil || !strings.Contains(err.Error(), "l1") {
		t.Fatalf("Run: %v, want the error of l1", err)
	}
	if res == nil || res.Replays != 0 || s.Replays() != 0 {
		t.Fatalf("Result %+v, Sim.Replays %d: want no replay without families", res, s.Replays())
	}
}

// A family's kernel is called once per block of its rows (doc.go,
// Execution model: "one interface call per block, not per node"), a
// block being sumBlock rows, and a coupling stage holding a contiguous
// run of a family's rows runs them as one range (compileStage): on one
// worker, every call of the family of 2·sumBlock rows is exactly one of
// its two blocks — no call per row, and no call of no rows after the
// last block. Checked on the default Jacobi step (fusion off, so that the
// phased path runs) and on the plan of the "jacobi" strategy (stage
// path).
func TestMutTengKernelCallsAreBlocks(t *testing.T) {
	const rows = 2 * graph.MutTengSumBlock
	jac, err := coupling.ParseStrategy("jacobi")
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range []*coupling.Strategy{nil, &jac} {
		g := graph.New()
		fam := mutTengFamily(g, "m", "mutteng-block", mutTengState, rows)
		log := &mutTengLog{}
		for _, m := range fam {
			m.log = log
		}
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		s.SetFusion(false)
		if _, err := s.Run(context.Background(), graph.Settings{Dt: 0.01, Steps: 3, Mode: graph.CoSimulation{Coupling: st, Workers: 1}}); err != nil {
			t.Fatal(err)
		}
		updates := 0
		for _, c := range log.calls {
			if c.lo >= c.hi || c.lo%graph.MutTengSumBlock != 0 || c.hi != min(c.lo+graph.MutTengSumBlock, rows) {
				t.Fatalf("strategy %v: %s kernel called on rows [%d, %d), not one block of %d rows", st, c.phase, c.lo, c.hi, graph.MutTengSumBlock)
			}
			if c.phase == "update" {
				updates++
			}
		}
		if updates < 3*2 {
			t.Fatalf("strategy %v: %d update calls for 3 steps of 2 blocks", st, updates)
		}
	}
}

// mutTengLooseGraph is a family a0…a4 wired both ways to the loose nodes
// l0…l4: a_i.u ← l_i.y, l_j.u ← a_j.y + a_{j+1 mod 5}.y.
func mutTengLooseGraph() (*graph.Sim, error) {
	g := graph.New()
	mutTengFamily(g, "a", "mutteng-fam", mutTengState, 5)
	for j := range 5 {
		g.Add(fmt.Sprintf("l%d", j), mutTengMake("mutteng-loose", mutTengState, 2-0.3*float64(j), 0.4+0.15*float64(j)))
	}
	for i := range 5 {
		g.Connect(fmt.Sprintf("l%d.y", i), fmt.Sprintf("a%d.u", i))
		g.Connect(fmt.Sprintf("a%d.y", i), fmt.Sprintf("l%d.u", i))
		g.Connect(fmt.Sprintf("a%d.y", (i+1)%5), fmt.Sprintf("l%d.u", i))
	}
	return g.Build()
}

// Loose nodes run inside a batched phase (part, stagePart), split among
// the parts like the families' rows: on the default Jacobi step, the
// "jacobi" plan and a Gauss–Seidel order whose stages mix family rows and
// loose nodes, with 1 to 3 workers splitting every phase (Grain 1), the
// state after 20 steps must be the per-node path's bit for bit (the
// engine's contract), with no step replayed per node (Sim.Replays,
// counting the start-of-run check's trial steps too): each loose node
// runs exactly once per phase, in the part that owns it.
func TestMutTengLooseNodesInBatchedPhases(t *testing.T) {
	var strategies []*coupling.Strategy
	strategies = append(strategies, nil)
	for _, text := range []string{"jacobi", "gauss-seidel,order=a0+a1+l0+l1/a2+a3+a4+l2+l3+l4"} {
		st, err := coupling.ParseStrategy(text)
		if err != nil {
			t.Fatal(err)
		}
		strategies = append(strategies, &st)
	}
	for _, st := range strategies {
		run := func(batched bool, workers int) []float64 {
			s, err := mutTengLooseGraph()
			if err != nil {
				t.Fatal(err)
			}
			if batched && len(s.Families()) != 1 {
				t.Fatalf("families %v, want a0…a4 as one", s.Families())
			}
			s.SetBatching(batched)
			res, err := s.Run(context.Background(), graph.Settings{Dt: 0.05, Steps: 20, Mode: graph.CoSimulation{Coupling: st, Workers: workers, Grain: 1}})
			if err != nil {
				t.Fatalf("strategy %v, batched %v, %d workers: %v", st, batched, workers, err)
			}
			if res.Replays != 0 || s.Replays() != 0 {
				t.Fatalf("strategy %v, %d workers: %d steps replayed per node (%d in all)", st, workers, res.Replays, s.Replays())
			}
			return s.State(nil)
		}
		want := run(false, 1)
		for _, w := range []int{1, 2, 3} {
			mutTengBits(t, fmt.Sprintf("strategy %v, %d workers", st, w), run(true, w), want)
		}
	}
}

// Grain is "the smallest number of node evaluations in one phase for
// which the phase is split across workers; smaller phases run on the
// calling goroutine" (CoSimulation.Grain). A phase of exactly Grain
// evaluations is therefore split: with 2 workers its calls overlap in
// time (mutTengProbe). The first jobs of a Run are always shared (the
// pool's first window, pool.go sharing.share), so this does not depend
// on the machine's load. Grain 4, 2 workers, checked on
//   - the per-node path (runNodes): four stateful nodes, batching off,
//     their own Update calls watched (a stateful phase of 4);
//   - the phased batched step (dispatch): the same as one family, fusion
//     off, its kernel's Update calls watched;
//   - the fused step (dispatchFused), above Grain: a source family z0, z1
//     feeding a stateful family m0, m1, whose z.y only a family reads,
//     so it is kept in the packed columns and every step runs fused
//     (engine.step); the plan counts 4 producer and 2 consumer rows, and
//     every kernel call of both families is watched. (A fused plan
//     always counts more rows than the largest phase, which a Run
//     compares with Grain before it starts a pool, so it is never of
//     exactly Grain rows.)
func TestMutTengPhaseOfGrainIsSplit(t *testing.T) {
	for _, path := range []string{"per-node", "phased", "fused"} {
		g := graph.New()
		probe := mutTengNewProbe(5 * time.Second)
		if path == "fused" {
			for _, z := range mutTengFamily(g, "z", "mutteng-z", mutTengSource, 2) {
				z.out = probe
			}
			for i, m := range mutTengFamily(g, "m", "mutteng-m", mutTengState, 2) {
				m.upd, m.out = probe, probe
				g.Connect(fmt.Sprintf("z%d.y", i), fmt.Sprintf("m%d.u", i))
			}
		} else {
			for _, m := range mutTengFamily(g, "m", "mutteng-split", mutTengState, 4) {
				m.upd, m.pnUpd = probe, probe
			}
		}
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		switch path {
		case "per-node":
			s.SetBatching(false)
		case "phased":
			s.SetFusion(false)
		case "fused":
			if step, _ := s.Fused(); !step || s.CompactLen() == 0 || len(s.Families()) != 2 {
				t.Fatalf("fused step %v, %d compact values, families %v: want a fused step over z and m reading packed columns", step, s.CompactLen(), s.Families())
			}
		}
		res, err := s.Run(context.Background(), graph.Settings{Dt: 0.01, Steps: 3, Mode: graph.CoSimulation{Workers: 2, Grain: 4}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Workers != 2 {
			t.Fatalf("%s: Result.Workers %d, want 2", path, res.Workers)
		}
		if !probe.overlap.Load() {
			t.Errorf("%s: no two watched calls of a phase of Grain = 4 rows ran at once (%d calls): the phase was not split", path, probe.calls.Load())
		}
	}
}

// The rows of a phase, which Grain is compared with, are the evaluations
// the phase makes: an output level's nodes, or the stateful nodes for an
// update (engine.jobRows). A stateful family s0…s6 (level 0), a
// stateless source family z0, z1 (level 0) and a feedthrough family
// f0, f1 reading s0, s1 (level 1), with fusion off; 2 workers.
//   - Grain 5: the update (the 7 stateful rows) and level 0's outputs
//     (7 + 2 rows) are split, level 1's outputs (2 rows) are not: the
//     s family's Update and Outputs calls overlap, the f family's
//     Outputs calls never do.
//   - Grain 8: the update (7 rows: the sources and the feedthrough
//     nodes have no state) is not split, while level 0's outputs (9
//     rows) are, so that the pool runs and the Run reports 2 workers:
//     the s family's Update calls never overlap.
func TestMutTengPhaseRowsAgainstGrain(t *testing.T) {
	for _, grain := range []int{5, 8} {
		g := graph.New()
		sf := mutTengFamily(g, "s", "mutteng-s", mutTengState, 7)
		mutTengFamily(g, "z", "mutteng-z", mutTengSource, 2)
		ff := mutTengFamily(g, "f", "mutteng-f", mutTengFeed, 2)
		g.Connect("s0.y", "f0.u")
		g.Connect("s1.y", "f1.u")
		// Waiting for a partner is what a split phase shows at once; a
		// phase that must not be split waits its budget out.
		long, short := 5*time.Second, 300*time.Millisecond
		sUpd, sOut, fOut := mutTengNewProbe(short), mutTengNewProbe(long), mutTengNewProbe(short)
		if grain == 5 {
			sUpd = mutTengNewProbe(long)
		}
		for _, m := range sf {
			m.upd, m.out = sUpd, sOut
		}
		for _, m := range ff {
			m.out = fOut
		}
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Families()) != 3 {
			t.Fatalf("families %v, want s, z and f", s.Families())
		}
		s.SetFusion(false)
		res, err := s.Run(context.Background(), graph.Settings{Dt: 0.01, Steps: 3, Mode: graph.CoSimulation{Workers: 2, Grain: grain}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Workers != 2 {
			t.Fatalf("Grain %d: Result.Workers %d, want 2", grain, res.Workers)
		}
		switch grain {
		case 5:
			if !sUpd.overlap.Load() {
				t.Errorf("Grain 5: the update of 7 stateful rows was not split")
			}
			if !sOut.overlap.Load() {
				t.Errorf("Grain 5: level 0's outputs (9 rows) were not split")
			}
			if fOut.overlap.Load() {
				t.Errorf("Grain 5: level 1's outputs (2 rows) were split")
			}
		case 8:
			if sUpd.overlap.Load() {
				t.Errorf("Grain 8: the update of 7 stateful rows was split")
			}
		}
	}
}

// Outputs that Sim.outputs already holds are not evaluated again
// (engine.step, fresh): with no packed columns (CompactLen 0: the family
// reads only a loose node's output), a recorded output makes the
// outputs fresh at every step's start, and the batched step evaluates
// the loose source's Outputs exactly as often as the per-node path,
// which skips fresh outputs (Sim.stepPerNode).
func TestMutTengFreshOutputsNotEvaluatedAgain(t *testing.T) {
	count := func(batched bool) int64 {
		g := graph.New()
		mutTengFamily(g, "m", "mutteng-fresh", mutTengState, 3)
		src := mutTengMake("mutteng-src", mutTengSource, 0, 1.5)
		src.outCalls = new(atomic.Int64)
		g.Add("src", src)
		for i := range 3 {
			g.Connect("src.y", fmt.Sprintf("m%d.u", i))
		}
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		if batched && (len(s.Families()) != 1 || s.CompactLen() != 0) {
			t.Fatalf("families %v, compact columns %d: want one family and none", s.Families(), s.CompactLen())
		}
		s.SetBatching(batched)
		if _, err := s.Run(context.Background(), graph.Settings{Dt: 0.01, Steps: 10, Record: []string{"src.y"}, Mode: graph.CoSimulation{Workers: 1}}); err != nil {
			t.Fatal(err)
		}
		return src.outCalls.Load()
	}
	want, got := count(false), count(true)
	if want < 11 || got != want {
		t.Fatalf("the source's Outputs ran %d times batched, %d per node (at least one per recorded row, 11)", got, want)
	}
}

// With one worker a Run starts no pool (engine.startWorkers: the pool is
// for n > 1; Workers "one runs everything on the calling goroutine"):
// the sharing trace (TraceSharing, pool_export_test.go) records no Run
// begun. With 2 workers and Grain 1 it records one, which shows the
// trace sees a pool.
func TestMutTengOneWorkerStartsNoPool(t *testing.T) {
	for _, workers := range []int{1, 2} {
		g := graph.New()
		mutTengFamily(g, "m", "mutteng-pool", mutTengState, 4)
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		s.TraceSharing(true)
		if _, err := s.Run(context.Background(), graph.Settings{Dt: 0.01, Steps: 3, Mode: graph.CoSimulation{Workers: workers, Grain: 1}}); err != nil {
			t.Fatal(err)
		}
		_, sum := s.SharingLog(false)
		if want := workers - 1; sum.Runs != want {
			t.Errorf("%d workers: %d pools started, want %d", workers, sum.Runs, want)
		}
	}
}

// A family whose kernel has no Derivatives evaluates its derivatives
// node by node (System.looseDerivs) even when the derivatives
// evaluation of the others is fused: families a0…a2 (kernel with
// Derivatives) and b0…b2 (without), cross-wired, all of level 0 and no
// loose node, so the Sim has a fused derivatives plan. A monolithic RK4
// run must give the per-node path's state bit for bit.
//
// This failed before compileNeeds (family.go) counted those rows as
// readers of Sim.outputs: a.y, read only by families, was moved to the
// packed columns, and b's node-by-node derivatives gathered the stale
// a.y that Sim.outputs still held (state[0] 1.14934 instead of 1.15027).
func TestMutTengMonolithicFamilyWithoutDerivatives(t *testing.T) {
	build := func() *graph.Sim {
		g := graph.New()
		mutTengFamily(g, "a", "mutteng-a", mutTengState, 3)
		for _, m := range mutTengFamily(g, "b", "mutteng-b", mutTengState, 3) {
			m.noDer = true
		}
		for i := range 3 {
			g.Connect(fmt.Sprintf("a%d.y", i), fmt.Sprintf("b%d.u", i))
			g.Connect(fmt.Sprintf("b%d.y", i), fmt.Sprintf("a%d.u", i))
		}
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	run := func(batched bool) []float64 {
		s := build()
		if batched {
			if _, derivs := s.Fused(); !derivs || len(s.Families()) != 2 {
				t.Fatalf("fused derivatives %v, families %v: want a fused plan over a and b", derivs, s.Families())
			}
		}
		s.SetBatching(batched)
		res, err := s.Run(context.Background(), graph.Settings{Dt: 0.01, Steps: 20, Mode: graph.Monolithic{Method: integrators.RK4{}}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Replays != 0 {
			t.Fatalf("batched %v: %d replays", batched, res.Replays)
		}
		return s.State(nil)
	}
	mutTengBits(t, "monolithic RK4", run(true), run(false))
}

// The stability check at the start of a co-simulation Run of more than
// DenseStabilityStates values evaluates the System's derivatives (its
// Krylov estimate of the growth rate) while the Run's workers are up: a
// fused derivatives evaluation then runs split among them (Grain 1, 2
// workers), writing the evaluation's buffer. The analysis restores the
// Sim's replay count, so a failed batched evaluation would show only as
// its replay on the per-node path: the nodes' own Derivatives, which a
// family whose kernel has Derivatives never needs otherwise (the
// Jacobian assembly, which uses them, serves only graphs of at most
// DenseStabilityStates values). 160 nodes of one family; the check must
// have run (not Skipped), and must find what the per-node path finds.
func TestMutTengSplitFusedDerivatives(t *testing.T) {
	run := func(batched bool) (*graph.StabilityAnalysis, int64) {
		g := graph.New()
		calls := new(atomic.Int64)
		for _, m := range mutTengFamily(g, "m", "mutteng-der", mutTengState, 160) {
			m.derCalls = calls
		}
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		if _, derivs := s.Fused(); !derivs {
			t.Fatal("the derivatives evaluation is not fused")
		}
		s.SetBatching(batched)
		res, err := s.Run(context.Background(), graph.Settings{Dt: 0.01, Steps: 50, Mode: graph.CoSimulation{Workers: 2, Grain: 1}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Stability == nil || res.Stability.Skipped != "" || res.Workers != 2 {
			t.Fatalf("stability %+v, workers %d: want the check run with 2 workers", res.Stability, res.Workers)
		}
		return res.Stability, calls.Load()
	}
	want, pn := run(false)
	got, calls := run(true)
	if pn == 0 {
		t.Fatal("the per-node run called no Derivatives: the check did not evaluate the System")
	}
	if calls != 0 {
		t.Fatalf("%d Derivatives calls on the per-node path: the batched evaluations were replayed", calls)
	}
	if math.Float64bits(got.Growth) != math.Float64bits(want.Growth) {
		t.Fatalf("growth rate %v, the per-node path's %v", got.Growth, want.Growth)
	}
}
