package fmi

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cosimgo/cosim/node"
)

// metadata is what an FMU node says about itself: what cosim knows of the
// model from its modelDescription.xml, and how the node runs it.
func metadata(md *ModelDescription, k Interface, m *mapping) node.Metadata {
	abbr := "CS"
	if k == InterfaceModelExchange {
		abbr = "ME"
	}
	version := md.Version
	if version == "" {
		version = "unversioned"
	}
	summary := strings.TrimSpace(md.Description)
	if summary == "" {
		summary = "The model " + md.ModelName
	}
	summary += fmt.Sprintf(" — FMU %s imported through its FMI %s %s interface.", md.ModelName, md.FMIVersion, k)
	meta := node.Metadata{
		AlgorithmID: fmt.Sprintf("FMI%d-%s:%s", md.Major, abbr, md.Token),
		Version:     version,
		Stability:   node.Experimental,
		Summary:     summary,
		Equations:   []string{},
		EquationNotes: "The equations are the FMU's own; cosim sees only the values its functions return " +
			"(the model description lists the variables).",
		Regimes:             []node.Regime{},
		StabilityConditions: []string{},
		Anomalies:           []string{},
		Evidence:            []string{},
		Changelog:           []node.Change{},
	}
	fi := fmt.Sprintf("fmi%d", md.Major)
	if k == InterfaceCoSimulation {
		notes := fmt.Sprintf("The FMU's own solver: every Update is one %sDoStep over the communication step, with the inputs held at their values at its start.", fi)
		if st := md.CoSimulation.FixedInternalStepSize; st > 0 {
			notes += " The FMU declares a fixed internal step of " + strconv.FormatFloat(st, 'g', -1, 64) + " s."
		}
		meta.DiscretizationNotes = notes
		meta.Order = node.Order{Temporal: 0, Note: "not known to cosim: the FMU's own solver sets the accuracy of each communication step; the coupling through held inputs is first order in the communication step"}
		meta.Assumptions = []string{
			"Inputs are held constant over a communication step (zero-order hold)",
			"Outputs are known at communication points only; those that do not depend on the inputs are kept in the node's state",
			"The FMU's internal state is hidden: the node steps only from the state the FMU is in, one it saved (before the current step, when re-stepping is allowed; its initial state) or a restored checkpoint",
		}
		meta.Mapping = []node.Mapping{{Term: "one communication step", Identifier: pkgPath + ".CoSimNode.Update", Notes: fi + "DoStep"}}
	} else {
		meta.Discretization = "dormand-prince"
		meta.DiscretizationNotes = "Monolithic runs integrate the FMU's derivatives with the graph's integrator. In co-simulation the node's " +
			"Update integrates them itself with adaptive Dormand–Prince 5(4) (tolerances `rtol`, `atol`), inputs held over the step, " +
			"locating the FMU's state events (sign changes of its event indicators) and landing exactly on its time events, with the " +
			"FMU's event update at each and at every step event the FMU asks for after an accepted step."
		meta.Order = node.Order{Temporal: 5, Note: "the order of the node's own adaptive Dormand–Prince in co-simulation, whose error is held to rtol/atol per step; in monolithic runs the order is the graph's integrator's"}
		meta.Assumptions = []string{
			"Inputs are held constant over a co-simulation step (zero-order hold); monolithic runs evaluate them at every stage",
			"The FMU's discrete state is hidden and changes only at its events: evaluations are valid from its last event on",
		}
		meta.Mapping = []node.Mapping{
			{Term: "$\\dot x = f(t, x, u)$", Identifier: pkgPath + ".ModelExchangeNode.Derivatives", Notes: fi + "GetContinuousStateDerivatives (FMI 2.0: fmi2GetDerivatives)"},
			{Term: "event update", Identifier: pkgPath + ".ModelExchangeNode.Reset", Notes: fi + "UpdateDiscreteStates until no further update is needed (FMI 2.0: fmi2NewDiscreteStates)"},
		}
	}
	meta.Limitations = limitations(md, k, m)
	meta.References = references(md)
	return meta
}

func limitations(md *ModelDescription, k Interface, m *mapping) []string {
	var out []string
	for _, d := range m.dropped {
		out = append(out, fmt.Sprintf("The FMU's variable %q is not carried: it is %s.", d.Name, d.Why))
	}
	it := md.Interface(k)
	if !it.CanGetAndSetFMUState {
		out = append(out, "The FMU cannot get and set its state: coupling strategies that step it again from the start of a step (iterated groups) refuse it.")
	}
	if !it.CanSerializeFMUState {
		out = append(out, "The FMU cannot serialize its state: a checkpoint of a graph holding it fails.")
	}
	if k == InterfaceCoSimulation {
		out = append(out, "Intermediate updates, early return and the event mode of FMI 3.0 co-simulation are not used: every step runs to its end.")
	} else {
		if !it.ProvidesDirectionalDerivatives {
			out = append(out, "The FMU gives no directional derivatives: implicit methods difference its derivatives for their Jacobian.")
		}
		if why := hiddenDiscrete(md); len(why) > 0 {
			out = append(out, "Sensitivities are refused: the FMU has "+strings.Join(why, "; ")+".")
		}
	}
	out = append(out, "A Warning status of an FMU function is an error, like Discard, Error and Fatal.")
	return out
}

func references(md *ModelDescription) []node.Reference {
	fmiRef := node.Reference{Key: "FMI3", Text: "Modelica Association, Functional Mock-up Interface Specification, version 3.0 (2022), https://fmi-standard.org"}
	if md.Major == 2 {
		fmiRef = node.Reference{Key: "FMI2", Text: "Modelica Association Project FMI, Functional Mock-up Interface for Model Exchange and Co-Simulation, version 2.0 (2014), https://fmi-standard.org"}
	}
	var parts []string
	add := func(label, v string) {
		if strings.TrimSpace(v) != "" {
			parts = append(parts, label+" "+v)
		}
	}
	add("model", md.ModelName)
	add("version", md.Version)
	add("generated by", md.GenerationTool)
	add("on", md.GenerationDateAndTime)
	add("author", md.Author)
	add("copyright", md.Copyright)
	add("license", md.License)
	token := "instantiation token"
	if md.Major == 2 {
		token = "GUID"
	}
	add(token, md.Token)
	fmu := node.Reference{Key: md.ModelName, Text: strings.Join(parts, "; "), Note: strings.TrimSpace(md.Description)}
	return []node.Reference{fmu, fmiRef}
}

// experimentText describes a default experiment.
func experimentText(de *DefaultExperiment) string {
	if de == nil {
		return "none"
	}
	var parts []string
	for _, f := range []struct {
		name string
		v    float64
	}{{"startTime", de.StartTime}, {"stopTime", de.StopTime}, {"tolerance", de.Tolerance}, {"stepSize", de.StepSize}} {
		if !math.IsNaN(f.v) {
			parts = append(parts, f.name+" "+strconv.FormatFloat(f.v, 'g', -1, 64))
		}
	}
	if len(parts) == 0 {
		return "given, empty"
	}
	return strings.Join(parts, ", ")
}
