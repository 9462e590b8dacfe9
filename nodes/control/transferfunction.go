package control

import (
	"fmt"

	"github.com/cosimgo/cosim/node"
)

// TransferFunctionName is the registry name of the transfer-function
// block.
const TransferFunctionName = "transferfunction"

// TransferFunctionType registers the transfer-function block: a new value at each call.
func TransferFunctionType() node.Type {
	return node.Type{Name: TransferFunctionName, New: func(m map[string]any) (node.Node, error) { return asNode(newTransferFunction(m)) }}
}

// MaxOrder is the largest order (denominator degree) of a transfer
// function: a companion-form realization of a higher order is too badly
// conditioned to be trusted in float64.
const MaxOrder = 16

// TransferFunctionParams are the transfer-function block's parameters.
type TransferFunctionParams struct {
	// Numerator and Denominator are the coefficients of N(s) and D(s),
	// highest power first: [1, 2] is s + 2. Defaults [1] and [1, 1].
	Numerator, Denominator []float64
	// InitialInput is the input the block is at rest with at t0 (its
	// output is then H(0) times it). Default 0: at rest at zero.
	InitialInput float64
	// InputUnits and OutputUnits are the units of u and y. Default "1".
	InputUnits, OutputUnits string
}

func (p TransferFunctionParams) values() node.Values {
	den := p.Denominator
	if den == nil {
		den = []float64{1, 1}
	}
	return node.Values{"numerator": orDefault(p.Numerator, 1), "denominator": den, "initial_input": p.InitialInput,
		"input_units": orUnits(p.InputUnits), "output_units": orUnits(p.OutputUnits)}
}

var transferFunctionParams = []node.Param{
	{Name: "numerator", Kind: node.Vector, Shape: node.Vec(1), MaxLen: MaxOrder + 1, Default: []float64{1}, Units: "output units / input units · s^k",
		Description: "Coefficients of the numerator $N(s)$, highest power first (`[1, 2]` is $s + 2$); its degree at most the denominator's (a proper transfer function)"},
	{Name: "denominator", Kind: node.Vector, Shape: node.Vec(2), MaxLen: MaxOrder + 1, Default: []float64{1.0, 1}, Units: "s^k",
		Description: "Coefficients of the denominator $D(s)$, highest power first, leading coefficient nonzero; degree 1 to 16"},
	{Name: "initial_input", Kind: node.Real, Default: 0.0, Units: "input units",
		Description: "Input $u_0$ the block is at rest with at $t_0$: the state starts at the equilibrium $x_0 = -A^{-1}B u_0$, the output at $H(0) u_0$ (needs $D(0) \\ne 0$ unless $u_0 = 0$)"},
	unitsParam("input_units", "Units of the input $u$"),
	unitsParam("output_units", "Units of the output $y$"),
}

// TransferFunction is a single-input single-output block
// Y(s) = N(s)/D(s) U(s), proper, realized in controllable canonical
// form. A biproper transfer function (numerator and denominator of one
// degree) has feedthrough.
type TransferFunction struct {
	ltiBlock
}

var (
	_ node.Deriver        = (*TransferFunction)(nil)
	_ node.Outputter      = (*TransferFunction)(nil)
	_ node.InputJacobian  = (*TransferFunction)(nil)
	_ node.OutputJacobian = (*TransferFunction)(nil)
	_ node.Tunable        = (*TransferFunction)(nil)
)

// NewTransferFunction builds a transfer-function block from typed
// parameters.
func NewTransferFunction(p TransferFunctionParams) (*TransferFunction, error) {
	return newTransferFunction(p.values())
}

func newTransferFunction(given map[string]any) (*TransferFunction, error) {
	vals, err := node.Resolve(TransferFunctionName, transferFunctionParams, nil, given)
	if err != nil {
		return nil, err
	}
	tf := &TransferFunction{ltiBlock{block: block{typ: TransferFunctionName, params: transferFunctionParams, fixed: []string{"input_units", "output_units"}, n: 1}}}
	sys, err := realizeTransferFunction(vals)
	if err != nil {
		return nil, err
	}
	tf.cur.Set(sys)
	tf.vals = vals
	tf.spec = node.NewSpec(node.Spec{
		Type:    TransferFunctionName,
		Package: pkgPath,
		Params:  transferFunctionParams,
		State: []node.Field{{Name: "state", Shape: shapeOf(sys.n), Units: "1",
			Description: "Controllable canonical state: $x_1$ is $U/D(s)$ and $x_{k+1} = \\dot x_k$ (units of the input times powers of seconds; read `out`, not the state)"}},
		Inputs:      []node.Input{{Name: "in", Shape: node.Scalar, Units: vals.String("input_units"), Combine: node.Additive, Description: "The input $u$ (edges into it are summed)"}},
		Outputs:     []node.Field{{Name: "out", Shape: node.Scalar, Units: vals.String("output_units"), Description: "The output $y = C x + D u$"}},
		Feedthrough: sys.feedthrough(),
		Meta:        transferFunctionMeta(),
	})
	return tf, nil
}

// realize checks the coefficients and sets the controllable canonical
// realization (Kailath 1980): with D(s) = s^n + a₁s^{n−1} + … + a_n and
// N(s) = b₀sⁿ + b₁s^{n−1} + … + b_n after dividing both by D's leading
// coefficient,
//
//	A = [0 1 0 … ; … ; 0 … 0 1 ; −a_n … −a₁],  B = [0 … 0 1]ᵀ,
//	C = [b_n − a_n b₀, …, b₁ − a₁ b₀],          D = b₀.
func realizeTransferFunction(vals node.Values) (*lti, error) {
	bad := func(param string, v any, reason, valid string) error {
		return &node.ParamError{Node: TransferFunctionName, Param: param, Value: v, Reason: reason, Valid: valid}
	}
	if err := checkUnits(TransferFunctionName, vals, "input_units", "output_units"); err != nil {
		return nil, err
	}
	den, num := vals.Floats("denominator"), vals.Floats("numerator")
	if len(den) < 2 {
		return nil, bad("denominator", den, "has degree 0: a constant transfer function is a gain", "2 to 17 coefficients (degree 1 to 16)")
	}
	if den[0] == 0 {
		return nil, bad("denominator", den, "has a zero leading coefficient", "a nonzero first coefficient (drop leading zeros)")
	}
	k := 0
	for k < len(num)-1 && num[k] == 0 {
		k++ // leading zeros of the numerator do not raise its degree
	}
	num = num[k:]
	n := len(den) - 1
	if len(num) > n+1 {
		return nil, bad("numerator", vals.Floats("numerator"), fmt.Sprintf("has degree %d above the denominator's %d (improper: the block would differentiate its input)", len(num)-1, n),
			fmt.Sprintf("at most %d coefficients after leading zeros", n+1))
	}
	a := make([]float64, n+1) // a[i] is the coefficient of s^{n−i}, a[0] = 1
	for i := range a {
		a[i] = den[i] / den[0]
	}
	b := make([]float64, n+1)
	for i, v := range num {
		b[n+1-len(num)+i] = v / den[0]
	}
	u0 := vals.Float("initial_input")
	if u0 != 0 && a[n] == 0 {
		return nil, bad("initial_input", u0, "is not zero, but the denominator has a root at s = 0 (an integrator has no equilibrium at a nonzero input)", "0 for this denominator")
	}
	s := &lti{}
	s.n, s.m, s.q = n, 1, 1
	s.a, s.b, s.c, s.d, s.x0 = make([]float64, n*n), make([]float64, n), make([]float64, n), []float64{b[0]}, make([]float64, n)
	for i := 0; i < n-1; i++ {
		s.a[i*n+i+1] = 1
	}
	for j := range n {
		s.a[(n-1)*n+j] = -a[n-j]
		s.c[j] = b[n-j] - a[n-j]*b[0]
	}
	s.b[n-1] = 1
	if u0 != 0 {
		s.x0[0] = u0 / a[n] // the equilibrium −A⁻¹Bu₀ of the companion form
	}
	return s, nil
}

// SetParams overrides parameters (all or nothing); the order, the
// feedthrough and the units cannot change.
func (tf *TransferFunction) SetParams(p map[string]any) error {
	vals, err := tf.resolve(p)
	if err != nil {
		return err
	}
	next, err := realizeTransferFunction(vals)
	if err != nil {
		return err
	}
	cur := tf.sys()
	if next.n != cur.n {
		return &node.ParamError{Node: TransferFunctionName, Param: "denominator", Value: vals.Floats("denominator"),
			Reason: fmt.Sprintf("has degree %d; the block was built with %d (its state was laid out for it)", next.n, cur.n),
			Valid:  fmt.Sprintf("%d coefficients with a nonzero first", cur.n+1)}
	}
	if next.feedthrough() != cur.feedthrough() {
		return &node.ParamError{Node: TransferFunctionName, Param: "numerator", Value: vals.Floats("numerator"),
			Reason: "changes whether the output reads the input at once (feedthrough), which the graph's loop check was made with",
			Valid:  fmt.Sprintf("a numerator of the same degree relative to the denominator (feedthrough %v)", cur.feedthrough())}
	}
	tf.cur.Set(next)
	tf.vals = vals
	return nil
}

// ltiHold is the discretization note of the transfer-function and
// state-space blocks.
const ltiHold = "Update is the exact solution over the step with the input held at its value at the step's start: $x^+ = \\Phi x + \\Gamma u$, " +
	"$\\Phi = e^{A\\Delta t}$, $\\Gamma = \\int_0^{\\Delta t} e^{As}\\,ds\\,B$ (the zero-order-hold equivalent), both read off the exponential of the augmented matrix " +
	"$\\begin{bmatrix} A & B \\\\ 0 & 0 \\end{bmatrix}\\Delta t$ (Van Loan 1978), computed by Padé approximation of degree 6 with scaling and squaring on the first " +
	"step of each length and kept. A step response is therefore exact at every step, to rounding. It is the scheme `exact-hold` of the conformance " +
	"checker, and the package's tests hold $\\Phi$, $\\Gamma$ to gonum's matrix exponential and the step and frequency responses to closed forms and to scipy.signal"

func transferFunctionMeta() node.Metadata {
	return node.Metadata{
		AlgorithmID: "COSIM-NODE-512",
		Version:     "1.0.0",
		Stability:   node.Stable,
		Summary:     "A proper transfer function N(s)/D(s) of order 1 to 16, realized in controllable canonical form: a sensor, a filter, a plant given in the frequency domain.",
		Equations: []string{
			`Y(s) = \frac{b_0 s^n + b_1 s^{n-1} + \dots + b_n}{s^n + a_1 s^{n-1} + \dots + a_n}\,U(s)`,
			`\dot x = A x + B u, \qquad y = C x + D u`,
		},
		EquationNotes: "The coefficients are `numerator` and `denominator` divided by the denominator's leading coefficient. The realization is the " +
			"controllable canonical form: $A$ has ones above the diagonal and $-a_n, \\dots, -a_1$ in its last row, $B = e_n$, " +
			"$C_j = b_{n-j+1} - a_{n-j+1} b_0$, $D = b_0$. The output reads the input at once (feedthrough) exactly when the transfer function " +
			"is biproper, $b_0 \\ne 0$.",
		Discretization:      "exact-hold",
		DiscretizationNotes: ltiHold + ".",
		Order:               node.Order{Temporal: 1, Note: "Exact for a piecewise-constant input (a step response is exact at every step); first order (the held input) otherwise."},
		Assumptions: []string{
			"Linear, time-invariant, single input and single output",
			"The input is held over a co-simulation step",
		},
		Limitations: []string{
			"Proper only: a numerator of higher degree than the denominator (a pure differentiator) is refused; use the filtered `derivative`",
			"Order at most 16: the companion form's conditioning grows quickly with the order; for high orders or multiple inputs and outputs use `statespace` with a balanced realization",
			"SetParams may change the coefficients but not the order or whether the transfer function is biproper (the graph was checked against them)",
			"The state starts at rest (at the equilibrium of `initial_input`); a transfer function has no other physically meaningful initial state",
		},
		StabilityConditions: []string{"The update is exact for the held input, so it is stable exactly when the transfer function is (its poles in the open left half-plane), at any step."},
		StableStep:          &node.StableStep{Unconditional: true, Notes: "Update is the exact zero-order-hold map: its eigenvalues $e^{\\lambda \\Delta t}$ are inside the unit circle for every stable pole $\\lambda$ at every step."},
		Mapping: []node.Mapping{
			{Term: `A, B, C, D`, Identifier: pkgPath + ".realizeTransferFunction", Notes: "controllable canonical form"},
			{Term: `\Phi, \Gamma`, Identifier: pkgPath + ".zohDiscretize", Notes: "augmented matrix exponential"},
			{Term: `e^{M}`, Identifier: pkgPath + ".expm", Notes: "Padé 6, scaling and squaring"},
			{Term: `x^+ = \Phi x + \Gamma u`, Identifier: pkgPath + ".lti.step"},
			{Term: `\dot x = Ax + Bu`, Identifier: pkgPath + ".lti.derivatives"},
			{Term: `y = Cx + Du`, Identifier: pkgPath + ".lti.outputs"},
		},
		References: []node.Reference{refKailath, refFranklin, refVanLoan, refGolubVanLoan, refAstromMurray, refSimulink},
		Anomalies:  []string{},
		Evidence:   []string{"COSIM-VER-502", "COSIM-VER-503"},
		Changelog:  []node.Change{{Version: "1.0.0", Date: changeDate, Change: "Initial implementation"}},
	}
}
