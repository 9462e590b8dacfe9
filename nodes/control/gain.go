package control

import (
	"fmt"

	"github.com/cosimgo/cosim/node"
)

// GainName is the registry name of the gain block.
const GainName = "gain"

// GainType registers the gain block: a new value at each call.
func GainType() node.Type {
	return node.Type{Name: GainName, New: func(m map[string]any) (node.Node, error) { return asNode(newGain(m)) }}
}

// GainParams are the gain block's parameters. The zero value is a unit
// scalar gain.
type GainParams struct {
	// Size is the number of input components n. Default 1.
	Size int
	// Outputs is 0 for an elementwise gain (y_i = k_i u_i, Gain has one
	// value or n), or the number m of outputs of a matrix gain y = K u
	// (Gain has m·n values, row-major). Default 0.
	Outputs int
	// Gain is k (elementwise) or K (matrix, row-major). Default [1].
	Gain []float64
	// InputUnits and OutputUnits are the units of u and y. Default "1".
	InputUnits, OutputUnits string
}

func (p GainParams) values() node.Values {
	return node.Values{"size": orSize(p.Size), "outputs": p.Outputs, "gain": orDefault(p.Gain, 1),
		"input_units": orUnits(p.InputUnits), "output_units": orUnits(p.OutputUnits)}
}

var gainParams = []node.Param{
	sizeParam,
	{Name: "outputs", Kind: node.Integer, Default: 0, Range: node.Between(0, MaxSize), Units: "1",
		Description: "0 for an elementwise gain $y_i = k_i u_i$; otherwise the number $m$ of outputs of the matrix gain $y = K u$ ($K$ is $m \\times n$)"},
	{Name: "gain", Kind: node.Vector, Shape: node.Vec(1), MaxLen: MaxSize * MaxSize, Default: []float64{1}, Units: "output units / input units",
		Description: "The gain: one value for every component or one per component (elementwise), or the $m \\cdot n$ entries of $K$ row by row (matrix)"},
	unitsParam("input_units", "Units of the input $u$"),
	unitsParam("output_units", "Units of the output $y$"),
}

// Gain is a stateless block y = K u: elementwise (a scalar or one gain
// per component) or a matrix gain. It has feedthrough.
type Gain struct {
	node.Stateless
	block
	m      int // outputs: n when elementwise
	matrix bool
}

var (
	_ node.Outputter      = (*Gain)(nil)
	_ node.OutputJacobian = (*Gain)(nil)
	_ node.Tunable        = (*Gain)(nil)
)

// NewGain builds a gain block from typed parameters.
func NewGain(p GainParams) (*Gain, error) { return newGain(p.values()) }

func newGain(given map[string]any) (*Gain, error) {
	vals, err := node.Resolve(GainName, gainParams, nil, given)
	if err != nil {
		return nil, err
	}
	if err := checkGain(vals); err != nil {
		return nil, err
	}
	g := &Gain{block: block{typ: GainName, params: gainParams, fixed: []string{"size", "outputs", "input_units", "output_units"}, n: vals.Int("size")}}
	g.m, g.matrix = g.n, vals.Int("outputs") > 0
	if g.matrix {
		g.m = vals.Int("outputs")
	}
	g.set(vals)
	g.spec = node.NewSpec(node.Spec{
		Type:    GainName,
		Package: pkgPath,
		Params:  gainParams,
		Inputs: []node.Input{{Name: "in", Shape: shapeOf(g.n), Units: vals.String("input_units"), Combine: node.Additive,
			Description: "The input $u$ (edges into it are summed)"}},
		Outputs:     []node.Field{{Name: "out", Shape: shapeOf(g.m), Units: vals.String("output_units"), Description: "The output $y = K u$"}},
		Feedthrough: true,
		Meta:        gainMeta(),
	})
	return g, nil
}

func checkGain(vals node.Values) error {
	if err := checkUnits(GainName, vals, "input_units", "output_units"); err != nil {
		return err
	}
	n, m, k := vals.Int("size"), vals.Int("outputs"), vals.Floats("gain")
	if m == 0 {
		return checkPerComponent(GainName, vals, n, "gain")
	}
	if len(k) != m*n {
		return &node.ParamError{Node: GainName, Param: "gain", Value: k,
			Reason: fmt.Sprintf("has %d values for a %d × %d matrix", len(k), m, n), Valid: fmt.Sprintf("%d values, row by row", m*n)}
	}
	return nil
}

func (g *Gain) set(vals node.Values) {
	g.vals = vals
	k := vals.Floats("gain")
	if g.matrix {
		g.row.Set(append([]float64(nil), k...))
		return
	}
	p := []float64(nil)
	for i := range g.n {
		p = append(p, comp(k, i))
	}
	g.row.Set(p)
}

// gainRow writes y = K u (matrix, K m × len(u) row-major in p) or
// y_i = p_i u_i (elementwise) into y: the arithmetic of Outputs and of a
// batch kernel.
func gainRow(p []float64, matrix bool, u, y []float64) {
	if !matrix {
		for i := range y {
			y[i] = p[i] * u[i]
		}
		return
	}
	n := len(u)
	for i := range y {
		s := 0.0
		for j, uj := range u {
			s += p[i*n+j] * uj
		}
		y[i] = s
	}
}

// Outputs writes y = K u into dst.
func (g *Gain) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	gainRow(g.pars(), g.matrix, in.Values[:g.n], dst[:g.m])
	return nil
}

// OutputsJacobian writes ∂y/∂u = K (diag(k) when elementwise) into dst.
func (g *Gain) OutputsJacobian(t float64, x []float64, in node.Inputs, dst []float64) error {
	d := dst[:g.m*g.n]
	if g.matrix {
		copy(d, g.pars())
		return nil
	}
	clear(d)
	for i := range g.n {
		d[i*g.n+i] = g.pars()[i]
	}
	return nil
}

// SetParams overrides parameters (all or nothing); the size, the number
// of outputs and the units cannot change.
func (g *Gain) SetParams(p map[string]any) error {
	vals, err := g.resolve(p)
	if err != nil {
		return err
	}
	if err := checkGain(vals); err != nil {
		return err
	}
	g.set(vals)
	return nil
}

func gainMeta() node.Metadata {
	return node.Metadata{
		AlgorithmID: "COSIM-NODE-501",
		Version:     "1.0.0",
		Stability:   node.Stable,
		Summary:     "A gain: y = K u, elementwise (one gain for every component or one per component) or a matrix gain of any shape up to 64 × 64.",
		Equations:   []string{`y_i = k_i\,u_i \quad\text{(elementwise)}, \qquad y = K\,u \quad\text{(matrix)}`},
		EquationNotes: "$u \\in \\mathbb{R}^n$ is the input `in`, $y$ the output `out`; $k$ has one value (for every component) or $n$, " +
			"$K$ is $m \\times n$ given row by row when `outputs` $= m \\ge 1$.",
		Order:       node.Order{Note: "Exact: an algebraic map evaluated at the time it is asked for."},
		Assumptions: []string{"Stateless and linear; the output reads the input at the same instant (feedthrough)"},
		Limitations: []string{
			"At most 64 inputs and 64 outputs",
			"Units are declared, not derived: `output_units` must be what $K$ times `input_units` gives",
		},
		Mapping: []node.Mapping{
			{Term: `y = K u`, Identifier: pkgPath + ".gainRow", Notes: "shared by Outputs and a batch kernel"},
			{Term: `\partial y/\partial u = K`, Identifier: pkgPath + ".Gain.OutputsJacobian", Notes: "exact"},
		},
		References: []node.Reference{refSimulink, refDrake},
		Anomalies:  []string{},
		Evidence:   []string{"COSIM-VER-501"},
		Changelog:  []node.Change{{Version: "1.0.0", Date: changeDate, Change: "Initial implementation"}},
	}
}
