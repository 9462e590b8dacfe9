package scene_test

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
)

// ballScene is the bouncing ball (h0 = 10 m, e = 0.9) to 3 s, recording
// every 0.5 s, in the mode %s.
const ballScene = `{"nodes": [{"name": "ball", "type": "ball", "params": {"initial_position": 10, "elasticity": 0.9}}, {"name": "table", "type": "table"}],
 "edges": [{"from": "table.position", "to": "ball.table_position"}],
 "run": {"dt": 0.001, "end": 3 %s},
 "record": {"fields": ["ball.position", "ball.velocity"], "every": 500}}`

var sceneModes = []struct {
	name, run string
	mode      graph.Mode
	method    string
}{
	{"co-simulation", ``, graph.CoSimulation{}, "jacobi"},
	{"gauss-seidel", `, "coupling": {"scheme": "gauss-seidel"}`, graph.CoSimulation{}, "gauss-seidel"},
	{"monolithic rk4", `, "mode": "monolithic", "integrator": {"method": "rk4"}`, graph.Monolithic{}, "rk4"},
	{"adaptive", `, "mode": "monolithic", "integrator": {"method": "dormand-prince", "adaptive": true, "rtol": 1e-10, "atol": 1e-12}`, graph.MonolithicAdaptive{}, "dormand-prince"},
	{"adaptive bdf", `, "mode": "monolithic", "integrator": {"method": "bdf", "adaptive": true, "rtol": 1e-8, "atol": 1e-10}`, graph.MonolithicAdaptive{}, "bdf"},
	{"adaptive esdirk43", `, "mode": "monolithic", "integrator": {"method": "esdirk43", "adaptive": true, "rtol": 1e-8, "atol": 1e-10, "linear_solver": "gmres"}`, graph.MonolithicAdaptive{}, "esdirk43"},
}

// Simulate runs every mode the way the graph runs the scene's own
// settings: its Result is the graph.Result of one Sim.Run of
// Scene.Settings on the compiled scene — the same Stats (but the wall
// time), Status, Mode, Method, History and mode-specific parts — with
// nothing re-derived beside it, and its Sim holds that run's end state.
func TestSimulateIsOneRun(t *testing.T) {
	reg := nodes.Registry()
	for _, m := range sceneModes {
		t.Run(m.name, func(t *testing.T) {
			sc, err := scene.Decode(strings.NewReader(strings.Replace(ballScene, "%s", m.run, 1)))
			if err != nil {
				t.Fatal(err)
			}
			got, err := sc.Simulate(context.Background(), reg, nil)
			if err != nil {
				t.Fatal(err)
			}
			sim, err := sc.Compile(reg, nil)
			if err != nil {
				t.Fatal(err)
			}
			want, err := sim.Run(context.Background(), sc.Settings())
			if err != nil {
				t.Fatal(err)
			}
			g, w := *got.Result, *want
			g.Wall, w.Wall = 0, 0
			if !reflect.DeepEqual(g, w) {
				t.Errorf("Simulate %+v %+v\n     Run %+v %+v", g, g.Integrator, w, w.Integrator)
			}
			if got.Mode.String() != m.mode.String() || got.Method != m.method || got.Status != graph.EndReached || !numtest.Within(got.Time, 3, 1e-12) {
				t.Errorf("mode %v, method %q, status %v, t = %v; want %v, %q, EndReached, 3", got.Mode, got.Method, got.Status, got.Time, m.mode, m.method)
			}
			if !reflect.DeepEqual(got.Sim.State(nil), sim.State(nil)) || got.Sim.Time() != got.Time {
				t.Errorf("end states differ")
			}
			if len(got.History.Times) != 7 {
				t.Errorf("%d rows, want 7 (every 0.5 s from 0 to 3)", len(got.History.Times))
			}
		})
	}
}

// Every mode streams its rows (Options.RecordTo), the adaptive one as it
// samples its dense output: the stream is the History's CSV.
func TestSimulateStreamsEveryMode(t *testing.T) {
	reg := nodes.Registry()
	for _, m := range sceneModes {
		sc, err := scene.Decode(strings.NewReader(strings.Replace(ballScene, "%s", m.run, 1)))
		if err != nil {
			t.Fatal(err)
		}
		var stream bytes.Buffer
		res, err := sc.Simulate(context.Background(), reg, &scene.Options{RecordTo: &stream})
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := res.History.WriteCSV(&want); err != nil {
			t.Fatal(err)
		}
		if stream.String() != want.String() || len(res.History.Times) != 7 {
			t.Errorf("%s: streamed\n%s\nhistory\n%s", m.name, stream.String(), want.String())
		}
	}
}
