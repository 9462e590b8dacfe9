package constant

import (
	"maps"

	"github.com/cosimgo/cosim/node"
)

// TypeName is the registry name of the node type.
const TypeName = "constant"

// Type is the node type, for node.NewRegistry(constant.Type(), …): a
// new value at each call, so that no caller can change another's.
func Type() node.Type { return node.Type{Name: TypeName, New: FromMap} }

// Params are the node's parameters.
type Params struct {
	// Value is the constant 3-vector the node outputs. Default zero.
	Value [3]float64
	// Units are the units of Value, e.g. "N" for a load. Default "N".
	Units string
}

// DefaultParams returns a zero load in newtons.
func DefaultParams() Params { return Params{Units: "N"} }

func (p Params) values() node.Values {
	return node.Values{"value": p.Value[:], "units": p.Units}
}

var params = []node.Param{
	{Name: "value", Kind: node.Vector, Shape: node.Vec(3), Default: []float64{0, 0, 0}, Units: "",
		Description: "The constant 3-vector the node outputs, in the units of `units`"},
	{Name: "units", Kind: node.Text, Default: "N",
		Description: "Units of `value` and of the output, e.g. \"N\" for a load on a body's additive force input"},
}

// Node is a stateless source of a constant 3-vector: a load on a body, a
// prescribed point. It has no feedthrough.
type Node struct {
	node.Stateless
	spec *node.Spec
	vals node.Values
	// value is what Outputs and the batch kernel write; SetParams
	// publishes it to the kernels.
	value node.Published[[3]float64]
}

// New builds a constant source.
func New(p Params) (*Node, error) {
	vals, err := node.Resolve(TypeName, params, nil, p.values())
	if err != nil {
		return nil, err
	}
	return build(vals)
}

// FromMap builds a constant source from a parameter map (nil: defaults).
func FromMap(m map[string]any) (node.Node, error) {
	vals, err := node.Resolve(TypeName, params, nil, m)
	if err != nil {
		return nil, err
	}
	return build(vals)
}

func build(vals node.Values) (*Node, error) {
	units := vals.String("units")
	if units == "" {
		return nil, &node.ParamError{Node: TypeName, Param: "units", Value: units, Reason: "is empty", Valid: "a units string such as \"N\", or \"1\" when dimensionless"}
	}
	n := &Node{vals: vals}
	n.value.Set([3]float64(vals.Floats("value")))
	n.spec = node.NewSpec(node.Spec{
		Type:    TypeName,
		Package: "github.com/cosimgo/cosim/nodes/constant",
		Params:  params,
		Outputs: []node.Field{{Name: "value", Shape: node.Vec(3), Units: units, Description: "The constant value"}},
		Meta:    metadata(),
	})
	return n, nil
}

// Spec describes the node.
func (n *Node) Spec() *node.Spec { return n.spec }

// Outputs writes the constant into dst.
func (n *Node) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	put(*n.value.Get(), (*[3]float64)(dst))
	return nil
}

// put writes the value c into dst: Outputs and the batch kernel share it.
func put(c [3]float64, dst *[3]float64) { *dst = c }

// Params returns a copy of the parameter values.
func (n *Node) Params() node.Values { return maps.Clone(n.vals) }

// SetParams overrides the value (all or nothing). The units cannot change
// after construction: they are part of the node's spec, which graphs have
// already checked edges against.
func (n *Node) SetParams(p map[string]any) error {
	vals, err := node.Resolve(TypeName, params, n.vals, p)
	if err != nil {
		return err
	}
	if vals.String("units") != n.vals.String("units") {
		return &node.ParamError{Node: TypeName, Param: "units", Value: vals.String("units"),
			Reason: "cannot change after construction (edges were checked against it)", Valid: node.FormatValue(n.vals.String("units"))}
	}
	n.vals = vals
	n.value.Set([3]float64(vals.Floats("value")))
	return nil
}

func metadata() node.Metadata {
	const id = "github.com/cosimgo/cosim/nodes/constant."
	return node.Metadata{
		AlgorithmID: "COSIM-NODE-102",
		Version:     "1.0.0",
		Stability:   node.Stable,
		Summary:     "A constant 3-vector source, such as a load on a body's additive force input (the [0, −5, 0] N of the mini example of Exudyn's ObjectConnectorCartesianSpringDamper).",
		Equations:   []string{"\\mathbf{y}(t) = \\mathbf{c}"},
		Assumptions: []string{"The value does not change during a run; change it between runs with SetParams"},
		Limitations: []string{"Three components only; pick one with a `component` transform for a scalar input"},
		Mapping: []node.Mapping{
			{Term: "$\\mathbf{y} = \\mathbf{c}$", Identifier: id + "Node.Outputs"},
		},
		Changelog: []node.Change{{Version: "1.0.0", Date: "2026-12-02", Change: "Initial implementation, for loads in scenes"}},
	}
}
