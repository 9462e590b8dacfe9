package graph_test

import (
	"context"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/node"
)

// tally is a node that counts the crossings of its level by time: its
// state is a count (rate 0), its event t − level (rising) and its reset
// adds one to the count.
type tally struct {
	spec  *node.Spec
	level float64
}

func newTally(level float64) *tally {
	return &tally{level: level, spec: node.NewSpec(node.Spec{
		Type:   "testtally",
		State:  []node.Field{{Name: "n", Shape: node.Scalar, Units: "1", Description: "crossings counted"}},
		Events: []node.Event{{Name: "pass", Direction: 1, Description: "time passes the level"}},
	})}
}

func (n *tally) Spec() *node.Spec           { return n.spec }
func (n *tally) InitialState(dst []float64) { dst[0] = 0 }
func (n *tally) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = x[0]
	return nil
}
func (n *tally) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = 0
	return nil
}
func (n *tally) EventValues(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = t - n.level
	return nil
}
func (n *tally) Reset(event int, t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = x[0] + 1
	return nil
}

// Two nodes' events whose times differ by less than the event tolerance
// (levels 0.25 and 0.25 + 5e-13 s, the default EventTol 1e-12 s): each
// node's reset runs exactly once in an adaptive run to t = 1, whatever
// the method; a reset run at the first instant and again at the second
// node's own root would count 2.
func TestNodesEventsCloserThanTolFireOnce(t *testing.T) {
	for _, m := range []integrators.AdaptiveMethod{integrators.DormandPrince{}, integrators.BDF{}, integrators.ESDIRK43{}, integrators.ESDIRK32{}} {
		g := graph.New()
		g.Add("a", newTally(0.25))
		g.Add("b", newTally(0.25+5e-13))
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Integrate(context.Background(), 1, m, nil); err != nil {
			t.Fatal(err)
		}
		if y := s.State(nil); y[0] != 1 || y[1] != 1 {
			t.Errorf("%s: counts a, b = %v, want 1 each", m.Name(), y)
		}
	}
}
