package graph_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/cosimgo/cosim/benchmarks"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/cpuclock"
)

// BenchmarkStepLayers takes a W1 co-simulation step at small N apart,
// layer by layer (benchmarks/README.md, "Small graphs"): the hand-written
// loop (HandSIE), the step's kernel calls alone, the compiled calls
// (engine.run: views bound to the buffers, checks), the engine's step
// (dispatch), and Sim.Run per step. One op is one step; allocs/op must
// be 0. Besides ns/op (wall time) it reports cpu-ns/op, the CPU time of
// the benchmark's thread (CLOCK_THREAD_CPUTIME_ID), which a shared
// machine disturbs less.
func BenchmarkStepLayers(b *testing.B) {
	for _, n := range []int{10, 100} {
		s, err := benchmarks.Mode1(n).Build()
		if err != nil {
			b.Fatal(err)
		}
		set := graph.Settings{Mode: graph.CoSimulation{Workers: 1}, Dt: benchmarks.ChainDt, Steps: 1}
		if _, err := s.Run(context.Background(), set); err != nil {
			b.Fatal(err)
		}
		kernels, calls, step := graph.StepLayers(s, benchmarks.ChainDt)
		if kernels == nil {
			b.Fatalf("N = %d: the step is not fused", n)
		}
		b.Run(fmt.Sprintf("N=%d/layer=hand", n), func(b *testing.B) {
			y := benchmarks.Mode1(n).InitialState()
			b.ReportAllocs()
			defer threadClock(b)()
			benchmarks.HandSIE(y, n, b.N, benchmarks.ChainDt)
		})
		for _, l := range []struct {
			name string
			f    func() bool
		}{{"kernels", kernels}, {"calls", calls}, {"step", step}} {
			b.Run(fmt.Sprintf("N=%d/layer=%s", n, l.name), func(b *testing.B) {
				b.ReportAllocs()
				defer threadClock(b)()
				for range b.N {
					if !l.f() {
						b.Fatal("a kernel call failed")
					}
				}
			})
		}
		b.Run(fmt.Sprintf("N=%d/layer=run", n), func(b *testing.B) {
			b.ReportAllocs()
			set.Steps = b.N
			defer threadClock(b)()
			if _, err := s.Run(context.Background(), set); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// threadClock locks the benchmark to its thread and returns the function
// that reports the thread's CPU time per op (cpuclock.Thread) as
// cpu-ns/op; where there is no per-thread CPU clock it reports nothing.
func threadClock(b *testing.B) func() {
	runtime.LockOSThread()
	b.ResetTimer()
	t0 := cpuclock.Thread()
	return func() {
		t1 := cpuclock.Thread()
		runtime.UnlockOSThread()
		if t0 >= 0 && t1 >= 0 {
			b.ReportMetric(float64((t1-t0).Nanoseconds())/float64(b.N), "cpu-ns/op")
		}
	}
}
