package fmi

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cosimgo/cosim/node"
)

// This file maps an FMU's variables onto a node's Spec: which variables
// become parameters, inputs, state fields, outputs and events, under
// which names, and how their values are read from and written to the FMU
// (valueMap).

// TypeName is the node type of every imported FMU, in scene files and in
// node.Spec.Type.
const TypeName = "fmu"

// The parameters every FMU node has besides the FMU's own.
const (
	ParamPath      = "path"
	ParamInterface = "interface"
	ParamInstance  = "instance"
	// ParamRTol and ParamATol are the tolerances of the adaptive
	// Dormand–Prince integration a model-exchange node runs in its own
	// Update (co-simulation mode).
	ParamRTol = "rtol"
	ParamATol = "atol"
	// ParamIsolate runs the FMU in a child process of its own
	// (Options.Isolate); ParamTimeout bounds each call into it, in
	// seconds (Options.Timeout).
	ParamIsolate = "isolate"
	ParamTimeout = "timeout"
)

// Defaults of ParamRTol and ParamATol: the tolerances of a
// model-exchange node's own integration over each Update in
// co-simulation.
const (
	DefaultUpdateRTol = 1e-8
	DefaultUpdateATol = 1e-10
)

// ErrNotImported: the FMU declares something cosim does not import
// (a String or Binary input or parameter it is asked to set, a clock, an
// empty array).
var ErrNotImported = errors.New("not supported")

// carried is one FMU variable that the node carries: a parameter, an
// input, a state field or an output.
type carried struct {
	v    *Variable
	vi   int    // index into ModelDescription.Variables
	name string // the node's name for it
	n    int    // elements (1 for a scalar)
}

// dropped is a variable the node does not carry, with the reason.
type dropped struct {
	Name, Why string
}

// mapping is the node's view of the FMU's variables.
type mapping struct {
	md        *ModelDescription
	k         Interface
	dims      map[int]int // structural parameter index → value
	params    []carried   // FMU parameters, in variable order
	inputs    []carried
	states    []carried // ME: continuous states in derivative order; CS: none
	derivs    []carried // ME: their derivatives
	stateOuts []carried // CS: outputs kept in the state (no feedthrough)
	outputs   []carried // node outputs: CS feedthrough outputs, ME outputs that are not states
	events    []string  // ME: event-indicator names, then the time event
	nz        int       // ME: FMU event indicators
	timeName  string    // the name of the time state field (CS; ME without states)
	dummy     bool      // ME without continuous states: a time state
	dropped   []dropped
	names     map[string]bool
	ownParams []node.Param
}

// elements returns the number of elements of variable v, with structural
// parameters at the values in dims.
func (m *mapping) elements(v *Variable) (int, error) {
	n := 1
	for _, d := range v.Dimensions {
		k := d.Start
		if d.Var >= 0 {
			val, ok := m.dims[d.Var]
			if !ok {
				return 0, fmt.Errorf("its dimension %q has no value", m.md.Variables[d.Var].Name)
			}
			k = val
		}
		n *= k
	}
	return n, nil
}

// fieldName turns an FMI variable name into a name cosim's paths accept
// ("node.field", "node.field[i]", "--set node.param=…"): letters, digits
// and underscores; every other character becomes an underscore, and a
// leading digit gets a "v_" prefix.
func fieldName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	out := b.String()
	if out == "" || out[0] >= '0' && out[0] <= '9' {
		out = "v_" + out
	}
	return out
}

// claim returns a unique node name for an FMU variable: its field name,
// or that name with the value reference appended when another variable
// (or one of the node's own names) has it already.
func (m *mapping) claim(v *Variable) string {
	n := fieldName(v.Name)
	for k := 0; m.names[n]; k++ {
		n = fieldName(v.Name) + "_vr" + strconv.FormatUint(uint64(v.VR), 10)
		if k > 0 {
			n += "_" + strconv.Itoa(k)
		}
	}
	m.names[n] = true
	return n
}

// newMapping builds the mapping of interface k with the structural
// parameters given (the others at their start values).
func newMapping(md *ModelDescription, k Interface, structural map[string]any) (*mapping, error) {
	m := &mapping{md: md, k: k, dims: map[int]int{}, names: map[string]bool{}}
	m.ownParams = ownParams(md, k)
	for _, p := range m.ownParams {
		m.names[p.Name] = true
	}
	// Structural parameters first: they size the arrays.
	for i := range md.Variables {
		v := &md.Variables[i]
		if v.Causality != CausalityStructuralParameter || !v.Type.Integer() || v.IsArray() {
			continue
		}
		val := 0.0
		if v.HasStart && len(v.Start) == 1 {
			val = v.Start[0]
		}
		if given, ok := structural[fieldName(v.Name)]; ok {
			x, ok := given.(float64)
			if iv, isInt := given.(int); isInt {
				x, ok = float64(iv), true
			}
			if !ok || x != math.Trunc(x) || x < 0 || x > 1<<20 {
				return nil, &node.ParamError{Node: TypeName + " " + md.ModelName, Param: fieldName(v.Name), Value: given,
					Reason: "is not a valid dimension", Valid: "an integer in [0, 1048576]"}
			}
			val = x
		}
		m.dims[i] = int(val)
	}
	timeName := "time"
	switch {
	case k == InterfaceCoSimulation:
		m.timeName = timeName
	case len(md.Derivatives) == 0:
		m.timeName, m.dummy = timeName, true
	}
	if m.timeName != "" {
		m.names[m.timeName] = true
	}
	isState := map[int]bool{}
	if k == InterfaceModelExchange {
		for _, d := range md.Derivatives {
			isState[md.Variables[d.Var].DerivativeOf] = true
		}
	}
	inputIdx := map[int]bool{}
	for i := range md.Variables {
		if md.Variables[i].Causality == CausalityInput {
			inputIdx[i] = true
		}
	}
	feedthrough := map[int]bool{}
	listed := map[int]bool{}
	for _, o := range md.Outputs {
		listed[o.Var] = true
		if o.AllDependencies && len(inputIdx) > 0 {
			feedthrough[o.Var] = true
		}
		for _, d := range o.Dependencies {
			if inputIdx[d] {
				feedthrough[o.Var] = true
			}
		}
	}
	add := func(i int, into *[]carried) error {
		v := &md.Variables[i]
		n, err := m.elements(v)
		if err != nil {
			return fmt.Errorf("variable %q: %w", v.Name, err)
		}
		if n == 0 {
			m.dropped = append(m.dropped, dropped{v.Name, "an array with no elements (a structural parameter is 0)"})
			return nil
		}
		*into = append(*into, carried{v: v, vi: i, name: m.claim(v), n: n})
		return nil
	}
	for i := range md.Variables {
		v := &md.Variables[i]
		role := ""
		switch {
		case v.Causality == CausalityParameter && (v.Variability == VariabilityFixed || v.Variability == VariabilityTunable):
			role = "parameter"
		case v.Causality == CausalityStructuralParameter:
			role = "structural"
		case v.Causality == CausalityInput:
			role = "input"
		case v.Causality == CausalityOutput:
			role = "output"
		case k == InterfaceModelExchange && isState[i]:
			role = "state"
		default:
			continue
		}
		if !v.Type.Numeric() {
			m.dropped = append(m.dropped, dropped{v.Name, fmt.Sprintf("a %s %s: cosim carries numbers only", v.Type, role)})
			continue
		}
		var err error
		switch role {
		case "parameter", "structural":
			if role == "parameter" && v.inexact {
				m.dropped = append(m.dropped, dropped{v.Name, fmt.Sprintf("a %s parameter whose start value has no exact float64 form", v.Type)})
				continue
			}
			if err = add(i, &m.params); err == nil && len(m.params) > 0 && m.params[len(m.params)-1].vi == i {
				// A start value a node parameter cannot default to (not
				// finite, not an integer of the type, beyond 2^53):
				// the FMU's model description is at fault, and the
				// parameter is left at the FMU's start.
				c := m.params[len(m.params)-1]
				if p := m.param(c); p.Kind != node.Function {
					if _, cerr := p.Check(p.Default); cerr != nil {
						m.params = m.params[:len(m.params)-1]
						m.dropped = append(m.dropped, dropped{v.Name, fmt.Sprintf("a %s parameter whose start value cannot be a node parameter's default (%v)", v.Type, cerr)})
					}
				}
			}
		case "input":
			err = add(i, &m.inputs)
		case "output":
			switch {
			case k == InterfaceModelExchange && isState[i]:
				// The state field carries it.
			case k == InterfaceCoSimulation && !feedthrough[i] && listed[i]:
				err = add(i, &m.stateOuts)
			default:
				err = add(i, &m.outputs)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	if k == InterfaceModelExchange {
		for _, d := range md.Derivatives {
			si := md.Variables[d.Var].DerivativeOf
			sv := &md.Variables[si]
			n, err := m.elements(sv)
			if err != nil {
				return nil, fmt.Errorf("state %q: %w", sv.Name, err)
			}
			if n == 0 {
				continue
			}
			name := fieldName(sv.Name)
			if m.names[name] && !slices.ContainsFunc(m.states, func(c carried) bool { return c.name == name }) {
				// An output state was claimed under this name above only
				// if it is not a state; claim afresh.
				name = m.claim(sv)
			} else {
				m.names[name] = true
			}
			m.states = append(m.states, carried{v: sv, vi: si, name: name, n: n})
			m.derivs = append(m.derivs, carried{v: &md.Variables[d.Var], vi: d.Var, name: md.Variables[d.Var].Name, n: n})
		}
		if md.Major == 3 {
			for _, i := range md.EventIndicators {
				v := &md.Variables[i]
				n, err := m.elements(v)
				if err != nil {
					return nil, fmt.Errorf("event indicator %q: %w", v.Name, err)
				}
				base := fieldName(v.Name)
				for j := 0; j < n; j++ {
					name := base
					if n > 1 {
						name = base + "_" + strconv.Itoa(j)
					}
					m.events = append(m.events, name)
				}
				m.nz += n
			}
		} else {
			for j := 1; j <= md.NumEventIndicators; j++ {
				m.events = append(m.events, "indicator_"+strconv.Itoa(j))
			}
			m.nz = md.NumEventIndicators
		}
		m.events = append(m.events, timeEventName)
	}
	return m, nil
}

// timeEventName is the event a model-exchange node fires at the FMU's
// next time event.
const timeEventName = "time_event"

// ownParams are the parameters of an FMU node that are not the FMU's.
func ownParams(md *ModelDescription, k Interface) []node.Param {
	choices := []string{}
	for _, i := range []Interface{InterfaceCoSimulation, InterfaceModelExchange} {
		if md.Interface(i) != nil {
			choices = append(choices, string(i))
		}
	}
	ps := []node.Param{
		{Name: ParamPath, Kind: node.Text, Default: "",
			Description: "The FMU: an .fmu file or an unpacked FMU directory (in a scene file, relative to the scene file)"},
		{Name: ParamInterface, Kind: node.Text, Default: string(k), Choices: choices,
			Description: "The FMI interface the node is made from: `co-simulation` (the FMU steps itself; the default where offered) or `model-exchange` (cosim integrates the FMU's equations)"},
		{Name: ParamInstance, Kind: node.Text, Default: md.Interface(k).ModelIdentifier,
			Description: "The FMU instance name, given to the FMU at instantiation and shown in its messages"},
		{Name: ParamIsolate, Kind: node.Bool, Default: false,
			Description: "Run the FMU in a child process of its own (cosim's FMU host), so that an FMU that crashes, hangs or leaks cannot take cosim down, and an FMU built with Go can be loaded; each call then crosses a pipe"},
		{Name: ParamTimeout, Kind: node.Real, Default: 0.0, Units: "s", Range: node.NonNegative(),
			Description: "With isolate: the longest a call into the FMU may take, in seconds of wall-clock time, before cosim kills its process and reports the call (0: no limit)"},
	}
	if k == InterfaceModelExchange {
		ps = append(ps,
			node.Param{Name: ParamRTol, Kind: node.Real, Default: DefaultUpdateRTol, Range: node.Positive(),
				Description: "Relative tolerance of the adaptive Dormand–Prince integration the node runs in its own Update (co-simulation of a model-exchange FMU); monolithic runs use their integrator's"},
			node.Param{Name: ParamATol, Kind: node.Real, Default: DefaultUpdateATol, Range: node.Positive(),
				Description: "Absolute tolerance of that integration"})
	}
	return ps
}

// typeRange is the node.Range of values a variable of type t may take,
// narrowed by its declared min and max.
func typeRange(v *Variable) node.Range {
	lo, hi := math.Inf(-1), math.Inf(1)
	if v.Type.Integer() && v.Type != Enumeration {
		lo, hi = v.Type.intRange()
		if v.Type == Int64 || v.Type == UInt64 {
			hi = math.Nextafter(hi, 0) // 2^63 and 2^64 themselves overflow
		}
	}
	if v.Type == Float32 {
		lo, hi = -math.MaxFloat32, math.MaxFloat32
	}
	if v.Type == Boolean {
		lo, hi = 0, 1
	}
	if !math.IsNaN(v.Min) {
		lo = math.Max(lo, v.Min)
	}
	if !math.IsNaN(v.Max) {
		hi = math.Min(hi, v.Max)
	}
	if math.IsInf(lo, -1) && math.IsInf(hi, 1) {
		return node.Finite()
	}
	return node.Range{Min: lo, Max: hi, Bounded: true}
}

// describeVar is the description of a carried variable: the FMU's
// description and, in parentheses, its FMI type, causality, variability
// and name when the node renamed it.
func describeVar(c carried) string {
	v := c.v
	var b strings.Builder
	b.WriteString(strings.TrimSpace(v.Description))
	if b.Len() > 0 {
		b.WriteString(" ")
	}
	fmt.Fprintf(&b, "(FMI %s %s, %s", v.Type, v.Causality, v.Variability)
	if c.name != v.Name {
		fmt.Fprintf(&b, "; the FMU's %q", v.Name)
	}
	if v.Type == Enumeration && len(v.Items) > 0 {
		items := make([]string, len(v.Items))
		for i, it := range v.Items {
			items[i] = fmt.Sprintf("%d = %s", it.Value, it.Name)
		}
		b.WriteString("; " + strings.Join(items, ", "))
	}
	if v.Type == Boolean {
		b.WriteString("; 0 = false, 1 = true")
	}
	b.WriteString(")")
	return b.String()
}

func shapeOf(c carried) node.Shape {
	if c.n == 1 && !c.v.IsArray() {
		return node.Scalar
	}
	return node.Vec(c.n)
}

// param is the node parameter of an FMU parameter.
func (m *mapping) param(c carried) node.Param {
	v := c.v
	p := node.Param{Name: c.name, Units: MapUnit(v.Unit), Description: describeVar(c), Range: typeRange(v)}
	start := v.Start
	if len(start) != c.n {
		// No start, or one for other dimensions than the structural
		// parameters now give: zeros, which the FMU is then given.
		if len(start) > 0 {
			p.Description += fmt.Sprintf("; its start has %d values, for its declared dimensions: resized, it starts at zeros", len(start))
		}
		start = make([]float64, c.n)
	}
	switch {
	case c.n > 1 || v.IsArray():
		p.Kind, p.Shape = node.Vector, node.Vec(c.n)
		def := make([]float64, c.n)
		copy(def, start)
		p.Default = def
	case v.Type == Boolean:
		p.Kind, p.Default, p.Range = node.Bool, start[0] != 0, node.Range{}
	case v.Type.Integer():
		p.Kind, p.Default = node.Integer, int(start[0])
	default:
		p.Kind, p.Default = node.Real, start[0]
	}
	if p.Kind == node.Real && !p.Range.Contains(start[0]) {
		// A start outside the declared range (allowed for an FMU, not for
		// a node's default): widen the range to hold it.
		p.Range = node.Finite()
	}
	if p.Kind == node.Vector {
		for _, x := range start {
			if !p.Range.Contains(x) {
				p.Range = node.Finite()
			}
		}
	}
	if p.Kind == node.Integer && p.Range.Bounded && !p.Range.Contains(float64(p.Default.(int))) {
		p.Range = node.Range{}
	}
	return p
}

// spec builds the node's Spec.
func (m *mapping) spec(meta node.Metadata) *node.Spec {
	s := node.Spec{Type: TypeName, Package: pkgPath, Meta: meta}
	s.Params = append(s.Params, m.ownParams...)
	for _, c := range m.params {
		s.Params = append(s.Params, m.param(c))
	}
	for _, c := range m.inputs {
		def := make([]float64, c.n)
		copy(def, c.v.Start)
		s.Inputs = append(s.Inputs, node.Input{Name: c.name, Shape: shapeOf(c), Units: MapUnit(c.v.Unit),
			Description: describeVar(c) + "; unconnected: the start value", Combine: node.Replacing, Default: def})
	}
	if m.timeName != "" {
		desc := "The FMU's time: the communication point it has stepped to"
		if m.k == InterfaceModelExchange {
			desc = "Time, integrated with rate 1: the continuous state a model-exchange FMU without continuous states is given, so that graphs integrate it and locate its events"
		}
		s.State = append(s.State, node.Field{Name: m.timeName, Units: "s", Description: desc})
	}
	for _, c := range m.states {
		s.State = append(s.State, node.Field{Name: c.name, Shape: shapeOf(c), Units: MapUnit(c.v.Unit), Description: describeVar(c) + "; a continuous state"})
	}
	for _, c := range m.stateOuts {
		s.State = append(s.State, node.Field{Name: c.name, Shape: shapeOf(c), Units: MapUnit(c.v.Unit),
			Description: describeVar(c) + "; its value at the communication point, kept in the state"})
	}
	for _, c := range m.outputs {
		s.Outputs = append(s.Outputs, node.Field{Name: c.name, Shape: shapeOf(c), Units: MapUnit(c.v.Unit), Description: describeVar(c)})
	}
	s.Feedthrough = m.feedthrough()
	for i, e := range m.events {
		ev := node.Event{Name: e, Direction: 0, Description: "FMU event indicator: the FMU's event update runs when it changes sign"}
		if i == len(m.events)-1 {
			ev = node.Event{Name: e, Direction: 1, Description: "t − (the FMU's next time event): the FMU's event update runs at each time event it announces"}
		}
		s.Events = append(s.Events, ev)
	}
	return node.NewSpec(s)
}

// feedthrough reports whether a node output depends on an input.
func (m *mapping) feedthrough() bool {
	if len(m.inputs) == 0 || len(m.outputs) == 0 {
		return false
	}
	in := map[int]bool{}
	for _, c := range m.inputs {
		in[c.vi] = true
	}
	out := map[int]bool{}
	for _, c := range m.outputs {
		out[c.vi] = true
	}
	for _, o := range m.md.Outputs {
		if !out[o.Var] {
			continue
		}
		if o.AllDependencies {
			return true
		}
		for _, d := range o.Dependencies {
			if in[d] {
				return true
			}
		}
	}
	// An output the ModelStructure does not list may depend on anything.
	for _, c := range m.outputs {
		if !slices.ContainsFunc(m.md.Outputs, func(u Unknown) bool { return u.Var == c.vi }) {
			return true
		}
	}
	return false
}

const pkgPath = "github.com/cosimgo/cosim/fmi"

// valueMap moves the values of a list of carried variables (laid out one
// after another, as a node's inputs, state or outputs are) to and from the
// FMU, one get or set call per FMI type.
type valueMap struct {
	groups []vgroup
	vars   []carried
	size   int
}

type vgroup struct {
	t    VarType
	vrs  []uint32
	off  []int // per element: its offset in the node's vector
	vars []int // per element: the index of its variable in valueMap.vars
	buf  []float64
}

// newValueMap lays out vars from offset base (the time state comes
// first in a co-simulation node's state).
func newValueMap(vars []carried, base int) *valueMap {
	vm := &valueMap{vars: vars}
	byType := map[VarType]int{}
	off := base
	for i, c := range vars {
		g, ok := byType[c.v.Type]
		if !ok {
			g = len(vm.groups)
			byType[c.v.Type] = g
			vm.groups = append(vm.groups, vgroup{t: c.v.Type})
		}
		gr := &vm.groups[g]
		gr.vrs = append(gr.vrs, c.v.VR)
		for j := 0; j < c.n; j++ {
			gr.off = append(gr.off, off+j)
			gr.vars = append(gr.vars, i)
		}
		off += c.n
	}
	for i := range vm.groups {
		vm.groups[i].buf = make([]float64, len(vm.groups[i].off))
	}
	vm.size = off - base
	return vm
}

// types adds the FMI types the map uses to use.
func (vm *valueMap) types(use map[VarType]bool) {
	for _, g := range vm.groups {
		use[g.t] = true
	}
}

// checkValue reports whether x can be written to a variable of type t
// (with enumeration items), and why not.
func checkValue(v *Variable, x float64) string {
	t := v.Type
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return "is not finite"
	case t == Boolean:
		if x != 0 && x != 1 {
			return "is not a Boolean (0 for false, 1 for true)"
		}
	case t == Float32:
		if math.Abs(x) > math.MaxFloat32 {
			return "overflows a Float32"
		}
	case t.Integer():
		if x != math.Trunc(x) {
			return fmt.Sprintf("is not an integer (the variable is an %s)", t)
		}
		lo, hi := t.intRange()
		if t == Enumeration {
			if len(v.Items) > 0 && !slices.ContainsFunc(v.Items, func(it EnumItem) bool { return float64(it.Value) == x }) {
				vals := make([]string, len(v.Items))
				for i, it := range v.Items {
					vals[i] = strconv.FormatInt(it.Value, 10)
				}
				return "is not one of the enumeration's values " + strings.Join(vals, ", ")
			}
		} else if x < lo || x > hi || (t == Int64 || t == UInt64) && x == hi {
			return fmt.Sprintf("is out of the range of %s [%.0f, %s]", t, lo, intMax(t))
		}
	}
	return ""
}

// intMax prints the largest value of an integer type exactly.
func intMax(t VarType) string {
	switch t {
	case Int64:
		return "9223372036854775807"
	case UInt64:
		return "18446744073709551615"
	}
	_, hi := t.intRange()
	return strconv.FormatFloat(hi, 'f', -1, 64)
}
