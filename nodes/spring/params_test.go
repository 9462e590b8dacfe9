package spring_test

import (
	"errors"
	"math"
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/spring"
)

// FromMap builds the spring of the registry's default construction,
// between ground points at the origin and at (1, 0, 0) m; SetParams
// changes its law (all or nothing) and an invalid value is a
// *node.ParamError that changes nothing. The closed form: markers 1 m
// apart at rest, so ℓ = 1, ℓ̇ = 0 and the tension is k(ℓ − ℓ₀):
// 10·(1 − 0.25) = 7.5 N, V = ½·10·0.75² = 2.8125 J, and the force on
// marker 0 is f u = (7.5, 0, 0) (exact in binary: compared exactly).
func TestFromMapAndSetParams(t *testing.T) {
	n, err := spring.FromMap(map[string]any{"stiffness": 10.0, "rest_length": 0.25})
	if err != nil {
		t.Fatal(err)
	}
	s := n.(*spring.Node)
	spec := s.Spec()
	if spec.InputLayout.Size() != 0 {
		t.Fatalf("a spring between ground points has inputs %v", spec.Inputs)
	}
	outputs := func() map[string][]float64 {
		dst := make([]float64, spec.OutputLayout.Size())
		if err := s.Outputs(0, nil, spec.DefaultInputs(), dst); err != nil {
			t.Fatal(err)
		}
		m := map[string][]float64{}
		for i, f := range spec.Outputs {
			o := spec.OutputLayout.Offset(i)
			m[f.Name] = dst[o : o+f.Shape.Len()]
		}
		return m
	}
	check := func(when string, tension, energy float64) {
		t.Helper()
		y := outputs()
		if y["length"][0] != 1 || y["length_rate"][0] != 0 || y["tension"][0] != tension || y["potential_energy"][0] != energy ||
			y["force"][0] != tension || y["force"][1] != 0 || y["force"][2] != 0 {
			t.Errorf("%s: outputs %v, want length 1, tension %v, energy %v, force (%v, 0, 0)", when, y, tension, energy, tension)
		}
	}
	check("FromMap", 7.5, 2.8125)

	for _, bad := range []map[string]any{{"stiffness": -1.0}, {"rest_length": math.NaN()}, {"min_length": 0.0}, {"stiffnes": 1.0}} {
		var pe *node.ParamError
		err := s.SetParams(bad)
		if !errors.As(err, &pe) {
			t.Errorf("SetParams(%v): %v, want a *node.ParamError", bad, err)
		}
		check("after a refused SetParams", 7.5, 2.8125)
	}
	// k = 4, ℓ₀ = 0.5: f = 4·0.5 = 2 N, V = ½·4·0.25 = 0.5 J.
	if err := s.SetParams(map[string]any{"stiffness": 4.0, "rest_length": 0.5}); err != nil {
		t.Fatal(err)
	}
	check("after SetParams", 2, 0.5)
	if got := s.Params(); got["stiffness"] != 4.0 || got["rest_length"] != 0.5 {
		t.Errorf("Params after SetParams = %v", got)
	}
	// min_length above the markers' distance: Outputs fails (coincident).
	if err := s.SetParams(map[string]any{"min_length": 2.0}); err != nil {
		t.Fatal(err)
	}
	var fe *node.FieldError
	if err := s.Outputs(0, nil, spec.DefaultInputs(), make([]float64, spec.OutputLayout.Size())); !errors.Is(err, spring.ErrCoincident) || !errors.As(err, &fe) || fe.Field != "length" {
		t.Errorf("length 1 below min_length 2: %v", err)
	}
	if _, err := spring.FromMap(map[string]any{"damping": -1.0}); err == nil {
		t.Error("FromMap accepted a negative damping")
	}
}

// NewConnector (the registry's connector constructor, used by scene
// files) takes the defaults from nil and refuses an invalid value with a
// *node.ParamError naming the parameter, before any body is attached.
func TestNewConnectorParams(t *testing.T) {
	c, err := spring.NewConnector(nil)
	if err != nil || c.ConnectorType() != spring.TypeName {
		t.Fatalf("NewConnector(nil) = %v, %v; want a %s connector", c, err, spring.TypeName)
	}
	for name, bad := range map[string]map[string]any{"stiffness": {"stiffness": -1.0}, "rest_length": {"rest_length": math.NaN()}, "stiffnes": {"stiffnes": 1.0}} {
		var pe *node.ParamError
		c, err := spring.NewConnector(bad)
		if !errors.As(err, &pe) || pe.Param != name || c != nil {
			t.Errorf("NewConnector(%v) = %v, %v; want no connector and a *node.ParamError naming %s", bad, c, err, name)
		}
	}
}
