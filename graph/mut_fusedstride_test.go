package graph_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/nodes/masspoint"
	src "github.com/cosimgo/cosim/nodes/source"
)

// evenOddRamps builds 2n ramp sources (one family) and two families of
// n masses: mass a_i is driven by ramp 2i, mass b_i by ramp 2i+1, so
// each mass family reads the ramps at rows 2i + c, a slope of 2: a
// block of 128 masses reads a span of 255 ramp rows.
func evenOddRamps(n int) (*graph.Sim, error) {
	g := graph.New()
	for i := range 2 * n {
		s := 0.01 * float64(i+1)
		r, err := src.NewRamp(src.RampParams{Slope: []float64{s, -s, 0.5 * s}, Offset: []float64{0, 0, 0}, Units: "N"})
		if err != nil {
			return nil, err
		}
		g.Add(fmt.Sprintf("r%d", i), r)
	}
	for _, side := range []int{0, 1} {
		for i := range n {
			m, err := masspoint.New(masspoint.Params{Mass: 1 + 0.1*float64(i), InitialPosition: [3]float64{float64(i), float64(side), 0}})
			if err != nil {
				return nil, err
			}
			name := fmt.Sprintf("%c%d", 'a'+side, i)
			g.Add(name, m)
			g.Connect(fmt.Sprintf("r%d.value", 2*i+side), name+".force")
		}
	}
	return g.Build()
}

// A consumer family that reads its producer at rows 2i + c steps fused
// like any other (graph/fused.go: dependences affine in the consumer's
// row; in window mode a window as wide as the widest span a block
// reads), and fusion changes only the order of the rows, so the masses'
// states after 20 steps must equal the per-node path's bit for bit, with
// windows on and off and 1 to 3 workers (Grain 1), without a step
// replayed per node (a kernel view past its window fails the call and
// replays the step). At n = 150 a block of 128 masses reads 255 ramp
// rows, more than a block.
func TestFusedStrideTwoBitIdentical(t *testing.T) {
	const n = 150
	run := func(batching, windows bool, workers int) []float64 {
		s, err := evenOddRamps(n)
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
		if _, err := s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Workers: workers, Grain: 1}, Dt: 0.1, Steps: 20}); err != nil {
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
