package graph

import (
	"math"
	"strings"

	"github.com/cosimgo/cosim/node"
)

// edgeRec is an Edge as a Graph stores it until Build: 28 bytes that
// share their names, where an Edge is 64 bytes and two strings of its
// own. A chain of 100 000 masses has 600 000 edges; held as Edges, with
// their capacity grown by doubling, they took 86 MB of the user's Graph,
// live through Build beside the Sim being built.
//
// Each path is kept as its node part and its field part, split at the
// last '.' exactly as Build reads it (splitPath). The node part is the
// index of a node added under that name (whose name is the string), or,
// for a name no node had when the edge was connected, −1 − its index in
// Graph.names; the field part is an index in Graph.names. A path that is
// not of the form node.field is kept whole as the node part, with field
// part −1, for Build to report.
type edgeRec struct {
	fromNode, fromField int32
	toNode, toField     int32
	// tr is 1 + the index of the edge's transform in Graph.transforms;
	// 0: none.
	tr int32
	// combine is Edge.Combine; math.MinInt32 when it does not fit in 32
	// bits (then Graph.combines has it).
	combine          int32
	declared, repeat bool
}

// intern returns the index of s in g.names, adding it if new.
func (g *Graph) intern(s string) int32 {
	if i, ok := g.nameAt[s]; ok {
		return i
	}
	if g.nameAt == nil {
		g.nameAt = map[string]int32{}
	}
	i := int32(len(g.names))
	g.names = append(g.names, s)
	g.nameAt[s] = i
	return i
}

// nodePart encodes the node part of a path (edgeRec).
func (g *Graph) nodePart(name string) int32 {
	// Paths name the nodes just added or found (a connector and its
	// bodies): try those before hashing.
	for _, i := range [3]int{len(g.nodes) - 1, g.last, g.last + 1} {
		if i >= 0 && i < len(g.nodes) && g.nodes[i].name == name {
			return int32(i)
		}
	}
	if i, ok := g.index[name]; ok {
		return int32(i)
	}
	return -1 - g.intern(name)
}

// part is the string a node part encodes.
func (g *Graph) part(n int32) string {
	if n >= 0 {
		return g.nodes[n].name
	}
	return g.names[-1-n]
}

// parts returns a path's node and field names, as splitPath would; ok is
// false for a path not of the form node.field, whole in nn.
func (g *Graph) parts(n, f int32) (nn, fn string, ok bool) {
	if f < 0 {
		return g.part(n), "", false
	}
	return g.part(n), g.names[f], true
}

// path rebuilds a path.
func (g *Graph) path(n, f int32) string {
	if f < 0 {
		return g.part(n)
	}
	return g.part(n) + "." + g.names[f]
}

// encodePath encodes a path as its node and field parts.
func (g *Graph) encodePath(p string) (n, f int32) {
	nn, fn, ok := splitPath(p)
	if !ok {
		return -1 - g.intern(p), -1
	}
	return g.nodePart(nn), g.intern(fn)
}

// addEdge stores e.
func (g *Graph) addEdge(e Edge) {
	r := edgeRec{declared: e.declared, repeat: e.repeat}
	r.fromNode, r.fromField = g.encodePath(e.From)
	r.toNode, r.toField = g.encodePath(e.To)
	g.setRest(&r, e.Transform, e.Combine)
	g.edges = append(grow(g.edges), r)
}

// setRest stores an edge's transform and combine rule in r, which is
// about to become edge len(g.edges).
func (g *Graph) setRest(r *edgeRec, tr Transform, c node.Combine) {
	if tr != nil {
		g.transforms = append(g.transforms, tr)
		r.tr = int32(len(g.transforms))
	}
	if c >= math.MinInt32+1 && c <= math.MaxInt32 {
		r.combine = int32(c)
	} else {
		r.combine = math.MinInt32
		if g.combines == nil {
			g.combines = map[int32]node.Combine{}
		}
		g.combines[int32(len(g.edges))] = c
	}
}

// connectParts connects node0.field0 to node1.field1 (Connect without
// options) without building the paths' strings when each splits back into
// its node and field.
func (g *Graph) connectParts(node0, field0, node1, field1 string) {
	clean := func(n, f string) bool { return n != "" && f != "" && !strings.Contains(f, ".") }
	if !clean(node0, field0) || !clean(node1, field1) {
		g.addEdge(Edge{From: node0 + "." + field0, To: node1 + "." + field1})
		return
	}
	r := edgeRec{
		fromNode: g.nodePart(node0), fromField: g.intern(field0),
		toNode: g.nodePart(node1), toField: g.intern(field1),
	}
	g.edges = append(grow(g.edges), r)
}

// edgeFrom and edgeTo rebuild edge i's paths; edgeTransform and
// edgeCombine return its transform and combine rule.
func (g *Graph) edgeFrom(i int32) string {
	r := &g.edges[i]
	return g.path(r.fromNode, r.fromField)
}

func (g *Graph) edgeTo(i int32) string {
	r := &g.edges[i]
	return g.path(r.toNode, r.toField)
}

func (g *Graph) edgeTransform(i int32) Transform {
	if t := g.edges[i].tr; t > 0 {
		return g.transforms[t-1]
	}
	return nil
}

func (g *Graph) edgeCombine(i int32) node.Combine {
	if c := g.edges[i].combine; c != math.MinInt32 {
		return node.Combine(c)
	}
	return g.combines[i]
}

// edge rebuilds edge i as the Edge it was connected as.
func (g *Graph) edge(i int) Edge {
	r := &g.edges[i]
	return Edge{
		From: g.edgeFrom(int32(i)), To: g.edgeTo(int32(i)),
		Transform: g.edgeTransform(int32(i)), Combine: g.edgeCombine(int32(i)),
		declared: r.declared, repeat: r.repeat,
	}
}
