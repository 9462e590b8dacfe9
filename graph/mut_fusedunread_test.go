package graph_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/nodes/masspoint"
	src "github.com/cosimgo/cosim/nodes/source"
)

// unreadRamps builds 60 ramp sources (one family) of which only the
// first 20 drive a mass's force (one mass family): the fused plans'
// producer then has 40 rows no consumer reads, in one run longer than
// the window its consumers need (a block of 20 masses reads 20 ramp
// rows). The ramps have distinct slopes, so every mass moves its own
// way.
func unreadRamps() (*graph.Sim, error) {
	const read, all = 20, 60
	g := graph.New()
	for i := range all {
		s := 0.01 * float64(i+1)
		r, err := src.NewRamp(src.RampParams{Slope: []float64{s, -s, 0.5 * s}, Offset: []float64{0, 0, 0}, Units: "N"})
		if err != nil {
			return nil, err
		}
		g.Add(fmt.Sprintf("r%d", i), r)
	}
	for i := range read {
		m, err := masspoint.New(masspoint.Params{Mass: 1 + 0.1*float64(i), InitialPosition: [3]float64{float64(i), 0, 0}})
		if err != nil {
			return nil, err
		}
		g.Add(fmt.Sprintf("m%d", i), m)
		g.Connect(fmt.Sprintf("r%d.value", i), fmt.Sprintf("m%d.force", i))
	}
	return g.Build()
}

// Producer rows no consumer reads are still computed in a fused step
// (graph/fused.go, window mode: by the part owning them, into its
// window, in blocks no longer than the window). Fusion changes only the
// order in which rows are computed, so the masses' states after 30
// steps must equal the per-node path's bit for bit, with windows on and
// off and 1 to 3 workers splitting every step (Grain 1). A fused step
// that computed more unread rows at once than its window holds would
// give its kernel a view past the window, which fails the call and
// replays the step per node (counted by Replays, required 0).
func TestFusedUnreadProducerRows(t *testing.T) {
	fusedMatchesPerNode(t, unreadRamps, 30)
}

// fusedMatchesPerNode builds the graph build makes, checks that its step
// is fused (and windowed when asked), runs steps of 0.1 s with Grain 1
// and requires, with windows on and off and 1 to 3 workers, the per-node
// path's state bit for bit and no step replayed per node.
func fusedMatchesPerNode(t *testing.T, build func() (*graph.Sim, error), steps int) {
	t.Helper()
	run := func(batching, windows bool, workers int) []float64 {
		s, err := build()
		if err != nil {
			t.Fatal(err)
		}
		s.SetBatching(batching)
		s.SetWindows(windows)
		if batching {
			if step, _ := s.Fused(); !step {
				t.Fatal("the step is not fused")
			}
			if ws, _ := s.Windowed(); ws != windows {
				t.Fatalf("windowed step %v, want %v", ws, windows)
			}
		}
		if _, err := s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Workers: workers, Grain: 1}, Dt: 0.1, Steps: steps}); err != nil {
			t.Fatalf("batching %v, windows %v, %d workers: %v", batching, windows, workers, err)
		}
		if batching && s.Replays() != 0 {
			t.Errorf("windows %v, %d workers: %d replays", windows, workers, s.Replays())
		}
		return s.State(nil)
	}
	want := run(false, false, 1)
	for _, windows := range []bool{true, false} {
		for _, workers := range []int{1, 2, 3} {
			if i, same := kernelFirstDiff(want, run(true, windows, workers)); !same {
				t.Errorf("windows %v, %d workers: state[%d] differs from the per-node path", windows, workers, i)
			}
		}
	}
}
