package graph_test

import (
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/numtest"
)

// The monolithic view re-evaluates connector forces from the state it is
// given: f(y) of a 3-mass chain equals the hand-computed right-hand side
// [v_i, k(x_{i+1} − 2x_i + x_{i−1})/m] at a perturbed state, and the Sim's
// own state is untouched.
func TestSystemFunc(t *testing.T) {
	s, err := chain(3).Build()
	if err != nil {
		t.Fatal(err)
	}
	sys, err := s.System()
	if err != nil {
		t.Fatal(err)
	}
	before := s.State(nil)
	y := []float64{1.1, 0.5, 2.0, -0.25, 2.7, 0.125} // x1 v1 x2 v2 x3 v3; walls at 0 and 4
	dst := make([]float64, sys.Dim())
	if err := sys.Func(0, y, dst); err != nil {
		t.Fatal(err)
	}
	x := []float64{0, y[0], y[2], y[4], 4}
	for i := 1; i <= 3; i++ {
		// Edges sum in connection order: spring i−1's force on its b end,
		// then spring i's on its a end.
		wantA := -(1000 * (x[i] - x[i-1])) + 1000*(x[i+1]-x[i])
		if got := dst[2*(i-1)+1]; got != wantA {
			t.Errorf("a%d = %v, want %v", i, got, wantA)
		}
		if got := dst[2*(i-1)]; got != y[2*(i-1)+1] {
			t.Errorf("x%d' = %v, want v = %v", i, got, y[2*(i-1)+1])
		}
	}
	after := s.State(nil)
	for i := range before {
		if before[i] != after[i] {
			t.Fatal("System.Func changed the Sim's state")
		}
	}
	pos, vel := sys.Pairs()
	if len(pos) != 3 || pos[1] != 2 || vel[1] != 3 {
		t.Errorf("Pairs = %v, %v", pos, vel)
	}
	if a := numtest.AllocsPerRun(50, func() { sys.Func(0, y, dst) }); a != 0 {
		t.Errorf("Func allocates %v times", a)
	}
}

func TestSystemNeedsDerivatives(t *testing.T) {
	g := graph.New()
	g.Add("m", opaque{m: newMass(1, 0)})
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.System(); err == nil || !strings.Contains(err.Error(), "m (mass)") {
		t.Errorf("err = %v", err)
	}
}
