package scene_test

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
)

// Every example scene gives the same bits whatever the worker count:
// co-simulation scenes run with 1, 2 and 8 workers and Grain 1, so every
// phase really is split across goroutines; monolithic scenes (sequential
// by construction) run twice.
func TestExamplesDeterministic(t *testing.T) {
	files, _ := filepath.Glob("../examples/scenes/*.json")
	reg := nodes.Registry()
	for _, f := range files {
		sc := load(t, f)
		if sc.Run.Monolithic() {
			a, err := sc.Simulate(context.Background(), reg, &scene.Options{NoHistory: true})
			if err != nil {
				t.Fatal(err)
			}
			b, _ := sc.Simulate(context.Background(), reg, &scene.Options{NoHistory: true})
			same(t, f, "rerun", a.Sim.State(nil), b.Sim.State(nil))
			continue
		}
		var ref []float64
		for _, w := range []int{1, 2, 8} {
			sim, err := sc.Compile(reg, nil)
			if err != nil {
				t.Fatal(err)
			}
			set := sc.Settings()
			co := set.Mode.(graph.CoSimulation)
			co.Workers, co.Grain = w, 1
			set.Mode, set.Record = co, nil
			if _, err := sim.Run(context.Background(), set); err != nil {
				t.Fatalf("%s, %d workers: %v", f, w, err)
			}
			got := sim.State(nil)
			if ref == nil {
				ref = got
				continue
			}
			same(t, f, "workers", ref, got)
		}
	}
}

func same(t *testing.T, f, what string, a, b []float64) {
	t.Helper()
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			t.Fatalf("%s (%s): state[%d] = %v vs %v", filepath.Base(f), what, i, a[i], b[i])
		}
	}
}
