package graph_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
)

// The grid of an adaptive recording is refused before it is allocated
// when its sample times alone (8 bytes each) would exceed
// Settings.RecordLimit (checkGridBudget). The check counts (end − t0)/h
// + 2 samples (t0, the multiples of h after it, end; its error message
// reports that count): from t0 = 1 to end = 2 every h = 1/64 (exact in
// binary, so the count is exactly 66) that is 528 bytes. At a limit of
// exactly 528 bytes the recording runs (the refusal is "more than the
// limit"), at 527 it is refused with the message naming 66 samples and
// 528 B. The recording is streamed (StreamOnly), so the rows' own budget
// (checkRecordBudget), which would refuse 528 bytes for 65 rows, does
// not apply and only the grid's is tested. The run starts at t0 = 1, not
// 0, so that the count depends on end − t0, not on end alone.
func TestMutTmonoGridBudgetAtTheLimit(t *testing.T) {
	ctx := context.Background()
	dp := integrators.DormandPrince{RTol: 1e-8, ATol: 1e-10}
	run := func(limit int64) (*graph.Result, error) {
		s := mustBuild(t, chain(1))
		if _, err := s.Integrate(ctx, 1, dp, nil); err != nil || s.Time() != 1 {
			t.Fatalf("Integrate to 1: %v, at %v", err, s.Time())
		}
		return s.Run(ctx, graph.Settings{Dt: 1.0 / 64, End: 2, Record: []string{"m1.x"}, RecordTo: io.Discard, StreamOnly: true,
			RecordLimit: limit, Mode: graph.MonolithicAdaptive{Method: dp}})
	}
	if r, err := run(528); err != nil || r.Status != graph.EndReached {
		t.Errorf("limit 528 B, the grid's 66 sample times exactly: %v; want the run to reach its end", err)
	}
	_, err := run(527)
	if err == nil || !strings.Contains(err.Error(), "times alone") || !strings.Contains(err.Error(), "takes 66 samples") || !strings.Contains(err.Error(), "need 528 B") {
		t.Errorf("limit 527 B: %v; want the grid refused: 66 samples needing 528 B", err)
	}
}

// An adaptive recording whose grid fits Settings.RecordLimit but not in
// any slice is refused with an error naming the setting to change: a
// streamed recording every 1e-9 s for 10^6 s (10^15 sample times, 8e15
// bytes, beyond the runtime's largest allocation of 2^48 bytes on 64-bit
// platforms) under RecordLimit = math.MaxInt64, "no limit", where the
// grid's make panicked ("makeslice: cap out of range"). A panic is
// caught and reported.
func TestMutTmonoUnallocatableGridRefused(t *testing.T) {
	s := mustBuild(t, chain(1))
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v", r)
			}
		}()
		_, err = s.Run(context.Background(), graph.Settings{Dt: 1e-9, End: 1e6, Record: []string{"m1.x"}, RecordTo: io.Discard, StreamOnly: true,
			RecordLimit: math.MaxInt64, Mode: graph.MonolithicAdaptive{Method: integrators.DormandPrince{}}})
	}()
	if err == nil || !strings.Contains(err.Error(), "more samples than one slice can hold") || !strings.Contains(err.Error(), "Settings.RecordEvery") {
		t.Errorf("10^15 samples under RecordLimit = MaxInt64: %v; want the grid refused, naming Settings.RecordEvery", err)
	}
}

// Result.History is nil when nothing was recorded (its documented
// contract), in an adaptive run too: no Settings.Record, no table, with
// or without a sampling step.
func TestMutTmonoAdaptiveWithoutRecordHasNoHistory(t *testing.T) {
	dp := integrators.DormandPrince{RTol: 1e-8, ATol: 1e-10}
	for _, dt := range []float64{0, 0.25} {
		s := mustBuild(t, chain(1))
		r, err := s.Run(context.Background(), graph.Settings{Dt: dt, End: 1, Mode: graph.MonolithicAdaptive{Method: dp}})
		if err != nil || r.History != nil {
			t.Errorf("Dt = %v without Record: History %v (%v); want nil", dt, r.History, err)
		}
	}
}

// An adaptive run stopped by DriverOptions.MaxSteps reports the same
// *integrators.StepError as integrators.Integrate on the Sim's own
// System from the same state with the same options (integrate is
// Adaptive.Run's loop with "the same statuses and errors"): the same
// time, the same next step Dt and Index −1, no component being at fault
// (StepError.Index: "component index, or -1"), so the message names
// none. The two drive the same method on the same f, so the comparison
// is exact.
func TestMutTmonoMaxStepsErrorAsIntegrators(t *testing.T) {
	dp := integrators.DormandPrince{InitialStep: 1}
	opts := &integrators.DriverOptions{MaxSteps: 6}
	s := mustBuild(t, chain(1))
	sys, err := s.System()
	if err != nil {
		t.Fatal(err)
	}
	_, direct := integrators.Integrate(dp, sys, 0, s.State(nil), 50, opts)
	var want *integrators.StepError
	if !errors.As(direct, &want) || want.Status != integrators.MaxStepsReached {
		t.Fatalf("integrators.Integrate: %v; want MaxStepsReached", direct)
	}
	_, err = s.Run(context.Background(), graph.Settings{End: 50, Mode: graph.MonolithicAdaptive{Method: dp, Options: opts}})
	var se *integrators.StepError
	if !errors.As(err, &se) {
		t.Fatalf("Run: %v; want a *StepError", err)
	}
	if se.Status != want.Status || se.T != want.T || se.Dt != want.Dt || se.Index != -1 || want.Index != -1 || se.Method != want.Method {
		t.Errorf("Run's error %+v; want integrators.Integrate's %+v (Index −1)", *se, *want)
	}
	if !(se.Dt > 0) || math.IsInf(se.Dt, 0) || strings.Contains(err.Error(), "component") {
		t.Errorf("Run's error %q, Dt %v: want a finite positive next step and no component named", err, se.Dt)
	}
}

// The growth rate above DenseStabilityStates values is an estimate (one
// Arnoldi cycle on the Jacobian), made exact by the dense Jacobian's
// eigenvalues (amplifier.denseGrowth, an n×n eigenvalue problem) only
// when an escalated dense radius exceeds 1 + StabilityTol, the only case
// where the decision depends on it: every bound is at least 1, so a
// radius within 1 + StabilityTol is stable whatever the rate. Jacobi on
// the undamped chain of 65 masses (130 values) at dt = 1 ms is escalated
// to its dense radius, 1 up to the finite differences' rounding
// (symplectic Euler; TestUndampedChainDecided, tolerance 1e-8 from
// there): the analysis then keeps the estimate, which is about 0.0135/s
// where the exact rate is 0 (TestGrowthMadeExactAfterEscalation). The
// reference estimate is the growth rate of the same Sim's matrix-free
// analysis of RK4, which is not escalated (so nothing replaces its
// estimate) and computes the rate with the same Arnoldi cycle at the
// same state: bit-identical. The bound is exp(2·dt·rate) of that
// estimate, StabilityAnalysis.Bound's definition, to rounding (1e-15).
func TestMutTmonoGrowthEstimateKeptAtRadiusOne(t *testing.T) {
	const dt = 1e-3
	sim := mustBuild(t, chain(65))
	ref, err := sim.MonolithicStabilityForced(integrators.RK4{}, dt, false)
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := ref.Chosen(); c.Escalated || !c.Estimated || !ref.GrowthKnown || !(ref.Growth > 1e-6) {
		t.Fatalf("reference: %+v, growth %v (known %v); want a matrix-free estimate not escalated, a rate above 1e-6", c, ref.Growth, ref.GrowthKnown)
	}
	r, err := sim.CheckStability(nil, dt, 0)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := r.Chosen()
	if !c.Escalated || math.Abs(c.Radius-1) > 1e-8 || !c.Stable {
		t.Fatalf("jacobi: %+v; want the escalated dense radius 1 within 1e-8, stable", c)
	}
	if r.Growth != ref.Growth || math.Abs(r.Bound-math.Exp(2*dt*ref.Growth)) > 1e-15 {
		t.Errorf("jacobi: growth %v, bound %v; want the estimate %v kept and its bound %v", r.Growth, r.Bound, ref.Growth, math.Exp(2*dt*ref.Growth))
	}
}
