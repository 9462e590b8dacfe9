package scene

import (
	"fmt"
	"strings"

	"github.com/cosimgo/cosim/node"
)

// FMU is the "fmu" section of a scene: what `cosim export` makes the
// scene's FMU interface (docs/fmi.md, "Exporting a scene"). Every entry
// names a node of the scene; the names an FMU variable takes default to
// the path it binds ("mass.force"), and are unique within the FMU. The
// exported FMU's variables are, in this order: time, the parameters, the
// inputs, the outputs.
type FMU struct {
	// ModelName is the FMU's modelName; empty means the scene's name,
	// else the exported file's base name.
	ModelName string `json:"model_name,omitempty"`
	// Description is the FMU's description; empty means the scene's.
	Description string `json:"description,omitempty"`
	// Inputs are FMU inputs, each driving node inputs.
	Inputs []FMUInput `json:"inputs,omitempty"`
	// Outputs are FMU outputs, each a state field or output of a node.
	Outputs []FMUOutput `json:"outputs,omitempty"`
	// Parameters are node parameters the FMU exposes as its own: tunable
	// (settable between steps) when the node accepts new parameters
	// while it runs (node.Tunable), fixed (settable before
	// initialization) otherwise.
	Parameters []FMUParameter `json:"parameters,omitempty"`
}

// FMUInput is an FMU input: its value drives the node inputs To
// ("node.input"), which no edge of the scene may feed (replacing inputs)
// and which must share one shape and unit. Its start value is their
// default, so that the FMU run without setting it computes what the
// scene's own run does.
type FMUInput struct {
	Name        string   `json:"name,omitempty"`
	To          []string `json:"to"`
	Description string   `json:"description,omitempty"`
}

// FMUOutput is an FMU output: the value of From ("node.field" or
// "node.field[i]", a state field or an output).
type FMUOutput struct {
	Name        string `json:"name,omitempty"`
	From        string `json:"from"`
	Description string `json:"description,omitempty"`
}

// FMUParameter is an FMU parameter: the node parameter Param
// ("node.param", a real, integer, Boolean or vector parameter), whose
// start value is the scene's value (or the parameter's default).
type FMUParameter struct {
	Name        string `json:"name,omitempty"`
	Param       string `json:"param"`
	Description string `json:"description,omitempty"`
}

// VariableName returns an entry's FMU variable name: its Name, or the
// path it binds.
func (in FMUInput) VariableName() string {
	if in.Name != "" || len(in.To) == 0 {
		return in.Name
	}
	return in.To[0]
}

// VariableName returns the output's FMU variable name.
func (o FMUOutput) VariableName() string {
	if o.Name != "" {
		return o.Name
	}
	return o.From
}

// VariableName returns the parameter's FMU variable name.
func (p FMUParameter) VariableName() string {
	if p.Name != "" {
		return p.Name
	}
	return p.Param
}

// checkFMU checks the fmu section's structure: every path names a node
// (or connector) of the scene and has the form its entry needs, and the
// variable names are unique and printable. Whether the fields, inputs and
// parameters exist is checked by cosim export, which builds the graph.
func (sc *Scene) checkFMU(bad func(path, f string, a ...any)) {
	f := sc.FMU
	if f == nil {
		return
	}
	known := map[string]bool{}
	var names []string
	for _, n := range sc.Nodes {
		known[n.Name] = true
		names = append(names, n.Name)
	}
	for _, c := range sc.Connectors {
		known[c.Name] = true
		names = append(names, c.Name)
	}
	// path checks "node.x" (no component unless comp).
	path := func(at, p string, comp bool) {
		nn, fn, comp0, err := splitField(p)
		switch {
		case err != nil:
			bad(at, "%v", err)
		case !comp && comp0 >= 0:
			bad(at, "%q: a component [i] is for outputs; name the whole %s", p, fn)
		case !known[nn]:
			bad(at, "%q: no node %q in the scene%s", p, nn, node.DidYouMean(nn, names))
		}
	}
	seen := map[string]string{"time": "the FMU's independent variable"}
	name := func(at, n string) {
		switch {
		case n == "":
			bad(at, "missing")
		case strings.ContainsFunc(n, func(r rune) bool { return r < ' ' || r == 0x7f }):
			bad(at, "%q: FMU variable names are printable", n)
		default:
			if prev, dup := seen[n]; dup {
				bad(at, "%q is already the name of %s", n, prev)
			} else {
				seen[n] = at
			}
		}
	}
	for i, p := range f.Parameters {
		at := fmt.Sprintf("fmu.parameters[%d]", i)
		path(at+".param", p.Param, false)
		name(at+".name", p.VariableName())
	}
	for i, in := range f.Inputs {
		at := fmt.Sprintf("fmu.inputs[%d]", i)
		if len(in.To) == 0 {
			bad(at+".to", "missing: the node inputs (\"node.input\") the FMU input drives")
		}
		for j, to := range in.To {
			path(fmt.Sprintf("%s.to[%d]", at, j), to, false)
		}
		name(at+".name", in.VariableName())
	}
	for i, o := range f.Outputs {
		at := fmt.Sprintf("fmu.outputs[%d]", i)
		path(at+".from", o.From, true)
		name(at+".name", o.VariableName())
	}
}
