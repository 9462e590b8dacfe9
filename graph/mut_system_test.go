package graph_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/masspoint"
)

// The System's position/velocity pairs name, for every node, its own
// position and velocity components, also for a node whose state does
// not start at 0 and one whose position is not its first field.
func TestMutSystemPairsSecondNode(t *testing.T) {
	g := graph.New()
	for _, name := range []string{"m1", "m2"} {
		mp, _ := masspoint.New(masspoint.Params{Mass: 1})
		g.Add(name, mp)
	}
	g.Add("rev", newRevNode())
	m, err := mustBuild(t, g).System()
	if err != nil {
		t.Fatal(err)
	}
	pos, vel := m.Pairs()
	if len(pos) != 7 || len(vel) != 7 {
		t.Fatalf("pairs %v, %v: want 7", pos, vel)
	}
	if p, v := m.Component(pos[6]), m.Component(vel[6]); p != "rev.x" || v != "rev.v" {
		t.Errorf("pair 6: %s, %s; want rev.x, rev.v", p, v)
	}
	pos, vel = pos[:6], vel[:6]
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

// revNode is a free particle whose state lists its velocity v before
// its position x.
type revNode struct{ spec *node.Spec }

func newRevNode() *revNode {
	return &revNode{spec: node.NewSpec(node.Spec{
		Type: "testrev",
		State: []node.Field{
			{Name: "v", Shape: node.Scalar, Units: "m/s", Description: "velocity", Role: node.Velocity},
			{Name: "x", Shape: node.Scalar, Units: "m", Description: "position", Role: node.Position, Rate: "v"},
		},
	})}
}

func (n *revNode) Spec() *node.Spec           { return n.spec }
func (n *revNode) InitialState(dst []float64) { dst[0], dst[1] = 1, 0 }
func (n *revNode) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	return nil
}
func (n *revNode) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0], dst[1] = 0, x[0]
	return nil
}

// A graph mixing a batched family (masspoints) with nodes the family
// kernels do not cover (two drains, evaluated one by one beside the
// batch) integrates every node: each drain decays as e^{−t} (its floor
// c = 0.01 is not reached), 1e-7 with the default tolerances.
func TestMutIntegrateLooseNodesBesideFamily(t *testing.T) {
	g := graph.New()
	for _, name := range []string{"m1", "m2"} {
		mp, _ := masspoint.New(masspoint.Params{Mass: 1, InitialVelocity: [3]float64{1, 0, 0}})
		g.Add(name, mp)
	}
	g.Add("d1", newDrainNode(0.01))
	g.Add("d2", newDrainNode(0.01))
	s := mustBuild(t, g)
	if _, err := s.Integrate(context.Background(), 1, integrators.DormandPrince{}, nil); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"d1.a", "d2.a"} {
		v, err := s.Value(f)
		if err != nil || len(v) != 1 || !numtest.Within(v[0], math.Exp(-1), 1e-7) {
			t.Errorf("%s = %v, %v; want e⁻¹", f, v, err)
		}
	}
}
