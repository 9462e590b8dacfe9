package graph_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/numtest"
)

// CoSimulation.OnGroupStep reports every step of an iterated group: its
// step number and time, iterations and final residual, and whether it
// converged. The per-step records add up to the Run's totals, and the
// last one equals LastIterations/LastResidual.
func TestOnGroupStep(t *testing.T) {
	const dt, steps = 0.01, 20
	for _, c := range []struct {
		name string
		it   coupling.Iteration
	}{
		{"converging", coupling.Iteration{Acceleration: coupling.Acceleration{Accel: coupling.IQNILS}, MaxIter: 100}},
		{"accepted", coupling.Iteration{MaxIter: 3, OnFail: coupling.Accept, Acceleration: coupling.Acceleration{Accel: coupling.Relaxation, Omega: 0.1}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var log []graph.GroupStep
			s := strong.sim(t)
			res, err := s.Run(context.Background(), graph.Settings{
				Mode:  graph.CoSimulation{Coupling: &coupling.Strategy{Scheme: coupling.Iterative, Iteration: c.it}, OnGroupStep: func(g graph.GroupStep) { log = append(log, g) }},
				Dt:    dt,
				Steps: steps,
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(log) != steps {
				t.Fatalf("%d records, want one per step (%d)", len(log), steps)
			}
			gs := res.Coupling.Groups[0]
			var total int64
			nonConv := 0
			for k, g := range log {
				if g.Group != gs.Name || g.Step != k || !numtest.Within(g.Time, float64(k)*dt, 1e-12) {
					t.Errorf("record %d: %+v", k, g)
				}
				total += int64(g.Iterations)
				if !g.Converged {
					nonConv++
				}
			}
			last := log[len(log)-1]
			if total != gs.Iterations || nonConv != gs.NonConverged || last.Iterations != gs.LastIterations || last.Residual != gs.LastResidual {
				t.Errorf("records sum to %d iterations, %d non-converged, last %+v; stats %+v", total, nonConv, last, gs)
			}
			// The shared Stats count the same iterations (one group).
			if res.CouplingIters != total || res.Status != graph.EndReached || !strings.HasPrefix(res.Method, "iterative") {
				t.Errorf("Result: %d coupling iterations, status %v, method %q; want %d, EndReached, iterative…", res.CouplingIters, res.Status, res.Method, total)
			}
			if c.name == "accepted" && (nonConv != steps || last.Iterations != 3) {
				t.Errorf("accepted: %d non-converged records, last %+v", nonConv, last)
			}
		})
	}
}
