package raster

import "math"

// Rect is a box in pixels, X0 ≤ X1, Y0 ≤ Y1.
type Rect struct{ X0, Y0, X1, Y1 float64 }

// Overlaps reports whether r and o overlap, keeping gap pixels between
// them.
func (r Rect) Overlaps(o Rect, gap float64) bool {
	return r.X0 < o.X1+gap && o.X0 < r.X1+gap && r.Y0 < o.Y1+gap && o.Y0 < r.Y1+gap
}

// Label is a text to place next to a point of the picture.
type Label struct {
	// AX, AY is the anchor in pixels; R is the radius (pixels) of what is
	// drawn there, so the label keeps clear of it.
	AX, AY, R float64
	// W, H is the size of the label's box in pixels.
	W, H float64
}

// Placement is where Place put a label.
type Placement struct {
	Box Rect
	// Shown is false for a label that fits nowhere: it is left out.
	Shown bool
	// Leader is true when the label sits away from its anchor and a line
	// joins them.
	Leader bool
}

// labelGap is the space in pixels kept between two labels.
const labelGap = 2

// Place places labels in order, each at the first of its candidate
// positions that lies inside the w × h picture and overlaps neither a
// label placed before it nor a reserved box: to the right of its anchor,
// above right, to the left, below right, above left, below left, above,
// below — first next to what it labels, then twice as far with a leader
// line. A label whose anchor is outside the picture, or that fits
// nowhere, is not shown. No two shown labels overlap. The browser viewer
// places its labels with the same rule.
func Place(labels []Label, w, h float64, reserved []Rect) []Placement {
	out := make([]Placement, len(labels))
	taken := newRectIndex(w, h)
	for _, r := range reserved {
		taken.add(r)
	}
	for i, l := range labels {
		if !(l.AX >= 0 && l.AX <= w && l.AY >= 0 && l.AY <= h) {
			continue
		}
	search:
		for ring, far := range []float64{1, 3} {
			d := l.R + 4*far
			e := d * math.Sqrt(0.5)
			for _, c := range [8][2]float64{
				{l.AX + d, l.AY - l.H/2},
				{l.AX + e, l.AY - e - l.H},
				{l.AX - d - l.W, l.AY - l.H/2},
				{l.AX + e, l.AY + e},
				{l.AX - e - l.W, l.AY - e - l.H},
				{l.AX - e - l.W, l.AY + e},
				{l.AX - l.W/2, l.AY - d - l.H},
				{l.AX - l.W/2, l.AY + d},
			} {
				r := Rect{c[0], c[1], c[0] + l.W, c[1] + l.H}
				if r.X0 < 1 || r.Y0 < 1 || r.X1 > w-1 || r.Y1 > h-1 || taken.overlaps(r) {
					continue
				}
				out[i] = Placement{Box: r, Shown: true, Leader: ring > 0}
				taken.add(r)
				break search
			}
		}
	}
	return out
}

// rectIndex finds overlaps among many boxes quickly: boxes are filed in
// the cells of a coarse grid they touch.
type rectIndex struct {
	cell  float64
	nx    int
	cells map[int][]Rect
}

func newRectIndex(w, h float64) *rectIndex {
	return &rectIndex{cell: 64, nx: int(w/64) + 1, cells: map[int][]Rect{}}
}

func (x *rectIndex) span(r Rect) (i0, j0, i1, j1 int) {
	c := func(v float64) int { return int(math.Floor(v / x.cell)) }
	return c(r.X0 - labelGap), c(r.Y0 - labelGap), c(r.X1 + labelGap), c(r.Y1 + labelGap)
}

func (x *rectIndex) add(r Rect) {
	i0, j0, i1, j1 := x.span(r)
	for j := j0; j <= j1; j++ {
		for i := i0; i <= i1; i++ {
			k := j*(x.nx+2) + i
			x.cells[k] = append(x.cells[k], r)
		}
	}
}

func (x *rectIndex) overlaps(r Rect) bool {
	i0, j0, i1, j1 := x.span(r)
	for j := j0; j <= j1; j++ {
		for i := i0; i <= i1; i++ {
			for _, o := range x.cells[j*(x.nx+2)+i] {
				if r.Overlaps(o, labelGap) {
					return true
				}
			}
		}
	}
	return false
}
