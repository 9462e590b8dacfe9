package graph

import (
	"fmt"

	"github.com/cosimgo/cosim/node"
)

var _ node.ConnectorHost = (*Graph)(nil)

// AddConnector attaches a connector of any type (a node.Connector:
// springdamper.Params, spring.Params, or a registered type's Connector)
// between a point local0 of body0 and a point local1 of body1, adds it
// under name, and connects every link the connector asks for: a body's
// marker field into the connector's input, the connector's load output
// into the body's additive input. It returns the connector node.
//
// A body is looked up by its node name, and must already be in g and
// implement node.Marker; "" or node.Ground is the ground, with local the
// fixed world point (naming node.Ground when g has a node of that name is
// an error: use ""). Every error about one body, from g or from the
// connector (a local point the body refuses), is a *node.EndError naming
// the connector and the end; parameter errors are the connector's
// (*node.ParamError). On error g is unchanged. Problems with the edges are
// reported by Build.
func (g *Graph) AddConnector(name string, c node.Connector, body0 string, local0 [3]float64, body1 string, local1 [3]float64) (node.Node, error) {
	if c == nil {
		return nil, fmt.Errorf("graph: AddConnector %q: the connector is nil; give its parameters (springdamper.Params, spring.Params, …) or a registered type's Connector", name)
	}
	bodies := [2]string{body0, body1}
	ends := [2]node.Attachment{{Local: local0}, {Local: local1}}
	typ := c.ConnectorType()
	if body0 == body1 && body0 != "" && body0 != node.Ground {
		return nil, &node.EndError{Type: typ, Connector: name, End: 1,
			Err: fmt.Errorf("both ends are on node %s: a connector acts between two bodies (or a body and the ground, \"\"); it cannot connect a node to itself", node.Quote(body0))}
	}
	for k, b := range bodies {
		if b == "" {
			continue
		}
		bn, ok := g.Node(b)
		if b == node.Ground {
			if ok {
				return nil, &node.EndError{Type: typ, Connector: name, End: k,
					Err: fmt.Errorf("%q is the ground, but the graph has a node of that name; use \"\" for the ground or rename the node", b)}
			}
			continue
		}
		if !ok {
			return nil, &node.EndError{Type: typ, Connector: name, End: k,
				Err: fmt.Errorf("no node %s in the graph%s", node.Quote(b), node.DidYouMean(b, g.Names()))}
		}
		m, ok := node.As[node.Marker](bn)
		if !ok {
			return nil, &node.EndError{Type: typ, Connector: name, End: k,
				Err: fmt.Errorf("node %s (%s) does not implement node.Marker, so a connector cannot attach to it: %w", node.Quote(b), bn.Spec().Type, node.ErrNotMarker)}
		}
		ends[k].Body = m
	}
	n, links, err := c.Attach(name, ends)
	if err != nil {
		return nil, err
	}
	g.Add(name, n)
	// The links are stored by their node and field names, without
	// building their paths: a chain of 100 000 connectors has 1.2 million.
	for _, l := range links {
		if l.End < 0 || l.End > 1 || bodies[l.End] == "" || bodies[l.End] == node.Ground {
			panic(fmt.Sprintf("graph: connector type %s returned a link %+v to a ground end", typ, l))
		}
	}
	for _, l := range links {
		if l.Load {
			g.connectParts(name, l.Port, bodies[l.End], l.BodyField)
		} else {
			g.connectParts(bodies[l.End], l.BodyField, name, l.Port)
		}
	}
	return n, nil
}
