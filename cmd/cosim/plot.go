package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	gocolor "image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/textio"
	"github.com/cosimgo/cosim/nodes"
)

const plotArgs = "HISTORY [-y COLUMN]… [-o FIG] [--scene SCENE] [--title TEXT] [--ylabel TEXT]"

func cmdPlot(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("plot", plotArgs, stderr)
	var ys, sets stringList
	fs.Var(&ys, "y", "a `COLUMN` to draw against t (repeatable; \"mass.position\" selects all its components); default: all")
	out := fs.String("o", "", "the figure `FIG`: "+figureFormatList+" (default: HISTORY with .png)")
	title := fs.String("title", "", "the plot title (default: the history file's name)")
	ylabel := fs.String("ylabel", "", "the y-axis label of a single panel (default: the plotted field names; with --scene, and their units, per panel)")
	sceneFile := fs.String("scene", "", "the `SCENE` file that wrote the history: its node specs give the columns' units, one panel per unit as run --plot draws (a history file carries no units)")
	fs.Var(&sets, "set", "a --set `NODE.PARAM=VALUE` the history's run used, applied to --scene (repeatable)")
	fs.Bool("force", false, "accepted for old scripts: an existing figure is always replaced (as every cosim output is), never an input")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("name exactly one history file (CSV or JSON lines, as cosim run -o writes), got %d arguments", len(pos))
	}
	if len(sets) > 0 && *sceneFile == "" {
		return usagef("--set applies to --scene SCENE; add it")
	}
	h, err := readHistoryFile(pos[0])
	if err != nil {
		return err
	}
	cols, err := selectColumns(h.Columns, ys)
	if err != nil {
		return err
	}
	derived := *out == ""
	if derived {
		*out = strings.TrimSuffix(pos[0], filepath.Ext(pos[0])) + ".png"
	}
	if err := checkFigure("-o", *out); err != nil {
		return err
	}
	// Like every output, an existing figure is replaced (atomically),
	// never an input.
	if err := prepareOutputs(stderr, []namedPath{{"the history file", pos[0]}, {"the --scene file", *sceneFile}}, []namedPath{{"-o", *out}}); err != nil {
		return err
	}
	if *title == "" {
		*title = filepath.Base(pos[0])
	}
	panels := []panel{{cols: cols, ylabel: axisLabel(cols, "")}}
	if *sceneFile == "" {
		fmt.Fprintf(stderr, "cosim plot: a history carries no units; add --scene SCENE (the scene that wrote it) for units on the axes and one panel per unit\n")
	} else {
		sc, err := loadScene(*sceneFile, sets)
		if err != nil {
			return err
		}
		sim, err := sc.Compile(nodes.Registry(), nil)
		if err != nil {
			return fmt.Errorf("%s: %w", *sceneFile, err)
		}
		panels = panelsByUnits(sim, cols)
	}
	if *ylabel != "" {
		if len(panels) > 1 {
			return usagef("--ylabel labels a single panel; the columns have %d units here (drop --ylabel, or choose columns of one unit with -y)", len(panels))
		}
		panels[0].ylabel = *ylabel
	}
	if err := plotHistory(h, panels, *title, *out); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "plot of %s (%d rows) written to %s\n", strings.Join(cols, ", "), len(h.Times), *out)
	return nil
}

// panel is one plot of a figure: columns sharing a y axis.
type panel struct {
	cols   []string
	ylabel string
}

// plotHistory draws the panels stacked, sharing the time axis, each with
// its legend to the right of the plot, never over the lines, and saves
// the figure in the format of the file's extension.
func plotHistory(h *graph.History, panels []panel, title, file string) error {
	if err := checkFigure("figure", file); err != nil {
		return err
	}
	if len(h.Times) == 0 {
		return errors.New("the history has no rows to plot")
	}
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(file)), ".")
	height := 12 * vg.Centimeter
	if len(panels) > 1 {
		height = vg.Length(len(panels)) * 7 * vg.Centimeter
	}
	cw, err := draw.NewFormattedCanvas(22*vg.Centimeter, height, format)
	if err != nil {
		return err
	}
	plots, legends, err := buildPanels(h, panels, title)
	if err != nil {
		return err
	}
	dc := draw.New(cw)
	pcs, lcs := layoutPanels(dc, plots, legends)
	for pi, p := range plots {
		p.Draw(pcs[pi])
		legends[pi].Draw(lcs[pi])
	}
	return writeAtomic(file, func(w io.Writer) error {
		_, err := cw.WriteTo(w)
		return err
	})
}

// buildPanels makes one plot and legend per panel, the title on the
// first and the time label on the last.
func buildPanels(h *graph.History, panels []panel, title string) ([]*plot.Plot, []plot.Legend, error) {
	color := 0
	plots := make([]*plot.Plot, len(panels))
	legends := make([]plot.Legend, len(panels))
	for pi, pn := range panels {
		p := plot.New()
		if pi == 0 {
			p.Title.Text = title
		}
		if pi == len(panels)-1 {
			p.X.Label.Text = "t (s)"
		}
		p.Y.Label.Text = pn.ylabel
		p.Add(plotter.NewGrid())
		p.X.Tick.Marker, p.Y.Tick.Marker = niceTicker{}, niceTicker{}
		if lo, hi := panelRange(h, pn.cols); lo < 0 && hi > 0 {
			// The range crosses zero: a line at zero (a labelled tick
			// there comes with the nice ticks).
			zero, err := plotter.NewLine(plotter.XYs{{X: h.Times[0], Y: 0}, {X: h.Times[len(h.Times)-1], Y: 0}})
			if err == nil {
				zero.Color = gocolor.Gray{Y: 0x80}
				zero.Width = vg.Points(0.75)
				p.Add(zero)
			}
		}
		legend := plot.NewLegend()
		legend.Top = true
		legend.Left = false
		for _, c := range pn.cols {
			ys := h.Column(c)
			xy := make(plotter.XYs, len(ys))
			for k, y := range ys {
				xy[k] = plotter.XY{X: h.Times[k], Y: y}
			}
			l, err := plotter.NewLine(xy)
			if err != nil {
				return nil, nil, fmt.Errorf("column %s: %w", c, err)
			}
			l.Color = plotutil.Color(color)
			l.Dashes = plotutil.Dashes(color / 7)
			l.Width = vg.Points(1.5)
			color++
			p.Add(l)
			legend.Add(c, l)
		}
		plots[pi], legends[pi] = p, legend
	}
	return plots, legends, nil
}

// layoutPanels stacks the plots in dc and returns the canvas of each plot
// and of its legend. Every legend gets the width of the widest, to the
// right of its plot, and plot.Align gives the plots data areas of one
// left edge and width, whatever the widths of their y tick labels: the
// time axes line up.
func layoutPanels(dc draw.Canvas, plots []*plot.Plot, legends []plot.Legend) (plotCanvases, legendCanvases []draw.Canvas) {
	tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadY: 3 * vg.Millimeter, PadTop: 2 * vg.Millimeter, PadBottom: 2 * vg.Millimeter}
	const gap = 5 * vg.Millimeter
	var lw vg.Length
	for pi := range legends {
		r := legends[pi].Rectangle(tiles.At(dc, 0, pi))
		lw = max(lw, r.Max.X-r.Min.X)
	}
	grid := make([][]*plot.Plot, len(plots))
	for pi, p := range plots {
		grid[pi] = []*plot.Plot{p}
	}
	aligned := plot.Align(grid, tiles, draw.Crop(dc, 0, -lw-gap, 0, 0))
	for pi, p := range plots {
		pc := aligned[pi][0]
		lc := pc
		lc.Min.X, lc.Max.X = pc.Max.X+gap, dc.Max.X
		if pi == 0 {
			legends[pi].YOffs = -p.Title.TextStyle.FontExtents().Height * 2
		}
		plotCanvases = append(plotCanvases, pc)
		legendCanvases = append(legendCanvases, lc)
	}
	return plotCanvases, legendCanvases
}

// readHistoryFile reads a history written by cosim run: CSV with a header
// "t,columns…", or JSON lines (.jsonl) of {"t": …, column: …} objects.
func readHistoryFile(path string) (*graph.History, error) {
	f, err := textio.Open(path, maxHistoryBytes, "the history")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var h *graph.History
	if strings.HasSuffix(path, ".jsonl") {
		h, err = readJSONL(f)
	} else {
		h, err = readCSV(f)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return h, nil
}

func readCSV(r io.Reader) (*graph.History, error) {
	cr := csv.NewReader(bufio.NewReader(r))
	cr.ReuseRecord = false
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("no header row: %w", err)
	}
	if len(head) < 2 || head[0] != "t" {
		return nil, fmt.Errorf("the header is %q; a history starts with a t column, as cosim run -o writes", strings.Join(head, ","))
	}
	h := &graph.History{Columns: head[1:]}
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			return h, nil
		}
		if err != nil {
			return nil, err
		}
		if err := countValues(h, len(rec)); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		row := make([]float64, len(rec))
		for j, s := range rec {
			if row[j], err = textio.ParseNumber(s); err != nil {
				return nil, fmt.Errorf("line %d, column %s: %w", line, head[j], err)
			}
		}
		h.Times = append(h.Times, row[0])
		h.Rows = append(h.Rows, row[1:])
	}
}

func readJSONL(r io.Reader) (*graph.History, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	h := &graph.History{}
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		// Decode keeping key order: the column order is the first row's.
		dec := json.NewDecoder(strings.NewReader(text))
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			return nil, fmt.Errorf("line %d: not a JSON object", line)
		}
		var keys []string
		vals := map[string]float64{}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", line, err)
			}
			k := tok.(string)
			var v float64
			if err := dec.Decode(&v); err != nil {
				return nil, fmt.Errorf("line %d, key %s: %v", line, k, err)
			}
			keys = append(keys, k)
			vals[k] = v
		}
		if len(keys) == 0 || keys[0] != "t" {
			return nil, fmt.Errorf("line %d: the first key must be t", line)
		}
		if h.Columns == nil {
			h.Columns = keys[1:]
		}
		if err := countValues(h, len(keys)); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		row := make([]float64, len(h.Columns))
		for j, c := range h.Columns {
			v, ok := vals[c]
			if !ok {
				return nil, fmt.Errorf("line %d: no value for %s", line, c)
			}
			row[j] = v
		}
		h.Times = append(h.Times, vals["t"])
		h.Rows = append(h.Rows, row)
	}
	return h, sc.Err()
}

// panelRange is the smallest and largest finite value of the columns.
func panelRange(h *graph.History, cols []string) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, c := range cols {
		for _, v := range h.Column(c) {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	return lo, hi
}

// niceTicker marks an axis with niceTicks: at least four labelled ticks
// (gonum's default asks for about three, and a short time axis got two),
// zero among them when the range crosses it, unlabelled minor ticks
// between. The page of cosim view marks its plots the same way
// (viewer.js niceTicks).
type niceTicker struct{}

func (niceTicker) Ticks(min, max float64) []plot.Tick {
	vals, labels, minor := niceTicks(min, max)
	out := make([]plot.Tick, 0, 4*len(vals))
	for i, v := range vals {
		out = append(out, plot.Tick{Value: v, Label: labels[i]})
	}
	if minor > 0 {
		for k := math.Ceil(min/minor - 1e-9); k*minor <= max+1e-9*minor; k++ {
			v := k * minor
			on := false
			for _, m := range vals {
				on = on || math.Abs(v-m) < minor*1e-6
			}
			if !on {
				out = append(out, plot.Tick{Value: v})
			}
		}
	}
	return out
}

// niceTicks returns the major ticks of an axis from lo to hi and their
// labels: the multiples within the range of the largest step 1, 2, 2.5 or
// 5 × 10^k that gives at least four of them (so 4 to 9), and the minor
// step. Labels have the decimals the step needs (one more for 2.5), or an
// exponent for numbers beyond 1e5 or below 1e-4, written as JavaScript
// writes them ("1.5e-6"), so the page's plots read the same.
func niceTicks(lo, hi float64) (vals []float64, labels []string, minor float64) {
	if !(hi > lo) {
		d := math.Max(math.Abs(lo), 1) * 0.5
		lo, hi = lo-d, hi+d
	}
	raw := (hi - lo) / 4
	k := math.Floor(math.Log10(raw))
	step, m := 0.0, 1.0
	for _, c := range []float64{5, 2.5, 2, 1} {
		if s := c * math.Pow(10, k); s <= raw*(1+1e-9) {
			step, m = s, c
			break
		}
	}
	if step == 0 {
		step, m = 5*math.Pow(10, k-1), 5
	}
	dec := max(0, int(-math.Floor(math.Log10(step)+1e-9)))
	if m == 2.5 {
		dec++
	}
	big := math.Max(math.Abs(lo), math.Abs(hi))
	label := func(v float64) string {
		if big >= 1e5 || big < 1e-4 && big > 0 {
			p := max(0, min(6, int(math.Round(math.Log10(big/step)))))
			return jsExponent(strconv.FormatFloat(v, 'e', p, 64))
		}
		return strconv.FormatFloat(v, 'f', min(dec, 12), 64)
	}
	for i := math.Ceil(lo/step - 1e-9); i <= math.Floor(hi/step+1e-9); i++ {
		v := i * step
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		vals = append(vals, v)
		labels = append(labels, label(v))
	}
	switch m {
	case 2, 5:
		minor = step / m
	default:
		minor = step / 5
	}
	return vals, labels, minor
}

// jsExponent writes Go's exponent as JavaScript's toExponential does:
// "1.5e-06" → "1.5e-6", "1e+05" → "1e+5".
func jsExponent(s string) string {
	i := strings.IndexByte(s, 'e')
	if i < 0 || i+2 >= len(s) {
		return s
	}
	digits := strings.TrimLeft(s[i+2:], "0")
	if digits == "" {
		digits = "0"
	}
	return s[:i+2] + digits
}

// axisLabel names what a panel plots: its fields (components merged:
// "mass.position" for mass.position[0] and [1]), shortened to the shared
// field name ("position of m1, m2") or the first fields when long, with
// the units in parentheses when known.
func axisLabel(cols []string, units string) string {
	var fields, nodesOf []string
	seen := map[string]bool{}
	for _, c := range cols {
		f := c
		if i := strings.IndexByte(f, '['); i >= 0 {
			f = f[:i]
		}
		if !seen[f] {
			seen[f] = true
			fields = append(fields, f)
		}
	}
	label := strings.Join(fields, ", ")
	if len(fields) > 1 {
		// One field of several nodes: "position of m1, m2, m3".
		var field string
		same := true
		for _, f := range fields {
			nn, fn := splitNodeField(f)
			if fn == "" || field != "" && fn != field {
				same = false
				break
			}
			field = fn
			nodesOf = append(nodesOf, nn)
		}
		if same {
			label = field + " of " + strings.Join(nodesOf, ", ")
			if len(label) > 48 {
				label = field
			}
		} else if len(label) > 48 {
			label = fields[0] + ", " + fields[1] + ", …"
		}
	}
	if label == "" {
		label = "value"
	}
	if units != "" {
		label += " (" + units + ")"
	}
	return label
}
