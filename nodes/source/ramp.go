package source

import (
	"github.com/cosimgo/cosim/node"
)

// RampName is the registry name of the ramp source.
const RampName = "ramp"

// RampType is the ramp source type, for a node.Registry.
func RampType() node.Type { return node.Type{Name: RampName, New: RampFromMap} }

// RampParams are the ramp source's parameters. Slope and Offset have one
// value per output component, or one value for all (nil: the default).
type RampParams struct {
	// Start time t₀ of the ramp in s. Default 0.
	Start float64
	// Slope s in output units per second. Default [1].
	Slope []float64
	// Offset c, the value before t₀. Default [0].
	Offset []float64
	// Units of the output. Default "1".
	Units string
}

func (p RampParams) values() node.Values {
	return node.Values{"start": p.Start, "slope": orDefault(p.Slope, 1), "offset": orDefault(p.Offset, 0), "units": orUnits(p.Units)}
}

var rampParams = []node.Param{
	{Name: "start", Kind: node.Real, Default: 0.0, Units: "s", Description: "Start time $t_0$ of the ramp (a time event: the slope jumps there)"},
	perComponent("slope", 1, "", "Slope $s$ in output units per second"),
	perComponent("offset", 0, "", "Offset $c$: the value before $t_0$, in the output units"),
	unitsParam,
}

var rampVectors = []string{"slope", "offset"}

// Ramp is a stateless source y_i(t) = c_i + s_i·max(0, t − t₀). Its kink
// at t₀ is a time event (node.TimeEventer).
type Ramp struct {
	base
	// rowParams is t₀, then per component i s_i, c_i at p[1+2i:3+2i]
	// (rampRow).
	rowParams
}

var (
	_ node.Outputter   = (*Ramp)(nil)
	_ node.Tunable     = (*Ramp)(nil)
	_ node.TimeEventer = (*Ramp)(nil)
)

// NewRamp builds a ramp source from typed parameters.
func NewRamp(p RampParams) (*Ramp, error) {
	vals, err := node.Resolve(RampName, rampParams, nil, p.values())
	if err != nil {
		return nil, err
	}
	return buildRamp(vals)
}

// RampFromMap builds a ramp source from a name→value map (nil: defaults).
func RampFromMap(m map[string]any) (node.Node, error) {
	vals, err := node.Resolve(RampName, rampParams, nil, m)
	if err != nil {
		return nil, err
	}
	return buildRamp(vals)
}

func buildRamp(vals node.Values) (*Ramp, error) {
	if err := checkUnits(RampName, vals); err != nil {
		return nil, err
	}
	n, err := size(RampName, vals, rampVectors...)
	if err != nil {
		return nil, err
	}
	r := &Ramp{base: base{n: n}}
	r.set(vals)
	r.spec = newSpec(RampName, rampParams, vals.String("units"), n, "The ramp $c + s\\,\\max(0, t - t_0)$, per component", rampMeta())
	return r, nil
}

func (r *Ramp) set(vals node.Values) {
	r.vals = vals
	sl, c := vals.Floats("slope"), vals.Floats("offset")
	p := make([]float64, 1+2*r.n)
	p[0] = vals.Float("start")
	for i := range r.n {
		p[1+2*i], p[2+2*i] = comp(sl, i), comp(c, i)
	}
	r.row.Set(p)
}

// rampRow writes c + s·max(0, t − t₀) into dst, from a parameter row p
// (see Ramp): the arithmetic of Outputs and of the batch kernel.
func rampRow(t float64, p, dst []float64) {
	d := t - p[0]
	if d < 0 {
		d = 0
	}
	for i := range dst {
		q := p[1+2*i : 3+2*i : 3+2*i]
		dst[i] = q[1] + q[0]*d
	}
}

// Outputs writes c + s·max(0, t − t₀) into dst.
func (r *Ramp) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	rampRow(t, r.params(), dst[:r.n])
	return nil
}

// TimeEvents reports the start time as the ramp's one time event.
func (r *Ramp) TimeEvents(t float64) (int, float64, float64) { return oneEvent(t, r.params()[0]) }

// SetParams overrides parameters (all or nothing); the output size and
// units cannot change.
func (r *Ramp) SetParams(p map[string]any) error {
	vals, err := node.Resolve(RampName, rampParams, r.vals, p)
	if err != nil {
		return err
	}
	if _, err := size(RampName, vals, rampVectors...); err != nil {
		return err
	}
	if err := r.fixed(RampName, vals, rampVectors...); err != nil {
		return err
	}
	r.set(vals)
	return nil
}

func rampMeta() node.Metadata {
	return node.Metadata{
		AlgorithmID: "COSIM-NODE-105",
		Version:     "1.0.0",
		Stability:   node.Stable,
		Summary:     "A ramp source of any vector size: constant before the start time, then rising at a constant slope, with the kink declared as a time event.",
		Equations:   []string{`y_i(t) = c_i + s_i \max(0,\ t - t_0)`},
		EquationNotes: "$t_0$ is `start`, $s_i$ `slope` and $c_i$ `offset` per output component $i$ (one value applies to every component). " +
			"The output is continuous; its slope jumps at $t_0$.",
		Order: node.Order{Note: "Exact: evaluated in closed form at the time it is asked for."},
		Assumptions: []string{
			"Stateless: the output depends on time only",
			timeEventNote,
		},
		Limitations: []string{
			"No saturation: the output grows without bound; add a step of slope −s (a second ramp) to stop it",
			"At most 64 components",
		},
		Mapping: []node.Mapping{
			{Term: `c_i + s_i \max(0, t - t_0)`, Identifier: pkgPath + ".Ramp.Outputs"},
			{Term: `t_0 \text{ (time event)}`, Identifier: pkgPath + ".Ramp.TimeEvents"},
		},
		References: []node.Reference{
			{Key: "Simulink", Text: "MathWorks Simulink, Ramp block: slope, start time, initial output.", Note: "Same parametrization; cosim calls the initial output `offset`."},
		},
		Anomalies: []string{},
		Evidence:  []string{"COSIM-VER-103"},
		Changelog: []node.Change{{Version: "1.0.0", Date: changeDate, Change: "Initial implementation"}},
	}
}
