package source

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/cosimgo/cosim/node"
)

const pkgPath = "github.com/cosimgo/cosim/nodes/source"

// MaxComponents is the largest output vector a sine, step, ramp or pulse
// source has: its per-component parameters have 1 to MaxComponents
// values.
const MaxComponents = 64

// unitsParam is the "units" parameter every source has.
var unitsParam = node.Param{Name: "units", Kind: node.Text, Default: "1",
	Description: "Units of the output (and of the parameters that carry its units), e.g. \"N\" for a load on a body's force input; \"1\" when dimensionless"}

// perComponent returns a per-component vector parameter: a list of 1 to
// MaxComponents values, one value applying to every component.
func perComponent(name string, def float64, units, desc string) node.Param {
	return node.Param{Name: name, Kind: node.Vector, Shape: node.Vec(1), MaxLen: MaxComponents, Default: []float64{def}, Units: units,
		Description: desc + "; one value per output component, or one value for all"}
}

// size returns the output size of a source from its per-component
// parameters: every list has one value or n values, and n is the output
// size (1 when all have one). A mismatch is a *node.ParamError naming the
// first parameter whose length disagrees.
func size(typ string, vals node.Values, names ...string) (int, error) {
	n, _, err := sizeFrom(typ, vals, names...)
	return n, err
}

// sizeFrom is size, also naming the parameter the size comes from ("" for
// one component).
func sizeFrom(typ string, vals node.Values, names ...string) (int, string, error) {
	n, from := 1, ""
	for _, name := range names {
		l := len(vals.Floats(name))
		if l == 1 {
			continue
		}
		if n == 1 {
			n, from = l, name
			continue
		}
		if l != n {
			return 0, "", &node.ParamError{Node: typ, Param: name, Value: vals.Floats(name),
				Reason: fmt.Sprintf("has %d values, but %s has %d", l, from, n),
				Valid:  fmt.Sprintf("1 value (for every component) or %d, as %s", n, from)}
		}
	}
	return n, from, nil
}

// comp is component i of a per-component parameter.
func comp(v []float64, i int) float64 {
	if len(v) == 1 {
		return v[0]
	}
	return v[i]
}

// outShape is the output shape of n components: a scalar for one.
func outShape(n int) node.Shape {
	if n == 1 {
		return node.Scalar
	}
	return node.Vec(n)
}

// checkUnits refuses an empty units string.
func checkUnits(typ string, vals node.Values) error {
	if vals.String("units") == "" {
		return &node.ParamError{Node: typ, Param: "units", Value: "", Reason: "is empty", Valid: "a units string such as \"N\", or \"1\" when dimensionless"}
	}
	return nil
}

// base is what every source shares: its spec, parameter values and
// output size, and the SetParams rule that the output's shape and units
// are fixed after construction.
type base struct {
	node.Stateless
	spec *node.Spec
	vals node.Values
	n    int
}

// Spec describes the source; its output shape depends on the parameters,
// so every source has its own spec (built once, immutable).
func (b *base) Spec() *node.Spec { return b.spec }

// Params returns a copy of the parameter values in use.
func (b *base) Params() node.Values {
	out := maps.Clone(b.vals)
	for k, v := range out {
		if s, ok := v.([]float64); ok {
			out[k] = slices.Clone(s)
		}
	}
	return out
}

// fixed refuses new values that change the output's size or units, which
// edges were checked against.
func (b *base) fixed(typ string, vals node.Values, names ...string) error {
	for _, name := range names {
		if l := len(vals.Floats(name)); l != 1 && l != b.n {
			return &node.ParamError{Node: typ, Param: name, Value: vals.Floats(name),
				Reason: fmt.Sprintf("would change the output size from %d (edges were checked against it)", b.n),
				Valid:  fmt.Sprintf("1 value (for every component) or %d", b.n)}
		}
	}
	if u := vals.String("units"); u != b.vals.String("units") {
		return &node.ParamError{Node: typ, Param: "units", Value: u,
			Reason: "cannot change after construction (edges were checked against it)", Valid: node.FormatValue(b.vals.String("units"))}
	}
	return nil
}

// newSpec builds the spec of a source of n components.
func newSpec(typ string, params []node.Param, units string, n int, desc string, meta node.Metadata) *node.Spec {
	return node.NewSpec(node.Spec{
		Type:    typ,
		Package: pkgPath,
		Params:  params,
		Outputs: []node.Field{{Name: "value", Shape: outShape(n), Units: units, Description: desc}},
		Meta:    meta,
	})
}

// rowParams are the parameters of a sine, step, ramp or pulse source
// flattened into one row of float64 (layout per type, fixed by the output
// size), the form both the node's Outputs and its batch kernel read, so
// that the two compute the same bits. SetParams publishes a new row (a
// new slice: a row once published is never written) to the batch
// kernels' rows (batch.go).
type rowParams struct {
	row node.Published[[]float64]
}

// params returns the current row.
func (r *rowParams) params() []float64 { return *r.row.Get() }

// noEvents is the TimeEvents answer of a source without time events.
func noEvents() (int, float64, float64) { return 0, math.Inf(-1), math.Inf(1) }

// oneEvent is the TimeEvents answer for a single event at tau.
func oneEvent(t, tau float64) (int, float64, float64) {
	if t < tau {
		return 0, math.Inf(-1), tau
	}
	return 1, tau, math.Inf(1)
}

const changeDate = "2026-12-03"
