package nodes_test

import (
	"math"
	"reflect"
	"slices"
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
			if !slices.Contains(node.PrimKinds(), p.Kind) {
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
	if drawn < 7 {
		t.Errorf("%d drawn types, want at least the bodies, the table and the two connectors", drawn)
	}
}

// TestPositionedTypesDraw: every registered type that has a place in the
// world draws itself. A type has a place when connectors attach to it
// (node.Marker), when it is a connector (it sits between two points),
// when a state field has the Position role, or when it has a parameter or
// output "position" in m (a table's height). Types without one (the
// constant and the sources) are not drawn as geometry: the viewer lists
// them beside the scene.
func TestPositionedTypesDraw(t *testing.T) {
	r := nodes.Registry()
	var unplaced []string
	for _, typ := range nodes.Types() {
		n, err := r.New(typ.Name, nil)
		if err != nil {
			t.Fatal(err)
		}
		s := n.Spec()
		_, marker := node.As[node.Marker](n)
		why := ""
		switch {
		case marker:
			why = "connectors attach to it (node.Marker)"
		case typ.Connector != nil:
			why = "it is a connector"
		default:
			for _, f := range s.State {
				if f.Role == node.Position {
					why = "its state field " + f.Name + " has the Position role"
				}
			}
			for _, f := range s.Outputs {
				if f.Name == "position" && f.Units == "m" {
					why = "it has an output position in m"
				}
			}
			for _, p := range s.Params {
				if p.Name == "position" && p.Units == "m" {
					why = "it has a parameter position in m"
				}
			}
		}
		if why == "" {
			unplaced = append(unplaced, typ.Name)
			continue
		}
		if _, ok := node.As[node.Drawer](n); !ok {
			t.Errorf("%s has a place in the world (%s) but does not draw itself: implement node.Drawer", typ.Name, why)
		}
	}
	// The check must not pass by calling everything unplaced.
	for _, name := range unplaced {
		// Sources and control blocks are signals, not bodies.
		if !slices.Contains([]string{"constant", "sine", "step", "ramp", "pulse", "lookup"}, name) && !slices.Contains(controlTypes(), name) {
			t.Errorf("%s has no place in the world by this test's rules: is that right?", name)
		}
	}
}

// controlTypes are the names of the control blocks: the types whose nodes
// come from package control.
func controlTypes() []string {
	var names []string
	r := nodes.Registry()
	for _, typ := range nodes.Types() {
		n, err := r.New(typ.Name, nil)
		if err != nil {
			continue
		}
		rt := reflect.TypeOf(n)
		if rt.Kind() == reflect.Pointer {
			rt = rt.Elem()
		}
		if rt.PkgPath() == "github.com/cosimgo/cosim/nodes/control" {
			names = append(names, typ.Name)
		}
	}
	return names
}
