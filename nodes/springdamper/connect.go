package springdamper

import (
	"fmt"
	"strings"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
)

// GroundName is the body name Connect reads as the ground (as is "").
const GroundName = "ground"

// Connect is the seed's CreateCartesianSpringDamper: it adds a connector
// named name to g between a point local0 of body0 and a point local1 of
// body1, and wires it. A body is looked up by its node name in g; "" or
// GroundName is the ground, with local the fixed world point (it is an
// error to name "ground" when g has a node of that name: use "").
//
// Edges: for a body marker k, every field in the body's MarkerFields goes
// into the connector's input m<k>_<field>, and every load output
// m<k>_<load> into the body's additive input <load>. The body must already
// be in g and implement node.Marker (an error wrapping ErrNotMarker names
// it otherwise). A local point that is not finite, or that the body
// refuses (a ball's axis must be a unit vector), is an error wrapping
// ErrMarkerLocal naming the connector, the marker (m0, m1) and the value.
// Problems with the edges are reported by g.Build.
func Connect(g *graph.Graph, name string, p Params, body0 string, local0 [3]float64, body1 string, local1 [3]float64) (*Node, error) {
	var ms [2]Marker
	names := [2]string{body0, body1}
	locals := [2][3]float64{local0, local1}
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
	if err := checkMarkers(name, ms); err != nil {
		return nil, err
	}
	n, err := newChecked(&p, ms[0], ms[1])
	if err != nil {
		return nil, err
	}
	g.Add(name, n)
	connectMarkers(g, name, names, n)
	return n, nil
}

// connectMarkers wires the connector's edges: per body marker k, every
// marker field into its input m<k>_<field> and every load output
// m<k>_<load> into the body's input. The paths of all the edges are cut
// from one string, so that wiring a connector allocates once, not once
// per path (a chain of 100 000 connectors has 1.2 million paths).
func connectMarkers(g *graph.Graph, name string, bodies [2]string, n *Node) {
	size := 0
	for k := range n.mk {
		mk := &n.mk[k]
		if mk.body == nil {
			continue
		}
		for i, f := range mk.fields {
			size += len(bodies[k]) + len(f) + len(name) + len(mk.inNames[i]) + 2
		}
		for i, l := range mk.loads {
			size += len(name) + len(mk.outNames[i]) + len(bodies[k]) + len(l) + 2
		}
	}
	var b strings.Builder
	b.Grow(size)
	var ends [32]int // end of each path in b; more paths spill to the heap
	cut := ends[:0]
	path := func(node, field string) {
		b.WriteString(node)
		b.WriteByte('.')
		b.WriteString(field)
		cut = append(cut, b.Len())
	}
	for k := range n.mk {
		mk := &n.mk[k]
		if mk.body == nil {
			continue
		}
		for i, f := range mk.fields {
			path(bodies[k], f)
			path(name, mk.inNames[i])
		}
		for i, l := range mk.loads {
			path(name, mk.outNames[i])
			path(bodies[k], l)
		}
	}
	all := b.String()
	for i := 0; i+1 < len(cut); i += 2 {
		start := 0
		if i > 0 {
			start = cut[i-1]
		}
		g.Connect(all[start:cut[i]], all[cut[i]:cut[i+1]])
	}
}
