package graph_test

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/graph"
)

// checkpointStrategies has every scheme, every acceleration with the
// memory it carries across steps (Aitken's factor, IQN-ILS's reused
// columns, the linear predictor's history) and multirate, alone and
// inside a group, on the strongly coupled two-body problem.
func checkpointStrategies() map[string]*coupling.Strategy {
	it := func(a coupling.Acceleration) *coupling.Strategy {
		return &coupling.Strategy{Scheme: coupling.Iterative, Iteration: coupling.Iteration{Acceleration: a, Predictor: coupling.LinearPredictor, MaxIter: 100}}
	}
	return map[string]*coupling.Strategy{
		"jacobi":              {Scheme: coupling.Jacobi},
		"gauss-seidel":        {Scheme: coupling.GaussSeidel, Order: [][]string{{"b"}, {"a"}}},
		"relaxation":          it(coupling.Acceleration{Omega: 0.3}),
		"aitken":              it(coupling.Acceleration{Accel: coupling.Aitken}),
		"iqn-ils":             it(coupling.Acceleration{Accel: coupling.IQNILS}),
		"iqn-ils reuse":       it(coupling.Acceleration{Accel: coupling.IQNILS, Reuse: 3}),
		"multirate":           {Rates: map[string]int{"b": 7}, Interpolation: coupling.Linear},
		"multirate in groups": {Scheme: coupling.Iterative, Iteration: coupling.Iteration{Acceleration: coupling.Acceleration{Accel: coupling.IQNILS, Reuse: 2}, Predictor: coupling.LinearPredictor}, Rates: map[string]int{"b": 5}, Interpolation: coupling.Linear},
	}
}

// The explicit schemes blow up on the strong problem at this step; the
// test is about bits, so they run a smaller one.
func checkpointDt(st *coupling.Strategy) float64 {
	if st.Scheme == coupling.Iterative {
		return 0.01
	}
	return 1e-3
}

// Run N steps with a coupling strategy, checkpoint, write the file, read
// it back, restore into a freshly built graph and run M more: bit for bit
// the uninterrupted run of N+M, for every strategy; and two Runs of N and
// M on one Sim are too. Without the coupling memory (ResetCoupling) the
// strategies that carry it give other bits, so the test sees it.
func TestCouplingCheckpointBitIdentical(t *testing.T) {
	const n, m = 23, 17
	dir := t.TempDir()
	ctx := context.Background()
	for name, st := range checkpointStrategies() {
		t.Run(name, func(t *testing.T) {
			set := func(steps int) graph.Settings {
				return graph.Settings{Mode: graph.CoSimulation{Coupling: st, Workers: 2, Grain: 1}, Dt: checkpointDt(st), Steps: steps}
			}
			ref := strong.sim(t)
			if _, err := ref.Run(ctx, set(n+m)); err != nil {
				t.Fatal(err)
			}
			want := ref.State(nil)

			two := strong.sim(t)
			for _, k := range []int{n, m} {
				if _, err := two.Run(ctx, set(k)); err != nil {
					t.Fatal(err)
				}
			}
			sameBits(t, "two Runs", want, two.State(nil))

			s := strong.sim(t)
			if _, err := s.Run(ctx, set(n)); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".ckpt")
			if err := s.Checkpoint().WriteFile(path); err != nil {
				t.Fatal(err)
			}
			c, err := graph.ReadCheckpoint(path)
			if err != nil {
				t.Fatal(err)
			}
			if c.Coupling == nil || c.Coupling.Strategy != st.String() {
				t.Fatalf("checkpoint coupling %+v, want the strategy %q", c.Coupling, st.String())
			}
			if st.Scheme == coupling.Iterative && (len(c.Coupling.Groups) != 1 || c.Coupling.Groups[0].Prev == nil) {
				t.Fatalf("checkpoint groups %+v, want one with the predictor's history", c.Coupling.Groups)
			}
			fresh := strong.sim(t)
			if err := fresh.Restore(c); err != nil {
				t.Fatal(err)
			}
			if _, err := fresh.Run(ctx, set(m)); err != nil {
				t.Fatal(err)
			}
			sameBits(t, "restored", want, fresh.State(nil))

			if st.Scheme == coupling.Iterative {
				forgot := strong.sim(t)
				if err := forgot.Restore(c); err != nil {
					t.Fatal(err)
				}
				forgot.ResetCoupling()
				if _, err := forgot.Run(ctx, set(m)); err != nil {
					t.Fatal(err)
				}
				if maxDiff(want, forgot.State(nil)) == 0 {
					t.Error("the run without the coupling memory has the same bits: the test does not see the memory")
				}
			}
		})
	}
}

// The memory is for one strategy and one step: continuing a restored
// checkpoint with another strategy (also the default path) or step is an
// error naming the difference, and changes nothing; ResetCoupling drops
// the memory. A checkpoint of a default run has no coupling part.
func TestCouplingCheckpointMismatch(t *testing.T) {
	ctx := context.Background()
	st := checkpointStrategies()["iqn-ils reuse"]
	s := strong.sim(t)
	if _, err := s.Run(ctx, graph.Settings{Mode: graph.CoSimulation{Coupling: st}, Dt: 0.01, Steps: 5}); err != nil {
		t.Fatal(err)
	}
	c := s.Checkpoint()
	other := *st
	other.Iteration.Acceleration = coupling.Acceleration{Accel: coupling.Aitken}
	for _, tc := range []struct {
		set  graph.Settings
		want string
	}{
		{graph.Settings{Mode: graph.CoSimulation{Coupling: &other}, Dt: 0.01, Steps: 1}, `strategy "iterative:iqn-ils,reuse=3,maxiter=100,predictor=linear"; CoSimulation.Coupling is "iterative:aitken,maxiter=100,predictor=linear" (scheme iterative:iqn-ils ≠ iterative:aitken; reuse=3 only in the checkpoint)`},
		{graph.Settings{Dt: 0.01, Steps: 1}, `CoSimulation.Coupling is "jacobi" (scheme iterative:iqn-ils ≠ jacobi; reuse=3 only in the checkpoint; maxiter=100 only in the checkpoint; predictor=linear only in the checkpoint)`},
		{graph.Settings{Mode: graph.CoSimulation{Coupling: st}, Dt: 0.02, Steps: 1}, "coupling memory for the step dt = 0.01; Settings.Dt is 0.02"},
	} {
		r := strong.sim(t)
		if err := r.Restore(c); err != nil {
			t.Fatal(err)
		}
		before := r.State(nil)
		_, err := r.Run(ctx, tc.set)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("err = %v\nwant it to contain %s", err, tc.want)
		}
		sameBits(t, "after a rejected run", before, r.State(nil))
		if r.Checkpoint().Coupling == nil {
			t.Error("a rejected run dropped the restored memory")
		}
		r.ResetCoupling()
		if _, err := r.Run(ctx, tc.set); err != nil {
			t.Errorf("after ResetCoupling: %v", err)
		}
	}

	// A checkpoint whose memory does not fit the graph is rejected.
	bad := *c
	cc := *c.Coupling
	cc.Groups = append([]graph.GroupCheckpoint(nil), c.Coupling.Groups...)
	cc.Groups[0].Prev = []float64{1, 2, 3}
	cc.Groups[0].Accel.Accel = coupling.Aitken
	bad.Coupling = &cc
	err := strong.sim(t).Restore(&bad)
	var me *graph.MismatchError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), `coupling group "all": 3 interface values in the checkpoint, 2 in this graph`) {
		t.Errorf("err = %v", err)
	}
	cc.Groups[0].Prev = c.Coupling.Groups[0].Prev
	if err := strong.sim(t).Restore(&bad); err == nil || !strings.Contains(err.Error(), "accelerator state of aitken restored into iqn-ils") {
		t.Errorf("err = %v", err)
	}
	cc.Groups[0].Accel = c.Coupling.Groups[0].Accel
	cc.Strategy = "iterative,group.g=a+nobody"
	if err := strong.sim(t).Restore(&bad); err == nil || !strings.Contains(err.Error(), `no node "nobody"`) {
		t.Errorf("err = %v", err)
	}

	// Default runs and changed states carry no coupling memory.
	d := strong.sim(t)
	d.Run(ctx, graph.Settings{Dt: 1e-3, Steps: 3})
	if d.Checkpoint().Coupling != nil {
		t.Error("a default run's checkpoint has coupling memory")
	}
	s.Step(1e-3)
	if s.Checkpoint().Coupling != nil {
		t.Error("the coupling memory survived a step outside the coupled Run")
	}
	if math.IsNaN(s.Time()) {
		t.Fatal("time")
	}
}
