package control

import (
	"github.com/cosimgo/cosim/node"
)

// SaturationName and DeadZoneName are the registry names of the
// saturation and dead-zone blocks.
const (
	SaturationName = "saturation"
	DeadZoneName   = "deadzone"
)

// SaturationType registers the saturation block: a new value at each call.
func SaturationType() node.Type {
	return node.Type{Name: SaturationName, New: func(m map[string]any) (node.Node, error) { return asNode(newLimiter(SaturationName, m)) }}
}

// DeadZoneType registers the dead zone block: a new value at each call.
func DeadZoneType() node.Type {
	return node.Type{Name: DeadZoneName, New: func(m map[string]any) (node.Node, error) { return asNode(newLimiter(DeadZoneName, m)) }}
}

// LimitParams are the parameters of a saturation or a dead zone: a band
// [Lower, Upper] per component (nil: the default −1 … 1).
type LimitParams struct {
	// Lower and Upper bound the band; Lower ≤ Upper in every component.
	Lower, Upper []float64
	// Size is the number of components. Default 1.
	Size int
	// Units of the input and the output. Default "1".
	Units string
}

func (p LimitParams) values() node.Values {
	return node.Values{"lower": orDefault(p.Lower, -1), "upper": orDefault(p.Upper, 1), "size": orSize(p.Size), "units": orUnits(p.Units)}
}

func limitParams(band string) []node.Param {
	return []node.Param{
		perComponent("lower", -1, node.Finite(), "", "Lower end $a$ of the "+band+", in the signal's units ($a \\le b$)"),
		perComponent("upper", 1, node.Finite(), "", "Upper end $b$ of the "+band+", in the signal's units"),
		sizeParam,
		unitsParam("units", "Units of the input and the output"),
	}
}

var (
	saturationParams = limitParams("output range")
	deadZoneParams   = limitParams("dead band")
)

// Limiter is a stateless saturation y = min(max(u, a), b) or dead zone
// (zero inside [a, b], u − b above, u − a below), per component. Both
// are continuous with a kink at a and b; they have feedthrough.
type Limiter struct {
	node.Stateless
	block
	dead bool
}

// Saturation and DeadZone are the two kinds of Limiter, by name.
type (
	Saturation = Limiter
	DeadZone   = Limiter
)

var (
	_ node.Outputter      = (*Limiter)(nil)
	_ node.OutputJacobian = (*Limiter)(nil)
	_ node.Tunable        = (*Limiter)(nil)
)

// NewSaturation builds a saturation block from typed parameters.
func NewSaturation(p LimitParams) (*Limiter, error) { return newLimiter(SaturationName, p.values()) }

// NewDeadZone builds a dead-zone block from typed parameters.
func NewDeadZone(p LimitParams) (*Limiter, error) { return newLimiter(DeadZoneName, p.values()) }

func newLimiter(typ string, given map[string]any) (*Limiter, error) {
	params := saturationParams
	if typ == DeadZoneName {
		params = deadZoneParams
	}
	vals, err := node.Resolve(typ, params, nil, given)
	if err != nil {
		return nil, err
	}
	n := vals.Int("size")
	if err := checkLimiter(typ, vals, n); err != nil {
		return nil, err
	}
	l := &Limiter{block: block{typ: typ, params: params, fixed: []string{"size", "units"}, n: n}, dead: typ == DeadZoneName}
	l.set(vals)
	units := vals.String("units")
	desc, meta := "The saturated input $\\min(\\max(u, a), b)$", saturationMeta()
	if l.dead {
		desc, meta = "The input less the dead band: $0$ on $[a, b]$, $u - b$ above, $u - a$ below", deadZoneMeta()
	}
	l.spec = node.NewSpec(node.Spec{
		Type:        typ,
		Package:     pkgPath,
		Params:      params,
		Inputs:      []node.Input{{Name: "in", Shape: shapeOf(n), Units: units, Combine: node.Additive, Description: "The input $u$ (edges into it are summed)"}},
		Outputs:     []node.Field{{Name: "out", Shape: shapeOf(n), Units: units, Description: desc}},
		Feedthrough: true,
		Meta:        meta,
	})
	return l, nil
}

func checkLimiter(typ string, vals node.Values, n int) error {
	if err := checkPerComponent(typ, vals, n, "lower", "upper"); err != nil {
		return err
	}
	if err := checkOrdered(typ, vals, n, "lower", "upper"); err != nil {
		return err
	}
	return checkUnits(typ, vals, "units")
}

func (l *Limiter) set(vals node.Values) {
	l.vals = vals
	lo, hi := vals.Floats("lower"), vals.Floats("upper")
	p := []float64(nil)
	for i := range l.n {
		p = append(p, comp(lo, i))
	}
	for i := range l.n {
		p = append(p, comp(hi, i))
	}
	l.row.Set(p)
}

// saturationRow and deadZoneRow write the block's output for the band
// p (a_i then b_i) into y: the arithmetic of Outputs and of a batch
// kernel.
func saturationRow(p, u, y []float64) {
	n := len(y)
	for i := range y {
		y[i] = clamp(u[i], p[i], p[n+i])
	}
}

func deadZoneRow(p, u, y []float64) {
	n := len(y)
	for i := range y {
		switch a, b := p[i], p[n+i]; {
		case u[i] > b:
			y[i] = u[i] - b
		case u[i] < a:
			y[i] = u[i] - a
		default:
			y[i] = 0
		}
	}
}

// Outputs writes the saturated (or dead-zoned) input into dst.
func (l *Limiter) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	if l.dead {
		deadZoneRow(l.pars(), in.Values[:l.n], dst[:l.n])
	} else {
		saturationRow(l.pars(), in.Values[:l.n], dst[:l.n])
	}
	return nil
}

// OutputsJacobian writes the diagonal ∂y_i/∂u_i into dst: for a
// saturation 1 on the closed band [a, b] and 0 outside, for a dead zone
// the complement. At a and b themselves it is the one-sided derivative
// from inside the band.
func (l *Limiter) OutputsJacobian(t float64, x []float64, in node.Inputs, dst []float64) error {
	n := l.n
	d := dst[:n*n]
	clear(d)
	for i := range n {
		u := in.Values[i]
		inside := u >= l.pars()[i] && u <= l.pars()[n+i]
		if inside != l.dead {
			d[i*n+i] = 1
		}
	}
	return nil
}

// SetParams overrides parameters (all or nothing); the size and units
// cannot change.
func (l *Limiter) SetParams(p map[string]any) error {
	vals, err := l.resolve(p)
	if err != nil {
		return err
	}
	if err := checkLimiter(l.typ, vals, l.n); err != nil {
		return err
	}
	l.set(vals)
	return nil
}

// kinkNote is the assumption the saturation and the dead zone state
// about adaptive integration.
const kinkNote = "Continuous, with a kink (a jump of the derivative) at $a$ and at $b$: adaptive Dormand–Prince resolves a crossing by shortening its steps " +
	"to the tolerance. No event is declared: graphs take events from stateful nodes only, and a kink does not need one for accuracy"

func saturationMeta() node.Metadata {
	return node.Metadata{
		AlgorithmID: "COSIM-NODE-504",
		Version:     "1.0.0",
		Stability:   node.Stable,
		Summary:     "A saturation: the input limited to [a, b] per component, the model of an actuator's range.",
		Equations:   []string{`y_i = \min(\max(u_i, a_i), b_i)`},
		EquationNotes: "$a$ is `lower`, $b$ `upper`, one value for every component or one per component, $a_i \\le b_i$. " +
			"$a_i = b_i$ gives a constant output.",
		Order:       node.Order{Note: "Exact."},
		Assumptions: []string{"Stateless; the output reads the input at the same instant (feedthrough)", kinkNote},
		Limitations: []string{
			"Limits are fixed parameters; a limit driven by another signal is a `switch`, or a `sum` around a `saturation` with a band of zero width",
			"Inside a control loop, saturating the actuator winds up an integrator upstream: use the `pid` block's own output limits with back-calculation",
		},
		Mapping: []node.Mapping{
			{Term: `\min(\max(u, a), b)`, Identifier: pkgPath + ".saturationRow", Notes: "shared by Outputs and a batch kernel"},
			{Term: `\partial y/\partial u`, Identifier: pkgPath + ".Limiter.OutputsJacobian", Notes: "1 inside, 0 outside"},
		},
		References: []node.Reference{refSimulink, refDrake},
		Anomalies:  []string{},
		Evidence:   []string{"COSIM-VER-501"},
		Changelog:  []node.Change{{Version: "1.0.0", Date: changeDate, Change: "Initial implementation"}},
	}
}

func deadZoneMeta() node.Metadata {
	return node.Metadata{
		AlgorithmID: "COSIM-NODE-505",
		Version:     "1.0.0",
		Stability:   node.Stable,
		Summary:     "A dead zone: zero output for inputs inside [a, b], the input less the nearest band end outside it (backlash-free play, a sensor's threshold).",
		Equations:   []string{`y_i = \begin{cases} u_i - b_i & u_i > b_i \\ 0 & a_i \le u_i \le b_i \\ u_i - a_i & u_i < a_i \end{cases}`},
		EquationNotes: "$a$ is `lower`, $b$ `upper`, one value for every component or one per component, $a_i \\le b_i$. " +
			"The output is continuous: it leaves the band with slope 1.",
		Order:       node.Order{Note: "Exact."},
		Assumptions: []string{"Stateless; the output reads the input at the same instant (feedthrough)", kinkNote},
		Limitations: []string{"Memoryless: mechanical backlash (a band that moves with the input's history) needs a state and is not this block"},
		Mapping: []node.Mapping{
			{Term: `y_i`, Identifier: pkgPath + ".deadZoneRow", Notes: "shared by Outputs and a batch kernel"},
			{Term: `\partial y/\partial u`, Identifier: pkgPath + ".Limiter.OutputsJacobian", Notes: "0 inside, 1 outside"},
		},
		References: []node.Reference{refSimulink},
		Anomalies:  []string{},
		Evidence:   []string{"COSIM-VER-501"},
		Changelog:  []node.Change{{Version: "1.0.0", Date: changeDate, Change: "Initial implementation"}},
	}
}
