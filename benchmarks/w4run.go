package benchmarks

import (
	"context"
	"fmt"
	"time"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/internal/cpuclock"
)

// W4Run is one W4 configuration's measurement, made by RunW4 in a
// process of its own (the command benchmarks/report/w4child) and read
// by the report as JSON. The C peers print the same fields (w4.h).
type W4Run struct {
	N        int              `json:"n"`
	Method   string           `json:"method"`
	Solver   string           `json:"solver"`
	Steps    int              `json:"steps"`
	Build    time.Duration    `json:"build"`
	First    time.Duration    `json:"first_step"`
	Later    time.Duration    `json:"later_steps"` // total of steps 2..Steps
	LaterCPU time.Duration    `json:"later_cpu"`   // process CPU time (user + system, all threads) of steps 2..Steps
	Stats    integrators.Work `json:"stats"`
	Err      W4Errors         `json:"errors"`
	State    []float64        `json:"state,omitempty"` // N ≤ 100 only
	Failed   string           `json:"failed,omitempty"`
}

// W4Errors are a W4 run's errors against the damped modal solution
// (StiffChain.Measure).
type W4Errors struct {
	State, Motion float64
}

// RunW4 builds W4 on n masses and takes steps steps of StiffDt
// monolithically with the implicit method and linear solver named (the
// names of integrators.ByName and StiffSolver): the first step alone
// (Jacobian plan, first assembly, preconditioner), then the others. An
// error of the run is recorded in Failed; unknown names are an error.
func RunW4(n int, method, solver string, steps int) (W4Run, error) {
	m, err := integrators.ByName(method)
	if err != nil {
		return W4Run{}, err
	}
	nm, ok := m.(integrators.NewtonMethod)
	if !ok {
		return W4Run{}, fmt.Errorf("W4: %s is not an implicit method", method)
	}
	set, ok := StiffSolver(solver)
	if !ok {
		return W4Run{}, fmt.Errorf("W4: unknown linear solver %q", solver)
	}
	newton, _ := nm.Solver()
	m = nm.WithSolver(newton, set)
	res := W4Run{N: n, Method: m.Name(), Solver: solver, Steps: steps}
	c := StiffChain{N: n}
	t0 := time.Now()
	s, err := c.Build()
	if err != nil {
		return W4Run{}, err
	}
	res.Build = time.Since(t0)
	run := func(k int) (*graph.Result, error) {
		return s.RunMonolithic(context.Background(), m, nil, graph.Settings{Dt: StiffDt, Steps: k})
	}
	r1, err := run(1)
	if err == nil {
		res.First = r1.Wall
		var r2 *graph.Result
		c0 := cpuclock.Process()
		r2, err = run(steps - 1)
		res.LaterCPU = cpuclock.Process() - c0
		if r2 != nil {
			res.Later = r2.Wall
			res.Stats = r2.Integrator.Work
		}
	}
	if err != nil {
		res.Failed = err.Error()
	}
	st := s.State(nil)
	e := c.Measure(st, s.Time())
	res.Err = W4Errors{State: e.State, Motion: e.Motion}
	if n <= 100 {
		res.State = st
	}
	return res, nil
}
