package fmi

import (
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
)

// The FMI 2.0 modelDescription.xml schema (fmi2ModelDescription.xsd), as
// far as cosim reads it.

type xml2 struct {
	ModelName string `xml:"modelName,attr"`
	GUID      string `xml:"guid,attr"`
	xmlAbout
	EventIndicators   string                `xml:"numberOfEventIndicators,attr"`
	ME                *xml2Interface        `xml:"ModelExchange"`
	CS                *xml2Interface        `xml:"CoSimulation"`
	Units             []xmlUnit             `xml:"UnitDefinitions>Unit"`
	Types             []xml2SimpleType      `xml:"TypeDefinitions>SimpleType"`
	DefaultExperiment *xmlDefaultExperiment `xml:"DefaultExperiment"`
	Vars              []xml2Var             `xml:"ModelVariables>ScalarVariable"`
	Outputs           []xml2Unknown         `xml:"ModelStructure>Outputs>Unknown"`
	Derivatives       []xml2Unknown         `xml:"ModelStructure>Derivatives>Unknown"`
	InitialUnknowns   []xml2Unknown         `xml:"ModelStructure>InitialUnknowns>Unknown"`
}

type xml2Interface struct {
	ModelIdentifier                        string `xml:"modelIdentifier,attr"`
	NeedsExecutionTool                     string `xml:"needsExecutionTool,attr"`
	CanBeInstantiatedOnlyOncePerProcess    string `xml:"canBeInstantiatedOnlyOncePerProcess,attr"`
	CanGetAndSetFMUstate                   string `xml:"canGetAndSetFMUstate,attr"`
	CanSerializeFMUstate                   string `xml:"canSerializeFMUstate,attr"`
	ProvidesDirectionalDerivative          string `xml:"providesDirectionalDerivative,attr"`
	CanHandleVariableCommunicationStepSize string `xml:"canHandleVariableCommunicationStepSize,attr"`
	CompletedIntegratorStepNotNeeded       string `xml:"completedIntegratorStepNotNeeded,attr"`
}

// xml2Attrs are the attributes of a type element (<Real>, <Integer>, …)
// of a variable or a simple type.
type xml2Attrs struct {
	DeclaredType string     `xml:"declaredType,attr"`
	Unit         string     `xml:"unit,attr"`
	Quantity     string     `xml:"quantity,attr"`
	Min          string     `xml:"min,attr"`
	Max          string     `xml:"max,attr"`
	Derivative   string     `xml:"derivative,attr"`
	Reinit       string     `xml:"reinit,attr"`
	Items        []xmlItem  `xml:"Item"`
	Attrs        []xml.Attr `xml:",any,attr"` // start, whose presence matters
}

type xml2SimpleType struct {
	Name        string     `xml:"name,attr"`
	Real        *xml2Attrs `xml:"Real"`
	Integer     *xml2Attrs `xml:"Integer"`
	Boolean     *xml2Attrs `xml:"Boolean"`
	String      *xml2Attrs `xml:"String"`
	Enumeration *xml2Attrs `xml:"Enumeration"`
}

func (s *xml2SimpleType) elem() *xml2Attrs {
	for _, e := range []*xml2Attrs{s.Real, s.Integer, s.Boolean, s.String, s.Enumeration} {
		if e != nil {
			return e
		}
	}
	return nil
}

type xml2Var struct {
	Name        string     `xml:"name,attr"`
	VR          string     `xml:"valueReference,attr"`
	Description string     `xml:"description,attr"`
	Causality   string     `xml:"causality,attr"`
	Variability string     `xml:"variability,attr"`
	Initial     string     `xml:"initial,attr"`
	Real        *xml2Attrs `xml:"Real"`
	Integer     *xml2Attrs `xml:"Integer"`
	Boolean     *xml2Attrs `xml:"Boolean"`
	String      *xml2Attrs `xml:"String"`
	Enumeration *xml2Attrs `xml:"Enumeration"`
}

type xml2Unknown struct {
	Index string     `xml:"index,attr"`
	Attrs []xml.Attr `xml:",any,attr"` // dependencies, whose presence matters
}

func parse2(data []byte) (*ModelDescription, error) {
	var x xml2
	if err := xml.Unmarshal(data, &x); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrModelDescription, err)
	}
	md := &ModelDescription{Major: 2, ModelName: x.ModelName, Token: x.GUID}
	x.fill(md)
	a := &attrs{where: "<fmiModelDescription>"}
	if x.EventIndicators != "" {
		n, err := strconv.Atoi(strings.TrimSpace(x.EventIndicators))
		if err != nil || n < 0 {
			a.fail(fmt.Errorf("numberOfEventIndicators %q is not a non-negative integer", x.EventIndicators))
		}
		md.NumEventIndicators = n
	}
	iface := func(what string, i *xml2Interface) *InterfaceInfo {
		if i == nil {
			return nil
		}
		a.where = "<" + what + ">"
		return &InterfaceInfo{ModelIdentifier: i.ModelIdentifier,
			NeedsExecutionTool:                     a.bool("needsExecutionTool", i.NeedsExecutionTool),
			CanBeInstantiatedOnlyOncePerProcess:    a.bool("canBeInstantiatedOnlyOncePerProcess", i.CanBeInstantiatedOnlyOncePerProcess),
			CanGetAndSetFMUState:                   a.bool("canGetAndSetFMUstate", i.CanGetAndSetFMUstate),
			CanSerializeFMUState:                   a.bool("canSerializeFMUstate", i.CanSerializeFMUstate),
			ProvidesDirectionalDerivatives:         a.bool("providesDirectionalDerivative", i.ProvidesDirectionalDerivative),
			CanHandleVariableCommunicationStepSize: a.bool("canHandleVariableCommunicationStepSize", i.CanHandleVariableCommunicationStepSize),
			// FMI 2.0 asks for fmi2CompletedIntegratorStep unless told
			// it is not needed.
			NeedsCompletedIntegratorStep: what == "ModelExchange" && !a.bool("completedIntegratorStepNotNeeded", i.CompletedIntegratorStepNotNeeded),
		}
	}
	md.CoSimulation = iface("CoSimulation", x.CS)
	md.ModelExchange = iface("ModelExchange", x.ME)
	a.where = "<UnitDefinitions>"
	for _, u := range x.Units {
		md.Units = append(md.Units, Unit{Name: u.Name, Base: a.baseUnit(u.Base)})
	}
	a.where = "<DefaultExperiment>"
	md.DefaultExperiment = a.experiment(x.DefaultExperiment)
	types := map[string]typeDef{}
	a.where = "<TypeDefinitions>"
	for i := range x.Types {
		e := x.Types[i].elem()
		if e == nil {
			a.fail(fmt.Errorf("<SimpleType name=%q> has no type element", x.Types[i].Name))
			continue
		}
		types[x.Types[i].Name] = typeDef{unit: e.Unit, quantity: e.Quantity, min: e.Min, max: e.Max, items: a.items(e.Items)}
	}
	a.where = "<ModelVariables>"
	derivs := make([]string, len(x.Vars))
	for k, xv := range x.Vars {
		var t VarType
		var e *xml2Attrs
		switch {
		case xv.Real != nil:
			t, e = Float64, xv.Real
		case xv.Integer != nil:
			t, e = Int32, xv.Integer
		case xv.Boolean != nil:
			t, e = Boolean, xv.Boolean
		case xv.String != nil:
			t, e = String, xv.String
		case xv.Enumeration != nil:
			t, e = Enumeration, xv.Enumeration
		default:
			a.fail(fmt.Errorf("<ScalarVariable name=%q> has no type element", xv.Name))
			continue
		}
		v := a.variable(t, varAttrs{name: xv.Name, vr: xv.VR, description: xv.Description, causality: xv.Causality,
			variability: xv.Variability, initial: xv.Initial, declaredType: e.DeclaredType, unit: e.Unit,
			quantity: e.Quantity, reinit: e.Reinit})
		if s, ok := attr(e.Attrs, "start"); ok {
			a.startOf(&v, s, true)
		}
		a.inherit(&v, types, e.DeclaredType, e.Min, e.Max)
		derivs[k] = e.Derivative
		md.Variables = append(md.Variables, v)
	}
	if a.err != nil {
		return nil, fmt.Errorf("%w: %v", ErrModelDescription, a.err)
	}
	// FMI 2.0 refers to variables by their 1-based index.
	index := func(what, s string) int {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || n > len(md.Variables) {
			a.fail(fmt.Errorf("%s: index %q names no variable (there are %d)", what, s, len(md.Variables)))
			return 0
		}
		return n - 1
	}
	for k, d := range derivs {
		if d != "" {
			md.Variables[k].DerivativeOf = index(fmt.Sprintf("variable %q: derivative", md.Variables[k].Name), d)
		}
	}
	a.where = "<ModelStructure>"
	unknowns := func(what string, xs []xml2Unknown) []Unknown {
		var out []Unknown
		for _, u := range xs {
			out = append(out, unknown(index(what, u.Index), u.Attrs, what, index))
		}
		return out
	}
	md.Outputs = unknowns("<Outputs>", x.Outputs)
	md.Derivatives = unknowns("<Derivatives>", x.Derivatives)
	md.InitialUnknowns = unknowns("<InitialUnknowns>", x.InitialUnknowns)
	if a.err != nil {
		return nil, fmt.Errorf("%w: %v", ErrModelDescription, a.err)
	}
	return md, nil
}
