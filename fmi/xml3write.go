package fmi

import (
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// EncodeFMI3 writes md as an FMI 3.0 modelDescription.xml (fmiVersion
// "3.0") in UTF-8: every attribute and element of ModelDescription that
// ParseModelDescription reads, so that parsing the output gives md back
// (TestEncodeFMI3RoundTrip), in the schema's element order. Attributes
// with their default value (false, a NaN bound, an empty string) are left
// out. Type definitions are not written: each variable carries its unit,
// quantity and bounds itself (DeclaredType is left out), so an Enumeration
// variable, which the schema requires to name its type, is an error. It
// writes what md says and checks only what it must to write it; the
// standard's schema validates the output (TestEncodeFMI3Schema).
func (md *ModelDescription) EncodeFMI3(w io.Writer) error {
	x, err := md.xml3()
	if err != nil {
		return err
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(x); err != nil {
		return err
	}
	_, err = io.WriteString(w, "\n")
	return err
}

func (md *ModelDescription) xml3() (*xml3, error) {
	x := &xml3{FMIVersion: "3.0", ModelName: md.ModelName, Token: md.Token, xmlAbout: aboutOf(md)}
	if md.FMIVersion != "" && !strings.HasPrefix(md.FMIVersion, "3.") {
		return nil, fmt.Errorf("fmi: EncodeFMI3 of a model description of FMI %s", md.FMIVersion)
	}
	if md.FMIVersion != "" {
		x.FMIVersion = md.FMIVersion
	}
	x.ME = iface3(md.ModelExchange)
	x.CS = iface3(md.CoSimulation)
	for _, u := range md.Units {
		xu := xmlUnit{Name: u.Name}
		if b := u.Base; b != nil {
			xu.Base = &xmlBaseUnit{Kg: intAttr(b.Kg), M: intAttr(b.M), S: intAttr(b.S), A: intAttr(b.A), K: intAttr(b.K),
				Mol: intAttr(b.Mol), Cd: intAttr(b.Cd), Rad: intAttr(b.Rad)}
			if b.Factor != 1 {
				xu.Base.Factor = floatAttr(b.Factor)
			}
			if b.Offset != 0 {
				xu.Base.Offset = floatAttr(b.Offset)
			}
		}
		if x.UnitDefs == nil {
			x.UnitDefs = &xml3Units{}
		}
		x.UnitDefs.Units = append(x.UnitDefs.Units, xu)
	}
	for _, c := range md.LogCategories {
		if x.LogCategories == nil {
			x.LogCategories = &xml3Categories{}
		}
		x.LogCategories.Categories = append(x.LogCategories.Categories, xml3Category{Name: c.Name, Description: c.Description})
	}
	if de := md.DefaultExperiment; de != nil {
		x.DefaultExperiment = &xmlDefaultExperiment{StartTime: floatAttr(de.StartTime), StopTime: floatAttr(de.StopTime),
			Tolerance: floatAttr(de.Tolerance), StepSize: floatAttr(de.StepSize)}
	}
	vr := func(i int) string { return strconv.FormatUint(uint64(md.Variables[i].VR), 10) }
	for i := range md.Variables {
		v := &md.Variables[i]
		if v.Type == Enumeration {
			return nil, fmt.Errorf("fmi: EncodeFMI3: variable %q is an Enumeration, which needs a type definition, and EncodeFMI3 writes none", v.Name)
		}
		xv := xml3Var{XMLName: xml.Name{Local: string(v.Type)}, Name: v.Name, VR: strconv.FormatUint(uint64(v.VR), 10),
			Description: v.Description, Causality: v.Causality, Variability: v.Variability, Initial: v.Initial,
			Quantity: v.Quantity, Unit: v.Unit}
		if !math.IsNaN(v.Min) {
			xv.Min = formatValue(v.Type, v.Min)
		}
		if !math.IsNaN(v.Max) {
			xv.Max = formatValue(v.Type, v.Max)
		}
		if v.DerivativeOf >= 0 {
			xv.Derivative = vr(v.DerivativeOf)
		}
		if v.Reinit {
			xv.Reinit = "true"
		}
		if v.HasStart && v.Type.Numeric() {
			parts := make([]string, len(v.Start))
			for j, s := range v.Start {
				parts[j] = formatValue(v.Type, s)
			}
			xv.Attrs = append(xv.Attrs, xml.Attr{Name: xml.Name{Local: "start"}, Value: strings.Join(parts, " ")})
		}
		for _, d := range v.Dimensions {
			if d.Var >= 0 {
				xv.Dims = append(xv.Dims, xml3Dim{VR: vr(d.Var)})
			} else {
				xv.Dims = append(xv.Dims, xml3Dim{Start: strconv.Itoa(d.Start)})
			}
		}
		x.Vars.Vars = append(x.Vars.Vars, xv)
	}
	unknown := func(kind string, u Unknown) (xml3Unknown, error) {
		if u.Var < 0 || u.Var >= len(md.Variables) {
			return xml3Unknown{}, fmt.Errorf("fmi: <%s> names variable %d of %d", kind, u.Var, len(md.Variables))
		}
		xu := xml3Unknown{XMLName: xml.Name{Local: kind}, VR: vr(u.Var)}
		if !u.AllDependencies {
			deps := make([]string, len(u.Dependencies))
			for j, d := range u.Dependencies {
				deps[j] = vr(d)
			}
			xu.Attrs = []xml.Attr{{Name: xml.Name{Local: "dependencies"}, Value: strings.Join(deps, " ")}}
		}
		return xu, nil
	}
	for _, group := range []struct {
		kind string
		us   []Unknown
	}{{"Output", md.Outputs}, {"ContinuousStateDerivative", md.Derivatives}, {"InitialUnknown", md.InitialUnknowns}} {
		for _, u := range group.us {
			xu, err := unknown(group.kind, u)
			if err != nil {
				return nil, err
			}
			x.Structure.Items = append(x.Structure.Items, xu)
		}
	}
	for _, i := range md.EventIndicators {
		xu, err := unknown("EventIndicator", Unknown{Var: i, AllDependencies: true})
		if err != nil {
			return nil, err
		}
		x.Structure.Items = append(x.Structure.Items, xu)
	}
	return x, nil
}

func iface3(it *InterfaceInfo) *xml3Interface {
	if it == nil {
		return nil
	}
	b := func(v bool) string {
		if v {
			return "true"
		}
		return ""
	}
	x := &xml3Interface{ModelIdentifier: it.ModelIdentifier, NeedsExecutionTool: b(it.NeedsExecutionTool),
		CanBeInstantiatedOnlyOncePerProcess: b(it.CanBeInstantiatedOnlyOncePerProcess), CanGetAndSetFMUState: b(it.CanGetAndSetFMUState),
		CanSerializeFMUState: b(it.CanSerializeFMUState), ProvidesDirectionalDerivatives: b(it.ProvidesDirectionalDerivatives),
		CanHandleVariableCommunicationStepSize: b(it.CanHandleVariableCommunicationStepSize), HasEventMode: b(it.HasEventMode),
		NeedsCompletedIntegratorStep: b(it.NeedsCompletedIntegratorStep)}
	if it.FixedInternalStepSize > 0 {
		x.FixedInternalStepSize = floatAttr(it.FixedInternalStepSize)
	}
	return x
}

// intAttr formats an exponent, "" for 0.
func intAttr(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// floatAttr formats a double attribute exactly, "" for NaN.
func floatAttr(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// formatValue formats a value of type t as the schema spells it.
func formatValue(t VarType, x float64) string {
	switch {
	case t == Boolean:
		if x != 0 {
			return "true"
		}
		return "false"
	case t == Float32:
		return strconv.FormatFloat(x, 'g', -1, 32)
	case t == UInt64 && x >= 0:
		return strconv.FormatUint(uint64(x), 10)
	case t.Integer():
		return strconv.FormatInt(int64(x), 10)
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}
