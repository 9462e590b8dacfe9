package spring

import (
	"fmt"

	"github.com/cosimgo/cosim/node"
)

var (
	_ node.Connector = Params{}
	_ node.Connector = connector{}
	_ node.Attached  = (*Node)(nil)
)

// Connect adds a spring named name to g between the ends e0 and e1 and
// wires it: each body's marker fields into the spring's inputs
// m<k>_<field>, the spring's loads m<k>_<load> into the body's additive
// inputs. g is a *graph.Graph (any node.ConnectorHost); an end is a body
// of g named by node.BodyAt(name, local) or node.Body(name), or the fixed
// world point node.GroundAt(p):
//
//	spring.Connect(g, "s", p, node.Body("m1"), node.GroundAt([3]float64{0, 2, 0}))
//
// This helper is node.Connect returning the *Node. The errors are New's,
// naming the connector, plus a body that is not in g or not a
// node.Marker (wrapping ErrNotMarker); every error about one end is a
// *node.EndError (errors.As) saying which.
func Connect(g node.ConnectorHost, name string, p Params, e0, e1 node.Attachment) (*Node, error) {
	n, err := node.Connect(g, name, p, e0, e1)
	if err != nil {
		return nil, err
	}
	return n.(*Node), nil
}

// NewConnector is the spring connector type with its parameters given as
// a name→value map (scene files; nil: defaults): the node.Type's
// Connector constructor. Every invalid parameter is a *node.ParamError.
func NewConnector(m map[string]any) (node.Connector, error) {
	vals, err := node.Resolve(TypeName, params, nil, m)
	if err != nil {
		return nil, err
	}
	return connector{vals: vals}, nil
}

// ConnectorType is TypeName: Params are a node.Connector, so
// graph.Graph.AddConnector(name, p, …) attaches a spring with them.
func (p Params) ConnectorType() string { return TypeName }

// Attach builds a spring with parameters p between ends (see New) and
// returns the links to its bodies; errors about one end are
// *node.EndError.
func (p Params) Attach(name string, ends [2]node.Attachment) (node.Node, []node.Link, error) {
	vals, err := node.Resolve(TypeName, params, nil, p.values())
	if err != nil {
		return nil, nil, err
	}
	return connector{vals: vals}.Attach(name, ends)
}

// connector is the spring type with validated parameter values.
type connector struct{ vals node.Values }

func (connector) ConnectorType() string { return TypeName }

func (c connector) Attach(name string, ends [2]node.Attachment) (node.Node, []node.Link, error) {
	n, err := newNode(name, c.vals, ends[0], ends[1])
	if err != nil {
		return nil, nil, err
	}
	_, links := n.Attachments()
	return n, links, nil
}

// Attachments returns the spring's ends as it was built with (the bodies,
// nil for the ground, and local points) and the links that attach it to
// its bodies: scene files use it to save a spring made in Go.
func (n *Node) Attachments() ([2]node.Attachment, []node.Link) {
	var ends [2]node.Attachment
	var links []node.Link
	for k := range n.mk {
		mk := &n.mk[k]
		ends[k] = node.Attachment{Body: mk.body, Local: mk.local}
		if mk.body == nil {
			continue
		}
		for _, f := range mk.fields {
			links = append(links, node.Link{End: k, BodyField: f, Port: fmt.Sprintf("m%d_%s", k, f)})
		}
		for _, l := range mk.loads {
			links = append(links, node.Link{End: k, BodyField: l, Port: fmt.Sprintf("m%d_%s", k, l), Load: true})
		}
	}
	return ends, links
}
