package source

import (
	"math"

	"github.com/cosimgo/cosim/node"
)

// SineName is the registry name of the sine source.
const SineName = "sine"

// SineType is the sine source type, for node.NewRegistry(source.SineType(), …).
func SineType() node.Type { return node.Type{Name: SineName, New: SineFromMap} }

// SineParams are the sine source's parameters. Each slice has one value
// per output component, or one value for all (nil: the default).
type SineParams struct {
	// Amplitude A in the output units. Default [1].
	Amplitude []float64
	// Omega is the angular frequency ω in rad/s (not Hz: ω = 2πf).
	// Default [1].
	Omega []float64
	// Phase φ in rad. Default [0].
	Phase []float64
	// Offset c in the output units. Default [0].
	Offset []float64
	// Units of the output. Default "1".
	Units string
}

func (p SineParams) values() node.Values {
	return node.Values{
		"amplitude": orDefault(p.Amplitude, 1), "omega": orDefault(p.Omega, 1),
		"phase": orDefault(p.Phase, 0), "offset": orDefault(p.Offset, 0), "units": orUnits(p.Units),
	}
}

func orDefault(v []float64, def float64) []float64 {
	if v == nil {
		return []float64{def}
	}
	return v
}

func orUnits(u string) string {
	if u == "" {
		return "1"
	}
	return u
}

var sineParams = []node.Param{
	perComponent("amplitude", 1, "", "Amplitude $A$, in the output units"),
	perComponent("omega", 1, "rad/s", "Angular frequency $\\omega$ in rad/s (not Hz: $\\omega = 2\\pi f$)"),
	perComponent("phase", 0, "rad", "Phase $\\varphi$ at $t = 0$"),
	perComponent("offset", 0, "", "Offset $c$, in the output units"),
	unitsParam,
}

var sineVectors = []string{"amplitude", "omega", "phase", "offset"}

// Sine is a stateless source y_i(t) = c_i + A_i sin(ω_i t + φ_i).
type Sine struct {
	base
	// rowParams holds, per component i, A_i, ω_i, φ_i, c_i at
	// p[4i:4i+4] (sineRow).
	rowParams
}

var (
	_ node.Outputter = (*Sine)(nil)
	_ node.Tunable   = (*Sine)(nil)
)

// NewSine builds a sine source from typed parameters.
func NewSine(p SineParams) (*Sine, error) {
	vals, err := node.Resolve(SineName, sineParams, nil, p.values())
	if err != nil {
		return nil, err
	}
	return buildSine(vals)
}

// SineFromMap builds a sine source from a name→value map (nil: defaults).
func SineFromMap(m map[string]any) (node.Node, error) {
	vals, err := node.Resolve(SineName, sineParams, nil, m)
	if err != nil {
		return nil, err
	}
	return buildSine(vals)
}

func buildSine(vals node.Values) (*Sine, error) {
	if err := checkUnits(SineName, vals); err != nil {
		return nil, err
	}
	n, err := size(SineName, vals, sineVectors...)
	if err != nil {
		return nil, err
	}
	s := &Sine{base: base{vals: vals, n: n}}
	s.set(vals)
	s.spec = newSpec(SineName, sineParams, vals.String("units"), n, "The sine $c + A\\sin(\\omega t + \\varphi)$, per component", sineMeta())
	return s, nil
}

// sineWidth is the length of a sine's parameter row per component.
const sineWidth = 4

func (s *Sine) set(vals node.Values) {
	s.vals = vals
	a, w, ph, c := vals.Floats("amplitude"), vals.Floats("omega"), vals.Floats("phase"), vals.Floats("offset")
	p := make([]float64, sineWidth*s.n)
	for i := range s.n {
		q := p[sineWidth*i : sineWidth*i+sineWidth]
		q[0], q[1], q[2], q[3] = comp(a, i), comp(w, i), comp(ph, i), comp(c, i)
	}
	s.row.Set(p)
}

// sineRow writes c_i + A_i sin(ω_i t + φ_i) into dst[i] for every
// component of dst, from a parameter row p (see Sine): the arithmetic of
// Outputs and of the batch kernel.
func sineRow(t float64, p, dst []float64) {
	for i := range dst {
		q := p[sineWidth*i : sineWidth*i+sineWidth : sineWidth*i+sineWidth]
		dst[i] = q[3] + q[0]*math.Sin(q[1]*t+q[2])
	}
}

// Outputs writes c + A sin(ωt + φ) into dst.
func (s *Sine) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	sineRow(t, s.params(), dst[:s.n])
	return nil
}

// SetParams overrides parameters (all or nothing); the output size and
// units cannot change.
func (s *Sine) SetParams(p map[string]any) error {
	vals, err := node.Resolve(SineName, sineParams, s.vals, p)
	if err != nil {
		return err
	}
	if _, err := size(SineName, vals, sineVectors...); err != nil {
		return err
	}
	if err := s.fixed(SineName, vals, sineVectors...); err != nil {
		return err
	}
	s.set(vals)
	return nil
}

func sineMeta() node.Metadata {
	return node.Metadata{
		AlgorithmID: "COSIM-NODE-103",
		Version:     "1.0.0",
		Stability:   node.Stable,
		Summary:     "A sinusoidal source of any vector size: amplitude, angular frequency (rad/s), phase and offset per component.",
		Equations:   []string{`y_i(t) = c_i + A_i \sin(\omega_i t + \varphi_i)`},
		EquationNotes: "$A_i$ (`amplitude`), $\\omega_i$ (`omega`, rad/s), $\\varphi_i$ (`phase`, rad) and $c_i$ (`offset`) are per output component $i$; " +
			"a parameter given with one value applies to every component. The output is a scalar for one component, a vector otherwise.",
		Order: node.Order{Note: "Exact: the output is evaluated in closed form at the time it is asked for (to the accuracy of math.Sin)."},
		Assumptions: []string{
			"Stateless: the output depends on time only",
			"In co-simulation the output is sampled at each step's start and held over the step (the receiving node's inputs are held)",
		},
		Limitations: []string{
			"The frequency is constant: a chirp needs a lookup table or a user node",
			"For large ω t the phase is affected by the rounding of ω t (relative 1e-16 of ω t)",
			"At most 64 components",
		},
		Mapping: []node.Mapping{
			{Term: `c_i + A_i \sin(\omega_i t + \varphi_i)`, Identifier: pkgPath + ".Sine.Outputs"},
		},
		References: []node.Reference{
			{Key: "Simulink", Text: "MathWorks Simulink, Sine Wave block (time-based mode): amplitude, bias, frequency (rad/s), phase.", Note: "Same parametrization; cosim calls the bias `offset`."},
			{Key: "Drake", Text: "Drake systems::Sine: amplitude, frequency (rad/s), phase per component.", Note: "Vector-valued with per-component parameters, as here."},
		},
		Anomalies: []string{},
		Evidence:  []string{"COSIM-VER-103"},
		Changelog: []node.Change{{Version: "1.0.0", Date: changeDate, Change: "Initial implementation"}},
	}
}
