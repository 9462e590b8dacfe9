package control_test

import (
	"maps"
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/control"
	"github.com/cosimgo/cosim/verification"
)

// registry is the control blocks' own registry (the catalog's is in
// package nodes, which imports this package).
func registry(t *testing.T) *node.Registry {
	t.Helper()
	r, err := node.NewRegistry(control.GainType(), control.SumType(), control.ProductType(), control.SaturationType(), control.DeadZoneType(),
		control.SwitchType(), control.IntegratorType(), control.LagType(), control.DerivativeType(), control.RateLimiterType(), control.PIDType(),
		control.TransferFunctionType(), control.StateSpaceType(), control.ZOHType(), control.UnitDelayType(), control.TransportDelayType())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// conformanceCase is a block configuration checked with
// verification.CheckConformance at a state and inputs of its own (nil:
// the initial state; the inputs of in, else every present input set to
// distinct values 0.1·(j+1)).
type conformanceCase struct {
	name   string
	typ    string
	params map[string]any
	x      []float64
	in     []float64
}

// conformanceCases cover every branch the registry-wide check in package
// verification does not: a matrix gain, a PID off balance (applied gains
// away from their targets, so that the bumpless terms act) unlimited,
// limited above and limited below, an integrator leaving its upper limit
// (sitting on it with the input pushing is a kink of the right-hand side
// in the state, where finite differences do not apply: its behaviour is
// tested in TestIntegratorLimitsAndReset, as is the reset, a discrete
// map), a rate limiter ramping up and down, a biproper transfer function, a
// multi-input multi-output state space, a switch on its off input, and
// the sampled blocks between samples.
var conformanceCases = []conformanceCase{
	{name: "gain matrix", typ: "gain", params: map[string]any{"size": 3, "outputs": 2, "gain": []float64{1, -2, 3, 0.5, 0, -1}}},
	{name: "gain scalar", typ: "gain", params: map[string]any{"size": 4, "gain": 2.5}},
	{name: "product divide", typ: "product", params: map[string]any{"ops": "/*/", "input_units": "N,m,s"}},
	{name: "product vector", typ: "product", params: map[string]any{"ops": "*/*", "size": 3}, in: []float64{0.5, -1, 2, 1.5, 0.25, -3, 2, 4, 0.5}},
	{name: "switch off", typ: "switch", params: map[string]any{"criterion": "gt", "threshold": 0.5}},
	{name: "switch ne0", typ: "switch", params: map[string]any{"criterion": "ne0"}, in: []float64{1, 0, 3}},
	{name: "deadzone below", typ: "deadzone", params: map[string]any{"lower": 0.5, "upper": 0.7}},
	{name: "pid unlimited off balance", typ: "pid",
		params: map[string]any{"kp": 2.0, "ki": 1.5, "kd": 0.3, "tf": 0.05, "setpoint_weight": 0.8, "derivative_weight": 0.5, "retune_time": 0.2},
		x:      []float64{0.4, 0.6, 3.0, 7.5}, in: []float64{0.7, -0.3}},
	{name: "pid limited above off balance", typ: "pid",
		params: map[string]any{"kp": 2.0, "ki": 1.5, "kd": 0.3, "tf": 0.05, "kb": 3.0, "limit_output": true, "lower": -0.5, "upper": 0.5, "retune_time": 0.2},
		x:      []float64{0.9, 0.2, 7.0, 8.5}, in: []float64{0.7, 0.1}},
	{name: "pid limited below", typ: "pid",
		params: map[string]any{"kp": 2.0, "ki": -1.5, "kd": 0.3, "tf": 0.05, "kb": 0.5, "limit_output": true, "lower": -0.5, "upper": 0.5},
		x:      []float64{-0.9, 0.2, 8.0, 8.0}, in: []float64{-0.7, 0.1}},
	{name: "pid vector", typ: "pid", params: map[string]any{"size": 2, "kp": []float64{1, 3}, "ki": 0.5, "kd": []float64{0.1, 0.2}, "tf": 0.02},
		x: []float64{0.1, -0.2, 0.3, 0.4, 1.5, 13, 5, 9}, in: []float64{0.5, -1, 0.2, 0.3}},
	// Three components, one above its upper limit, one within, one below
	// its lower limit: the per-component offsets of the state and of the
	// Jacobians (k·n + i), which size 1 and 2 do not tell apart from
	// k + i or k/n + i everywhere.
	{name: "pid vector limited", typ: "pid",
		params: map[string]any{"size": 3, "kp": []float64{1, 2, 0.5}, "ki": []float64{0.5, 1, 2}, "kd": []float64{0.1, 0.2, 0.05},
			"tf": []float64{0.02, 0.05, 0.01}, "kb": []float64{2, 3, 4}, "limit_output": true, "lower": []float64{-1, -1, -1}, "upper": []float64{1, 1, 1}},
		x:  []float64{2, 0, -2, 0.05, -0.1, 0.2, 1.1, 2.2, 0.6, 1.3, 2.5, 0.7},
		in: []float64{0.1, 0.2, 0.3, 0, 0.1, 0}},
	{name: "integrator at its limit, pulling", typ: "integrator", params: map[string]any{"gain": 2.0, "limit_output": true, "upper": 0.5},
		x: []float64{0.5}, in: []float64{-1, 0}},
	{name: "ratelimiter ramp up", typ: "ratelimiter", params: map[string]any{"rising": 2.0, "falling": 3.0, "time_constant": 0.01}, x: []float64{0}, in: []float64{1}},
	{name: "ratelimiter ramp down", typ: "ratelimiter", params: map[string]any{"rising": 2.0, "falling": 3.0, "time_constant": 0.01}, x: []float64{1}, in: []float64{-1}},
	{name: "derivative vector", typ: "derivative", params: map[string]any{"size": 2, "gain": []float64{1, 2}, "time_constant": []float64{0.01, 0.5}}},
	{name: "transfer function biproper", typ: "transferfunction", params: map[string]any{"numerator": []float64{1, 2, 5}, "denominator": []float64{2, 3, 2}},
		x: []float64{0.2, -0.1}},
	{name: "transfer function with an integrator", typ: "transferfunction", params: map[string]any{"numerator": []float64{3}, "denominator": []float64{1, 0.5, 0}},
		x: []float64{0.3, 0.1}},
	{name: "state space 2x2", typ: "statespace",
		params: map[string]any{"a": []float64{-1, 2, -3, -4}, "b": []float64{1, 0, 0.5, 1}, "c": []float64{1, -1, 0, 2}, "d": []float64{0.3, 0, 0, 0}},
		x:      []float64{0.5, -0.25}},
	{name: "zoh vector between samples", typ: "zoh", params: map[string]any{"size": 3, "sample_time": 0.5, "offset": 0.2, "initial": []float64{1, 2, 3}}},
	{name: "unitdelay between samples", typ: "unitdelay", params: map[string]any{"sample_time": 0.5}, x: []float64{0.5, 0.25, 0}},
}

// Every configuration conforms to the node contract: spec, Update held
// to its named scheme applied to Derivatives, analytic Jacobians held to
// finite differences, parameter injection (see
// verification.CheckConformance for the tolerances and why).
func TestConformanceCases(t *testing.T) {
	reg := registry(t)
	for _, c := range conformanceCases {
		t.Run(c.name, func(t *testing.T) { checkConformanceCase(t, reg, c) })
	}
}

// checkConformanceCase runs verification.CheckConformance on one
// configuration and reports every violation.
func checkConformanceCase(t *testing.T, reg *node.Registry, c conformanceCase) {
	t.Helper()
	n, in := c.build(t, reg)
	fresh := func(over map[string]any) (node.Node, error) {
		m := maps.Clone(c.params)
		maps.Copy(m, over)
		return reg.New(c.typ, m)
	}
	rep := verification.CheckConformance(n, fresh, c.x, in)
	for _, v := range rep.Violations {
		t.Error(v)
	}
}

// build makes the case's node and its inputs: those of c.in, else every
// present input set to distinct values 0.1·(j+1).
func (c conformanceCase) build(t *testing.T, reg *node.Registry) (node.Node, node.Inputs) {
	t.Helper()
	n, err := reg.New(c.typ, c.params)
	if err != nil {
		t.Fatal(err)
	}
	in := n.Spec().DefaultInputs()
	for j := range in.Values {
		in.Values[j] = 0.1 * float64(j+1)
	}
	if c.in != nil {
		copy(in.Values, c.in)
	}
	if c.x != nil && len(c.x) != n.Spec().StateLayout.Size() {
		t.Fatalf("state of %d values for a state of %d", len(c.x), n.Spec().StateLayout.Size())
	}
	return n, in
}
