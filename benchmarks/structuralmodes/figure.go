package main

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/cosimgo/cosim/internal/twomass"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// energyFloor is where the fast-energy panel's log axis stops: ρ∞ = 0
// reaches the numerical floor (about 1e-31 of the initial energy) and a
// value could be exactly zero, which a log axis cannot show.
const energyFloor = 1e-34

// energyAxisMin leaves room below the floor for the legend.
const energyAxisMin = 1e-45

// style returns the line style of variant i: one color each, and dashes
// for ρ∞ = 1, which coincides with Newmark and would hide it.
func style(i int, l *plotter.Line) {
	l.Color = plotutil.Color(i)
	l.Width = vg.Points(1.5)
	if i == 1 {
		l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	}
}

// decades ticks a log axis at every power of ten, labelling every
// step-th one (1e-5 form outside [1e-3, 1e3]).
type decades struct{ step int }

func (d decades) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for e := int(math.Floor(math.Log10(lo))); e <= int(math.Ceil(math.Log10(hi))); e++ {
		v := math.Pow(10, float64(e))
		if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
			continue
		}
		t := plot.Tick{Value: v}
		if e%d.step == 0 {
			if e >= -3 && e <= 3 {
				t.Label = strconv.FormatFloat(v, 'g', -1, 64)
			} else {
				t.Label = fmt.Sprintf("1e%d", e)
			}
		}
		ts = append(ts, t)
	}
	return ts
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(13)
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	p.Add(plotter.NewGrid())
	return p
}

func line(p *plot.Plot, label string, xs, ys []float64, set func(*plotter.Line)) error {
	pts := make(plotter.XYs, 0, len(xs))
	for i := range xs {
		pts = append(pts, plotter.XY{X: xs[i], Y: ys[i]})
	}
	l, err := plotter.NewLine(pts)
	if err != nil {
		return err
	}
	set(l)
	p.Add(l)
	if label != "" {
		p.Legend.Add(label, l)
	}
	return nil
}

func label(l string) string {
	if l == "Newmark" {
		return "Newmark"
	}
	return "ρ∞ = " + l[len("rho="):]
}

// drawFigure draws the four panels into a 2×2 PNG at path.
func drawFigure(path string, d *plotData) error {
	// (1) slow-mode displacement: the last 1.2 s of the run, where the
	// phase lag and amplitude loss are visible; the methods as their step
	// samples, the exact solution as a line.
	const from = 10.8
	p1 := newPlot("Slow mode (1 rad/s), dt = 0.1 s: end of the 12 s run", "time t (s)", "slow modal displacement z₁ (m)")
	p1.Legend.Top, p1.Legend.Left = true, true
	var ex, ey []float64
	for k, t := range d.exact.T {
		if t >= from-1e-9 {
			ex, ey = append(ex, t), append(ey, d.exact.Slow[k])
		}
	}
	if err := line(p1, "exact cos t", ex, ey, func(l *plotter.Line) {
		l.Color = color.Gray{Y: 90}
		l.Width = vg.Points(1)
	}); err != nil {
		return err
	}
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.CrossGlyph{}, draw.TriangleGlyph{}, draw.SquareGlyph{}, draw.PlusGlyph{}}
	for i, s := range d.series {
		var pts plotter.XYs
		for k, t := range s.T {
			if t >= from-1e-9 {
				pts = append(pts, plotter.XY{X: t, Y: s.Slow[k]})
			}
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return err
		}
		sc.GlyphStyle.Color = plotutil.Color(i)
		sc.GlyphStyle.Shape = shapes[i]
		sc.GlyphStyle.Radius = vg.Points(2.5)
		p1.Add(sc)
		p1.Legend.Add(label(s.Label), sc)
	}
	p1.X.Min, p1.X.Max = from, 12.05

	// (2) fast-mode energy, log y.
	p2 := newPlot("Fast mode (40 rad/s): energy retained", "time t (s)", "E_fast(t) / E_fast(0)")
	p2.Y.Scale = plot.LogScale{}
	p2.Y.Tick.Marker = decades{5}
	p2.Legend.Top = false
	for i, s := range d.series {
		ys := make([]float64, len(s.FastEnergy))
		for k, e := range s.FastEnergy {
			ys[k] = math.Max(e, energyFloor)
		}
		if err := line(p2, label(s.Label), s.T, ys, func(l *plotter.Line) { style(i, l) }); err != nil {
			return err
		}
	}
	p2.Y.Min, p2.Y.Max = energyAxisMin, 10

	// (3) spectral radius of the amplification matrix (independent reference).
	p3 := newPlot("Spectral radius of the amplification matrix", "ω·dt", "spectral radius ρ")
	p3.X.Scale = plot.LogScale{}
	p3.X.Tick.Marker = decades{1}
	p3.Legend.Top = false
	p3.Legend.Left = true
	var xs []float64
	for k := 0; k <= 250; k++ {
		xs = append(xs, math.Pow(10, -2+5*float64(k)/250))
	}
	for i, v := range twomass.Variants() {
		ys := make([]float64, len(xs))
		for k, x := range xs {
			ys[k] = twomass.SpectralRadius(twomass.ReferenceParams(v.Method), x)
		}
		if err := line(p3, label(v.Label), xs, ys, func(l *plotter.Line) { style(i, l) }); err != nil {
			return err
		}
	}
	p3.Y.Min, p3.Y.Max = -0.05, 1.1
	for _, m := range []struct {
		x    float64
		name string
	}{{0.1, "slow mode"}, {4, "fast mode"}} {
		if err := line(p3, "", []float64{m.x, m.x}, []float64{-0.05, 1.1}, func(l *plotter.Line) {
			l.Color = color.Gray{Y: 150}
			l.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
		}); err != nil {
			return err
		}
		lab, err := plotter.NewLabels(plotter.XYLabels{XYs: []plotter.XY{{X: m.x * 1.1, Y: 0.3}}, Labels: []string{m.name + fmt.Sprintf(" (ω·dt = %v)", m.x)}})
		if err != nil {
			return err
		}
		lab.TextStyle[0].Font.Size = vg.Points(8)
		p3.Add(lab)
	}

	// (4) refinement, log-log.
	p4 := newPlot("Refinement (ω = 1, 3 rad/s; T = 2 s)", "time step dt (s)", "modal displacement error at T")
	p4.X.Scale, p4.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p4.X.Tick.Marker, p4.Y.Tick.Marker = fixedTicks{0.003, 0.01, 0.03, 0.05}, decades{1}
	p4.Legend.Top, p4.Legend.Left = false, false
	for i, r := range d.refinement {
		if err := line(p4, fmt.Sprintf("%s carried (p = %.2f)", label(r.Label), r.OrderCarried), r.Dt, r.Carried, func(l *plotter.Line) { style(i, l) }); err != nil {
			return err
		}
	}
	for i, r := range d.refinement {
		if r.Label == "Newmark" || r.Label == "rho=1" {
			continue // reset equals carried when αm = αf = 0
		}
		if err := line(p4, fmt.Sprintf("%s reset (p = %.2f)", label(r.Label), r.OrderReset), r.Dt, r.Reset, func(l *plotter.Line) {
			style(i, l)
			l.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
		}); err != nil {
			return err
		}
	}

	const w, h = 30 * vg.Centimeter, 22 * vg.Centimeter
	img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(110))
	dc := draw.New(img)
	t := draw.Tiles{Rows: 2, Cols: 2, PadX: vg.Centimeter, PadY: vg.Centimeter, PadTop: vg.Points(6), PadBottom: vg.Points(6), PadLeft: vg.Points(6), PadRight: vg.Points(10)}
	plots := [][]*plot.Plot{{p1, p2}, {p3, p4}}
	for i := range plots {
		for j := range plots[i] {
			plots[i][j].Draw(t.At(dc, j, i))
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// fixedTicks labels the given values.
type fixedTicks []float64

func (f fixedTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for _, v := range f {
		if v >= lo && v <= hi {
			ts = append(ts, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64)})
		}
	}
	return ts
}
