package node

// Description is the stable, documented JSON form of a node type's
// self-description, printed by `cosim describe TYPE --json` and read by
// the documentation generator. Fields are only ever added, never renamed
// or removed, within a major version of cosim; docs/describe-json.md
// documents every field.
type Description struct {
	Type        string         `json:"type"`
	Package     string         `json:"package"`
	Metadata    Metadata       `json:"metadata"`
	State       []FieldDesc    `json:"state"`
	Params      []ParamDesc    `json:"parameters"`
	Inputs      []InputDesc    `json:"inputs"`
	Outputs     []FieldDesc    `json:"outputs"`
	Events      []Event        `json:"events"`
	Feedthrough bool           `json:"feedthrough"`
	Caps        []string       `json:"capabilities"`
	Extra       map[string]any `json:"extra,omitempty"` // filled by callers (anomaly records, evidence)
}

// FieldDesc describes a state field or an output.
type FieldDesc struct {
	Name        string `json:"name"`
	Shape       string `json:"shape"` // "scalar" or "(n,)"
	Size        int    `json:"size"`
	Units       string `json:"units"`
	Description string `json:"description"`
	Role        Role   `json:"role"`
	Rate        string `json:"rate,omitempty"`
}

// ParamDesc describes a parameter.
type ParamDesc struct {
	Name        string   `json:"name"`
	Kind        Kind     `json:"kind"`
	Shape       string   `json:"shape"`
	Default     any      `json:"default"`
	Units       string   `json:"units"`
	Description string   `json:"description"`
	Valid       string   `json:"valid"`
	Choices     []string `json:"choices,omitempty"`
	Aliases     []string `json:"aliases,omitempty"`
}

// InputDesc describes a boundary input.
type InputDesc struct {
	Name        string    `json:"name"`
	Shape       string    `json:"shape"`
	Size        int       `json:"size"`
	Units       string    `json:"units"`
	Description string    `json:"description"`
	Coupling    Coupling  `json:"coupling"`
	Default     []float64 `json:"default"` // null when absent or required
	Absent      bool      `json:"absent"`
	Required    bool      `json:"required"`
}

// Describe returns the Description of n.
func Describe(n Node) Description {
	s := n.Spec()
	d := Description{Type: s.Type, Package: s.Package, Metadata: s.Meta, Feedthrough: s.Feedthrough,
		State: []FieldDesc{}, Params: []ParamDesc{}, Inputs: []InputDesc{}, Outputs: []FieldDesc{}, Events: []Event{}}
	fd := func(f Field) FieldDesc {
		return FieldDesc{Name: f.Name, Shape: f.Shape.String(), Size: f.Shape.Len(), Units: f.Units, Description: f.Description, Role: f.Role, Rate: f.Rate}
	}
	for _, f := range s.State {
		d.State = append(d.State, fd(f))
	}
	for _, f := range s.Outputs {
		d.Outputs = append(d.Outputs, fd(f))
	}
	for _, p := range s.Params {
		def := p.Default
		if p.Kind == Function {
			def = nil
		}
		d.Params = append(d.Params, ParamDesc{Name: p.Name, Kind: p.Kind, Shape: p.Shape.String(), Default: def, Units: p.Units, Description: p.Description, Valid: p.Valid(), Choices: p.Choices, Aliases: p.Aliases})
	}
	for _, in := range s.Inputs {
		d.Inputs = append(d.Inputs, InputDesc{Name: in.Name, Shape: in.Shape.String(), Size: in.Shape.Len(), Units: in.Units, Description: in.Description, Coupling: in.Coupling, Default: in.Default, Absent: in.Absent, Required: in.Required()})
	}
	d.Events = append(d.Events, s.Events...)
	d.Caps = Capabilities(n)
	return d
}

// Capabilities lists the optional interfaces n implements, by name.
func Capabilities(n Node) []string {
	caps := []string{}
	add := func(ok bool, name string) {
		if ok {
			caps = append(caps, name)
		}
	}
	_, ok := As[Deriver](n)
	add(ok, "derivatives")
	_, ok = As[Outputter](n)
	add(ok, "outputs")
	_, ok = As[Tunable](n)
	add(ok, "tunable")
	_, ok = As[Eventer](n)
	add(ok, "events")
	_, ok = As[TimeEventer](n)
	add(ok, "time-events")
	_, ok = As[InputJacobian](n)
	add(ok, "derivatives-jacobian")
	_, ok = As[OutputJacobian](n)
	add(ok, "outputs-jacobian")
	_, ok = As[ParamJacobian](n)
	add(ok, "param-jacobian")
	_, ok = As[EventJacobian](n)
	add(ok, "event-jacobian")
	_, ok = As[ResetJacobian](n)
	add(ok, "reset-jacobian")
	_, ok = As[Marker](n)
	add(ok, "marker")
	_, ok = As[Drawer](n)
	add(ok, "drawer")
	return caps
}
