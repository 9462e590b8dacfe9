package control_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/control"
)

// The typed constructors' zero parameters mean the registry's defaults
// (each typed field's comment states "Default …", and a user switching
// from a scenario file to Go must get the same block): the parameters of
// NewX(XParams{}) equal those of the registry's X built from nothing.
// The typed defaults are written twice (in the Params structs' values and
// in the parameter tables), so this is what keeps them the same. It
// failed for the derivative, whose typed time constant defaulted to the
// lag's 0.1 s where its parameter table says 0.01 s.
func TestTypedZeroParamsAreTheRegistryDefaults(t *testing.T) {
	reg := registry(t)
	for _, c := range []struct {
		typ string
		new func() (node.Node, error)
	}{
		{"gain", func() (node.Node, error) { return control.NewGain(control.GainParams{}) }},
		{"sum", func() (node.Node, error) { return control.NewSum(control.SumParams{}) }},
		{"product", func() (node.Node, error) { return control.NewProduct(control.ProductParams{}) }},
		{"saturation", func() (node.Node, error) { return control.NewSaturation(control.LimitParams{}) }},
		{"deadzone", func() (node.Node, error) { return control.NewDeadZone(control.LimitParams{}) }},
		{"switch", func() (node.Node, error) { return control.NewSwitch(control.SwitchParams{}) }},
		{"integrator", func() (node.Node, error) { return control.NewIntegrator(control.IntegratorParams{}) }},
		{"lag", func() (node.Node, error) { return control.NewLag(control.FirstOrderParams{}) }},
		{"derivative", func() (node.Node, error) { return control.NewDerivative(control.FirstOrderParams{}) }},
		{"unitdelay", func() (node.Node, error) { return control.NewUnitDelay(control.HoldParams{}) }},
		{"ratelimiter", func() (node.Node, error) { return control.NewRateLimiter(control.RateLimiterParams{}) }},
		{"pid", func() (node.Node, error) { return control.NewPID(control.PIDParams{}) }},
		{"transferfunction", func() (node.Node, error) { return control.NewTransferFunction(control.TransferFunctionParams{}) }},
		{"statespace", func() (node.Node, error) { return control.NewStateSpace(control.StateSpaceParams{}) }},
		{"zoh", func() (node.Node, error) { return control.NewZOH(control.HoldParams{}) }},
		{"transportdelay", func() (node.Node, error) { return control.NewTransportDelay(control.TransportDelayParams{}) }},
	} {
		t.Run(c.typ, func(t *testing.T) {
			typed, err := c.new()
			if err != nil {
				t.Fatal(err)
			}
			def, err := reg.New(c.typ, nil)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(def.(interface{ Params() node.Values }).Params(), typed.(interface{ Params() node.Values }).Params()); d != "" {
				t.Errorf("typed zero parameters differ from the registry's defaults (-registry +typed):\n%s", d)
			}
		})
	}
}

// The documented defaults act: a default saturation clamps to [−1, 1]
// and a default state space is ẋ = −x + u, y = x (their parameter
// tables: lower −1, upper 1; a = −1, b = 1, c = 1, d = 0).
func TestDefaultsAct(t *testing.T) {
	reg := registry(t)
	sat, err := reg.New("saturation", nil)
	if err != nil {
		t.Fatal(err)
	}
	y := make([]float64, 1)
	for _, c := range [][2]float64{{-5, -1}, {5, 1}, {0.3, 0.3}} {
		if err := sat.(node.Outputter).Outputs(0, nil, node.Inputs{Values: []float64{c[0]}, Present: []bool{true}}, y); err != nil {
			t.Fatal(err)
		}
		if y[0] != c[1] {
			t.Errorf("default saturation of %v = %v, want %v", c[0], y[0], c[1])
		}
	}
	ss, err := control.NewStateSpace(control.StateSpaceParams{})
	if err != nil {
		t.Fatal(err)
	}
	f := make([]float64, 1)
	if err := ss.Derivatives(0, []float64{2}, node.Inputs{Values: []float64{0.5}, Present: []bool{true}}, f); err != nil {
		t.Fatal(err)
	}
	if f[0] != -2+0.5 {
		t.Errorf("default state space: ẋ(x = 2, u = 0.5) = %v, want −2 + 0.5", f[0])
	}
}
