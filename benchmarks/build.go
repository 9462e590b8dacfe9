package benchmarks

import (
	"runtime"
	"time"

	"github.com/cosimgo/cosim/graph"
)

// BuildSizes returns the chain sizes (masses N; 2N+1 nodes, 6N edges)
// whose build cost the report measures: 1e3 to 1e6.
func BuildSizes() []int { return []int{1_000, 10_000, 100_000, 1_000_000} }

// BuildCost is the cost of building the W1 chain of N masses
// (Chain.Build: the nodes, their wiring and graph.Build).
type BuildCost struct {
	N, Nodes, Edges int
	// Wall is the elapsed time; CPU the process's user and system time
	// over the same span (every thread, the garbage collector's
	// included). On a machine shared with other work Wall grows with the
	// load and CPU does not.
	Wall, CPU time.Duration
	// LiveBytes is the live heap the built Sim holds (heap in use after a
	// collection, less the heap in use before the build); Allocs the
	// heap allocations made while building.
	LiveBytes, Allocs uint64
}

// BytesPerNode is LiveBytes per node of the graph.
func (c BuildCost) BytesPerNode() float64 { return float64(c.LiveBytes) / float64(c.Nodes) }

// AllocsPerNode is Allocs per node of the graph.
func (c BuildCost) AllocsPerNode() float64 { return float64(c.Allocs) / float64(c.Nodes) }

// MeasureBuild builds the W1 chain of n masses (Mode1(n)) and measures
// it. It collects garbage before and after, so it must not run
// concurrently with other allocating work of the process if LiveBytes is
// to mean anything. The Sim is returned so that the caller decides how
// long it lives.
func MeasureBuild(n int) (*graph.Sim, BuildCost, error) {
	c := BuildCost{N: n, Nodes: 2*n + 1, Edges: 6 * n}
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	cpu0 := cpuTime()
	t0 := time.Now()
	s, err := Mode1(n).Build()
	c.Wall = time.Since(t0)
	c.CPU = cpuTime() - cpu0
	if err != nil {
		return nil, c, err
	}
	runtime.GC()
	runtime.ReadMemStats(&m1)
	runtime.KeepAlive(s)
	if m1.HeapAlloc > m0.HeapAlloc {
		c.LiveBytes = m1.HeapAlloc - m0.HeapAlloc
	}
	c.Allocs = m1.Mallocs - m0.Mallocs
	return s, c, nil
}
