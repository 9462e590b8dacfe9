package graph_test

import (
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/masspoint"
)

// oddPorts is a connector whose links name fields no path can reach:
// holding a '.', or empty (a link naming a field neither node declares),
// on the connector's side, or on both sides.
type oddPorts struct{ spec *node.Spec }

func (oddPorts) ConnectorType() string { return "oddports" }
func (c oddPorts) Attach(name string, ends [2]node.Attachment) (node.Node, []node.Link, error) {
	return &oddPortsNode{spec: c.spec}, []node.Link{
		{End: 0, BodyField: "position", Port: "p.q"},
		{End: 0, BodyField: "position", Port: ""},
		{End: 0, BodyField: "p.q", Port: "p.q"},
		{End: 0, BodyField: "", Port: ""},
	}, nil
}

type oddPortsNode struct {
	node.Stateless
	spec *node.Spec
}

func (n *oddPortsNode) Spec() *node.Spec { return n.spec }

// A connector's edges are exactly the paths Graph.Edges reports: a graph
// wired by connecting those paths builds the same way, here with the same
// errors. A path splits at its last '.', so a port named "p.q" on
// connector c is never reached ("c.p.q" names field q of a node "c.p"),
// and an empty one leaves "c.", which is not of the form node.input; so
// for the body's fields.
func TestConnectorEdgesAreTheirPaths(t *testing.T) {
	spec := node.NewSpec(node.Spec{Type: "oddports", Inputs: []node.Input{
		{Name: "p.q", Shape: node.Vec(3), Units: "m", Description: "unreachable", Combine: node.Replacing, Default: []float64{0, 0, 0}},
	}})
	bodies := func() *graph.Graph {
		g := graph.New()
		for _, n := range []string{"a", "b"} {
			m, err := masspoint.New(masspoint.DefaultParams())
			if err != nil {
				t.Fatal(err)
			}
			g.Add(n, m)
		}
		return g
	}
	// A connector named "" (a bad name Build reports) makes paths such as
	// ".p.q" and ".", which are not of the form node.field either.
	for _, name := range []string{"c", ""} {
		g := bodies()
		c, err := g.AddConnector(name, oddPorts{spec}, "a", [3]float64{}, "b", [3]float64{})
		if err != nil {
			t.Fatal(err)
		}
		_, errConn := g.Build()
		h := bodies()
		h.Add(name, c)
		for _, e := range g.Edges() {
			h.Connect(e.From, e.To)
		}
		_, errPaths := h.Build()
		if errConn == nil || errPaths == nil || errConn.Error() != errPaths.Error() {
			t.Errorf("connector %q: Build of its graph: %v\nBuild of its edges' paths: %v\nwant the same error", name, errConn, errPaths)
		}
	}
}
