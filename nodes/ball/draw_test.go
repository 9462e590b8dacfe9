package ball_test

import (
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/ball"
)

// TestDraw: the ball is a sphere on the vertical axis y resting on its
// position (centre at position + radius), of diameter draw_size.
func TestDraw(t *testing.T) {
	p := ball.DefaultParams()
	p.Appearance.DrawSize = 0.2
	n := newBall(t, p)
	set := node.DefaultDrawSettings()
	got := n.Draw([]float64{1.5, -2}, n.Spec().DefaultInputs(), &set, nil)
	if len(got) != 1 || got[0].Kind != node.Sphere || got[0].P != [3]float64{0, 1.6, 0} || got[0].Size[0] != 0.1 || got[0].Color != set.BodyColor {
		t.Errorf("%+v", got)
	}
	if err := n.SetParams(map[string]any{"show": false}); err != nil {
		t.Fatal(err)
	}
	if got := n.Draw([]float64{1.5, -2}, n.Spec().DefaultInputs(), &set, nil); len(got) != 0 {
		t.Errorf("hidden: %+v", got)
	}
}
