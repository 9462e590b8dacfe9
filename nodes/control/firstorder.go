package control

import (
	"github.com/cosimgo/cosim/node"
)

// LagName and DerivativeName are the registry names of the first-order
// lag and the filtered derivative.
const (
	LagName        = "lag"
	DerivativeName = "derivative"
)

// LagType registers the first-order lag block: a new value at each call.
func LagType() node.Type {
	return node.Type{Name: LagName, New: func(m map[string]any) (node.Node, error) { return asNode(newFirstOrder(LagName, m)) }}
}

// DerivativeType registers the filtered derivative block: a new value at each call.
func DerivativeType() node.Type {
	return node.Type{Name: DerivativeName, New: func(m map[string]any) (node.Node, error) { return asNode(newFirstOrder(DerivativeName, m)) }}
}

// FirstOrderParams are the parameters of a lag K/(Ts + 1) or a filtered
// derivative Ks/(Ts + 1). Per-component slices have one value for every
// component or one per component (nil: the default).
type FirstOrderParams struct {
	// Gain K. Default [1].
	Gain []float64
	// TimeConstant T in s, > 0. Default [0.1] for a lag, [0.01] for a
	// derivative (its filter should be fast against the input).
	TimeConstant []float64
	// Initial is the lag's y(t0), or the derivative's input before t0
	// (its filter state starts there, so a constant input gives zero).
	// Default [0].
	Initial []float64
	// Size is the number of components. Default 1.
	Size int
	// InputUnits and OutputUnits are the units of u and y. Default "1".
	InputUnits, OutputUnits string
}

func (p FirstOrderParams) values(typ string) node.Values {
	init, tc := "initial", 0.1
	if typ == DerivativeName {
		init, tc = "initial_input", 0.01
	}
	return node.Values{"gain": orDefault(p.Gain, 1), "time_constant": orDefault(p.TimeConstant, tc), init: orDefault(p.Initial, 0),
		"size": orSize(p.Size), "input_units": orUnits(p.InputUnits), "output_units": orUnits(p.OutputUnits)}
}

var (
	lagParams = []node.Param{
		perComponent("gain", 1, node.Finite(), "output units / input units", "Static gain $K$"),
		perComponent("time_constant", 0.1, node.Positive(), "s", "Time constant $T$"),
		perComponent("initial", 0, node.Finite(), "output units", "Initial output $y(t_0)$"),
		sizeParam,
		unitsParam("input_units", "Units of the input $u$"),
		unitsParam("output_units", "Units of the output $y$"),
	}
	derivativeParams = []node.Param{
		perComponent("gain", 1, node.Finite(), "output units · s / input units", "Gain $K$ of the derivative"),
		perComponent("time_constant", 0.01, node.Positive(), "s", "Filter time constant $T$: the derivative is exact for frequencies well below $1/T$"),
		perComponent("initial_input", 0, node.Finite(), "input units", "Input $u$ assumed before $t_0$: the filter starts at rest there, so an input that starts at this value gives no initial kick"),
		sizeParam,
		unitsParam("input_units", "Units of the input $u$"),
		unitsParam("output_units", "Units of the output $y$ (the input's per second, times those of the gain)"),
	}
)

// FirstOrder is a first-order lag y = K/(Ts + 1) u or a filtered
// derivative y = K s/(Ts + 1) u, per component, with filter state x:
// ẋ = (target − x)/T, target K u (lag) or u (derivative); y = x (lag) or
// K (u − x)/T (derivative, with feedthrough).
type FirstOrder struct {
	block
	deriv bool
}

// Lag and Derivative are the two kinds of FirstOrder, by name.
type (
	Lag        = FirstOrder
	Derivative = FirstOrder
)

var (
	_ node.Deriver        = (*FirstOrder)(nil)
	_ node.Outputter      = (*FirstOrder)(nil)
	_ node.InputJacobian  = (*FirstOrder)(nil)
	_ node.OutputJacobian = (*FirstOrder)(nil)
	_ node.Tunable        = (*FirstOrder)(nil)
)

// NewLag builds a first-order lag from typed parameters.
func NewLag(p FirstOrderParams) (*FirstOrder, error) {
	return newFirstOrder(LagName, p.values(LagName))
}

// NewDerivative builds a filtered derivative from typed parameters.
func NewDerivative(p FirstOrderParams) (*FirstOrder, error) {
	return newFirstOrder(DerivativeName, p.values(DerivativeName))
}

func newFirstOrder(typ string, given map[string]any) (*FirstOrder, error) {
	params, init := lagParams, "initial"
	if typ == DerivativeName {
		params, init = derivativeParams, "initial_input"
	}
	vals, err := node.Resolve(typ, params, nil, given)
	if err != nil {
		return nil, err
	}
	n := vals.Int("size")
	if err := checkFirstOrder(typ, vals, n, init); err != nil {
		return nil, err
	}
	f := &FirstOrder{block: block{typ: typ, params: params, fixed: []string{"size", "input_units", "output_units"}, n: n}, deriv: typ == DerivativeName}
	f.set(vals)
	sh, iu, ou := shapeOf(n), vals.String("input_units"), vals.String("output_units")
	state := node.Field{Name: "state", Shape: sh, Units: ou, Description: "The output $y$ (the state $x$)"}
	outDesc, meta := "The lagged input $y = x$", lagMeta()
	if f.deriv {
		state = node.Field{Name: "state", Shape: sh, Units: iu, Description: "The filtered input $x$ (a lag of $u$ with gain 1)"}
		outDesc, meta = "The filtered derivative $y = K (u - x)/T$", derivativeMeta()
	}
	f.spec = node.NewSpec(node.Spec{
		Type:        typ,
		Package:     pkgPath,
		Params:      params,
		State:       []node.Field{state},
		Inputs:      []node.Input{{Name: "in", Shape: sh, Units: iu, Combine: node.Additive, Description: "The input $u$ (edges into it are summed)"}},
		Outputs:     []node.Field{{Name: "out", Shape: sh, Units: ou, Description: outDesc}},
		Feedthrough: f.deriv,
		Meta:        meta,
	})
	return f, nil
}

func checkFirstOrder(typ string, vals node.Values, n int, init string) error {
	if err := checkPerComponent(typ, vals, n, "gain", "time_constant", init); err != nil {
		return err
	}
	return checkUnits(typ, vals, "input_units", "output_units")
}

func (f *FirstOrder) set(vals node.Values) {
	f.vals = vals
	init := "initial"
	if f.deriv {
		init = "initial_input"
	}
	p := []float64(nil)
	for _, name := range []string{"gain", "time_constant", init} {
		v := vals.Floats(name)
		for i := range f.n {
			p = append(p, comp(v, i))
		}
	}
	f.row.Set(p)
}

// firstOrderTarget is the value component i of the filter state tends
// to: K u for a lag, u for a derivative.
func firstOrderTarget(p []float64, deriv bool, i int, u float64) float64 {
	if deriv {
		return u
	}
	return p[i] * u
}

// firstOrderStep is the exact solution over dt with the input held,
// x⁺ = x + (target − x)(1 − e^{−dt/T}): the arithmetic of Update and of a
// batch kernel.
func firstOrderStep(p []float64, deriv bool, dt float64, x, u, dst []float64) {
	n := len(dst)
	for i := range dst {
		r := firstOrderTarget(p, deriv, i, u[i])
		dst[i] = x[i] + (r-x[i])*decay(dt, p[n+i])
	}
}

// InitialState writes the lag's initial output, or the derivative's
// initial input, into dst.
func (f *FirstOrder) InitialState(dst []float64) { copy(dst[:f.n], f.pars()[2*f.n:3*f.n]) }

// Update advances the filter state over dt with the input held: the
// exact solution x + (target − x)(1 − e^{−dt/T}).
func (f *FirstOrder) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	if err := checkDt(f.typ, dt); err != nil {
		return err
	}
	firstOrderStep(f.pars(), f.deriv, dt, x, in.Values[:f.n], dst[:f.n])
	return nil
}

// firstOrderRates writes ẋ = (target − x)/T into dst, and
// firstOrderOutputs y = x (lag) or y = K (u − x)/T (derivative): the
// arithmetic of Derivatives and Outputs and of the batch kernel.
func firstOrderRates(p []float64, deriv bool, x, u, dst []float64) {
	n := len(dst)
	for i := range dst {
		dst[i] = (firstOrderTarget(p, deriv, i, u[i]) - x[i]) / p[n+i]
	}
}

func firstOrderOutputs(p []float64, deriv bool, x, u, dst []float64) {
	if !deriv {
		copy(dst, x[:len(dst)])
		return
	}
	n := len(dst)
	for i := range dst {
		dst[i] = p[i] * (u[i] - x[i]) / p[n+i]
	}
}

// Derivatives writes ẋ = (target − x)/T into dst.
func (f *FirstOrder) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	firstOrderRates(f.pars(), f.deriv, x, in.Values[:f.n], dst[:f.n])
	return nil
}

// Outputs writes y = x (lag) or y = K (u − x)/T (derivative) into dst.
func (f *FirstOrder) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	firstOrderOutputs(f.pars(), f.deriv, x, in.Values[:f.n], dst[:f.n])
	return nil
}

// OutputsJacobian writes ∂y/∂u: 0 for a lag, diag(K/T) for a derivative.
func (f *FirstOrder) OutputsJacobian(t float64, x []float64, in node.Inputs, dst []float64) error {
	n := f.n
	d := dst[:n*n]
	clear(d)
	if f.deriv {
		for i := range n {
			d[i*n+i] = f.pars()[i] / f.pars()[n+i]
		}
	}
	return nil
}

// DerivativesJacobian writes ∂f/∂x = −diag(1/T) and ∂f/∂u = diag(K/T)
// (lag) or diag(1/T) (derivative).
func (f *FirstOrder) DerivativesJacobian(t float64, x []float64, in node.Inputs, dstX, dstU []float64) error {
	n := f.n
	if dstX != nil {
		clear(dstX[:n*n])
		for i := range n {
			dstX[i*n+i] = -1 / f.pars()[n+i]
		}
	}
	if dstU != nil {
		clear(dstU[:n*n])
		for i := range n {
			dstU[i*n+i] = firstOrderTarget(f.pars(), f.deriv, i, 1) / f.pars()[n+i]
		}
	}
	return nil
}

// SetParams overrides parameters (all or nothing); the size and units
// cannot change.
func (f *FirstOrder) SetParams(p map[string]any) error {
	vals, err := f.resolve(p)
	if err != nil {
		return err
	}
	init := "initial"
	if f.deriv {
		init = "initial_input"
	}
	if err := checkFirstOrder(f.typ, vals, f.n, init); err != nil {
		return err
	}
	f.set(vals)
	return nil
}

// firstOrderStable is the stable-step statement of the exact first-order
// update.
var firstOrderStable = &node.StableStep{Unconditional: true,
	Notes: "Update is the exact solution for the held input, $x^+ = x + (r - x)(1 - e^{-\\Delta t/T})$: it moves towards the target by a fraction below 1 at any step."}

func lagMeta() node.Metadata {
	return node.Metadata{
		AlgorithmID: "COSIM-NODE-508",
		Version:     "1.0.0",
		Stability:   node.Stable,
		Summary:     "A first-order lag K/(Ts + 1): a sensor's or an actuator's bandwidth, a low-pass filter.",
		Equations:   []string{`T\,\dot y + y = K\,u, \qquad Y(s) = \frac{K}{T s + 1}\,U(s)`},
		EquationNotes: "$u$ is the input `in`, $y$ the output `out` (the state), $K$ the `gain`, $T$ the `time_constant`, per component. " +
			"The step response is $y(t) = K u_0 (1 - e^{-t/T})$ from rest; the frequency response $K/(1 + j\\omega T)$.",
		Discretization:      "exact-hold",
		DiscretizationNotes: holdNote + ". Here $y^+ = y + (K u - y)(1 - e^{-\\Delta t/T})$, with $1 - e^{-\\Delta t/T}$ from `math.Expm1` so that it stays accurate for $\\Delta t \\ll T$.",
		Order:               node.Order{Temporal: 1, Note: "Exact for a piecewise-constant input (a step response is exact at every step); first order (the held input) otherwise."},
		Assumptions:         []string{"Linear and time-invariant", "The input is held over a co-simulation step"},
		Limitations:         []string{"One time constant per component; higher orders are a `transferfunction` or a `statespace`"},
		StabilityConditions: []string{"Unconditionally stable."},
		StableStep:          firstOrderStable,
		Mapping: []node.Mapping{
			{Term: `y^+ = y + (K u - y)(1 - e^{-\Delta t/T})`, Identifier: pkgPath + ".firstOrderStep", Notes: "shared by Update and a batch kernel"},
			{Term: `\dot y = (K u - y)/T`, Identifier: pkgPath + ".FirstOrder.Derivatives"},
			{Term: `\partial f/\partial y,\ \partial f/\partial u`, Identifier: pkgPath + ".FirstOrder.DerivativesJacobian", Notes: "exact"},
		},
		References: []node.Reference{refAstromMurray, refSimulink},
		Anomalies:  []string{},
		Evidence:   []string{"COSIM-VER-502", "COSIM-VER-503"},
		Changelog:  []node.Change{{Version: "1.0.0", Date: changeDate, Change: "Initial implementation"}},
	}
}

func derivativeMeta() node.Metadata {
	return node.Metadata{
		AlgorithmID: "COSIM-NODE-509",
		Version:     "1.0.0",
		Stability:   node.Stable,
		Summary:     "A filtered derivative Ks/(Ts + 1): the derivative of the input for frequencies well below 1/T, with the gain rolled off above (a pure derivative amplifies noise without bound).",
		Equations: []string{
			`Y(s) = \frac{K s}{T s + 1}\,U(s)`,
			`\dot x = (u - x)/T, \qquad y = K\,(u - x)/T`,
		},
		EquationNotes: "$u$ is the input `in`, $y$ the output `out`, $K$ the `gain`, $T$ the `time_constant`, per component; the state $x$ is $u$ passed through a lag " +
			"of time constant $T$, so $y = K\\,\\dot x$. A unit step of the input gives $y(t) = (K/T) e^{-t/T}$; the frequency response is $jK\\omega/(1 + j\\omega T)$.",
		Discretization:      "exact-hold",
		DiscretizationNotes: holdNote + ". Here $x^+ = x + (u - x)(1 - e^{-\\Delta t/T})$; the output reads the input at the same instant.",
		Order:               node.Order{Temporal: 1, Note: "Exact for a piecewise-constant input; first order (the held input) otherwise."},
		Assumptions: []string{
			"Linear and time-invariant",
			"The output reads the input at the same instant (feedthrough): a cycle of feedthrough edges through it is an algebraic loop",
		},
		Limitations: []string{
			"The derivative of a step is an impulse: the block gives a pulse of height $K/T$ and width about $T$ instead",
			"$T$ trades noise for phase: at $\\omega = 1/T$ the gain is $K\\omega/\\sqrt 2$ and the phase 45° short of the ideal 90°",
		},
		StabilityConditions: []string{"Unconditionally stable."},
		StableStep:          firstOrderStable,
		Mapping: []node.Mapping{
			{Term: `x^+ = x + (u - x)(1 - e^{-\Delta t/T})`, Identifier: pkgPath + ".firstOrderStep", Notes: "shared by Update and a batch kernel"},
			{Term: `y = K(u - x)/T`, Identifier: pkgPath + ".FirstOrder.Outputs"},
			{Term: `\partial f/\partial x,\ \partial f/\partial u,\ \partial y/\partial u`, Identifier: pkgPath + ".FirstOrder.DerivativesJacobian", Notes: "exact"},
		},
		References: []node.Reference{refAstromMurray, refSimulink},
		Anomalies:  []string{},
		Evidence:   []string{"COSIM-VER-502", "COSIM-VER-503"},
		Changelog:  []node.Change{{Version: "1.0.0", Date: changeDate, Change: "Initial implementation"}},
	}
}
