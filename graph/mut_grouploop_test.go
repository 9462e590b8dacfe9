package graph_test

import (
	"math"
	"testing"

	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
)

// gain is a feedthrough node y = k·u with an additive input u.
type gain struct {
	node.Stateless
	spec *node.Spec
	k    float64
}

func newGain(k float64) *gain {
	return &gain{k: k, spec: node.NewSpec(node.Spec{
		Type:        "gain",
		Inputs:      []node.Input{{Name: "u", Units: "1", Description: "in", Combine: node.Additive, Default: []float64{0}}},
		Outputs:     []node.Field{{Name: "y", Units: "1", Description: "k·u"}},
		Feedthrough: true,
	})}
}

func (n *gain) Spec() *node.Spec { return n.spec }
func (n *gain) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = n.k * in.Values[0]
	return nil
}

// Iterated groups read each other's outputs at t_n, whatever their order
// in the strategy, also when a group holds one member of an algebraic
// loop and another group reads the loop's other member. Here a' = 1
// (a = n·dt at t_n), the loop l1 = l2 + a, l2 = 0.5·l1 gives l2 = a, and
// b' = l2 read at t_n, so b ends at dt·Σ n·dt = dt²·N(N−1)/2 = 0.375
// (dt = 0.25, N = 4; to the loop solver's rounding, 1e-12). Reading l2 at
// the first group's trial end-of-step state would give dt²·N(N+1)/2.
func TestGroupsReadLoopOutputsAtStepStart(t *testing.T) {
	for _, order := range [][]coupling.Group{
		{{Name: "g1", Nodes: []string{"a", "l1"}}, {Name: "g2", Nodes: []string{"b"}}},
		{{Name: "g2", Nodes: []string{"b"}}, {Name: "g1", Nodes: []string{"a", "l1"}}},
	} {
		g := graph.New()
		g.Add("one", newSource("1", 1))
		g.Add("a", newAcc(0, 0))
		g.Add("b", newAcc(0, 0))
		g.Add("l1", newGain(1))
		g.Add("l2", newGain(0.5))
		g.Connect("one.value", "a.u")
		g.Connect("a.y", "l1.u")
		g.Connect("l2.y", "l1.u")
		g.Connect("l1.y", "l2.u")
		g.Connect("l2.y", "b.u")
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		cosimRun(t, s, &coupling.Strategy{Scheme: coupling.Iterative, Groups: order}, 0.25, 4)
		if x := s.State(nil); x[0] != 1 || math.Abs(x[1]-0.375) > 1e-12 {
			t.Errorf("groups %s then %s: a, b = %v, %v; want 1, 0.375", order[0].Name, order[1].Name, x[0], x[1])
		}
	}
}
