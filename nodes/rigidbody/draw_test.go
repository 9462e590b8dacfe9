package rigidbody

import (
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
)

// TestDraw: a box at the position turned by the orientation, with the
// edges of the uniform box of the same mass and inertia. Reference: a
// uniform box of mass m and edges (a, b, c) has I₁ = m(b²+c²)/12 (and
// cyclically); for m = 12, (a, b, c) = (1, 2, 3): I = (13, 10, 5).
func TestDraw(t *testing.T) {
	p := DefaultParams()
	p.Mass, p.Inertia = 12, [3]float64{13, 10, 5}
	n, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	set := node.DefaultDrawSettings()
	x := make([]float64, spec.StateLayout.Size())
	copy(x[offPos:], []float64{1, 2, 3})
	copy(x[offQuat:], []float64{0, 0, 0, 1})
	got := n.Draw(x, node.Inputs{}, &set, nil)
	if len(got) != 1 || got[0].Kind != node.Box || got[0].P != [3]float64{1, 2, 3} || got[0].Rot != [4]float64{0, 0, 0, 1} {
		t.Fatalf("%+v", got)
	}
	for i, want := range []float64{1, 2, 3} {
		if !numtest.Within(got[0].Size[i], want, 1e-14) { // a square root of a few roundings
			t.Errorf("edge %d = %v, want %v", i, got[0].Size[i], want)
		}
	}
	if err := n.SetParams(map[string]any{"draw_size": 0.2}); err != nil {
		t.Fatal(err)
	}
	if got := n.Draw(x, node.Inputs{}, &set, nil); got[0].Size != [3]float64{0.2, 0.2, 0.2} {
		t.Errorf("draw_size 0.2: %v", got[0].Size)
	}
	// draw_size's description says only a negative value means the
	// default size: 0 is taken as given, not replaced by the equivalent box.
	if err := n.SetParams(map[string]any{"draw_size": 0.0}); err != nil {
		t.Fatal(err)
	}
	if got := n.Draw(x, node.Inputs{}, &set, nil); got[0].Size != [3]float64{} {
		t.Errorf("draw_size 0: %v", got[0].Size)
	}
	if e := EquivalentBox(1, [3]float64{0, 0, 0}, 0.1); e != [3]float64{0.1, 0.1, 0.1} {
		t.Errorf("zero inertia: %v", e)
	}
	if err := n.SetParams(map[string]any{"show": false}); err != nil {
		t.Fatal(err)
	}
	if got := n.Draw(x, node.Inputs{}, &set, nil); len(got) != 0 {
		t.Errorf("hidden: %+v", got)
	}
}
