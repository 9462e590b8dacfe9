package source

import (
	"fmt"
	"math"

	"github.com/cosimgo/cosim/node"
)

// PulseName is the registry name of the pulse source.
const PulseName = "pulse"

// PulseType is the pulse source type, for a node.Registry.
func PulseType() node.Type { return node.Type{Name: PulseName, New: PulseFromMap} }

// PulseParams are the pulse source's parameters. Amplitude and Offset
// have one value per output component, or one value for all (nil: the
// default).
type PulseParams struct {
	// Period P in s, > 0. Default 1.
	Period float64
	// Width W of each pulse in s, 0 < W < P. Default 0.5.
	Width float64
	// Delay D in s: the first pulse starts at D. Default 0.
	Delay float64
	// Amplitude A: the output is c + A during a pulse. Default [1].
	Amplitude []float64
	// Offset c: the output between pulses. Default [0].
	Offset []float64
	// Units of the output. Default "1".
	Units string
}

// DefaultPulseParams returns a unit pulse train of period 1 s, width 0.5 s.
func DefaultPulseParams() PulseParams { return PulseParams{Period: 1, Width: 0.5} }

func (p PulseParams) values() node.Values {
	return node.Values{"period": p.Period, "width": p.Width, "delay": p.Delay,
		"amplitude": orDefault(p.Amplitude, 1), "offset": orDefault(p.Offset, 0), "units": orUnits(p.Units)}
}

var pulseParams = []node.Param{
	{Name: "period", Kind: node.Real, Default: 1.0, Units: "s", Range: node.Positive(), Description: "Period $P$ of the pulse train"},
	{Name: "width", Kind: node.Real, Default: 0.5, Units: "s", Range: node.Positive(), Description: "Width $W$ of each pulse, $0 < W < P$"},
	{Name: "delay", Kind: node.Real, Default: 0.0, Units: "s", Description: "Delay $D$: the first pulse starts at $t = D$; the output is $c$ before it"},
	perComponent("amplitude", 1, "", "Amplitude $A$: the output is $c + A$ during a pulse, in the output units"),
	perComponent("offset", 0, "", "Offset $c$: the output between pulses, in the output units"),
	unitsParam,
}

var pulseVectors = []string{"amplitude", "offset"}

// Pulse is a stateless periodic pulse train: c + A during
// [D + kP, D + kP + W), c otherwise (k = 0, 1, …). Both edges of every
// pulse are time events (node.TimeEventer).
type Pulse struct {
	base
	// rowParams is P, W, D, then per component i A_i, c_i at
	// p[3+2i:5+2i] (pulseRow).
	rowParams
}

var (
	_ node.Outputter   = (*Pulse)(nil)
	_ node.Tunable     = (*Pulse)(nil)
	_ node.TimeEventer = (*Pulse)(nil)
)

// NewPulse builds a pulse source from typed parameters.
func NewPulse(p PulseParams) (*Pulse, error) {
	vals, err := node.Resolve(PulseName, pulseParams, nil, p.values())
	if err != nil {
		return nil, err
	}
	return buildPulse(vals)
}

// PulseFromMap builds a pulse source from a name→value map (nil:
// defaults).
func PulseFromMap(m map[string]any) (node.Node, error) {
	vals, err := node.Resolve(PulseName, pulseParams, nil, m)
	if err != nil {
		return nil, err
	}
	return buildPulse(vals)
}

// checkPulse applies the rules across parameters: W < P.
func checkPulse(vals node.Values) (int, error) {
	if err := checkUnits(PulseName, vals); err != nil {
		return 0, err
	}
	if w, p := vals.Float("width"), vals.Float("period"); !(w < p) {
		return 0, &node.ParamError{Node: PulseName, Param: "width", Value: w,
			Reason: fmt.Sprintf("is not less than the period %s", node.FormatValue(p)), Valid: fmt.Sprintf("(0, %s) s", node.FormatValue(p))}
	}
	return size(PulseName, vals, pulseVectors...)
}

func buildPulse(vals node.Values) (*Pulse, error) {
	n, err := checkPulse(vals)
	if err != nil {
		return nil, err
	}
	p := &Pulse{base: base{n: n}}
	p.set(vals)
	p.spec = newSpec(PulseName, pulseParams, vals.String("units"), n, "The pulse train: $c + A$ during a pulse, $c$ between pulses", pulseMeta())
	return p, nil
}

func (p *Pulse) set(vals node.Values) {
	p.vals = vals
	a, c := vals.Floats("amplitude"), vals.Floats("offset")
	row := make([]float64, 3+2*p.n)
	row[0], row[1], row[2] = vals.Float("period"), vals.Float("width"), vals.Float("delay")
	for i := range p.n {
		row[3+2*i], row[4+2*i] = comp(a, i), comp(c, i)
	}
	p.row.Set(row)
}

// pulseEdge is the time of edge j ≥ 0 of a train of period per, width w
// and delay d: rising edges are even (d + m·per), falling edges odd
// (d + m·per + w). TimeEvents and Outputs (through pulseEvents) both use
// it, so the output switches exactly at the event times.
func pulseEdge(per, w, d float64, j int) float64 {
	r := d + float64(j/2)*per
	if j%2 == 1 {
		r += w
	}
	return r
}

// pulseEvents reports where t lies among the edges of a train of period
// per, width w and delay d: k edges at or before t (the output is high
// when k is odd), between edges prev and next.
func pulseEvents(per, w, d, t float64) (k int, prev, next float64) {
	if t < d {
		return 0, math.Inf(-1), d
	}
	// m = ⌊(t − D)/P⌋, corrected so that edge(2m) ≤ t < edge(2m+2)
	// whatever the rounding of the division.
	q := math.Floor((t - d) / per)
	if q > 1<<52 {
		// Beyond 2^52 periods the edges are not representable apart:
		// report no further events (rather than loop) and tell high from
		// low by the phase alone.
		if math.Mod(t-d, per) < w {
			return 1, math.Inf(-1), math.Inf(1)
		}
		return 2, math.Inf(-1), math.Inf(1)
	}
	m := int(q)
	for m > 0 && pulseEdge(per, w, d, 2*m) > t {
		m--
	}
	for pulseEdge(per, w, d, 2*m+2) <= t {
		m++
	}
	if f := pulseEdge(per, w, d, 2*m+1); f <= t {
		return 2*m + 2, f, pulseEdge(per, w, d, 2*m+2)
	}
	return 2*m + 1, pulseEdge(per, w, d, 2*m), pulseEdge(per, w, d, 2*m+1)
}

// TimeEvents reports where t lies among the pulse edges: k edges at or
// before t (the output is high when k is odd), between edges prev and
// next.
func (p *Pulse) TimeEvents(t float64) (int, float64, float64) {
	row := p.params()
	return pulseEvents(row[0], row[1], row[2], t)
}

// pulseRow writes c + A during a pulse and c otherwise into dst, from a
// parameter row p (see Pulse): the arithmetic of Outputs and of the
// batch kernel.
func pulseRow(t float64, p, dst []float64) {
	k, _, _ := pulseEvents(p[0], p[1], p[2], t)
	high := k%2 == 1
	for i := range dst {
		q := p[3+2*i : 5+2*i : 5+2*i]
		v := q[1]
		if high {
			v += q[0]
		}
		dst[i] = v
	}
}

// Outputs writes c + A during a pulse and c otherwise into dst.
func (p *Pulse) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	pulseRow(t, p.params(), dst[:p.n])
	return nil
}

// SetParams overrides parameters (all or nothing); the output size and
// units cannot change.
func (p *Pulse) SetParams(m map[string]any) error {
	vals, err := node.Resolve(PulseName, pulseParams, p.vals, m)
	if err != nil {
		return err
	}
	if _, err := checkPulse(vals); err != nil {
		return err
	}
	if err := p.fixed(PulseName, vals, pulseVectors...); err != nil {
		return err
	}
	p.set(vals)
	return nil
}

func pulseMeta() node.Metadata {
	return node.Metadata{
		AlgorithmID: "COSIM-NODE-106",
		Version:     "1.0.0",
		Stability:   node.Stable,
		Summary:     "A periodic pulse train of any vector size (period, width, delay), with both edges of every pulse declared as time events.",
		Equations: []string{
			`y_i(t) = \begin{cases} c_i + A_i & D + kP \le t < D + kP + W,\ k = 0, 1, \dots \\ c_i & \text{otherwise} \end{cases}`,
		},
		EquationNotes: "$P$ is `period`, $W$ `width` ($0 < W < P$), $D$ `delay`; $A_i$ `amplitude` and $c_i$ `offset` per output component $i$ " +
			"(one value applies to every component). Both edges are right-continuous: the output is high at $D + kP$ and low at $D + kP + W$. " +
			"Before $D$ the output is $c$.",
		Order: node.Order{Note: "Exact: evaluated in closed form at the time it is asked for; edge k is computed as $D + \\lfloor k/2 \\rfloor P\\ (+W)$, so edges do not drift."},
		Assumptions: []string{
			"Stateless: the output depends on time only",
			timeEventNote,
		},
		Limitations: []string{
			"Ideal edges (zero rise time)",
			"Beyond $2^{52}$ periods after the delay the edges are no longer representable apart: no further time events are reported and the output follows the phase $(t - D) \\bmod P$",
			"At most 64 components",
		},
		Mapping: []node.Mapping{
			{Term: `y_i(t)`, Identifier: pkgPath + ".Pulse.Outputs", Notes: "high when an odd number of edges lie at or before t"},
			{Term: `D + kP,\ D + kP + W \text{ (time events)}`, Identifier: pkgPath + ".Pulse.TimeEvents"},
		},
		References: []node.Reference{
			{Key: "Simulink", Text: "MathWorks Simulink, Pulse Generator block (time-based): amplitude, period, pulse width, phase delay.", Note: "cosim gives the width in seconds rather than as a percentage of the period."},
		},
		Anomalies: []string{},
		Evidence:  []string{"COSIM-VER-103"},
		Changelog: []node.Change{{Version: "1.0.0", Date: changeDate, Change: "Initial implementation"}},
	}
}
