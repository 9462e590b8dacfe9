package benchmarks

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cosimgo/cosim/graph"
)

// W5's two graphs are the same model: after a run their states agree bit
// for bit, with the same families found.
func TestCornersSubsystemsMatchFlat(t *testing.T) {
	flat, err := Corners(10, false)
	if err != nil {
		t.Fatal(err)
	}
	nested, err := Corners(10, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*graph.Sim{flat, nested} {
		if _, err := s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Workers: 2}, Dt: CornerDt, Steps: 200}); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(flat.State(nil), nested.State(nil)); diff != "" {
		t.Errorf("states differ (-flat +subsystems):\n%s", diff)
	}
	if a, b := len(flat.Families()), len(nested.Families()); a != b || a == 0 {
		t.Errorf("%d families flat, %d with subsystems; want the same, non-zero", a, b)
	}
}
