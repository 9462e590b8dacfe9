package springdamper

import (
	"slices"

	"github.com/cosimgo/cosim/node"
)

var (
	_ node.Connector = Params{}
	_ node.Connector = connector{}
	_ node.Attached  = (*Node)(nil)
)

// Connect is Exudyn's CreateCartesianSpringDamper: it adds a connector
// named name to g between the ends e0 and e1 and wires it. g is a
// *graph.Graph (any node.ConnectorHost); an end is a body of g named by
// node.BodyAt(name, local) or node.Body(name), or the fixed world point
// node.GroundAt(p):
//
//	springdamper.Connect(g, "k", p, node.Body("m1"), node.GroundAt(point))
//
// This helper is node.Connect returning the *Node. Edges: for a body
// marker k, every field in the body's MarkerFields goes into the
// connector's input m<k>_<field>, and every load output m<k>_<load> into
// the body's additive input <load>. The body must already be in g and
// implement node.Marker (an error wrapping ErrNotMarker names it
// otherwise). A local point that is not finite, or that the body refuses
// (a ball's axis must be a unit vector), is an error wrapping
// ErrMarkerLocal naming the connector, the marker (m0, m1) and the value.
// Every error about one end is a *node.EndError (errors.As) saying
// which. Problems with the edges are reported by g.Build.
func Connect(g node.ConnectorHost, name string, p Params, e0, e1 node.Attachment) (*Node, error) {
	n, err := node.Connect(g, name, p, e0, e1)
	if err != nil {
		return nil, err
	}
	return n.(*Node), nil
}

// NewConnector is the springdamper connector type with its parameters
// given as a name→value map (scene files; nil: defaults), as FromMap
// reads them: the node.Type's Connector constructor. Every invalid
// parameter is a *node.ParamError.
func NewConnector(m map[string]any) (node.Connector, error) {
	vals, err := node.Resolve(TypeName, params, nil, m)
	if err != nil {
		return nil, err
	}
	if _, err := newModel(vals); err != nil {
		return nil, err
	}
	return connector{vals: vals}, nil
}

// ConnectorType is TypeName: Params are a node.Connector, so
// graph.Graph.AddConnector(name, p, …) attaches a connector with them.
func (p Params) ConnectorType() string { return TypeName }

// Attach builds a connector with parameters p between ends (see New) and
// returns the links to its bodies; errors about one end are
// *node.EndError.
func (p Params) Attach(name string, ends [2]node.Attachment) (node.Node, []node.Link, error) {
	if err := checkMarkers(name, ends); err != nil {
		return nil, nil, err
	}
	n, err := newChecked(name, &p, ends[0], ends[1])
	if err != nil {
		return nil, nil, err
	}
	return n, n.links(), nil
}

// connector is the connector type with validated parameter values.
type connector struct{ vals node.Values }

func (connector) ConnectorType() string { return TypeName }

func (c connector) Attach(name string, ends [2]node.Attachment) (node.Node, []node.Link, error) {
	if err := checkMarkers(name, ends); err != nil {
		return nil, nil, err
	}
	n, err := newNode(name, c.vals, ends[0], ends[1])
	if err != nil {
		return nil, nil, err
	}
	return n, n.links(), nil
}

// Attachments returns the connector's ends as it was built with (the
// bodies, nil for the ground, and local points) and the links that attach
// it to its bodies: scene files use it to save a connector made in Go.
func (n *Node) Attachments() ([2]node.Attachment, []node.Link) {
	var ends [2]node.Attachment
	for k := range n.mk {
		mk := &n.mk[k]
		ends[k] = node.Attachment{Body: mk.body, Local: mk.local}
	}
	return ends, slices.Clone(n.links())
}

// links returns the links to the connector's bodies: shared by every
// connector of its signature (sig.go), so callers must not modify it.
func (n *Node) links() []node.Link { return n.sig.links }
