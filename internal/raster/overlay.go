package raster

import (
	"image"
	"image/color"
	"math"
	"strconv"
	"sync"

	xfont "golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
	"gonum.org/v1/plot/font/liberation"

	"github.com/cosimgo/cosim/node"
)

// The overlay's text is Liberation Sans, the sans-serif face of the
// Liberation fonts gonum/plot draws its figures with.
var (
	sansOnce sync.Once
	sans     *opentype.Font
)

// newFace returns a face of Liberation Sans of the given size in pixels.
// Faces are not safe for concurrent use: every Draw makes its own.
func newFace(px float64) xfont.Face {
	sansOnce.Do(func() {
		for _, f := range liberation.Collection() {
			if f.Font.Variant == "Sans" && f.Font.Style == xfont.StyleNormal && f.Font.Weight == xfont.WeightNormal {
				sans = f.Face
			}
		}
	})
	if sans == nil {
		panic("raster: gonum's Liberation collection has no regular sans-serif face")
	}
	face, err := opentype.NewFace(sans, &opentype.FaceOptions{Size: px, DPI: 72, Hinting: xfont.HintingFull})
	if err != nil {
		panic("raster: " + err.Error())
	}
	return face
}

// LabelPixels is the size of labels in pixels.
const LabelPixels = 12

// textBox returns the width and the ascent and descent of s in face.
func textBox(face xfont.Face, s string) (w, ascent, descent float64) {
	m := face.Metrics()
	return fix(xfont.MeasureString(face, s)), fix(m.Ascent), fix(m.Descent)
}

func fix(v fixed.Int26_6) float64 { return float64(v) / 64 }

// drawText writes s with its top left corner at (x, y).
func drawText(img *image.RGBA, face xfont.Face, x, y float64, s string, c color.RGBA) {
	_, asc, _ := textBox(face, s)
	d := xfont.Drawer{Dst: img, Src: image.NewUniform(c), Face: face, Dot: fixed.P(int(math.Round(x)), int(math.Round(y+asc)))}
	d.DrawString(s)
}

// fillBox blends color c with opacity a over the box.
func fillBox(img *image.RGBA, r Rect, c color.RGBA, a float64) {
	b := image.Rect(int(math.Floor(r.X0)), int(math.Floor(r.Y0)), int(math.Ceil(r.X1)), int(math.Ceil(r.Y1))).Intersect(img.Bounds())
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			o := img.PixOffset(x, y)
			img.Pix[o] = uint8(math.Round((1-a)*float64(img.Pix[o]) + a*float64(c.R)))
			img.Pix[o+1] = uint8(math.Round((1-a)*float64(img.Pix[o+1]) + a*float64(c.G)))
			img.Pix[o+2] = uint8(math.Round((1-a)*float64(img.Pix[o+2]) + a*float64(c.B)))
		}
	}
}

// line draws an antialiased line of width w pixels (Xiaolin Wu's
// coverage, by distance to the segment).
func line(img *image.RGBA, x0, y0, x1, y1, w float64, c color.RGBA) {
	b := img.Bounds()
	minX, maxX := int(math.Floor(math.Min(x0, x1)-w)), int(math.Ceil(math.Max(x0, x1)+w))
	minY, maxY := int(math.Floor(math.Min(y0, y1)-w)), int(math.Ceil(math.Max(y0, y1)+w))
	dx, dy := x1-x0, y1-y0
	l2 := dx*dx + dy*dy
	for y := max(minY, b.Min.Y); y <= min(maxY, b.Max.Y-1); y++ {
		for x := max(minX, b.Min.X); x <= min(maxX, b.Max.X-1); x++ {
			px, py := float64(x)+0.5, float64(y)+0.5
			t := 0.0
			if l2 > 0 {
				t = math.Max(0, math.Min(1, ((px-x0)*dx+(py-y0)*dy)/l2))
			}
			d := math.Hypot(px-(x0+t*dx), py-(y0+t*dy))
			a := math.Max(0, math.Min(1, w/2+0.5-d))
			if a > 0 {
				fillBox(img, Rect{float64(x), float64(y), float64(x + 1), float64(y + 1)}, c, a)
			}
		}
	}
}

var (
	textColor  = color.RGBA{0x22, 0x22, 0x22, 0xff}
	fadedText  = color.RGBA{0x99, 0x33, 0x00, 0xff}
	labelBack  = color.RGBA{0xff, 0xff, 0xff, 0xff}
	leaderCol  = color.RGBA{0x66, 0x66, 0x66, 0xff}
	scaleColor = color.RGBA{0x22, 0x22, 0x22, 0xff}
)

// Reserved areas of the overlay, in pixels from the image's corners: the
// caption (top left), the axis triad (bottom left), the scale bar
// (bottom right). Labels keep out of them.
const (
	triadSize   = 56
	scaleWidth  = 150
	scaleHeight = 40
)

// overlay draws the labels, the axis letters, the triad, the scale bar and
// the caption.
func (s *Scene) overlay(img *image.RGBA, frame [][]node.Primitive, caption string, axes bool) {
	face := newFace(LabelPixels)
	w, h := float64(s.Width), float64(s.Height)
	reserved := []Rect{
		{0, h - triadSize, triadSize, h},
		{w - scaleWidth, h - scaleHeight, w, h},
	}
	if caption != "" {
		cw, asc, desc := textBox(face, caption)
		r := Rect{6, 6, 6 + cw + 8, 6 + asc + desc + 4}
		reserved = append(reserved, r)
		fillBox(img, r, labelBack, 0.8)
		drawText(img, face, r.X0+4, r.Y0+2, caption, textColor)
	}
	cam := s.Camera
	// The axis letters at the tips of the world axes.
	if axes {
		for k, name := range []string{"x", "y", "z"} {
			var e [3]float64
			e[k] = s.axisLength() * 1.12
			if x, y, _, ok := cam.Project(e, s.Width, s.Height); ok {
				tw, asc, desc := textBox(face, name)
				r := Rect{x - tw/2, y - (asc+desc)/2, x + tw/2, y + (asc+desc)/2}
				reserved = append(reserved, r)
				drawText(img, face, r.X0, r.Y0, name, rgba(axisColors[k]))
			}
		}
	}
	if s.Axes {
		s.drawTriad(img, face)
	}
	s.drawScale(img, face)
	if s.Labels {
		s.drawLabels(img, face, frame, reserved)
	}
}

// drawTriad draws the world axes' directions in the bottom left corner,
// labelled x, y, z.
func (s *Scene) drawTriad(img *image.RGBA, face xfont.Face) {
	ox, oy := 28.0, float64(s.Height)-28
	cam := s.Camera
	for k, name := range []string{"x", "y", "z"} {
		var e [3]float64
		e[k] = 1
		c := cam.ToCamera(add(cam.Target, e))
		c = sub(c, cam.ToCamera(cam.Target))
		x, y := ox+18*c[0], oy-18*c[1]
		col := rgba(axisColors[k])
		line(img, ox, oy, x, y, 2, col)
		tw, asc, desc := textBox(face, name)
		lx, ly := ox+24*c[0]-tw/2, oy-24*c[1]-(asc+desc)/2
		drawText(img, face, lx, ly, name, col)
	}
}

// ScaleBar returns the length in metres of the scale bar of a picture
// w × h seen by cam: a number 1, 2 or 5 times a power of ten about a fifth
// of the picture's width long at the camera's target, and that length in
// pixels.
func ScaleBar(cam Camera, w, h int) (metres, pixels float64) {
	ppm := cam.PixelsPerMetre(cam.Dist, w, h)
	m := NiceFloor(0.2 * float64(w) / ppm)
	return m, m * ppm
}

// FormatLength writes a length in metres for a scale ("0.5 m", "20 m",
// "1e-06 m").
func FormatLength(m float64) string {
	return strconv.FormatFloat(m, 'g', 3, 64) + " m"
}

// drawScale draws the scale bar in the bottom right corner: a bar of
// ScaleBar's length labelled with it, and the grid's cell below.
func (s *Scene) drawScale(img *image.RGBA, face xfont.Face) {
	m, px := ScaleBar(s.Camera, s.Width, s.Height)
	x1, y := float64(s.Width)-14, float64(s.Height)-22
	x0 := x1 - px
	line(img, x0, y, x1, y, 2, scaleColor)
	line(img, x0, y-4, x0, y+4, 1.5, scaleColor)
	line(img, x1, y-4, x1, y+4, 1.5, scaleColor)
	label := FormatLength(m)
	tw, asc, desc := textBox(face, label)
	drawText(img, face, (x0+x1)/2-tw/2, y-6-(asc+desc), label, scaleColor)
	if s.Floor.Show {
		g := "grid " + FormatLength(s.Floor.Spacing)
		gw, _, _ := textBox(face, g)
		drawText(img, face, x1-gw, y+5, g, leaderCol)
	}
}

// LabelAnchors returns, for each body of the frame, the pixel position its
// label points at and the radius in pixels of what is drawn there, and
// false for a body that draws nothing or lies behind the camera.
func (s *Scene) LabelAnchors(frame [][]node.Primitive) (anchors []Label, ok []bool) {
	cam := s.Camera
	anchors = make([]Label, len(frame))
	ok = make([]bool, len(frame))
	for bi, body := range frame {
		conn := bi < len(s.Bodies) && s.Bodies[bi].Connector
		p, has := anchor(body, conn)
		if !has {
			continue
		}
		x, y, d, front := cam.Project(p, s.Width, s.Height)
		if !front {
			continue
		}
		r := 0.0
		if !conn {
			ppm := cam.PixelsPerMetre(d, s.Width, s.Height)
			switch pr := body[0]; pr.Kind {
			case node.Sphere:
				r = math.Max(pr.Size[0]*ppm, s.MinPixels)
			case node.Box:
				r = math.Max(0.5*math.Max(pr.Size[0], math.Max(pr.Size[1], pr.Size[2]))*ppm, s.MinPixels)
			}
			r = math.Min(r, 40)
		}
		anchors[bi] = Label{AX: x, AY: y, R: r}
		ok[bi] = true
	}
	return anchors, ok
}

// LabelText is the label of a body: its name, and for a partially known
// one a question mark (the caption of a partial replay says what is
// missing).
func LabelText(b Body) string {
	if b.Unknown != "" {
		return b.Name + " (?)"
	}
	return b.Name
}

// drawLabels places the bodies' labels (bodies before connectors, each
// group in frame order) so that none overlap, and draws them on a light
// box, with a leader line when away from their anchor.
func (s *Scene) drawLabels(img *image.RGBA, face xfont.Face, frame [][]node.Primitive, reserved []Rect) {
	anchors, ok := s.LabelAnchors(frame)
	var order []int
	for _, conn := range []bool{false, true} {
		for bi := range frame {
			if ok[bi] && bi < len(s.Bodies) && s.Bodies[bi].Connector == conn {
				order = append(order, bi)
			}
		}
	}
	labels := make([]Label, len(order))
	texts := make([]string, len(order))
	for i, bi := range order {
		texts[i] = LabelText(s.Bodies[bi])
		tw, asc, desc := textBox(face, texts[i])
		labels[i] = anchors[bi]
		labels[i].W, labels[i].H = tw+6, asc+desc+2
	}
	for i, pl := range Place(labels, float64(s.Width), float64(s.Height), reserved) {
		if !pl.Shown {
			continue
		}
		l := labels[i]
		if pl.Leader {
			cx := math.Max(pl.Box.X0, math.Min(l.AX, pl.Box.X1))
			cy := math.Max(pl.Box.Y0, math.Min(l.AY, pl.Box.Y1))
			line(img, l.AX, l.AY, cx, cy, 1, leaderCol)
		}
		fillBox(img, pl.Box, labelBack, 0.75)
		col := textColor
		if s.Bodies[order[i]].Unknown != "" {
			col = fadedText
		}
		drawText(img, face, pl.Box.X0+3, pl.Box.Y0+1, texts[i], col)
	}
}

func rgba(c [3]float64) color.RGBA { return color.RGBA{to8(c[0]), to8(c[1]), to8(c[2]), 0xff} }
