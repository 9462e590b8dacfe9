package graph_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/cosimgo/cosim/graph"
)

// The Jacobian's assembly plan keeps per node a few words and one bit
// per mark (which nodes and output rows are needed, which inputs are
// plain copies): its memory is linear in the graph and small per state,
// which is what lets the implicit integrators run graphs of 10⁵ nodes
// and more. For 5000 one-state nodes, building the plan (the first
// JacobianPattern) allocates under 512 B a state in all: measured 180 B
// (go1.26), about 50 B of it the fixed 256 kB first chunk of column
// storage; a mark of 64 bits instead of one per node would alone be
// 3 × 512 B a state.
func TestJacobianPlanMemory(t *testing.T) {
	const n = 5000
	g := graph.New()
	for i := range n {
		g.Add(fmt.Sprintf("m%d", i), decayVector(1))
	}
	sys := buildSystem(t, g)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	rowPtr, _ := sys.JacobianPattern()
	runtime.ReadMemStats(&after)
	if len(rowPtr) != n+1 {
		t.Fatalf("pattern of %d rows, want %d", len(rowPtr)-1, n)
	}
	if perState := float64(after.TotalAlloc-before.TotalAlloc) / n; perState > 512 {
		t.Errorf("the plan allocated %.0f B a state, want at most 512", perState)
	}
}
