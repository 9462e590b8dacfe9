package scene_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
)

// gainLoopScene is y = u + a·y with u = 2, a = 0.5 (y = u/(1−a) = 4), and
// a loops section given by the caller.
func gainLoopScene(loops string) string {
	return `{"nodes": [
	  {"name": "ref", "type": "step", "params": {"time": 0, "initial": [2], "final": [2]}},
	  {"name": "sum", "type": "sum"},
	  {"name": "gain", "type": "gain", "params": {"gain": [0.5]}}],
	 "edges": [{"from": "ref.value", "to": "sum.in1"}, {"from": "sum.out", "to": "gain.in"}, {"from": "gain.out", "to": "sum.in2"}],
	 "run": {"dt": 0.1, "steps": 2},
	 "record": {"fields": ["sum.out"]}` + loops + `}`
}

// A scene's loop is solved by default (the recorded y is the closed form
// u/(1−a) = 4 to a few ulps: a linear loop, Newton exact), and refused
// with "loops": {"refuse": true}, the error located at the loop's edges.
func TestSceneLoops(t *testing.T) {
	reg := nodes.Registry()
	sc, err := scene.Decode(strings.NewReader(gainLoopScene(`, "loops": {"rtol": 1e-12, "max_iter": 5}`)))
	if err != nil {
		t.Fatal(err)
	}
	if got := sc.Loops.Settings(); got != (graph.LoopSettings{RelTol: 1e-12, MaxIter: 5}) {
		t.Errorf("Loops.Settings() = %+v", got)
	}
	res, err := sc.Simulate(context.Background(), reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range res.History.Rows {
		if !numtest.Within(row[0], 4, 4e-15) {
			t.Errorf("y = %.17g, want 4", row[0])
		}
	}

	sc, err = scene.Decode(strings.NewReader(gainLoopScene(`, "loops": {"refuse": true}`)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = sc.Simulate(context.Background(), reg, nil)
	if !errors.Is(err, graph.ErrAlgebraicLoop) || !strings.Contains(err.Error(), "gain, sum") {
		t.Fatalf("refused loop: %v", err)
	}

	_, err = scene.Decode(strings.NewReader(gainLoopScene(`, "loops": {"rtol": -1}`)))
	if err == nil || !strings.Contains(err.Error(), "loops.rtol") {
		t.Fatalf("negative rtol: %v", err)
	}
	_, err = scene.Decode(strings.NewReader(gainLoopScene(`, "loops": {"rtoll": 1}`)))
	if err == nil {
		t.Fatal("an unknown loops key was accepted")
	}
}
