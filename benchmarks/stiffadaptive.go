package benchmarks

import (
	"context"
	"fmt"
	"time"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
)

// StiffAdaptiveEnd is the end time of the adaptive W4 comparison: the
// 21 ms of the fixed-step W4 runs (21 steps of StiffDt).
const StiffAdaptiveEnd = 21 * StiffDt

// StiffAdaptiveRun is one adaptive W4 run.
type StiffAdaptiveRun struct {
	N      int
	Method string
	Solver string
	T      float64          // the time reached
	Work   integrators.Work // the integrator's work (Result.Integrator.Work)
	Errors StiffErrors      // against the modal solution at T
	Build  time.Duration    // graph.Build (not part of Wall)
	Wall   time.Duration    // Sim.Run: the System, the Jacobian plan, the driver and the integration
	CPU    time.Duration    // the process's CPU time (user + system, all threads) over the same span
	State  []float64        // final state, kept only when asked
}

// RunStiffAdaptive builds W4 of n masses and integrates it from rest to
// tEnd with the adaptive driver of m (Sim.Run in the mode graph.MonolithicAdaptive)
// and the named linear solver (StiffSolver), m's other options kept.
// Wall is the whole Sim.Run call: building the System and its sparse
// Jacobian plan, the driver (pattern, band or Krylov storage) and the
// integration.
func RunStiffAdaptive(n int, m integrators.AdaptiveMethod, solver string, tEnd float64, keepState bool) (StiffAdaptiveRun, error) {
	lin, ok := StiffSolver(solver)
	if !ok {
		return StiffAdaptiveRun{}, fmt.Errorf("benchmarks: unknown W4 solver %q", solver)
	}
	nm, ok := m.(integrators.NewtonMethod)
	if !ok {
		return StiffAdaptiveRun{}, fmt.Errorf("benchmarks: %s has no linear solver to choose", m.Name())
	}
	newton, _ := nm.Solver()
	m = nm.WithSolver(newton, lin).(integrators.AdaptiveMethod)
	c := StiffChain{N: n}
	t0 := time.Now()
	s, err := c.Build()
	if err != nil {
		return StiffAdaptiveRun{}, err
	}
	r := StiffAdaptiveRun{N: n, Method: m.Name(), Solver: solver, Build: time.Since(t0)}
	t0 = time.Now()
	c0 := cpuTime()
	res, err := s.Run(context.Background(), graph.Settings{End: tEnd, Mode: graph.MonolithicAdaptive{Method: m}})
	r.CPU = cpuTime() - c0
	r.Wall = time.Since(t0)
	if err != nil {
		return r, err
	}
	r.Work = res.Integrator.Work
	r.T = s.Time()
	st := s.State(nil)
	r.Errors = c.Measure(st, r.T)
	if keepState {
		r.State = st
	}
	return r, nil
}
