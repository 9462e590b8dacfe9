package rigidbody2d

import (
	"math"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
)

// TestDraw: a square plate in the x–y plane at the position, turned by
// the angle about z (quaternion (cos θ/2, 0, 0, sin θ/2)), of side √(6I/m)
// (a uniform square of side a has I = m a²/6): m = 2, I = 3 gives a = 3.
func TestDraw(t *testing.T) {
	p := DefaultParams()
	p.Mass, p.Inertia = 2, 3
	n, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	set := node.DefaultDrawSettings()
	x := make([]float64, stateLen)
	x[offX], x[offX+1], x[offAngle] = 1, 2, math.Pi/2
	got := n.Draw(x, node.Inputs{}, &set, nil)
	if len(got) != 1 || got[0].Kind != node.Box || got[0].P != [3]float64{1, 2, 0} {
		t.Fatalf("%+v", got)
	}
	if !numtest.Within(got[0].Size[0], 3, 1e-15) || got[0].Size[0] != got[0].Size[1] {
		t.Errorf("side %v, want 3", got[0].Size)
	}
	// The plate's x axis turned a quarter turn points along y.
	if ax := node.Rotate(got[0].Rot, [3]float64{1, 0, 0}); !numtest.Within(ax[0], 0, 1e-15) || !numtest.Within(ax[1], 1, 1e-15) {
		t.Errorf("x axis after π/2: %v", ax)
	}
	if err := n.SetParams(map[string]any{"show": false}); err != nil {
		t.Fatal(err)
	}
	if got := n.Draw(x, node.Inputs{}, &set, nil); len(got) != 0 {
		t.Errorf("hidden: %+v", got)
	}
}

// TestDrawSizeAndThickness: the plate is a tenth of its side thick (the
// Draw contract), whether the side comes from draw_size or from the
// inertia. draw_size's description says only a negative value means the
// renderer's default, so 0 is taken as given (a plate of side 0), not
// replaced by √(6I/m). When √(6I/m) is not a positive finite number
// (here 6I/m = 6e-400 underflows to 0 in float64, whose smallest
// subnormal is about 4.9e-324), the plate falls back to the settings'
// BodySize instead of vanishing.
func TestDrawSizeAndThickness(t *testing.T) {
	set := node.DefaultDrawSettings()
	x := make([]float64, stateLen)
	cases := []struct {
		name          string
		mass, inertia float64
		drawSize      float64
		want          float64
	}{
		{"draw_size 0.2", 2, 3, 0.2, 0.2},
		{"draw_size 0", 2, 3, 0, 0},
		{"from inertia", 2, 3, -1, 3},
		{"underflowing inertia", 1e200, 1e-200, -1, set.BodySize},
	}
	for _, c := range cases {
		p := DefaultParams()
		p.Mass, p.Inertia = c.mass, c.inertia
		n := mustNew(t, p)
		if err := n.SetParams(map[string]any{"draw_size": c.drawSize}); err != nil {
			t.Fatal(err)
		}
		got := n.Draw(x, node.Inputs{}, &set, nil)
		if len(got) != 1 {
			t.Fatalf("%s: %+v", c.name, got)
		}
		if s := got[0].Size; !numtest.Within(s[0], c.want, 1e-15) || s[1] != s[0] || !numtest.Within(s[2], c.want/10, 1e-16) {
			t.Errorf("%s: size %v, want side %v and thickness %v", c.name, s, c.want, c.want/10)
		}
	}
}
