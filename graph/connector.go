package graph

import (
	"fmt"
	"strings"

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
	bodies := [2]string{body0, body1}
	ends := [2]node.Attachment{{Local: local0}, {Local: local1}}
	typ := c.ConnectorType()
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
	// The paths of every link are cut from one string: a chain of 100 000
	// connectors has 1.2 million of them.
	size := 0
	for _, l := range links {
		if l.End < 0 || l.End > 1 || bodies[l.End] == "" || bodies[l.End] == node.Ground {
			panic(fmt.Sprintf("graph: connector type %s returned a link %+v to a ground end", typ, l))
		}
		size += len(bodies[l.End]) + len(l.BodyField) + len(name) + len(l.Port) + 2
	}
	var b strings.Builder
	b.Grow(size)
	for _, l := range links {
		b.WriteString(bodies[l.End])
		b.WriteByte('.')
		b.WriteString(l.BodyField)
		b.WriteString(name)
		b.WriteByte('.')
		b.WriteString(l.Port)
	}
	all, at := b.String(), 0
	cut := func(n int) string {
		s := all[at : at+n]
		at += n
		return s
	}
	for _, l := range links {
		body := cut(len(bodies[l.End]) + 1 + len(l.BodyField))
		port := cut(len(name) + 1 + len(l.Port))
		if l.Load {
			g.Connect(port, body)
		} else {
			g.Connect(body, port)
		}
	}
	return n, nil
}
