package benchmarks

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
)

// TestCheckpointFromBeforeBatching restores checkpoints written by the
// per-node engine that preceded the batched one (commit 235b6d1: the W1
// chain of 8 masses after 100 steps of co-simulation and of monolithic
// RK4, dt = 1e-3) and continues them for 100 steps with the current
// engine, batched and per node. The states must equal, bit for bit, what
// the old engine computed when it continued the same run
// (testdata/chain8-continuations.json, written by it): the flat state
// layout and the checkpoint format did not change with the execution
// model.
func TestCheckpointFromBeforeBatching(t *testing.T) {
	raw, err := os.ReadFile("testdata/chain8-continuations.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden []struct {
		Mode  string
		Steps int
		Dt    float64
		Final []string
	}
	if err := json.Unmarshal(raw, &golden); err != nil {
		t.Fatal(err)
	}
	for _, g := range golden {
		for _, batched := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/batched=%v", g.Mode, batched), func(t *testing.T) {
				s, err := Mode1(8).Build()
				if err != nil {
					t.Fatal(err)
				}
				if len(s.Families()) == 0 {
					t.Fatal("the chain formed no family: the batched engine is not exercised")
				}
				s.SetBatching(batched)
				cp, err := graph.ReadCheckpoint("testdata/chain8-" + g.Mode + ".ckpt")
				if err != nil {
					t.Fatal(err)
				}
				if err := s.Restore(cp); err != nil {
					t.Fatal(err)
				}
				set := graph.Settings{Dt: g.Dt, Steps: g.Steps}
				if g.Mode == "cosim" {
					_, err = s.Run(context.Background(), set)
				} else {
					m, _ := integrators.ByName(integrators.MethodRK4)
					_, err = s.RunMonolithic(context.Background(), m, nil, set)
				}
				if err != nil {
					t.Fatal(err)
				}
				got := s.State(nil)
				if len(got) != len(g.Final) {
					t.Fatalf("state has %d values, golden %d", len(got), len(g.Final))
				}
				for i, v := range got {
					if b := fmt.Sprintf("%016x", math.Float64bits(v)); b != g.Final[i] {
						t.Fatalf("state[%d] = %v (%s), the old engine computed %s", i, v, b, g.Final[i])
					}
				}
			})
		}
	}
}
