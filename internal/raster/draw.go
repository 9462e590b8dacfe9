package raster

import (
	"image"
	"math"
	"sort"

	"github.com/cosimgo/cosim/node"
)

// Draw paints one frame (the primitives of each of s.Bodies, in order)
// into img, which must be s.Width × s.Height: the floor and its grid, the
// world axes at the origin when the floor reaches it, every primitive lit
// and depth-tested, the connectors faintly where bodies hide them, then
// the overlay: the nodes' labels (when s.Labels), the axis letters, a
// scale bar and the caption (when not empty) in the top left corner.
func (s *Scene) Draw(img *image.RGBA, frame [][]node.Primitive, caption string) {
	ss := s.samples()
	// The floor and the axes are the same in every frame: drawn once,
	// copied into each frame's buffer.
	s.baseOnce.Do(func() {
		base := newFrameBuffer(s.Width*ss, s.Height*ss)
		p := s.painter(base, ss)
		if s.Floor.Show {
			s.drawFloor(p)
		}
		if s.axesShown() {
			s.drawAxes(p)
		}
		s.base = base
	})
	fb := fbPool.Get().(*frameBuffer)
	fb.reset(s.base)
	defer fbPool.Put(fb)
	p := s.painter(fb, ss)
	// Nearest first: what lies behind is then mostly skipped a tile at a
	// time. The order does not change the picture (the depth test
	// decides), only the time.
	type ref struct {
		bi, pi int
		d      float64
	}
	var order []ref
	for bi, body := range frame {
		for pi, pr := range body {
			c := pr.P
			if pr.Kind == node.Coil || pr.Kind == node.Line || pr.Kind == node.Cylinder {
				c = mid(pr.P, pr.Q)
			}
			order = append(order, ref{bi, pi, s.Camera.Dist - s.Camera.ToCamera(c)[2]})
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].d < order[j].d })
	conn := func(bi int) bool { return bi < len(s.Bodies) && s.Bodies[bi].Connector }
	// Bodies, then connectors where bodies hide them (the x-ray layer,
	// before the connectors themselves, so a coil's far side does not
	// show through its near side), then the connectors.
	for _, c := range []bool{false, true} {
		if c {
			p.pass = passXRay
			for _, r := range order {
				if conn(r.bi) {
					s.primitive(p, frame[r.bi][r.pi], ss)
				}
			}
			p.pass = passNormal
		}
		for _, r := range order {
			if conn(r.bi) == c {
				p.faded = r.bi < len(s.Bodies) && s.Bodies[r.bi].Unknown != ""
				s.primitive(p, frame[r.bi][r.pi], ss)
			}
		}
	}
	p.faded = false
	fb.toImage(img, ss)
	s.overlay(img, frame, caption, s.axesShown())
}

// samples is the supersampling factor in use.
func (s *Scene) samples() int {
	if s.Supersample < 1 || s.Supersample > 4 {
		return 2
	}
	return s.Supersample
}

// painter returns a painter into fb for the scene's camera.
func (s *Scene) painter(fb *frameBuffer, ss int) *painter {
	cam := s.Camera
	p := &painter{fb: fb, cam: &cam, f: cam.Focal(s.Width, s.Height) * float64(ss)}
	p.view = unit(cam.FromCamera([3]float64{0, 0, 1}))
	return p
}

// primitive draws one primitive; small spheres and boxes are enlarged to
// s.MinPixels.
func (s *Scene) primitive(p *painter, pr node.Primitive, ss int) {
	col := rgb(pr.Color)
	depth := func(w [3]float64) float64 { return p.cam.Dist - p.cam.ToCamera(w)[2] }
	// minimum world size at depth d: MinPixels output pixels.
	minSize := func(d float64) float64 { return s.MinPixels * float64(ss) * d / p.f }
	switch pr.Kind {
	case node.Sphere:
		r := math.Max(pr.Size[0], minSize(depth(pr.P)))
		p.sphere(pr.P, r, col)
	case node.Box:
		e := pr.Size
		half := math.Max(e[0], math.Max(e[1], e[2])) / 2
		if m := minSize(depth(pr.P)); half < m && half > 0 {
			e = scale(e, m/half)
		} else if half == 0 {
			e = [3]float64{2 * m, 2 * m, 2 * m}
		}
		p.box(pr.P, e, pr.Rot, col)
	case node.Plane:
		p.plane(pr, col)
	case node.Coil:
		d := depth(mid(pr.P, pr.Q))
		px := p.f / d // samples per metre
		if dist(pr.P, pr.Q)*px < 1.5*float64(ss) && pr.Size[0]*px < 1.5*float64(ss) {
			return // smaller than a pixel or two: nothing to see
		}
		wire := math.Max(pr.Size[0]/16, 0.6*float64(ss)/px)
		sides := 6
		if wire*px < 2*float64(ss) {
			sides = 4
		}
		p.tube(node.CoilPoints(pr, s.Tiling, nil), wire, sides, col, false)
	case node.Line, node.Cylinder:
		d := depth(mid(pr.P, pr.Q))
		px := p.f / d
		r := pr.Size[0] / 2
		if pr.Kind == node.Line {
			r = pr.Size[0] / 16
		}
		r = math.Max(r, 0.75*float64(ss)/px)
		sides := int(math.Min(20, math.Max(6, math.Ceil(r*px/float64(ss)))))
		p.tube([][3]float64{pr.P, pr.Q}, r, sides, col, true)
	}
}

// drawFloor fills the floor rectangle sample by sample: the ray through
// each sample meets the floor's plane at a point whose distance to the
// nearest grid line decides its color (lines one pixel wide; every fifth
// line, and the world axes x = 0 and z = 0, darker).
func (s *Scene) drawFloor(p *painter) {
	fl := s.Floor
	eye := p.cam.Eye()
	fb := p.fb
	sp := fl.Spacing
	// The ray through a sample is A + u·B + v·C in the world.
	a, b, c := p.cam.FromCamera([3]float64{0, 0, -1}), p.cam.FromCamera([3]float64{1, 0, 0}), p.cam.FromCamera([3]float64{0, 1, 0})
	for j := range fb.h {
		v := -(float64(j) + 0.5 - float64(fb.h)/2) / p.f
		for i := range fb.w {
			u := (float64(i) + 0.5 - float64(fb.w)/2) / p.f
			d := [3]float64{a[0] + u*b[0] + v*c[0], a[1] + u*b[1] + v*c[1], a[2] + u*b[2] + v*c[2]}
			if d[1] == 0 {
				continue
			}
			t := (fl.Y - eye[1]) / d[1]
			if !(t > 0) {
				continue
			}
			x, z := eye[0]+t*d[0], eye[2]+t*d[2]
			if x < fl.Lo[0] || x > fl.Hi[0] || z < fl.Lo[1] || z > fl.Hi[1] {
				continue
			}
			// Half a line's width in metres at this distance: one output
			// pixel wide.
			hw := 0.5 * float64(fb.w) / float64(s.Width) * t / p.f
			col := floorColor
			gx, gz := math.Round(x/sp), math.Round(z/sp)
			onX, onZ := math.Abs(x-gx*sp) < hw, math.Abs(z-gz*sp) < hw
			switch {
			case x-fl.Lo[0] < 2*hw || fl.Hi[0]-x < 2*hw || z-fl.Lo[1] < 2*hw || fl.Hi[1]-z < 2*hw:
				col = floorEdge
			case onX && (int64(gx)%5 == 0) || onZ && (int64(gz)%5 == 0):
				col = majorColor
			case onX || onZ:
				col = gridColor
			}
			p.put(i, j, 1/t, col)
		}
	}
}

// axesShown reports whether the world axes are drawn at the origin: when
// the origin is over the floor (not under it).
func (s *Scene) axesShown() bool {
	f := s.Floor
	return s.Axes && f.Show && f.Lo[0] <= 0 && 0 <= f.Hi[0] && f.Lo[1] <= 0 && 0 <= f.Hi[1] && f.Y <= 0
}

// axisColors are the colors of the world axes x, y and z.
var axisColors = [3][3]float64{{0.8, 0.15, 0.15}, {0.1, 0.6, 0.1}, {0.15, 0.25, 0.85}}

// axisLength is the length of the drawn world axes: one grid cell.
func (s *Scene) axisLength() float64 { return s.Floor.Spacing }

// drawAxes draws the world axes from the origin, one grid cell long and
// at least 3 pixels thick.
func (s *Scene) drawAxes(p *painter) {
	l := s.axisLength()
	d := p.cam.Dist - p.cam.ToCamera([3]float64{})[2]
	r := math.Max(l/40, 1.5*float64(p.fb.w)/float64(s.Width)*d/p.f)
	for k := range 3 {
		var e [3]float64
		e[k] = l
		p.tube([][3]float64{{}, e}, r, 8, axisColors[k], true)
	}
}
