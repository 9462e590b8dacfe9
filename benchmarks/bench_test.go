package benchmarks

import (
	"context"
	"fmt"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/nodes"
)

// Sizes of the chain benchmarks (W1).
var benchSizes = []int{10, 100, 1000, 10000, 100000}

// sims caches one built chain per size: building 100 000 masses takes
// longer than stepping them, and the benchmark function runs several
// times with growing b.N.
var sims = map[int]*graph.Sim{}

func chainSim(b *testing.B, n int) *graph.Sim {
	if s, ok := sims[n]; ok {
		return s
	}
	s, err := Mode1(n).Build()
	if err != nil {
		b.Fatal(err)
	}
	sims[n] = s
	return s
}

func perMass(b *testing.B, n int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/mass-step")
}

// BenchmarkChain is W1 in co-simulation: one op is one semi-implicit Euler
// step of the whole chain, through the graph with 1 and 2 workers and
// hand-written over flat arrays. allocs/op must be 0.
func BenchmarkChain(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("N=%d/impl=hand", n), func(b *testing.B) {
			y := Mode1(n).InitialState()
			b.ReportAllocs()
			b.ResetTimer()
			HandSIE(y, n, b.N, ChainDt)
			perMass(b, n)
		})
		b.Run(fmt.Sprintf("N=%d/impl=fused", n), func(b *testing.B) {
			y := Mode1(n).InitialState()
			b.ReportAllocs()
			b.ResetTimer()
			HandSIEFused(y, n, b.N, ChainDt)
			perMass(b, n)
		})
		for _, w := range []int{1, 2} {
			b.Run(fmt.Sprintf("N=%d/impl=graph/workers=%d", n, w), func(b *testing.B) {
				s := chainSim(b, n)
				b.ReportAllocs()
				b.ResetTimer()
				if _, err := s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Workers: w}, Dt: ChainDt, Steps: b.N}); err != nil {
					b.Fatal(err)
				}
				perMass(b, n)
			})
		}
	}
}

// BenchmarkChainMonolithic is W1 in monolithic mode: one op is one fixed
// step of RK4 or Dormand–Prince, through the graph adapter
// (Sim.RunMonolithic) and hand-written.
func BenchmarkChainMonolithic(b *testing.B) {
	for _, method := range []string{integrators.MethodRK4, integrators.MethodDormandPrince} {
		for _, n := range benchSizes {
			b.Run(fmt.Sprintf("method=%s/N=%d/impl=hand", method, n), func(b *testing.B) {
				y0 := Mode1(n).InitialState()
				b.ReportAllocs()
				if method == integrators.MethodRK4 {
					h := NewHandRK4(n, y0)
					b.ResetTimer()
					for range b.N {
						h.Step(ChainDt)
					}
				} else {
					h := NewHandDP(n, y0)
					b.ResetTimer()
					for range b.N {
						h.Step(ChainDt)
					}
				}
				perMass(b, n)
			})
			b.Run(fmt.Sprintf("method=%s/N=%d/impl=graph", method, n), func(b *testing.B) {
				s := chainSim(b, n)
				m, err := integrators.ByName(method)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.ResetTimer()
				if _, err := s.RunMonolithic(context.Background(), m, nil, graph.Settings{Dt: ChainDt, Steps: b.N}); err != nil {
					b.Fatal(err)
				}
				perMass(b, n)
			})
		}
	}
}

// BenchmarkStepWarnings is the check every Run starts with (the step
// against the connectors' stated stable steps): one op is one
// Sim.StepWarnings of the whole W1 chain at its step, after SetState (so
// the outputs the limiters read are stale, as at a Run's start). The
// connector families answer in one kernel call (node.BatchStepBounder);
// allocs/op must be 0.
func BenchmarkStepWarnings(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			s := chainSim(b, n)
			y0 := Mode1(n).InitialState()
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				if err := s.SetState(y0, 0); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				ws, err := s.StepWarnings(ChainDt)
				if err != nil || len(ws) != 0 {
					b.Fatalf("StepWarnings(%v) = %v, %v; want none", ChainDt, ws, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/mass")
		})
	}
}

// BenchmarkCorners is W5: 100 wheel-suspension corners stepped in
// co-simulation, as 100 subsystems and as the same nodes wired flat. One
// op is one step of all of them; the two must cost the same (Build
// flattens subsystems, so the engine sees the same families) and
// allocs/op must be 0.
func BenchmarkCorners(b *testing.B) {
	const n = 100
	for _, impl := range []string{"flat", "subsystems"} {
		b.Run(fmt.Sprintf("N=%d/impl=%s", n, impl), func(b *testing.B) {
			s, err := Corners(n, impl == "subsystems")
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			if _, err := s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Workers: 1}, Dt: CornerDt, Steps: b.N}); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// BenchmarkPIDLoops is W6: 1000 PID position loops (a mass on a
// spring-damper, a step reference, a sensor lag, a PID controller and a
// saturating actuator each) stepped in co-simulation with one worker,
// with the control blocks' batch kernels and without them (the plant
// keeps its kernels in both). One op is one step of every loop;
// ns/loop-step is per loop; allocs/op must be 0.
func BenchmarkPIDLoops(b *testing.B) {
	const n = 1000
	for _, kernels := range []bool{false, true} {
		b.Run(fmt.Sprintf("N=%d/kernels=%v", n, kernels), func(b *testing.B) {
			s, err := PIDLoops(n, kernels)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			if _, err := s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Workers: 1}, Dt: LoopDt, Steps: b.N}); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/loop-step")
		})
	}
}

// BenchmarkControlKernels measures each control block type's kernel on
// its own: 1000 blocks of the type (ControlFamily: sine sources on the
// inputs, a lag reading the output) stepped with one worker with the
// blocks' kernel and without it. ns/block-step includes the sources and
// the lags, which cost the same in both; allocs/op must be 0 (after one
// untimed step, which discretizes the linear blocks).
func BenchmarkControlKernels(b *testing.B) {
	const n = 1000
	reg := nodes.Registry()
	for _, c := range ControlBlockTypes() {
		for _, kernels := range []bool{false, true} {
			b.Run(fmt.Sprintf("type=%s/kernels=%v", c.Name, kernels), func(b *testing.B) {
				s, err := ControlFamily(reg, c.Name, n, kernels)
				if err != nil {
					b.Fatal(err)
				}
				// One step first: the linear blocks discretize on the
				// first step of each length (then cached).
				if _, err := s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Workers: 1}, Dt: LoopDt, Steps: 1}); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.ResetTimer()
				if _, err := s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Workers: 1}, Dt: LoopDt, Steps: b.N}); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/block-step")
			})
		}
	}
}
