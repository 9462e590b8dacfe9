package graph_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// fusedChains builds `chains` chains of n masses between walls whose
// connectors are added interleaved (connector j of chain 0, connector j
// of chain 1, ...) and, with reversed, from the last connector to the
// first. The masses are added chain by chain. Interleaved, the
// connectors form families of one row per chain (connector j of every
// chain) and the masses small families, each reading several producer
// families at one row each; reversed, every connector and every mass is
// a family of one row. Initial displacements differ from mass to mass
// so that every connector carries its own load.
func fusedChains(n, chains int, reversed bool) (*graph.Sim, error) {
	g := graph.New()
	name := func(ch, i int) string {
		if i < 0 || i >= n {
			return ""
		}
		return fmt.Sprintf("m%d_%d", ch, i)
	}
	for ch := range chains {
		for i := range n {
			m, err := masspoint.New(masspoint.Params{Mass: 1 + 0.5*float64(ch), InitialPosition: [3]float64{float64(i) + 0.01*math.Sin(float64(i+7*ch)), 0, 0}})
			if err != nil {
				return nil, err
			}
			g.Add(name(ch, i), m)
		}
	}
	p := springdamper.DefaultParams()
	p.Stiffness, p.Damping = [3]float64{100, 100, 100}, [3]float64{0.5, 0.5, 0.5}
	p.Offset = [3]float64{1, 0, 0}
	for jj := 0; jj <= n; jj++ {
		j := jj
		if reversed {
			j = n - jj
		}
		for ch := range chains {
			var a, b [3]float64
			if j == 0 {
				a = [3]float64{-1, 0, 0}
			}
			if j == n {
				b = [3]float64{float64(n), 0, 0}
			}
			if _, err := springdamper.Connect(g, fmt.Sprintf("c%d_%d", ch, j), p, node.BodyAt(name(ch, j-1), a), node.BodyAt(name(ch, j), b)); err != nil {
				return nil, err
			}
		}
	}
	return g.Build()
}

// A fused step computes exactly the rows the per-node path computes, in
// another order, so its results are the same bits (graph/fused.go) —
// whatever the wiring, the worker count and the window mode. The W1
// chain (TestFusedChainBitIdentical) has one connector family and one
// mass family; these chains (fusedChains) have many small families, a
// consumer family reading several producer families, and one-row
// families that a split gives wholly to one part, so that the parts'
// consumer rows read producer rows other parts own. The reference is
// the per-node path's state after the same steps, bit for bit, co-
// simulated (the update plan) and with RK4 (the derivatives plan); a
// fused schedule that reads a connector row before computing it, or
// never computes one, changes the bits (every connector's load differs).
// Grain 1 splits every step across 1 to 4 workers.
func TestFusedWiringBitIdentical(t *testing.T) {
	rk4, err := integrators.ByName(integrators.MethodRK4)
	if err != nil {
		t.Fatal(err)
	}
	for _, fx := range []struct {
		name      string
		n, chains int
		reversed  bool
	}{
		{"interleaved", 70, 2, false},
		{"interleaved short", 5, 2, false},
		{"three interleaved", 50, 3, false},
		{"reversed", 20, 1, true},
	} {
		t.Run(fx.name, func(t *testing.T) {
			advance := func(batching, fused, windows, mono bool, workers int) []float64 {
				s, err := fusedChains(fx.n, fx.chains, fx.reversed)
				if err != nil {
					t.Fatal(err)
				}
				if step, derivs := s.Fused(); !step || !derivs {
					t.Fatalf("fused step %v, fused derivatives %v, want both", step, derivs)
				}
				s.SetBatching(batching)
				s.SetWindows(windows)
				s.SetFusion(fused)
				set := graph.Settings{Mode: graph.CoSimulation{Workers: workers, Grain: 1}, Dt: 2e-3, Steps: 20}
				if mono {
					_, err = s.RunMonolithic(context.Background(), rk4, nil, set)
				} else {
					_, err = s.Run(context.Background(), set)
				}
				if err != nil {
					t.Fatalf("batching %v, fused %v, windows %v, %d workers: %v", batching, fused, windows, workers, err)
				}
				if batching && s.Replays() != 0 {
					t.Errorf("fused %v, windows %v, %d workers: %d replays", fused, windows, workers, s.Replays())
				}
				return s.State(nil)
			}
			for _, mono := range []bool{false, true} {
				ref := advance(false, false, false, mono, 1)
				for _, windows := range []bool{true, false} {
					for _, workers := range []int{1, 2, 3, 4} {
						got := advance(true, true, windows, mono, workers)
						if i, same := kernelFirstDiff(ref, got); !same {
							t.Errorf("monolithic %v, windows %v, %d workers: state[%d] = %v, per-node path %v", mono, windows, workers, i, got[i], ref[i])
						}
					}
				}
			}
		})
	}
}
