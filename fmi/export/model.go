package export

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cosimgo/cosim/fmi"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/scene"
)

// This file resolves a scene's fmu section against its graph into the
// FMU's variables (Model): their value references, types, sizes, units,
// start values and what each binds in the graph. Both sides of an export
// compute it from the same scene file — cosim export to write the model
// description, the FMU's library to run — so they agree on every value
// reference; the instantiation token hashes the scene and the variables,
// and the library refuses a token that does not match what it computes.

// Causality says what an FMU variable is: its FMI causality (the
// independent variable time, a parameter, an input or an output). A
// Variable's Kind holds it.
type Causality int

// Kind is the former name of Causality.
//
// Deprecated: use Causality (node.ParamKind is a parameter's value type).
type Kind = Causality

// Causalities, in value-reference order.
const (
	Time Causality = iota
	Parameter
	Input
	Output
)

func (k Causality) String() string {
	return [...]string{"time", "parameter", "input", "output"}[k]
}

// Variable is one variable of an exported FMU.
type Variable struct {
	Name string
	VR   uint32
	Kind Causality
	// Type is the FMI type: Float64 (time, inputs, outputs, real and
	// vector parameters), Int64 (integer parameters) or Boolean.
	Type fmi.VarType
	// Size is the number of values; Array marks a variable with a
	// dimension (a vector), even of one element.
	Size  int
	Array bool
	// Units in cosim's spelling ("" or "1" for none).
	Units       string
	Description string
	// Start values (parameters and inputs).
	Start []float64
	// Min and Max bound a parameter (NaN: no bound).
	Min, Max float64
	// Tunable: a parameter that may be set between steps (its node is a
	// node.Tunable); otherwise only before initialization.
	Tunable bool
	// Path is what the variable binds: "node.param" for a parameter,
	// "node.field" or "node.field[i]" for an output; Targets are an
	// input's node inputs.
	Path    string
	Targets []string
	// State marks an output that is a state field: its value at a
	// communication point does not depend on the inputs set there.
	State bool

	nodeName, param string // a parameter's node and parameter
	kind            node.ParamKind
	shape           node.Shape // an input's shape (its targets')
}

// Model is the FMU an exported scene makes.
type Model struct {
	// Name is the modelName; Identifier the modelIdentifier (a C
	// identifier: the binary's name).
	Name, Identifier, Description string
	// Variables in value-reference order: time (0), then the parameters,
	// the inputs and the outputs, numbered from 1.
	Variables []Variable
	// The scene's step and end time, and its adaptive integrator's
	// relative tolerance (NaN for a fixed-step run).
	Dt, Stop, Tolerance float64
	// Token is the instantiation token: a hash of the scene file and the
	// variables.
	Token string
}

// Variable returns the variable of value reference vr, or nil.
func (m *Model) Variable(vr uint32) *Variable {
	if int(vr) < len(m.Variables) {
		return &m.Variables[vr]
	}
	return nil
}

// newModel resolves the scene's fmu section against g, the scene's graph
// built without overrides. sceneFile is the scene as the FMU carries it
// (resources/scene.json), hashed into the token; fallbackName names the
// model when neither the fmu section nor the scene does.
func newModel(sc *scene.Scene, g *graph.Graph, sceneFile []byte, fallbackName string) (*Model, error) {
	f := sc.FMU
	if f == nil {
		f = &scene.FMU{}
	}
	m := &Model{Name: f.ModelName, Description: f.Description, Dt: sc.Run.Dt, Stop: sc.EndTime(), Tolerance: math.NaN()}
	if m.Name == "" {
		m.Name = sc.Name
	}
	if m.Name == "" {
		m.Name = fallbackName
	}
	if m.Description == "" {
		m.Description = sc.Description
	}
	m.Identifier = identifier(m.Name)
	if in := sc.Run.Integrator; sc.Run.Monolithic() && in != nil && in.Adaptive {
		m.Tolerance = in.RTol
		if m.Tolerance == 0 {
			m.Tolerance = 1e-6 // the adaptive integrators' default
		}
	}
	m.Variables = append(m.Variables, Variable{Name: "time", Kind: Time, Type: fmi.Float64, Size: 1, Units: "s",
		Description: "Simulation time", Min: math.NaN(), Max: math.NaN()})
	var errs []error
	bad := func(path string, f string, a ...any) {
		errs = append(errs, &scene.Error{Path: path, Err: fmt.Errorf(f, a...)})
	}
	spec := func(path, name string) (node.Node, *node.Spec, bool) {
		n, ok := g.Node(name)
		if !ok {
			bad(path, "no node %q in the scene%s", name, node.DidYouMean(name, g.Names()))
			return nil, nil, false
		}
		return n, n.Spec(), true
	}
	for i, p := range f.Parameters {
		at := fmt.Sprintf("fmu.parameters[%d].param", i)
		nn, pn := splitPath(p.Param)
		n, s, ok := spec(at, nn)
		if !ok {
			continue
		}
		v, err := parameter(n, s, sc, nn, pn)
		if err != nil {
			bad(at, "%s: %v", p.Param, err)
			continue
		}
		v.Name, v.Path = p.VariableName(), p.Param
		if p.Description != "" {
			v.Description = p.Description
		}
		m.Variables = append(m.Variables, v)
	}
	fed := map[string]int{} // node inputs fed by edges of the scene
	for _, e := range g.Edges() {
		fed[e.To]++
	}
	for i, in := range f.Inputs {
		at := fmt.Sprintf("fmu.inputs[%d]", i)
		v := Variable{Name: in.VariableName(), Kind: Input, Type: fmi.Float64, Targets: in.To, Min: math.NaN(), Max: math.NaN(), Description: in.Description}
		ok := true
		for j, to := range in.To {
			tat := fmt.Sprintf("%s.to[%d]", at, j)
			nn, inName := splitPath(to)
			_, s, found := spec(tat, nn)
			if !found {
				ok = false
				continue
			}
			k := slices.IndexFunc(s.Inputs, func(d node.Input) bool { return d.Name == inName })
			if k < 0 {
				names := make([]string, len(s.Inputs))
				for q, d := range s.Inputs {
					names[q] = d.Name
				}
				bad(tat, "%s: node %q (%s) has no input %q%s", to, nn, s.Type, inName, node.DidYouMean(inName, names))
				ok = false
				continue
			}
			d := s.Inputs[k]
			start := d.Default
			switch {
			case d.Absent:
				bad(tat, "%s is optional (it has no value when nothing feeds it), and an FMU input always has one: wire it in the scene, or drive another input", to)
				ok = false
				continue
			case fed[to] > 0 && d.Combine == node.Replacing:
				bad(tat, "%s is fed by an edge of the scene already, and takes one: an FMU input needs an input nothing feeds (or an additive one, which it adds to)", to)
				ok = false
				continue
			case fed[to] > 0 || start == nil:
				// An additive input the scene feeds: the FMU input adds
				// to it, and starts at 0 so that the sum is the scene's.
				// A required input starts at 0 too.
				start = make([]float64, d.Shape.Len())
			}
			if j == 0 {
				v.Size, v.Array, v.Units, v.Start, v.shape = d.Shape.Len(), d.Shape.Len() > 1, d.Units, slices.Clone(start), d.Shape
				if v.Description == "" {
					v.Description = d.Description
				}
				continue
			}
			if d.Shape.Len() != v.Size || d.Units != v.Units {
				bad(tat, "%s has %d values in %q; %s, which the same FMU input drives, %d in %q", to, d.Shape.Len(), d.Units, in.To[0], v.Size, v.Units)
				ok = false
			} else if !slices.Equal(start, v.Start) {
				bad(tat, "%s starts at %v, %s at %v: one FMU input has one start value", to, start, in.To[0], v.Start)
				ok = false
			}
		}
		if ok {
			m.Variables = append(m.Variables, v)
		}
	}
	for i, o := range f.Outputs {
		at := fmt.Sprintf("fmu.outputs[%d].from", i)
		v, err := output(g, o.From)
		if err != nil {
			bad(at, "%v", err)
			continue
		}
		v.Name = o.VariableName()
		if o.Description != "" {
			v.Description = o.Description
		}
		m.Variables = append(m.Variables, v)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	for i := range m.Variables {
		m.Variables[i].VR = uint32(i)
	}
	m.Token = token(sceneFile, m)
	return m, nil
}

// parameter resolves the node parameter pn of node n (named nn).
func parameter(n node.Node, s *node.Spec, sc *scene.Scene, nn, pn string) (Variable, error) {
	p, ok := s.Param(pn)
	if !ok {
		return Variable{}, fmt.Errorf("node %q (%s) has no parameter %q%s", nn, s.Type, pn, node.DidYouMean(pn, s.ParamNames()))
	}
	v := Variable{Kind: Parameter, nodeName: nn, param: pn, kind: p.Kind, Units: p.Units, Description: p.Description, Min: math.NaN(), Max: math.NaN()}
	// The parameter's value in the scene's graph: the node's own account
	// when it has one, else the scene's value or the default.
	var val any
	if tn, ok := node.As[node.Tunable](n); ok {
		v.Tunable = true
		val = tn.Params()[pn]
	} else {
		val = p.Default
		for _, sn := range sc.Nodes {
			if sn.Name == nn {
				if x, ok := sn.Params[pn]; ok {
					val = x
				}
			}
		}
		for _, sn := range sc.Connectors {
			if sn.Name == nn {
				if x, ok := sn.Params[pn]; ok {
					val = x
				}
			}
		}
		if r, err := node.Resolve(s.Type, []node.Param{p}, nil, map[string]any{pn: val}); err == nil {
			val = r[pn]
		}
	}
	switch p.Kind {
	case node.Real:
		x, ok := val.(float64)
		if !ok {
			return Variable{}, fmt.Errorf("has the value %v (%T), not a number", val, val)
		}
		v.Type, v.Size, v.Start = fmi.Float64, 1, []float64{x}
	case node.Vector:
		xs, ok := val.([]float64)
		if !ok {
			return Variable{}, fmt.Errorf("has the value %v (%T), not a vector", val, val)
		}
		v.Type, v.Size, v.Array, v.Start = fmi.Float64, len(xs), true, slices.Clone(xs)
	case node.Integer:
		k, ok := val.(int)
		if !ok {
			return Variable{}, fmt.Errorf("has the value %v (%T), not an integer", val, val)
		}
		v.Type, v.Size, v.Start = fmi.Int64, 1, []float64{float64(k)}
	case node.Bool:
		b, ok := val.(bool)
		if !ok {
			return Variable{}, fmt.Errorf("has the value %v (%T), not a Boolean", val, val)
		}
		x := 0.0
		if b {
			x = 1
		}
		v.Type, v.Size, v.Start = fmi.Boolean, 1, []float64{x}
	default:
		return Variable{}, fmt.Errorf("is a %s parameter; an FMU exposes real, integer, Boolean and vector parameters", p.Kind)
	}
	if p.Range.Bounded && p.Kind != node.Bool {
		if !math.IsInf(p.Range.Min, 0) {
			v.Min = p.Range.Min
		}
		if !math.IsInf(p.Range.Max, 0) {
			v.Max = p.Range.Max
		}
	}
	return v, nil
}

// splitPath splits "node.field" at its last '.': the nodes of a scene's
// subsystems are named by their paths ("leg2.knee.spring.stiffness").
func splitPath(p string) (nodeName, field string) {
	i := strings.LastIndexByte(p, '.')
	if i < 0 {
		return p, ""
	}
	return p[:i], p[i+1:]
}

// output resolves an output path "node.field" or "node.field[i]".
func output(g *graph.Graph, path string) (Variable, error) {
	base, comp := path, -1
	if i := strings.IndexByte(path, '['); i >= 0 {
		fmt.Sscanf(path[i:], "[%d]", &comp)
		base = path[:i]
	}
	nn, fn := splitPath(base)
	n, ok := g.Node(nn)
	if !ok {
		return Variable{}, fmt.Errorf("%s: no node %q in the scene%s", path, nn, node.DidYouMean(nn, g.Names()))
	}
	s := n.Spec()
	v := Variable{Kind: Output, Type: fmi.Float64, Path: path, Min: math.NaN(), Max: math.NaN()}
	var fld node.Field
	if i := s.StateLayout.Index(fn); i >= 0 {
		fld, v.State = s.State[i], true
	} else if i := s.OutputLayout.Index(fn); i >= 0 {
		fld = s.Outputs[i]
	} else {
		var names []string
		for _, f := range append(slices.Clone(s.State), s.Outputs...) {
			names = append(names, f.Name)
		}
		return Variable{}, fmt.Errorf("%s: node %q (%s) has no state field or output %q%s", path, nn, s.Type, fn, node.DidYouMean(fn, names))
	}
	v.Units, v.Description = fld.Units, fld.Description
	v.Size, v.Array = fld.Shape.Len(), fld.Shape.Len() > 1
	if comp >= 0 {
		if comp >= fld.Shape.Len() {
			return Variable{}, fmt.Errorf("%s: %s.%s has %d components", path, nn, fn, fld.Shape.Len())
		}
		v.Size, v.Array = 1, false
	}
	return v, nil
}

// identifier makes a C identifier of a model name: the modelIdentifier,
// which names the FMU's binary.
func identifier(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	id := b.String()
	if id == "" || id[0] >= '0' && id[0] <= '9' {
		id = "m_" + id
	}
	return id
}

// token hashes the scene file and the variables into the instantiation
// token, in the form of a GUID.
func token(sceneFile []byte, m *Model) string {
	h := sha256.New()
	fmt.Fprintf(h, "cosim-fmu-export 1\n%d\n", len(sceneFile))
	h.Write(sceneFile)
	for _, v := range m.Variables {
		fmt.Fprintf(h, "%q %d %d %s %d %v %v\n", v.Name, v.VR, v.Kind, v.Type, v.Size, v.Array, v.Tunable)
	}
	x := hex.EncodeToString(h.Sum(nil))
	return "{" + x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32] + "}"
}
