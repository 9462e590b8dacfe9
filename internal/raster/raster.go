package raster

import (
	"image"
	"image/color"
	"math"
	"sort"

	"github.com/cosimgo/cosim/node"
)

// background is the color Draw clears the image to.
var background = color.RGBA{0xf4, 0xf4, 0xf2, 0xff}

// Camera is a perspective camera orbiting Target: it looks at Target from
// distance Dist, turned by Yaw about the vertical y axis and tilted by
// Pitch (radians), with vertical field of view FOV.
type Camera struct {
	Yaw, Pitch float64
	Target     [3]float64
	Dist       float64
	FOV        float64
}

// DefaultFOV is the field of view of a fitted camera (radians).
const DefaultFOV = 1.0

// Fit returns a camera at yaw and pitch that sees every primitive of the
// frames (of a plane only its centre: planes are large floors, and the
// things on them matter), zoomed by zoom (2 is twice as close). It samples at most about
// 50 frames evenly.
func Fit(frames [][][]node.Primitive, yaw, pitch, zoom float64) Camera {
	lo := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	grow := func(p [3]float64, r float64) {
		for i := range 3 {
			lo[i] = math.Min(lo[i], p[i]-r)
			hi[i] = math.Max(hi[i], p[i]+r)
		}
	}
	step := max(1, len(frames)/50)
	for f := 0; f < len(frames); f += step {
		for _, body := range frames[f] {
			for _, s := range body {
				switch s.Kind {
				case node.Plane:
					grow(s.P, 0) // its centre: the floor is in view, not its whole extent
				case node.Sphere:
					grow(s.P, s.Size[0])
				default:
					grow(s.P, math.Max(s.Size[0], math.Max(s.Size[1], s.Size[2]))/2)
				}
				if s.Kind == node.Coil || s.Kind == node.Line {
					grow(s.Q, 0)
				}
			}
		}
	}
	if math.IsInf(lo[0], 1) {
		lo, hi = [3]float64{-1, -1, -1}, [3]float64{1, 1, 1}
	}
	c := Camera{Yaw: yaw, Pitch: pitch, FOV: DefaultFOV}
	for i := range 3 {
		c.Target[i] = (lo[i] + hi[i]) / 2
	}
	rad := math.Max(0.25, 0.5*math.Sqrt(sq(hi[0]-lo[0])+sq(hi[1]-lo[1])+sq(hi[2]-lo[2])))
	c.Dist = rad / math.Tan(c.FOV/2) * 1.15 / zoom
	return c
}

func sq(x float64) float64 { return x * x }

// toCamera returns p in camera coordinates: x right, y up, z toward the
// viewer (larger z is nearer).
func (c *Camera) toCamera(p [3]float64) [3]float64 {
	x0, y0, z0 := p[0]-c.Target[0], p[1]-c.Target[1], p[2]-c.Target[2]
	cy, sy := math.Cos(c.Yaw), math.Sin(c.Yaw)
	cp, sp := math.Cos(c.Pitch), math.Sin(c.Pitch)
	x1, z1 := cy*x0-sy*z0, sy*x0+cy*z0
	y2, z2 := cp*y0-sp*z1, sp*y0+cp*z1
	return [3]float64{x1, y2, z2}
}

// project returns the pixel position of a camera-space point and the
// pixels per metre at its depth.
func (c *Camera) project(p [3]float64, w, h int) (x, y, scale float64) {
	f := 0.5 * float64(min(w, h)) / math.Tan(c.FOV/2)
	d := math.Max(c.Dist-p[2], 1e-3*c.Dist)
	return float64(w)/2 + f*p[0]/d, float64(h)/2 - f*p[1]/d, f / d
}

var light = func() [3]float64 {
	l := [3]float64{0.4, 0.8, 0.6}
	n := math.Sqrt(l[0]*l[0] + l[1]*l[1] + l[2]*l[2])
	return [3]float64{l[0] / n, l[1] / n, l[2] / n}
}()

type item struct {
	z     float64
	order int // tie-break: drawing order, so sorting is stable and deterministic
	paint func(img *image.RGBA)
}

// Draw clears img and paints the primitives (grouped per body, as a
// frame of cosim view) seen by cam; tiling is the segments per coil turn.
// A non-empty caption is written in the top left corner.
func Draw(img *image.RGBA, frame [][]node.Primitive, cam Camera, tiling int, caption string) {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	fillRect(img, b, background)
	var items []item
	add := func(z float64, f func(*image.RGBA)) {
		items = append(items, item{z: z, order: len(items), paint: f})
	}
	for _, body := range frame {
		for _, s := range body {
			addPrimitive(s, &cam, w, h, tiling, add)
		}
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].z < items[j].z })
	for _, it := range items {
		it.paint(img)
	}
	drawAxes(img, &cam)
	if caption != "" {
		drawText(img, 6, 6, caption, color.RGBA{0x22, 0x22, 0x22, 0xff}, 2)
	}
}

func shade(c [4]float64, k float64) color.RGBA {
	ch := func(x float64) uint8 { return uint8(math.Round(255 * math.Min(1, math.Max(0, x*k)))) }
	return color.RGBA{ch(c[0]), ch(c[1]), ch(c[2]), 0xff}
}

func addPrimitive(s node.Primitive, cam *Camera, w, h, tiling int, add func(float64, func(*image.RGBA))) {
	proj := func(p [3]float64) [2]float64 {
		x, y, _ := cam.project(p, w, h)
		return [2]float64{x, y}
	}
	switch s.Kind {
	case node.Sphere:
		c := cam.toCamera(s.P)
		x, y, k := cam.project(c, w, h)
		r := math.Max(s.Size[0]*k, 1)
		add(c[2], func(img *image.RGBA) { fillSphere(img, x, y, r, s.Color) })
	case node.Box:
		hx, hy, hz := s.Size[0]/2, s.Size[1]/2, s.Size[2]/2
		for _, f := range boxFaces {
			wn := node.Rotate(s.Rot, f.n)
			var cs [4][3]float64
			var ctr [3]float64
			for i, cr := range f.c {
				r := node.Rotate(s.Rot, [3]float64{cr[0] * hx, cr[1] * hy, cr[2] * hz})
				cs[i] = cam.toCamera([3]float64{s.P[0] + r[0], s.P[1] + r[1], s.P[2] + r[2]})
				for k := range 3 {
					ctr[k] += cs[i][k] / 4
				}
			}
			cn := cam.toCamera([3]float64{cam.Target[0] + wn[0], cam.Target[1] + wn[1], cam.Target[2] + wn[2]})
			view := [3]float64{-ctr[0], -ctr[1], cam.Dist - ctr[2]}
			if cn[0]*view[0]+cn[1]*view[1]+cn[2]*view[2] <= 0 {
				continue
			}
			k := 0.45 + 0.55*math.Max(0, wn[0]*light[0]+wn[1]*light[1]+wn[2]*light[2])
			pts := make([][2]float64, 4)
			for i := range cs {
				pts[i] = proj(cs[i])
			}
			col := shade(s.Color, k)
			add(ctr[2], func(img *image.RGBA) {
				fillPolygon(img, pts, col)
				strokePolyline(img, append(pts, pts[0]), color.RGBA{0x60, 0x60, 0x60, 0xff}, 1)
			})
		}
	case node.Plane:
		hx, hz := s.Size[0]/2, s.Size[2]/2
		pts := make([][2]float64, 4)
		zmin := math.Inf(1)
		for i, cr := range [4][2]float64{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
			r := node.Rotate(s.Rot, [3]float64{cr[0] * hx, 0, cr[1] * hz})
			c := cam.toCamera([3]float64{s.P[0] + r[0], s.P[1] + r[1], s.P[2] + r[2]})
			zmin = math.Min(zmin, c[2])
			pts[i] = proj(c)
		}
		col := shade(s.Color, 1)
		add(zmin, func(img *image.RGBA) {
			fillPolygon(img, pts, col)
			strokePolyline(img, append(pts, pts[0]), color.RGBA{0x90, 0x90, 0x90, 0xff}, 1)
		})
	case node.Coil, node.Line:
		var ws [][3]float64
		if s.Kind == node.Coil {
			ws = node.CoilPoints(s, tiling, nil)
		} else {
			ws = [][3]float64{s.P, s.Q}
		}
		pts := make([][2]float64, len(ws))
		z := 0.0
		for i, p := range ws {
			c := cam.toCamera(p)
			z += c[2] / float64(len(ws))
			pts[i] = proj(c)
		}
		col := shade(s.Color, 1)
		add(z, func(img *image.RGBA) { strokePolyline(img, pts, col, 2) })
	}
}

var boxFaces = [6]struct {
	n [3]float64
	c [4][3]float64
}{
	{[3]float64{1, 0, 0}, [4][3]float64{{1, -1, -1}, {1, 1, -1}, {1, 1, 1}, {1, -1, 1}}},
	{[3]float64{-1, 0, 0}, [4][3]float64{{-1, -1, -1}, {-1, -1, 1}, {-1, 1, 1}, {-1, 1, -1}}},
	{[3]float64{0, 1, 0}, [4][3]float64{{-1, 1, -1}, {-1, 1, 1}, {1, 1, 1}, {1, 1, -1}}},
	{[3]float64{0, -1, 0}, [4][3]float64{{-1, -1, -1}, {1, -1, -1}, {1, -1, 1}, {-1, -1, 1}}},
	{[3]float64{0, 0, 1}, [4][3]float64{{-1, -1, 1}, {1, -1, 1}, {1, 1, 1}, {-1, 1, 1}}},
	{[3]float64{0, 0, -1}, [4][3]float64{{-1, -1, -1}, {-1, 1, -1}, {1, 1, -1}, {1, -1, -1}}},
}

func drawAxes(img *image.RGBA, cam *Camera) {
	b := img.Bounds()
	ox, oy := float64(b.Min.X)+30, float64(b.Max.Y)-30
	axes := []struct {
		a   [3]float64
		col color.RGBA
	}{
		{[3]float64{1, 0, 0}, color.RGBA{0xcc, 0x33, 0x33, 0xff}},
		{[3]float64{0, 1, 0}, color.RGBA{0x33, 0xaa, 0x33, 0xff}},
		{[3]float64{0, 0, 1}, color.RGBA{0x33, 0x33, 0xcc, 0xff}},
	}
	for _, a := range axes {
		c := cam.toCamera([3]float64{cam.Target[0] + a.a[0], cam.Target[1] + a.a[1], cam.Target[2] + a.a[2]})
		strokePolyline(img, [][2]float64{{ox, oy}, {ox + 20*c[0], oy - 20*c[1]}}, a.col, 2)
	}
}

// ---- pixels ----

func fillRect(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			img.SetRGBA(x, y, c)
		}
	}
}

// fillPolygon fills a simple polygon by scanlines through pixel centres
// (even–odd rule).
func fillPolygon(img *image.RGBA, pts [][2]float64, c color.RGBA) {
	b := img.Bounds()
	ymin, ymax := math.Inf(1), math.Inf(-1)
	for _, p := range pts {
		ymin, ymax = math.Min(ymin, p[1]), math.Max(ymax, p[1])
	}
	y0 := max(b.Min.Y, int(math.Floor(ymin)))
	y1 := min(b.Max.Y-1, int(math.Ceil(ymax)))
	xs := make([]float64, 0, 8)
	for y := y0; y <= y1; y++ {
		yc := float64(y) + 0.5
		xs = xs[:0]
		for i := range pts {
			a, q := pts[i], pts[(i+1)%len(pts)]
			if (a[1] <= yc) != (q[1] <= yc) {
				xs = append(xs, a[0]+(yc-a[1])*(q[0]-a[0])/(q[1]-a[1]))
			}
		}
		sort.Float64s(xs)
		for i := 0; i+1 < len(xs); i += 2 {
			xa := max(b.Min.X, int(math.Ceil(xs[i]-0.5)))
			xb := min(b.Max.X-1, int(math.Floor(xs[i+1]-0.5)))
			for x := xa; x <= xb; x++ {
				img.SetRGBA(x, y, c)
			}
		}
	}
}

// fillSphere paints a disc of radius r shaded as a lit sphere: brighter
// toward the upper left.
func fillSphere(img *image.RGBA, cx, cy, r float64, col [4]float64) {
	b := img.Bounds()
	y0, y1 := max(b.Min.Y, int(math.Floor(cy-r))), min(b.Max.Y-1, int(math.Ceil(cy+r)))
	x0, x1 := max(b.Min.X, int(math.Floor(cx-r))), min(b.Max.X-1, int(math.Ceil(cx+r)))
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			dx, dy := (float64(x)+0.5-cx)/r, (float64(y)+0.5-cy)/r
			d2 := dx*dx + dy*dy
			if d2 > 1 {
				continue
			}
			nz := math.Sqrt(1 - d2)
			// normal (dx, -dy, nz) against a light from the upper left, front
			k := 0.45 + 0.75*math.Max(0, -0.45*dx-0.45*dy+0.77*nz)
			img.SetRGBA(x, y, shade(col, k))
		}
	}
}

// strokePolyline draws the polyline with square pens of width w pixels.
func strokePolyline(img *image.RGBA, pts [][2]float64, c color.RGBA, w int) {
	b := img.Bounds()
	plot := func(x, y float64) {
		px, py := int(math.Floor(x)), int(math.Floor(y))
		for j := range w {
			for i := range w {
				if p := (image.Point{X: px + i - w/2, Y: py + j - w/2}); p.In(b) {
					img.SetRGBA(p.X, p.Y, c)
				}
			}
		}
	}
	for i := 0; i+1 < len(pts); i++ {
		a, q := pts[i], pts[i+1]
		n := int(math.Ceil(2*math.Max(math.Abs(q[0]-a[0]), math.Abs(q[1]-a[1])))) + 1
		if n > 100000 {
			n = 100000 // a segment far outside the image
		}
		for k := 0; k <= n; k++ {
			f := float64(k) / float64(n)
			plot(a[0]+f*(q[0]-a[0]), a[1]+f*(q[1]-a[1]))
		}
	}
}
