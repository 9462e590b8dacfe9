package export

import "github.com/cosimgo/cosim/fmi"

// GenerationTool is the generationTool of every exported FMU.
const GenerationTool = "cosim (github.com/cosimgo/cosim)"

// Log categories the exported FMU logs under.
const (
	LogError   = "logStatusError"
	LogWarning = "logStatusWarning"
	LogInfo    = "logEvents"
)

// ModelDescription is the FMI 3.0 model description of the FMU: a
// co-simulation interface that can get, set and serialize its state
// (backed by cosim checkpoints) and steps any multiple of the scene's step
// (its fixedInternalStepSize), the variables of the model with their
// units (unit definitions in SI base units; a unit cosim cannot express in
// FMI's syntax is left out and named in the variable's description), and
// the scene's run as the default experiment. It carries no generation
// time, so that exporting a scene twice gives the same file.
func (m *Model) ModelDescription() *fmi.ModelDescription {
	md := &fmi.ModelDescription{FMIVersion: "3.0", Major: 3, ModelName: m.Name, Token: m.Token,
		Description: m.Description, GenerationTool: GenerationTool,
		CoSimulation: &fmi.InterfaceInfo{ModelIdentifier: m.Identifier, CanGetAndSetFMUState: true,
			CanSerializeFMUState: true, CanHandleVariableCommunicationStepSize: true, FixedInternalStepSize: m.Dt},
		DefaultExperiment: &fmi.DefaultExperiment{StartTime: 0, StopTime: m.Stop, StepSize: m.Dt, Tolerance: m.Tolerance},
		LogCategories: []fmi.LogCategory{
			{Name: LogError, Description: "Why a call returned Error or Discard"},
			{Name: LogWarning, Description: "Warnings of the scene's run"},
			{Name: LogInfo, Description: "What the FMU does (with debug logging on)"},
		},
	}
	units := map[string]bool{}
	for _, v := range m.Variables {
		fv := fmi.Variable{Name: v.Name, VR: v.VR, Type: v.Type, Description: v.Description, Min: v.Min, Max: v.Max, DerivativeOf: -1}
		if v.Units != "" && v.Units != "1" {
			if u, ok := fmi.UnitDefinition(v.Units); ok {
				fv.Unit = u.Name
				if !units[u.Name] {
					units[u.Name] = true
					md.Units = append(md.Units, u)
				}
			} else {
				if fv.Description != "" {
					fv.Description += " "
				}
				fv.Description += "[" + v.Units + "]"
			}
		}
		if v.Array {
			fv.Dimensions = []fmi.Dimension{{Start: v.Size, Var: -1}}
		}
		switch v.Kind {
		case Time:
			fv.Causality, fv.Variability = fmi.CausalityIndependent, fmi.VariabilityContinuous
		case Parameter:
			fv.Causality, fv.Variability = fmi.CausalityParameter, fmi.VariabilityFixed
			if v.Tunable {
				fv.Variability = fmi.VariabilityTunable
			}
			fv.Start, fv.HasStart = v.Start, true
		case Input:
			fv.Causality, fv.Variability = fmi.CausalityInput, fmi.VariabilityContinuous
			fv.Start, fv.HasStart = v.Start, true
		case Output:
			fv.Causality, fv.Variability = fmi.CausalityOutput, fmi.VariabilityContinuous
		}
		if v.Type != fmi.Float64 {
			fv.Variability = fmi.VariabilityFixed
			if v.Tunable {
				fv.Variability = fmi.VariabilityTunable
			}
		}
		md.Variables = append(md.Variables, fv)
	}
	for i, v := range m.Variables {
		if v.Kind != Output {
			continue
		}
		// A state field's value at a communication point is the state's:
		// the inputs set there do not change it. Any other output may
		// depend on every input.
		u := fmi.Unknown{Var: i, AllDependencies: !v.State}
		md.Outputs = append(md.Outputs, u)
		md.InitialUnknowns = append(md.InitialUnknowns, fmi.Unknown{Var: i, AllDependencies: true})
	}
	return md
}
