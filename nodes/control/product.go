package control

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cosimgo/cosim/node"
)

// ProductName is the registry name of the product block.
const ProductName = "product"

// ProductType registers the product block: a new value at each call.
func ProductType() node.Type {
	return node.Type{Name: ProductName, New: func(m map[string]any) (node.Node, error) { return asNode(newProduct(m)) }}
}

// ErrDivideByZero is the cause of a product block's error when a divisor
// input is zero.
var ErrDivideByZero = errors.New("division by zero")

// ProductParams are the product block's parameters.
type ProductParams struct {
	// Ops has one '*' or '/' per input: "*/" is in1 / in2. Default "**".
	Ops string
	// Size is the number of components of every input and the output
	// (the product is elementwise). Default 1.
	Size int
	// InputUnits are the units of the inputs: one for all, or one per
	// input separated by commas ("N,m/s"). Default "1".
	InputUnits string
	// OutputUnits are the units of the output. Default "1".
	OutputUnits string
}

func (p ProductParams) values() node.Values {
	ops := p.Ops
	if ops == "" {
		ops = "**"
	}
	return node.Values{"ops": ops, "size": orSize(p.Size), "input_units": orUnits(p.InputUnits), "output_units": orUnits(p.OutputUnits)}
}

var productParams = []node.Param{
	{Name: "ops", Kind: node.Text, Default: "**",
		Description: "One `*` (multiply) or `/` (divide) per input, in order: `\"*/\"` is $y = u_1 / u_2$; 1 to 16 inputs. Only the operators, not their number, can change after construction"},
	sizeParam,
	{Name: "input_units", Kind: node.Text, Default: "1",
		Description: "Units of the inputs: one for all, or one per input separated by commas (`\"N,m/s\"`); fixed after construction"},
	unitsParam("output_units", "Units of the output (declared, not derived from the inputs')"),
}

// Product is a stateless elementwise product and quotient of its inputs,
// y = Π u_j^{±1}. A zero divisor is an error, never an infinity. It has
// feedthrough.
type Product struct {
	node.Stateless
	block
}

var (
	_ node.Outputter      = (*Product)(nil)
	_ node.OutputJacobian = (*Product)(nil)
	_ node.Tunable        = (*Product)(nil)
)

// NewProduct builds a product block from typed parameters.
func NewProduct(p ProductParams) (*Product, error) { return newProduct(p.values()) }

func newProduct(given map[string]any) (*Product, error) {
	vals, err := node.Resolve(ProductName, productParams, nil, given)
	if err != nil {
		return nil, err
	}
	units, err := checkProduct(vals)
	if err != nil {
		return nil, err
	}
	pr := &Product{block: block{typ: ProductName, params: productParams, fixed: []string{"size", "input_units", "output_units"}, n: vals.Int("size")}}
	pr.set(vals)
	ins := make([]node.Input, len(pr.pars()))
	for j, op := range vals.String("ops") {
		verb := "multiplies"
		if op == '/' {
			verb = "divides (a zero value is an error)"
		}
		ins[j] = node.Input{Name: portName(j), Shape: shapeOf(pr.n), Units: units[j], Combine: node.Additive,
			Description: fmt.Sprintf("Input $u_{%d}$: %s the product (edges into it are summed first)", j+1, verb)}
	}
	pr.spec = node.NewSpec(node.Spec{
		Type:    ProductName,
		Package: pkgPath,
		Params:  productParams,
		Inputs:  ins,
		Outputs: []node.Field{{Name: "out", Shape: shapeOf(pr.n), Units: vals.String("output_units"),
			Description: "The elementwise product $y = \\prod_j u_j^{\\pm 1}$"}},
		Feedthrough: true,
		Meta:        productMeta(),
	})
	return pr, nil
}

// checkProduct validates the operators and units and returns the units
// of every input.
func checkProduct(vals node.Values) ([]string, error) {
	ops := vals.String("ops")
	if err := checkSigns(ProductName, "ops", ops, "*/"); err != nil {
		return nil, err
	}
	if err := checkUnits(ProductName, vals, "input_units", "output_units"); err != nil {
		return nil, err
	}
	us := strings.Split(vals.String("input_units"), ",")
	if len(us) == 1 {
		for len(us) < len(ops) {
			us = append(us, us[0])
		}
	}
	if len(us) != len(ops) {
		return nil, &node.ParamError{Node: ProductName, Param: "input_units", Value: vals.String("input_units"),
			Reason: fmt.Sprintf("names %d units for %d inputs", len(us), len(ops)), Valid: fmt.Sprintf("one unit, or %d separated by commas", len(ops))}
	}
	for j, u := range us {
		if us[j] = strings.TrimSpace(u); us[j] == "" {
			return nil, &node.ParamError{Node: ProductName, Param: "input_units", Value: vals.String("input_units"),
				Reason: fmt.Sprintf("has no unit for input %d", j+1), Valid: "a units string per input, \"1\" when dimensionless"}
		}
	}
	return us, nil
}

func (pr *Product) set(vals node.Values) {
	pr.vals = vals
	p := []float64(nil)
	for _, c := range vals.String("ops") {
		e := 1.0
		if c == '/' {
			e = -1
		}
		p = append(p, e)
	}
	pr.row.Set(p)
}

// productRow writes y_i = Π_j u_j,i^{p_j} into y, in input order, and
// returns the index j of the first zero divisor, or −1: the arithmetic of
// Outputs and of a batch kernel.
func productRow(p []float64, u *[MaxPorts][]float64, y []float64) int {
	bad := -1
	for i := range y {
		v := 1.0
		for j, e := range p {
			uj := u[j][i]
			if e > 0 {
				v *= uj
				continue
			}
			if uj == 0 && bad < 0 {
				bad = j
			}
			v /= uj
		}
		y[i] = v
	}
	return bad
}

// Outputs writes the product into dst. A zero divisor is a
// *node.FieldError for "out" wrapping ErrDivideByZero.
func (pr *Product) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	p := pr.pars()
	var u [MaxPorts][]float64
	ports(&u, in.Values, len(p), pr.n)
	if j := productRow(p, &u, dst[:pr.n]); j >= 0 {
		return &node.FieldError{Field: "out", Err: fmt.Errorf("%s: input %s is 0 at t = %s and divides the product: %w",
			ProductName, portName(j), node.FormatValue(t), ErrDivideByZero)}
	}
	return nil
}

// OutputsJacobian writes ∂y_i/∂u_j,i = p_j y_i / u_j,i into dst,
// computed as the product of the other factors times p_j u_j^{p_j − 1}
// so that a zero multiplier does not divide by zero.
func (pr *Product) OutputsJacobian(t float64, x []float64, in node.Inputs, dst []float64) error {
	n := pr.n
	nu := len(pr.pars()) * n
	d := dst[:n*nu]
	clear(d)
	u := in.Values
	for i := range n {
		for j, e := range pr.pars() {
			v := 1.0
			for l, el := range pr.pars() {
				ul := u[l*n+i]
				switch {
				case l == j && e > 0:
				case l == j:
					v *= -1 / (ul * ul)
				case el > 0:
					v *= ul
				default:
					v /= ul
				}
			}
			d[i*nu+j*n+i] = v
		}
	}
	return nil
}

// SetParams overrides parameters (all or nothing); the number of inputs,
// the size and the units cannot change.
func (pr *Product) SetParams(p map[string]any) error {
	vals, err := pr.resolve(p)
	if err != nil {
		return err
	}
	if _, err := checkProduct(vals); err != nil {
		return err
	}
	if a, b := vals.String("ops"), pr.vals.String("ops"); len(a) != len(b) {
		return &node.ParamError{Node: ProductName, Param: "ops", Value: a,
			Reason: fmt.Sprintf("has %d operators; the block was built with %d inputs (edges were checked against them)", len(a), len(b)),
			Valid:  fmt.Sprintf("%d operators", len(b))}
	}
	pr.set(vals)
	return nil
}

func productMeta() node.Metadata {
	return node.Metadata{
		AlgorithmID: "COSIM-NODE-503",
		Version:     "1.0.0",
		Stability:   node.Stable,
		Summary:     "An elementwise product and quotient of 1 to 16 inputs, y = u₁ · u₂ / u₃ …; a zero divisor stops the run with an error naming the input.",
		Equations:   []string{`y_i = \prod_{j=1}^{K} u_{j,i}^{\,e_j}, \qquad e_j \in \{+1, -1\}`},
		EquationNotes: "$u_{j,i}$ is component $i$ of input `in`$j$; $e_j = +1$ for `*` and $-1$ for `/` in `ops`. " +
			"The factors are applied in input order.",
		Order:       node.Order{Note: "Exact up to the rounding of the products and quotients, in input order."},
		Assumptions: []string{"Stateless; the output reads the inputs at the same instant (feedthrough)"},
		Limitations: []string{
			"A divisor input that is exactly zero is an error (ErrDivideByZero); a divisor close to zero gives a large but finite output, which the graph checks for finiteness",
			"Units are declared, not derived: `output_units` must be what the inputs' units combine to",
			"At most 16 inputs",
		},
		Mapping: []node.Mapping{
			{Term: `y_i = \prod_j u_{j,i}^{e_j}`, Identifier: pkgPath + ".productRow", Notes: "shared by Outputs and a batch kernel"},
			{Term: `\partial y_i/\partial u_{j,i}`, Identifier: pkgPath + ".Product.OutputsJacobian", Notes: "exact, without dividing by a zero multiplier"},
		},
		References: []node.Reference{refSimulink},
		Anomalies:  []string{},
		Evidence:   []string{"COSIM-VER-501"},
		Changelog:  []node.Change{{Version: "1.0.0", Date: changeDate, Change: "Initial implementation"}},
	}
}
