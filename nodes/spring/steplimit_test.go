package spring_test

import (
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/spring"
)

// stableStep is the documented bound, written out here: the explicit
// stable step of a damped oscillator (√(c² + 4ω²) − c)/ω² with
// ω² = k·w and c = damping·w, w = 1/μ the inverse effective mass along
// the spring.
func stableStep(k, damping, w float64) float64 {
	om2, c := k*w, damping*w
	return (math.Sqrt(c*c+4*om2) - c) / om2
}

// TestStableStepAt: the spring's stable step uses the inverse effective
// mass along its line, the sum over its body ends of uᵀ·diag(inv)·u; a
// mass point's inverse mass is 1/m along every axis, so with u a unit
// vector it is 1/m, and a ground end adds nothing. Between a ground
// point and a 2 kg mass point w = 1/2; between a 2 kg and a 3 kg mass
// point w = 1/2 + 1/3, μ = 1.2 kg. The markers are 3-4-5 apart (u =
// (0.6, 0.8, 0)); k = 50 N/m, damping 0.4 N s/m. Tolerance 1e-14
// relative: a few rounded operations on each side. The reason names the
// effective mass. Without stiffness and damping, or with the markers
// closer than min_length (no direction), there is no limit.
func TestStableStepAt(t *testing.T) {
	mp := func(m float64, pos [3]float64) *masspoint.Node {
		n, err := masspoint.New(masspoint.Params{Mass: m, InitialPosition: pos})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	p := spring.DefaultParams()
	p.Stiffness, p.Damping, p.RestLength = 50, 0.4, 1
	cases := []struct {
		name   string
		m0     node.Attachment
		m1     float64   // kg
		in     []float64 // [pos0, vel0,] pos1, vel1
		pos1   int       // offset of pos1 in in
		w      float64
		reason string
	}{
		{"ground-point", node.GroundAt([3]float64{}), 2, []float64{3, 4, 0, 1, -1, 0.5}, 0, 0.5, "μ = 2 kg"},
		{"point-point", node.At(mp(2, [3]float64{}), [3]float64{}), 3, []float64{0, 0, 0, 0.3, 0.2, 0.1, 3, 4, 0, 1, -1, 0.5}, 6, 1.0/2 + 1.0/3, "μ = 1.2 kg"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := spring.New(p, c.m0, node.At(mp(c.m1, [3]float64{3, 4, 0}), [3]float64{}))
			if err != nil {
				t.Fatal(err)
			}
			in := s.Spec().DefaultInputs()
			copy(in.Values, c.in)
			got := s.StableStepAt(0, nil, in)
			if want := stableStep(50, 0.4, c.w); !numtest.Within(got.Dt, want, 1e-14*want) {
				t.Errorf("Dt = %v, want %v", got.Dt, want)
			}
			if !strings.Contains(got.Why, c.reason) {
				t.Errorf("Why = %q, want it to name %q", got.Why, c.reason)
			}
			// Markers closer than min_length: no direction, no limit.
			// (marker 0 is at the origin in both cases).
			mid := append([]float64(nil), c.in...)
			copy(mid[c.pos1:], []float64{0, 0, 0})
			if got := s.StableStepAt(0, nil, node.Inputs{Values: mid, Present: in.Present}); !math.IsInf(got.Dt, 1) {
				t.Errorf("coincident markers: Dt = %v, want +Inf", got.Dt)
			}
		})
	}
	// Neither stiffness nor damping: no limit.
	s, err := spring.New(spring.DefaultParams(), node.GroundAt([3]float64{}), node.At(mp(2, [3]float64{3, 4, 0}), [3]float64{}))
	if err != nil {
		t.Fatal(err)
	}
	in := s.Spec().DefaultInputs()
	copy(in.Values, []float64{3, 4, 0, 0, 0, 0})
	if got := s.StableStepAt(0, nil, in); !math.IsInf(got.Dt, 1) {
		t.Errorf("k = c = 0: Dt = %v, want +Inf", got.Dt)
	}
}
