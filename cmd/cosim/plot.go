package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/cosimgo/cosim/graph"
)

const plotArgs = "HISTORY [-y COLUMN]… [-o FIG] [--title TEXT] [--ylabel TEXT]"

func cmdPlot(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("plot", plotArgs, stderr)
	var ys stringList
	fs.Var(&ys, "y", "a `COLUMN` to draw against t (repeatable; \"mass.position\" selects all its components); default: all")
	out := fs.String("o", "", "the figure `FIG`: .png, .svg or .pdf (default: HISTORY with .png)")
	title := fs.String("title", "", "the plot title (default: the history file's name)")
	ylabel := fs.String("ylabel", "value", "the y-axis label")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("name exactly one history file (CSV or JSON lines, as cosim run -o writes), got %d arguments", len(pos))
	}
	h, err := readHistoryFile(pos[0])
	if err != nil {
		return err
	}
	cols, err := selectColumns(h.Columns, ys)
	if err != nil {
		return err
	}
	if *out == "" {
		*out = strings.TrimSuffix(pos[0], filepath.Ext(pos[0])) + ".png"
	}
	if *title == "" {
		*title = filepath.Base(pos[0])
	}
	if err := plotHistory(h, []panel{{cols: cols, ylabel: *ylabel}}, *title, *out); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "plot of %s (%d rows) written to %s\n", strings.Join(cols, ", "), len(h.Times), *out)
	return nil
}

// plotHistory draws the columns against time, one line each with a
// legend entry, and saves the figure in the format of the file's
// extension.
// panel is one plot of a figure: columns sharing a y axis.
type panel struct {
	cols   []string
	ylabel string
}

// plotHistory draws the panels stacked, sharing the time axis, each with
// its legend to the right of the plot, never over the lines.
func plotHistory(h *graph.History, panels []panel, title, file string) error {
	switch strings.ToLower(filepath.Ext(file)) {
	case ".png", ".svg", ".pdf", ".jpg", ".jpeg", ".eps", ".tif", ".tiff":
	default:
		return fmt.Errorf("figure %s: use a .png, .svg or .pdf file name", file)
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
	dc := draw.New(cw)
	tiles := draw.Tiles{Rows: len(panels), Cols: 1, PadY: 3 * vg.Millimeter, PadTop: 2 * vg.Millimeter, PadBottom: 2 * vg.Millimeter}
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
				return fmt.Errorf("column %s: %w", c, err)
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
	// One legend width for every panel, so the time axes line up.
	var lw vg.Length
	for pi := range panels {
		r := legends[pi].Rectangle(tiles.At(dc, 0, pi))
		lw = max(lw, r.Max.X-r.Min.X)
	}
	for pi, p := range plots {
		tc := tiles.At(dc, 0, pi)
		if pi == 0 {
			legends[pi].YOffs = -p.Title.TextStyle.FontExtents().Height * 2
		}
		legends[pi].Draw(tc)
		p.Draw(draw.Crop(tc, 0, -lw-5*vg.Millimeter, 0, 0))
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := cw.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// readHistoryFile reads a history written by cosim run: CSV with a header
// "t,columns…", or JSON lines (.jsonl) of {"t": …, column: …} objects.
func readHistoryFile(path string) (*graph.History, error) {
	f, err := os.Open(path)
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
		row := make([]float64, len(rec))
		for j, s := range rec {
			if row[j], err = strconv.ParseFloat(s, 64); err != nil {
				return nil, fmt.Errorf("line %d, column %s: %q is not a number", line, head[j], s)
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
