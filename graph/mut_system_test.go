package graph_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/masspoint"
)

// The System's position/velocity pairs name, for every node, its own
// position and velocity components, also for a node whose state does
// not start at 0.
func TestMutSystemPairsSecondNode(t *testing.T) {
	g := graph.New()
	for _, name := range []string{"m1", "m2"} {
		mp, _ := masspoint.New(masspoint.Params{Mass: 1})
		g.Add(name, mp)
	}
	m, err := mustBuild(t, g).System()
	if err != nil {
		t.Fatal(err)
	}
	pos, vel := m.Pairs()
	if len(pos) != 6 || len(vel) != 6 {
		t.Fatalf("pairs %v, %v: want 6", pos, vel)
	}
	for i := range pos {
		name, k := "m1", i
		if i >= 3 {
			name, k = "m2", i-3
		}
		if p, v := m.Component(pos[i]), m.Component(vel[i]); p != fmt.Sprintf("%s.position[%d]", name, k) || v != fmt.Sprintf("%s.velocity[%d]", name, k) {
			t.Errorf("pair %d: %s, %s", i, p, v)
		}
	}
}

// cancelDrain is the drain that counts its Derivatives calls and
// cancels the run's context at the third.
type cancelDrain struct {
	*drainNode
	calls  *int
	cancel context.CancelFunc
}

func (n cancelDrain) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	*n.calls++
	if *n.calls == 3 {
		n.cancel()
	}
	return n.drainNode.Derivatives(t, x, in, dst)
}

// Integrate checks its context at every evaluation of the system: once
// a node's Derivatives has cancelled it, no further evaluation reaches
// the nodes (the step in progress is abandoned, not finished), and the
// run returns the context's error.
func TestMutIntegrateCancelMidStep(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	g := graph.New()
	g.Add("drain", cancelDrain{newDrainNode(0.01), &calls, cancel})
	_, err := mustBuild(t, g).Integrate(ctx, 1, integrators.DormandPrince{}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if calls != 3 {
		t.Errorf("%d Derivatives calls, want 3: none after the cancellation", calls)
	}
}
