package export

import (
	"context"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/fmi"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
)

// TestDoStepPathsMatchTheRun: whichever path DoStep takes — the graph
// advanced in place (the default co-simulation mode, with one worker or
// two) or one graph Run per call (a coupling strategy, a fixed-step
// monolithic method) — an instance stepped by one scene step, then by
// three, then by one, gives the oscillator's position bit for bit as the
// scene's own run over the same steps (the reference: the scene compiled
// and run by graph.Sim.Run, as `cosim run` does). The in-place path is
// taken exactly in the default mode.
func TestDoStepPathsMatchTheRun(t *testing.T) {
	raw, err := os.ReadFile("testdata/oscillator.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, run string
		inPlace   bool
	}{
		{"jacobi", `"run": {"dt": 0.001, "end": 0.5, "workers": 1}`, true},
		{"jacobi-2-workers", `"run": {"dt": 0.001, "end": 0.5, "workers": 2}`, true},
		{"gauss-seidel", `"run": {"dt": 0.001, "end": 0.5, "coupling": {"scheme": "gauss-seidel"}}`, false},
		{"monolithic-rk4", `"run": {"mode": "monolithic", "dt": 0.001, "end": 0.5, "integrator": {"method": "rk4"}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := strings.Replace(string(raw), `"run": {"dt": 0.001, "end": 0.5}`, tc.run, 1)
			if data == string(raw) {
				t.Fatal("the oscillator scene's run block changed: update the test")
			}
			// The reference: the scene's own run, step counts 1, 3, 1.
			sc, err := scene.Decode(strings.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			sim, err := sc.Compile(nodes.Registry(), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer sim.Close()
			set := sc.Settings()
			var want [][]float64
			for _, n := range []int{1, 3, 1} {
				set.Steps, set.End = n, 0
				if _, err := sim.Run(context.Background(), set); err != nil {
					t.Fatal(err)
				}
				x, _ := sim.Value("mass.position")
				want = append(want, x)
			}

			var logs []string
			in := newTestInstance(t, data, &logs)
			if in.EnterInitializationMode(false, 0, 0, false, 0) != fmi.StatusOK || in.ExitInitializationMode() != fmi.StatusOK {
				t.Fatalf("initialization: %v", logs)
			}
			if in.inPlace != tc.inPlace {
				t.Errorf("in place = %v, want %v", in.inPlace, tc.inPlace)
			}
			now := 0.0
			out := make([]uint64, 3)
			for k, n := range []int{1, 3, 1} {
				s, last := in.DoStep(now, float64(n)*1e-3)
				if s != fmi.StatusOK {
					t.Fatalf("DoStep %d: %v %v", k, s, logs)
				}
				now = last
				if in.Get(TypeFloat64, []uint32{4}, out) != fmi.StatusOK {
					t.Fatalf("Get: %v", logs)
				}
				for j, w := range out {
					if got := math.Float64frombits(w); math.Float64bits(got) != math.Float64bits(want[k][j]) {
						t.Errorf("after DoStep %d: x[%d] = %v, the scene's run gives %v", k, j, got, want[k][j])
					}
				}
			}
		})
	}
}

// TestSteppable: DoStep advances the graph in place exactly where a Run
// would take the same steps on one goroutine: the default co-simulation
// (explicit Jacobi, the Build's loop settings) with one worker, or with
// fewer nodes than the grain at which Run shares a phase among workers;
// a large graph with several workers, a coupling strategy, loop settings
// or a monolithic mode runs the graph per DoStep.
func TestSteppable(t *testing.T) {
	jacobi := graph.Settings{Dt: 1}
	for _, c := range []struct {
		name  string
		set   graph.Settings
		nodes int
		want  bool
	}{
		{"default, small", jacobi, 10, true},
		{"default, large, one worker", graph.Settings{Mode: graph.CoSimulation{Workers: 1}}, 10 * graph.DefaultGrain, true},
		{"default, large, two workers", graph.Settings{Mode: graph.CoSimulation{Workers: 2}}, graph.DefaultGrain, false},
		{"pointer, small, grain 4", graph.Settings{Mode: &graph.CoSimulation{Workers: 2, Grain: 4}}, 3, true},
		{"pointer, grain 4", graph.Settings{Mode: &graph.CoSimulation{Workers: 2, Grain: 4}}, 4, false},
		{"gauss-seidel", graph.Settings{Mode: graph.CoSimulation{Workers: 1, Coupling: &coupling.Strategy{Scheme: coupling.GaussSeidel}}}, 10, false},
		{"loop settings", graph.Settings{Loops: &graph.LoopSettings{}}, 10, false},
		{"monolithic", graph.Settings{Mode: graph.Monolithic{Method: integrators.RK4{}}}, 10, false},
		{"adaptive", graph.Settings{Mode: graph.MonolithicAdaptive{}}, 10, false},
	} {
		if got := steppable(c.set, c.nodes); got != c.want {
			t.Errorf("%s: steppable = %v, want %v", c.name, got, c.want)
		}
	}
}
