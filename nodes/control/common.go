package control

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/cosimgo/cosim/node"
)

const pkgPath = "github.com/cosimgo/cosim/nodes/control"

// changeDate is the date of the blocks' first version, for changelogs.
const changeDate = "2026-12-04"

// MaxSize is the largest signal a block of this package carries: an
// elementwise block has 1 to MaxSize components, a matrix gain and a
// state-space block at most MaxSize inputs, outputs and states.
const MaxSize = 64

// sizeParam is the "size" parameter of every elementwise block: the
// number of components of its input and output.
var sizeParam = node.Param{Name: "size", Kind: node.Integer, Default: 1, Range: node.Between(1, MaxSize), Units: "1",
	Description: "Number of components of the input and output signals (a scalar for 1); the block acts on each component on its own"}

// unitsParam returns a units parameter with default "1".
func unitsParam(name, desc string) node.Param {
	return node.Param{Name: name, Kind: node.Text, Default: "1",
		Description: desc + "; \"1\" when dimensionless. Edges are checked against it, so it cannot change after construction"}
}

// perComponent returns a per-component vector parameter: one value for
// every component, or one value per component.
func perComponent(name string, def float64, r node.Range, units, desc string) node.Param {
	return node.Param{Name: name, Kind: node.Vector, Shape: node.Vec(1), MaxLen: MaxSize, Default: []float64{def}, Range: r, Units: units,
		Description: desc + "; one value for every component, or one per component"}
}

// comp is component i of a per-component parameter.
func comp(v []float64, i int) float64 {
	if len(v) == 1 {
		return v[0]
	}
	return v[i]
}

// shapeOf is the shape of a signal of n components: a scalar for one.
func shapeOf(n int) node.Shape {
	if n == 1 {
		return node.Scalar
	}
	return node.Vec(n)
}

// checkPerComponent refuses a per-component parameter whose length is
// neither 1 nor n.
func checkPerComponent(typ string, vals node.Values, n int, names ...string) error {
	for _, name := range names {
		if l := len(vals.Floats(name)); l != 1 && l != n {
			return &node.ParamError{Node: typ, Param: name, Value: vals.Floats(name),
				Reason: fmt.Sprintf("has %d values for a signal of size %d", l, n),
				Valid:  fmt.Sprintf("1 value (for every component) or %d", n)}
		}
	}
	return nil
}

// checkUnits refuses empty units strings.
func checkUnits(typ string, vals node.Values, names ...string) error {
	for _, name := range names {
		if strings.TrimSpace(vals.String(name)) == "" {
			return &node.ParamError{Node: typ, Param: name, Value: vals.String(name), Reason: "is empty",
				Valid: "a units string such as \"N\", or \"1\" when dimensionless"}
		}
	}
	return nil
}

// checkOrdered refuses lower > upper in any component.
func checkOrdered(typ string, vals node.Values, n int, lower, upper string) error {
	lo, hi := vals.Floats(lower), vals.Floats(upper)
	for i := range n {
		if comp(lo, i) > comp(hi, i) {
			return &node.ParamError{Node: typ, Param: lower, Value: lo,
				Reason: fmt.Sprintf("component %d (%s) is above %s (%s)", i, node.FormatValue(comp(lo, i)), upper, node.FormatValue(comp(hi, i))),
				Valid:  fmt.Sprintf("values at or below %s", upper)}
		}
	}
	return nil
}

// fixedParam refuses a new value of a parameter that shapes the spec
// (a size, units, a structure): edges were checked against it.
func fixedParam(typ, name string, old, now node.Values) error {
	a, b := old[name], now[name]
	same := false
	switch x := a.(type) {
	case []float64:
		same = slices.Equal(x, b.([]float64))
	default:
		same = a == b
	}
	if same {
		return nil
	}
	return &node.ParamError{Node: typ, Param: name, Value: b,
		Reason: "cannot change after construction (the node's inputs, outputs or events were built from it)", Valid: node.FormatValue(a)}
}

// ratioUnits writes the units of a ratio num/den: num when den is
// dimensionless, "num/den" otherwise, parenthesized where a compound den
// needs it.
func ratioUnits(num, den string) string {
	den = strings.TrimSpace(den)
	if den == "1" || den == "" {
		return num
	}
	if strings.ContainsAny(den, " /·*") {
		den = "(" + den + ")"
	}
	return num + "/" + den
}

// cloneValues copies v, with fresh slices.
func cloneValues(v node.Values) node.Values {
	out := maps.Clone(v)
	for k, x := range out {
		if s, ok := x.([]float64); ok {
			out[k] = slices.Clone(s)
		}
	}
	return out
}

// orDefault returns v, or the one-value default when v is nil.
func orDefault(v []float64, def float64) []float64 {
	if v == nil {
		return []float64{def}
	}
	return v
}

// orUnits returns u, or "1" when u is empty.
func orUnits(u string) string {
	if u == "" {
		return "1"
	}
	return u
}

// orSize returns n, or 1 when n is 0.
func orSize(n int) int {
	if n == 0 {
		return 1
	}
	return n
}

// block is what every block of the package shares: its type name,
// parameter specs, validated values, spec and signal size. Each block's
// numbers live in a flat row of float64 beside it (the form its Outputs,
// Update and Derivatives read, and a batch kernel would hold per row).
type block struct {
	typ    string
	params []node.Param
	// fixed names the parameters that shape the spec (sizes, units):
	// SetParams refuses to change them.
	fixed []string
	vals  node.Values
	spec  *node.Spec
	n     int
	// row is the block's parameter row (its layout is the block type's):
	// what its methods read, through pars, and what its batch kernel
	// copies (node.NewRows). set publishes a new slice at every change and
	// never writes a published one, so that every batch sees SetParams.
	row node.Published[[]float64]
}

// pars returns the current parameter row; read it, never write it.
func (b *block) pars() []float64 { return *b.row.Get() }

// Spec describes the block; its shapes depend on its parameters, so
// every block has its own spec (built once, immutable).
func (b *block) Spec() *node.Spec { return b.spec }

// Params returns a copy of the parameter values in use.
func (b *block) Params() node.Values { return cloneValues(b.vals) }

// StructuralParams names the parameters that shape the block's spec (a
// signal size, units, a number of history samples): construction takes
// any valid value, SetParams refuses to change them, because edges and
// loops were checked against the spec they built. The caller owns the
// slice.
func (b *block) StructuralParams() []string { return slices.Clone(b.fixed) }

// resolve validates given against the block's parameters, starting from
// its current values, and refuses a change of the fixed ones.
func (b *block) resolve(given map[string]any) (node.Values, error) {
	vals, err := node.Resolve(b.typ, b.params, b.vals, given)
	if err != nil {
		return nil, err
	}
	for _, name := range b.fixed {
		if err := fixedParam(b.typ, name, b.vals, vals); err != nil {
			return nil, err
		}
	}
	return vals, nil
}

// asNode returns n as a node.Node, or a nil interface (not a typed nil
// pointer) with err.
func asNode[T node.Node](n T, err error) (node.Node, error) {
	if err != nil {
		return nil, err
	}
	return n, nil
}

// finite reports whether x is neither NaN nor infinite.
func finite(x float64) bool { return x-x == 0 }

// checkDt refuses a non-finite or negative step.
func checkDt(typ string, dt float64) error {
	if !finite(dt) || dt < 0 {
		return fmt.Errorf("%s: time step dt = %s: %w", typ, node.FormatValue(dt), node.ErrNonFinite)
	}
	return nil
}

// decay returns 1 − e^{−dt/τ}, the fraction of the way a first-order
// system with time constant τ moves towards its target in dt, accurate
// for small dt/τ (math.Expm1).
func decay(dt, tau float64) float64 { return -math.Expm1(-dt / tau) }

// phi1 is φ₁(z) = (e^z − 1)/z for z ≤ 0 (1 at z = 0), accurate near 0.
func phi1(z float64) float64 {
	if z == 0 {
		return 1
	}
	return math.Expm1(z) / z
}

// convolve returns ∫₀ᵗ e^{−a(t−s)} e^{−b s} ds for a, b ≥ 0, written
// so that no exponential overflows and no difference cancels:
// t·e^{−min(a,b)t}·φ₁(−|a−b|t).
func convolve(a, b, t float64) float64 {
	lo, d := a, b-a
	if b < a {
		lo, d = b, a-b
	}
	return t * math.Exp(-lo*t) * phi1(-d*t)
}

// clamp returns x limited to [lo, hi].
func clamp(x, lo, hi float64) float64 { return math.Min(math.Max(x, lo), hi) }
