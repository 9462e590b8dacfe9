//go:build linux

package graph_test

import (
	"context"
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/cosimgo/cosim/benchmarks"
	"github.com/cosimgo/cosim/graph"
)

// BenchmarkStepLayers takes a W1 co-simulation step at small N apart,
// layer by layer (benchmarks/README.md, "Small graphs"): the hand-written
// loop (HandSIE), the step's kernel calls alone, the compiled calls
// (engine.run: state views patched, checks), the engine's step
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
// that reports the thread's CPU time per op as cpu-ns/op.
func threadClock(b *testing.B) func() {
	runtime.LockOSThread()
	b.ResetTimer()
	t0 := threadCPU()
	return func() {
		d := threadCPU() - t0
		runtime.UnlockOSThread()
		b.ReportMetric(float64(d.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// threadCPU is the CPU time of the calling thread.
func threadCPU() time.Duration {
	var ts syscall.Timespec
	const clockThreadCPUTimeID = 3
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0
	}
	return time.Duration(ts.Nano())
}
