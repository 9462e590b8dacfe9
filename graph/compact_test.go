package graph_test

import (
	"context"
	"math"
	"testing"

	"github.com/cosimgo/cosim/benchmarks"
	"github.com/cosimgo/cosim/graph"
)

// On the W1 chain the connectors' loads, read only by the masses' family,
// move to the compact columns (engine.packed), every other output stays in Sim.outputs.
// Recording outputs (read from Sim.outputs on the per-node path) between
// batched steps, and the steps themselves, give the per-node bits.
func TestCompactOutputs(t *testing.T) {
	const n = 9
	build := func() *graph.Sim {
		s, err := benchmarks.Mode1(n).Build()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := build()
	// s0 and s9 push one mass each (3 values), s1..s8 two (6 values).
	if got, want := s.CompactLen(), 2*3+(n-1)*6; got != want {
		t.Fatalf("compact columns hold %d values, want %d (the connectors' loads)", got, want)
	}
	rec := []string{"s3.m0_force", "s3.m1_force", "s0.Force", "m4.position"}
	run := func(batched bool) *graph.History {
		s := build()
		s.SetBatching(batched)
		res, err := s.Run(context.Background(), graph.Settings{Dt: benchmarks.ChainDt, Steps: 30, RecordEvery: 4, Record: rec})
		if err != nil {
			t.Fatal(err)
		}
		if res.Replays != 0 {
			t.Fatalf("batched=%v: %d replays", batched, res.Replays)
		}
		return res.History
	}
	want, got := run(false), run(true)
	for r := range want.Rows {
		for c := range want.Rows[r] {
			if math.Float64bits(got.Rows[r][c]) != math.Float64bits(want.Rows[r][c]) {
				t.Fatalf("row %d, %s: batched %v, per node %v", r, want.Columns[c], got.Rows[r][c], want.Rows[r][c])
			}
		}
	}
}
