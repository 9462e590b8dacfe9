package springdamper_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// Connect with ends (node.Attachment) builds the same graph as the
// graph's own AddConnector with body names and local points: the same
// nodes, edges (in order) and ends. An end given as a Go value, or
// naming a body the graph lacks, is a *node.EndError naming the end.
func TestConnectMatchesAddConnector(t *testing.T) {
	p := springdamper.DefaultParams()
	p.Stiffness = [3]float64{10, 20, 30}
	build := func(viaEnds bool) (*graph.Graph, node.Node) {
		g := graph.New()
		m1, _ := masspoint.New(masspoint.Params{Mass: 1})
		m2, _ := masspoint.New(masspoint.Params{Mass: 2})
		g.Add("m1", m1)
		g.Add("m2", m2)
		var n1 node.Node
		var err error
		if viaEnds {
			n1, err = springdamper.Connect(g, "a", p, node.Body("m1"), node.GroundAt([3]float64{0, 1, 0}))
			if err == nil {
				_, err = springdamper.Connect(g, "b", p, node.Body("m1"), node.BodyAt("m2", [3]float64{1, 2, 3}))
			}
		} else {
			n1, err = g.AddConnector("a", p, "m1", [3]float64{}, "", [3]float64{0, 1, 0})
			if err == nil {
				_, err = g.AddConnector("b", p, "m1", [3]float64{}, "m2", [3]float64{1, 2, 3})
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		return g, n1
	}
	ge, ne := build(true)
	gc, nc := build(false)
	if len(ge.Edges()) != len(gc.Edges()) {
		t.Fatalf("%d edges via Connect, %d via AddConnector", len(ge.Edges()), len(gc.Edges()))
	}
	for i, e := range ge.Edges() {
		if c := gc.Edges()[i]; e.From != c.From || e.To != c.To {
			t.Errorf("edge %d: %s→%s via Connect, %s→%s via AddConnector", i, e.From, e.To, c.From, c.To)
		}
	}
	ee, _ := ne.(node.Attached).Attachments()
	ec, _ := nc.(node.Attached).Attachments()
	if ee[1] != ec[1] || ee[1] != node.GroundAt([3]float64{0, 1, 0}) {
		t.Errorf("ground end %v via Connect, %v via AddConnector; want %v", ee[1], ec[1], node.GroundAt([3]float64{0, 1, 0}))
	}

	g := graph.New()
	m, _ := masspoint.New(masspoint.Params{Mass: 1})
	g.Add("m", m)
	for _, c := range []struct {
		e0, e1 node.Attachment
		end    int
		msg    string
	}{
		{node.At(m, [3]float64{}), node.Body("m"), 0, "name it with node.BodyAt or node.Body"},
		{node.Body("m"), node.BodyAt("mm", [3]float64{}), 1, `no node "mm"`},
	} {
		_, err := springdamper.Connect(g, "x", p, c.e0, c.e1)
		var ee *node.EndError
		if !errors.As(err, &ee) || ee.End != c.end || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("Connect(%v, %v): %v, want a *node.EndError for end %d mentioning %q", c.e0, c.e1, err, c.end, c.msg)
		}
	}
	// New takes bodies as values: a named end is refused, naming it.
	if _, err := springdamper.New(p, node.Body("m"), node.GroundAt([3]float64{})); err == nil || !strings.Contains(err.Error(), `names the body "m"`) {
		t.Errorf("New with a named end: %v, want an error naming the body", err)
	}
}
