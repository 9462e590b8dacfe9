package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/nodes/source"
	"github.com/cosimgo/cosim/scene"
)

// countedSource is a source whose Outputs calls are counted: every step
// of a run and every trial step of its stability analysis evaluates it
// once per output evaluation, so its count measures the stepping work a
// command does.
type countedSource struct {
	node.Node
	calls *atomic.Int64
}

func (c countedSource) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	c.calls.Add(1)
	return c.Node.(node.Outputter).Outputs(t, x, in, dst)
}

// TestRunAnalysesOnce: `cosim run` analyses the coupling's stability once
// per run — the run's own start analysis (graph.View.Stability) gives the
// warning — so it does exactly the stepping work of one scene.Simulate of
// the same scene: Gauss–Seidel on the mass-spring chain (whose warning at
// t = 300 s TestRunUnstableCoupling checks), with a zero sine force on m1
// whose evaluations are counted. Before, cosim run compiled a second Sim
// and analysed it too, so it evaluated the sine in twice the analysis's
// trial steps (48 of them per analysis for the chain's 24 state values,
// dense). The counts are exact integers: no tolerance.
func TestRunAnalysesOnce(t *testing.T) {
	var calls atomic.Int64
	var types []node.Type
	for _, ty := range nodes.Types() {
		if ty.Name == source.SineName {
			inner := ty.New
			ty.New = func(p map[string]any) (node.Node, error) {
				n, err := inner(p)
				if err != nil {
					return nil, err
				}
				return countedSource{Node: n, calls: &calls}, nil
			}
		}
		types = append(types, ty)
	}
	reg, err := node.NewRegistry(types...)
	if err != nil {
		t.Fatal(err)
	}
	defer func(r func() *node.Registry) { runRegistry = r }(runRegistry)
	runRegistry = func() *node.Registry { return reg }

	src, err := os.ReadFile(chainScene)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(src), `"connectors": [`,
		`"edges": [{"from": "tick.value", "to": "m1.force", "transform": {"kind": "embed", "axis": 0, "len": 3}}],
  "connectors": [`, 1)
	text = strings.Replace(text, `"end": 10`, `"end": 300`, 1)
	text = strings.Replace(text, `"nodes": [`, `"nodes": [
    {"name": "tick", "type": "sine", "params": {"amplitude": 0, "units": "N"}},`, 1)
	dir := t.TempDir()
	path := filepath.Join(dir, "chain.json")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}

	sc, err := scene.LoadFile(path, reg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sc.Simulate(context.Background(), reg, &scene.Options{NoHistory: true})
	if res == nil {
		t.Fatal(err)
	}
	res.Sim.Close()
	if res.Stability == nil || !res.Stability.Unstable() {
		t.Fatalf("the scene's run is not analysed as unstable: %+v", res.Stability)
	}
	want := calls.Swap(0)

	code, _, errs := cosim(t, "run", path, "-q", "-o", filepath.Join(dir, "t.csv"))
	if code != 1 || strings.Count(errs, "cosim: warning: coupling gauss-seidel is unstable") != 1 {
		t.Errorf("cosim run: exit %d (want 1, the growth error), want the warning once: %s", code, errs)
	}
	if got := calls.Load(); got != want {
		t.Errorf("cosim run evaluated the source %d times, one Simulate of the scene %d: the run did work twice (a second stability analysis)", got, want)
	}
}
