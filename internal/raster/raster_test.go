package raster

import (
	"bytes"
	"image"
	"image/color"
	"math"
	"testing"

	"github.com/cosimgo/cosim/node"
)

// centreCamera looks straight down −z at the origin from distance d.
func centreCamera(d float64) Camera {
	return Camera{Dist: d, FOV: DefaultFOV}
}

// TestProjection: with yaw and pitch zero the camera looks along −z; a
// point at the target lands in the image centre, and a point at (x, 0, 0)
// lands f·x/Dist to the right with f = (min(w, h)/2)/tan(FOV/2) (the
// pinhole model).
func TestProjection(t *testing.T) {
	c := centreCamera(5)
	x, y, k := c.project(c.toCamera([3]float64{0, 0, 0}), 200, 100)
	if x != 100 || y != 50 {
		t.Errorf("target at (%v, %v), want the centre (100, 50)", x, y)
	}
	f := 50 / math.Tan(DefaultFOV/2)
	if math.Abs(k-f/5) > 1e-12 {
		t.Errorf("scale %v, want %v", k, f/5)
	}
	x, y, _ = c.project(c.toCamera([3]float64{1, 1, 0}), 200, 100)
	if math.Abs(x-(100+f/5)) > 1e-9 || math.Abs(y-(50-f/5)) > 1e-9 {
		t.Errorf("(1, 1, 0) at (%v, %v), want (%v, %v): y is up", x, y, 100+f/5, 50-f/5)
	}
	// A quarter turn of yaw brings world −z… to the right: (0, 0, −1) → x > centre.
	c.Yaw = math.Pi / 2
	if x, _, _ := c.project(c.toCamera([3]float64{0, 0, -1}), 200, 100); !(x > 100) {
		t.Errorf("yaw π/2: (0, 0, −1) at x = %v, want right of the centre", x)
	}
}

// TestDrawSphereAndDepth: a red sphere at the origin covers the image
// centre; a blue sphere nearer the camera, drawn first, still covers it
// (depth sorting, not drawing order, decides).
func TestDrawSphereAndDepth(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 64, 64))
	red := node.Primitive{Kind: node.Sphere, Size: [3]float64{0.5}, Color: [4]float64{1, 0, 0, 1}}
	blue := node.Primitive{Kind: node.Sphere, P: [3]float64{0, 0, 1}, Size: [3]float64{0.2}, Color: [4]float64{0, 0, 1, 1}}
	Draw(img, [][]node.Primitive{{blue}, {red}}, centreCamera(5), 12, "")
	c := img.RGBAAt(32, 32)
	if !(c.B > c.R) {
		t.Errorf("centre %v: the nearer blue sphere should be in front", c)
	}
	if img.RGBAAt(32, 32+4) == background || img.RGBAAt(2, 2) != background {
		t.Error("the red sphere's disc or the background is wrong")
	}
}

// TestDrawBoxFaces: a cube seen from a yaw and pitch shows at most three
// faces, lit differently; a coil is a stroke; the result is deterministic.
func TestDrawBoxFaces(t *testing.T) {
	frame := [][]node.Primitive{
		{{Kind: node.Box, Size: [3]float64{1, 1, 1}, Color: [4]float64{0.8, 0.2, 0.2, 1}}},
		{{Kind: node.Coil, P: [3]float64{-1.5, 0, 0}, Q: [3]float64{-1.5, 1.5, 0}, Size: [3]float64{0.3}, Windings: 4, Color: [4]float64{0, 0, 1, 1}}},
		{{Kind: node.Plane, P: [3]float64{0, -0.5, 0}, Size: [3]float64{4, 0, 4}, Color: [4]float64{0.6, 0.6, 0.6, 1}}},
	}
	cam := Fit([][][]node.Primitive{frame}, 0.6, 0.4, 1)
	a := image.NewRGBA(image.Rect(0, 0, 120, 90))
	Draw(a, frame, cam, 12, "t = 1.00 s")
	shades := map[color.RGBA]int{}
	blue := 0
	for y := 0; y < 90; y++ {
		for x := 0; x < 120; x++ {
			c := a.RGBAAt(x, y)
			if c.R > 100 && c.G < 100 && c.B < 100 && c != (color.RGBA{0xcc, 0x33, 0x33, 0xff}) { // not the x axis of the triad
				shades[c]++
			}
			if c.B > 200 && c.R < 50 {
				blue++
			}
		}
	}
	if len(shades) < 2 || len(shades) > 3 {
		t.Errorf("%d shades of the cube's red, want 2 or 3 visible faces", len(shades))
	}
	if blue < 20 {
		t.Errorf("the coil has %d blue pixels", blue)
	}
	b := image.NewRGBA(a.Bounds())
	Draw(b, frame, cam, 12, "t = 1.00 s")
	if !bytes.Equal(a.Pix, b.Pix) {
		t.Error("drawing twice gives different pixels")
	}
}

// TestFit: the fitted camera looks at the centre of what moves and sees
// it all: every sphere of the frames projects inside the image.
func TestFit(t *testing.T) {
	var frames [][][]node.Primitive
	for k := range 10 {
		frames = append(frames, [][]node.Primitive{{{Kind: node.Sphere, P: [3]float64{float64(k), 2, 0}, Size: [3]float64{0.1}}}})
	}
	c := Fit(frames, 0.3, 0.2, 1)
	if math.Abs(c.Target[0]-4.5) > 1e-12 || math.Abs(c.Target[1]-2) > 1e-12 {
		t.Errorf("target %v, want (4.5, 2, 0)", c.Target)
	}
	for _, f := range frames {
		x, y, _ := c.project(c.toCamera(f[0][0].P), 100, 100)
		if x < 0 || x > 100 || y < 0 || y > 100 {
			t.Errorf("sphere at %v projects to (%v, %v), outside", f[0][0].P, x, y)
		}
	}
	if e := Fit(nil, 0, 0, 2); !(e.Dist > 0) {
		t.Errorf("empty fit %+v", e)
	}
}
