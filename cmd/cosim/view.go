package main

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"html"
	"io"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/textio"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
)

const viewArgs = "SCENE [-o FILE.html] [--serve ADDR] [--history FILE [--allow-partial]] [--frames N] [--camera YAW,PITCH] [--windings N] [--tiling N] [--simplified] [--set NODE.PARAM=VALUE]…"

//go:embed viewer/viewer.html
var viewerHTML string

//go:embed viewer/viewer.js
var viewerJS string

// drawFlags are the drawing settings every drawing command shares.
type drawFlags struct {
	set     node.DrawSettings
	camera  string
	frames  int
	history string
	// allowPartial draws a history that lacks what the drawing needs or
	// records columns the scene does not have, marking what is unknown.
	allowPartial bool
	sets         stringList
}

func addDrawFlags(fs *flag.FlagSet, d *drawFlags, maxFrames int) {
	d.set = node.DefaultDrawSettings()
	fs.IntVar(&d.set.SpringWindings, "windings", d.set.SpringWindings, "turns of each drawn spring (Exudyn's connectors.springNumberOfWindings)")
	fs.IntVar(&d.set.CurveTiling, "tiling", d.set.CurveTiling, "segments per spring turn (Exudyn's connectors.curveTiling)")
	fs.BoolVar(&d.set.Simplified, "simplified", false, "draw springs as straight lines (Exudyn's connectors.drawSimplified)")
	fs.BoolVar(&d.set.CartesianSprings, "cartesian-springs", false, "draw Cartesian spring-dampers as Exudyn does, three springs along x, y and z, instead of one between their markers")
	numberVar(fs, &d.set.ConnectorSize, "spring-size", d.set.ConnectorSize, "diameter `M` in m of springs whose draw_size is -1 (Exudyn's connectors.defaultSize)")
	numberVar(fs, &d.set.BodySize, "body-size", d.set.BodySize, "size `M` in m of bodies whose draw_size is -1")
	fs.StringVar(&d.camera, "camera", "35,20", "camera `YAW,PITCH[,ZOOM]` in degrees (orbit about the scene's centre) and a zoom factor")
	fs.IntVar(&d.frames, "frames", maxFrames, "at most `N` frames (the run is sampled evenly; the initial state is always one)")
	fs.StringVar(&d.history, "history", "", "draw a recorded history `FILE` (cosim run -o, CSV or JSON lines) instead of running the scene; refused when it lacks what the drawing needs or belongs to another scene")
	fs.BoolVar(&d.allowPartial, "allow-partial", false, "with --history: draw a history that lacks what the drawing needs (or has columns of another scene) anyway, drawing what is known and marking the rest")
	fs.Var(&d.sets, "set", "override a setting, `NODE.PARAM=VALUE` (repeatable), as for cosim run")
}

// cameraView is the parsed --camera flag.
type cameraView struct {
	Yaw   float64 `json:"yaw"`   // radians
	Pitch float64 `json:"pitch"` // radians
	Zoom  float64 `json:"zoom"`  // factor
}

func parseCamera(s string) (cameraView, error) {
	parts := strings.Split(s, ",")
	if len(parts) < 2 || len(parts) > 3 {
		return cameraView{}, usagef("--camera %q: want YAW,PITCH or YAW,PITCH,ZOOM (degrees, degrees, factor)", s)
	}
	var v [3]float64
	v[2] = 1
	for i, p := range parts {
		x, err := textio.ParseNumber(strings.TrimSpace(p))
		if err != nil {
			return cameraView{}, usagef("--camera %q: %v", s, err)
		}
		if x != x || x > 1e6 || x < -1e6 {
			return cameraView{}, usagef("--camera %q: %q is not a number", s, p)
		}
		v[i] = x
	}
	if v[1] < -89 || v[1] > 89 {
		return cameraView{}, usagef("--camera %q: pitch %v must be within ±89 degrees", s, v[1])
	}
	if !(v[2] > 0) {
		return cameraView{}, usagef("--camera %q: zoom %v must be positive", s, v[2])
	}
	const deg = 3.141592653589793 / 180
	return cameraView{Yaw: v[0] * deg, Pitch: v[1] * deg, Zoom: v[2]}, nil
}

// viewData is what the page embeds: the scene's bodies, the frames and
// the plotted series, as the JSON block "cosim-data".
type viewData struct {
	Title       string     `json:"title"`
	Description string     `json:"description"`
	Bodies      []viewBody `json:"bodies"`
	// Others are the nodes that draw nothing (sources, constants): the
	// page lists them with their plotted values.
	Others   []viewBody  `json:"others"`
	Frames   []viewFrame `json:"frames"`
	Series   viewSeries  `json:"series"`
	Settings struct {
		Tiling int `json:"tiling"`
	} `json:"settings"`
	Camera cameraView `json:"camera"`
	Live   bool       `json:"live"`
	Done   bool       `json:"done"`
}

type viewBody struct {
	Name string `json:"name"`
	Type string `json:"type"`
	// Connector marks a node between two points: the page shows it
	// faintly where bodies hide it.
	Connector bool `json:"connector,omitempty"`
	// Unknown says what a partial replay does not know of the node's
	// drawing (omitted when everything is known): the page marks it.
	Unknown string `json:"unknown,omitempty"`
}

type viewSeries struct {
	Columns []string `json:"columns"`
	Units   []string `json:"units"`
	// Axes is the y label of each unit's plot, as cosim plot writes it
	// (axisLabel): the fields plotted and the unit.
	Axes map[string]string `json:"axes"`
}

// newSeries is the plotted series of columns with units, one plot per
// unit.
func newSeries(cols, units []string) viewSeries {
	byUnit := map[string][]string{}
	for i, c := range cols {
		u := units[i]
		if u == "" {
			u = "1"
		}
		byUnit[u] = append(byUnit[u], c)
	}
	axes := map[string]string{}
	for u, cs := range byUnit {
		axes[u] = axisLabel(cs, u)
	}
	return viewSeries{Columns: cols, Units: units, Axes: axes}
}

// viewFrame is one time: the primitives of every body (each encoded by
// encodePrim) and the plotted values.
type viewFrame struct {
	T float64  `json:"t"`
	B [][]nums `json:"b"`
	V nums     `json:"v"`
}

// nums encodes floats with 7 significant digits: plenty for drawing,
// and it keeps files small.
type nums []float64

func (v nums) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 8*len(v)+2)
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONFloat7(b, x)
	}
	return append(b, ']'), nil
}

func appendJSONFloat7(b []byte, x float64) []byte {
	if x != x || x > 1.7e308 || x < -1.7e308 {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, x, 'g', 7, 64)
}

// encodePrims encodes the primitives of one body.
func encodePrims(ps []node.Primitive) []nums {
	out := make([]nums, len(ps)) // never nil: an empty body is []
	for i, p := range ps {
		out[i] = encodePrim(p)
	}
	return out
}

// encodePrim encodes a primitive as the page reads it: its kind, then
// only the numbers that kind uses, the color last —
//
//	sphere   [1, P, radius, color]           9 numbers
//	box      [2, P, size (3), rot (4), color] 15
//	plane    [3, P, size x, size z, rot, color] 14
//	coil     [4, P, Q, diameter, windings, color] 13
//	line     [5, P, Q, diameter, color]      12
//	cylinder [6, P, Q, diameter, color]      12
//
// (P, Q: 3 numbers; rot: the quaternion w, x, y, z; color: RGBA).
func encodePrim(p node.Primitive) nums {
	v := make(nums, 0, 15)
	v = append(v, float64(p.Kind))
	v = append(v, p.P[:]...)
	switch p.Kind {
	case node.Sphere:
		v = append(v, p.Size[0])
	case node.Box:
		v = append(v, p.Size[:]...)
		v = append(v, p.Rot[:]...)
	case node.Plane:
		v = append(v, p.Size[0], p.Size[2])
		v = append(v, p.Rot[:]...)
	case node.Coil:
		v = append(v, p.Q[:]...)
		v = append(v, p.Size[0], float64(p.Windings))
	default:
		v = append(v, p.Q[:]...)
		v = append(v, p.Size[0])
	}
	return append(v, p.Color[:]...)
}

func cmdView(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("view", viewArgs, stderr)
	out := fs.String("o", "", "write the page to `FILE.html` (default: the scene file's name with .html, in the current directory)")
	serve := fs.String("serve", "", "serve the page on `ADDR` (a localhost address such as 127.0.0.1:8080) and stream frames as the run computes them")
	quiet := fs.Bool("q", false, "no progress bar")
	var d drawFlags
	addDrawFlags(fs, &d, 600)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("name exactly one scene file, got %d arguments (try examples/scenes/spring-damper.json)", len(pos))
	}
	cam, err := parseCamera(d.camera)
	if err != nil {
		return err
	}
	if d.frames < 1 {
		return usagef("--frames %d: need at least 1", d.frames)
	}
	if err := d.set.Check(); err != nil {
		return usagef("%v", err)
	}
	if err := checkOutputPath("-o", *out); err != nil {
		return err
	}
	sc, err := loadScene(pos[0], d.sets)
	if err != nil {
		return err
	}
	if *serve == "" {
		page := *out
		if page == "" {
			page = strings.TrimSuffix(filepath.Base(pos[0]), filepath.Ext(pos[0])) + ".html"
		}
		if err := prepareOutputs(stderr, append(sceneInputs(pos[0], sc), namedPath{"the --history file", d.history}), []namedPath{{"-o", page}}); err != nil {
			return err
		}
	}
	if *serve != "" {
		if *out != "" || d.history != "" {
			return usagef("--serve runs the scene live; it takes neither -o nor --history")
		}
		return serveView(context.Background(), sc, pos[0], *serve, d, cam, stdout, stderr)
	}
	data, runErr := buildView(sc, pos[0], d, cam, *quiet, stderr)
	if data == nil {
		return runErr
	}
	file := *out
	if file == "" {
		file = strings.TrimSuffix(filepath.Base(pos[0]), filepath.Ext(pos[0])) + ".html"
	}
	page, err := renderPage(data)
	if err != nil {
		return err
	}
	if err := writeAtomic(file, func(w io.Writer) error { _, err := w.Write(page); return err }); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "view of %s: %d frames of %d bodies (%s) written to %s\n", pos[0], len(data.Frames), len(data.Bodies), bodyNames(data), file)
	return runErr
}

func bodyNames(d *viewData) string {
	var s []string
	for _, b := range d.Bodies {
		s = append(s, b.Name)
	}
	return listSome(s)
}

// renderPage fills the page template with the data and the renderer.
func renderPage(d *viewData) ([]byte, error) {
	js, err := json.Marshal(d) // escapes <, > and & so the script cannot be closed early
	if err != nil {
		return nil, err
	}
	r := strings.NewReplacer(
		"{{TITLE}}", html.EscapeString(d.Title),
		"{{DESCRIPTION}}", html.EscapeString(d.Description),
		"{{DATA}}", string(js),
		"{{SCRIPT}}", viewerJS,
	)
	return []byte(r.Replace(viewerHTML)), nil
}

// newViewData starts the page data of a stage.
func newViewData(sc *scene.Scene, path string, st *stage, cam cameraView) *viewData {
	d := &viewData{Title: sc.Name, Description: sc.Description, Camera: cam,
		Bodies: []viewBody{}, Frames: []viewFrame{}, Series: viewSeries{Columns: []string{}, Units: []string{}}}
	if d.Title == "" {
		d.Title = filepath.Base(path)
	}
	d.Settings.Tiling = st.set.CurveTiling
	for _, b := range st.bodies {
		d.Bodies = append(d.Bodies, viewBody{Name: b.name, Type: b.typ, Connector: b.connector})
	}
	d.Others = []viewBody{}
	for _, o := range st.undrawn {
		d.Others = append(d.Others, viewBody{Name: o[0], Type: o[1]})
	}
	return d
}

// frameSet is what a drawing command draws: per frame its time, the
// primitives of every drawn node and the values of the plotted columns;
// and, per drawn node, what the drawing does not know (partial replays).
type frameSet struct {
	st     *stage
	times  []float64
	prims  [][][]node.Primitive
	values [][]float64
	cols   []string
	units  []string
	// unknown[i] says what the drawing of st.bodies[i] lacks ("" when
	// nothing): a history replayed with --allow-partial that does not
	// record all its drawing needs. Renderers mark such nodes.
	unknown []string
}

// computeFrames computes the frames of a scene: from a recorded history
// (--history) or by running it with scene.Simulate, recording every state
// field (and the scene's own fields, which are plotted) at most d.frames
// times, evenly; the last frame is always the end of the run (the last
// recorded row). A run that fails part way returns the frames before the
// failure with the error.
func computeFrames(sc *scene.Scene, path string, d drawFlags, quiet bool, stderr io.Writer) (*frameSet, error) {
	return computeFramesAt(sc, path, d, nil, quiet, stderr)
}

// computeFramesAt is computeFrames drawing, when times is not nil, only
// the recorded rows nearest the times it returns (one frame per time)
// given the time of the last row.
func computeFramesAt(sc *scene.Scene, path string, d drawFlags, times func(end float64) []float64, quiet bool, stderr io.Writer) (*frameSet, error) {
	reg := nodes.Registry()
	var (
		h       *graph.History
		sim     *graph.Sim
		st      *stage
		runErr  error
		plot    []string
		unknown []string
	)
	if d.history != "" {
		var err error
		if h, err = readHistoryFile(d.history); err != nil {
			return nil, err
		}
		if sim, err = sc.Compile(reg, nil); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if st, err = newStage(sc, sim, d.set); err != nil {
			return nil, err
		}
		if len(st.bodies) == 0 {
			return nil, fmt.Errorf("%s: %w", path, errNoDrawable)
		}
		if err := st.fitSizes(); err != nil {
			return nil, err
		}
		rep, err := checkReplay(st, h, d.history, path)
		if err != nil {
			return nil, err
		}
		if err := rep.err(d.allowPartial); err != nil {
			return nil, err
		}
		if note := rep.note(); note != "" {
			fmt.Fprintf(stderr, "cosim: --allow-partial: %s\n", note)
		}
		unknown = rep.unknown
		for _, c := range h.Columns {
			if !slices.Contains(rep.foreign, c) {
				plot = append(plot, c)
			}
		}
	} else {
		sim0, err := sc.Compile(reg, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		st0, err := newStage(sc, sim0, d.set)
		if err != nil {
			return nil, err
		}
		if len(st0.bodies) == 0 {
			return nil, fmt.Errorf("%s: %w", path, errNoDrawable)
		}
		if err := st0.fitSizes(); err != nil {
			return nil, err
		}
		d.set = st0.set
		run := *sc
		run.Record = scene.Record{Fields: viewRecord(sc, st0.stateFields), Every: frameEvery(sceneSteps(sc), d.frames), Times: sc.Record.Times}
		prog := newRunProgress(stderr, showAuto, quiet || !stderrIsTerminal(stderr), 0, sc.EndTime())
		opts := &scene.Options{Observer: startWarner{next: prog, stderr: stderr}, ObserveEvery: observeEvery(sceneSteps(sc))}
		res, err := run.Simulate(context.Background(), reg, opts)
		prog.stop()
		if res == nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if err != nil {
			runErr = fmt.Errorf("%s: the run failed; drawing the states before the failure: %w", path, err)
		}
		h, sim = res.History, res.Sim
		if h == nil {
			h = &graph.History{}
		}
		if runErr == nil {
			if err := recordEnd(h, sim); err != nil {
				return nil, err
			}
		}
		if st, err = newStage(sc, sim, d.set); err != nil {
			return nil, err
		}
		// The scene's own recorded fields, each column once (a field the
		// scene records is also among the state fields added).
		seen := map[string]bool{}
		for _, c := range h.Columns {
			for _, f := range sc.Record.Fields {
				if (c == f || strings.HasPrefix(c, f+"[")) && !seen[c] {
					seen[c] = true
					plot = append(plot, c)
					break
				}
			}
		}
	}
	idx := columnIndex(h.Columns)
	fsOut := &frameSet{st: st, cols: plot, unknown: unknown}
	if fsOut.unknown == nil {
		fsOut.unknown = make([]string, len(st.bodies))
	}
	for _, c := range plot {
		fsOut.units = append(fsOut.units, columnUnits(sim, c))
	}
	plotIdx := make([]int, len(plot))
	for i, c := range plot {
		plotIdx[i] = idx[c]
	}
	var rows []int
	switch {
	case len(h.Times) == 0:
	case times != nil:
		for _, t := range times(h.Times[len(h.Times)-1]) {
			if i := nearestRow(h.Times, t); i >= 0 {
				rows = append(rows, i)
			}
		}
	default:
		stride := 1
		if d.history != "" && len(h.Times) > d.frames {
			stride = (len(h.Times) + d.frames - 1) / d.frames
		}
		for i := 0; i < len(h.Times); i += stride {
			rows = append(rows, i)
		}
		if last := len(h.Times) - 1; rows[len(rows)-1] != last {
			rows = append(rows, last)
		}
	}
	for _, i := range rows {
		if err := st.setFromRow(h.Times[i], h.Rows[i], idx); err != nil {
			return nil, err
		}
		prims, err := st.draw()
		if err != nil {
			return nil, err
		}
		vals := make([]float64, len(plotIdx))
		for k, j := range plotIdx {
			vals[k] = h.Rows[i][j]
		}
		fsOut.times = append(fsOut.times, h.Times[i])
		fsOut.prims = append(fsOut.prims, prims)
		fsOut.values = append(fsOut.values, vals)
	}
	if len(fsOut.times) == 0 {
		return nil, errors.Join(runErr, fmt.Errorf("%s: no frames: the run recorded no rows", path))
	}
	return fsOut, runErr
}

// recordEnd appends the sim's current state to h when the last recorded
// row is before the sim's time (a run whose steps are not a multiple of
// the record stride): the last frame is the end of the run.
func recordEnd(h *graph.History, sim *graph.Sim) error {
	t := sim.Time()
	if n := len(h.Times); n > 0 && !(h.Times[n-1] < t-1e-12*math.Max(1, math.Abs(t))) {
		return nil
	}
	row := make([]float64, 0, len(h.Columns))
	for _, c := range h.Columns {
		v, err := sim.Value(c)
		if err != nil {
			return err
		}
		row = append(row, v...)
	}
	if len(row) != len(h.Columns) {
		return fmt.Errorf("recording the end of the run: %d values for %d columns", len(row), len(h.Columns))
	}
	h.Times = append(h.Times, t)
	h.Rows = append(h.Rows, row)
	return nil
}

// buildView computes the page data; with an error from a run that failed
// part way it returns the frames before the failure too.
func buildView(sc *scene.Scene, path string, d drawFlags, cam cameraView, quiet bool, stderr io.Writer) (*viewData, error) {
	fset, err := computeFrames(sc, path, d, quiet, stderr)
	if fset == nil {
		return nil, err
	}
	data := newViewData(sc, path, fset.st, cam)
	for i, u := range fset.unknown {
		data.Bodies[i].Unknown = u
	}
	if len(fset.cols) > 0 {
		data.Series = newSeries(fset.cols, fset.units)
	}
	data.Done = true
	for i, t := range fset.times {
		f := viewFrame{T: t, V: append(nums{}, fset.values[i]...), B: [][]nums{}}
		for _, ps := range fset.prims[i] {
			f.B = append(f.B, encodePrims(ps))
		}
		data.Frames = append(data.Frames, f)
	}
	return data, err
}

// jsonFrame encodes one frame for the live stream.
func jsonFrame(t float64, prims [][]node.Primitive, vals []float64) []byte {
	f := viewFrame{T: t, V: append(nums{}, vals...), B: [][]nums{}}
	for _, ps := range prims {
		f.B = append(f.B, encodePrims(ps))
	}
	var b bytes.Buffer
	_ = json.NewEncoder(&b).Encode(f)
	return bytes.TrimSpace(b.Bytes())
}

// nearestRow returns the index of the time in ts (ascending) nearest t,
// the earlier one on a tie; -1 when ts is empty.
func nearestRow(ts []float64, t float64) int {
	if len(ts) == 0 {
		return -1
	}
	i := sort.SearchFloat64s(ts, t)
	switch {
	case i == 0:
		return 0
	case i == len(ts):
		return len(ts) - 1
	case ts[i]-t < t-ts[i-1]:
		return i
	}
	return i - 1
}
