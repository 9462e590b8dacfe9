package node_test

import (
	"math"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
)

// TestCoilPoints: the helix of a coil from P to Q has Windings·tiling+1
// points, starts at P and ends at Q on the axis, and every inner point is
// at distance diameter/2 from the axis (analytic: a helix of radius r
// around the segment), advancing uniformly along it.
func TestCoilPoints(t *testing.T) {
	s := node.Primitive{Kind: node.Coil, P: [3]float64{1, 2, 3}, Q: [3]float64{1, 2, 5}, Size: [3]float64{0.4}, Windings: 5}
	pts := node.CoilPoints(s, 12, nil)
	if len(pts) != 5*12+1 {
		t.Fatalf("%d points, want 61", len(pts))
	}
	if pts[0] != s.P || pts[len(pts)-1] != s.Q {
		t.Errorf("ends %v %v, want %v %v", pts[0], pts[len(pts)-1], s.P, s.Q)
	}
	// 1e-12: a few roundings of numbers of order 1.
	for j, p := range pts[1 : len(pts)-1] {
		r := math.Hypot(p[0]-1, p[1]-2)
		if !numtest.Within(r, 0.2, 1e-12) {
			t.Errorf("point %d at radius %v, want 0.2", j+1, r)
		}
		if want := 3 + 2*float64(j+1)/60; !numtest.Within(p[2], want, 1e-12) {
			t.Errorf("point %d at z %v, want %v", j+1, p[2], want)
		}
	}
	if got := node.CoilPoints(node.Primitive{Kind: node.Coil, P: [3]float64{1, 1, 1}, Q: [3]float64{1, 1, 1}, Windings: 3}, 8, nil); len(got) != 1 {
		t.Errorf("a coil of zero length has %d points, want 1", len(got))
	}
}

// TestCartesianSprings: Exudyn's three springs run along x, then y,
// then z from marker 0 to marker 1; a zero component leaves its spring
// out; Simplified draws lines.
func TestCartesianSprings(t *testing.T) {
	set := node.DefaultDrawSettings()
	p0, p1 := [3]float64{0, 0, 0}, [3]float64{1, 2, 3}
	got := node.CartesianSprings(p0, p1, 0.1, [4]float64{1, 0, 0, 1}, &set, nil)
	want := [][2][3]float64{{{0, 0, 0}, {1, 0, 0}}, {{1, 0, 0}, {1, 2, 0}}, {{1, 2, 0}, {1, 2, 3}}}
	if len(got) != 3 {
		t.Fatalf("%d springs, want 3", len(got))
	}
	for i, s := range got {
		if s.Kind != node.Coil || s.P != want[i][0] || s.Q != want[i][1] || s.Size[0] != 0.1 || s.Windings != set.SpringWindings {
			t.Errorf("spring %d = %+v, want a coil %v→%v", i, s, want[i][0], want[i][1])
		}
	}
	set.Simplified = true
	got = node.CartesianSprings(p0, [3]float64{0, -1, 0}, 0.1, [4]float64{}, &set, nil)
	if len(got) != 1 || got[0].Kind != node.Line || got[0].Q != [3]float64{0, -1, 0} {
		t.Errorf("simplified spring along y = %+v, want one line to (0, -1, 0)", got)
	}
}

// TestRotate: a quarter turn about z takes x to y (q = (cos π/4, 0, 0,
// sin π/4)); the zero quaternion is the identity.
func TestRotate(t *testing.T) {
	c := math.Sqrt(0.5)
	got := node.Rotate([4]float64{c, 0, 0, c}, [3]float64{1, 0, 0})
	if !numtest.Within(got[0], 0, 1e-15) || !numtest.Within(got[1], 1, 1e-15) || got[2] != 0 {
		t.Errorf("Rotate = %v, want (0, 1, 0)", got)
	}
	if got := node.Rotate([4]float64{}, [3]float64{1, 2, 3}); got != [3]float64{1, 2, 3} {
		t.Errorf("zero quaternion: %v", got)
	}
}

// TestVisual: the typed Appearance's zero value resolves to the map
// defaults (shown, size −1, color R −1), and Size/ColorOr fall back.
func TestVisual(t *testing.T) {
	specs := node.VisualParams("diameter")
	v := node.Values{}
	node.Appearance{}.Put(v)
	vals, err := node.Resolve("x", specs, nil, v)
	if err != nil {
		t.Fatal(err)
	}
	vis := node.VisualOf(vals)
	if !vis.Show || vis.Size(0.3) != 0.3 || vis.ColorOr([4]float64{0, 1, 0, 1}) != [4]float64{0, 1, 0, 1} {
		t.Errorf("default visual %+v", vis)
	}
	for _, p := range specs {
		if d := v[p.Name]; node.FormatValue(d) != node.FormatValue(p.Default) {
			t.Errorf("zero Appearance gives %s = %v, the spec default is %v", p.Name, d, p.Default)
		}
	}
	v = node.Values{}
	node.Appearance{Hidden: true, DrawSize: 2, Color: [4]float64{0, 0, 1, 1}}.Put(v)
	vis = node.VisualOf(v)
	if vis.Show || vis.Size(0.3) != 2 || vis.ColorOr([4]float64{}) != [4]float64{0, 0, 1, 1} {
		t.Errorf("set visual %+v", vis)
	}
	if _, err := node.Resolve("x", specs, nil, map[string]any{"drawSize": -2}); err == nil {
		t.Error("draw_size −2 accepted")
	}
	set := node.DefaultDrawSettings()
	if err := set.Check(); err != nil {
		t.Error(err)
	}
	set.CurveTiling = 2
	if set.Check() == nil {
		t.Error("curve tiling 2 accepted")
	}
}

// TestSpringDamper: a coil from p0 to p1, and with a damper a housing
// from p0 and a rod from p1, each 55 % of the length (so they overlap by
// 10 %); coincident points draw nothing.
func TestSpringDamper(t *testing.T) {
	set := node.DefaultDrawSettings()
	p0, p1 := [3]float64{0, 0, 0}, [3]float64{0, -2, 0}
	got := node.SpringDamper(p0, p1, 0.2, [4]float64{1, 0, 0, 1}, false, &set, nil)
	if len(got) != 1 || got[0].Kind != node.Coil || got[0].P != p0 || got[0].Q != p1 || got[0].Size[0] != 0.2 {
		t.Errorf("undamped: %+v, want one coil p0→p1", got)
	}
	got = node.SpringDamper(p0, p1, 0.2, [4]float64{1, 0, 0, 1}, true, &set, nil)
	if len(got) != 3 {
		t.Fatalf("damped: %d shapes, want 3", len(got))
	}
	h, r := got[1], got[2]
	if h.Kind != node.Cylinder || h.P != p0 || !numtest.Within(h.Q[1], -1.1, 1e-15) || h.Size[0] != 0.1 || h.Color != set.DamperColor {
		t.Errorf("housing %+v, want a cylinder of diameter 0.1 from p0 to y = -1.1", h)
	}
	if r.Kind != node.Cylinder || r.P != p1 || !numtest.Within(r.Q[1], -0.9, 1e-15) || !numtest.Within(r.Size[0], 0.04, 1e-15) {
		t.Errorf("rod %+v, want a cylinder of diameter 0.04 from p1 to y = -0.9", r)
	}
	if got := node.SpringDamper(p0, p0, 0.2, [4]float64{}, true, &set, nil); len(got) != 0 {
		t.Errorf("coincident points draw %+v", got)
	}
}

// TestRodSpring: rods of 0.4 ℓ₀ from both ends and a coil between them
// whose length grows by exactly the stretch (analytic: coil = ℓ − 0.8 ℓ₀);
// compressed below 0.89 ℓ₀ the rods shrink to 0.45 ℓ so a coil remains;
// zero rest length is a plain coil.
func TestRodSpring(t *testing.T) {
	set := node.DefaultDrawSettings()
	length := func(p node.Primitive) float64 {
		return math.Hypot(p.Q[0]-p.P[0], math.Hypot(p.Q[1]-p.P[1], p.Q[2]-p.P[2]))
	}
	for _, c := range []struct{ l, rod, coil float64 }{{1.1, 0.4, 0.3}, {1.25, 0.4, 0.45}, {0.5, 0.225, 0.05}} {
		got := node.RodSpring([3]float64{}, [3]float64{0, -c.l, 0}, 1, 0.1, [4]float64{0, 0, 1, 1}, &set, nil)
		if len(got) != 3 || got[0].Kind != node.Cylinder || got[1].Kind != node.Coil || got[2].Kind != node.Cylinder {
			t.Fatalf("ℓ = %v: %+v, want rod, coil, rod", c.l, got)
		}
		// 1e-12: sums of a few numbers of order 1.
		if !numtest.Within(length(got[0]), c.rod, 1e-12) || !numtest.Within(length(got[2]), c.rod, 1e-12) || !numtest.Within(length(got[1]), c.coil, 1e-12) {
			t.Errorf("ℓ = %v: rods %v, %v and coil %v, want %v and %v", c.l, length(got[0]), length(got[2]), length(got[1]), c.rod, c.coil)
		}
		if got[0].P != ([3]float64{}) || got[2].Q != [3]float64{0, -c.l, 0} || got[0].Q != got[1].P || got[1].Q != got[2].P {
			t.Errorf("ℓ = %v: the pieces do not join end to end: %+v", c.l, got)
		}
	}
	if got := node.RodSpring([3]float64{}, [3]float64{1, 0, 0}, 0, 0.1, [4]float64{}, &set, nil); len(got) != 1 || got[0].Kind != node.Coil {
		t.Errorf("zero rest length: %+v, want one coil", got)
	}
	if got := node.RodSpring([3]float64{}, [3]float64{}, 1, 0.1, [4]float64{}, &set, nil); len(got) != 0 {
		t.Errorf("coincident points draw %+v", got)
	}
}
