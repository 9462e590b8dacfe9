package graph

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cosimgo/cosim/node"
)

// Graph is a set of named nodes and the edges between them, before it is
// validated. Add and Connect only record; Build checks everything at once
// and compiles a runnable [Sim]. A Graph is not safe for concurrent use.
type Graph struct {
	nodes []namedNode
	edges []edgeRec // compact Edges (edges.go)
	// names holds, once each, the field names of the edges' paths, the
	// node names of paths whose node was not added yet, and paths not of
	// the form node.field; nameAt indexes it.
	names      []string
	nameAt     map[string]int32
	transforms []Transform            // the edges' transforms (edgeRec.tr)
	combines   map[int32]node.Combine // declared Combine values outside int32, by edge
	index      map[string]int         // first node added under each name, for Node
	dups       int                    // nodes added under a name already taken
	last       int                    // the node Node found last, tried first
	loops      LoopSettings           // SetLoopSettings (loop.go)

	subs []namedSub // subsystems (subsystem.go), flattened by Build
	// flat marks a graph Flatten made: its node names are full paths
	// ("leg2.knee.spring"), checked level by level by Flatten.
	flat bool
}

type namedNode struct {
	name string
	n    node.Node
}

// Edge connects a source field (a state field or an output, "node.field")
// to a boundary input ("node.input"), optionally through a Transform.
type Edge struct {
	From, To  string
	Transform Transform // nil: identity
	// Combine is the rule (additive or replacing) the edge was declared
	// with (see As); it is meaningful only when Declared reports true.
	Combine  node.Combine
	declared bool
	repeat   bool
}

// Declared reports whether the edge was connected with an As option.
func (e Edge) Declared() bool { return e.declared }

// Repeated reports whether the edge was connected with the Repeat option:
// it may repeat an earlier edge from the same source into the same
// additive input.
func (e Edge) Repeated() bool { return e.repeat }

// New returns an empty graph.
func New() *Graph { return &Graph{} }

// Add adds a node under a name unique in the graph. Names may not contain
// '.'. Problems are reported by Build.
func (g *Graph) Add(name string, n node.Node) {
	if g.index == nil {
		g.index = map[string]int{}
	}
	if _, dup := g.index[name]; !dup {
		g.index[name] = len(g.nodes)
	} else {
		g.dups++
	}
	g.nodes = grow(g.nodes)
	g.nodes = append(g.nodes, namedNode{name, n})
}

// grow returns s with room for one more element, doubling its capacity
// when full: graphs of a million nodes and edges are built one Add or
// Connect at a time, and append's slower growth for large slices would
// copy them several times over.
func grow[T any](s []T) []T {
	if len(s) < cap(s) {
		return s
	}
	t := make([]T, len(s), 2*len(s)+8)
	copy(t, s)
	return t
}

// Connect wires the source field from ("node.field", a state field or an
// output) into the boundary input to ("node.input"), qualified by options
// (Via a transform, As a declared combine rule). Edges into one additive
// input are summed in the order they were connected. Problems are reported by Build.
func (g *Graph) Connect(from, to string, opts ...Option) {
	e := Edge{From: from, To: to}
	for _, o := range opts {
		o.apply(&e)
	}
	g.addEdge(e)
}

// Node returns the node added under name.
func (g *Graph) Node(name string) (node.Node, bool) {
	// Builders look nodes up in the order they added them (a connector's
	// bodies, one after another): try the last node found and the next
	// before hashing. Without duplicate names, a name found in g.nodes is
	// the one g.index holds.
	if g.dups == 0 {
		for _, i := range [2]int{g.last, g.last + 1} {
			if i < len(g.nodes) && g.nodes[i].name == name {
				g.last = i
				return g.nodes[i].n, true
			}
		}
	}
	i, ok := g.index[name]
	if !ok {
		return nil, false
	}
	g.last = i
	return g.nodes[i].n, true
}

// Names returns the node names in the order they were added.
func (g *Graph) Names() []string {
	out := make([]string, len(g.nodes))
	for i, nn := range g.nodes {
		out[i] = nn.name
	}
	return out
}

// Edges returns the edges in the order they were connected.
func (g *Graph) Edges() []Edge {
	out := make([]Edge, len(g.edges))
	for i := range g.edges {
		out[i] = g.edge(i)
	}
	return out
}

// NumEdges returns the number of edges connected so far (len(Edges())
// without the copy).
func (g *Graph) NumEdges() int { return len(g.edges) }

// BuildError collects every problem Build found, in a fixed order: node
// problems in the order nodes were added, then edge problems in the order
// edges were connected, then unconnected inputs, then algebraic loops.
type BuildError struct {
	Problems []error
}

func (e *BuildError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "graph: %d problem", len(e.Problems))
	if len(e.Problems) != 1 {
		b.WriteString("s")
	}
	for _, p := range e.Problems {
		b.WriteString("\n\t")
		b.WriteString(p.Error())
	}
	return b.String()
}

// Unwrap lets errors.Is and errors.As see every problem.
func (e *BuildError) Unwrap() []error { return e.Problems }

// Sentinel causes of wiring problems, for errors.Is.
var (
	ErrUnknownNode    = errors.New("unknown node")
	ErrUnknownField   = errors.New("unknown field")
	ErrShape          = errors.New("shape mismatch")
	ErrUnits          = errors.New("units differ")
	ErrReplacing      = errors.New("more than one edge into a replacing input")
	ErrMixedCombine   = errors.New("additive and replacing edges mixed")
	ErrUnconnected    = errors.New("required input unconnected")
	ErrDuplicateName  = errors.New("duplicate node name")
	ErrBadName        = errors.New("invalid node name")
	ErrAmbiguousField = errors.New("ambiguous field")
	ErrDuplicateEdge  = errors.New("edge repeats another")
	ErrTransform      = errors.New("invalid transform")
)

// EdgeError is a wiring problem with one edge or input.
type EdgeError struct {
	Edge   string // "from -> to", or the input "node.input"
	Err    error  // one of the sentinels
	Detail string
}

func (e *EdgeError) Error() string { return fmt.Sprintf("%s: %v: %s", e.Edge, e.Err, e.Detail) }
func (e *EdgeError) Unwrap() error { return e.Err }

// LoopError reports an algebraic loop: a cycle of nodes whose outputs
// read their inputs directly (feedthrough), so no evaluation order exists.
type LoopError struct {
	Members []string // node names, sorted
}

func (e *LoopError) Error() string {
	return fmt.Sprintf("algebraic loop of direct feedthrough through nodes %s: break it with an edge from a state field, or let Build solve it (LoopSettings.Refuse false)", strings.Join(e.Members, ", "))
}

// ErrAlgebraicLoop is the errors.Is target of a LoopError.
var ErrAlgebraicLoop = errors.New("algebraic loop")

func (e *LoopError) Is(target error) bool { return target == ErrAlgebraicLoop }
