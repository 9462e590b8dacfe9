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

// TestDrawSettingsCheckBounds: Check accepts exactly the documented
// ranges — sizes finite and strictly positive, 1 to 1000 spring windings,
// 3 to 1000 segments per winding — so each bound is probed on both sides.
func TestDrawSettingsCheckBounds(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*node.DrawSettings)
		ok   bool
	}{
		{"connector size 0", func(s *node.DrawSettings) { s.ConnectorSize = 0 }, false},
		{"connector size +Inf", func(s *node.DrawSettings) { s.ConnectorSize = math.Inf(1) }, false},
		{"body size 0", func(s *node.DrawSettings) { s.BodySize = 0 }, false},
		{"body size NaN", func(s *node.DrawSettings) { s.BodySize = math.NaN() }, false},
		{"0 windings", func(s *node.DrawSettings) { s.SpringWindings = 0 }, false},
		{"1 winding", func(s *node.DrawSettings) { s.SpringWindings = 1 }, true},
		{"1000 windings", func(s *node.DrawSettings) { s.SpringWindings = 1000 }, true},
		{"1001 windings", func(s *node.DrawSettings) { s.SpringWindings = 1001 }, false},
		{"tiling 3", func(s *node.DrawSettings) { s.CurveTiling = 3 }, true},
		{"tiling 1000", func(s *node.DrawSettings) { s.CurveTiling = 1000 }, true},
		{"tiling 1001", func(s *node.DrawSettings) { s.CurveTiling = 1001 }, false},
	} {
		set := node.DefaultDrawSettings()
		c.edit(&set)
		if err := set.Check(); (err == nil) != c.ok {
			t.Errorf("%s: Check() = %v, want accepted %v", c.name, err, c.ok)
		}
	}
}

// TestVisualSizeZero: draw_size accepts 0 (its range is [−1, ∞)), and
// Size falls back to the default only for a negative size, so a size of
// 0 is returned as is.
func TestVisualSizeZero(t *testing.T) {
	if got := (node.Visual{DrawSize: 0}).Size(0.3); got != 0 {
		t.Errorf("Size of draw_size 0 = %v, want 0", got)
	}
}

// within3 reports whether a and b agree to tol in every component.
func within3(a, b [3]float64, tol float64) bool {
	for i := range a {
		if !numtest.Within(a[i], b[i], tol) {
			return false
		}
	}
	return true
}

// TestDrawGeneralPosition: the drawing helpers on points with no zero
// coordinate, so each component of every shape is checked: a damper's
// housing ends at p0 + 0.55 (p1 − p0) and its rod at p1 + 0.55 (p0 − p1),
// with diameters size/2 and size/5 in all three Size slots; a rod spring
// of rest length ℓ₀ = 2 has rods of 0.4 ℓ₀ = 0.8 along the unit direction
// and diameter size/4. The expected points are computed by hand from
// those documented fractions.
func TestDrawGeneralPosition(t *testing.T) {
	set := node.DefaultDrawSettings()
	p0, p1 := [3]float64{1, 2, 3}, [3]float64{3, 5, 9} // p1 − p0 = (2, 3, 6), length 7
	got := node.SpringDamper(p0, p1, 0.2, [4]float64{1, 0, 0, 1}, true, &set, nil)
	if len(got) != 3 {
		t.Fatalf("damped: %d shapes, want 3", len(got))
	}
	// 1e-14: one multiply-add of numbers of order 10.
	if h := got[1]; !within3(h.Q, [3]float64{2.1, 3.65, 6.3}, 1e-14) || h.Size != [3]float64{0.1, 0.1, 0.1} {
		t.Errorf("housing %+v, want Q = (2.1, 3.65, 6.3), Size 0.1 in every slot", h)
	}
	if r := got[2]; !within3(r.Q, [3]float64{1.9, 3.35, 5.7}, 1e-14) || !within3(r.Size, [3]float64{0.04, 0.04, 0.04}, 1e-17) {
		t.Errorf("rod %+v, want Q = (1.9, 3.35, 5.7), Size 0.04 in every slot", r)
	}

	// ℓ = 7 and ℓ₀ = 2: rods of 0.8 = 0.4·2 (< 0.45·7), i.e. 0.8/7 of p1 − p0.
	got = node.RodSpring(p0, p1, 2, 0.2, [4]float64{0, 0, 1, 1}, &set, nil)
	if len(got) != 3 {
		t.Fatalf("rod spring: %d shapes, want 3", len(got))
	}
	a := [3]float64{1 + 1.6/7, 2 + 2.4/7, 3 + 4.8/7}
	b := [3]float64{3 - 1.6/7, 5 - 2.4/7, 9 - 4.8/7}
	if !within3(got[0].Q, a, 1e-14) || !within3(got[2].P, b, 1e-14) {
		t.Errorf("rods end at %v and %v, want %v and %v", got[0].Q, got[2].P, a, b)
	}
	for _, i := range []int{0, 2} {
		if got[i].Size != [3]float64{0.05, 0.05, 0.05} {
			t.Errorf("rod %d Size %v, want 0.05 (size/4) in every slot", i, got[i].Size)
		}
	}
}

// TestCoilPointsGeneralAxis: the helix around an axis in general
// position, against the documented construction computed by hand: the
// axis direction n = (2, 3, 6)/7 is least aligned with world x, so
// u = n × x̂ normalized = (0, 6, −3)/√45, v = n × u = (−45, 6, 12)/(7√45),
// and point j of W·T + 1 is P + f (Q − P) + r (cos 2πWf u + sin 2πWf v)
// with f = j/(W·T), the ends on the axis.
func TestCoilPointsGeneralAxis(t *testing.T) {
	P, Q := [3]float64{1, 2, 3}, [3]float64{3, 5, 9}
	s := node.Primitive{Kind: node.Coil, P: P, Q: Q, Size: [3]float64{0.4, 0.4, 0.4}, Windings: 2}
	pts := node.CoilPoints(s, 4, nil)
	if len(pts) != 9 {
		t.Fatalf("%d points, want 9", len(pts))
	}
	s45 := math.Sqrt(45)
	u := [3]float64{0, 6 / s45, -3 / s45}
	v := [3]float64{-45 / (7 * s45), 6 / (7 * s45), 12 / (7 * s45)}
	for j, p := range pts {
		f := float64(j) / 8
		c, sn := math.Cos(4*math.Pi*f), math.Sin(4*math.Pi*f)
		if j == 0 || j == 8 {
			c, sn = 0, 0
		}
		var want [3]float64
		for i := range want {
			want[i] = P[i] + f*(Q[i]-P[i]) + 0.2*(c*u[i]+sn*v[i])
		}
		// 1e-13: a few roundings of numbers of order 10.
		if !within3(p, want, 1e-13) {
			t.Errorf("point %d = %v, want %v", j, p, want)
		}
	}
}

// TestCoilPointsStartDirection: the helix starts toward u = n × e, e the
// first world axis least aligned with the axis n (the browser renderer
// draws the same points). Along x the least aligned are y and z, so e = ŷ
// and u = x̂ × ŷ = ẑ; along z they are x and y, so e = x̂ and u = ẑ × x̂ = ŷ.
// The first point after P is P + (Q − P)/(W·T) + r (cos φ u + sin φ v),
// φ = 2π/T, v = n × u.
func TestCoilPointsStartDirection(t *testing.T) {
	c, sn := math.Cos(2*math.Pi/4), math.Sin(2*math.Pi/4)
	for _, tc := range []struct {
		q, u, v [3]float64
	}{
		{[3]float64{1, 0, 0}, [3]float64{0, 0, 1}, [3]float64{0, -1, 0}},
		{[3]float64{0, 0, 1}, [3]float64{0, 1, 0}, [3]float64{-1, 0, 0}},
	} {
		s := node.Primitive{Kind: node.Coil, Q: tc.q, Size: [3]float64{2, 2, 2}, Windings: 1}
		pts := node.CoilPoints(s, 4, nil)
		var want [3]float64
		for i := range want {
			want[i] = tc.q[i]/4 + c*tc.u[i] + sn*tc.v[i]
		}
		if len(pts) != 5 || !within3(pts[1], want, 1e-15) {
			t.Errorf("coil along %v: first point %v, want %v", tc.q, pts[1], want)
		}
	}
}

// TestRotateGeneral: Rotate against the rotation matrix of the unit
// quaternion (w, x, y, z) (the standard closed form, an independent
// computation), for a quaternion with no zero component; and a third of
// a turn about (1, 1, 1), q = (½, ½, ½, ½), permutes the axes x → y → z.
func TestRotateGeneral(t *testing.T) {
	if got := node.Rotate([4]float64{0.5, 0.5, 0.5, 0.5}, [3]float64{1, 2, 3}); !within3(got, [3]float64{3, 1, 2}, 1e-15) {
		t.Errorf("third turn about (1,1,1) of (1,2,3) = %v, want (3,1,2)", got)
	}
	n := math.Sqrt(1 + 4 + 9 + 16)
	w, x, y, z := 1/n, -2/n, 3/n, 4/n
	m := [3][3]float64{
		{1 - 2*(y*y+z*z), 2 * (x*y - w*z), 2 * (x*z + w*y)},
		{2 * (x*y + w*z), 1 - 2*(x*x+z*z), 2 * (y*z - w*x)},
		{2 * (x*z - w*y), 2 * (y*z + w*x), 1 - 2*(x*x+y*y)},
	}
	p := [3]float64{0.5, -1.5, 2.5}
	var want [3]float64
	for i := range 3 {
		want[i] = m[i][0]*p[0] + m[i][1]*p[1] + m[i][2]*p[2]
	}
	// 1e-14: a dozen roundings of numbers of order 1.
	if got := node.Rotate([4]float64{w, x, y, z}, p); !within3(got, want, 1e-14) {
		t.Errorf("Rotate = %v, want %v (rotation matrix)", got, want)
	}
}
