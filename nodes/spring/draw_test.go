package spring_test

import (
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/spring"
)

// TestDraw: a pendulum's spring from a ground pivot to a bob is drawn
// as the pivot (a grey cube), a rod, a coil and a rod ending at the bob's
// position as the inputs give it; show false draws nothing.
func TestDraw(t *testing.T) {
	p := spring.DefaultParams()
	p.Stiffness, p.RestLength = 400, 1
	n, err := spring.New(p, node.GroundAt([3]float64{0, 0, 0}), node.GroundAt([3]float64{0, -1.05, 0}))
	if err != nil {
		t.Fatal(err)
	}
	set := node.DefaultDrawSettings()
	got := n.Draw(nil, n.Spec().DefaultInputs(), &set, nil)
	if len(got) != 5 {
		t.Fatalf("%d shapes, want 5 (two ground markers, rod, coil, rod): %+v", len(got), got)
	}
	if got[0].Kind != node.Box || got[0].P != ([3]float64{}) || got[0].Color != set.GroundColor {
		t.Errorf("pivot %+v, want a grey cube at the origin", got[0])
	}
	// The pivot is a cube of half the coil's diameter (ConnectorSize,
	// draw_size being −1), as Draw documents.
	if want := set.ConnectorSize / 2; got[0].Size != [3]float64{want, want, want} || got[3].Size[0] != set.ConnectorSize {
		t.Errorf("pivot size %v, coil size %v: want a cube of edge %v and a coil of diameter %v", got[0].Size, got[3].Size, want, set.ConnectorSize)
	}
	if got[2].Kind != node.Cylinder || got[2].P != ([3]float64{}) || got[3].Kind != node.Coil || got[4].Q != [3]float64{0, -1.05, 0} {
		t.Errorf("spring %+v, want rod, coil, rod from the pivot to the bob", got[2:])
	}
	if err := n.SetParams(map[string]any{"show": false}); err != nil {
		t.Fatal(err)
	}
	if got := n.Draw(nil, n.Spec().DefaultInputs(), &set, nil); len(got) != 0 {
		t.Errorf("show false draws %+v", got)
	}
}
