package node_test

import (
	"math"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
)

// TestSpringStableStep checks the bound against its closed forms (2/ω
// undamped, 2/c for a damper alone) and against the iteration it bounds:
// semi-implicit Euler on ü + cu̇ + ω²u = 0 from u = 1 stays below 100
// over 10⁵ steps at 0.999 of the bound and grows past 10⁶ at 1.001 of it.
func TestSpringStableStep(t *testing.T) {
	if got := node.SpringStableStep(1000, 0); !numtest.Within(got, 2/math.Sqrt(1000), 1e-15) {
		t.Errorf("undamped: %v, want 2/√1000", got)
	}
	if got := node.SpringStableStep(0, 4); got != 0.5 {
		t.Errorf("damper alone: %v, want 2/c = 0.5", got)
	}
	for _, c := range []float64{-1, 0} {
		if got := node.SpringStableStep(-5, c); !math.IsInf(got, 1) {
			t.Errorf("ω² = −5, c = %v: %v, want +Inf (no step helps or none is needed)", c, got)
		}
	}
	iterate := func(w2, c, dt float64) float64 {
		u, v := 1.0, 0.0
		for range 100000 {
			v += dt * (-w2*u - c*v)
			u += dt * v
			if !numtest.Within(u, 0, 1e6) { // a NaN stops too
				break
			}
		}
		return math.Abs(u)
	}
	for _, p := range [][2]float64{{1000, 0}, {1000, 50}, {4, 3.9}, {1, 0.01}} {
		dt := node.SpringStableStep(p[0], p[1])
		// Bounded: near the bound the undamped orbit is an ellipse stretched
		// by about 1/√(1 − (ωΔt/2)²) ≈ 22 at 0.999, so 100 separates it
		// from growth.
		if u := iterate(p[0], p[1], 0.999*dt); !numtest.AtMost(u, 100) {
			t.Errorf("ω² = %v, c = %v: |u| = %v at 0.999 of the bound %v, want bounded", p[0], p[1], u, dt)
		}
		if u := iterate(p[0], p[1], 1.001*dt); u < 1e6 {
			t.Errorf("ω² = %v, c = %v: |u| = %v at 1.001 of the bound %v, want growth", p[0], p[1], u, dt)
		}
	}
}

// TestStableStepValidate: the consistency rules of node.StableStep.
func TestStableStepValidate(t *testing.T) {
	var nilStep *node.StableStep
	ok := []*node.StableStep{
		nilStep,
		{Unconditional: true, Notes: "n"},
		{Limit: `\Delta t < 2/\omega`, Units: "s", Notes: "n", Computed: true},
	}
	for _, s := range ok {
		if err := s.Validate(); err != nil {
			t.Errorf("%+v: %v", s, err)
		}
	}
	bad := []*node.StableStep{
		{Notes: "n"},
		{Unconditional: true, Limit: "x", Units: "s", Notes: "n"},
		{Limit: "x", Notes: "n"},
		{Limit: "x", Units: "s"},
		{Unconditional: true, Notes: "n", Computed: true},
	}
	for _, s := range bad {
		if err := s.Validate(); err == nil {
			t.Errorf("%+v: Validate = nil, want an error", s)
		}
	}
}
