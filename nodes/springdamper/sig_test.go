package springdamper_test

import (
	"reflect"
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// TestSpecShared: connectors of one signature (user function presence,
// bodies by content) share one Spec, also when each body instance has a
// spec of its own (the ball builds one per instance); different
// signatures have different specs; and a shared spec is the one a
// connector of that signature would build (checked field by field
// against a connector built first in a fresh signature).
func TestSpecShared(t *testing.T) {
	p := springdamper.DefaultParams()
	p.Stiffness = [3]float64{10, 10, 10}
	m1, m2 := newMass(t, 1, [3]float64{}, [3]float64{}), newMass(t, 2, [3]float64{1, 0, 0}, [3]float64{})
	mm := func(a, b node.Marker) *springdamper.Node {
		t.Helper()
		n, err := springdamper.New(p, node.At(a, [3]float64{}), node.At(b, [3]float64{}))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	ground := func(a node.Marker) *springdamper.Node {
		t.Helper()
		local := [3]float64{0, 0, 1} // a ball's axis; ignored by a mass
		n, err := springdamper.New(p, node.GroundAt([3]float64{1, 2, 3}), node.At(a, local))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if a, b := mm(m1, m2), mm(m2, m1); a.Spec() != b.Spec() {
		t.Error("two mass–mass connectors have different specs")
	}
	if a, b := ground(m1), ground(m2); a.Spec() != b.Spec() {
		t.Error("two ground–mass connectors have different specs")
	}
	if mm(m1, m2).Spec() == ground(m1).Spec() {
		t.Error("mass–mass and ground–mass connectors share a spec")
	}
	b1, b2 := newBall(t), newBall(t)
	if b1.Spec() == b2.Spec() {
		t.Fatal("the ball no longer builds a spec per instance: this test needs another such body")
	}
	if a, b := ground(b1), ground(b2); a.Spec() != b.Spec() {
		t.Error("connectors on two balls (equal specs, distinct values) have different specs")
	}
	pf := p
	pf.ForceFunc = func(t float64, item int, dp, dv, k, d, off [3]float64) [3]float64 { return [3]float64{} }
	f, err := springdamper.New(pf, node.At(m1, [3]float64{}), node.At(m2, [3]float64{}))
	if err != nil {
		t.Fatal(err)
	}
	if f.Spec() == mm(m1, m2).Spec() {
		t.Error("connectors with and without a user function share a spec")
	}
	if f.Spec().OutputLayout.Index("potential_energy") >= 0 {
		t.Error("a connector with a user function has a PotentialEnergy output")
	}
	want := []string{"m0_position", "m0_velocity", "m1_position", "m1_velocity"}
	if got := mm(m1, m2).Spec().InputLayout.Names(); !reflect.DeepEqual(got, want) {
		t.Errorf("inputs %v, want %v", got, want)
	}
	want = []string{"displacement", "distance", "velocity", "force", "potential_energy", "m0_force", "m1_force"}
	if got := mm(m1, m2).Spec().OutputLayout.Names(); !reflect.DeepEqual(got, want) {
		t.Errorf("outputs %v, want %v", got, want)
	}
}

// TestNewAllocations: once its signature and Params have been seen, a
// connector costs one allocation (the Node): no spec, no parameter map.
func TestNewAllocations(t *testing.T) {
	p := springdamper.DefaultParams()
	m1, m2 := newMass(t, 1, [3]float64{}, [3]float64{}), newMass(t, 1, [3]float64{}, [3]float64{})
	a, b := node.At(m1, [3]float64{}), node.At(m2, [3]float64{})
	if _, err := springdamper.New(p, a, b); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = springdamper.New(p, a, b) }); n > 1 {
		t.Errorf("New allocates %v times, want 1", n)
	}
}

// TestSharedParamsNotAliased: connectors built from equal Params share
// their validated values; SetParams on one must not reach the other,
// and Params returns copies.
func TestSharedParamsNotAliased(t *testing.T) {
	p := springdamper.DefaultParams()
	p.Stiffness = [3]float64{7, 7, 7}
	g := [3]float64{}
	a, err := springdamper.New(p, node.GroundAt(g), node.GroundAt(g))
	if err != nil {
		t.Fatal(err)
	}
	b, err := springdamper.New(p, node.GroundAt(g), node.GroundAt(g))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.SetParams(map[string]any{"stiffness": []float64{1, 2, 3}}); err != nil {
		t.Fatal(err)
	}
	a.Params().Floats("damping")[0] = 99
	if got := b.Params(); got.Floats("stiffness")[0] != 7 || got.Floats("damping")[0] != 0 {
		t.Errorf("b's parameters changed with a's: %v", got)
	}
	if f, _ := b.Force(0, [3]float64{1, 1, 1}, [3]float64{}); f != [3]float64{7, 7, 7} {
		t.Errorf("b's force %v, want [7 7 7] (k = 7, Δp = 1)", f)
	}
	if f, _ := a.Force(0, [3]float64{1, 1, 1}, [3]float64{}); f != [3]float64{1, 2, 3} {
		t.Errorf("a's force %v, want [1 2 3] after SetParams", f)
	}
}
