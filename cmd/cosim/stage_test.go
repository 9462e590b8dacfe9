package main

import (
	"math"
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes"
)

// TestMedianNeighbourDistance: points on a line 1, 2 and 4 apart have
// nearest neighbours at 1, 1, 2 and 2 (median 2, the upper middle);
// fewer than two points give 0.
func TestMedianNeighbourDistance(t *testing.T) {
	if d := medianNeighbourDistance([][3]float64{{0, 0, 0}, {1, 0, 0}, {3, 0, 0}, {7, 0, 0}}); d != 2 {
		t.Errorf("median %v, want 2", d)
	}
	if d := medianNeighbourDistance([][3]float64{{1, 2, 3}}); d != 0 {
		t.Errorf("one point: %v", d)
	}
}

// TestFitSizes: the default body and spring sizes shrink to half the
// neighbour distance in a crowded scene (the 20 000 masses of the stiff
// chain about 0.5 µm apart), and stay as they are in a roomy one (the
// mass-spring chain, 1 m apart) or when the user set them.
func TestFitSizes(t *testing.T) {
	for _, c := range []struct {
		scene string
		crowd bool
	}{{"mass-spring-chain.json", false}, {"stiff-chain-20000.json", true}} {
		st := testStage(t, "../../examples/scenes/"+c.scene)
		if err := st.fitSizes(); err != nil {
			t.Fatal(err)
		}
		def := node.DefaultDrawSettings()
		switch {
		case !c.crowd && (st.set.BodySize != def.BodySize || st.set.ConnectorSize != def.ConnectorSize):
			t.Errorf("%s: sizes changed to %v, %v", c.scene, st.set.BodySize, st.set.ConnectorSize)
		case c.crowd && !(st.set.BodySize < 1e-6 && math.Abs(st.set.ConnectorSize/st.set.BodySize-1) < 1e-12):
			t.Errorf("%s: body size %v, spring size %v: want both below a micrometre", c.scene, st.set.BodySize, st.set.ConnectorSize)
		}
	}
}

// testStage is the stage of a scene file at its initial state, with the
// default drawing settings.
func testStage(t *testing.T, path string) *stage {
	t.Helper()
	sc, err := loadScene(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	sim, err := sc.Compile(nodes.Registry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := newStage(sc, sim, node.DefaultDrawSettings())
	if err != nil {
		t.Fatal(err)
	}
	return st
}
