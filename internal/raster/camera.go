package raster

import (
	"math"

	"github.com/cosimgo/cosim/node"
)

// Camera is a perspective camera orbiting Target: it looks at Target from
// distance Dist, turned by Yaw about the vertical y axis and tilted down
// by Pitch (radians), with field of view FOV across the smaller of the
// image's width and height. The browser viewer of cosim view uses the
// same model, so a world point lands on the same pixel in both.
type Camera struct {
	Yaw, Pitch float64
	Target     [3]float64
	Dist       float64
	FOV        float64
}

// DefaultFOV is the field of view of a fitted camera (radians).
const DefaultFOV = 0.8

// fitMargin is the fraction of the half-width left free at the image's
// edges by Fit.
const fitMargin = 0.08

// ToCamera returns p in camera coordinates: x right, y up, z toward the
// viewer (larger z is nearer), relative to the target.
func (c *Camera) ToCamera(p [3]float64) [3]float64 {
	x0, y0, z0 := p[0]-c.Target[0], p[1]-c.Target[1], p[2]-c.Target[2]
	cy, sy := math.Cos(c.Yaw), math.Sin(c.Yaw)
	cp, sp := math.Cos(c.Pitch), math.Sin(c.Pitch)
	x1, z1 := cy*x0-sy*z0, sy*x0+cy*z0
	y2, z2 := cp*y0-sp*z1, sp*y0+cp*z1
	return [3]float64{x1, y2, z2}
}

// FromCamera is the inverse of ToCamera: the world direction (or, with
// the target added, point) of camera-frame vector v.
func (c *Camera) FromCamera(v [3]float64) [3]float64 {
	cy, sy := math.Cos(c.Yaw), math.Sin(c.Yaw)
	cp, sp := math.Cos(c.Pitch), math.Sin(c.Pitch)
	x1, y2, z2 := v[0], v[1], v[2]
	y0, z1 := cp*y2+sp*z2, -sp*y2+cp*z2
	x0, z0 := cy*x1+sy*z1, -sy*x1+cy*z1
	return [3]float64{x0, y0, z0}
}

// Eye is the camera's position in the world.
func (c *Camera) Eye() [3]float64 {
	d := c.FromCamera([3]float64{0, 0, c.Dist})
	return [3]float64{c.Target[0] + d[0], c.Target[1] + d[1], c.Target[2] + d[2]}
}

// Focal is the focal length in pixels for an image w × h.
func (c *Camera) Focal(w, h int) float64 {
	return 0.5 * float64(min(w, h)) / math.Tan(c.FOV/2)
}

// Project returns the pixel position (x right, y down; pixel centres at
// half-integers) of world point p in an image w × h, its distance in
// front of the camera along the view axis and whether it is in front.
func (c *Camera) Project(p [3]float64, w, h int) (x, y, depth float64, ok bool) {
	q := c.ToCamera(p)
	return c.projectCam(q, c.Focal(w, h), w, h)
}

func (c *Camera) projectCam(q [3]float64, f float64, w, h int) (x, y, depth float64, ok bool) {
	d := c.Dist - q[2]
	return float64(w)/2 + f*q[0]/d, float64(h)/2 - f*q[1]/d, d, d > 0
}

// PixelsPerMetre is the size in pixels of one metre seen at distance depth.
func (c *Camera) PixelsPerMetre(depth float64, w, h int) float64 {
	return c.Focal(w, h) / depth
}

// Box is an axis-aligned box in the world, Lo ≤ Hi componentwise; the
// zero Box is empty when Empty is set by NewBox.
type Box struct {
	Lo, Hi [3]float64
}

// EmptyBox returns a box that contains nothing: Grow makes it a point.
func EmptyBox() Box {
	inf := math.Inf(1)
	return Box{Lo: [3]float64{inf, inf, inf}, Hi: [3]float64{-inf, -inf, -inf}}
}

// Empty reports whether the box contains nothing.
func (b Box) Empty() bool { return !(b.Lo[0] <= b.Hi[0]) }

// Grow extends the box to contain the ball of radius r around p.
func (b *Box) Grow(p [3]float64, r float64) {
	for i := range 3 {
		b.Lo[i] = math.Min(b.Lo[i], p[i]-r)
		b.Hi[i] = math.Max(b.Hi[i], p[i]+r)
	}
}

// Size is the box's largest edge.
func (b Box) Size() float64 {
	if b.Empty() {
		return 0
	}
	return math.Max(b.Hi[0]-b.Lo[0], math.Max(b.Hi[1]-b.Lo[1], b.Hi[2]-b.Lo[2]))
}

// Centre is the box's centre.
func (b Box) Centre() [3]float64 {
	return [3]float64{(b.Lo[0] + b.Hi[0]) / 2, (b.Lo[1] + b.Hi[1]) / 2, (b.Lo[2] + b.Hi[2]) / 2}
}

// Extent returns the box around everything the frames draw, over the
// whole run: spheres with their radius, boxes with their half-diagonal,
// coils, lines and cylinders with both ends and their radius. Planes
// (tables, floors) count with their centre only: they are large, and the
// camera frames what stands on them.
func Extent(frames [][][]node.Primitive) Box {
	b := EmptyBox()
	for _, fr := range frames {
		for _, body := range fr {
			for _, s := range body {
				switch s.Kind {
				case node.Plane:
					b.Grow(s.P, 0)
				case node.Sphere:
					b.Grow(s.P, s.Size[0])
				case node.Box:
					b.Grow(s.P, 0.5*math.Sqrt(s.Size[0]*s.Size[0]+s.Size[1]*s.Size[1]+s.Size[2]*s.Size[2]))
				case node.Coil, node.Line, node.Cylinder:
					b.Grow(s.P, s.Size[0]/2)
					b.Grow(s.Q, s.Size[0]/2)
				}
			}
		}
	}
	return b
}

// Fit returns the camera at yaw and pitch that sees box b whole in an
// image w × h, with a margin of fitMargin of the half-size at each edge:
// it looks at the box's centre from the nearest distance at which all
// eight corners project inside (exact for the pinhole model, not a
// bounding-sphere estimate), divided by zoom. An empty or point-like box
// is framed as a box 0.5 m across.
func Fit(b Box, yaw, pitch, zoom float64, w, h int) Camera {
	if b.Empty() {
		b = Box{Lo: [3]float64{-0.25, -0.25, -0.25}, Hi: [3]float64{0.25, 0.25, 0.25}}
	}
	if s := b.Size(); s < 1e-9 || math.IsInf(s, 0) || math.IsNaN(s) {
		c := b.Centre()
		b = Box{}
		b.Lo, b.Hi = c, c
		b.Grow(c, 0.25)
	}
	c := Camera{Yaw: yaw, Pitch: pitch, FOV: DefaultFOV, Target: b.Centre()}
	f := c.Focal(w, h)
	hw, hh := float64(w)/2*(1-fitMargin), float64(h)/2*(1-fitMargin)
	d := 0.0
	for i := range 8 {
		p := [3]float64{b.Lo[0], b.Lo[1], b.Lo[2]}
		for k := range 3 {
			if i&(1<<k) != 0 {
				p[k] = b.Hi[k]
			}
		}
		q := c.ToCamera(p)
		// f·|x|/(d − z) ≤ hw ⇔ d ≥ z + f·|x|/hw; likewise for y; and the
		// corner must stay in front of the camera.
		d = math.Max(d, q[2]+f*math.Abs(q[0])/hw)
		d = math.Max(d, q[2]+f*math.Abs(q[1])/hh)
		d = math.Max(d, q[2]+1e-6*b.Size())
	}
	if !(zoom > 0) {
		zoom = 1
	}
	c.Dist = d / zoom
	return c
}
