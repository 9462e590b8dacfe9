package nodes_test

import (
	"math"
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes"
)

// TestDrawers is the drawing contract for every registered type that
// implements node.Drawer (new types are checked as they are registered):
// it has the shared visualization parameters; at its initial state with
// its default inputs it draws primitives of known kinds with finite
// coordinates, positive sizes and colors in [0, 1]; it appends to dst
// without touching what is there; show = false draws nothing; and a
// color and draw_size given as parameters reach the drawing.
func TestDrawers(t *testing.T) {
	r := nodes.Registry()
	set := node.DefaultDrawSettings()
	drawn := 0
	for _, name := range r.Names() {
		n, err := r.New(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		d, ok := node.As[node.Drawer](n)
		if !ok {
			continue
		}
		drawn++
		s := n.Spec()
		for _, p := range []string{node.ParamShow, node.ParamDrawSize, node.ParamColor} {
			if _, ok := s.Param(p); !ok {
				t.Errorf("%s draws itself but has no %q parameter", name, p)
			}
		}
		x := make([]float64, s.StateLayout.Size())
		n.InitialState(x)
		sentinel := node.Primitive{Kind: node.Line, Q: [3]float64{7, 7, 7}}
		got := d.Draw(x, s.DefaultInputs(), &set, []node.Primitive{sentinel})
		if len(got) < 2 || got[0] != sentinel {
			t.Errorf("%s: Draw did not append to dst: %+v", name, got)
			continue
		}
		for _, p := range got[1:] {
			if p.Kind < node.Sphere || p.Kind > node.Line {
				t.Errorf("%s: primitive of kind %v", name, p.Kind)
			}
			for _, v := range append(append(p.P[:], p.Q[:]...), p.Rot[:]...) {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Errorf("%s: non-finite coordinate in %+v", name, p)
				}
			}
			if p.Kind != node.Line && !(p.Size[0] > 0) {
				t.Errorf("%s: %v of size %v", name, p.Kind, p.Size)
			}
			for _, c := range p.Color {
				if !(c >= 0 && c <= 1) {
					t.Errorf("%s: color %v outside [0, 1]", name, p.Color)
				}
			}
		}
		tn, ok := n.(node.Tunable)
		if !ok {
			t.Errorf("%s: a drawn node must be Tunable so show can be set", name)
			continue
		}
		if err := tn.SetParams(map[string]any{node.ParamColor: []float64{0.1, 0.2, 0.3, 1}, node.ParamDrawSize: 0.4}); err != nil {
			t.Fatal(err)
		}
		// Fixed things (a default connector has only its two ground
		// markers, its springs of zero length left out) keep the ground
		// color.
		colored, fixed := false, true
		for _, p := range d.Draw(x, s.DefaultInputs(), &set, nil) {
			colored = colored || p.Color == [4]float64{0.1, 0.2, 0.3, 1}
			fixed = fixed && p.Color == set.GroundColor
		}
		if !colored && !fixed {
			t.Errorf("%s: the color parameter does not reach the drawing", name)
		}
		if err := tn.SetParams(map[string]any{node.ParamShow: false}); err != nil {
			t.Fatal(err)
		}
		if got := d.Draw(x, s.DefaultInputs(), &set, nil); len(got) != 0 {
			t.Errorf("%s: show false still draws %+v", name, got)
		}
	}
	if drawn < 6 {
		t.Errorf("%d drawn types, want at least the six bodies and connectors", drawn)
	}
}
