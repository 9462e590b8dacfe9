package springdamper_test

import (
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// TestDraw: a connector from a ground point to a mass is drawn between
// its actual attachment points: a grey cube at the ground point, then a
// coil from it to the mass's position as the inputs give it, of the
// default diameter and color unless draw_size and color say otherwise;
// with damping, a damper inside the coil (housing from marker 0, rod from
// marker 1); with set.CartesianSprings Exudyn's three coils x, y, z in
// turn; show false draws nothing; Simplified draws a line.
func TestDraw(t *testing.T) {
	m := newMass(t, 1, [3]float64{}, [3]float64{})
	p := springdamper.DefaultParams()
	n, err := springdamper.New(p, node.GroundAt([3]float64{0, 1, 0}), node.At(m, [3]float64{}))
	if err != nil {
		t.Fatal(err)
	}
	in := n.Spec().DefaultInputs()
	copy(in.Values[n.Spec().InputOffset("m1_position"):], []float64{2, -1, 0.5})
	set := node.DefaultDrawSettings()
	got := n.Draw(nil, in, &set, nil)
	if len(got) != 2 {
		t.Fatalf("%d shapes, want 2 (ground, coil): %+v", len(got), got)
	}
	if g, h := got[0], set.ConnectorSize/2; g.Kind != node.Box || g.P != [3]float64{0, 1, 0} || g.Color != set.GroundColor || g.Size != [3]float64{h, h, h} {
		t.Errorf("ground marker %+v, want a grey cube at (0, 1, 0) of edge %g (half the spring's diameter)", g, h)
	}
	if s := got[1]; s.Kind != node.Coil || s.P != [3]float64{0, 1, 0} || s.Q != [3]float64{2, -1, 0.5} || s.Size[0] != set.ConnectorSize || s.Color != set.ConnectorColor || s.Windings != set.SpringWindings {
		t.Errorf("spring %+v, want a default coil (0, 1, 0)→(2, -1, 0.5)", s)
	}
	if err := n.SetParams(map[string]any{"damping": []float64{0, 3, 0}}); err != nil {
		t.Fatal(err)
	}
	got = n.Draw(nil, in, &set, nil)
	if len(got) != 4 || got[2].Kind != node.Cylinder || got[2].P != [3]float64{0, 1, 0} || got[3].Kind != node.Cylinder || got[3].P != [3]float64{2, -1, 0.5} {
		t.Errorf("damped: %+v, want the coil and a damper (housing from marker 0, rod from marker 1)", got)
	}
	set.CartesianSprings = true
	got = n.Draw(nil, in, &set, nil)[1:]
	want := [][2][3]float64{{{0, 1, 0}, {2, 1, 0}}, {{2, 1, 0}, {2, -1, 0}}, {{2, -1, 0}, {2, -1, 0.5}}}
	if len(got) != 3 {
		t.Fatalf("Cartesian: %d shapes, want 3: %+v", len(got), got)
	}
	for i, s := range got {
		if s.Kind != node.Coil || s.P != want[i][0] || s.Q != want[i][1] {
			t.Errorf("Cartesian spring %d = %+v, want a coil %v→%v", i, s, want[i][0], want[i][1])
		}
	}
	set.CartesianSprings = false
	if err := n.SetParams(map[string]any{"drawSize": 0.3, "color": []float64{0, 1, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if got := n.Draw(nil, in, &set, nil); got[1].Size[0] != 0.3 || got[1].Color != [4]float64{0, 1, 0, 1} {
		t.Errorf("drawSize 0.3, color green: %+v", got[1])
	}
	set.Simplified = true
	if got := n.Draw(nil, in, &set, nil); len(got) != 2 || got[1].Kind != node.Line {
		t.Errorf("simplified: %+v, want the ground and a line", got)
	}
	if err := n.SetParams(map[string]any{"show": false}); err != nil {
		t.Fatal(err)
	}
	if got := n.Draw(nil, in, &set, nil); len(got) != 0 {
		t.Errorf("show false draws %+v", got)
	}
}
