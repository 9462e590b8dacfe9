package graph_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/graph"
)

// TestGrowthErrorNamesLargestChange: the growth watch's error names the
// state component furthest from its value at the run's start and that
// distance, checked against the state the run stopped at, computed here
// independently (the largest |x − x(start)| over every component; exact:
// the same subtraction and absolute value). The watch finds the
// component only when it fires, after a scan for the distance alone.
func TestGrowthErrorNamesLargestChange(t *testing.T) {
	sim := chain4(t)
	x0 := sim.State(nil)
	_, err := sim.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Coupling: &coupling.Strategy{Scheme: coupling.GaussSeidel}}, Dt: 1e-3, End: 300})
	var ge *graph.GrowthError
	if !errors.As(err, &ge) {
		t.Fatalf("Gauss–Seidel run to 300 s: err = %v, want a *GrowthError", err)
	}
	x := sim.State(nil)
	top := 0.0
	for i := range x {
		top = max(top, math.Abs(x[i]-x0[i]))
	}
	if ge.Change != top || top == 0 {
		t.Errorf("Change = %v, want the largest change of the state, %v", ge.Change, top)
	}
	v, err := sim.Value(ge.Component)
	if err != nil {
		t.Fatalf("Component %q: %v", ge.Component, err)
	}
	v0, err := chain4(t).Value(ge.Component)
	if err != nil {
		t.Fatal(err)
	}
	if len(v) != 1 || math.Abs(v[0]-v0[0]) != ge.Change {
		t.Errorf("Component %q moved from %v to %v, not by Change = %v", ge.Component, v0, v, ge.Change)
	}
}
