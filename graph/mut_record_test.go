package graph_test

import (
	"context"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
)

// decayVector is a node of one vector state p ∈ ℝⁿ with p' = −p, starting
// at (1, 2, …, n).
func decayVector(n int) *lambdaNode {
	x0 := make([]float64, n)
	for i := range x0 {
		x0[i] = float64(i + 1)
	}
	return &lambdaNode{
		spec: node.NewSpec(node.Spec{Type: "decayvec", State: []node.Field{{Name: "p", Shape: node.Vec(n), Units: "1"}}}),
		x0:   x0,
		f: func(x []float64, _ node.Inputs, dst []float64) {
			for i, v := range x {
				dst[i] = -v
			}
		},
	}
}

// decayVectorSim builds a graph of decayVector(n) named m.
func decayVectorSim(t *testing.T, n int) *graph.Sim {
	t.Helper()
	g := graph.New()
	g.Add("m", decayVector(n))
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Settings.RecordLimit bounds the memory of a recording kept in memory,
// as documented with recordBytes: per row, the peak is
// (1 + GOGC/100)·(8·width + 1.25·32) + 32 bytes, plus 8·width bytes a row
// for the last storage chunk (rows ≤ 65536 here). With GOGC unset and a
// recorded 2-vector (width 2), 1000 rows need 1000·(2·56 + 32 + 16) =
// 160 000 bytes: a limit of exactly that is met (a recording is refused
// only when it would exceed the limit), one byte less is refused with the
// figure, 160 000 B = 156.2 KiB. The recorded vector's columns are its
// components, "m.p[0]" and "m.p[1]".
func TestRecordLimitExact(t *testing.T) {
	t.Setenv("GOGC", "")
	const need = 1000 * (2*(8*2+40) + 32 + 8*2)
	set := graph.Settings{Dt: 0.01, Steps: 999, Record: []string{"m.p"}, Mode: graph.CoSimulation{Workers: 1}}
	set.RecordLimit = need
	res, err := decayVectorSim(t, 2).Run(context.Background(), set)
	if err != nil {
		t.Fatalf("RecordLimit = %d, the recording's own need: %v", need, err)
	}
	if h := res.History; !slices.Equal(h.Columns, []string{"m.p[0]", "m.p[1]"}) || len(h.Rows) != 1000 {
		t.Errorf("columns %q, %d rows; want [m.p[0] m.p[1]], 1000 rows", h.Columns, len(h.Rows))
	}
	set.RecordLimit = need - 1
	_, err = decayVectorSim(t, 2).Run(context.Background(), set)
	if err == nil || !strings.Contains(err.Error(), "recording 1000 rows of 3 values would need 156.2 KiB of memory") {
		t.Errorf("RecordLimit = %d: %v; want a refusal needing 156.2 KiB", need-1, err)
	}
}

// An output is recorded from the outputs at each recorded state, which a
// co-simulation step leaves stale: every row is there, and holds
// y = q² + q of the explicit Euler states q_n = 0.4·(1 − dt)ⁿ (the node
// steps q' = −q by Euler). Tolerance: a few roundings of values below 1.
func TestRecordOutputEveryRow(t *testing.T) {
	g := graph.New()
	g.Add("osc", squareOutputOsc())
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	const dt = 0.125
	res, err := s.Run(context.Background(), graph.Settings{Dt: dt, Steps: 3, Record: []string{"osc.y"}, Mode: graph.CoSimulation{Workers: 1}})
	if err != nil {
		t.Fatal(err)
	}
	y := res.History.Column("osc.y")
	if len(y) != 4 || len(res.History.Times) != 4 {
		t.Fatalf("osc.y recorded %v at %v; want 4 rows", y, res.History.Times)
	}
	for n, got := range y {
		q := 0.4 * math.Pow(1-dt, float64(n))
		if want := q*q + q; math.Abs(got-want) > 1e-15 {
			t.Errorf("row %d: y = %v, want %v", n, got, want)
		}
	}
}

// recordRunAllocs returns the heap allocations (count and bytes) of a Run of
// steps steps recording every state of a decayVector(width).
func recordRunAllocs(t *testing.T, width, steps int) (mallocs, bytes uint64) {
	t.Helper()
	s := decayVectorSim(t, width)
	set := graph.Settings{Dt: 1e-3, Steps: steps, Record: []string{"m.p"}, Mode: graph.CoSimulation{Workers: 1}, RecordLimit: 1 << 40}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := s.Run(context.Background(), set)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.History.Rows) != steps+1 {
		t.Fatalf("%d rows, want %d", len(res.History.Rows), steps+1)
	}
	return after.Mallocs - before.Mallocs, after.TotalAlloc - before.TotalAlloc
}

// A recording stores its rows in chunks that double from 64 rows, so a
// step allocates only when a chunk fills (the per-step path allocates
// nothing otherwise) and a short run takes little memory. Recording 8000
// more rows of 4 values thus costs a few dozen more allocations — the
// chunks, and the History's Times and Rows growing geometrically — not
// one every few rows (bound 400, a twentieth of the rows). And the run
// allocates under 2 MiB in all: the values are 8001·32 B = 256 kB, which
// doubling chunks at most double, and Times and Rows (32 B a row) with
// the arrays their growth leaves behind a few times that (measured: 1.5
// MB in all, go1.26); one chunk of the largest size, 65536 rows of 32 B,
// would alone be 2 MiB.
func TestRecordChunksGrowGeometrically(t *testing.T) {
	const width = 4
	m0, _ := recordRunAllocs(t, width, 80)
	m1, b1 := recordRunAllocs(t, width, 8000)
	if int64(m1)-int64(m0) > 400 {
		t.Errorf("8000 recorded steps: %d allocations, 80 steps: %d; want at most 400 more", m1, m0)
	}
	if b1 > 2<<20 {
		t.Errorf("8000 recorded steps allocated %d bytes, want under 2 MiB", b1)
	}
}
