package source_test

import (
	"context"
	"fmt"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/source"
)

// A 2 kg mass pushed by a 4 N step at t = 1/3 s, integrated by adaptive
// Dormand–Prince: the step time is a time event, so a step ends exactly
// on it and the result is the closed form v = 2 (t − 1/3) to round-off.
func ExampleStep() {
	push, _ := source.NewStep(source.StepParams{Time: 1.0 / 3, Final: []float64{4, 0, 0}, Units: "N"})
	m, _ := masspoint.New(masspoint.Params{Mass: 2})
	g := graph.New()
	g.Add("push", push)
	g.Add("m", m)
	g.Connect("push.value", "m.force")
	s, _ := g.Build()
	s.Integrate(context.Background(), 2, integrators.DormandPrince{}, nil)
	v, _ := s.Value("m.velocity[0]")
	fmt.Printf("v(2) = %.12f m/s (closed form %.12f)\n", v[0], 2*(2-1.0/3))
	// Output: v(2) = 3.333333333333 m/s (closed form 3.333333333333)
}

// A force table with monotone cubic interpolation, held past its end: it
// never exceeds the table's peak of 10 N.
func ExampleLookup() {
	thrust, _ := source.NewLookup(source.LookupParams{
		Times:         []float64{0, 0.5, 2},
		Values:        []float64{0, 10, 0},
		Interpolation: source.InterpolationPCHIP,
		Outside:       source.OutsideHold,
		Units:         "N",
	})
	y := make([]float64, 1)
	for _, t := range []float64{0.25, 0.5, 1, 3} {
		thrust.Outputs(t, nil, nil2(), y)
		fmt.Printf("F(%v) = %.4f N\n", t, y[0])
	}
	// Output:
	// F(0.25) = 6.6667 N
	// F(0.5) = 10.0000 N
	// F(1) = 9.6296 N
	// F(3) = 0.0000 N
}

// A three-component sine, one amplitude per component and one frequency
// for all.
func ExampleSine() {
	s, _ := source.NewSine(source.SineParams{Amplitude: []float64{1, 2, 3}, Omega: []float64{2}, Units: "N"})
	fmt.Println(s.Spec().Outputs[0].Shape, s.Spec().Outputs[0].Units)
	// Output: (3,) N
}
