package graph_test

import (
	"testing"

	"github.com/cosimgo/cosim/benchmarks"
	"github.com/cosimgo/cosim/graph"
	"github.com/google/go-cmp/cmp"
)

// StepWarnings asks springdamper's node.StepBounder for the bound and
// builds the message only for the connectors a step exceeds; the result
// must be StableSteps filtered by the step, message and all, at steps
// below, at, between and above the chain's limits (a wall connector
// joins one mass to the ground, an inner one two masses, so their
// effective masses and bounds differ).
func TestStepWarningsBounder(t *testing.T) {
	s, err := benchmarks.Mode1(5).Build()
	if err != nil {
		t.Fatal(err)
	}
	limits, err := s.StableSteps()
	if err != nil || len(limits) != 6 {
		t.Fatalf("StableSteps: %d limits, %v; want one per connector (6)", len(limits), err)
	}
	lo, hi := limits[0].Dt, limits[0].Dt
	for _, l := range limits {
		lo, hi = min(lo, l.Dt), max(hi, l.Dt)
	}
	for _, dt := range []float64{lo / 2, lo, (lo + hi) / 2, hi, 2 * hi} {
		var want []graph.StepWarning
		for _, l := range limits {
			if dt > l.Dt {
				want = append(want, graph.StepWarning{StepLimit: l, Step: dt})
			}
		}
		got, err := s.StepWarnings(dt)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("dt = %v: StepWarnings differs from StableSteps filtered (-want +got):\n%s", dt, d)
		}
	}
}
