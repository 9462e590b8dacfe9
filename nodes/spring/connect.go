package spring

import (
	"fmt"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
)

// GroundName is the body name Connect reads as the ground (as is "").
const GroundName = "ground"

// Connect adds a spring named name to g between a point local0 of body0
// and a point local1 of body1, and wires it: each body's marker fields
// into the spring's inputs m<k>_<field>, the spring's loads m<k>_<load>
// into the body's additive inputs. A body is a node name in g; "" or
// GroundName is the ground, with local the fixed world point. The errors
// are New's, naming the connector, plus a body that is not in g or not a
// node.Marker (wrapping ErrNotMarker).
func Connect(g *graph.Graph, name string, p Params, body0 string, local0 [3]float64, body1 string, local1 [3]float64) (*Node, error) {
	vals, err := node.CheckValues(TypeName, params, p.values())
	if err != nil {
		return nil, err
	}
	return connect(g, name, vals, [2]string{body0, body1}, [2][3]float64{local0, local1})
}

// ConnectMap is Connect with the parameters as a name→value map (scene
// files; nil: defaults).
func ConnectMap(g *graph.Graph, name string, p map[string]any, body0 string, local0 [3]float64, body1 string, local1 [3]float64) (*Node, error) {
	vals, err := node.Resolve(TypeName, params, nil, p)
	if err != nil {
		return nil, err
	}
	return connect(g, name, vals, [2]string{body0, body1}, [2][3]float64{local0, local1})
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
func Between(g *graph.Graph, name string, p Params, e0, e1 End) (*Node, error) {
	var bodies [2]string
	var locals [2][3]float64
	for k, e := range [2]End{e0, e1} {
		b, l, err := e.connectorEnd()
		if err != nil {
			return nil, fmt.Errorf("%s: connector %q: body %d: %w", TypeName, name, k, err)
		}
		bodies[k], locals[k] = b, l
	}
	return Connect(g, name, p, bodies[0], locals[0], bodies[1], locals[1])
}

func connect(g *graph.Graph, name string, vals node.Values, names [2]string, locals [2][3]float64) (*Node, error) {
	var ms [2]Marker
	for k, b := range names {
		ms[k].Local = locals[k]
		if b == "" {
			continue
		}
		bn, ok := g.Node(b)
		if b == GroundName {
			if ok {
				return nil, fmt.Errorf("%s: connector %q: body %d is %q, but the graph has a node of that name; use \"\" for the ground or rename the node", TypeName, name, k, b)
			}
			continue
		}
		if !ok {
			return nil, fmt.Errorf("%s: connector %q: body %d: no node %q in the graph%s", TypeName, name, k, b, node.DidYouMean(b, g.Names()))
		}
		m, ok := node.As[node.Marker](bn)
		if !ok {
			return nil, fmt.Errorf("%s: connector %q: body %d: node %q (%s) does not implement node.Marker, so a connector cannot attach to it: %w", TypeName, name, k, b, bn.Spec().Type, ErrNotMarker)
		}
		ms[k].Body = m
	}
	n, err := newNode(name, vals, ms[0], ms[1])
	if err != nil {
		return nil, err
	}
	g.Add(name, n)
	for k, mk := range n.mk {
		if mk.body == nil {
			continue
		}
		for _, f := range mk.fields {
			g.Connect(names[k]+"."+f, fmt.Sprintf("%s.m%d_%s", name, k, f))
		}
		for _, l := range mk.loads {
			g.Connect(fmt.Sprintf("%s.m%d_%s", name, k, l), names[k]+"."+l)
		}
	}
	return n, nil
}
