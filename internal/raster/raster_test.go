package raster

import (
	"bytes"
	"image"
	"image/color"
	"image/gif"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
)

// TestProjection: with yaw and pitch zero the camera looks along −z; the
// target lands in the image centre and a point at (x, 0, 0) lands f·x/Dist
// to the right, f = (min(w, h)/2)/tan(FOV/2) (the pinhole model); y is up;
// FromCamera inverts ToCamera.
func TestProjection(t *testing.T) {
	c := Camera{Dist: 5, FOV: DefaultFOV}
	x, y, d, ok := c.Project([3]float64{}, 200, 100)
	if x != 100 || y != 50 || d != 5 || !ok {
		t.Errorf("target at (%v, %v) depth %v, want the centre (100, 50) at 5", x, y, d)
	}
	f := 50 / math.Tan(DefaultFOV/2)
	x, y, _, _ = c.Project([3]float64{1, 1, 0}, 200, 100)
	if !numtest.Within(x, (100+f/5), 1e-9) || !numtest.Within(y, (50-f/5), 1e-9) {
		t.Errorf("(1, 1, 0) at (%v, %v), want (%v, %v)", x, y, 100+f/5, 50-f/5)
	}
	c = Camera{Yaw: 0.7, Pitch: -0.3, Target: [3]float64{1, 2, 3}, Dist: 4, FOV: DefaultFOV}
	v := [3]float64{0.3, -1.2, 2.5}
	got := c.FromCamera(c.ToCamera(add(v, c.Target)))
	for i := range 3 {
		if !numtest.Within(got[i], v[i], 1e-12) {
			t.Fatalf("FromCamera(ToCamera(%v)) = %v", v, got)
		}
	}
	e := c.Eye()
	if q := c.ToCamera(e); !numtest.Within(q[0], 0, 1e-12) || !numtest.Within(q[1], 0, 1e-12) || !numtest.Within(q[2], 4, 1e-12) {
		t.Errorf("the eye in camera coordinates is %v, want (0, 0, Dist)", q)
	}
}

// TestFit: the fitted camera sees every corner of the box inside the
// image with the margin, and one corner touches the margin (the nearest
// such camera).
func TestFit(t *testing.T) {
	b := Box{Lo: [3]float64{-1, 0, -0.5}, Hi: [3]float64{4, 10, 0.5}}
	for _, view := range [][2]float64{{0.6, 0.35}, {0, 0}, {2, 1.2}, {-1, -0.5}} {
		c := Fit(b, view[0], view[1], 1, 480, 360)
		worst := 0.0
		for i := range 8 {
			p := b.Lo
			for k := range 3 {
				if i&(1<<k) != 0 {
					p[k] = b.Hi[k]
				}
			}
			x, y, _, ok := c.Project(p, 480, 360)
			fx, fy := math.Abs(x-240)/(240*(1-fitMargin)), math.Abs(y-180)/(180*(1-fitMargin))
			worst = math.Max(worst, math.Max(fx, fy))
			if !ok || fx > 1+1e-9 || fy > 1+1e-9 {
				t.Errorf("view %v: corner %v at (%v, %v), outside the margin", view, p, x, y)
			}
		}
		if !numtest.Within(worst, 1, 1e-9) {
			t.Errorf("view %v: the farthest corner reaches %v of the margin, want 1 (tight)", view, worst)
		}
	}
}

// blobs returns the centroid and the principal angle (radians, of the
// long axis, in image coordinates with y up) of the pixels of img for
// which in returns true, and their count.
func blob(img *image.RGBA, in func(c color.RGBA) bool) (cx, cy, angle float64, n int) {
	var sx, sy, sxx, syy, sxy float64
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if in(img.RGBAAt(x, y)) {
				px, py := float64(x)+0.5, float64(y)+0.5
				sx, sy, sxx, syy, sxy = sx+px, sy+py, sxx+px*px, syy+py*py, sxy+px*py
				n++
			}
		}
	}
	if n == 0 {
		return 0, 0, 0, 0
	}
	k := float64(n)
	cx, cy = sx/k, sy/k
	vxx, vyy, vxy := sxx/k-cx*cx, syy/k-cy*cy, sxy/k-cx*cy
	// The principal axis of the covariance; image y points down.
	return cx, cy, -0.5 * math.Atan2(2*vxy, vxx-vyy), n
}

// reddish tells a red body's pixels, lit or in shade, from the grey
// floor, the background and the labels: by hue, not brightness.
func reddish(c color.RGBA) bool {
	return int(c.R) > 30 && 10*int(c.R) > 18*int(c.G) && 10*int(c.R) > 18*int(c.B)
}

// bboxCentre is the centre of the bounding box of the pixels for which in
// returns true: a silhouette's centre, whatever the shading inside.
func bboxCentre(img *image.RGBA, in func(c color.RGBA) bool) (cx, cy float64, n int) {
	b := img.Bounds()
	x0, y0, x1, y1 := b.Max.X, b.Max.Y, b.Min.X-1, b.Min.Y-1
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if in(img.RGBAAt(x, y)) {
				x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
				n++
			}
		}
	}
	return float64(x0+x1+1) / 2, float64(y0+y1+1) / 2, n
}

// TestSphereCentre: a red sphere's drawn centre (the centre of its red
// silhouette) is the projection of its centre, within 0.75 pixel (the
// silhouette's edge pixels are antialiased; an off-axis sphere's outline
// is an ellipse whose centre moves outward by a fraction of a pixel here),
// at three places of a run, small (enlarged to MinPixels) and large.
func TestSphereCentre(t *testing.T) {
	set := node.DefaultDrawSettings()
	var frames [][][]node.Primitive
	for _, y := range []float64{10, 4.3, 0.05} {
		frames = append(frames, [][]node.Primitive{{{Kind: node.Sphere, P: [3]float64{0, y, 0}, Size: [3]float64{0.05}, Color: set.BodyColor}}})
	}
	for _, r := range []float64{0.05, 0.6} {
		for _, fr := range frames {
			fr[0][0].Size[0] = r
		}
		s := NewScene([]Body{{Name: "ball"}}, frames, 12, 320, 240, 0.6, 0.35, 1)
		s.Labels, s.Axes = false, false
		for _, fr := range frames {
			img := image.NewRGBA(image.Rect(0, 0, 320, 240))
			s.Draw(img, fr, "")
			cx, cy, n := bboxCentre(img, reddish)
			x, y, _, _ := s.Camera.Project(fr[0][0].P, 320, 240)
			if n < 20 || math.Hypot(cx-x, cy-y) > 0.75 {
				t.Errorf("radius %v at %v: drawn centre (%.2f, %.2f) of %d pixels, projected (%.2f, %.2f)", r, fr[0][0].P, cx, cy, n, x, y)
			}
			if r == 0.05 && float64(n) < math.Pi*(s.MinPixels-1)*(s.MinPixels-1) {
				t.Errorf("a small sphere covers %d pixels: not enlarged to %v pixels", n, s.MinPixels)
			}
		}
	}
}

// TestBoxOrientation: a long box turned by θ about z, seen along −z, is
// drawn with its long axis at θ: the principal axis of its front face's
// pixels (the face facing the camera, a rectangle parallel to the image
// plane, so perspective only scales it; found by its color, read at its
// projected centre) is θ within 0.5°.
func TestBoxOrientation(t *testing.T) {
	for _, th := range []float64{0.3, 1.2, -0.7, 2.5} {
		bar := node.Primitive{Kind: node.Box, Size: [3]float64{2, 0.2, 0.2}, Rot: [4]float64{math.Cos(th / 2), 0, 0, math.Sin(th / 2)}, Color: [4]float64{0.8, 0.25, 0.2, 1}}
		fr := [][]node.Primitive{{bar}}
		s := NewScene([]Body{{Name: "bar"}}, [][][]node.Primitive{fr}, 12, 300, 300, 0, 0, 1)
		s.Labels, s.Axes, s.Floor.Show = false, false, false
		img := image.NewRGBA(image.Rect(0, 0, 300, 300))
		s.Draw(img, fr, "")
		a, n := faceAngle(img, s.Camera, [3]float64{0, 0, 0.1})
		d := math.Mod(a-th+3*math.Pi/2, math.Pi) - math.Pi/2 // an axis: modulo π
		if n < 100 || !numtest.Within(d, 0, 0.5*math.Pi/180) {
			t.Errorf("θ = %v: drawn at %v (%d pixels)", th, a, n)
		}
	}
}

// faceAngle is the principal angle of the pixels of the color found at
// the projection of p (within 12 of it per channel), and their count.
func faceAngle(img *image.RGBA, cam Camera, p [3]float64) (float64, int) {
	b := img.Bounds()
	x, y, _, _ := cam.Project(p, b.Dx(), b.Dy())
	ref := img.RGBAAt(int(x), int(y))
	_, _, a, n := blob(img, func(c color.RGBA) bool {
		return abs(int(c.R)-int(ref.R)) <= 12 && abs(int(c.G)-int(ref.G)) <= 12 && abs(int(c.B)-int(ref.B)) <= 12
	})
	return a, n
}

// TestFloorScaleAxes: the floor lies under the run with its grid; the
// scale bar is a nice length about a fifth of the width; the world axes
// are drawn at the origin in their colors.
func TestFloorScaleAxes(t *testing.T) {
	fr := [][]node.Primitive{{{Kind: node.Sphere, P: [3]float64{-1, 0.5, -1}, Size: [3]float64{0.5}, Color: [4]float64{0.8, 0.25, 0.2, 1}}}}
	// The camera frames the run: the sphere, and a frame where it passed
	// near the origin.
	near := [][]node.Primitive{{{Kind: node.Sphere, P: [3]float64{0.3, 0.5, 0.3}, Size: [3]float64{0.5}}}}
	s := NewScene([]Body{{Name: "ball"}}, [][][]node.Primitive{fr, near}, 12, 400, 300, 0.6, 0.5, 1)
	if s.Floor.Y >= 0 || s.Floor.Spacing != NiceFloor(1.0/5) {
		t.Errorf("floor %+v: want it under the sphere (y < 0) with 0.2 m cells", s.Floor)
	}
	m, px := ScaleBar(s.Camera, 400, 300)
	if px < 0.08*400 || px > 0.2*400+1e-9 || NiceFloor(m) != m {
		t.Errorf("scale bar %v m, %v px: want a nice length of 8 %% to 20 %% of the width", m, px)
	}
	img := image.NewRGBA(image.Rect(0, 0, 400, 300))
	s.Draw(img, fr, "")
	floor, grid := 0, 0
	close := func(c color.RGBA, f [3]float64) bool {
		w := rgba(f)
		return abs(int(c.R)-int(w.R)) <= 2 && abs(int(c.G)-int(w.G)) <= 2 && abs(int(c.B)-int(w.B)) <= 2
	}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := img.RGBAAt(x, y)
			switch {
			case close(c, floorColor):
				floor++
			case close(c, gridColor), close(c, majorColor):
				grid++
			}
		}
	}
	if floor < 10000 || grid < 300 {
		t.Errorf("%d floor and %d grid pixels", floor, grid)
	}
	if !s.axesShown() {
		t.Fatal("the origin is over the floor: the axes must be drawn")
	}
	for k := range 3 {
		var e [3]float64
		e[k] = s.axisLength() * 0.6
		x, y, _, _ := s.Camera.Project(e, 400, 300)
		c := img.RGBAAt(int(x), int(y))
		want := rgba(axisColors[k])
		if d := math.Abs(float64(c.R)-float64(want.R)) + math.Abs(float64(c.G)-float64(want.G)) + math.Abs(float64(c.B)-float64(want.B)); d > 200 {
			t.Errorf("axis %d at (%v, %v) is %v, want about %v", k, x, y, c, want)
		}
	}
}

// TestXRay: a connector inside a box shows through it, tinted.
func TestXRay(t *testing.T) {
	box := node.Primitive{Kind: node.Box, Size: [3]float64{2, 2, 2}, Color: [4]float64{0.8, 0.8, 0.8, 1}}
	rod := node.Primitive{Kind: node.Cylinder, P: [3]float64{-0.5, 0, 0}, Q: [3]float64{0.5, 0, 0}, Size: [3]float64{0.3}, Color: [4]float64{0, 0, 1, 1}}
	fr := [][]node.Primitive{{box}, {rod}}
	blue := func(conn bool) int {
		s := NewScene([]Body{{Name: "box"}, {Name: "rod", Connector: conn}}, [][][]node.Primitive{fr}, 12, 200, 200, 0, 0, 1)
		s.Labels, s.Axes = false, false
		img := image.NewRGBA(image.Rect(0, 0, 200, 200))
		s.Draw(img, fr, "")
		_, _, _, n := blob(img, func(c color.RGBA) bool { return int(c.B) > int(c.R)+40 })
		return n
	}
	if n := blue(false); n != 0 {
		t.Errorf("a body inside a box shows %d pixels", n)
	}
	if n := blue(true); n < 100 {
		t.Errorf("a connector inside a box shows %d pixels, want its silhouette", n)
	}
}

// TestPlace: shown labels never overlap each other or reserved boxes and
// stay inside the picture, for crowded random anchors; an isolated label
// sits right of its anchor without a leader.
func TestPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 50 {
		var ls []Label
		for range 5 + trial {
			ls = append(ls, Label{AX: 100 + 200*rng.Float64(), AY: 80 + 120*rng.Float64(), R: 8 * rng.Float64(), W: 20 + 40*rng.Float64(), H: 15})
		}
		reserved := []Rect{{0, 250, 56, 300}}
		pl := Place(ls, 400, 300, reserved)
		shown := 0
		for i, p := range pl {
			if !p.Shown {
				continue
			}
			shown++
			if p.Box.X0 < 0 || p.Box.Y0 < 0 || p.Box.X1 > 400 || p.Box.Y1 > 300 || p.Box.Overlaps(reserved[0], 0) {
				t.Errorf("label %d at %+v: outside or on a reserved box", i, p.Box)
			}
			for j := range i {
				if pl[j].Shown && p.Box.Overlaps(pl[j].Box, 0) {
					t.Errorf("trial %d: labels %d and %d overlap: %+v %+v", trial, i, j, p.Box, pl[j].Box)
				}
			}
		}
		if shown < 5 {
			t.Errorf("trial %d: only %d labels shown", trial, shown)
		}
	}
	pl := Place([]Label{{AX: 100, AY: 100, R: 5, W: 30, H: 14}}, 400, 300, nil)
	if !pl[0].Shown || pl[0].Leader || pl[0].Box.X0 != 109 {
		t.Errorf("a lone label: %+v, want right of its anchor at x = 109", pl[0])
	}
}

// TestGIF: the animation decodes with image/gif to the frames drawn
// (each pixel within the palette's rounding), loops, keeps the delays,
// and is the same bytes whatever the number of workers.
func TestGIF(t *testing.T) {
	var frames [][][]node.Primitive
	for k := range 9 {
		frames = append(frames, [][]node.Primitive{{{Kind: node.Sphere, P: [3]float64{float64(k) / 4, 1, 0}, Size: [3]float64{0.2}, Color: [4]float64{0.8, 0.25, 0.2, 1}}}})
	}
	s := NewScene([]Body{{Name: "ball"}}, frames, 12, 96, 64, 0.6, 0.3, 1)
	s.Labels = false
	draw := func(i int) (*image.RGBA, error) {
		img := image.NewRGBA(image.Rect(0, 0, 96, 64))
		s.Draw(img, frames[i], "")
		return img, nil
	}
	var imgs []*image.RGBA
	for i := range frames {
		img, _ := draw(i)
		imgs = append(imgs, img)
	}
	pal := NewPalette(imgs)
	encode := func(workers int) []byte {
		var buf bytes.Buffer
		g := NewGIF(&buf, 96, 64, pal, workers)
		err := Frames(len(frames), workers, draw, func(i int, img *image.RGBA) error { return g.Add(img, 3+i) })
		if err == nil {
			err = g.Close()
		}
		if err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	one := encode(1)
	if three := encode(3); !bytes.Equal(one, three) {
		t.Error("1 and 3 workers give different files")
	}
	g, err := gif.DecodeAll(bytes.NewReader(one))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Image) != 9 || g.LoopCount != 0 || g.Delay[4] != 7 {
		t.Fatalf("%d frames, loop %d, delay[4] %d", len(g.Image), g.LoopCount, g.Delay[4])
	}
	canvas := image.NewRGBA(image.Rect(0, 0, 96, 64))
	worst := 0
	for i, fr := range g.Image {
		for y := fr.Rect.Min.Y; y < fr.Rect.Max.Y; y++ {
			for x := fr.Rect.Min.X; x < fr.Rect.Max.X; x++ {
				canvas.Set(x, y, fr.At(x, y))
			}
		}
		for k := 0; k < len(canvas.Pix); k += 4 {
			for m := range 3 {
				worst = max(worst, abs(int(canvas.Pix[k+m])-int(imgs[i].Pix[k+m])))
			}
		}
	}
	// 5 bits per channel in the lookup, then the nearest of ≤ 256 box
	// means: a channel may move by a bin (8) plus the box's spread.
	if worst > 24 {
		t.Errorf("a decoded pixel differs by %d from the drawn one", worst)
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// TestPaletteExact: an image of few colors in distinct 15-bit bins gets
// them exactly.
func TestPaletteExact(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 3, 1))
	cs := []color.RGBA{{0xf4, 0xf4, 0xf2, 0xff}, {0xcc, 0x40, 0x33, 0xff}, {0x10, 0x20, 0xd0, 0xff}}
	for i, c := range cs {
		img.SetRGBA(i, 0, c)
	}
	p := NewPalette([]*image.RGBA{img})
	idx := p.Index(img)
	for i, c := range cs {
		if got := p.Colors[idx[i]].(color.RGBA); got != c {
			t.Errorf("color %v mapped to %v", c, got)
		}
	}
}

// TestNiceFloor: 1, 2, 5 times powers of ten, at most x.
func TestNiceFloor(t *testing.T) {
	for x, want := range map[float64]float64{1: 1, 1.9: 1, 2: 2, 4.99: 2, 5: 5, 9.9: 5, 0.3: 0.2, 0.05: 0.05, 1234: 1000, 0.2: 0.2} {
		if got := NiceFloor(x); !numtest.Within(got, want, 1e-12*want) {
			t.Errorf("NiceFloor(%v) = %v, want %v", x, got, want)
		}
	}
}
