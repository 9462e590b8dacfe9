package spring

import (
	"fmt"

	"github.com/cosimgo/cosim/node"
)

// GroundName is the body name Connect reads as the ground (as is ""); it
// is node.Ground.
const GroundName = node.Ground

var (
	_ node.Connector = Params{}
	_ node.Connector = connector{}
	_ node.Attached  = (*Node)(nil)
)

// Connect adds a spring named name to g between a point local0 of body0
// and a point local1 of body1, and wires it: each body's marker fields
// into the spring's inputs m<k>_<field>, the spring's loads m<k>_<load>
// into the body's additive inputs. g is a *graph.Graph (any
// node.ConnectorHost); this helper is g.AddConnector(name, p, …)
// returning the *Node. A body is a node name in g; "" or GroundName is
// the ground, with local the fixed world point. The errors are New's,
// naming the connector, plus a body that is not in g or not a
// node.Marker (wrapping ErrNotMarker); every error about one body is a
// *node.EndError (errors.As) saying which.
func Connect(g node.ConnectorHost, name string, p Params, body0 string, local0 [3]float64, body1 string, local1 [3]float64) (*Node, error) {
	n, err := g.AddConnector(name, p, body0, local0, body1, local1)
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
	n, err := newNode(name, c.vals, Marker(ends[0]), Marker(ends[1]))
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

// End is one end of a spring for Between: a body of the graph named by
// Body or BodyAt, or a ground Marker from Ground.
type End interface {
	connectorEnd() (body string, local [3]float64, err error)
}

type bodyEnd struct {
	name  string
	local [3]float64
}

func (e bodyEnd) connectorEnd() (string, [3]float64, error) {
	if e.name == "" || e.name == GroundName {
		return "", e.local, fmt.Errorf("Body(%q) names no body; use Ground(point) for the ground", e.name)
	}
	return e.name, e.local, nil
}

// connectorEnd makes a ground Marker an End. A Marker on a body is for
// New; in Between, name the body with Body or BodyAt.
func (m Marker) connectorEnd() (string, [3]float64, error) {
	if m.Body != nil {
		return "", m.Local, fmt.Errorf("a Marker on a body (spring.At) is for New; in Between name the body in the graph with Body or BodyAt")
	}
	return "", m.Local, nil
}

// Body is the marker at the body named name in the graph, at its origin
// (a point mass: the mass itself; a rigid body: its reference point).
func Body(name string) End { return bodyEnd{name: name} }

// BodyAt is the marker at local (body frame) on the body named name.
func BodyAt(name string, local [3]float64) End { return bodyEnd{name: name, local: local} }

// Between adds a spring between two ends and wires it, as Connect does:
//
//	spring.Between(g, "s", p, spring.Body("m1"), spring.Ground([3]float64{0, 2, 0}))
func Between(g node.ConnectorHost, name string, p Params, e0, e1 End) (*Node, error) {
	var bodies [2]string
	var locals [2][3]float64
	for k, e := range [2]End{e0, e1} {
		b, l, err := e.connectorEnd()
		if err != nil {
			return nil, &node.EndError{Type: TypeName, Connector: name, End: k, Err: err}
		}
		bodies[k], locals[k] = b, l
	}
	return Connect(g, name, p, bodies[0], locals[0], bodies[1], locals[1])
}
