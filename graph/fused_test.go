package graph_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/cosimgo/cosim/benchmarks"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
)

// The W1 chain steps fused (graph/fused.go): connectors and masses
// interleaved block by block. Fusion changes only the order in which rows
// are computed, so every run of kernelRuns must end in the per-node
// path's bits — fused with the loads in windows, fused through engine.packed, or
// phase by phase — with 1, 2 and 3 workers (Grain 1 splits every step:
// through engine.packed the deferred boundary rows run after the barrier, in
// windows each part computes the boundary connectors it reads), at sizes
// below, at and across the engine's 128-row blocks (at N = 300 a window,
// two blocks long and a row, slides).
func TestFusedChainBitIdentical(t *testing.T) {
	for _, n := range []int{1, 2, 3, 127, 300} {
		for _, kr := range kernelRuns {
			t.Run(kr.name, func(t *testing.T) {
				advance := func(batching, fused, windows bool, workers int) []float64 {
					s, err := benchmarks.Mode1(n).Build()
					if err != nil {
						t.Fatal(err)
					}
					if step, derivs := s.Fused(); !step || !derivs {
						t.Fatalf("N = %d: fused step %v, fused derivatives %v, want both", n, step, derivs)
					}
					s.SetBatching(batching)
					s.SetWindows(windows)
					s.SetFusion(fused)
					if ws, wd := s.Windowed(); fused && (ws != windows || wd != windows) {
						t.Fatalf("N = %d: windowed %v, %v, want %v", n, ws, wd, windows)
					}
					if err := kr.run(s, workers); err != nil {
						t.Fatalf("N = %d, batching %v, fused %v, windows %v, %d workers: %v", n, batching, fused, windows, workers, err)
					}
					if batching && s.Replays() != 0 {
						t.Errorf("N = %d, fused %v, windows %v, %d workers: %d replays", n, fused, windows, workers, s.Replays())
					}
					return s.State(nil)
				}
				ref := advance(false, false, false, 1)
				for _, mode := range []struct{ fused, windows bool }{{true, true}, {true, false}, {false, false}} {
					for _, workers := range []int{1, 2, 3} {
						got := advance(true, mode.fused, mode.windows, workers)
						if i, same := kernelFirstDiff(ref, got); !same {
							t.Errorf("N = %d, fused %v, windows %v, %d workers: state[%d] = %v, per-node path %v", n, mode.fused, mode.windows, workers, i, got[i], ref[i])
						}
					}
				}
			})
		}
	}
}

// A value that overflows mid-run inside a fused step is replayed on the
// per-node path and reported as the per-node path reports it: the same
// *node.StateError (node, field, step, time), with one and two workers.
func TestFusedChainNonFinite(t *testing.T) {
	const n = 300
	run := func(batching bool, workers int) error {
		s, err := benchmarks.Mode1(n).Build()
		if err != nil {
			t.Fatal(err)
		}
		s.SetBatching(batching)
		if _, err := s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Workers: workers, Grain: 1}, Dt: benchmarks.ChainDt, Steps: 3}); err != nil {
			t.Fatal(err)
		}
		// A velocity near the largest float: the connectors' damping
		// forces overflow to ±Inf within a few steps.
		if err := s.SetValue("m150.velocity", math.MaxFloat64, 0, 0); err != nil {
			t.Fatal(err)
		}
		_, err = s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Workers: workers, Grain: 1}, Dt: benchmarks.ChainDt, Steps: 20})
		return err
	}
	want := run(false, 1)
	var se *node.StateError
	if !errors.As(want, &se) {
		t.Fatalf("per-node path: %v, want a *node.StateError", want)
	}
	for _, workers := range []int{1, 2} {
		got := run(true, workers)
		if got == nil || got.Error() != want.Error() {
			t.Errorf("batched, %d workers: %v, want %v", workers, got, want)
		}
	}
}

// A chain of equal masses and connectors is stepped from one row of
// parameters per family (masspoint and springdamper NewBatch note that
// their rows are equal); a SetParams that makes one row differ must
// reach the kernels, which then read every row's own parameters. The
// per-node path, which reads each node's own parameters, is the
// reference, bit for bit, with one and two workers.
func TestUniformParamsThenTuned(t *testing.T) {
	const n = 300
	run := func(batching bool, workers int) []float64 {
		s, err := benchmarks.Mode1(n).Build()
		if err != nil {
			t.Fatal(err)
		}
		s.SetBatching(batching)
		set := graph.Settings{Mode: graph.CoSimulation{Workers: workers, Grain: 1}, Dt: benchmarks.ChainDt, Steps: 20}
		if _, err := s.Run(context.Background(), set); err != nil {
			t.Fatal(err)
		}
		for name, p := range map[string]map[string]any{
			"m150": {"mass": 2.5},
			"s7":   {"stiffness": []float64{300, 300, 300}},
		} {
			nd, ok := s.Node(name)
			if !ok {
				t.Fatalf("no node %s", name)
			}
			if err := nd.(node.Tunable).SetParams(p); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.Run(context.Background(), set); err != nil {
			t.Fatal(err)
		}
		if batching && s.Replays() != 0 {
			t.Errorf("%d workers: %d replays", workers, s.Replays())
		}
		return s.State(nil)
	}
	want := run(false, 1)
	for _, workers := range []int{1, 2} {
		if i, same := kernelFirstDiff(want, run(true, workers)); !same {
			t.Errorf("%d workers: state[%d] differs from the per-node path", workers, i)
		}
	}
}

// More workers than GOMAXPROCS park instead of spinning, and every
// phase must still wait for every worker: thousands of fused steps with
// 8 workers (and 3) end in the bits of one worker. A lost wake-up hangs
// this test; a phase that ends before a worker's part does is a data
// race under -race and a wrong state without it.
func TestFusedManyWorkers(t *testing.T) {
	const n, steps = 300, 2000
	run := func(workers int) []float64 {
		s, err := benchmarks.Mode1(n).Build()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Workers: workers, Grain: 1}, Dt: benchmarks.ChainDt, Steps: steps}); err != nil {
			t.Fatal(err)
		}
		return s.State(nil)
	}
	want := run(1)
	for _, workers := range []int{3, 8} {
		if i, same := kernelFirstDiff(want, run(workers)); !same {
			t.Errorf("%d workers: state[%d] differs from one worker's", workers, i)
		}
	}
}
