package calibrate_test

import (
	"context"
	"fmt"

	"github.com/cosimgo/cosim/calibrate"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/nodes/ball"
	"github.com/cosimgo/cosim/nodes/table"
)

// Fit a ball's elasticity (bounded to (0, 1)) and gravity to positions
// recorded through two bounces, from a start far off.
func ExampleFit() {
	build := func(e, g float64) *graph.Sim {
		p := ball.DefaultParams()
		p.InitialPosition, p.Elasticity, p.Gravity = 1, e, g
		b, _ := ball.New(p)
		tb, _ := table.New(table.DefaultParams())
		gr := graph.New()
		gr.Add("ball", b)
		gr.Add("table", tb)
		gr.Connect("table.position", "ball.table_position")
		s, _ := gr.Build()
		return s
	}
	// The "measurements": the true ball (e = 0.7, g = −9.81) every 0.05 s.
	var times []float64
	for i := 1; i <= 30; i++ {
		times = append(times, 0.05*float64(i))
	}
	rec, _ := build(0.7, -9.81).Integrate(context.Background(), 1.5, integrators.DormandPrince{RTol: 1e-12, ATol: 1e-13}, &integrators.DriverOptions{EventTol: 1e-14, Output: times})
	data := &calibrate.Data{Times: times, Columns: []string{"ball.position"}}
	for _, s := range rec.Integrator.Samples {
		data.Values = append(data.Values, []float64{s.Y[0]})
	}

	res, err := calibrate.Fit(context.Background(), &calibrate.Problem{
		Sim:  build(0.5, -8),
		Free: []calibrate.FreeParam{{Name: "ball.elasticity", Lo: 0, Hi: 1}, {Name: "ball.gravity"}},
		Data: data,
	}, nil)
	if err != nil {
		panic(err)
	}
	for _, e := range res.Params {
		fmt.Printf("%s = %.6f (identifiable: %v)\n", e.Name, e.Value, e.Identifiable)
	}
	fmt.Println("converged:", res.Converged)
	// Output:
	// ball.elasticity = 0.700000 (identifiable: true)
	// ball.gravity = -9.810000 (identifiable: true)
	// converged: true
}
