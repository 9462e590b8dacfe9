package graph_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
)

// A checkpoint taken by an Observer in the middle of a coupled Run (what
// `cosim run --checkpoint-every` writes) holds the coupling memory of that
// step: restored into a fresh graph and continued, it gives the bits of
// the uninterrupted run, for every strategy (the reference is the one Run
// of n+m steps; without the memory IQN-ILS with reuse, Aitken and the
// linear predictor give other bits, as TestCouplingCheckpointBitIdentical
// shows).
func TestMidRunCouplingCheckpoint(t *testing.T) {
	const n, m = 23, 17
	ctx := context.Background()
	for name, st := range checkpointStrategies() {
		t.Run(name, func(t *testing.T) {
			set := func(steps int) graph.Settings {
				return graph.Settings{Mode: graph.CoSimulation{Coupling: st, Workers: 2, Grain: 1}, Dt: checkpointDt(st), Steps: steps}
			}
			ref := strong.sim(t)
			var c *graph.Checkpoint
			s := set(n + m)
			s.Observer = graph.ObserverFunc(func(v *graph.View) error {
				if v.Phase == graph.ObserveStep && v.Step == n {
					c = ref.Checkpoint()
				}
				return nil
			})
			if _, err := ref.Run(ctx, s); err != nil {
				t.Fatal(err)
			}
			want := ref.State(nil)
			if c == nil {
				t.Fatal("the observer saw no step n")
			}
			if c.Coupling == nil || c.Coupling.Strategy != st.String() {
				t.Fatalf("mid-run checkpoint coupling %+v, want the strategy %q", c.Coupling, st.String())
			}
			if st.Scheme == coupling.Iterative && (len(c.Coupling.Groups) != 1 || c.Coupling.Groups[0].Prev == nil) {
				t.Fatalf("mid-run checkpoint groups %+v, want one with the predictor's history", c.Coupling.Groups)
			}
			var buf bytes.Buffer
			if err := c.Encode(&buf); err != nil {
				t.Fatal(err)
			}
			c2, err := graph.DecodeCheckpoint(&buf)
			if err != nil {
				t.Fatal(err)
			}
			fresh := strong.sim(t)
			if err := fresh.Restore(c2); err != nil {
				t.Fatal(err)
			}
			if _, err := fresh.Run(ctx, set(m)); err != nil {
				t.Fatal(err)
			}
			sameBits(t, "restored from the mid-run checkpoint", want, fresh.State(nil))
		})
	}
}

// The same for a monolithic run: a checkpoint an Observer takes at step
// 70 of a 120-step RunMonolithic holds the integrator's memory, and the
// run restored from it and continued for 50 steps has the bits of the
// uninterrupted one, for every method (with memory and without).
func TestMidRunMonolithicCheckpoint(t *testing.T) {
	ctx := context.Background()
	for _, m := range integrators.Methods() {
		t.Run(m.Name(), func(t *testing.T) {
			ref, _ := chain(8).Build()
			var c *graph.Checkpoint
			set := graph.Settings{Dt: 1e-3, Steps: 120, Observer: graph.ObserverFunc(func(v *graph.View) error {
				if v.Phase == graph.ObserveStep && v.Step == 70 {
					c = ref.Checkpoint()
				}
				return nil
			})}
			if _, err := ref.RunMonolithic(ctx, m, nil, set); err != nil {
				t.Fatal(err)
			}
			if c == nil || c.Integrator == nil {
				t.Fatalf("mid-run checkpoint %v without the integrator's memory", c)
			}
			fresh, _ := chain(8).Build()
			if err := fresh.Restore(c); err != nil {
				t.Fatal(err)
			}
			if _, err := fresh.RunMonolithic(ctx, m, nil, graph.Settings{Dt: 1e-3, Steps: 50}); err != nil {
				t.Fatal(err)
			}
			sameBits(t, m.Name(), ref.State(nil), fresh.State(nil))
		})
	}
}

// An adaptive run checkpointed by an Observer after an accepted step and
// continued to the same end gives the bits of the uninterrupted run, and
// the continued run's samples stay on the uninterrupted run's grid (t0 +
// k·Every·Dt), ending with the state at the end time.
func TestMidRunAdaptiveCheckpoint(t *testing.T) {
	ctx := context.Background()
	const end = 0.5
	for _, m := range []integrators.AdaptiveMethod{integrators.DormandPrince{RTol: 1e-8, ATol: 1e-10}, integrators.BDF{RTol: 1e-6, ATol: 1e-8}} {
		t.Run(m.Name(), func(t *testing.T) {
			ref, _ := chain(4).Build()
			var c *graph.Checkpoint
			set := graph.Settings{Mode: graph.MonolithicAdaptive{Method: m}, Dt: 1e-2, End: end, Record: []string{"m1.x"}, Observer: graph.ObserverFunc(func(v *graph.View) error {
				if v.Phase == graph.ObserveStep && v.Step == 7 {
					c = ref.Checkpoint()
				}
				return nil
			})}
			want, err := ref.Run(ctx, set)
			if err != nil {
				t.Fatal(err)
			}
			if c == nil || c.Integrator == nil {
				t.Fatalf("mid-run checkpoint %v without the integrator's memory", c)
			}
			fresh, _ := chain(4).Build()
			if err := fresh.Restore(c); err != nil {
				t.Fatal(err)
			}
			set.Observer = nil
			got, err := fresh.Run(ctx, set)
			if err != nil {
				t.Fatal(err)
			}
			sameBits(t, m.Name(), ref.State(nil), fresh.State(nil))
			if len(got.History.Times) == 0 {
				t.Fatal("the continued run recorded nothing")
			}
			last := got.History.Times[len(got.History.Times)-1]
			if last != end {
				t.Errorf("continued history ends at t = %v, want the end time %v", last, end)
			}
			// Every continued sample after the first (the state restored,
			// at the step time the checkpoint was taken) is a sample of the
			// uninterrupted run, at the same time with the same bits.
			at := map[float64][]float64{}
			for i, tt := range want.History.Times {
				at[tt] = want.History.Rows[i]
			}
			if got.History.Times[0] != c.Time() {
				t.Errorf("continued history starts at t = %v, want the checkpoint's time %v", got.History.Times[0], c.Time())
			}
			for i, tt := range got.History.Times[1:] {
				i++
				w, ok := at[tt]
				if !ok {
					t.Errorf("continued sample at t = %v is off the uninterrupted run's grid", tt)
					continue
				}
				sameBits(t, "sample", w, got.History.Rows[i])
			}
		})
	}
}

// A checkpoint is continued only by a run of the same mode and strategy
// or method: resuming a monolithic RK4 run's checkpoint as an IQN-ILS
// co-simulation, a co-simulation's as a monolithic run, or a Jacobi
// run's under Gauss–Seidel is refused, naming both, and changes nothing;
// Sim.ResetCoupling or ResetIntegrator lets it start afresh; a checkpoint
// without the record (older files) continues under any run.
func TestResumeInAnotherMode(t *testing.T) {
	ctx := context.Background()
	iqn := checkpointStrategies()["iqn-ils reuse"]
	gs := checkpointStrategies()["gauss-seidel"]
	rk4 := graph.Settings{Mode: graph.Monolithic{Method: integrators.RK4{}}, Dt: 1e-3, Steps: 5}
	jacobi := graph.Settings{Dt: 1e-3, Steps: 5}
	withIQN := graph.Settings{Mode: graph.CoSimulation{Coupling: iqn}, Dt: 1e-3, Steps: 5}
	withGS := graph.Settings{Mode: graph.CoSimulation{Coupling: gs}, Dt: 1e-3, Steps: 5}
	adaptive := graph.Settings{Mode: graph.MonolithicAdaptive{}, Dt: 1e-3, End: 0.02}
	for _, c := range []struct {
		name        string
		first, then graph.Settings
		want        string
	}{
		{"rk4 into iqn-ils", rk4, withIQN, `taken in the run "monolithic rk4"; this run is "co-simulation iterative:iqn-ils,reuse=3,maxiter=100,predictor=linear"`},
		{"rk4 into jacobi", rk4, jacobi, `taken in the run "monolithic rk4"; this run is "co-simulation jacobi"`},
		{"jacobi into rk4", jacobi, rk4, `taken in the run "co-simulation jacobi"; this run is "monolithic rk4": it would not continue the checkpointed run`},
		{"jacobi into gauss-seidel", jacobi, withGS, `"co-simulation jacobi"; this run is "co-simulation gauss-seidel,order=b/a"`},
		{"adaptive into jacobi", adaptive, jacobi, `taken in the run "adaptive dormand-prince"; this run is "co-simulation jacobi"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := strong.sim(t)
			if _, err := s.Run(ctx, c.first); err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := s.Checkpoint().Encode(&buf); err != nil {
				t.Fatal(err)
			}
			ck, err := graph.DecodeCheckpoint(&buf)
			if err != nil {
				t.Fatal(err)
			}
			r := strong.sim(t)
			if err := r.Restore(ck); err != nil {
				t.Fatal(err)
			}
			before := r.State(nil)
			_, err = r.Run(ctx, c.then)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v\nwant it to contain %q", err, c.want)
			}
			sameBits(t, "after the refused run", before, r.State(nil))
			if _, err := r.Run(ctx, c.first); err != nil {
				t.Errorf("continuing in the checkpoint's mode: %v", err)
			}
			r2 := strong.sim(t)
			if err := r2.Restore(ck); err != nil {
				t.Fatal(err)
			}
			r2.ResetCoupling()
			r2.ResetIntegrator()
			if _, err := r2.Run(ctx, c.then); err != nil {
				t.Errorf("after ResetCoupling and ResetIntegrator: %v", err)
			}
			old := *ck
			old.Run = ""
			r3 := strong.sim(t)
			if err := r3.Restore(&old); err != nil {
				t.Fatal(err)
			}
			if _, err := r3.Run(ctx, c.then); err != nil {
				t.Errorf("a checkpoint without its run's record: %v", err)
			}
		})
	}
}
