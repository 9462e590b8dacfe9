package benchmarks

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/nodes"
)

// sameBits fails unless a and b are equal bit for bit.
func sameBits(t *testing.T, what string, a, b []float64) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%s: %d values with kernels, %d without", what, len(a), len(b))
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			t.Fatalf("%s: state[%d] = %v with kernels, %v without", what, i, a[i], b[i])
		}
	}
}

// familyTypes lists the node types of s's families.
func familyTypes(s *graph.Sim) map[string]bool {
	out := map[string]bool{}
	for _, f := range s.Families() {
		out[f.Type] = true
	}
	return out
}

// familySize is the number of members of node name's family, 0 when
// it is in none.
func familySize(s *graph.Sim, name string) int {
	for _, f := range s.Families() {
		if slices.Contains(f.Nodes, name) {
			return len(f.Nodes)
		}
	}
	return 0
}

// W6 with the control kernels and without them is the same model: after
// 2000 steps (through the reference step at 0.5 s and the actuator's
// saturation) the states agree bit for bit with 1 and 2 workers, and the
// control blocks form families only with their kernels.
func TestPIDLoopsKernelsMatchPerNode(t *testing.T) {
	const n = 20
	var ref []float64
	for _, kernels := range []bool{false, true} {
		for _, w := range []int{1, 2} {
			s, err := PIDLoops(n, kernels)
			if err != nil {
				t.Fatal(err)
			}
			fams := familyTypes(s)
			for _, typ := range []string{"pid", "lag", "saturation"} {
				if fams[typ] != kernels {
					t.Errorf("kernels %v: a family of %s: %v", kernels, typ, fams[typ])
				}
			}
			if _, err := s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Workers: w}, Dt: LoopDt, Steps: 2000}); err != nil {
				t.Fatal(err)
			}
			x := s.State(nil)
			if ref == nil {
				ref = x
				continue
			}
			sameBits(t, fmt.Sprintf("kernels %v, %d workers", kernels, w), x, ref)
		}
	}
	// And the loop does its job: the integral action brings the mass to
	// the reference (1 m) within 5 % by t = 10 s, as in the scene it
	// extends (its 2 % settling time is about 3.6 s after the step).
	s, err := PIDLoops(1, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(context.Background(), graph.Settings{Dt: LoopDt, Steps: 10000}); err != nil {
		t.Fatal(err)
	}
	x, err := s.Value("l0_mass.position[0]")
	if err != nil {
		t.Fatal(err)
	}
	if !numtest.Within(x[0], 1, 0.05) {
		t.Errorf("position at 10 s = %v, want the reference 1 within 0.05", x[0])
	}
}

// Every control block type of the per-type benchmark ends in the same
// bits with its kernel and without, and its blocks form one family only
// with it.
func TestControlFamilyKernelsMatchPerNode(t *testing.T) {
	reg := nodes.Registry()
	for _, c := range ControlBlockTypes() {
		t.Run(c.Name, func(t *testing.T) {
			var ref []float64
			for _, kernels := range []bool{false, true} {
				s, err := ControlFamily(reg, c.Name, 10, kernels)
				if err != nil {
					t.Fatal(err)
				}
				want := 0
				if kernels {
					want = 10 // one family of every block
				}
				if got := familySize(s, "b0"); got != want {
					t.Errorf("kernels %v: %s b0 is in a family of %d, want %d", kernels, c.Name, got, want)
				}
				if _, err := s.Run(context.Background(), graph.Settings{Dt: LoopDt, Steps: 300}); err != nil {
					t.Fatal(err)
				}
				if x := s.State(nil); ref == nil {
					ref = x
				} else {
					sameBits(t, c.Name, x, ref)
				}
			}
		})
	}
}
