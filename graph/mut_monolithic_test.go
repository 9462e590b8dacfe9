package graph_test

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/node"
)

// A run's work (Result.Evaluations, Result.Integrator) is that of the
// run: with Init's on a new stepper, without the earlier runs' on a kept
// one (Integration.Work's contract). Dormand–Prince is first-same-as-last:
// one evaluation at Init, then six per step, so a first fixed-step run of
// 10 steps costs 1 + 60 evaluations and the next run on the kept stepper
// 60; the adaptive driver costs 6 per trial step on a kept stepper and
// more on a new one (Init's evaluation and the estimate of the first
// step).
func TestMutMonolithicWorkPerRun(t *testing.T) {
	ctx := context.Background()
	s := mustBuild(t, chain(1))
	for i, want := range []int64{61, 60, 60} {
		r, err := s.RunMonolithic(ctx, integrators.DormandPrince{}, nil, graph.Settings{Dt: 0.01, Steps: 10})
		if err != nil || r.Evaluations != want || r.Integrator.Steps != 10 {
			t.Errorf("fixed-step run %d: %d evaluations, %d steps (%v); want %d, 10", i+1, r.Evaluations, r.Integrator.Steps, err, want)
		}
	}
	s = mustBuild(t, chain(1))
	for i := range 3 {
		r, err := s.Integrate(ctx, s.Time()+0.05, integrators.DormandPrince{RTol: 1e-8, ATol: 1e-10}, nil)
		if err != nil {
			t.Fatal(err)
		}
		trials := int64(r.Steps + r.Rejected)
		if first := r.Evaluations > 6*trials; first != (i == 0) || r.Evaluations < 6*trials || r.Integrator.Steps != r.Steps {
			t.Errorf("adaptive run %d: %d evaluations for %d trial steps, Integrator.Steps %d for %d steps; want 6 per trial step (more on the first run) and the run's steps",
				i+1, r.Evaluations, trials, r.Integrator.Steps, r.Steps)
		}
	}
}

// DriverOptions.MaxSteps bounds the trial steps (accepted and rejected)
// of each run: a run that needs more stops with MaxStepsReached after
// exactly MaxSteps of them, counted from the run's start even on a kept
// stepper. The first run starts with a trial step of 1 (InitialStep), far
// above what the tolerance allows on the chain's 30 rad/s oscillation, so
// it is rejected (at least once) before the limit.
func TestMutAdaptiveMaxStepsPerRun(t *testing.T) {
	const limit = 6
	s := mustBuild(t, chain(1))
	opts := &integrators.DriverOptions{MaxSteps: limit}
	mode := graph.MonolithicAdaptive{Method: integrators.DormandPrince{InitialStep: 1}, Options: opts}
	for i := range 2 {
		r, err := s.Run(context.Background(), graph.Settings{End: 50, Mode: mode})
		var se *integrators.StepError
		if !errors.As(err, &se) || se.Status != integrators.MaxStepsReached || r.Steps+r.Rejected != limit {
			t.Fatalf("run %d: %v after %d steps and %d rejected; want MaxStepsReached after %d trial steps", i+1, err, r.Steps, r.Rejected, limit)
		}
		if i == 0 && r.Rejected == 0 {
			t.Fatal("the first run rejected no step: the test needs rejections before the limit")
		}
	}
}

// The settings of an adaptive run are checked before it starts: an end
// not after the current time, a negative sampling step. The sample times
// of Options.Output may include the run's end and repeat a time (they
// ascend, not strictly, as integrators.Integrate accepts them).
func TestMutAdaptiveSettings(t *testing.T) {
	ctx := context.Background()
	s := mustBuild(t, chain(1))
	dp := integrators.DormandPrince{RTol: 1e-8, ATol: 1e-10}
	if _, err := s.Integrate(ctx, s.Time(), dp, nil); err == nil || !strings.Contains(err.Error(), "must be finite and after the current time") {
		t.Errorf("Integrate to the current time: %v, want an error", err)
	}
	if _, err := s.Run(ctx, graph.Settings{Dt: -0.1, End: 1, Mode: graph.MonolithicAdaptive{Method: dp}}); err == nil || !strings.Contains(err.Error(), "Settings.Dt = -0.1") {
		t.Errorf("Dt = −0.1: %v, want an error naming Settings.Dt", err)
	}
	out := []float64{0, 0.5, 0.5, 1}
	r, err := s.Run(ctx, graph.Settings{End: 1, Mode: graph.MonolithicAdaptive{Method: dp, Options: &integrators.DriverOptions{Output: out}}})
	if err != nil {
		t.Fatalf("Output ending at the end time: %v", err)
	}
	var ts []float64
	for _, smp := range r.Integrator.Samples {
		ts = append(ts, smp.T)
	}
	if !slices.Equal(ts, out) {
		t.Errorf("samples at %v, want %v", ts, out)
	}
}

// Which samples an adaptive run takes (Integration.Samples' contract):
// with Settings.Record and Dt, the recording grid, also when Options is
// given without Output; with Record and no Dt, a row at the start and at
// every accepted step, and no dense-output samples; without Record and
// Output, no samples at all.
func TestMutAdaptiveSampling(t *testing.T) {
	ctx := context.Background()
	dp := integrators.DormandPrince{RTol: 1e-8, ATol: 1e-10}
	s := mustBuild(t, chain(1))
	r, err := s.Run(ctx, graph.Settings{Dt: 0.25, End: 1, Record: []string{"m1.x"}, Mode: graph.MonolithicAdaptive{Method: dp, Options: &integrators.DriverOptions{}}})
	if want := []float64{0, 0.25, 0.5, 0.75, 1}; err != nil || !slices.Equal(r.History.Times, want) {
		t.Errorf("Record every 0.25 with empty Options: rows at %v (%v), want %v", r.History.Times, err, want)
	}
	s = mustBuild(t, chain(1))
	r, err = s.Run(ctx, graph.Settings{End: 1, Record: []string{"m1.x"}, Mode: graph.MonolithicAdaptive{Method: dp}})
	if err != nil || len(r.History.Times) != r.Steps+1 || len(r.Integrator.Samples) != 0 || r.Steps < 3 {
		t.Errorf("Record without Dt: %d rows, %d samples for %d steps (%v); want a row per step and the start, no samples", len(r.History.Times), len(r.Integrator.Samples), r.Steps, err)
	}
	s = mustBuild(t, chain(1))
	r, err = s.Run(ctx, graph.Settings{Dt: 0.25, End: 1, Mode: graph.MonolithicAdaptive{Method: dp}})
	if err != nil || len(r.Integrator.Samples) != 0 {
		t.Errorf("Dt without Record: %d samples (%v), want none", len(r.Integrator.Samples), err)
	}
}

// Sample times after the start are dense-output samples at those times,
// not copies of the start (Options.Output = [0.5, 1] from t = 0).
func TestMutAdaptiveOutputAfterStart(t *testing.T) {
	s := mustBuild(t, chain(1))
	dp := integrators.DormandPrince{RTol: 1e-8, ATol: 1e-10}
	out := []float64{0.5, 1}
	r, err := s.Run(context.Background(), graph.Settings{End: 1, Mode: graph.MonolithicAdaptive{Method: dp, Options: &integrators.DriverOptions{Output: out}}})
	if err != nil {
		t.Fatal(err)
	}
	var ts []float64
	for _, smp := range r.Integrator.Samples {
		ts = append(ts, smp.T)
	}
	if !slices.Equal(ts, out) {
		t.Errorf("samples at %v, want %v", ts, out)
	}
}

// A non-finite value at the first component of the state (flat index 0)
// is named like any other: x' = v = 1e308 overflows x = 1e308 to +Inf in
// the first step of 1 while v stays finite, so the error is a
// *node.StateError naming rocket.x.
func TestMutMonolithicNonFiniteFirstComponent(t *testing.T) {
	for _, name := range []string{"forward-euler", "rk4"} {
		g := graph.New()
		g.Add("rocket", newRocket(1e308, 1e308, 0, false))
		s := mustBuild(t, g)
		m, _ := integrators.ByName(name)
		_, err := s.RunMonolithic(context.Background(), m, nil, graph.Settings{Dt: 1, Steps: 3})
		var se *node.StateError
		if !errors.As(err, &se) || se.Node != "rocket" || se.Field != "x" || !errors.Is(err, node.ErrNonFinite) {
			t.Errorf("%s: %v, want a non-finite *node.StateError naming rocket.x", name, err)
		}
	}
}

// Cancelling the context inside a trial step (from a node's Derivatives)
// ends an adaptive run with ctx's error itself (Integrate's contract: "the
// error is ctx's") and Status Cancelled, for the explicit and the
// implicit drivers (whose Newton iteration meets the cancellation).
func TestMutIntegrateCancelInsideStepError(t *testing.T) {
	for _, m := range []integrators.AdaptiveMethod{
		integrators.DormandPrince{RTol: 1e-10, ATol: 1e-12},
		integrators.BDF{RTol: 1e-10, ATol: 1e-12},
		integrators.ESDIRK43{RTol: 1e-10, ATol: 1e-12},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		r := newRocket(0, 1, -0.5, false)
		evals := 0
		r.onDeriv = func() {
			if evals++; evals == 50 {
				cancel()
			}
		}
		g := graph.New()
		g.Add("rocket", r)
		s := mustBuild(t, g)
		res, err := s.Integrate(ctx, 10, m, nil)
		cancel()
		if err != context.Canceled || res == nil || res.Status != graph.Cancelled {
			t.Errorf("%s: err = %v, want context.Canceled itself and Status Cancelled", m.Name(), err)
		}
	}
}

// An adaptive run of zero length (End at the current time) takes no step
// but still records its start: one row, and the Output sample at t0.
func TestMutAdaptiveZeroLengthRecordsStart(t *testing.T) {
	dp := integrators.DormandPrince{RTol: 1e-8, ATol: 1e-10}
	s := mustBuild(t, chain(1))
	x0 := value(t, s, "m1.x")
	r, err := s.Run(context.Background(), graph.Settings{Dt: 0.1, End: 0, Record: []string{"m1.x"}, Mode: graph.MonolithicAdaptive{Method: dp}})
	if err != nil || r.Steps != 0 || !slices.Equal(r.History.Times, []float64{0}) || r.History.Rows[0][0] != x0 {
		t.Errorf("zero-length run: %v, %d steps, rows at %v; want no step and one row at 0 holding m1.x = %v", err, r.Steps, r.History.Times, x0)
	}
	r, err = s.Run(context.Background(), graph.Settings{End: 0, Mode: graph.MonolithicAdaptive{Method: dp, Options: &integrators.DriverOptions{Output: []float64{0}}}})
	if err != nil || len(r.Integrator.Samples) != 1 || r.Integrator.Samples[0].T != 0 {
		t.Errorf("zero-length run with Output [0]: %v, samples %v; want one at 0", err, r.Integrator.Samples)
	}
}

// An adaptive run that records every 1e-9 s for 1000 s would need 1e12
// sample times (8 TB) before a single value is recorded: it is refused
// with an error naming the setting to change, in memory and streamed
// alike, where the grid's allocation used to panic ("makeslice: cap out
// of range") or exhaust memory. A recording just inside the limit still
// runs.
func TestAdaptiveRecordingGridOverBudgetRefused(t *testing.T) {
	ctx := context.Background()
	dp := integrators.DormandPrince{RTol: 1e-6, ATol: 1e-9}
	for _, stream := range []bool{false, true} {
		s := mustBuild(t, chain(1))
		set := graph.Settings{Dt: 1e-9, End: 1e3, Record: []string{"m1.x"}, Mode: graph.MonolithicAdaptive{Method: dp}}
		if stream {
			set.RecordTo, set.StreamOnly = io.Discard, true
		}
		_, err := s.Run(ctx, set)
		if err == nil || !strings.Contains(err.Error(), "times alone") || !strings.Contains(err.Error(), "Settings.RecordEvery") {
			t.Errorf("stream=%v: %v; want the grid refused, naming Settings.RecordEvery", stream, err)
		}
	}
	// 1001 samples of 8 bytes against a limit of 1 MB: runs.
	s := mustBuild(t, chain(1))
	r, err := s.Run(ctx, graph.Settings{Dt: 1e-3, End: 1, Record: []string{"m1.x"}, RecordLimit: 1 << 20, Mode: graph.MonolithicAdaptive{Method: dp}})
	if err != nil || len(r.History.Times) != 1001 {
		t.Errorf("1001 samples within 1 MB: %v rows, %v", len(r.History.Times), err)
	}
}
