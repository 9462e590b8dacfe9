package masspoint

import (
	"testing"

	"github.com/cosimgo/cosim/node"
)

// The batch reads one row of parameters when its members' laws of motion
// are equal, whatever their initial conditions (a chain of equal masses
// at different places), and one row per member once a SetParams makes
// one law differ. What the kernels compute is held to the members'
// methods by TestBatchKernelEqualLawThenTuned; this pins the layout, on
// which a long chain's memory traffic depends (80 bytes of parameters
// per mass and evaluation when every row is read).
func TestBatchUniformLaw(t *testing.T) {
	members := make([]node.Node, 4)
	for i := range members {
		m, err := New(Params{Mass: 2, Gravity: [3]float64{0, 0, -1}, InitialPosition: [3]float64{float64(i), 0, 0}, InitialVelocity: [3]float64{0, float64(-i), 0}})
		if err != nil {
			t.Fatal(err)
		}
		members[i] = m
	}
	b := members[0].(*Node).NewBatch(members).(*batch)
	if _, stride := b.laws.Walk(0, 4); !b.laws.Uniform() || stride != 0 {
		t.Fatalf("equal laws, different initial conditions: uniform %v, row stride %d; want true, 0", b.laws.Uniform(), stride)
	}
	// An initial condition changed alone leaves the law shared.
	if err := members[1].(*Node).SetParams(map[string]any{"initial_position": []float64{9, 9, 9}}); err != nil {
		t.Fatal(err)
	}
	if !b.laws.Uniform() {
		t.Fatal("a SetParams of initial_position alone made the batch non-uniform")
	}
	if err := members[3].(*Node).SetParams(map[string]any{"mass": 5.0}); err != nil {
		t.Fatal(err)
	}
	if _, stride := b.laws.Walk(0, 4); b.laws.Uniform() || stride == 0 || b.laws.At(3).mass != 5 || b.laws.At(0).mass != 2 {
		t.Fatalf("after member 3's mass changed: uniform %v, row stride %d, masses %v, %v; want false, > 0, 2, 5",
			b.laws.Uniform(), stride, b.laws.At(0).mass, b.laws.At(3).mass)
	}
}
