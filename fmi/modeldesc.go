package fmi

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// This file is the version-neutral form of modelDescription.xml that the
// rest of the package reads; xml2.go and xml3.go decode the two schemas
// into it.

// MaxModelDescriptionBytes bounds the modelDescription.xml cosim reads, so
// a hostile archive cannot exhaust memory (the largest FMUs exported by
// Modelica tools have descriptions of a few tens of megabytes).
const MaxModelDescriptionBytes = 256 << 20

// ErrModelDescription is wrapped by every error about a
// modelDescription.xml that cannot be read: not XML, truncated, another
// FMI version, a variable or reference that is inconsistent.
var ErrModelDescription = errors.New("invalid modelDescription.xml")

// VarType is the type of an FMI variable, with FMI 3.0's names (FMI 2.0's
// Real is Float64, its Integer Int32).
type VarType string

// Variable types.
const (
	Float64     VarType = "Float64"
	Float32     VarType = "Float32"
	Int8        VarType = "Int8"
	UInt8       VarType = "UInt8"
	Int16       VarType = "Int16"
	UInt16      VarType = "UInt16"
	Int32       VarType = "Int32"
	UInt32      VarType = "UInt32"
	Int64       VarType = "Int64"
	UInt64      VarType = "UInt64"
	Boolean     VarType = "Boolean"
	Enumeration VarType = "Enumeration"
	String      VarType = "String"
	Binary      VarType = "Binary"
	// ClockType is FMI 3.0's Clock (ClockType, since a clock in cosim
	// is integrators.Clock, a fixed-step method's step count).
	ClockType VarType = "Clock"
)

// Numeric reports whether values of the type are carried as float64
// (every type but String, Binary and Clock).
func (t VarType) Numeric() bool { return t != String && t != Binary && t != ClockType }

// Integer reports whether the type holds integers (Int8 … UInt64 and
// Enumeration).
func (t VarType) Integer() bool {
	switch t {
	case Int8, UInt8, Int16, UInt16, Int32, UInt32, Int64, UInt64, Enumeration:
		return true
	}
	return false
}

// intRange is the range of an integer type (Enumeration is an Int64).
func (t VarType) intRange() (lo, hi float64) {
	switch t {
	case Int8:
		return math.MinInt8, math.MaxInt8
	case UInt8:
		return 0, math.MaxUint8
	case Int16:
		return math.MinInt16, math.MaxInt16
	case UInt16:
		return 0, math.MaxUint16
	case Int32:
		return math.MinInt32, math.MaxInt32
	case UInt32:
		return 0, math.MaxUint32
	case Int64, Enumeration:
		return math.MinInt64, math.MaxInt64 // −2^63 and 2^63 in float64
	case UInt64:
		return 0, math.MaxUint64 // 2^64 in float64
	}
	return math.Inf(-1), math.Inf(1)
}

// Causality of a variable.
const (
	CausalityParameter           = "parameter"
	CausalityCalculatedParameter = "calculatedParameter"
	CausalityStructuralParameter = "structuralParameter"
	CausalityInput               = "input"
	CausalityOutput              = "output"
	CausalityLocal               = "local"
	CausalityIndependent         = "independent"
)

// Variability of a variable.
const (
	VariabilityConstant   = "constant"
	VariabilityFixed      = "fixed"
	VariabilityTunable    = "tunable"
	VariabilityDiscrete   = "discrete"
	VariabilityContinuous = "continuous"
)

// ModelDescription is what cosim reads of an FMU's modelDescription.xml,
// FMI 2.0 or 3.0, in one form.
type ModelDescription struct {
	// FMIVersion is the fmiVersion attribute ("2.0", "3.0"); Major is 2
	// or 3.
	FMIVersion string
	Major      int
	ModelName  string
	// Token is FMI 3.0's instantiationToken or FMI 2.0's guid: the
	// binary checks it at instantiation.
	Token                 string
	Description           string
	Author                string
	Version               string
	Copyright             string
	License               string
	GenerationTool        string
	GenerationDateAndTime string

	// CoSimulation and ModelExchange are the interfaces the FMU offers;
	// nil when it does not offer one.
	CoSimulation  *InterfaceInfo
	ModelExchange *InterfaceInfo

	Units []Unit
	// LogCategories are the categories the FMU logs under (FMI 3.0).
	LogCategories     []LogCategory
	DefaultExperiment *DefaultExperiment
	Variables         []Variable

	// Outputs, Derivatives and InitialUnknowns are the ModelStructure:
	// variables with their dependencies. Derivatives are in the order of
	// the continuous-state vector.
	Outputs         []Unknown
	Derivatives     []Unknown
	InitialUnknowns []Unknown
	// EventIndicators are FMI 3.0's event-indicator variables (indices
	// into Variables); NumEventIndicators is their number (FMI 2.0 gives
	// only the number).
	EventIndicators    []int
	NumEventIndicators int
}

// InterfaceInfo is a <CoSimulation> or <ModelExchange> element.
type InterfaceInfo struct {
	ModelIdentifier                     string
	NeedsExecutionTool                  bool
	CanBeInstantiatedOnlyOncePerProcess bool
	CanGetAndSetFMUState                bool
	CanSerializeFMUState                bool
	ProvidesDirectionalDerivatives      bool
	// Co-simulation.
	CanHandleVariableCommunicationStepSize bool
	FixedInternalStepSize                  float64 // 0: not given
	HasEventMode                           bool
	// Model exchange.
	NeedsCompletedIntegratorStep bool
}

// LogCategory is a <LogCategories> entry.
type LogCategory struct {
	Name, Description string
}

// Unit is a <Unit> definition: its name and SI base-unit exponents.
type Unit struct {
	Name string
	// Base is nil when the definition gives no <BaseUnit>.
	Base *BaseUnit
}

// BaseUnit is the unit in SI base units: value_SI = Factor·value + Offset.
type BaseUnit struct {
	Kg, M, S, A, K, Mol, Cd, Rad int
	Factor, Offset               float64
}

// DefaultExperiment is the <DefaultExperiment> element; a field not
// given is NaN.
type DefaultExperiment struct {
	StartTime, StopTime, Tolerance, StepSize float64
}

// Unknown is one entry of the ModelStructure: a variable and the
// variables it depends on, as indices into ModelDescription.Variables.
// AllDependencies means the dependencies attribute was absent: the
// variable may depend on every known.
type Unknown struct {
	Var             int
	Dependencies    []int
	AllDependencies bool
}

// EnumItem is one item of an enumeration type.
type EnumItem struct {
	Name        string
	Value       int64
	Description string
}

// Dimension is one dimension of an FMI 3.0 array variable: a fixed
// Start, or (Var ≥ 0) the value of the structural parameter Variables[Var].
type Dimension struct {
	Start int
	Var   int
}

// Variable is one model variable.
type Variable struct {
	Name        string
	Description string
	VR          uint32
	Type        VarType
	Causality   string
	Variability string
	Initial     string
	// Start holds the start values (one per element of an array) of a
	// numeric or Boolean variable, converted to float64 (booleans 0 or
	// 1); HasStart is false when none is given. StartText holds a String
	// or Binary start.
	Start     []float64
	HasStart  bool
	StartText []string
	// Min and Max are NaN when not given.
	Min, Max float64
	// Unit is the declared unit (on the variable or its declared type);
	// Quantity likewise.
	Unit, Quantity string
	DeclaredType   string
	// DerivativeOf is the index in Variables of the state this variable
	// is the derivative of, or −1.
	DerivativeOf int
	Reinit       bool
	Dimensions   []Dimension
	// Items are the enumeration items, for an Enumeration.
	Items []EnumItem
	// Exact is false for a Start parsed from a decimal that does not
	// round-trip for the type (an Int64 beyond 2^53).
	inexact bool
}

// IsArray reports whether the variable has dimensions.
func (v *Variable) IsArray() bool { return len(v.Dimensions) > 0 }

// VariableByName returns the named variable, or nil.
func (md *ModelDescription) VariableByName(name string) *Variable {
	for i := range md.Variables {
		if md.Variables[i].Name == name {
			return &md.Variables[i]
		}
	}
	return nil
}

// Interface returns the description of the interface, or nil when the
// FMU does not offer it.
func (md *ModelDescription) Interface(k Interface) *InterfaceInfo {
	switch k {
	case InterfaceCoSimulation:
		return md.CoSimulation
	case InterfaceModelExchange:
		return md.ModelExchange
	}
	return nil
}

// ParseModelDescription reads a modelDescription.xml of FMI version 2.0
// or 3.0. Every error wraps ErrModelDescription and, for malformed XML,
// names the line.
func ParseModelDescription(r io.Reader) (*ModelDescription, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxModelDescriptionBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrModelDescription, err)
	}
	if len(data) > MaxModelDescriptionBytes {
		return nil, fmt.Errorf("%w: larger than %d bytes", ErrModelDescription, MaxModelDescriptionBytes)
	}
	version, err := fmiVersion(data)
	if err != nil {
		return nil, err
	}
	var md *ModelDescription
	switch {
	case version == "2.0":
		md, err = parse2(data)
	case strings.HasPrefix(version, "3."):
		md, err = parse3(data)
	default:
		return nil, fmt.Errorf("%w: fmiVersion %q: cosim imports FMI 2.0 and 3.0", ErrModelDescription, version)
	}
	if err != nil {
		return nil, err
	}
	md.FMIVersion = version
	if err := md.check(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrModelDescription, err)
	}
	return md, nil
}

// fmiVersion reads the root element's fmiVersion attribute, checking that
// the whole document is well-formed XML first so that a truncated file is
// reported as such, with its line.
func fmiVersion(data []byte) (string, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	version := ""
	root := false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				return "", fmt.Errorf("%w: line %d: %s", ErrModelDescription, se.Line, se.Msg)
			}
			return "", fmt.Errorf("%w: %v", ErrModelDescription, err)
		}
		if se, ok := tok.(xml.StartElement); ok && !root {
			root = true
			if se.Name.Local != "fmiModelDescription" {
				return "", fmt.Errorf("%w: the root element is <%s>, not <fmiModelDescription>", ErrModelDescription, se.Name.Local)
			}
			for _, a := range se.Attr {
				if a.Name.Local == "fmiVersion" {
					version = a.Value
				}
			}
		}
	}
	if !root {
		return "", fmt.Errorf("%w: no <fmiModelDescription> element (an empty file?)", ErrModelDescription)
	}
	if version == "" {
		return "", fmt.Errorf("%w: <fmiModelDescription> has no fmiVersion attribute", ErrModelDescription)
	}
	return version, nil
}

// check checks what the rest of the package relies on: names, the
// interfaces, and the references the ModelStructure makes (already
// resolved to indices by the version's parser).
func (md *ModelDescription) check() error {
	if md.ModelName == "" {
		return errors.New("<fmiModelDescription> has no modelName")
	}
	if md.CoSimulation == nil && md.ModelExchange == nil {
		return errors.New("the FMU offers neither <CoSimulation> nor <ModelExchange>")
	}
	for _, it := range []*InterfaceInfo{md.CoSimulation, md.ModelExchange} {
		if it != nil && it.ModelIdentifier == "" {
			return errors.New("an interface element has no modelIdentifier")
		}
	}
	names := map[string]bool{}
	for i := range md.Variables {
		v := &md.Variables[i]
		if v.Name == "" {
			return fmt.Errorf("variable %d has no name", i+1)
		}
		if names[v.Name] {
			return fmt.Errorf("two variables are named %q", v.Name)
		}
		names[v.Name] = true
	}
	for _, d := range md.Derivatives {
		v := &md.Variables[d.Var]
		if v.DerivativeOf < 0 {
			return fmt.Errorf("derivative %q has no derivative attribute naming its state", v.Name)
		}
		s := &md.Variables[v.DerivativeOf]
		if s.Type != Float64 && s.Type != Float32 {
			return fmt.Errorf("state %q of derivative %q is a %s variable, not a float", s.Name, v.Name, s.Type)
		}
		if len(s.Dimensions) != len(v.Dimensions) {
			return fmt.Errorf("state %q and its derivative %q have different dimensions", s.Name, v.Name)
		}
	}
	for i := range md.Variables {
		v := &md.Variables[i]
		for _, d := range v.Dimensions {
			if d.Var < 0 {
				if d.Start < 0 {
					return fmt.Errorf("variable %q: a <Dimension> has start %d", v.Name, d.Start)
				}
				continue
			}
			p := &md.Variables[d.Var]
			if !p.Type.Integer() || p.IsArray() {
				return fmt.Errorf("variable %q: a <Dimension> names %q, which is not a scalar integer variable", v.Name, p.Name)
			}
		}
	}
	return nil
}

// parseStart converts a start attribute (space-separated for arrays) of a
// variable of type t to float64 values.
func parseStart(t VarType, s string) ([]float64, bool, error) {
	fields := strings.Fields(s)
	out := make([]float64, 0, len(fields))
	exact := true
	for _, f := range fields {
		x, ok, err := parseValue(t, f)
		if err != nil {
			return nil, false, err
		}
		exact = exact && ok
		out = append(out, x)
	}
	return out, exact, nil
}

// parseValue converts one value of type t. ok is false for an integer
// that float64 does not hold exactly.
func parseValue(t VarType, s string) (x float64, ok bool, err error) {
	switch {
	case t == Boolean:
		switch s {
		case "true", "1":
			return 1, true, nil
		case "false", "0":
			return 0, true, nil
		}
		return 0, false, fmt.Errorf("%q is not a Boolean (true, false, 1 or 0)", s)
	case t == UInt64:
		u, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return 0, false, fmt.Errorf("%q is not a UInt64", s)
		}
		x = float64(u)
		return x, x < 1<<64 && uint64(x) == u, nil
	case t.Integer():
		i, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, false, fmt.Errorf("%q is not an integer of type %s", s, t)
		}
		lo, hi := t.intRange()
		if t != Enumeration && (float64(i) < lo || float64(i) > hi) {
			return 0, false, fmt.Errorf("%d is out of the range of %s", i, t)
		}
		x = float64(i)
		return x, x != 1<<63 && int64(x) == i, nil
	}
	x, err = strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false, fmt.Errorf("%q is not a number", s)
	}
	return x, true, nil
}

// parseBound parses a min or max attribute; "" is NaN.
func parseBound(t VarType, s string) (float64, error) {
	if s == "" {
		return math.NaN(), nil
	}
	x, _, err := parseValue(t, strings.TrimSpace(s))
	return x, err
}

// parseVRList parses a space-separated list of value references (or, for
// FMI 2.0, of indices).
func parseVRList(s string) ([]uint32, error) {
	var out []uint32
	for _, f := range strings.Fields(s) {
		u, err := strconv.ParseUint(f, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("%q is not a value reference", f)
		}
		out = append(out, uint32(u))
	}
	return out, nil
}

// parseBool parses an optional xs:boolean attribute.
func parseBool(s string) (bool, error) {
	switch strings.TrimSpace(s) {
	case "", "false", "0":
		return false, nil
	case "true", "1":
		return true, nil
	}
	return false, fmt.Errorf("%q is not a boolean", s)
}

// parseFloatAttr parses an optional xs:double attribute; "" gives def.
func parseFloatAttr(s string, def float64) (float64, error) {
	if strings.TrimSpace(s) == "" {
		return def, nil
	}
	return strconv.ParseFloat(strings.TrimSpace(s), 64)
}

// attrs collects attribute parsing errors, so that a description is
// checked in one pass and the first problem is reported with its element.
type attrs struct {
	where string
	err   error
}

func (a *attrs) fail(err error) {
	if a.err == nil && err != nil {
		a.err = fmt.Errorf("%s: %w", a.where, err)
	}
}

func (a *attrs) bool(name, s string) bool {
	b, err := parseBool(s)
	if err != nil {
		a.fail(fmt.Errorf("attribute %s: %w", name, err))
	}
	return b
}

func (a *attrs) float(name, s string, def float64) float64 {
	x, err := parseFloatAttr(s, def)
	if err != nil {
		a.fail(fmt.Errorf("attribute %s: %q is not a number", name, s))
	}
	return x
}

func (a *attrs) uint32(name, s string) uint32 {
	u, err := strconv.ParseUint(strings.TrimSpace(s), 10, 32)
	if err != nil {
		a.fail(fmt.Errorf("attribute %s: %q is not an unsigned 32-bit integer", name, s))
	}
	return uint32(u)
}

func (a *attrs) vrs(name, s string) []uint32 {
	v, err := parseVRList(s)
	if err != nil {
		a.fail(fmt.Errorf("attribute %s: %w", name, err))
	}
	return v
}

// baseUnit converts a <BaseUnit> element's attributes.
func (a *attrs) baseUnit(b *xmlBaseUnit) *BaseUnit {
	if b == nil {
		return nil
	}
	atoi := func(name, s string) int {
		if s == "" {
			return 0
		}
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			a.fail(fmt.Errorf("<BaseUnit %s=%q>: not an integer", name, s))
		}
		return n
	}
	return &BaseUnit{Kg: atoi("kg", b.Kg), M: atoi("m", b.M), S: atoi("s", b.S), A: atoi("A", b.A), K: atoi("K", b.K),
		Mol: atoi("mol", b.Mol), Cd: atoi("cd", b.Cd), Rad: atoi("rad", b.Rad),
		Factor: a.float("factor", b.Factor, 1), Offset: a.float("offset", b.Offset, 0)}
}

// xmlBaseUnit is <BaseUnit>, the same in both versions.
type xmlBaseUnit struct {
	Kg     string `xml:"kg,attr,omitempty"`
	M      string `xml:"m,attr,omitempty"`
	S      string `xml:"s,attr,omitempty"`
	A      string `xml:"A,attr,omitempty"`
	K      string `xml:"K,attr,omitempty"`
	Mol    string `xml:"mol,attr,omitempty"`
	Cd     string `xml:"cd,attr,omitempty"`
	Rad    string `xml:"rad,attr,omitempty"`
	Factor string `xml:"factor,attr,omitempty"`
	Offset string `xml:"offset,attr,omitempty"`
}

type xmlUnit struct {
	Name string       `xml:"name,attr"`
	Base *xmlBaseUnit `xml:"BaseUnit"`
}

type xmlDefaultExperiment struct {
	StartTime string `xml:"startTime,attr,omitempty"`
	StopTime  string `xml:"stopTime,attr,omitempty"`
	Tolerance string `xml:"tolerance,attr,omitempty"`
	StepSize  string `xml:"stepSize,attr,omitempty"`
}

func (a *attrs) experiment(x *xmlDefaultExperiment) *DefaultExperiment {
	if x == nil {
		return nil
	}
	return &DefaultExperiment{StartTime: a.float("startTime", x.StartTime, math.NaN()), StopTime: a.float("stopTime", x.StopTime, math.NaN()),
		Tolerance: a.float("tolerance", x.Tolerance, math.NaN()), StepSize: a.float("stepSize", x.StepSize, math.NaN())}
}

type xmlItem struct {
	Name        string `xml:"name,attr"`
	Value       string `xml:"value,attr"`
	Description string `xml:"description,attr"`
}

func (a *attrs) items(xs []xmlItem) []EnumItem {
	out := make([]EnumItem, 0, len(xs))
	for i, x := range xs {
		v, err := strconv.ParseInt(strings.TrimSpace(x.Value), 10, 64)
		if err != nil {
			if x.Value != "" {
				a.fail(fmt.Errorf("enumeration item %q: value %q is not an integer", x.Name, x.Value))
			}
			v = int64(i + 1) // FMI 2.0: items without values are numbered from 1
		}
		out = append(out, EnumItem{Name: x.Name, Value: v, Description: x.Description})
	}
	return out
}

// varAttrs are the attributes every variable has in both versions (FMI
// 2.0 puts some on its type element).
type varAttrs struct {
	name, vr, description, causality, variability, initial string
	declaredType, unit, quantity, reinit                   string
}

// variable makes a Variable of type t, with the standard's defaults: a
// local variable unless told, continuous for the float types and
// discrete otherwise.
func (a *attrs) variable(t VarType, x varAttrs) Variable {
	v := Variable{Name: x.name, Description: x.description, Type: t, Causality: x.causality,
		Variability: x.variability, Initial: x.initial, DeclaredType: x.declaredType, Unit: x.unit,
		Quantity: x.quantity, DerivativeOf: -1, Reinit: a.bool("reinit", x.reinit)}
	v.VR = a.uint32("valueReference of "+strconv.Quote(x.name), x.vr)
	if v.Causality == "" {
		v.Causality = CausalityLocal
	}
	if v.Variability == "" {
		v.Variability = VariabilityDiscrete
		if t == Float64 || t == Float32 {
			v.Variability = VariabilityContinuous
		}
	}
	return v
}

// startOf parses a variable's start attribute into v.
func (a *attrs) startOf(v *Variable, s string, given bool) {
	if !given {
		return
	}
	if v.Type == String || v.Type == Binary {
		v.StartText = []string{s}
		v.HasStart = true
		return
	}
	vals, exact, err := parseStart(v.Type, s)
	if err != nil {
		a.fail(fmt.Errorf("variable %q: start %q: %w", v.Name, s, err))
		return
	}
	v.Start, v.HasStart, v.inexact = vals, true, !exact
}

// boundsOf parses min and max into v.
func (a *attrs) boundsOf(v *Variable, lo, hi string) {
	var err error
	if v.Min, err = parseBound(v.Type, lo); err != nil {
		a.fail(fmt.Errorf("variable %q: min: %w", v.Name, err))
	}
	if v.Max, err = parseBound(v.Type, hi); err != nil {
		a.fail(fmt.Errorf("variable %q: max: %w", v.Name, err))
	}
}

// typeDef is what a variable inherits from its declared type.
type typeDef struct {
	unit, quantity string
	min, max       string
	items          []EnumItem
}

// inherit gives v what it inherits from its declared type, types[name]
// (none when name is empty; an undefined one is an error): its unit and
// quantity unless v has its own, the bounds lo and hi where v gives none
// (then parsed for v's type), an enumeration's items.
func (a *attrs) inherit(v *Variable, types map[string]typeDef, name, lo, hi string) {
	td, ok := types[name]
	if name != "" && !ok {
		a.fail(fmt.Errorf("variable %q: declaredType %q is not defined", v.Name, name))
	}
	if v.Unit == "" {
		v.Unit = td.unit
	}
	if v.Quantity == "" {
		v.Quantity = td.quantity
	}
	if lo == "" {
		lo = td.min
	}
	if hi == "" {
		hi = td.max
	}
	a.boundsOf(v, lo, hi)
	if v.Type == Enumeration {
		v.Items = slices.Clone(td.items)
	}
}

// attr returns the value of the attribute name among as, and whether it
// is there (for attributes whose absence means something).
func attr(as []xml.Attr, name string) (string, bool) {
	for _, a := range as {
		if a.Name.Local == name {
			return a.Value, true
		}
	}
	return "", false
}

// unknown is the ModelStructure entry of variable i, whose element has
// the attributes as: its dependencies, each resolved by ref (a 1-based
// index in FMI 2.0, a value reference in FMI 3.0), or AllDependencies
// when the attribute is absent (the variable may depend on every known).
func unknown(i int, as []xml.Attr, what string, ref func(what, s string) int) Unknown {
	un := Unknown{Var: i}
	deps, ok := attr(as, "dependencies")
	if !ok {
		un.AllDependencies = true
		return un
	}
	for _, d := range strings.Fields(deps) {
		un.Dependencies = append(un.Dependencies, ref(what+" dependencies", d))
	}
	return un
}

// xmlAbout are the attributes of <fmiModelDescription> that say what the
// model is and where it comes from, the same in both versions (in the
// schemas' order, after the model's name and token).
type xmlAbout struct {
	Description           string `xml:"description,attr,omitempty"`
	Author                string `xml:"author,attr,omitempty"`
	Version               string `xml:"version,attr,omitempty"`
	Copyright             string `xml:"copyright,attr,omitempty"`
	License               string `xml:"license,attr,omitempty"`
	GenerationTool        string `xml:"generationTool,attr,omitempty"`
	GenerationDateAndTime string `xml:"generationDateAndTime,attr,omitempty"`
}

// fill copies the attributes into md.
func (x xmlAbout) fill(md *ModelDescription) {
	md.Description, md.Author, md.Version, md.Copyright = x.Description, x.Author, x.Version, x.Copyright
	md.License, md.GenerationTool, md.GenerationDateAndTime = x.License, x.GenerationTool, x.GenerationDateAndTime
}

// aboutOf returns md's attributes, for writing.
func aboutOf(md *ModelDescription) xmlAbout {
	return xmlAbout{Description: md.Description, Author: md.Author, Version: md.Version, Copyright: md.Copyright,
		License: md.License, GenerationTool: md.GenerationTool, GenerationDateAndTime: md.GenerationDateAndTime}
}
