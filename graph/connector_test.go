package graph_test

import (
	"errors"
	"math"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/constant"
	"github.com/cosimgo/cosim/nodes/masspoint"
	nspring "github.com/cosimgo/cosim/nodes/spring"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// AddConnector attaches any node.Connector: the per-end problems are
// *node.EndError naming the end (found with errors.As, not by text), and a
// failed attach leaves the graph unchanged.
func TestAddConnectorEndErrors(t *testing.T) {
	g := graph.New()
	mp, err := masspoint.New(masspoint.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	c, err := constant.New(constant.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	g.Add("m", mp)
	g.Add("c", c)
	for _, tc := range []struct {
		b0, b1  string
		local0  [3]float64
		end     int
		notMark bool
	}{
		{b0: "m", b1: "nope", end: 1},
		{b0: "c", b1: "m", end: 0, notMark: true},
		{b0: "", b1: "m", local0: [3]float64{0, math.NaN(), 0}, end: 0},
		{b0: "m", b1: "", end: -1},
	} {
		for _, conn := range []node.Connector{springdamper.DefaultParams(), nspring.DefaultParams()} {
			_, err := g.AddConnector("k", conn, tc.b0, tc.local0, tc.b1, [3]float64{0, 0, 1})
			if tc.end < 0 {
				if err != nil {
					t.Errorf("%s %s–%s: %v", conn.ConnectorType(), tc.b0, tc.b1, err)
				}
				g = graph.New()
				g.Add("m", mp)
				g.Add("c", c)
				continue
			}
			var ee *node.EndError
			if !errors.As(err, &ee) || ee.End != tc.end || ee.Connector != "k" || ee.Type != conn.ConnectorType() {
				t.Errorf("%s %s–%s: %v is not an EndError at end %d", conn.ConnectorType(), tc.b0, tc.b1, err, tc.end)
			}
			if errors.Is(err, node.ErrNotMarker) != tc.notMark {
				t.Errorf("%s %s–%s: errors.Is(ErrNotMarker) = %v", conn.ConnectorType(), tc.b0, tc.b1, !tc.notMark)
			}
		}
		if tc.end >= 0 && (len(g.Names()) != 2 || len(g.Edges()) != 0) {
			t.Fatalf("a failed AddConnector changed the graph: %v, %d edges", g.Names(), len(g.Edges()))
		}
	}
}

// springdamper.Connect and nspring.Connect keep their call shape on a
// *graph.Graph (a node.ConnectorHost) and make the links' edges.
func TestConnectHelpersThroughGraph(t *testing.T) {
	g := graph.New()
	mp, err := masspoint.New(masspoint.Params{Mass: 1, InitialPosition: [3]float64{1, 0, 0}})
	if err != nil {
		t.Fatal(err)
	}
	g.Add("m", mp)
	if _, err := springdamper.Connect(g, "sd", springdamper.DefaultParams(), node.GroundAt([3]float64{}), node.Body("m")); err != nil {
		t.Fatal(err)
	}
	if _, err := nspring.Connect(g, "s", nspring.DefaultParams(), node.GroundAt([3]float64{0, 2, 0}), node.Body("m")); err != nil {
		t.Fatal(err)
	}
	want := []string{"m.position->sd.m1_position", "m.velocity->sd.m1_velocity", "sd.m1_force->m.force",
		"m.position->s.m1_position", "m.velocity->s.m1_velocity", "s.m1_force->m.force"}
	got := g.Edges()
	if len(got) != len(want) {
		t.Fatalf("%d edges, want %d: %v", len(got), len(want), got)
	}
	for i, e := range got {
		if e.From+"->"+e.To != want[i] {
			t.Errorf("edge %d: %s->%s, want %s", i, e.From, e.To, want[i])
		}
	}
	if _, err := g.Build(); err != nil {
		t.Fatal(err)
	}
}
