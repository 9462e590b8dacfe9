package control

import (
	"github.com/cosimgo/cosim/node"
)

// SwitchName is the registry name of the switch block.
const SwitchName = "switch"

// SwitchType registers the switch block: a new value at each call.
func SwitchType() node.Type {
	return node.Type{Name: SwitchName, New: func(m map[string]any) (node.Node, error) { return asNode(newSwitch(m)) }}
}

// Switch criteria: which values of the control input select "on".
const (
	CriterionAtLeast = "ge"  // control ≥ threshold
	CriterionAbove   = "gt"  // control > threshold
	CriterionNonZero = "ne0" // control ≠ 0 (the threshold is ignored)
)

// SwitchParams are the switch block's parameters.
type SwitchParams struct {
	// Criterion is CriterionAtLeast (default), CriterionAbove or
	// CriterionNonZero.
	Criterion string
	// Threshold is the control value the criterion compares with.
	// Default 0.
	Threshold float64
	// Size is the number of components of on, off and the output.
	// Default 1.
	Size int
	// Units of on, off and the output; ControlUnits of the control.
	// Default "1".
	Units, ControlUnits string
}

func (p SwitchParams) values() node.Values {
	c := p.Criterion
	if c == "" {
		c = CriterionAtLeast
	}
	return node.Values{"criterion": c, "threshold": p.Threshold, "size": orSize(p.Size), "units": orUnits(p.Units), "control_units": orUnits(p.ControlUnits)}
}

var switchParams = []node.Param{
	{Name: "criterion", Kind: node.Text, Default: CriterionAtLeast, Choices: []string{CriterionAtLeast, CriterionAbove, CriterionNonZero},
		Description: "When the output is `on`: `\"ge\"` control $\\ge$ threshold, `\"gt\"` control $>$ threshold, `\"ne0\"` control $\\ne 0$"},
	{Name: "threshold", Kind: node.Real, Default: 0.0, Units: "control units", Description: "Threshold $c_0$ the control is compared with (not used by `\"ne0\"`)"},
	sizeParam,
	unitsParam("units", "Units of `on`, `off` and the output"),
	unitsParam("control_units", "Units of the control input"),
}

// Switch is a stateless selector: y = on when the control meets the
// criterion, off otherwise. It has feedthrough; the output jumps where
// the control crosses the threshold.
type Switch struct {
	node.Stateless
	// block's row is [criterion code, threshold]: 0 ≥, 1 >, 2 ≠ 0.
	block
}

var (
	_ node.Outputter      = (*Switch)(nil)
	_ node.OutputJacobian = (*Switch)(nil)
	_ node.Tunable        = (*Switch)(nil)
)

// NewSwitch builds a switch block from typed parameters.
func NewSwitch(p SwitchParams) (*Switch, error) { return newSwitch(p.values()) }

func newSwitch(given map[string]any) (*Switch, error) {
	vals, err := node.Resolve(SwitchName, switchParams, nil, given)
	if err != nil {
		return nil, err
	}
	if err := checkUnits(SwitchName, vals, "units", "control_units"); err != nil {
		return nil, err
	}
	s := &Switch{block: block{typ: SwitchName, params: switchParams, fixed: []string{"size", "units", "control_units"}, n: vals.Int("size")}}
	s.set(vals)
	units, sh := vals.String("units"), shapeOf(s.n)
	s.spec = node.NewSpec(node.Spec{
		Type:    SwitchName,
		Package: pkgPath,
		Params:  switchParams,
		Inputs: []node.Input{
			{Name: "on", Shape: sh, Units: units, Combine: node.Additive, Description: "The output while the control meets the criterion"},
			{Name: "control", Shape: node.Scalar, Units: vals.String("control_units"), Combine: node.Additive, Description: "The control $c$ (one for every component)"},
			{Name: "off", Shape: sh, Units: units, Combine: node.Additive, Description: "The output otherwise"},
		},
		Outputs:     []node.Field{{Name: "out", Shape: sh, Units: units, Description: "`on` or `off`"}},
		Feedthrough: true,
		Meta:        switchMeta(),
	})
	return s, nil
}

func (s *Switch) set(vals node.Values) {
	s.vals = vals
	code := 0.0
	switch vals.String("criterion") {
	case CriterionAbove:
		code = 1
	case CriterionNonZero:
		code = 2
	}
	s.row.Set([]float64{code, vals.Float("threshold")})
}

// switchOn reports whether control c selects "on" under p.
func switchOn(p []float64, c float64) bool {
	switch p[0] {
	case 1:
		return c > p[1]
	case 2:
		return c != 0
	}
	return c >= p[1]
}

// switchRow writes on or off into y: the arithmetic of Outputs and of a
// batch kernel, from the inputs on, control c and off.
func switchRow(p []float64, on []float64, c float64, off, y []float64) {
	src := off
	if switchOn(p, c) {
		src = on
	}
	copy(y, src)
}

// Outputs writes on or off into dst.
func (s *Switch) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	n := s.n
	switchRow(s.pars(), in.Values[:n], in.Values[n], in.Values[n+1:2*n+1], dst[:n])
	return nil
}

// OutputsJacobian writes ∂y/∂on = I or ∂y/∂off = I, whichever is
// selected, and ∂y/∂control = 0 (the output is piecewise constant in
// the control).
func (s *Switch) OutputsJacobian(t float64, x []float64, in node.Inputs, dst []float64) error {
	n := s.n
	nu := 2*n + 1
	d := dst[:n*nu]
	clear(d)
	off := n + 1
	if switchOn(s.pars(), in.Values[n]) {
		off = 0
	}
	for i := range n {
		d[i*nu+off+i] = 1
	}
	return nil
}

// SetParams overrides parameters (all or nothing); the size and units
// cannot change.
func (s *Switch) SetParams(p map[string]any) error {
	vals, err := s.resolve(p)
	if err != nil {
		return err
	}
	s.set(vals)
	return nil
}

func switchMeta() node.Metadata {
	return node.Metadata{
		AlgorithmID: "COSIM-NODE-506",
		Version:     "1.0.0",
		Stability:   node.Stable,
		Summary:     "A switch: the output is the `on` input while the control meets a criterion (≥ or > a threshold, or ≠ 0) and the `off` input otherwise.",
		Equations:   []string{`y = \begin{cases} u_{\mathrm{on}} & c \mathrel{R} c_0 \\ u_{\mathrm{off}} & \text{otherwise} \end{cases}`},
		EquationNotes: "$c$ is the scalar input `control`, $c_0$ the `threshold`, and $R$ the `criterion`: $\\ge$, $>$, or $c \\ne 0$. " +
			"The port order on, control, off is Simulink's.",
		Order: node.Order{Note: "Exact."},
		Assumptions: []string{
			"Stateless; the output reads the inputs at the same instant (feedthrough)",
			"The output jumps where the control crosses the threshold. No state event is declared (graphs take events from stateful nodes only): " +
				"co-simulation switches at the first step on the other side; adaptive Dormand–Prince meets the jump as a discontinuity of the right-hand side " +
				"and shortens its steps until the error estimate accepts it, so the crossing time is resolved only to about the step where it settles. " +
				"When the control is a known function of time, drive it from a source (step, pulse, lookup), whose time events the integrator lands on exactly",
		},
		Limitations: []string{
			"No hysteresis: a control that hovers at the threshold chatters between on and off",
			"One scalar control for every component",
		},
		Mapping: []node.Mapping{
			{Term: `y`, Identifier: pkgPath + ".switchRow", Notes: "shared by Outputs and a batch kernel"},
			{Term: `c \mathrel{R} c_0`, Identifier: pkgPath + ".switchOn"},
			{Term: `\partial y/\partial u`, Identifier: pkgPath + ".Switch.OutputsJacobian", Notes: "identity on the selected input"},
		},
		References: []node.Reference{refSimulink},
		Anomalies:  []string{},
		Evidence:   []string{"COSIM-VER-501"},
		Changelog:  []node.Change{{Version: "1.0.0", Date: changeDate, Change: "Initial implementation"}},
	}
}
