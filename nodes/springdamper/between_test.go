package springdamper_test

import (
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// Between builds the same graph as Connect: the same nodes, edges (in
// order) and connector spec; its ends say what they are.
func TestBetweenMatchesConnect(t *testing.T) {
	p := springdamper.DefaultParams()
	p.Stiffness = [3]float64{10, 20, 30}
	build := func(viaBetween bool) (*graph.Graph, *springdamper.Node) {
		g := graph.New()
		m1, _ := masspoint.New(masspoint.Params{Mass: 1})
		m2, _ := masspoint.New(masspoint.Params{Mass: 2})
		g.Add("m1", m1)
		g.Add("m2", m2)
		var n1, n2 *springdamper.Node
		var err error
		if viaBetween {
			n1, err = springdamper.Between(g, "a", p, springdamper.Body("m1"), springdamper.Ground([3]float64{0, 1, 0}))
			if err == nil {
				n2, err = springdamper.Between(g, "b", p, springdamper.Body("m1"), springdamper.BodyAt("m2", [3]float64{1, 2, 3}))
			}
		} else {
			n1, err = springdamper.Connect(g, "a", p, "m1", [3]float64{}, "", [3]float64{0, 1, 0})
			if err == nil {
				n2, err = springdamper.Connect(g, "b", p, "m1", [3]float64{}, "m2", [3]float64{1, 2, 3})
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		_ = n2
		return g, n1
	}
	gb, nb := build(true)
	gc, nc := build(false)
	if len(gb.Edges()) != len(gc.Edges()) {
		t.Fatalf("%d edges via Between, %d via Connect", len(gb.Edges()), len(gc.Edges()))
	}
	for i, e := range gb.Edges() {
		if c := gc.Edges()[i]; e.From != c.From || e.To != c.To {
			t.Errorf("edge %d: %s→%s via Between, %s→%s via Connect", i, e.From, e.To, c.From, c.To)
		}
	}
	eb, _ := nb.Attachments()
	ec, _ := nc.Attachments()
	if eb[1] != ec[1] {
		t.Errorf("ground marker %v via Between, %v via Connect", eb[1], ec[1])
	}

	g := graph.New()
	m, _ := masspoint.New(masspoint.Params{Mass: 1})
	g.Add("m", m)
	for _, c := range []struct {
		e0, e1 springdamper.End
		msg    string
	}{
		{springdamper.Body(""), springdamper.Body("m"), "use Ground(point)"},
		{springdamper.At(m, [3]float64{}), springdamper.Body("m"), "name the body in the graph"},
		{springdamper.Body("mm"), springdamper.Ground([3]float64{}), `no node "mm"`},
	} {
		if _, err := springdamper.Between(g, "x", p, c.e0, c.e1); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("Between: %v, want an error mentioning %q", err, c.msg)
		}
	}
}
