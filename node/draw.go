package node

import (
	"fmt"
	"math"
)

// PrimKind is the kind of a drawn [Primitive].
type PrimKind uint8

// The shapes a [Drawer] can return. Renderers (cosim view and cosim
// render) draw each one; the JSON name is the kind's String.
const (
	// Sphere is a ball of radius Size[0] centred at P.
	Sphere PrimKind = iota + 1
	// Box is a cuboid centred at P with edge lengths Size along its body
	// axes, rotated by the quaternion Rot.
	Box
	// Plane is a flat rectangle centred at P, Size[0] long along its body
	// x axis and Size[2] along its body z axis; its normal is its body y
	// axis, rotated by Rot (the identity: a horizontal floor, y up).
	Plane
	// Coil is a helical spring from P to Q of diameter Size[0] with
	// Windings turns ([CoilPoints] gives its polyline).
	Coil
	// Line is a straight segment from P to Q.
	Line
	// Cylinder is a solid round rod from P to Q of diameter Size[0]:
	// rods, damper housings and piston rods.
	Cylinder
)

// PrimKinds returns every primitive kind, in order: renderers draw each.
func PrimKinds() []PrimKind { return []PrimKind{Sphere, Box, Plane, Coil, Line, Cylinder} }

var shapeNames = [...]string{Sphere: "sphere", Box: "box", Plane: "plane", Coil: "coil", Line: "line", Cylinder: "cylinder"}

func (k PrimKind) String() string {
	if int(k) < len(shapeNames) && shapeNames[k] != "" {
		return shapeNames[k]
	}
	return fmt.Sprintf("PrimKind(%d)", int(k))
}

// MarshalText encodes the kind by name, for stable JSON.
func (k PrimKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Primitive is one drawn primitive, in world coordinates (m). The viewer's
// convention is y up, as in the examples' gravity [0, −9.81, 0] and the
// rigidbody2d node's x–y plane.
type Primitive struct {
	Kind PrimKind
	// P is the centre of a sphere, box or plane, the start of a coil or
	// line.
	P [3]float64
	// Q is the end of a coil or line.
	Q [3]float64
	// Size is the sphere's radius (Size[0]), the box's edge lengths, the
	// plane's extents (Size[0] along x, Size[2] along z) or the coil's or
	// cylinder's diameter (Size[0]).
	Size [3]float64
	// Rot is the unit quaternion (w, x, y, z) taking body axes to world
	// axes, for boxes and planes; the zero value means the identity.
	Rot [4]float64
	// Windings is the number of turns of a coil.
	Windings int
	// Color is RGBA, each in [0, 1].
	Color [4]float64
}

// DrawSettings are the renderer-wide drawing settings a [Drawer] reads, as
// Exudyn's ObjectConnectorCartesianSpringDamper visualization settings: the connectors' default
// size and color (connectors.defaultSize, connectors.defaultColor), the
// number of windings of a spring (connectors.springNumberOfWindings), the
// segments per winding (connectors.curveTiling) and whether springs are
// drawn as simple lines (connectors.drawSimplified). Bodies without a size
// of their own use BodySize.
type DrawSettings struct {
	ConnectorSize  float64    // m; diameter of a spring with draw_size −1
	ConnectorColor [4]float64 // color of a connector with color R = −1
	SpringWindings int        // turns of a spring, ≥ 1
	CurveTiling    int        // segments per turn of a spring, ≥ 3
	Simplified     bool       // draw springs as straight lines
	BodySize       float64    // m; size of a body with draw_size −1
	BodyColor      [4]float64 // color of a body with color R = −1
	GroundColor    [4]float64 // color of fixed things (tables, ground markers)
	// DamperColor is the color of damper housings and piston rods.
	DamperColor [4]float64
	// CartesianSprings draws a Cartesian spring-damper as Exudyn does,
	// three springs along world x, y and z in turn ([CartesianSprings]),
	// instead of one spring between its markers ([SpringDamper]).
	CartesianSprings bool
}

// DefaultDrawSettings returns the defaults: springs 0.1 m across with 8
// turns of 12 segments each, drawn as coils, in blue; bodies 0.1 m in
// red; fixed things grey.
func DefaultDrawSettings() DrawSettings {
	return DrawSettings{
		ConnectorSize:  0.1,
		ConnectorColor: [4]float64{0.2, 0.2, 0.8, 1},
		SpringWindings: 8,
		CurveTiling:    12,
		BodySize:       0.1,
		BodyColor:      [4]float64{0.8, 0.25, 0.2, 1},
		GroundColor:    [4]float64{0.6, 0.6, 0.6, 1},
		DamperColor:    [4]float64{0.35, 0.35, 0.4, 1},
	}
}

// Check reports settings a renderer cannot use.
func (s *DrawSettings) Check() error {
	switch {
	case !(s.ConnectorSize > 0) || math.IsInf(s.ConnectorSize, 0):
		return fmt.Errorf("draw settings: connector size %v must be finite and positive", s.ConnectorSize)
	case !(s.BodySize > 0) || math.IsInf(s.BodySize, 0):
		return fmt.Errorf("draw settings: body size %v must be finite and positive", s.BodySize)
	case s.SpringWindings < 1 || s.SpringWindings > 1000:
		return fmt.Errorf("draw settings: %d spring windings: need 1 to 1000", s.SpringWindings)
	case s.CurveTiling < 3 || s.CurveTiling > 1000:
		return fmt.Errorf("draw settings: curve tiling %d: need 3 to 1000 segments per winding", s.CurveTiling)
	}
	return nil
}

// Drawer is the capability of a node that can be seen: Draw appends the
// shapes of the node at state x with inputs in (a connector reads its
// bodies' marker fields there) to dst and returns it. A node whose show
// parameter is false appends nothing, as does a node without this
// capability. Draw reads the node's current parameters and set, never
// retains x, in or dst, and is safe for concurrent use like Outputs.
type Drawer interface {
	Draw(x []float64, in Inputs, set *DrawSettings, dst []Primitive) []Primitive
}

// Names of the visualization parameters every drawn node shares, as
// Exudyn's visualization items name them (show, drawSize, color).
const (
	ParamShow     = "show"
	ParamDrawSize = "draw_size"
	ParamColor    = "color"
)

// VisualParams returns the visualization parameters of a drawn node: show
// (default true), draw_size (alias drawSize; ≥ −1, negative meaning the
// renderer's default; sizeMeaning says what it measures, e.g. "sphere
// diameter") and color (RGBA in [0, 1], R = −1 meaning the default). The
// physics never reads them.
func VisualParams(sizeMeaning string) []Param {
	return []Param{
		{Name: ParamShow, Kind: Bool, Default: true, Description: "Visualization: draw the node (cosim view, cosim render)"},
		{Name: ParamDrawSize, Kind: Real, Default: -1.0, Units: "m", Range: Between(-1, math.Inf(1)), Aliases: []string{"drawSize"},
			Description: "Visualization: " + sizeMeaning + "; negative (−1) means the renderer's default size"},
		{Name: ParamColor, Kind: Vector, Shape: Vec(4), Default: []float64{-1, -1, -1, -1}, Units: "1", Range: Between(-1, 1),
			Description: "Visualization: RGBA color in [0, 1]; R = −1 means the default color"},
	}
}

// Appearance is the typed form of the visualization parameters, for the
// Params structs of node packages. Its zero value is the default: shown,
// with the renderer's size and color.
type Appearance struct {
	// Hidden hides the node (show = false).
	Hidden bool
	// DrawSize is the size in m; zero or negative means the default (−1).
	DrawSize float64
	// Color is RGBA in [0, 1]; the zero value means the default color
	// (R = −1). Hide a node with Hidden, not with a zero alpha.
	Color [4]float64
}

// Put writes the appearance into v as show, draw_size and color.
func (a Appearance) Put(v Values) {
	vis := a.Visual()
	v[ParamShow] = vis.Show
	v[ParamDrawSize] = vis.DrawSize
	v[ParamColor] = vis.Color[:]
}

// Visual returns the appearance as the visualization parameters Put
// writes, resolved (VisualOf of them), without building Values.
func (a Appearance) Visual() Visual {
	vis := Visual{Show: !a.Hidden, DrawSize: a.DrawSize, Color: a.Color}
	if !(vis.DrawSize > 0) {
		vis.DrawSize = -1
	}
	if vis.Color == ([4]float64{}) {
		vis.Color = [4]float64{-1, -1, -1, -1}
	}
	return vis
}

// Visual is the resolved visualization parameters a Drawer reads.
type Visual struct {
	Show     bool
	DrawSize float64 // negative: default
	Color    [4]float64
}

// VisualOf reads show, draw_size and color from validated values.
func VisualOf(v Values) Visual {
	vis := Visual{Show: v.Bool(ParamShow), DrawSize: v.Float(ParamDrawSize)}
	copy(vis.Color[:], v.Floats(ParamColor))
	return vis
}

// Size returns DrawSize, or def when it is negative (the default).
func (v Visual) Size(def float64) float64 {
	if v.DrawSize < 0 {
		return def
	}
	return v.DrawSize
}

// ColorOr returns Color, or def when its R is negative (the default).
func (v Visual) ColorOr(def [4]float64) [4]float64 {
	if v.Color[0] < 0 {
		return def
	}
	return v.Color
}

// CartesianSprings appends Exudyn's drawing of a Cartesian spring-damper
// from p0 to p1 to dst: three springs of diameter size, along world x, y
// and z in turn (p0 → (p1x, p0y, p0z) → (p1x, p1y, p0z) → p1), each a
// [Coil] with set.SpringWindings turns, or a [Line] when set.Simplified. A
// spring of zero length is left out.
func CartesianSprings(p0, p1 [3]float64, size float64, color [4]float64, set *DrawSettings, dst []Primitive) []Primitive {
	a := p0
	for axis := range 3 {
		b := a
		b[axis] = p1[axis]
		if b != a {
			dst = append(dst, spring(a, b, size, color, set))
		}
		a = b
	}
	return dst
}

// SpringDamper appends the drawing of a spring and a damper acting in
// parallel between the attachment points p0 and p1 — a coil-over, as a
// car's suspension strut: a [Coil] of diameter size with set.SpringWindings
// turns from p0 to p1 (a [Line] when set.Simplified), and, when damped, a
// damper inside it: a housing [Cylinder] of diameter size/2 from p0 over
// 55 % of the way and a piston rod of diameter size/5 from p1 over 55 %
// of the way back, so the two overlap and slide as the length changes.
// damped is false for a spring without a damper. Nothing is drawn when
// the points coincide.
func SpringDamper(p0, p1 [3]float64, size float64, color [4]float64, damped bool, set *DrawSettings, dst []Primitive) []Primitive {
	if p0 == p1 {
		return dst
	}
	dst = append(dst, spring(p0, p1, size, color, set))
	if damped && !set.Simplified {
		dst = append(dst,
			Primitive{Kind: Cylinder, P: p0, Q: lerp(p0, p1, 0.55), Size: [3]float64{size / 2, size / 2, size / 2}, Color: set.DamperColor},
			Primitive{Kind: Cylinder, P: p1, Q: lerp(p1, p0, 0.55), Size: [3]float64{size / 5, size / 5, size / 5}, Color: set.DamperColor})
	}
	return dst
}

// RodSpring appends the drawing of a spring of rest length restLength
// between p0 and p1 that acts as an elastic rod (a pendulum's rod, a
// link): rigid [Cylinder] rods of diameter size/4 from each end and a
// [Coil] of diameter size between them whose length changes by exactly
// the spring's stretch ℓ − ℓ₀. Each rod is 0.4 ℓ₀ long (at most 0.45 ℓ,
// so a compressed spring keeps a coil), the coil the rest. A spring of
// zero rest length is a coil from p0 to p1 ([SpringDamper] without a
// damper). Nothing is drawn when the points coincide.
func RodSpring(p0, p1 [3]float64, restLength, size float64, color [4]float64, set *DrawSettings, dst []Primitive) []Primitive {
	var d [3]float64
	for i := range d {
		d[i] = p1[i] - p0[i]
	}
	l := math.Sqrt(d[0]*d[0] + d[1]*d[1] + d[2]*d[2])
	if !(l > 0) {
		return dst
	}
	if !(restLength > 0) {
		return SpringDamper(p0, p1, size, color, false, set, dst)
	}
	f := math.Min(0.4*restLength, 0.45*l) / l
	a, b := lerp(p0, p1, f), lerp(p1, p0, f)
	rod := [3]float64{size / 4, size / 4, size / 4}
	return append(dst,
		Primitive{Kind: Cylinder, P: p0, Q: a, Size: rod, Color: color},
		spring(a, b, size, color, set),
		Primitive{Kind: Cylinder, P: b, Q: p1, Size: rod, Color: color})
}

// GroundMarker appends the mark of a connector's fixed end at p: a cube
// of edge size in set.GroundColor.
func GroundMarker(p [3]float64, size float64, set *DrawSettings, dst []Primitive) []Primitive {
	return append(dst, Primitive{Kind: Box, P: p, Size: [3]float64{size, size, size}, Color: set.GroundColor})
}

// spring is a coil from a to b, or a line when set.Simplified.
func spring(a, b [3]float64, size float64, color [4]float64, set *DrawSettings) Primitive {
	s := Primitive{Kind: Coil, P: a, Q: b, Size: [3]float64{size, size, size}, Windings: set.SpringWindings, Color: color}
	if set.Simplified {
		s.Kind, s.Windings = Line, 0
	}
	return s
}

// lerp is a + f·(b − a).
func lerp(a, b [3]float64, f float64) [3]float64 {
	return [3]float64{a[0] + f*(b[0]-a[0]), a[1] + f*(b[1]-a[1]), a[2] + f*(b[2]-a[2])}
}

// CoilPoints appends the polyline of a [Coil] to dst: a helix of diameter
// s.Size[0] around the segment P→Q with s.Windings turns, tiling segments
// per turn, so s.Windings·tiling+1 points from P to Q (both included).
// The helix starts in the direction u ⟂ (Q − P) obtained by crossing the
// axis with the world axis it is least aligned with, and turns toward
// v = a × u; the browser renderer computes the same points. A coil of
// zero length is the single point P.
func CoilPoints(s Primitive, tiling int, dst [][3]float64) [][3]float64 {
	var a [3]float64
	for i := range 3 {
		a[i] = s.Q[i] - s.P[i]
	}
	l := math.Sqrt(a[0]*a[0] + a[1]*a[1] + a[2]*a[2])
	if l == 0 {
		return append(dst, s.P)
	}
	n := [3]float64{a[0] / l, a[1] / l, a[2] / l}
	// The world axis least aligned with the coil's axis (the first such).
	k := 0
	for i := 1; i < 3; i++ {
		if math.Abs(n[i]) < math.Abs(n[k]) {
			k = i
		}
	}
	var e [3]float64
	e[k] = 1
	u := cross(n, e)
	ul := math.Sqrt(u[0]*u[0] + u[1]*u[1] + u[2]*u[2])
	for i := range u {
		u[i] /= ul
	}
	v := cross(n, u)
	r := s.Size[0] / 2
	segs := max(s.Windings, 1) * max(tiling, 3)
	turns := float64(max(s.Windings, 1))
	for j := 0; j <= segs; j++ {
		f := float64(j) / float64(segs)
		c, sn := math.Cos(2*math.Pi*turns*f), math.Sin(2*math.Pi*turns*f)
		if j == 0 || j == segs {
			c, sn = 0, 0 // the ends sit on the axis, at the markers
		}
		var p [3]float64
		for i := range 3 {
			p[i] = s.P[i] + f*a[i] + r*(c*u[i]+sn*v[i])
		}
		dst = append(dst, p)
	}
	return dst
}

func cross(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// Rotate returns the vector p rotated by the unit quaternion q = (w, x, y,
// z); the zero quaternion is the identity.
func Rotate(q [4]float64, p [3]float64) [3]float64 {
	if q == ([4]float64{}) {
		return p
	}
	w, x, y, z := q[0], q[1], q[2], q[3]
	// p + 2w(v×p) + 2 v×(v×p), v = (x, y, z)
	v := [3]float64{x, y, z}
	t := cross(v, p)
	for i := range t {
		t[i] *= 2
	}
	u := cross(v, t)
	return [3]float64{p[0] + w*t[0] + u[0], p[1] + w*t[1] + u[1], p[2] + w*t[2] + u[2]}
}
