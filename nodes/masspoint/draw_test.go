package masspoint

import (
	"testing"

	"github.com/cosimgo/cosim/node"
)

// TestDraw: a sphere of diameter draw_size at the state's position (its
// three radii equal, half the diameter), the settings' body size and
// color by default, nothing when hidden.
func TestDraw(t *testing.T) {
	n, err := New(DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	set := node.DefaultDrawSettings()
	x := []float64{1, 2, 3, 0, 0, 0}
	got := n.Draw(x, node.Inputs{}, &set, nil)
	if len(got) != 1 || got[0].Kind != node.Sphere || got[0].P != [3]float64{1, 2, 3} || got[0].Size != [3]float64{set.BodySize / 2, set.BodySize / 2, set.BodySize / 2} || got[0].Color != set.BodyColor {
		t.Errorf("default: %+v", got)
	}
	p := DefaultParams()
	p.Appearance = node.Appearance{DrawSize: 0.5, Color: [4]float64{0, 0, 1, 1}}
	if n, err = New(p); err != nil {
		t.Fatal(err)
	}
	if got := n.Draw(x, node.Inputs{}, &set, nil); got[0].Size != [3]float64{0.25, 0.25, 0.25} || got[0].Color != [4]float64{0, 0, 1, 1} {
		t.Errorf("draw_size 0.5: %+v", got)
	}
	if err := n.SetParams(map[string]any{"show": false}); err != nil {
		t.Fatal(err)
	}
	if got := n.Draw(x, node.Inputs{}, &set, nil); len(got) != 0 {
		t.Errorf("hidden: %+v", got)
	}
}
