package node_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/constant"
	"github.com/cosimgo/cosim/nodes/masspoint"
)

// A value that stops being finite during a run is an error that wraps
// node.ErrNonFinite, whoever finds it: test that one sentinel. When the
// integrator of a monolithic run is the one that finds it (in its own
// arithmetic, from finite derivatives), the error wraps
// integrators.ErrNonFinite as well: the integrators' own sentinel, for a
// System that knows no nodes (package integrators imports nothing of
// cosim), which a graph's error always accompanies with node's.
func ExampleErrNonFinite() {
	// A mass under a constant force f: its acceleration is f/m.
	sim := func(m, f float64) *graph.Sim {
		g := graph.New()
		mp, _ := masspoint.New(masspoint.Params{Mass: m})
		c, _ := constant.New(constant.Params{Value: [3]float64{f, 0, 0}, Units: "N"})
		g.Add("m", mp)
		g.Add("f", c)
		g.Connect("f.value", "m.force")
		s, err := g.Build()
		if err != nil {
			panic(err)
		}
		return s
	}
	rk4, _ := integrators.ByName(integrators.MethodRK4)
	report := func(what string, err error) {
		fmt.Printf("%s: node.ErrNonFinite %v, integrators.ErrNonFinite %v\n", what, errors.Is(err, node.ErrNonFinite), errors.Is(err, integrators.ErrNonFinite))
	}

	// The acceleration 1e300/1e-300 overflows: the node's value is
	// not finite, which the graph finds.
	_, err := sim(1e-300, 1e300).Run(context.Background(), graph.Settings{Dt: 1e-3, Steps: 10})
	report("co-simulation", err)
	_, err = sim(1e-300, 1e300).RunMonolithic(context.Background(), rk4, nil, graph.Settings{Dt: 1e-3, Steps: 10})
	report("monolithic, found by the graph", err)

	// An acceleration of 1.7e308 is finite, but RK4's weighted sum of
	// its stages (k₁ + 2k₂ + 2k₃ + k₄) overflows: the integrator finds it.
	_, err = sim(1, 1.7e308).RunMonolithic(context.Background(), rk4, nil, graph.Settings{Dt: 1e-3, Steps: 10})
	report("monolithic, found by the integrator", err)
	// Output:
	// co-simulation: node.ErrNonFinite true, integrators.ErrNonFinite false
	// monolithic, found by the graph: node.ErrNonFinite true, integrators.ErrNonFinite false
	// monolithic, found by the integrator: node.ErrNonFinite true, integrators.ErrNonFinite true
}
