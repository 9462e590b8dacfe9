package control_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/control"
)

// The units of the PID's applied gains are output per input units: the
// output units alone when the input is dimensionless, a parenthesized
// quotient when the input units are compound. Source: the definition
// g = u / e.
func TestPIDGainUnits(t *testing.T) {
	reg := registry(t)
	for _, c := range []struct{ in, out, want string }{
		{"1", "N", "N"},
		{"m", "N", "N/m"},
		{"m/s", "N", "N/(m/s)"},
	} {
		n, err := reg.New("pid", map[string]any{"input_units": c.in, "output_units": c.out})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range n.Spec().State {
			if f.Name == "gain_reference" || f.Name == "gain_measurement" {
				if f.Units != c.want {
					t.Errorf("input %q, output %q: %s in %q, want %q", c.in, c.out, f.Name, f.Units, c.want)
				}
			}
		}
	}
}

// Limits may coincide (lower = upper: a constant output), and a step of
// zero length is a step, not an error: only lower > upper and negative
// or non-finite steps are refused.
func TestBoundaryValuesAccepted(t *testing.T) {
	reg := registry(t)
	for _, typ := range []string{"saturation", "integrator"} {
		p := map[string]any{"lower": 0.5, "upper": 0.5}
		if typ == "integrator" {
			p["limit_output"], p["initial"] = true, 0.5
		}
		if _, err := reg.New(typ, p); err != nil {
			t.Errorf("%s with lower = upper: %v", typ, err)
		}
	}
	for _, typ := range []string{"integrator", "lag", "ratelimiter", "pid", "zoh", "transportdelay"} {
		n, err := reg.New(typ, map[string]any{})
		if err != nil {
			t.Fatal(err)
		}
		if err := update(n, 0, 0); err != nil {
			t.Errorf("%s: Update with dt = 0: %v", typ, err)
		}
	}
}

// The zero-order hold and the unit delay state what "initial" means for
// each: the output before the first sample, or until the second (the
// node guides are generated from these descriptions).
func TestHoldInitialDescriptions(t *testing.T) {
	reg := registry(t)
	for typ, want := range map[string]string{"zoh": "Output before the first sample", "unitdelay": "Output until the second sample"} {
		n, err := reg.New(typ, map[string]any{})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, p := range n.Spec().Params {
			if p.Name == "initial" {
				found = true
				if !strings.HasPrefix(p.Description, want) {
					t.Errorf("%s: initial is described %q, want it to start with %q", typ, p.Description, want)
				}
			}
		}
		if !found {
			t.Errorf("%s: no parameter initial", typ)
		}
	}
}

// The integrator's events: one per limit of a scalar integrator, one
// per limit and component ([i]) of a vector one, then the reset.
func TestIntegratorEventNames(t *testing.T) {
	reg := registry(t)
	for _, c := range []struct {
		size int
		want string
	}{
		{1, "upper_limit lower_limit reset"},
		{2, "upper_limit[0] upper_limit[1] lower_limit[0] lower_limit[1] reset"},
	} {
		n, err := reg.New("integrator", map[string]any{"size": c.size, "limit_output": true})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range n.Spec().Events {
			names = append(names, e.Name)
		}
		if got := strings.Join(names, " "); got != c.want {
			t.Errorf("size %d: events %s, want %s", c.size, got, c.want)
		}
	}
}

// update runs one Update of block n from its initial state with every
// input present and zero.
func update(n node.Node, t, dt float64) error {
	sp := n.Spec()
	x := make([]float64, sp.StateLayout.Size())
	n.InitialState(x)
	in := node.Inputs{Values: make([]float64, sp.InputLayout.Size()), Present: make([]bool, len(sp.Inputs))}
	for i := range in.Present {
		in.Present[i] = true
	}
	return n.Update(t, dt, x, in, make([]float64, len(x)))
}

// A step as long as the delay, or as the sample period (to 64 ulps of
// rounding, included), is allowed; a longer one is ErrStepTooLong.
func TestStepLengthLimits(t *testing.T) {
	reg := registry(t)
	const eps = 0x1p-52
	for _, c := range []struct {
		typ     string
		params  map[string]any
		dt      float64
		tooLong bool
	}{
		{"transportdelay", map[string]any{"delay": 0.5}, 0.5, false},
		{"transportdelay", map[string]any{"delay": 0.5}, 0.5 * (1 + 4*eps), true},
		{"zoh", map[string]any{"sample_time": 0.5}, 0.5, false},
		{"zoh", map[string]any{"sample_time": 0.5}, 0.5 * (1 + 32*eps), false},
		{"zoh", map[string]any{"sample_time": 0.5}, 0.5 * (1 + 64*eps), false}, // the edge itself (exact in float64)
		{"zoh", map[string]any{"sample_time": 0.5}, 0.5 * (1 + 256*eps), true},
	} {
		n, err := reg.New(c.typ, c.params)
		if err != nil {
			t.Fatal(err)
		}
		err = update(n, 0, c.dt)
		if got := errors.Is(err, control.ErrStepTooLong); got != c.tooLong || (err != nil && !got) {
			t.Errorf("%s %v, dt = %v: %v; want too long %v", c.typ, c.params, c.dt, err, c.tooLong)
		}
	}
}

// The transport delay's initial state says "no sample yet": first and
// newest sample index −1 (the documented state fields).
func TestTransportDelayInitialState(t *testing.T) {
	n, err := registry(t).New("transportdelay", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, n.Spec().StateLayout.Size())
	n.InitialState(x)
	if l := len(x); x[l-2] != -1 || x[l-1] != -1 {
		t.Errorf("initial state ends %v, want −1, −1", x[l-2:])
	}
}

// Two zero divisors: the error names the first (inputs are reported in
// port order).
func TestProductFirstZeroDivisorNamed(t *testing.T) {
	n, err := registry(t).New("product", map[string]any{"ops": "/*/"})
	if err != nil {
		t.Fatal(err)
	}
	in := node.Inputs{Values: []float64{0, 2, 0}, Present: []bool{true, true, true}}
	err = n.(node.Outputter).Outputs(0, nil, in, make([]float64, 1))
	if !errors.Is(err, control.ErrDivideByZero) || !strings.Contains(err.Error(), "input in1 is 0") {
		t.Errorf("err = %v, want ErrDivideByZero naming in1", err)
	}
}
