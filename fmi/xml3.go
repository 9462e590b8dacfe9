package fmi

import (
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
)

// The FMI 3.0 modelDescription.xml schema (fmi3ModelDescription.xsd), as
// far as cosim reads and writes it: parse3 decodes these structs,
// EncodeFMI3 (xml3write.go) fills and encodes them, so attributes that are
// absent stay absent (omitempty) and the elements come in the schema's
// order (the fields' order).

type xml3 struct {
	XMLName    xml.Name `xml:"fmiModelDescription"`
	FMIVersion string   `xml:"fmiVersion,attr"`
	ModelName  string   `xml:"modelName,attr"`
	Token      string   `xml:"instantiationToken,attr"`
	xmlAbout
	ME                *xml3Interface        `xml:"ModelExchange"`
	CS                *xml3Interface        `xml:"CoSimulation"`
	SE                *xml3Interface        `xml:"ScheduledExecution"`
	UnitDefs          *xml3Units            `xml:"UnitDefinitions"`
	Types             *xml3TypeDefs         `xml:"TypeDefinitions"`
	LogCategories     *xml3Categories       `xml:"LogCategories"`
	DefaultExperiment *xmlDefaultExperiment `xml:"DefaultExperiment"`
	Vars              struct {
		Vars []xml3Var `xml:",any"`
	} `xml:"ModelVariables"`
	Structure struct {
		Items []xml3Unknown `xml:",any"`
	} `xml:"ModelStructure"`
}

type xml3Interface struct {
	ModelIdentifier                        string `xml:"modelIdentifier,attr"`
	NeedsExecutionTool                     string `xml:"needsExecutionTool,attr,omitempty"`
	CanBeInstantiatedOnlyOncePerProcess    string `xml:"canBeInstantiatedOnlyOncePerProcess,attr,omitempty"`
	CanGetAndSetFMUState                   string `xml:"canGetAndSetFMUState,attr,omitempty"`
	CanSerializeFMUState                   string `xml:"canSerializeFMUState,attr,omitempty"`
	ProvidesDirectionalDerivatives         string `xml:"providesDirectionalDerivatives,attr,omitempty"`
	CanHandleVariableCommunicationStepSize string `xml:"canHandleVariableCommunicationStepSize,attr,omitempty"`
	FixedInternalStepSize                  string `xml:"fixedInternalStepSize,attr,omitempty"`
	HasEventMode                           string `xml:"hasEventMode,attr,omitempty"`
	NeedsCompletedIntegratorStep           string `xml:"needsCompletedIntegratorStep,attr,omitempty"`
}

// xml3Units and xml3Categories are elements whose children are optional
// but which may not be empty: nil leaves them out.
type xml3Units struct {
	Units []xmlUnit `xml:"Unit"`
}

type xml3Categories struct {
	Categories []xml3Category `xml:"Category"`
}

// xml3Category is a <LogCategories> entry.
type xml3Category struct {
	Name        string `xml:"name,attr"`
	Description string `xml:"description,attr,omitempty"`
}

type xml3TypeDefs struct {
	Defs []xml3TypeDef `xml:",any"`
}

type xml3TypeDef struct {
	XMLName  xml.Name
	Name     string    `xml:"name,attr"`
	Unit     string    `xml:"unit,attr"`
	Quantity string    `xml:"quantity,attr"`
	Min      string    `xml:"min,attr"`
	Max      string    `xml:"max,attr"`
	Items    []xmlItem `xml:"Item"`
}

type xml3Var struct {
	XMLName      xml.Name
	Name         string     `xml:"name,attr"`
	VR           string     `xml:"valueReference,attr"`
	Description  string     `xml:"description,attr,omitempty"`
	Causality    string     `xml:"causality,attr,omitempty"`
	Variability  string     `xml:"variability,attr,omitempty"`
	Initial      string     `xml:"initial,attr,omitempty"`
	DeclaredType string     `xml:"declaredType,attr,omitempty"`
	Quantity     string     `xml:"quantity,attr,omitempty"`
	Unit         string     `xml:"unit,attr,omitempty"`
	Min          string     `xml:"min,attr,omitempty"`
	Max          string     `xml:"max,attr,omitempty"`
	Derivative   string     `xml:"derivative,attr,omitempty"`
	Reinit       string     `xml:"reinit,attr,omitempty"`
	Attrs        []xml.Attr `xml:",any,attr"` // start, whose presence matters
	StartElems   []struct {
		Value string `xml:"value,attr"`
	} `xml:"Start"`
	Dims []xml3Dim `xml:"Dimension"`
}

type xml3Dim struct {
	Start string `xml:"start,attr,omitempty"`
	VR    string `xml:"valueReference,attr,omitempty"`
}

type xml3Unknown struct {
	XMLName xml.Name
	VR      string     `xml:"valueReference,attr"`
	Attrs   []xml.Attr `xml:",any,attr"` // dependencies, whose presence matters
}

func parse3(data []byte) (*ModelDescription, error) {
	var x xml3
	if err := xml.Unmarshal(data, &x); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrModelDescription, err)
	}
	md := &ModelDescription{Major: 3, ModelName: x.ModelName, Token: x.Token}
	x.fill(md)
	a := &attrs{where: "<fmiModelDescription>"}
	iface := func(what string, i *xml3Interface) *InterfaceInfo {
		if i == nil {
			return nil
		}
		a.where = "<" + what + ">"
		return &InterfaceInfo{ModelIdentifier: i.ModelIdentifier,
			NeedsExecutionTool:                     a.bool("needsExecutionTool", i.NeedsExecutionTool),
			CanBeInstantiatedOnlyOncePerProcess:    a.bool("canBeInstantiatedOnlyOncePerProcess", i.CanBeInstantiatedOnlyOncePerProcess),
			CanGetAndSetFMUState:                   a.bool("canGetAndSetFMUState", i.CanGetAndSetFMUState),
			CanSerializeFMUState:                   a.bool("canSerializeFMUState", i.CanSerializeFMUState),
			ProvidesDirectionalDerivatives:         a.bool("providesDirectionalDerivatives", i.ProvidesDirectionalDerivatives),
			CanHandleVariableCommunicationStepSize: a.bool("canHandleVariableCommunicationStepSize", i.CanHandleVariableCommunicationStepSize),
			FixedInternalStepSize:                  a.float("fixedInternalStepSize", i.FixedInternalStepSize, 0),
			HasEventMode:                           a.bool("hasEventMode", i.HasEventMode),
			NeedsCompletedIntegratorStep:           a.bool("needsCompletedIntegratorStep", i.NeedsCompletedIntegratorStep),
		}
	}
	md.CoSimulation = iface("CoSimulation", x.CS)
	md.ModelExchange = iface("ModelExchange", x.ME)
	if x.SE != nil && x.CS == nil && x.ME == nil {
		return nil, fmt.Errorf("%w: the FMU offers only <ScheduledExecution>, which cosim does not import (it imports co-simulation and model exchange)", ErrModelDescription)
	}
	a.where = "<UnitDefinitions>"
	if x.UnitDefs == nil {
		x.UnitDefs = &xml3Units{}
	}
	if x.LogCategories == nil {
		x.LogCategories = &xml3Categories{}
	}
	for _, u := range x.UnitDefs.Units {
		md.Units = append(md.Units, Unit{Name: u.Name, Base: a.baseUnit(u.Base)})
	}
	for _, c := range x.LogCategories.Categories {
		md.LogCategories = append(md.LogCategories, LogCategory{Name: c.Name, Description: c.Description})
	}
	a.where = "<DefaultExperiment>"
	md.DefaultExperiment = a.experiment(x.DefaultExperiment)
	types := map[string]typeDef{}
	a.where = "<TypeDefinitions>"
	if x.Types == nil {
		x.Types = &xml3TypeDefs{}
	}
	for _, t := range x.Types.Defs {
		types[t.Name] = typeDef{unit: t.Unit, quantity: t.Quantity, min: t.Min, max: t.Max, items: a.items(t.Items)}
	}
	a.where = "<ModelVariables>"
	byVR := map[uint32]int{}
	type pending struct {
		v     int
		deriv string
		dims  []string
	}
	var refs []pending
	for _, xv := range x.Vars.Vars {
		t := VarType(xv.XMLName.Local)
		switch t {
		case Float64, Float32, Int8, UInt8, Int16, UInt16, Int32, UInt32, Int64, UInt64, Boolean, Enumeration, String, Binary, ClockType:
		default:
			a.fail(fmt.Errorf("<%s name=%q>: not an FMI 3.0 variable type", xv.XMLName.Local, xv.Name))
			continue
		}
		v := a.variable(t, varAttrs{name: xv.Name, vr: xv.VR, description: xv.Description, causality: xv.Causality,
			variability: xv.Variability, initial: xv.Initial, declaredType: xv.DeclaredType, unit: xv.Unit,
			quantity: xv.Quantity, reinit: xv.Reinit})
		if s, ok := attr(xv.Attrs, "start"); ok {
			a.startOf(&v, s, true)
		} else if len(xv.StartElems) > 0 {
			for _, se := range xv.StartElems {
				v.StartText = append(v.StartText, se.Value)
			}
			v.HasStart = true
		}
		a.inherit(&v, types, xv.DeclaredType, xv.Min, xv.Max)
		if _, dup := byVR[v.VR]; !dup {
			byVR[v.VR] = len(md.Variables)
		} else {
			a.fail(fmt.Errorf("variables %q and %q share value reference %d", md.Variables[byVR[v.VR]].Name, v.Name, v.VR))
		}
		p := pending{v: len(md.Variables), deriv: xv.Derivative}
		for _, d := range xv.Dims {
			if d.VR != "" {
				p.dims = append(p.dims, "vr:"+d.VR)
			} else {
				p.dims = append(p.dims, d.Start)
			}
		}
		refs = append(refs, p)
		md.Variables = append(md.Variables, v)
	}
	if a.err != nil {
		return nil, fmt.Errorf("%w: %v", ErrModelDescription, a.err)
	}
	lookup := func(what, s string) int {
		vr := a.uint32(what, s)
		i, ok := byVR[vr]
		if !ok && a.err == nil {
			a.fail(fmt.Errorf("%s: value reference %d names no variable", what, vr))
			return 0
		}
		return i
	}
	for _, p := range refs {
		v := &md.Variables[p.v]
		if p.deriv != "" {
			v.DerivativeOf = lookup(fmt.Sprintf("variable %q: derivative", v.Name), p.deriv)
		}
		for _, d := range p.dims {
			if vr, ok := strings.CutPrefix(d, "vr:"); ok {
				v.Dimensions = append(v.Dimensions, Dimension{Var: lookup(fmt.Sprintf("variable %q: <Dimension>", v.Name), vr)})
				continue
			}
			n, err := strconv.Atoi(strings.TrimSpace(d))
			if err != nil {
				a.fail(fmt.Errorf("variable %q: <Dimension start=%q>: not an integer", v.Name, d))
			}
			v.Dimensions = append(v.Dimensions, Dimension{Start: n, Var: -1})
		}
	}
	a.where = "<ModelStructure>"
	for _, u := range x.Structure.Items {
		what := "<" + u.XMLName.Local + ">"
		i := lookup(what, u.VR)
		un := unknown(i, u.Attrs, what, lookup)
		switch u.XMLName.Local {
		case "Output":
			md.Outputs = append(md.Outputs, un)
		case "ContinuousStateDerivative":
			md.Derivatives = append(md.Derivatives, un)
		case "InitialUnknown":
			md.InitialUnknowns = append(md.InitialUnknowns, un)
		case "EventIndicator":
			md.EventIndicators = append(md.EventIndicators, i)
		}
	}
	if a.err != nil {
		return nil, fmt.Errorf("%w: %v", ErrModelDescription, a.err)
	}
	md.NumEventIndicators = len(md.EventIndicators)
	return md, nil
}
