package control

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cosimgo/cosim/node"
)

// SumName is the registry name of the sum block.
const SumName = "sum"

// SumType registers the sum block: a new value at each call.
func SumType() node.Type {
	return node.Type{Name: SumName, New: func(m map[string]any) (node.Node, error) { return asNode(newSum(m)) }}
}

// MaxPorts is the largest number of inputs of a sum or product block.
const MaxPorts = 16

// SumParams are the sum block's parameters.
type SumParams struct {
	// Signs has one '+' or '-' per input, e.g. "+-" for in1 − in2.
	// Default "++".
	Signs string
	// Size is the number of components of every input and the output.
	// Default 1.
	Size int
	// Units of the inputs and the output. Default "1".
	Units string
}

func (p SumParams) values() node.Values {
	s := p.Signs
	if s == "" {
		s = "++"
	}
	return node.Values{"signs": s, "size": orSize(p.Size), "units": orUnits(p.Units)}
}

var sumParams = []node.Param{
	{Name: "signs", Kind: node.Text, Default: "++",
		Description: "One `+` or `-` per input, in order: `\"+-\"` is $y = u_1 - u_2$; 1 to 16 inputs. Edges were checked against the number of inputs, so only the signs can change after construction"},
	sizeParam,
	unitsParam("units", "Units of every input and of the output"),
}

// Sum is a stateless block y = Σ s_j u_j with signs s_j = ±1, over any
// number of inputs in1 … inK of one size. It has feedthrough.
type Sum struct {
	node.Stateless
	block
}

var (
	_ node.Outputter      = (*Sum)(nil)
	_ node.OutputJacobian = (*Sum)(nil)
	_ node.Tunable        = (*Sum)(nil)
)

// NewSum builds a sum block from typed parameters.
func NewSum(p SumParams) (*Sum, error) { return newSum(p.values()) }

func newSum(given map[string]any) (*Sum, error) {
	vals, err := node.Resolve(SumName, sumParams, nil, given)
	if err != nil {
		return nil, err
	}
	if err := checkSum(vals); err != nil {
		return nil, err
	}
	s := &Sum{block: block{typ: SumName, params: sumParams, fixed: []string{"size", "units"}, n: vals.Int("size")}}
	s.set(vals)
	units := vals.String("units")
	ins := make([]node.Input, len(s.pars()))
	for j, sg := range vals.String("signs") {
		ins[j] = node.Input{Name: portName(j), Shape: shapeOf(s.n), Units: units, Combine: node.Additive,
			Description: fmt.Sprintf("Input $u_{%d}$, taken with sign %c (edges into it are summed first)", j+1, sg)}
	}
	s.spec = node.NewSpec(node.Spec{
		Type:        SumName,
		Package:     pkgPath,
		Params:      sumParams,
		Inputs:      ins,
		Outputs:     []node.Field{{Name: "out", Shape: shapeOf(s.n), Units: units, Description: "The signed sum $y = \\sum_j s_j u_j$"}},
		Feedthrough: true,
		Meta:        sumMeta(),
	})
	return s, nil
}

// portName is the name of input j (from 0): "in1", "in2", …
func portName(j int) string { return "in" + strconv.Itoa(j+1) }

// checkSigns refuses a sign string of other characters than '+' and '-'
// ('*' and '/' for a product), or of a length outside 1 … MaxPorts.
func checkSigns(typ, name, s, ops string) error {
	if len(s) < 1 || len(s) > MaxPorts || strings.Trim(s, ops) != "" {
		return &node.ParamError{Node: typ, Param: name, Value: s, Reason: "is not a list of operators",
			Valid: fmt.Sprintf("1 to %d characters, each one of %q", MaxPorts, ops)}
	}
	return nil
}

func checkSum(vals node.Values) error {
	if err := checkSigns(SumName, "signs", vals.String("signs"), "+-"); err != nil {
		return err
	}
	return checkUnits(SumName, vals, "units")
}

func (s *Sum) set(vals node.Values) {
	s.vals = vals
	p := []float64(nil)
	for _, c := range vals.String("signs") {
		sg := 1.0
		if c == '-' {
			sg = -1
		}
		p = append(p, sg)
	}
	s.row.Set(p)
}

// sumRow writes y = Σ_j p_j u_j into y, where u[j] is input j (len(p)
// of them): the arithmetic of Outputs and of the batch kernel. The terms
// are added in input order.
func sumRow(p []float64, u *[MaxPorts][]float64, y []float64) {
	for i := range y {
		s := 0.0
		for j, sg := range p {
			s += sg * u[j][i]
		}
		y[i] = s
	}
}

// ports splits packed inputs (k inputs of n components, as
// node.Inputs.Values holds them) into u.
func ports(u *[MaxPorts][]float64, packed []float64, k, n int) {
	for j := range k {
		u[j] = packed[j*n : (j+1)*n]
	}
}

// Outputs writes the signed sum into dst.
func (s *Sum) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	p := s.pars()
	var u [MaxPorts][]float64
	ports(&u, in.Values, len(p), s.n)
	sumRow(p, &u, dst[:s.n])
	return nil
}

// OutputsJacobian writes ∂y/∂u_j = s_j I into dst.
func (s *Sum) OutputsJacobian(t float64, x []float64, in node.Inputs, dst []float64) error {
	nu := len(s.pars()) * s.n
	d := dst[:s.n*nu]
	clear(d)
	for j, sg := range s.pars() {
		for i := range s.n {
			d[i*nu+j*s.n+i] = sg
		}
	}
	return nil
}

// SetParams overrides parameters (all or nothing); the number of inputs,
// the size and the units cannot change.
func (s *Sum) SetParams(p map[string]any) error {
	vals, err := s.resolve(p)
	if err != nil {
		return err
	}
	if err := checkSum(vals); err != nil {
		return err
	}
	if a, b := vals.String("signs"), s.vals.String("signs"); len(a) != len(b) {
		return &node.ParamError{Node: SumName, Param: "signs", Value: a,
			Reason: fmt.Sprintf("has %d signs; the block was built with %d inputs (edges were checked against them)", len(a), len(b)),
			Valid:  fmt.Sprintf("%d signs", len(b))}
	}
	s.set(vals)
	return nil
}

func sumMeta() node.Metadata {
	return node.Metadata{
		AlgorithmID: "COSIM-NODE-502",
		Version:     "1.0.0",
		Stability:   node.Stable,
		Summary:     "A sum with signs: y = ±u₁ ± u₂ ± …, of 1 to 16 inputs of one size, the comparator of every feedback loop (\"+-\": reference minus measurement).",
		Equations:   []string{`y = \sum_{j=1}^{K} s_j\,u_j, \qquad s_j \in \{+1, -1\}`},
		EquationNotes: "$u_j$ is input `in`$j$; $s_j$ is the $j$-th character of `signs`. Each input is additive: several edges into one input are summed before " +
			"its sign is applied.",
		Order:       node.Order{Note: "Exact up to the rounding of the sum, added in input order."},
		Assumptions: []string{"Stateless and linear; the output reads the inputs at the same instant (feedthrough)"},
		Limitations: []string{
			"All inputs and the output share one size and one unit",
			"Every input must be connected (none has a default), so a mis-wired comparator is a build error, not a silent zero",
			"At most 16 inputs",
		},
		Mapping: []node.Mapping{
			{Term: `y = \sum_j s_j u_j`, Identifier: pkgPath + ".sumRow", Notes: "shared by Outputs and a batch kernel"},
			{Term: `\partial y/\partial u_j = s_j I`, Identifier: pkgPath + ".Sum.OutputsJacobian", Notes: "exact"},
		},
		References: []node.Reference{refSimulink, refDrake},
		Anomalies:  []string{},
		Evidence:   []string{"COSIM-VER-501"},
		Changelog:  []node.Change{{Version: "1.0.0", Date: changeDate, Change: "Initial implementation"}},
	}
}
