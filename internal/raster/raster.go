package raster

import (
	"image"
	"image/color"
	"math"
	"sync"

	"github.com/cosimgo/cosim/node"
)

// background is the color the image is cleared to.
var background = color.RGBA{0xf4, 0xf4, 0xf2, 0xff}

// The look shared with the browser viewer (viewer.js): a key light from
// above, in front and to the right, a sky/ground ambient term and a small
// highlight; the floor's colors.
var (
	lightDir     = unit([3]float64{0.35, 0.8, 0.55})
	floorColor   = [3]float64{0.90, 0.90, 0.88}
	gridColor    = [3]float64{0.74, 0.74, 0.71}
	majorColor   = [3]float64{0.60, 0.60, 0.57}
	floorEdge    = [3]float64{0.80, 0.80, 0.78}
	xrayOpacity  = 0.4
	fadedOpacity = 0.35
)

// shadeColor lights base color c at world normal n seen from direction v
// (unit, toward the viewer).
func shadeColor(c [3]float64, n, v [3]float64) [3]float64 {
	ndl := math.Max(0, dot(n, lightDir))
	amb := 0.34 + 0.12*(0.5+0.5*n[1])
	hv := unit(add(lightDir, v))
	spec := 0.2 * math.Pow(math.Max(0, dot(n, hv)), 40)
	return [3]float64{c[0]*(amb+0.62*ndl) + spec, c[1]*(amb+0.62*ndl) + spec, c[2]*(amb+0.62*ndl) + spec}
}

// frameBuffer is the supersampled image being drawn: colors, inverse
// depths (0: nothing drawn) and the x-ray layer of hidden connectors.
type frameBuffer struct {
	w, h  int
	col   []float32 // RGB per sample
	inv   []float32 // 1/depth per sample
	xcol  []float32 // x-ray layer: the nearest hidden connector's color
	xinv  []float32 // its 1/depth (0: none)
	faded []bool    // the sample shows a faded (partially known) node

	// Tiles of tileSize × tileSize samples let a primitive hidden behind
	// what is drawn be skipped a tile at a time (crowded scenes draw tens
	// of thousands of overlapping bodies): per tile, the number of samples
	// nothing has been drawn on, and a lower bound of the inverse depths
	// of its samples (valid when none is empty; only ever too low, so a
	// primitive nearer than it is never skipped by mistake).
	tw, th     int
	tileEmpty  []int32
	tileMin    []float32
	tileWrites []int32
}

// tileSize is the side of a depth tile in samples.
const tileSize = 16

func newFrameBuffer(w, h int) *frameBuffer {
	n := w * h
	fb := &frameBuffer{w: w, h: h, col: make([]float32, 3*n), inv: make([]float32, n), faded: make([]bool, n)}
	fb.tw, fb.th = (w+tileSize-1)/tileSize, (h+tileSize-1)/tileSize
	fb.tileEmpty = make([]int32, fb.tw*fb.th)
	fb.tileMin = make([]float32, fb.tw*fb.th)
	fb.tileWrites = make([]int32, fb.tw*fb.th)
	for t := range fb.tileEmpty {
		fb.retile(t)
	}
	return fb
}

// retile recomputes tile t's count of empty samples and its smallest
// inverse depth.
func (fb *frameBuffer) retile(t int) {
	tx, ty := t%fb.tw, t/fb.tw
	empty, lo := int32(0), float32(math.MaxFloat32)
	for j := ty * tileSize; j < min(fb.h, (ty+1)*tileSize); j++ {
		for i := tx * tileSize; i < min(fb.w, (tx+1)*tileSize); i++ {
			v := fb.inv[j*fb.w+i]
			if v == 0 {
				empty++
			}
			lo = min(lo, v)
		}
	}
	fb.tileEmpty[t], fb.tileMin[t], fb.tileWrites[t] = empty, lo, 0
}

// hidden reports whether everything in tile t is nearer than inverse
// depth inv (a primitive no nearer than that is hidden there).
func (fb *frameBuffer) hidden(t int, inv float64) bool {
	return fb.tileEmpty[t] == 0 && float32(inv) < fb.tileMin[t]
}

// wrote notes that sample (i, j), of inverse depth old before, was drawn.
func (fb *frameBuffer) wrote(i, j int, old float32) {
	t := (j/tileSize)*fb.tw + i/tileSize
	if old == 0 {
		fb.tileEmpty[t]--
		if fb.tileEmpty[t] == 0 {
			fb.retile(t)
		}
		return
	}
	// Nearer samples only raise the tile's minimum: refresh the bound now
	// and then.
	if fb.tileWrites[t]++; fb.tileWrites[t] > 4*tileSize*tileSize && fb.tileEmpty[t] == 0 {
		fb.retile(t)
	}
}

// fbPool recycles frame buffers between frames.
var fbPool = sync.Pool{New: func() any { return &frameBuffer{} }}

// reset makes fb a copy of base (the floor and axes) with an empty x-ray
// layer, reusing its memory.
func (fb *frameBuffer) reset(base *frameBuffer) {
	n := base.w * base.h
	fb.w, fb.h = base.w, base.h
	fb.col = append(fb.col[:0], base.col...)
	fb.inv = append(fb.inv[:0], base.inv...)
	fb.faded = append(fb.faded[:0], base.faded...)
	fb.tw, fb.th = base.tw, base.th
	fb.tileEmpty = append(fb.tileEmpty[:0], base.tileEmpty...)
	fb.tileMin = append(fb.tileMin[:0], base.tileMin...)
	fb.tileWrites = append(fb.tileWrites[:0], base.tileWrites...)
	if fb.xinv != nil {
		if cap(fb.xinv) >= n {
			fb.xinv = fb.xinv[:n]
			fb.xcol = fb.xcol[:3*n]
			clear(fb.xinv)
		} else {
			fb.xinv, fb.xcol = nil, nil
		}
	}
}

// pass says how a primitive is drawn: normally (depth-tested, nearest
// wins) or into the x-ray layer (only where something nearer hides it).
type pass uint8

const (
	passNormal pass = iota
	passXRay
)

// painter draws primitives into a frame buffer.
type painter struct {
	fb    *frameBuffer
	cam   *Camera
	f     float64 // focal length in samples
	view  [3]float64
	pass  pass
	faded bool
}

// put writes a sample at (i, j) of inverse depth inv and color c, as the
// pass says.
func (p *painter) put(i, j int, inv float64, c [3]float64) {
	k := j*p.fb.w + i
	iv := float32(inv)
	if p.pass == passXRay {
		if iv >= p.fb.inv[k] {
			return
		}
		if p.fb.xinv == nil {
			n := p.fb.w * p.fb.h
			p.fb.xinv, p.fb.xcol = make([]float32, n), make([]float32, 3*n)
		}
		if iv <= p.fb.xinv[k] {
			return
		}
		p.fb.xinv[k] = iv
		p.fb.xcol[3*k], p.fb.xcol[3*k+1], p.fb.xcol[3*k+2] = float32(c[0]), float32(c[1]), float32(c[2])
		return
	}
	old := p.fb.inv[k]
	if iv <= old {
		return
	}
	p.fb.inv[k] = iv
	p.fb.wrote(i, j, old)
	if p.fb.xinv != nil && iv > p.fb.xinv[k] {
		p.fb.xinv[k] = 0 // a connector drawn in front of its own hidden part
	}
	if p.faded {
		// Faded: blended over the background, as if translucent.
		bg := [3]float64{float64(background.R) / 255, float64(background.G) / 255, float64(background.B) / 255}
		for m := range 3 {
			c[m] = fadedOpacity*c[m] + (1-fadedOpacity)*bg[m]
		}
	}
	p.fb.col[3*k], p.fb.col[3*k+1], p.fb.col[3*k+2] = float32(c[0]), float32(c[1]), float32(c[2])
	p.fb.faded[k] = p.faded
}

// vertex is a projected vertex: sample position, inverse depth, world
// normal.
type vertex struct {
	x, y, inv float64
	n         [3]float64
}

// project returns the vertex of world point w with world normal n, and
// false when it is behind the camera's near limit.
func (p *painter) project(w, n [3]float64) (vertex, bool) {
	q := p.cam.ToCamera(w)
	d := p.cam.Dist - q[2]
	if d < 1e-4*p.cam.Dist {
		return vertex{}, false
	}
	return vertex{x: float64(p.fb.w)/2 + p.f*q[0]/d, y: float64(p.fb.h)/2 - p.f*q[1]/d, inv: 1 / d, n: n}, true
}

// triangle fills a triangle with perspective-correct depth and normals,
// lit per sample; cull drops triangles facing away (closed meshes).
func (p *painter) triangle(a, b, c vertex, col [3]float64, cull bool) {
	area := (b.x-a.x)*(c.y-a.y) - (b.y-a.y)*(c.x-a.x)
	if area == 0 || cull && area > 0 {
		return // degenerate, or facing away (counter-clockwise on screen is front: y points down)
	}
	x0 := max(0, int(math.Floor(math.Min(a.x, math.Min(b.x, c.x)))))
	x1 := min(p.fb.w-1, int(math.Ceil(math.Max(a.x, math.Max(b.x, c.x)))))
	y0 := max(0, int(math.Floor(math.Min(a.y, math.Min(b.y, c.y)))))
	y1 := min(p.fb.h-1, int(math.Ceil(math.Max(a.y, math.Max(b.y, c.y)))))
	if x0 > x1 || y0 > y1 {
		return
	}
	if p.pass == passNormal {
		near := math.Max(a.inv, math.Max(b.inv, c.inv))
		all := true
		for ty := y0 / tileSize; ty <= y1/tileSize && all; ty++ {
			for tx := x0 / tileSize; tx <= x1/tileSize && all; tx++ {
				all = p.fb.hidden(ty*p.fb.tw+tx, near)
			}
		}
		if all {
			return
		}
	}
	inv := 1 / area
	for j := y0; j <= y1; j++ {
		py := float64(j) + 0.5
		for i := x0; i <= x1; i++ {
			px := float64(i) + 0.5
			wa := ((b.x-px)*(c.y-py) - (b.y-py)*(c.x-px)) * inv
			wb := ((c.x-px)*(a.y-py) - (c.y-py)*(a.x-px)) * inv
			wc := 1 - wa - wb
			if wa < 0 || wb < 0 || wc < 0 {
				continue
			}
			z := wa*a.inv + wb*b.inv + wc*c.inv
			k := j*p.fb.w + i
			if p.pass == passNormal && float32(z) <= p.fb.inv[k] || p.pass == passXRay && float32(z) >= p.fb.inv[k] {
				continue
			}
			var n [3]float64
			for m := range 3 {
				n[m] = (wa*a.inv*a.n[m] + wb*b.inv*b.n[m] + wc*c.inv*c.n[m]) / z
			}
			n = unit(n)
			if dot(n, p.view) < 0 && !cull {
				n = [3]float64{-n[0], -n[1], -n[2]} // two-sided: the side seen
			}
			p.put(i, j, z, shadeColor(col, n, p.view))
		}
	}
}

// quad fills the quadrilateral a b c d (in order).
func (p *painter) quad(a, b, c, d vertex, col [3]float64, cull bool) {
	p.triangle(a, b, c, col, cull)
	p.triangle(a, c, d, col, cull)
}

// sphere fills a sphere of centre c and radius r by casting a ray per
// sample: exact silhouette, depth and normal.
func (p *painter) sphere(c [3]float64, r float64, col [3]float64) {
	q := p.cam.ToCamera(c)
	dc := p.cam.Dist - q[2]
	if dc-r < 1e-4*p.cam.Dist {
		return
	}
	cx, cy := float64(p.fb.w)/2+p.f*q[0]/dc, float64(p.fb.h)/2-p.f*q[1]/dc
	// The silhouette lies within the projected radius of the sphere's
	// tangent cone, f·r/√(d² − r²).
	pr := p.f*r/math.Sqrt(dc*dc-r*r) + 1
	x0, x1 := max(0, int(math.Floor(cx-pr))), min(p.fb.w-1, int(math.Ceil(cx+pr)))
	y0, y1 := max(0, int(math.Floor(cy-pr))), min(p.fb.h-1, int(math.Ceil(cy+pr)))
	// Camera frame: eye at (0, 0, Dist); the ray through a sample has
	// direction (u, v, −1); centre relative to the eye e = q − eye.
	e := [3]float64{q[0], q[1], q[2] - p.cam.Dist}
	ee := dot(e, e) - r*r
	nearest := 1 / (dc - r)
	for ty := y0 / tileSize; ty <= y1/tileSize; ty++ {
		for tx := x0 / tileSize; tx <= x1/tileSize; tx++ {
			if p.pass == passNormal && p.fb.hidden(ty*p.fb.tw+tx, nearest) {
				continue
			}
			for j := max(y0, ty*tileSize); j <= min(y1, (ty+1)*tileSize-1); j++ {
				v := -(float64(j) + 0.5 - float64(p.fb.h)/2) / p.f
				for i := max(x0, tx*tileSize); i <= min(x1, (tx+1)*tileSize-1); i++ {
					u := (float64(i) + 0.5 - float64(p.fb.w)/2) / p.f
					dir := [3]float64{u, v, -1}
					a := dot(dir, dir)
					b := dot(dir, e)
					disc := b*b - a*ee
					if disc < 0 {
						continue
					}
					t := (b - math.Sqrt(disc)) / a // nearest hit; depth along the axis is t
					if t <= 0 {
						continue
					}
					k := j*p.fb.w + i
					if p.pass == passNormal && float32(1/t) <= p.fb.inv[k] || p.pass == passXRay && float32(1/t) >= p.fb.inv[k] {
						continue
					}
					hit := [3]float64{t*u - e[0], t*v - e[1], -t - e[2]}
					n := p.cam.FromCamera([3]float64{hit[0] / r, hit[1] / r, hit[2] / r})
					p.put(i, j, 1/t, shadeColor(col, n, p.view))
				}
			}
		}
	}
}

// box fills a box centred at c with edge lengths e, rotated by q.
func (p *painter) box(c, e [3]float64, q [4]float64, col [3]float64) {
	var corners [8]vertex
	var world [8][3]float64
	for i := range 8 {
		var l [3]float64
		for k := range 3 {
			l[k] = e[k] / 2
			if i&(1<<k) == 0 {
				l[k] = -l[k]
			}
		}
		world[i] = add(c, node.Rotate(q, l))
	}
	for _, f := range boxFaces {
		n := node.Rotate(q, f.n)
		ok := true
		for m, ci := range f.c {
			var good bool
			corners[m], good = p.project(world[ci], n)
			ok = ok && good
		}
		if ok {
			p.quad(corners[0], corners[1], corners[2], corners[3], col, true)
		}
	}
}

// boxFaces are the six faces of a box: the outward normal and the corners
// (bit k of a corner index set: +half-edge along axis k), counter-clockwise
// seen from outside.
var boxFaces = [6]struct {
	n [3]float64
	c [4]int
}{
	{[3]float64{1, 0, 0}, [4]int{1, 3, 7, 5}},
	{[3]float64{-1, 0, 0}, [4]int{0, 4, 6, 2}},
	{[3]float64{0, 1, 0}, [4]int{2, 6, 7, 3}},
	{[3]float64{0, -1, 0}, [4]int{0, 1, 5, 4}},
	{[3]float64{0, 0, 1}, [4]int{4, 5, 7, 6}},
	{[3]float64{0, 0, -1}, [4]int{0, 2, 3, 1}},
}

// tube fills a tube of radius r along the polyline pts with sides faces
// around it; caps closes its ends with flat discs.
func (p *painter) tube(pts [][3]float64, r float64, sides int, col [3]float64, caps bool) {
	if len(pts) < 2 {
		return
	}
	// A frame transported along the polyline: u ⟂ the segment, v = t × u.
	t0 := unit(sub(pts[1], pts[0]))
	if t0 == ([3]float64{}) {
		return
	}
	u := perpendicular(t0)
	ring := func(c, t, u [3]float64) []vertex {
		v := cross(t, u)
		out := make([]vertex, sides)
		for s := range sides {
			a := 2 * math.Pi * float64(s) / float64(sides)
			n := add(scale(u, math.Cos(a)), scale(v, math.Sin(a)))
			vx, ok := p.project(add(c, scale(n, r)), n)
			if !ok {
				return nil
			}
			out[s] = vx
		}
		return out
	}
	prev := ring(pts[0], t0, u)
	first := prev
	t := t0
	for i := 1; i < len(pts); i++ {
		// The tangent at a joint bisects its two segments.
		tn := t
		if i+1 < len(pts) {
			if d := unit(sub(pts[i+1], pts[i])); d != ([3]float64{}) {
				tn = unit(add(unit(sub(pts[i], pts[i-1])), d))
			}
		} else if d := unit(sub(pts[i], pts[i-1])); d != ([3]float64{}) {
			tn = d
		}
		if tn == ([3]float64{}) {
			tn = t
		}
		// Transport u: remove its component along the new tangent.
		u = unit(sub(u, scale(tn, dot(u, tn))))
		if u == ([3]float64{}) {
			u = perpendicular(tn)
		}
		cur := ring(pts[i], tn, u)
		if prev != nil && cur != nil {
			for s := range sides {
				s1 := (s + 1) % sides
				p.quad(prev[s], prev[s1], cur[s1], cur[s], col, true)
			}
		}
		prev, t = cur, tn
	}
	if caps && first != nil && prev != nil {
		p.disc(pts[0], scale(t0, -1), first, col)
		p.disc(pts[len(pts)-1], t, prev, col)
	}
}

// disc closes a tube's end: a fan from its centre c with normal n over
// the ring's vertices.
func (p *painter) disc(c, n [3]float64, ring []vertex, col [3]float64) {
	cv, ok := p.project(c, n)
	if !ok {
		return
	}
	for s := range ring {
		a, b := ring[s], ring[(s+1)%len(ring)]
		a.n, b.n = n, n
		p.triangle(cv, a, b, col, false)
	}
}

// plane fills a flat rectangle (node.Plane), both sides.
func (p *painter) plane(s node.Primitive, col [3]float64) {
	hx, hz := s.Size[0]/2, s.Size[2]/2
	n := node.Rotate(s.Rot, [3]float64{0, 1, 0})
	var v [4]vertex
	for i, cr := range [4][2]float64{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
		w := add(s.P, node.Rotate(s.Rot, [3]float64{cr[0] * hx, 0, cr[1] * hz}))
		var ok bool
		if v[i], ok = p.project(w, n); !ok {
			return
		}
	}
	p.quad(v[0], v[1], v[2], v[3], col, false)
}

// ---- small vector helpers ----

func dot(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func add(a, b [3]float64) [3]float64 {
	return [3]float64{a[0] + b[0], a[1] + b[1], a[2] + b[2]}
}
func sub(a, b [3]float64) [3]float64 {
	return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]}
}
func scale(a [3]float64, k float64) [3]float64 { return [3]float64{a[0] * k, a[1] * k, a[2] * k} }
func cross(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// unit returns a scaled to length 1, or zero for a zero vector.
func unit(a [3]float64) [3]float64 {
	l := math.Sqrt(dot(a, a))
	if l == 0 {
		return [3]float64{}
	}
	return scale(a, 1/l)
}

// perpendicular returns a unit vector ⟂ t: t crossed with the world axis
// it is least aligned with.
func perpendicular(t [3]float64) [3]float64 {
	k := 0
	for i := 1; i < 3; i++ {
		if math.Abs(t[i]) < math.Abs(t[k]) {
			k = i
		}
	}
	var e [3]float64
	e[k] = 1
	return unit(cross(t, e))
}

// rgb is a primitive's color without alpha.
func rgb(c [4]float64) [3]float64 { return [3]float64{c[0], c[1], c[2]} }

// toImage averages the samples into img (ss × ss samples per pixel),
// blending the x-ray layer over what hides it.
func (fb *frameBuffer) toImage(img *image.RGBA, ss int) {
	b := img.Bounds()
	w := b.Dx()
	bg := [3]float64{float64(background.R) / 255, float64(background.G) / 255, float64(background.B) / 255}
	norm := 1 / float64(ss*ss)
	for y := range b.Dy() {
		for x := range w {
			var c [3]float64
			for j := range ss {
				for i := range ss {
					k := (y*ss+j)*fb.w + x*ss + i
					var s [3]float64
					if fb.inv[k] == 0 {
						s = bg
					} else {
						s = [3]float64{float64(fb.col[3*k]), float64(fb.col[3*k+1]), float64(fb.col[3*k+2])}
					}
					if fb.xinv != nil && fb.xinv[k] != 0 {
						for m := range 3 {
							s[m] = (1-xrayOpacity)*s[m] + xrayOpacity*float64(fb.xcol[3*k+m])
						}
					}
					c[0] += s[0]
					c[1] += s[1]
					c[2] += s[2]
				}
			}
			o := img.PixOffset(b.Min.X+x, b.Min.Y+y)
			img.Pix[o] = fast8(c[0] * norm)
			img.Pix[o+1] = fast8(c[1] * norm)
			img.Pix[o+2] = fast8(c[2] * norm)
			img.Pix[o+3] = 0xff
		}
	}
}

// fast8 is to8 without the library calls: the inner loop of toImage.
func fast8(v float64) uint8 {
	x := v*255 + 0.5
	switch {
	case x <= 0:
		return 0
	case x >= 255:
		return 255
	}
	return uint8(x)
}

func to8(v float64) uint8 {
	return uint8(math.Round(255 * math.Min(1, math.Max(0, v))))
}
