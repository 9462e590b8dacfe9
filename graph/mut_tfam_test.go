package graph_test

import (
	"context"
	"fmt"
	"math"
	"sync/atomic"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
)

// mutTfamNode is a stateless node of one of two kinds: a source (not
// feedthrough, y = c) or a feedthrough node (y = 2u, additive input u).
// Like a node type whose Spec depends on its configuration, it has
// Derivatives (node.Deriver) although it has no state. *mutTfamBatched
// wraps one with a batch key; its kernel has Outputs only (no
// node.BatchDeriver, no Update: the family is stateless), computes the
// same expression per row (bit for bit) and counts its calls.
type mutTfamNode struct {
	spec  *node.Spec
	feed  bool
	c     float64
	calls *atomic.Int64 // the family kernel's Outputs calls (nil: not counted)
}

func mutTfamMake(typ string, feed bool, c float64) *mutTfamNode {
	s := node.Spec{
		Type:        typ,
		Inputs:      []node.Input{{Name: "u", Units: "m", Description: "input", Combine: node.Additive, Default: []float64{0}}},
		Outputs:     []node.Field{{Name: "y", Units: "m", Description: "the value passed on"}},
		Feedthrough: feed,
	}
	return &mutTfamNode{spec: node.NewSpec(s), feed: feed, c: c}
}

func (n *mutTfamNode) Spec() *node.Spec           { return n.spec }
func (n *mutTfamNode) InitialState(dst []float64) {}
func (n *mutTfamNode) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	return nil
}

func (n *mutTfamNode) y(u float64) float64 {
	if n.feed {
		return 2 * u
	}
	return n.c
}

func (n *mutTfamNode) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = n.y(in.Values[0])
	return nil
}

// Derivatives of a stateless node: no state, nothing to write.
func (n *mutTfamNode) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	return nil
}

type mutTfamBatched struct{ *mutTfamNode }

func (b *mutTfamBatched) BatchKey() string { return b.spec.Type }
func (b *mutTfamBatched) NewBatch(members []node.Node) node.Batch {
	k := &mutTfamBatch{}
	for _, m := range members {
		k.rows = append(k.rows, m.(*mutTfamBatched).mutTfamNode)
	}
	return k
}

// mutTfamBatch is the kernel: Outputs only.
type mutTfamBatch struct{ rows []*mutTfamNode }

func (b *mutTfamBatch) Outputs(a *node.BatchArgs) error {
	if c := b.rows[0].calls; c != nil {
		c.Add(1)
	}
	if !a.Needs(0) {
		return nil
	}
	for i := a.Lo; i < a.Hi; i++ {
		var u float64
		if b.rows[i].feed {
			u = a.In[0].Row(i, 1)[0]
		}
		a.Out[0].Row(i, 1)[0] = b.rows[i].y(u)
	}
	return nil
}

// The fix in compileNeeds keeps in Sim.outputs the outputs read by the
// rows of a STATEFUL family whose kernel has no Derivatives, because a
// System takes those rows' derivatives node by node (System.looseDerivs,
// which lists stateful nodes only). A stateless family never has its
// derivatives taken, even when its nodes have Derivatives, so the
// outputs it reads are read by families only and are moved to the packed
// columns (compact.go: "compactOutputs moves the output fields that only
// families read into engine.packed"). The batched step then computes
// them itself even when Sim.outputs is fresh (compact.go: "A batched step
// therefore computes its outputs itself (engine.step), even when
// Sim.outputs is fresh"; engine.step: !fresh || len(e.packed) > 0).
//
// Sources p0…p2 (family, y = c) feed s0…s2 (stateless feedthrough
// family, nodes with Derivatives, kernel without): p.y is read only by
// the s family, so CompactLen is 3 (one value per row). A Run of 10
// steps recording s0.y makes Sim.outputs fresh at every step's start
// (the recorded row evaluates them per node), so each batched step
// evaluates p's outputs in its kernel: one call per step (3 rows, one
// block), 10 in all. (Were p.y kept in Sim.outputs, with nothing packed,
// the fresh steps would evaluate no output: 0 calls.) The recorded
// values must be the per-node path's bit for bit (2c, exact).
func TestMutTfamStatelessDeriverFamilyPacksItsInputs(t *testing.T) {
	const steps = 10
	run := func(batched bool) (*graph.Result, int64, int) {
		g := graph.New()
		calls := new(atomic.Int64)
		for i := range 3 {
			p := mutTfamMake("muttfam-p", false, 0.5+0.25*float64(i))
			p.calls = calls
			g.Add(fmt.Sprintf("p%d", i), &mutTfamBatched{p})
			g.Add(fmt.Sprintf("s%d", i), &mutTfamBatched{mutTfamMake("muttfam-s", true, 0)})
			g.Connect(fmt.Sprintf("p%d.y", i), fmt.Sprintf("s%d.u", i))
		}
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		if batched && len(s.Families()) != 2 {
			t.Fatalf("families %v, want p and s", s.Families())
		}
		s.SetBatching(batched)
		res, err := s.Run(context.Background(), graph.Settings{Dt: 0.01, Steps: steps, Record: []string{"s0.y"}, Mode: graph.CoSimulation{Workers: 1}})
		if err != nil {
			t.Fatalf("batched %v: %v", batched, err)
		}
		if res.Replays != 0 {
			t.Fatalf("batched %v: %d steps replayed", batched, res.Replays)
		}
		return res, calls.Load(), s.CompactLen()
	}
	want, _, _ := run(false)
	got, calls, compact := run(true)
	if compact != 3 {
		t.Errorf("CompactLen %d, want 3: p.y, read only by the stateless s family, is not in the packed columns", compact)
	}
	if calls != steps {
		t.Errorf("p's kernel Outputs ran %d times in %d steps, want one per step: the batched step must compute the packed p.y although Sim.outputs is fresh", calls, steps)
	}
	w, h := want.History.Column("s0.y"), got.History.Column("s0.y")
	if len(w) != steps+1 || len(h) != len(w) {
		t.Fatalf("recorded %d rows batched, %d per node, want %d", len(h), len(w), steps+1)
	}
	for i := range w {
		if math.Float64bits(h[i]) != math.Float64bits(w[i]) || w[i] != 1 {
			t.Fatalf("s0.y row %d: %v batched, %v per node, want 2·0.5 = 1", i, h[i], w[i])
		}
	}
}
