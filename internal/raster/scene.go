package raster

import (
	"math"
	"sync"

	"github.com/cosimgo/cosim/node"
)

// Body is what a picture knows of one drawn node besides its primitives.
type Body struct {
	// Name labels the node.
	Name string
	// Connector marks a node that sits between two points (a spring): its
	// primitives are also drawn faintly where bodies hide them, so a
	// spring inside a body or a ground point inside a mass stays visible.
	Connector bool
	// Unknown, when not empty, says what the drawing does not know (a
	// partial replay of a history): the node is drawn faded and its label
	// says so.
	Unknown string
}

// Scene is what every frame of a picture or an animation shares: the
// drawn nodes, the camera, the image size, and the floor and scale worked
// out from the extent of the whole run.
type Scene struct {
	Bodies        []Body
	Camera        Camera
	Width, Height int
	// Tiling is the number of segments per coil turn.
	Tiling int
	// Labels draws the nodes' names, placed so that no two overlap (a
	// label that fits nowhere is left out).
	Labels bool
	// Axes draws the world axes at the origin (when the floor reaches
	// it) and the axis triad in the corner, each labelled x, y, z.
	Axes bool
	// MinPixels is the smallest radius, in pixels, a sphere or box is
	// drawn with: small bodies are enlarged about their centre so they
	// stay visible (0: true size).
	MinPixels float64
	// Supersample is the number of samples per pixel along x and y (1 to
	// 4; 0 means 2): edges are antialiased by averaging them.
	Supersample int
	// Floor is the floor under the scene, with its grid.
	Floor Floor

	baseOnce sync.Once
	base     *frameBuffer // the floor and axes, drawn once
}

// Floor is a horizontal floor with a square grid, below everything the
// run draws.
type Floor struct {
	// Y is the floor's height.
	Y float64
	// Lo and Hi are the floor's corners in x and z.
	Lo, Hi [2]float64
	// Spacing is the grid's cell (m): 1, 2 or 5 times a power of ten.
	Spacing float64
	// Show draws the floor and grid.
	Show bool
}

// NewScene returns the scene of frames for an image w × h seen from yaw
// and pitch with zoom (the camera fitted to the run's extent), with
// labels, small bodies at least 5 pixels in radius, and the floor under
// the run: 1 % of the extent's size below its lowest point, reaching two
// grid cells past it on each side, with a grid of about 5 to 10 cells
// across the extent.
func NewScene(bodies []Body, frames [][][]node.Primitive, tiling, w, h int, yaw, pitch, zoom float64) *Scene {
	ext := Extent(frames)
	s := &Scene{
		Bodies: bodies, Width: w, Height: h, Tiling: tiling, Labels: true, Axes: true, MinPixels: 5, Supersample: 2,
		Camera: Fit(ext, yaw, pitch, zoom, w, h),
		Floor:  FloorUnder(ext),
	}
	return s
}

// FloorUnder returns the floor under extent ext: its grid spacing is
// NiceFloor(size/5), where size is the extent's largest edge, so 5 to 10
// cells span the scene; it lies 1 % of the size below the lowest point
// and reaches at least two cells past the extent in x and z (at least 8
// cells across), its edges on grid lines.
func FloorUnder(ext Box) Floor {
	if ext.Empty() {
		ext = Box{Lo: [3]float64{-0.25, -0.25, -0.25}, Hi: [3]float64{0.25, 0.25, 0.25}}
	}
	size := math.Max(ext.Size(), 1e-6)
	sp := NiceFloor(size / 5)
	f := Floor{Y: ext.Lo[1] - 0.01*size, Spacing: sp, Show: true}
	for k, i := range [2]int{0, 2} {
		c := (ext.Lo[i] + ext.Hi[i]) / 2
		half := math.Max((ext.Hi[i]-ext.Lo[i])/2+2*sp, 4*sp)
		f.Lo[k] = math.Floor((c-half)/sp) * sp
		f.Hi[k] = math.Ceil((c+half)/sp) * sp
	}
	return f
}

// NiceFloor returns the largest number 1, 2 or 5 times a power of ten
// that is at most x (x > 0): grid spacings and scale bars.
func NiceFloor(x float64) float64 {
	if !(x > 0) || math.IsInf(x, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	// Rounding can put x/p a hair under 1, 2 or 5.
	r := x / p * (1 + 1e-12)
	switch {
	case r >= 5:
		return 5 * p
	case r >= 2:
		return 2 * p
	}
	return p
}

// anchor is where a body's label points: the centre of its first
// sphere or box, or, for a connector, the middle of its longest coil,
// line or cylinder (not its ground markers); ok is false for a body that
// draws nothing.
func anchor(body []node.Primitive, connector bool) (p [3]float64, ok bool) {
	if len(body) == 0 {
		return p, false
	}
	if connector {
		best := -1.0
		for _, s := range body {
			if s.Kind == node.Coil || s.Kind == node.Line || s.Kind == node.Cylinder {
				l := dist(s.P, s.Q)
				if l > best {
					best, p = l, mid(s.P, s.Q)
				}
			}
		}
		if best >= 0 {
			return p, true
		}
	}
	s := body[0]
	if s.Kind == node.Coil || s.Kind == node.Line || s.Kind == node.Cylinder {
		return mid(s.P, s.Q), true
	}
	return s.P, true
}

func mid(a, b [3]float64) [3]float64 {
	return [3]float64{(a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2}
}

func dist(a, b [3]float64) float64 {
	return math.Sqrt((a[0]-b[0])*(a[0]-b[0]) + (a[1]-b[1])*(a[1]-b[1]) + (a[2]-b[2])*(a[2]-b[2]))
}
