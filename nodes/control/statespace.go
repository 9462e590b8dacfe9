package control

import (
	"fmt"
	"math"
	"slices"

	"github.com/cosimgo/cosim/node"
)

// StateSpaceName is the registry name of the state-space block.
const StateSpaceName = "statespace"

// StateSpaceType registers the state-space block: a new value at each call.
func StateSpaceType() node.Type {
	return node.Type{Name: StateSpaceName, New: func(m map[string]any) (node.Node, error) { return asNode(newStateSpace(m)) }}
}

// MaxStates is the largest number of states of a state-space block.
const MaxStates = 32

// StateSpaceParams are the state-space block's parameters: the matrices
// row by row. The dimensions follow from the lengths: A is n × n, B
// n × m, C q × n, D q × m (or a single 0 for a zero D).
type StateSpaceParams struct {
	// A, B, C, D are the matrices, row-major. Defaults [−1], [1], [1], [0]
	// (a first-order lag).
	A, B, C, D []float64
	// Initial is x(t0): one value for every state or one per state.
	// Default [0].
	Initial []float64
	// InputUnits, OutputUnits and StateUnits. Default "1".
	InputUnits, OutputUnits, StateUnits string
}

func (p StateSpaceParams) values() node.Values {
	return node.Values{"a": orDefault(p.A, -1), "b": orDefault(p.B, 1), "c": orDefault(p.C, 1), "d": orDefault(p.D, 0),
		"initial": orDefault(p.Initial, 0), "input_units": orUnits(p.InputUnits), "output_units": orUnits(p.OutputUnits), "state_units": orUnits(p.StateUnits)}
}

var stateSpaceParams = []node.Param{
	{Name: "a", Kind: node.Vector, Shape: node.Vec(1), MaxLen: MaxStates * MaxStates, Default: []float64{-1.0}, Units: "1/s",
		Description: "State matrix $A$ ($n \\times n$, row by row; $n \\le 32$ is the square root of the length)"},
	{Name: "b", Kind: node.Vector, Shape: node.Vec(1), MaxLen: MaxStates * MaxSize, Default: []float64{1.0}, Units: "state units / (input units · s)",
		Description: "Input matrix $B$ ($n \\times m$, row by row; $m \\le 64$)"},
	{Name: "c", Kind: node.Vector, Shape: node.Vec(1), MaxLen: MaxSize * MaxStates, Default: []float64{1.0}, Units: "output units / state units",
		Description: "Output matrix $C$ ($q \\times n$, row by row; $q \\le 64$)"},
	{Name: "d", Kind: node.Vector, Shape: node.Vec(1), MaxLen: MaxSize * MaxSize, Default: []float64{0.0}, Units: "output units / input units",
		Description: "Feedthrough matrix $D$ ($q \\times m$, row by row), or a single 0 for $D = 0$; a nonzero $D$ makes the output read the input at once (feedthrough)"},
	perComponent("initial", 0, node.Finite(), "state units", "Initial state $x(t_0)$ (one value for every state or one per state)"),
	unitsParam("input_units", "Units of the input $u$"),
	unitsParam("output_units", "Units of the output $y$"),
	unitsParam("state_units", "Units of the state $x$"),
}

// StateSpace is a linear time-invariant block ẋ = Ax + Bu, y = Cx + Du
// with up to 32 states, 64 inputs and 64 outputs. A nonzero D gives
// feedthrough.
type StateSpace struct {
	ltiBlock
}

var (
	_ node.Deriver        = (*StateSpace)(nil)
	_ node.Outputter      = (*StateSpace)(nil)
	_ node.InputJacobian  = (*StateSpace)(nil)
	_ node.OutputJacobian = (*StateSpace)(nil)
	_ node.Tunable        = (*StateSpace)(nil)
)

// NewStateSpace builds a state-space block from typed parameters.
func NewStateSpace(p StateSpaceParams) (*StateSpace, error) { return newStateSpace(p.values()) }

func newStateSpace(given map[string]any) (*StateSpace, error) {
	vals, err := node.Resolve(StateSpaceName, stateSpaceParams, nil, given)
	if err != nil {
		return nil, err
	}
	ss := &StateSpace{ltiBlock{block: block{typ: StateSpaceName, params: stateSpaceParams, fixed: []string{"input_units", "output_units", "state_units"}}}}
	sys, err := realizeStateSpace(vals)
	if err != nil {
		return nil, err
	}
	ss.cur.Set(sys)
	ss.vals, ss.block.n = vals, sys.m
	ss.spec = node.NewSpec(node.Spec{
		Type:        StateSpaceName,
		Package:     pkgPath,
		Params:      stateSpaceParams,
		State:       []node.Field{{Name: "state", Shape: shapeOf(sys.n), Units: vals.String("state_units"), Description: "The state $x$"}},
		Inputs:      []node.Input{{Name: "in", Shape: shapeOf(sys.m), Units: vals.String("input_units"), Combine: node.Additive, Description: "The input $u$ (edges into it are summed)"}},
		Outputs:     []node.Field{{Name: "out", Shape: shapeOf(sys.q), Units: vals.String("output_units"), Description: "The output $y = C x + D u$"}},
		Feedthrough: sys.feedthrough(),
		Meta:        stateSpaceMeta(),
	})
	return ss, nil
}

// realize checks the matrices' shapes and sets the system.
func realizeStateSpace(vals node.Values) (*lti, error) {
	bad := func(param string, v []float64, reason, valid string) error {
		return &node.ParamError{Node: StateSpaceName, Param: param, Value: v, Reason: reason, Valid: valid}
	}
	if err := checkUnits(StateSpaceName, vals, "input_units", "output_units", "state_units"); err != nil {
		return nil, err
	}
	a, b, c, d := vals.Floats("a"), vals.Floats("b"), vals.Floats("c"), vals.Floats("d")
	n := int(math.Round(math.Sqrt(float64(len(a)))))
	if n*n != len(a) {
		return nil, bad("a", a, fmt.Sprintf("has %d values, not a square number", len(a)), "n·n values for n states, n ≤ 32")
	}
	if len(b)%n != 0 || len(b)/n > MaxSize {
		return nil, bad("b", b, fmt.Sprintf("has %d values for %d states", len(b), n), fmt.Sprintf("n·m values: m ≤ %d inputs per state row", MaxSize))
	}
	if len(c)%n != 0 || len(c)/n > MaxSize {
		return nil, bad("c", c, fmt.Sprintf("has %d values for %d states", len(c), n), fmt.Sprintf("q·n values: q ≤ %d outputs of %d values", MaxSize, n))
	}
	m, q := len(b)/n, len(c)/n
	switch {
	case len(d) == q*m:
	case len(d) == 1 && d[0] == 0:
		d = make([]float64, q*m)
	default:
		return nil, bad("d", d, fmt.Sprintf("has %d values for %d outputs and %d inputs", len(d), q, m), fmt.Sprintf("%d values (q·m), or a single 0", q*m))
	}
	x0 := vals.Floats("initial")
	if len(x0) != 1 && len(x0) != n {
		return nil, bad("initial", x0, fmt.Sprintf("has %d values for %d states", len(x0), n), fmt.Sprintf("1 value (for every state) or %d", n))
	}
	s := &lti{}
	s.n, s.m, s.q = n, m, q
	s.a, s.b, s.c, s.d = slices.Clone(a), slices.Clone(b), slices.Clone(c), slices.Clone(d)
	s.x0 = make([]float64, n)
	for i := range n {
		s.x0[i] = comp(x0, i)
	}
	return s, nil
}

// SetParams overrides parameters (all or nothing); the dimensions, the
// feedthrough and the units cannot change.
func (ss *StateSpace) SetParams(p map[string]any) error {
	vals, err := ss.resolve(p)
	if err != nil {
		return err
	}
	next, err := realizeStateSpace(vals)
	if err != nil {
		return err
	}
	cur := ss.sys()
	if next.n != cur.n || next.m != cur.m || next.q != cur.q {
		return &node.ParamError{Node: StateSpaceName, Param: "a", Value: vals.Floats("a"),
			Reason: fmt.Sprintf("with b, c and d gives %d states, %d inputs and %d outputs; the block was built with %d, %d and %d", next.n, next.m, next.q, cur.n, cur.m, cur.q),
			Valid:  "matrices of the dimensions the block was built with"}
	}
	if next.feedthrough() != cur.feedthrough() {
		return &node.ParamError{Node: StateSpaceName, Param: "d", Value: vals.Floats("d"),
			Reason: "changes whether the output reads the input at once (feedthrough), which the graph's loop check was made with",
			Valid:  fmt.Sprintf("a D that is nonzero exactly when the block's was (feedthrough %v)", cur.feedthrough())}
	}
	ss.cur.Set(next)
	ss.vals = vals
	return nil
}

func stateSpaceMeta() node.Metadata {
	return node.Metadata{
		AlgorithmID: "COSIM-NODE-513",
		Version:     "1.0.0",
		Stability:   node.Stable,
		Summary:     "A linear state-space system ẋ = Ax + Bu, y = Cx + Du with up to 32 states and 64 inputs and outputs; a nonzero D gives feedthrough.",
		Equations:   []string{`\dot x = A x + B u, \qquad y = C x + D u`},
		EquationNotes: "$u$ is the input `in` ($m$ components), $y$ the output `out` ($q$), $x$ the state ($n$); $A$, $B$, $C$, $D$ are `a`, `b`, `c`, `d` given " +
			"row by row, and the dimensions follow from their lengths. The output reads the input at the same instant (feedthrough) exactly when $D \\ne 0$.",
		Discretization:      "exact-hold",
		DiscretizationNotes: ltiHold + ".",
		Order:               node.Order{Temporal: 1, Note: "Exact for a piecewise-constant input (a step response is exact at every step); first order (the held input) otherwise."},
		Assumptions:         []string{"Linear and time-invariant", "The input is held over a co-simulation step"},
		Limitations: []string{
			"At most 32 states: the augmented matrix exponential is dense, $O((n+m)^3)$ on the first step of each length",
			"SetParams may change the entries but not the dimensions or whether $D$ is zero (the graph was checked against them)",
			"A changed step length recomputes $\\Phi$ and $\\Gamma$ (and allocates) once; a run that alternates step lengths recomputes every time",
		},
		StabilityConditions: []string{"The update is exact for the held input, so it is stable exactly when $A$ is (eigenvalues in the open left half-plane), at any step."},
		StableStep:          &node.StableStep{Unconditional: true, Notes: "Update is the exact zero-order-hold map: its eigenvalues $e^{\\lambda \\Delta t}$ are inside the unit circle for every stable eigenvalue $\\lambda$ of $A$ at every step."},
		Mapping: []node.Mapping{
			{Term: `\Phi, \Gamma`, Identifier: pkgPath + ".zohDiscretize", Notes: "augmented matrix exponential"},
			{Term: `e^{M}`, Identifier: pkgPath + ".expm", Notes: "Padé 6, scaling and squaring"},
			{Term: `x^+ = \Phi x + \Gamma u`, Identifier: pkgPath + ".lti.step"},
			{Term: `\dot x = Ax + Bu`, Identifier: pkgPath + ".lti.derivatives"},
			{Term: `y = Cx + Du`, Identifier: pkgPath + ".lti.outputs"},
			{Term: `\partial f/\partial x = A,\ \partial f/\partial u = B,\ \partial y/\partial u = D`, Identifier: pkgPath + ".StateSpace.DerivativesJacobian", Notes: "exact"},
		},
		References: []node.Reference{refFranklin, refVanLoan, refGolubVanLoan, refAstromMurray, refSimulink, refDrake},
		Anomalies:  []string{},
		Evidence:   []string{"COSIM-VER-502", "COSIM-VER-503"},
		Changelog:  []node.Change{{Version: "1.0.0", Date: changeDate, Change: "Initial implementation"}},
	}
}
