package constant_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/constant"
	"github.com/cosimgo/cosim/nodes/masspoint"
)

func TestOutputsAndErrors(t *testing.T) {
	n, err := constant.New(constant.Params{Value: [3]float64{0, -5, 0}, Units: "N"})
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]float64, 3)
	n.Outputs(0, nil, node.Inputs{}, dst)
	if dst[1] != -5 || dst[0] != 0 {
		t.Errorf("Outputs = %v", dst)
	}
	for _, c := range []map[string]any{
		{"value": []any{1.0, math.NaN(), 0.0}},
		{"value": []any{1.0}},
		{"units": ""},
		{"valeu": 1.0},
	} {
		_, err := constant.FromMap(c)
		var pe *node.ParamError
		if !errors.As(err, &pe) || pe.Node != "constant" {
			t.Errorf("%v: err %v", c, err)
		}
	}
	if err := n.SetParams(map[string]any{"units": "kN"}); err == nil || !strings.Contains(err.Error(), "cannot change") {
		t.Errorf("changing units: %v", err)
	}
	if err := n.SetParams(map[string]any{"value": []float64{1, 2, 3}}); err != nil {
		t.Fatal(err)
	}
	n.Outputs(0, nil, node.Inputs{}, dst)
	if dst[2] != 3 {
		t.Errorf("after SetParams: %v", dst)
	}
}

// A 5 kg point mass loaded by a constant [0, −5, 0] N: a = [0, −1, 0].
func Example() {
	load, _ := constant.New(constant.Params{Value: [3]float64{0, -5, 0}, Units: "N"})
	mass, _ := masspoint.New(masspoint.Params{Mass: 5})
	g := graph.New()
	g.Add("load", load)
	g.Add("mass", mass)
	g.Connect("load.value", "mass.force")
	s, _ := g.Build()
	s.Run(context.Background(), graph.Settings{Dt: 0.1, Steps: 10})
	v, _ := s.Value("mass.velocity")
	fmt.Printf("velocity after 1 s: [%.3f %.3f %.3f] m/s\n", v[0], v[1], v[2])
	// Output: velocity after 1 s: [0.000 -1.000 0.000] m/s
}
