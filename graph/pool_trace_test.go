package graph_test

import (
	"context"
	"testing"

	"github.com/cosimgo/cosim/benchmarks"
	"github.com/cosimgo/cosim/graph"
)

// TestRunHoldsSharingDuringStartCheck: the check at the start of a Run
// runs its trial steps on the Run's workers with the sharing judge held
// (its trial steps, spaced by the analysis's arithmetic on the caller,
// would time neither a window nor a time alone like the run's steps):
// the first Run of a W1 chain large enough to share holds the judge once,
// around jobs of the check, and releases it before the steps; a second
// Run, whose check is kept from the first, holds it around no job.
func TestRunHoldsSharingDuringStartCheck(t *testing.T) {
	c := benchmarks.Mode1(1000) // 2 001 rows a step: above DefaultGrain
	s, err := c.Build()
	if err != nil {
		t.Fatal(err)
	}
	s.TraceSharing(true)
	set := graph.Settings{Mode: graph.CoSimulation{Workers: 2}, Dt: benchmarks.ChainDt, Steps: 200}
	res, err := s.Run(context.Background(), set)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stability == nil || res.Stability.Skipped != "" {
		t.Fatalf("the start check did not analyse the chain: %+v", res.Stability)
	}
	_, sum := s.SharingLog(false)
	if sum.Holds != 1 || sum.HeldJobs == 0 {
		t.Errorf("first Run: judge held %d times around %d jobs; want once, around the check's trial steps", sum.Holds, sum.HeldJobs)
	}
	if _, err := s.Run(context.Background(), set); err != nil {
		t.Fatal(err)
	}
	if _, sum := s.SharingLog(false); sum.Holds != 1 || sum.HeldJobs != 0 {
		t.Errorf("second Run (check kept): judge held %d times around %d jobs; want once, around none", sum.Holds, sum.HeldJobs)
	}
}
