package coupling_test

import (
	"context"
	"fmt"

	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// A strategy from its text form, as a command line gives it.
func ExampleParseStrategy() {
	s, err := coupling.ParseStrategy("iterative:aitken,group.pair=a+b+s,atol=1e-9,onfail=accept")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Name())
	fmt.Println(s.Groups[0].Nodes, s.Iteration.Resolved().MaxIter)
	fmt.Println(s)
	// Output:
	// iterative:aitken
	// [a b s] 50
	// iterative:aitken,group.pair=a+b+s,atol=1e-09,onfail=accept
}

// Aitken relaxation on the scalar map G(u) = −5u + 3, where plain
// iteration diverges: the second factor is the secant 1/(1−λ) = 1/6.
// The loop is bounded, as every fixed-point loop should be: an
// accelerator that diverges ends it after maxIter evaluations.
func ExampleNewAccelerator() {
	const maxIter = 50
	acc, _ := coupling.NewAccelerator(coupling.Acceleration{Accel: coupling.Aitken}, 1)
	u, g, next := []float64{0}, []float64{0}, []float64{0}
	acc.Begin()
	converged := false
	for k := 1; k <= maxIter; k++ {
		g[0] = -5*u[0] + 3
		if ok, _ := coupling.Converged(u, g, 1e-12, 0); ok {
			fmt.Printf("converged to %.6f after %d evaluations of G, ω = %.6f\n", u[0], k, acc.Stats().Omega)
			converged = true
			break
		}
		acc.Next(next, u, g)
		u, next = next, u
	}
	if !converged {
		fmt.Printf("not converged after %d evaluations of G: u = %g\n", maxIter, u[0])
	}
	acc.End()
	// Output:
	// converged to 0.500000 after 3 evaluations of G, ω = 0.166667
}

// Two point masses joined by a stiff spring-damper, iterated as one group
// with IQN-ILS: the schedule a step runs and the iteration statistics.
func Example_iterativeGroup() {
	g := graph.New()
	a, _ := masspoint.New(masspoint.Params{Mass: 100, InitialPosition: [3]float64{1, 0, 0}})
	b, _ := masspoint.New(masspoint.Params{Mass: 1})
	g.Add("a", a)
	g.Add("b", b)
	p := springdamper.DefaultParams()
	p.Stiffness = [3]float64{1e4, 1e4, 1e4}
	p.Damping = [3]float64{10, 10, 10}
	springdamper.Connect(g, "s", p, "a", [3]float64{}, "b", [3]float64{})
	sim, err := g.Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	st := coupling.Strategy{Scheme: coupling.Iterative,
		Groups:    []coupling.Group{{Name: "pair", Nodes: []string{"a", "b", "s"}}},
		Iteration: coupling.Iteration{Acceleration: coupling.Acceleration{Accel: coupling.IQNILS}}}
	set := graph.Settings{Mode: graph.CoSimulation{Coupling: &st}, Dt: 0.01, Steps: 100}
	sc, _ := sim.Schedule(&st)
	fmt.Print(sc)
	res, err := sim.Run(context.Background(), set)
	if err != nil {
		fmt.Println(err)
		return
	}
	gs := res.Coupling.Groups[0]
	fmt.Printf("%d steps, %d iterations (at most %d in a step), %d non-converged\n", gs.Steps, gs.Iterations, gs.MaxIterations, gs.NonConverged)
	// Output:
	// step t_n → t_n+dt, iterative:iqn-ils,group.pair=a+b+s
	//   1. outputs at t_n: s
	//   2. iterate: a, b, s (group pair, at most 50 iterations, first iterate constant)
	//      2.1. update at t_n → t_n+dt: a, b (from the t_n state; interface inputs held at the iterate u^k, other inputs at t_n)
	//      2.2. outputs at t_n+dt: s (from the trial state)
	//      2.3. gather: a.force, b.force (G(u^k); stop when |G(u)−u| ≤ atol + rtol·|G(u)|, else u^{k+1} by iqn-ils)
	// 100 steps, 264 iterations (at most 3 in a step), 0 non-converged
}
