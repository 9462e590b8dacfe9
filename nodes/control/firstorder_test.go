package control_test

import (
	"strings"
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/control"
)

// The derivative block's output is y = K (u − x)/T with x the filtered
// input (its equation): starting at rest at its initial input it gives
// no kick for that input (the documented meaning of initial_input), and
// K (u − x)/T for another. K = 2, T = 0.1, x(t0) = 0.3: u = 0.3 gives 0,
// u = 1 gives 2·0.7/0.1 = 14 (to rounding: 0.7 is 1 − 0.3 in float64).
func TestDerivativeOutputFromRest(t *testing.T) {
	d, err := control.NewDerivative(control.FirstOrderParams{Gain: []float64{2}, TimeConstant: []float64{0.1}, Initial: []float64{0.3}})
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, 1)
	d.InitialState(x)
	y := make([]float64, 1)
	u := 0.3
	for _, c := range []struct{ u, want float64 }{{u, 0}, {1, 2 * (1 - u) / 0.1}} {
		if err := d.Outputs(0, x, node.Inputs{Values: []float64{c.u}, Present: []bool{true}}, y); err != nil {
			t.Fatal(err)
		}
		if y[0] != c.want {
			t.Errorf("x = %v, u = %v: y = %v, want %v", x[0], c.u, y[0], c.want)
		}
	}
}

// The limit parameters describe the band of their own block: a
// saturation's "output range", a dead zone's "dead band".
func TestLimiterParamDescriptions(t *testing.T) {
	reg := registry(t)
	for typ, band := range map[string]string{"saturation": "output range", "deadzone": "dead band"} {
		spec, err := reg.Spec(typ)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range spec.Params {
			if (p.Name == "lower" || p.Name == "upper") && !strings.Contains(p.Description, band) {
				t.Errorf("%s parameter %s: description %q does not name the %s", typ, p.Name, p.Description, band)
			}
		}
	}
}
