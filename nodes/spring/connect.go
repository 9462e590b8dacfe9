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

// End is one end of a spring for Between: Body, BodyAt or GroundAt.
type End struct {
	body   string
	local  [3]float64
	ground bool
}

// Body is the marker at the body named name (its origin, for a rigid
// body; the mass itself, for a point mass).
func Body(name string) End { return End{body: name} }

// BodyAt is the marker at local (body frame) on the body named name.
func BodyAt(name string, local [3]float64) End { return End{body: name, local: local} }

// GroundAt is a marker fixed at the world point p.
func GroundAt(p [3]float64) End { return End{local: p, ground: true} }

// Between adds a spring between two ends and wires it, as Connect does:
//
//	spring.Between(g, "s", p, spring.Body("m1"), spring.GroundAt([3]float64{0, 2, 0}))
func Between(g *graph.Graph, name string, p Params, e0, e1 End) (*Node, error) {
	for k, e := range [2]End{e0, e1} {
		if !e.ground && (e.body == "" || e.body == GroundName) {
			return nil, fmt.Errorf("%s: connector %q: end %d: Body(%q) names no body; use GroundAt(point) for the ground", TypeName, name, k, e.body)
		}
	}
	return Connect(g, name, p, e0.body, e0.local, e1.body, e1.local)
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
