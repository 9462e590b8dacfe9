package graph_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
)

// A zero-factor Scale's error suggests the transform that works as
// written, from the units the Scale declares when it declares any (then
// adding that a conversion needs the factor), otherwise from the edge's
// own units (kN into N: the factor 1000, and no word of a conversion the
// Scale never declared).
func TestMutScaleZeroFactorUnits(t *testing.T) {
	for _, c := range []struct {
		name  string
		tr    graph.Scale
		wants []string
		lacks []string
	}{
		{"no units", graph.Scale{}, []string{`use graph.Scale{Factor: 1000, From: "kN", To: "N"}`}, []string{"a unit conversion"}},
		{"From only", graph.Scale{From: "mm"}, []string{"a unit conversion needs the factor too", `From: "mm", To: ""`}, nil},
	} {
		g := graph.New()
		g.Add("mass", newMass(1, 0))
		g.Add("src", newSource("kN", 1))
		g.Connect("src.value", "mass.force", graph.Via(c.tr))
		be := buildErr(t, g)
		if !errors.Is(be, graph.ErrTransform) {
			t.Fatalf("%s: error %v is not ErrTransform", c.name, be)
		}
		for _, w := range c.wants {
			if !strings.Contains(be.Error(), w) {
				t.Errorf("%s: message %q lacks %q", c.name, be.Error(), w)
			}
		}
		for _, w := range c.lacks {
			if strings.Contains(be.Error(), w) {
				t.Errorf("%s: message %q has %q", c.name, be.Error(), w)
			}
		}
	}
}

// Embed onto a vector of one component is valid: the scalar becomes
// Vec(1) (axis 0 of 1 is inside the vector).
func TestMutEmbedLenOne(t *testing.T) {
	sh, err := graph.Embed{Axis: 0, Len: 1}.OutShape(node.Scalar)
	if err != nil || sh != node.Vec(1) {
		t.Fatalf("Embed{0, 1}.OutShape(scalar) = %v, %v; want Vec(1)", sh, err)
	}
	dst := []float64{7}
	graph.Embed{Axis: 0, Len: 1}.Apply(dst, []float64{3})
	if dst[0] != 3 {
		t.Errorf("Apply = %v, want [3]", dst)
	}
	if _, err := (graph.Embed{Axis: 1, Len: 1}).OutShape(node.Scalar); err == nil {
		t.Error("axis 1 of a vector of 1 accepted")
	}
}
