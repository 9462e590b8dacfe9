package control_test

import (
	"strings"
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/control"
)

// constant returns n copies of v.
func constant(n int, v float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// The state space accepts up to MaxSize inputs and MaxSize outputs and
// no more (its documented bounds: "m ≤ 64 inputs per state row", "q ≤
// 64 outputs"), takes the single d = 0 for a zero D of any shape, and
// refuses b and c whose length is not a multiple of the number of
// states. Two states, so that len(b)/n and len(b)·n differ.
func TestStateSpaceShapeBounds(t *testing.T) {
	reg := registry(t)
	a := []float64{-1, 0, 0, -2}
	for _, c := range []struct {
		name   string
		b, c   []float64
		d      []float64
		param  string // "" when accepted
		reason string
	}{
		{"64 inputs", constant(2*control.MaxSize, 1), []float64{1, 0}, nil, "", ""},
		{"65 inputs", constant(2*(control.MaxSize+1), 1), []float64{1, 0}, nil, "b", "130 values for 2 states"},
		{"17 inputs", constant(2*17, 1), []float64{1, 0}, nil, "", ""},
		{"b not a multiple of the states", constant(3, 1), []float64{1, 0}, nil, "b", "3 values for 2 states"},
		{"64 outputs", []float64{1, 0}, constant(2*control.MaxSize, 1), nil, "", ""},
		{"65 outputs", []float64{1, 0}, constant(2*(control.MaxSize+1), 1), nil, "c", "130 values for 2 states"},
		{"17 outputs", []float64{1, 0}, constant(2*17, 1), nil, "", ""},
		{"c not a multiple of the states", []float64{1, 0}, constant(3, 1), nil, "c", "3 values for 2 states"},
		{"single zero d for 1 × 2", constant(4, 1), []float64{1, 0}, []float64{0}, "", ""},
		{"single nonzero d for 1 × 2", constant(4, 1), []float64{1, 0}, []float64{0.5}, "d", "1 values for 1 outputs and 2 inputs"},
	} {
		p := map[string]any{"a": a, "b": c.b, "c": c.c}
		if c.d != nil {
			p["d"] = c.d
		}
		n, err := reg.New("statespace", p)
		if c.param == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
				continue
			}
			m, q := len(c.b)/2, len(c.c)/2
			if got := n.Spec().InputLayout.Size(); got != m {
				t.Errorf("%s: %d inputs, want %d", c.name, got, m)
			}
			// D is zero: ∂y/∂u is all zeros (overwriting the buffer of ones).
			dy := constant(q*m, 1)
			if err := n.(node.OutputsJacobian).OutputsJacobian(0, []float64{0, 0}, n.Spec().DefaultInputs(), dy); err != nil {
				t.Fatal(err)
			}
			for k, v := range dy {
				if v != 0 {
					t.Errorf("%s: D[%d] = %v, want 0", c.name, k, v)
				}
			}
			continue
		}
		pe, ok := err.(*node.ParamError)
		if !ok || pe.Param != c.param || !strings.Contains(err.Error(), c.reason) {
			t.Errorf("%s: error %v, want a ParamError on %q saying %q", c.name, err, c.param, c.reason)
		}
	}
	// The d error states the expected count q·m.
	_, err := reg.New("statespace", map[string]any{"a": a, "b": constant(6, 1), "c": []float64{1, 0}, "d": []float64{1, 2}})
	if err == nil || !strings.Contains(err.Error(), "3 values (q·m)") {
		t.Errorf("d of 2 values for 1 output and 3 inputs: error %v, want one asking for 3 values (q·m)", err)
	}
}

// Sums and products take 1 to MaxPorts operators: a one-input sum is
// the identity (a sign change with "-"), and MaxPorts inputs are
// accepted, MaxPorts + 1 refused.
func TestSignCountBounds(t *testing.T) {
	reg := registry(t)
	for _, c := range []struct {
		typ, param, ops string
		ok              bool
	}{
		{"sum", "signs", "-", true},
		{"sum", "signs", strings.Repeat("+", control.MaxPorts), true},
		{"sum", "signs", strings.Repeat("+", control.MaxPorts+1), false},
		{"product", "ops", "/", true},
		{"product", "ops", strings.Repeat("*", control.MaxPorts), true},
		{"product", "ops", strings.Repeat("*", control.MaxPorts+1), false},
	} {
		n, err := reg.New(c.typ, map[string]any{c.param: c.ops})
		if !c.ok {
			if err == nil {
				t.Errorf("%s %s of %d operators accepted, want refused (at most %d)", c.typ, c.param, len(c.ops), control.MaxPorts)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %s %q: %v", c.typ, c.param, c.ops, err)
			continue
		}
		if got := n.Spec().InputLayout.Size(); got != len(c.ops) {
			t.Errorf("%s %s %q: %d inputs, want %d", c.typ, c.param, c.ops, got, len(c.ops))
		}
	}
	// y = −u for the one-input sum "-"; y = 1/u for the product "/".
	for _, c := range []struct {
		typ, param, ops string
		u, want         float64
	}{{"sum", "signs", "-", 4, -4}, {"product", "ops", "/", 4, 0.25}} {
		n, err := reg.New(c.typ, map[string]any{c.param: c.ops})
		if err != nil {
			t.Fatal(err)
		}
		y := make([]float64, 1)
		if err := n.(node.Outputter).Outputs(0, nil, node.Inputs{Values: []float64{c.u}, Present: []bool{true}}, y); err != nil {
			t.Fatal(err)
		}
		if y[0] != c.want {
			t.Errorf("%s %q of %v = %v, want %v", c.typ, c.ops, c.u, y[0], c.want)
		}
	}
}

// Each input port's description names its own index (u_1, u_2, … from
// 1) and what it does, as the generated node guide shows it.
func TestPortDescriptions(t *testing.T) {
	reg := registry(t)
	for _, c := range []struct {
		typ  string
		p    map[string]any
		want []string
	}{
		{"sum", map[string]any{"signs": "+-"}, []string{"$u_{1}$, taken with sign +", "$u_{2}$, taken with sign -"}},
		{"product", map[string]any{"ops": "*/"}, []string{"$u_{1}$: multiplies", "$u_{2}$: divides (a zero value is an error)"}},
	} {
		n, err := reg.New(c.typ, c.p)
		if err != nil {
			t.Fatal(err)
		}
		for j, in := range n.Spec().Inputs {
			if !strings.Contains(in.Description, c.want[j]) {
				t.Errorf("%s input %d: description %q, want it to say %q", c.typ, j, in.Description, c.want[j])
			}
		}
	}
	// A gain matrix of the wrong length: the message gives the count and
	// the shape, and the count expected (2 outputs × 3 inputs = 6).
	_, err := reg.New("gain", map[string]any{"size": 3, "outputs": 2, "gain": []float64{1, 2, 3, 4}})
	if err == nil || !strings.Contains(err.Error(), "4 values for a 2 × 3 matrix") || !strings.Contains(err.Error(), "6 values, row by row") {
		t.Errorf("gain of 4 values for 2 × 3: error %v, want the count, the shape and 6 values", err)
	}
}
