package source_test

import (
	"errors"
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/source"
)

// SetParams of every source type with time events: a valid override
// changes the output and the time events as the node's equation says
// (closed forms worked by hand below, exact in binary, so compared
// exactly); an invalid one (a resolve error, a cross-parameter rule, a
// change of output size or units) is an error and changes nothing.
func TestSetParamsEveryType(t *testing.T) {
	type probe struct{ t, want float64 }
	cases := []struct {
		name    string
		n       node.Node
		set     map[string]any
		after   []probe
		event   float64 // TimeEvents(0) reports this as the next event after SetParams
		invalid []map[string]any
	}{
		{
			// Step at T = 2 from −1 to 3: y(1.5) = −1, y(2) = 3.
			name: "step", n: must(source.NewStep(source.StepParams{Time: 1, Initial: []float64{0, 0}, Final: []float64{1, 1}})),
			set:   map[string]any{"time": 2.0, "initial": []float64{-1}, "final": []float64{3, 3}},
			after: []probe{{1.5, -1}, {2, 3}}, event: 2,
			invalid: []map[string]any{{"time": "x"}, {"initial": []float64{1, 2, 3}}, {"final": []float64{1, 2, 3}}, {"units": "N"}},
		},
		{
			// Ramp from t₀ = 1 with slope 2 and offset 0.5: y(0.5) = 0.5,
			// y(3) = 0.5 + 2·2 = 4.5.
			name: "ramp", n: must(source.NewRamp(source.RampParams{Slope: []float64{1, 1}})),
			set:   map[string]any{"start": 1.0, "slope": []float64{2}, "offset": []float64{0.5, 0.5}},
			after: []probe{{0.5, 0.5}, {3, 4.5}}, event: 1,
			invalid: []map[string]any{{"start": "x"}, {"slope": []float64{1, 2, 3}}, {"offset": []float64{1, 2, 3}}, {"units": "N"}},
		},
		{
			// Pulse of period 2, width 0.5, delay 1, 1 + 3 during a
			// pulse: y(0.5) = 1, y(1.25) = 4, y(1.5) = 1, y(3.25) = 4.
			name: "pulse", n: must(source.NewPulse(source.PulseParams{Period: 1, Width: 0.5, Amplitude: []float64{1, 1}})),
			set:   map[string]any{"period": 2.0, "delay": 1.0, "amplitude": []float64{3}, "offset": []float64{1, 1}},
			after: []probe{{0.5, 1}, {1.25, 4}, {1.5, 1}, {3.25, 4}}, event: 1,
			invalid: []map[string]any{{"period": -1.0}, {"width": 2.0}, {"amplitude": []float64{1, 2, 3}}, {"offset": []float64{1, 2, 3}}, {"units": "N"}},
		},
		{
			// Table (0.5, 2) → (1, 5) linear: y(1.25) = 2 + 0.75·(5 − 2)/1.5
			// = 3.5, y(2) = 5 held after the table.
			name: "lookup", n: must(source.NewLookup(source.LookupParams{Times: []float64{0, 1}, Values: []float64{0, 0, 1, 1}})),
			set:   map[string]any{"times": []float64{0.5, 2}, "values": []float64{2, 2, 5, 5}},
			after: []probe{{1.25, 3.5}, {2, 5}, {3, 5}}, event: 0.5,
			invalid: []map[string]any{{"times": []float64{1, 0}}, {"values": []float64{1, 2, 3}}, {"values": []float64{1, 2}}, {"interpolation": "cubic"}, {"units": "N"}},
		},
	}
	for _, c := range cases {
		tn := c.n.(node.Tunable)
		te := c.n.(node.TimeEventer)
		before := make([][]float64, len(c.after))
		for i, p := range c.after {
			before[i] = out(t, c.n, p.t)
		}
		_, _, next0 := te.TimeEvents(0)
		for _, bad := range c.invalid {
			var pe *node.ParamError
			if err := tn.SetParams(bad); !errors.As(err, &pe) {
				t.Errorf("%s: SetParams(%v): %v, want a *node.ParamError", c.name, bad, err)
			}
			for i, p := range c.after {
				if y := out(t, c.n, p.t); y[0] != before[i][0] || y[1] != before[i][1] {
					t.Errorf("%s: refused SetParams(%v) changed y(%v) from %v to %v", c.name, bad, p.t, before[i], y)
				}
			}
			if _, _, next := te.TimeEvents(0); next != next0 {
				t.Errorf("%s: refused SetParams(%v) moved the next event from %v to %v", c.name, bad, next0, next)
			}
		}
		if err := tn.SetParams(c.set); err != nil {
			t.Fatalf("%s: SetParams(%v): %v", c.name, c.set, err)
		}
		for _, p := range c.after {
			if y := out(t, c.n, p.t); y[0] != p.want || y[1] != p.want {
				t.Errorf("%s: after SetParams y(%v) = %v, want [%v %v]", c.name, p.t, y, p.want, p.want)
			}
		}
		if _, _, next := te.TimeEvents(0); next != c.event {
			t.Errorf("%s: after SetParams the next event after t = 0 is %v, want %v", c.name, next, c.event)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
