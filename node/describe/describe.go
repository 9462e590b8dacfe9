package describe

import "github.com/cosimgo/cosim/node"

// Description is the stable, documented JSON form of a node type's
// self-description, printed by `cosim describe TYPE --json` and read by
// the documentation generator. Fields are only ever added, never renamed
// or removed, within a major version of cosim; docs/describe-json.md
// documents every field.
type Description struct {
	Type        string         `json:"type"`
	Package     string         `json:"package"`
	Metadata    node.Metadata  `json:"metadata"`
	State       []Field        `json:"state"`
	Params      []Param        `json:"parameters"`
	Inputs      []Input        `json:"inputs"`
	Outputs     []Field        `json:"outputs"`
	Events      []node.Event   `json:"events"`
	Feedthrough bool           `json:"feedthrough"`
	Caps        []string       `json:"capabilities"`
	Extra       map[string]any `json:"extra,omitempty"` // filled by callers (anomaly records, evidence)
}

// Field describes a state field or an output.
type Field struct {
	Name        string    `json:"name"`
	Shape       string    `json:"shape"` // "scalar" or "(n,)"
	Size        int       `json:"size"`
	Units       string    `json:"units"`
	Description string    `json:"description"`
	Role        node.Role `json:"role"`
	Rate        string    `json:"rate,omitempty"`
	// Formerly are the field's former names, which graphs, scene files
	// and checkpoints still resolve with a deprecation warning.
	Formerly []string `json:"formerly,omitempty"`
}

// Param describes a parameter.
type Param struct {
	Name        string         `json:"name"`
	Kind        node.ParamKind `json:"kind"`
	Shape       string         `json:"shape"`
	Default     any            `json:"default"`
	Units       string         `json:"units"`
	Description string         `json:"description"`
	Valid       string         `json:"valid"`
	Choices     []string       `json:"choices,omitempty"`
	Aliases     []string       `json:"aliases,omitempty"`
}

// Input describes a boundary input.
type Input struct {
	Name        string `json:"name"`
	Shape       string `json:"shape"`
	Size        int    `json:"size"`
	Units       string `json:"units"`
	Description string `json:"description"`
	// Combine says how edges into the input combine: additive (summed)
	// or replacing (exactly one).
	Combine node.Combine `json:"combine"`
	// Coupling is Combine under its former name, kept because fields
	// are never renamed within a major version (docs/describe-json.md).
	//
	// Deprecated: use Combine.
	Coupling node.Combine `json:"coupling"`
	Default  []float64    `json:"default"` // null when absent or required
	Absent   bool         `json:"absent"`
	Required bool         `json:"required"`
}

// Of returns the Description of n.
func Of(n node.Node) Description {
	s := n.Spec()
	d := Description{Type: s.Type, Package: s.Package, Metadata: s.Meta, Feedthrough: s.Feedthrough,
		State: []Field{}, Params: []Param{}, Inputs: []Input{}, Outputs: []Field{}, Events: []node.Event{}}
	fd := func(f node.Field) Field {
		return Field{Name: f.Name, Shape: f.Shape.String(), Size: f.Shape.Len(), Units: f.Units, Description: f.Description, Role: f.Role, Rate: f.Rate, Formerly: f.Formerly}
	}
	for _, f := range s.State {
		d.State = append(d.State, fd(f))
	}
	for _, f := range s.Outputs {
		d.Outputs = append(d.Outputs, fd(f))
	}
	for _, p := range s.Params {
		def := p.Default
		if p.Kind == node.Function {
			def = nil
		}
		d.Params = append(d.Params, Param{Name: p.Name, Kind: p.Kind, Shape: p.Shape.String(), Default: def, Units: p.Units, Description: p.Description, Valid: p.Valid(), Choices: p.Choices, Aliases: p.Aliases})
	}
	for _, in := range s.Inputs {
		d.Inputs = append(d.Inputs, Input{Name: in.Name, Shape: in.Shape.String(), Size: in.Shape.Len(), Units: in.Units, Description: in.Description, Combine: in.Combine, Coupling: in.Combine, Default: in.Default, Absent: in.Absent, Required: in.Required()})
	}
	d.Events = append(d.Events, s.Events...)
	d.Caps = node.Capabilities(n)
	return d
}
