package table

import (
	"fmt"
	"maps"

	"github.com/cosimgo/cosim/node"
)

const (
	typeName      = "table"
	pkgPath       = "github.com/cosimgo/cosim/nodes/table"
	paramPosition = "position"
	outPosition   = "position"
)

// Type is the table's node type, for a [node.Registry]: a new value at each call.
func Type() node.Type { return node.Type{Name: "table", New: FromMap} }

// Params are the parameters of a table. The zero Params is the default.
type Params struct {
	// Position is the height of the surface (parameter position, m, any
	// finite value).
	Position float64
	// Appearance is how cosim view and render draw the surface (show,
	// draw_size, color); the zero value is the default.
	Appearance node.Appearance
}

// DefaultParams returns the defaults: a surface at height 0.
func DefaultParams() Params { return Params{Position: 0} }

// Node is a stateless source whose output position is its parameter
// position. Build it with [New] or [FromMap]. It implements [node.Node],
// [node.Outputter], [node.Tunable] and [node.Batcher].
type Node struct {
	node.Stateless

	spec *node.Spec
	vals node.Values
	// pos is the height Outputs and the batch kernel write; SetParams
	// publishes it to the kernels.
	pos node.Published[float64]
}

var (
	_ node.Node      = (*Node)(nil)
	_ node.Outputter = (*Node)(nil)
	_ node.Tunable   = (*Node)(nil)
	_ node.Batcher   = (*Node)(nil)
)

// New returns a table with the parameters p. A non-finite position is
// reported as a *[node.ParamError] naming the node "table".
func New(p Params) (*Node, error) {
	s := newSpec()
	v := node.Values{paramPosition: p.Position}
	p.Appearance.Put(v)
	vals, err := node.Resolve(typeName, s.Params, nil, v)
	if err != nil {
		return nil, err
	}
	return newNode(s, vals), nil
}

// FromMap returns a table from a name→value map with the single parameter
// name position; a nil map gives the defaults. Invalid values and unknown
// names are *[node.ParamError]s.
func FromMap(m map[string]any) (node.Node, error) {
	s := newSpec()
	vals, err := node.Resolve(typeName, s.Params, nil, m)
	if err != nil {
		return nil, err
	}
	return newNode(s, vals), nil
}

func newNode(s *node.Spec, vals node.Values) *Node {
	n := &Node{spec: s}
	n.apply(vals)
	return n
}

func (n *Node) apply(vals node.Values) {
	n.vals = vals
	n.pos.Set(vals.Float(paramPosition))
}

// Spec returns the table's description, built once at construction.
func (n *Node) Spec() *node.Spec { return n.spec }

// Outputs writes the surface height, the parameter position, into dst[0].
// It reads neither the state (there is none) nor the inputs (there are
// none), and never fails.
func (n *Node) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	if len(dst) != 1 {
		panic(fmt.Sprintf("table: Outputs: len(dst) = %d, want 1", len(dst)))
	}
	dst[0] = *n.pos.Get()
	return nil
}

// Params returns a copy of the current parameter values.
func (n *Node) Params() node.Values { return maps.Clone(n.vals) }

// SetParams overrides parameters by name. Every value is validated first;
// when one is invalid nothing changes. It must not be called while a graph
// is stepping the node (a graph may read Outputs concurrently); calling it
// between steps moves the table.
func (n *Node) SetParams(p map[string]any) error {
	vals, err := node.Resolve(typeName, n.spec.Params, n.vals, p)
	if err != nil {
		return err
	}
	n.apply(vals)
	return nil
}

func newSpec() *node.Spec {
	return node.NewSpec(node.Spec{
		Type:    typeName,
		Package: pkgPath,
		Params: append([]node.Param{{
			Name: paramPosition, Kind: node.Real, Default: 0.0, Units: "m",
			Description: "Height of the surface", Range: node.Finite(),
		}}, node.VisualParams("side of the square drawn for the surface (by default 20 body sizes)")...),
		Outputs: []node.Field{{
			Name: outPosition, Shape: node.Scalar, Units: "m",
			Description: "Height of the surface: the parameter position",
		}},
		Feedthrough: false,
		Meta:        metadata(),
	})
}

func metadata() node.Metadata {
	const id = pkgPath + "."
	return node.Metadata{
		AlgorithmID: "COSIM-NODE-101",
		Version:     "1.0.0",
		Stability:   node.Stable,
		Summary: "A fixed, perfectly rigid horizontal surface: a stateless source whose output position " +
			"is its parameter position, for the ball's table_position input.",
		Equations:      []string{`x_{\text{table}} = p`},
		EquationNotes:  "$x_{\\text{table}}$ is the output `position` (m); $p$ is the parameter `position` (m, any finite value).",
		Discretization: "",
		Order:          node.Order{},
		Assumptions: []string{
			"The surface is at rest: its height is a parameter, not a state, and it has no velocity",
			"One dimension: the surface is a height along the same axis as the bodies that meet it",
		},
		Limitations: []string{
			"Constant during a run: the height changes only through SetParams between steps, so a moving " +
				"surface jumps from step to step and a body meeting it sees no surface velocity.",
			"No velocity output: a node that needs the surface's velocity (restitution relative to a moving " +
				"surface) cannot get it from a table.",
		},
		Mapping: []node.Mapping{
			{Term: `x_{\text{table}} = p`, Identifier: id + "Node.Outputs", Notes: "Writes the parameter into the output `position`"},
			{Term: "$p$ (parameter)", Identifier: id + "Node.SetParams", Notes: "Validated as any finite number"},
			{Term: "Output `position`", Identifier: id + "Node.Spec", Notes: "Scalar, m, no feedthrough"},
		},
		Changelog: []node.Change{
			{Version: "1.0.0", Date: "2026-12-02", Change: "Initial implementation: the surface for the ball (MADD-NODE-001) as a separate source node"},
		},
	}
}
