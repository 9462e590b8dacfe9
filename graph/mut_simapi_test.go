package graph_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
)

// TestStateFillsDstOfExactLength: State's contract is to copy the state
// "into dst and return it; dst is grown when too short". A dst whose
// capacity is exactly the state size is not too short, so State must
// write into dst's own array (a caller reusing one buffer per step, as a
// recorder does, relies on it: no allocation, and dst itself holds the
// state). Two masses give a 4-value state; dst is filled with a marker so
// the copy shows in it.
func TestStateFillsDstOfExactLength(t *testing.T) {
	g := graph.New()
	g.Add("a", newMass(1, 0.25))
	g.Add("b", newMass(1, -0.5))
	sim, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	dst := []float64{9, 9, 9, 9}
	got := sim.State(dst)
	if len(got) != 4 || &got[0] != &dst[0] {
		t.Fatalf("State(dst of cap %d) returned a slice of len %d not sharing dst's array", cap(dst), len(got))
	}
	if want := []float64{0.25, 0, -0.5, 0}; dst[0] != want[0] || dst[1] != want[1] || dst[2] != want[2] || dst[3] != want[3] {
		t.Errorf("dst = %v after State, want %v (the masses' x0 and v = 0)", dst, want)
	}
	if allocs := testing.AllocsPerRun(10, func() { sim.State(dst) }); allocs != 0 {
		t.Errorf("State(dst of exact length) allocates %v times, want 0", allocs)
	}
}

// TestValueBracketWithoutName: "node.field[i]" names a component only
// after a field name; a path that is nothing but a bracket, "[0]", is not
// of the form node.field and the error says so, quoting the path the
// user gave (not what is left after stripping the bracket, an empty
// name that would not tell the user which path was wrong).
func TestValueBracketWithoutName(t *testing.T) {
	g := graph.New()
	g.Add("a", newMass(1, 0))
	sim, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	_, err = sim.Value("[0]")
	if !errors.Is(err, graph.ErrUnknownField) || !strings.Contains(err.Error(), `"[0]" is not of the form node.field`) {
		t.Errorf(`Value("[0]") = %v; want ErrUnknownField saying "[0]" is not of the form node.field`, err)
	}
}

// TestStepWarningsSourceAfterOutputNeighbour: StepWarnings evaluates
// only the outputs the step limiters read (limiterSources), finding the
// node that writes each output read by its offset in the flat output
// buffer. Here the limit is read from p2.y, the first output of p2, which
// starts exactly where p1's outputs end (p1 is added just before it):
// the node found must be p2, whose output is the input at the state set
// last, not p1. As in TestStepWarningsSeeCurrentOutputs the limit is the
// position a.x in s (readLimit), so after SetState to a.x = 0.2 a step of
// 0.1 s must not warn although the previous state (a.x = 0.05, evaluated
// by StableSteps) did; p1 reads b.x, and nothing reads p1.
func TestStepWarningsSourceAfterOutputNeighbour(t *testing.T) {
	g := graph.New()
	g.Add("a", newMass(1, 1))
	g.Add("b", newMass(1, 1))
	g.Add("p1", newProbe())
	g.Add("p2", newProbe())
	g.Add("l", newReadLimit())
	g.Connect("b.x", "p1.x")
	g.Connect("a.x", "p2.x")
	g.Connect("p2.y", "l.a")
	g.Connect("l.f", "a.force")
	sim, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		x    float64
		warn bool
	}{{0.05, true}, {0.2, false}, {0.05, true}} {
		if err := sim.SetState([]float64{c.x, 0, 1, 0}, 0); err != nil {
			t.Fatal(err)
		}
		ws, err := sim.StepWarnings(0.1)
		if err != nil || (len(ws) == 1) != c.warn || c.warn && ws[0].Dt != c.x {
			t.Errorf("a.x = %v: StepWarnings(0.1) = %v, %v; want a warning %v (limit %v s)", c.x, ws, err, c.warn, c.x)
		}
		limits, err := sim.StableSteps()
		if err != nil || len(limits) != 1 || limits[0].Dt != c.x {
			t.Errorf("a.x = %v: StableSteps = %+v, %v; want l at %v s", c.x, limits, err, c.x)
		}
	}
}
