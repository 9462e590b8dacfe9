package control_test

import (
	"math"
	"testing"

	"github.com/cosimgo/cosim/node"
)

// vectorConformanceCases run the blocks at size 3 (or, for the linear
// systems, with as many states, inputs and outputs all different), with
// components in different regimes and parameters that differ per
// component. At size 1 the offsets of the parameter rows and of the
// Jacobians (k·n + i, i·nu + j·n + i) coincide with k + i, k/n + i and
// the like, so a wrong index passes every size-1 check; here it puts a
// wrong entry in the analytic Jacobian, which the finite differences of
// CheckConformance then catch.
var vectorConformanceCases = []conformanceCase{
	// Component 0 on its upper limit with the input pulling it down, 1
	// inside, 2 on its lower limit pulled up: all free, and smooth there
	// (a component held at a limit is a kink in the state: see
	// TestIntegratorVectorLimitsPerComponent).
	{name: "integrator vector limited", typ: "integrator",
		params: map[string]any{"size": 3, "gain": []float64{2, -1, 3}, "initial": []float64{0.1, -0.2, 0.2},
			"limit_output": true, "lower": []float64{-0.3, -0.5, -0.2}, "upper": []float64{0.4, 0.6, 0.25}},
		x: []float64{0.4, 0.1, -0.2}, in: []float64{-1, 0.3, 1, 0}},
	// Unlimited: outside the default band [-1, 1] the rate is K u, never
	// held (the limits are off).
	{name: "integrator vector unlimited", typ: "integrator",
		params: map[string]any{"size": 3, "gain": []float64{2, -1.5, 3}},
		x:      []float64{2, 0.5, -2}, in: []float64{1, 0.3, -1, 0}},
	{name: "lag vector", typ: "lag",
		params: map[string]any{"size": 3, "gain": []float64{1, 2, 0.5}, "time_constant": []float64{0.05, 0.2, 0.01}},
		x:      []float64{0.3, -0.2, 0.1}, in: []float64{1, -1, 0.5}},
	// Component 0 ramps up at its rising rate, 1 follows linearly, 2
	// ramps down at its falling rate: u − y = −0.0175 is below
	// −F·T = −0.015, but not below −0.02, what a neighbour's rate (4)
	// would give.
	{name: "ratelimiter vector", typ: "ratelimiter",
		params: map[string]any{"size": 3, "rising": []float64{1, 4, 0.5}, "falling": []float64{2, 1, 3}, "time_constant": []float64{0.01, 0.02, 0.005}},
		x:      []float64{0, 0.5, 1}, in: []float64{1, 0.501, 0.9825}},
	{name: "sum vector", typ: "sum", params: map[string]any{"signs": "+-+", "size": 3}},
	{name: "saturation vector", typ: "saturation",
		params: map[string]any{"size": 3, "lower": []float64{-1, -0.5, 0}, "upper": []float64{1, 0.5, 2}}, in: []float64{2, 0.1, -1}},
	{name: "deadzone vector", typ: "deadzone",
		params: map[string]any{"size": 3, "lower": []float64{-1, -0.5, 0}, "upper": []float64{1, 0.5, 2}}, in: []float64{2, 0.1, -1}},
	// on (3), control, off (3): the control selects off, then on.
	{name: "switch vector off", typ: "switch", params: map[string]any{"size": 3, "criterion": "gt", "threshold": 0.5}},
	{name: "switch vector on", typ: "switch", params: map[string]any{"size": 3, "criterion": "gt", "threshold": 0.5},
		in: []float64{0.1, 0.2, 0.3, 0.9, 0.5, 0.6, 0.7}},
	// Three states, two inputs, one output, feedthrough.
	{name: "state space 3 states 2 inputs 1 output", typ: "statespace",
		params: map[string]any{"a": []float64{-1, 2, 0, -3, -4, 1, 0.5, 0, -2}, "b": []float64{1, 0, 0.5, 1, -1, 2},
			"c": []float64{1, -1, 0.5}, "d": []float64{0.3, -0.7}},
		x: []float64{0.5, -0.25, 0.1}},
	{name: "transfer function third order", typ: "transferfunction",
		params: map[string]any{"numerator": []float64{1, 2, 5}, "denominator": []float64{2, 3, 2, 1}},
		x:      []float64{0.2, -0.1, 0.3}},
}

func TestVectorConformanceCases(t *testing.T) {
	reg := registry(t)
	for _, c := range vectorConformanceCases {
		t.Run(c.name, func(t *testing.T) { checkConformanceCase(t, reg, c) })
	}
}

// The Jacobians fill the whole matrix they are given: an integrator (or
// a graph assembling a system Jacobian) reuses its buffers from one call
// to the next, so every entry must be written, zeros included
// (node.DerivativesJacobian: dst "receives" the matrix). Each Jacobian is
// computed into a zeroed buffer and into one filled with NaN; the two
// must agree bit for bit. Either DerivativesJacobian buffer may be nil
// (the node contract), and asking for one alone must give the same
// matrix as asking for both.
func TestJacobiansFillTheirWholeBuffer(t *testing.T) {
	reg := registry(t)
	for _, c := range append(append([]conformanceCase(nil), conformanceCases...), vectorConformanceCases...) {
		t.Run(c.name, func(t *testing.T) {
			n, in := c.build(t, reg)
			s := n.Spec()
			nx, nu, ny := s.StateLayout.Size(), s.InputLayout.Size(), s.OutputLayout.Size()
			x := c.x
			if x == nil {
				x = make([]float64, nx)
				if st, ok := node.As[interface{ InitialState([]float64) }](n); ok {
					st.InitialState(x)
				}
			}
			fill := func(size int, v float64) []float64 {
				b := make([]float64, size)
				for i := range b {
					b[i] = v
				}
				return b
			}
			same := func(what string, a, b []float64) {
				t.Helper()
				for i := range a {
					if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
						t.Errorf("%s entry %d: %v from a zeroed buffer, %v from a NaN-filled or single one", what, i, a[i], b[i])
					}
				}
			}
			checked := false
			if oj, ok := node.As[node.OutputsJacobian](n); ok {
				checked = true
				z, g := fill(ny*nu, 0), fill(ny*nu, math.NaN())
				if err := oj.OutputsJacobian(0, x, in, z); err != nil {
					t.Fatal(err)
				}
				if err := oj.OutputsJacobian(0, x, in, g); err != nil {
					t.Fatal(err)
				}
				same("∂y/∂u", z, g)
			}
			if dj, ok := node.As[node.DerivativesJacobian](n); ok {
				checked = true
				zx, zu := fill(nx*nx, 0), fill(nx*nu, 0)
				gx, gu := fill(nx*nx, math.NaN()), fill(nx*nu, math.NaN())
				if err := dj.DerivativesJacobian(0, x, in, zx, zu); err != nil {
					t.Fatal(err)
				}
				if err := dj.DerivativesJacobian(0, x, in, gx, gu); err != nil {
					t.Fatal(err)
				}
				same("∂f/∂x", zx, gx)
				same("∂f/∂u", zu, gu)
				ox, ou := fill(nx*nx, math.NaN()), fill(nx*nu, math.NaN())
				if err := dj.DerivativesJacobian(0, x, in, ox, nil); err != nil {
					t.Fatal(err)
				}
				if err := dj.DerivativesJacobian(0, x, in, nil, ou); err != nil {
					t.Fatal(err)
				}
				same("∂f/∂x alone", zx, ox)
				same("∂f/∂u alone", zu, ou)
			}
			if !checked {
				t.Skip("no Jacobian")
			}
		})
	}
}
