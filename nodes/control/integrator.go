package control

import (
	"fmt"

	"github.com/cosimgo/cosim/node"
)

// IntegratorName is the registry name of the integrator block.
const IntegratorName = "integrator"

// IntegratorType registers the integrator block: a new value at each call.
func IntegratorType() node.Type {
	return node.Type{Name: IntegratorName, New: func(m map[string]any) (node.Node, error) { return asNode(newIntegrator(m)) }}
}

// ResetThreshold is the value at or above which a reset input resets
// (a logical signal: 1 resets, 0 does not).
const ResetThreshold = 0.5

// IntegratorParams are the integrator block's parameters. Per-component
// slices have one value for every component or one per component (nil:
// the default).
type IntegratorParams struct {
	// Gain K: ẏ = K u. Default [1].
	Gain []float64
	// Initial is y(t0), and the value a reset returns to. Default [0].
	Initial []float64
	// Limit turns the output limits on. Default false.
	Limit bool
	// Lower and Upper are the limits (used with Limit). Default −1, 1.
	Lower, Upper []float64
	// Size is the number of components. Default 1.
	Size int
	// InputUnits and OutputUnits are the units of u and y. Default "1".
	InputUnits, OutputUnits string
}

func (p IntegratorParams) values() node.Values {
	return node.Values{"gain": orDefault(p.Gain, 1), "initial": orDefault(p.Initial, 0), "limit_output": p.Limit,
		"lower": orDefault(p.Lower, -1), "upper": orDefault(p.Upper, 1), "size": orSize(p.Size),
		"input_units": orUnits(p.InputUnits), "output_units": orUnits(p.OutputUnits)}
}

var integratorParams = []node.Param{
	perComponent("gain", 1, node.Finite(), "output units / (input units · s)", "Gain $K$ of $\\dot y = K u$"),
	perComponent("initial", 0, node.Finite(), "output units", "Initial value $y(t_0)$, and the value a reset returns to"),
	{Name: "limit_output", Kind: node.Bool, Default: false, Description: "Hold the output within [`lower`, `upper`] (a limited integrator: it stops at a limit and leaves it as soon as the input turns back)"},
	perComponent("lower", -1, node.Finite(), "output units", "Lower limit $a$ (with `limit_output`)"),
	perComponent("upper", 1, node.Finite(), "output units", "Upper limit $b$ (with `limit_output`)"),
	sizeParam,
	unitsParam("input_units", "Units of the input $u$"),
	unitsParam("output_units", "Units of the output $y$ (the input's times seconds, times those of the gain)"),
}

// Integrator is a continuous integrator ẏ = K u with optional output
// limits and a level reset input.
type Integrator struct {
	block
}

var (
	_ node.Deriver        = (*Integrator)(nil)
	_ node.Outputter      = (*Integrator)(nil)
	_ node.InputJacobian  = (*Integrator)(nil)
	_ node.OutputJacobian = (*Integrator)(nil)
	_ node.Eventer        = (*Integrator)(nil)
	_ node.Tunable        = (*Integrator)(nil)
)

// NewIntegrator builds an integrator block from typed parameters.
func NewIntegrator(p IntegratorParams) (*Integrator, error) { return newIntegrator(p.values()) }

func newIntegrator(given map[string]any) (*Integrator, error) {
	vals, err := node.Resolve(IntegratorName, integratorParams, nil, given)
	if err != nil {
		return nil, err
	}
	n := vals.Int("size")
	if err := checkIntegrator(vals, n); err != nil {
		return nil, err
	}
	g := &Integrator{block: block{typ: IntegratorName, params: integratorParams, fixed: []string{"size", "input_units", "output_units"}, n: n}}
	g.set(vals)
	sh, out := shapeOf(n), vals.String("output_units")
	events := make([]node.Event, 0, 2*n+1)
	for _, side := range []string{"upper", "lower"} {
		for i := range n {
			name := side + "_limit"
			if n > 1 {
				name = fmt.Sprintf("%s[%d]", name, i)
			}
			events = append(events, node.Event{Name: name, Direction: 1,
				Description: "The output reaches its " + side + " limit (with `limit_output`): the reset clamps it there"})
		}
	}
	events = append(events, node.Event{Name: "reset", Direction: 1, Description: "The reset input rises through 0.5: the reset returns the output to `initial`"})
	g.spec = node.NewSpec(node.Spec{
		Type:    IntegratorName,
		Package: pkgPath,
		Params:  integratorParams,
		State:   []node.Field{{Name: "state", Shape: sh, Units: out, Description: "The integral $y$"}},
		Inputs: []node.Input{
			{Name: "in", Shape: sh, Units: vals.String("input_units"), Combine: node.Additive, Description: "The integrand $u$ (edges into it are summed)"},
			{Name: "reset", Shape: node.Scalar, Units: "1", Combine: node.Additive, Absent: true,
				Description: "Level reset: while it is at least 0.5 the output is held at `initial` (unconnected: never reset)"},
		},
		Outputs: []node.Field{{Name: "out", Shape: sh, Units: out, Description: "The integral $y$ (the state)"}},
		Events:  events,
		Meta:    integratorMeta(),
	})
	return g, nil
}

func checkIntegrator(vals node.Values, n int) error {
	if err := checkPerComponent(IntegratorName, vals, n, "gain", "initial", "lower", "upper"); err != nil {
		return err
	}
	if err := checkOrdered(IntegratorName, vals, n, "lower", "upper"); err != nil {
		return err
	}
	if vals.Bool("limit_output") {
		lo, hi, y0 := vals.Floats("lower"), vals.Floats("upper"), vals.Floats("initial")
		for i := range n {
			if v := comp(y0, i); v < comp(lo, i) || v > comp(hi, i) {
				return &node.ParamError{Node: IntegratorName, Param: "initial", Value: y0,
					Reason: fmt.Sprintf("component %d (%s) is outside the limits [%s, %s]", i, node.FormatValue(v), node.FormatValue(comp(lo, i)), node.FormatValue(comp(hi, i))),
					Valid:  "values within [lower, upper] when limit_output is on"}
			}
		}
	}
	return checkUnits(IntegratorName, vals, "input_units", "output_units")
}

func (g *Integrator) set(vals node.Values) {
	g.vals = vals
	p := []float64(nil)
	for _, name := range []string{"gain", "initial", "lower", "upper"} {
		v := vals.Floats(name)
		for i := range g.n {
			p = append(p, comp(v, i))
		}
	}
	lim := 0.0
	if vals.Bool("limit_output") {
		lim = 1
	}
	p = append(p, lim)
	g.row.Set(p)
}

// resetting reports whether a connected reset input is at or above
// ResetThreshold.
func (g *Integrator) resetting(in node.Inputs) bool {
	return in.Present[1] && in.Values[g.n] >= ResetThreshold
}

// integratorRate is ẏ_i = K_i u_i, or 0 where a limited output sits at
// (or beyond) a limit and the input pushes it further: the right-hand
// side of Derivatives and the rate Update integrates.
func integratorRate(p []float64, n, i int, x, u float64) float64 {
	r := p[i] * u
	if integratorHeld(p, n, i, x, r) {
		return 0
	}
	return r
}

// integratorHeld reports whether component i, with rate r = K_i u_i, is
// held at a limit: limits on, and the output at (or beyond) a limit with
// the rate pushing it further. A zero rate is never held, so the
// input's derivative there is the free one, K_i.
func integratorHeld(p []float64, n, i int, x, r float64) bool {
	return p[4*n] != 0 && ((x >= p[3*n+i] && r > 0) || (x <= p[2*n+i] && r < 0))
}

// integratorStep is the exact solution over dt with the input held: the
// output moves at K u and stops at a limit, y⁺ = clamp(y + dt K u).
// A reset (held) puts it at y0. It is the arithmetic of Update and of a
// batch kernel.
func integratorStep(p []float64, dt float64, x, u []float64, reset bool, dst []float64) {
	n := len(dst)
	if reset {
		copy(dst, p[n:2*n])
		return
	}
	for i := range dst {
		y := x[i] + dt*p[i]*u[i]
		if p[4*n] != 0 {
			y = clamp(y, p[2*n+i], p[3*n+i])
		}
		dst[i] = y
	}
}

// InitialState writes y(t0) = initial into dst.
func (g *Integrator) InitialState(dst []float64) { copy(dst[:g.n], g.pars()[g.n:2*g.n]) }

// Update advances the output over dt with the input held: the exact
// solution y + dt K u, stopped at the limits; while the reset input is
// at least 0.5 the output is `initial`.
func (g *Integrator) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	if err := checkDt(IntegratorName, dt); err != nil {
		return err
	}
	integratorStep(g.pars(), dt, x, in.Values[:g.n], g.resetting(in), dst[:g.n])
	return nil
}

// integratorRates writes ẏ = K u into dst, zero while reset: the
// arithmetic of Derivatives and of the batch kernel.
func integratorRates(p []float64, x, u []float64, reset bool, dst []float64) {
	n := len(dst)
	for i := range dst {
		if reset {
			dst[i] = 0
			continue
		}
		dst[i] = integratorRate(p, n, i, x[i], u[i])
	}
}

// Derivatives writes ẏ = K u into dst: zero at a limit the input pushes
// against, and while the reset input is at least 0.5.
func (g *Integrator) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	integratorRates(g.pars(), x, in.Values[:g.n], g.resetting(in), dst[:g.n])
	return nil
}

// Outputs writes y = the state into dst.
func (g *Integrator) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	copy(dst[:g.n], x[:g.n])
	return nil
}

// OutputsJacobian writes ∂y/∂u = 0: the output is the state.
func (g *Integrator) OutputsJacobian(t float64, x []float64, in node.Inputs, dst []float64) error {
	clear(dst[:g.n*(g.n+1)])
	return nil
}

// DerivativesJacobian writes ∂f/∂y = 0 and ∂f/∂u = diag(K), with zero
// rows where the output is held at a limit or by a reset. A zero input
// is not a hold: there the derivative is K (free integration), also at
// a limit, where it is the one-sided derivative into the range.
func (g *Integrator) DerivativesJacobian(t float64, x []float64, in node.Inputs, dstX, dstU []float64) error {
	n := g.n
	if dstX != nil {
		clear(dstX[:n*n])
	}
	if dstU != nil {
		nu := n + 1
		d := dstU[:n*nu]
		clear(d)
		reset := g.resetting(in)
		for i := range n {
			p := g.pars()
			if !reset && !integratorHeld(p, n, i, x[i], p[i]*in.Values[i]) {
				d[i*nu+i] = p[i]
			}
		}
	}
	return nil
}

// EventValues writes, per component, y − b (upper limit) then a − y
// (lower limit), −1 when the output is not limited; then reset − 0.5,
// −1 when the reset input is unconnected.
func (g *Integrator) EventValues(t float64, x []float64, in node.Inputs, dst []float64) error {
	n := g.n
	lim := g.pars()[4*n] != 0
	for i := range n {
		dst[i], dst[n+i] = -1, -1
		if lim {
			dst[i], dst[n+i] = x[i]-g.pars()[3*n+i], g.pars()[2*n+i]-x[i]
		}
	}
	dst[2*n] = -1
	if in.Present[1] {
		dst[2*n] = in.Values[n] - ResetThreshold
	}
	return nil
}

// Reset clamps the component that reached a limit, or returns the
// output to `initial` at a reset.
func (g *Integrator) Reset(event int, t float64, x []float64, in node.Inputs, dst []float64) error {
	n := g.n
	copy(dst[:n], x[:n])
	switch {
	case event < n:
		dst[event] = g.pars()[3*n+event]
	case event < 2*n:
		dst[event-n] = g.pars()[2*n+event-n]
	default:
		copy(dst[:n], g.pars()[n:2*n])
	}
	return nil
}

// SetParams overrides parameters (all or nothing); the size and units
// cannot change.
func (g *Integrator) SetParams(p map[string]any) error {
	vals, err := g.resolve(p)
	if err != nil {
		return err
	}
	if err := checkIntegrator(vals, g.n); err != nil {
		return err
	}
	g.set(vals)
	return nil
}

// holdNote is the discretization note of the blocks whose Update is the
// exact solution for a held input.
const holdNote = "Update is the exact solution of the block's own equations over the step with its inputs held at their values at the step's start " +
	"(the zero-order hold of co-simulation): exact for piecewise-constant inputs such as a step, first order in the step for smoothly varying ones. " +
	"It is the scheme `exact-hold` of the conformance checker (package verification), which holds it to a fine integration of Derivatives. " +
	"Unconditionally stable: no step is too long for the block itself"

func integratorMeta() node.Metadata {
	return node.Metadata{
		AlgorithmID: "COSIM-NODE-507",
		Version:     "1.0.1",
		Stability:   node.Stable,
		Summary:     "A continuous integrator ẏ = K u with optional output limits (it stops at a limit and leaves as soon as the input turns back) and a level reset input.",
		Equations: []string{
			`\dot y_i = \begin{cases} 0 & \text{reset} \ge 0.5,\ \text{or } y_i \ge b_i,\ K_i u_i > 0,\ \text{or } y_i \le a_i,\ K_i u_i < 0 \\ K_i\,u_i & \text{otherwise} \end{cases}`,
			`y(t_0) = y_0, \qquad y \leftarrow y_0 \ \text{while reset} \ge 0.5`,
		},
		EquationNotes: "$u$ is the input `in`, $K$ the `gain`, $y_0$ `initial`, $a$ and $b$ the limits `lower` and `upper` (only with `limit_output`). " +
			"The reset input is a logical level: while it is at least 0.5 the output is held at $y_0$, and integration resumes from $y_0$ when it falls.",
		Discretization:      "exact-hold",
		DiscretizationNotes: holdNote + ". Here $y^+ = \\operatorname{clamp}(y + \\Delta t\\,K u,\\ a,\\ b)$, and $y^+ = y_0$ when the reset is at least 0.5 at the step's start.",
		Order:               node.Order{Temporal: 1, Note: "Exact for a piecewise-constant input; first order (the held input) otherwise."},
		Assumptions: []string{
			"The input is held over a co-simulation step",
			"In a monolithic run the limits and the reset are events: the output is clamped at the located crossing and held there while the input pushes outward; the reset's rising edge is located and the state returned to $y_0$",
		},
		Limitations: []string{
			"The reset is a level, not an edge: a reset held high holds the output at `initial`",
			"The reset value is the parameter `initial`, not a signal",
			"A co-simulation step that spans a limit stops at the limit within the step; the time of contact is not located",
			"In a fixed-step monolithic run (RK4, for example) a stage that lands past a limit sees the held flow, 0, so the located time of reaching the limit is late by up to a fraction of the step; an adaptive run locates it to its tolerance",
			"Leaving a limit is not an event: the flow resumes when the input turns back, a kink in the state's slope that an adaptive method's error control resolves and a fixed-step method takes inside a step",
		},
		StabilityConditions: []string{"Unconditionally stable: Update is the exact solution for the held input."},
		StableStep:          &node.StableStep{Unconditional: true, Notes: "Update is the exact solution over the step for the held input, so no step length makes it unstable."},
		Mapping: []node.Mapping{
			{Term: `\dot y = K u`, Identifier: pkgPath + ".integratorRate", Notes: "with the limits"},
			{Term: `y^+ = \operatorname{clamp}(y + \Delta t K u)`, Identifier: pkgPath + ".integratorStep", Notes: "shared by Update and a batch kernel"},
			{Term: `\partial f/\partial u = K`, Identifier: pkgPath + ".Integrator.DerivativesJacobian", Notes: "exact"},
			{Term: "limit and reset events", Identifier: pkgPath + ".Integrator.EventValues"},
		},
		References: []node.Reference{refSimulink, refDrake},
		Anomalies:  []string{},
		Evidence:   []string{"COSIM-VER-502"},
		Changelog: []node.Change{
			{Version: "1.0.0", Date: changeDate, Change: "Initial implementation"},
			{Version: "1.0.1", Date: "2026-12-05", Change: "DerivativesJacobian: the input derivative is K where the input is 0 (it was 0, as if a limit held the output)"},
		},
	}
}
