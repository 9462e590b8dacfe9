package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
)

const runArgs = "SCENE [-o FILE] [--format csv|jsonl] [--plot FIG] [-y FIELD]… [--set NODE.PARAM=VALUE]… [-q]"

func cmdRun(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("run", runArgs, stderr)
	out := fs.String("o", "", "write the recorded history to `FILE` (\"-\" for stdout; the summary then goes to stderr)")
	format := fs.String("format", "", "history format: csv or jsonl (default: from the -o extension, else csv)")
	fig := fs.String("plot", "", "draw the recorded fields against time into `FIG` (.png, .svg or .pdf)")
	var ys, sets stringList
	fs.Var(&ys, "y", "a recorded `FIELD` to plot (repeatable; \"mass.position\" selects all its components); default: all")
	fs.Var(&sets, "set", "override a setting, `NODE.PARAM=VALUE` or run.FIELD=VALUE (repeatable); VALUE is JSON or a bare string")
	quiet := fs.Bool("q", false, "no progress bar")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("name exactly one scene file, got %d arguments (try examples/scenes/spring-damper.json)", len(pos))
	}
	f, err := historyFormat(*format, *out)
	if err != nil {
		return err
	}
	sc, err := loadScene(pos[0], sets)
	if err != nil {
		return err
	}
	if (*out != "" || *fig != "") && len(sc.Record.Fields) == 0 {
		// The scene's own errors come before the hint.
		if _, err := sc.Compile(nodes.Registry(), nil); err != nil {
			return fmt.Errorf("%s: %w", pos[0], err)
		}
		return fmt.Errorf("%s records nothing: add \"record\": {\"fields\": [\"node.field\", …]} to the scene, or --set 'record.fields=[\"node.field\"]'", pos[0])
	}
	summary := stdout
	if *out == "-" {
		summary = stderr
	}
	opts := &scene.Options{}
	bar := newProgress(stderr, *quiet, sc.EndTime())
	if bar != nil {
		opts.Progress = bar.p.Report
	}
	ws := printStepWarnings(sc, stderr)
	res, err := sc.Simulate(context.Background(), nodes.Registry(), opts)
	bar.stop()
	err = graph.WithStepHint(err, ws)
	var se *scene.Error
	if errors.As(err, &se) {
		err = fmt.Errorf("%s: %w", pos[0], err)
	}
	if res != nil {
		printSummary(summary, pos[0], sc, res)
	}
	if err != nil {
		if res == nil {
			return err // nothing ran: the scene did not compile
		}
		// The run failed part way: keep the history of the good steps
		// (the state before the failing step), so no stale -o file is
		// left behind and the rows up to the failure can be looked at.
		if oerr := writeOutputs(summary, stdout, pos[0], sc, res, *out, f, *fig, ys, true); oerr != nil {
			return errors.Join(err, oerr)
		}
		return err
	}
	return writeOutputs(summary, stdout, pos[0], sc, res, *out, f, *fig, ys, false)
}

// printStepWarnings warns, before a co-simulation run, about every node
// whose stated stable step (graph.Sim.StepWarnings) run.dt exceeds, and
// returns the warnings for the hint of a failed run. A scene that does not
// compile warns nothing: Simulate reports it.
func printStepWarnings(sc *scene.Scene, w io.Writer) []graph.StepWarning {
	if sc.Run.Mode == scene.Monolithic {
		return nil
	}
	sim, err := sc.Compile(nodes.Registry(), nil)
	if err != nil {
		return nil
	}
	ws, _ := sim.StepWarnings(sc.Run.Dt)
	for _, sw := range ws {
		fmt.Fprintf(w, "cosim: warning: %s\n", sw)
	}
	return ws
}

// writeOutputs writes the history file and the plot a run asked for.
// failed says the run stopped with an error: the history then ends at
// the last good state, and without any rows an old -o file is removed.
func writeOutputs(summary, stdout io.Writer, path string, sc *scene.Scene, res *scene.Result, out, format, fig string, ys []string, failed bool) error {
	if res.History == nil || len(res.History.Times) == 0 {
		if failed {
			if out != "" && out != "-" {
				if err := os.Remove(out); err == nil {
					fmt.Fprintf(summary, "history: no rows recorded before the failure; removed the old %s\n", out)
				}
			}
			return nil
		}
		if out != "" || fig != "" {
			return errors.New("the run recorded no rows")
		}
		return nil
	}
	until := ""
	if failed {
		until = fmt.Sprintf(" (up to t = %s, the last good state before the failure)", fmtTime(res.History.Times[len(res.History.Times)-1]))
	}
	if out != "" {
		if err := writeHistoryFile(out, format, res.History, stdout); err != nil {
			return err
		}
		if out != "-" {
			fmt.Fprintf(summary, "history: %d rows × %d columns written to %s%s\n", len(res.History.Times), len(res.History.Columns), out, until)
		}
	}
	if fig != "" {
		cols, err := selectColumns(res.History.Columns, ys)
		if err != nil {
			return err
		}
		title := sc.Name
		if title == "" {
			title = filepath.Base(path)
		}
		if err := plotHistory(res.History, panelsByUnits(res.Sim, cols), title, fig); err != nil {
			return err
		}
		fmt.Fprintf(summary, "plot of %s written to %s%s\n", strings.Join(cols, ", "), fig, until)
	} else if len(ys) > 0 && !failed {
		return usagef("-y chooses what --plot draws; add --plot FIG")
	}
	return nil
}

// loadScene reads and decodes a scene file and applies --set overrides.
func loadScene(path string, sets []string) (*scene.Scene, error) {
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w (the examples are in examples/scenes; \"cosim demo --print\" writes a scene to start from)", err)
		}
		return nil, err
	}
	// The *File forms resolve the CSV files lookup nodes name against the
	// scene file's directory.
	if len(sets) == 0 {
		// LoadFile reports every problem of the file at once (structure,
		// parameters, wiring, recorded fields), not only the first stage's.
		sc, err := scene.LoadFile(path, nodes.Registry())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return sc, nil
	}
	sc, err := scene.DecodeFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	m, err := parseSets(sets)
	if err != nil {
		return nil, err
	}
	sc, err = sc.With(m)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return sc, nil
}

// parseSets reads NAME=VALUE pairs.
func parseSets(sets []string) (map[string]any, error) {
	m := map[string]any{}
	for _, s := range sets {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" {
			return nil, usagef("--set %q: write NODE.PARAM=VALUE, e.g. --set ball.elasticity=0.5", s)
		}
		m[strings.TrimSpace(k)] = scene.ParseValue(v)
	}
	return m, nil
}

func printSummary(w io.Writer, path string, sc *scene.Scene, res *scene.Result) {
	name := sc.Name
	if name == "" {
		name = filepath.Base(path)
	}
	fmt.Fprintf(w, "%s: %s (%s), %d steps to t = %s in %v\n", name, res.Mode, res.Method, res.Steps, fmtTime(res.Time), res.Wall.Round(time.Microsecond))
	// Only adaptive runs locate (and count) events; fixed-step nodes
	// handle theirs inside their steps, so a count there would be a
	// wrong 0.
	events := "n/a (fixed step)"
	if res.Mode == scene.ModeAdaptive {
		events = strconv.Itoa(res.Events)
	}
	fmt.Fprintf(w, "rejected steps %d, iterations %d, events %s\n", res.Rejected, res.Iterations, events)
	// The integrator's counted work (monolithic runs): right-hand sides,
	// and for implicit methods the Newton, Krylov and Jacobian work.
	var st *integrators.Stats
	switch {
	case res.Integrator != nil:
		st = &res.Integrator.Stats
	case res.Graph != nil && res.Mode == scene.Monolithic:
		st = &res.Graph.Integrator
	}
	if st == nil {
		return
	}
	if st.NewtonIters == 0 {
		fmt.Fprintf(w, "work: RHS evaluations %d\n", st.FuncEvals)
		return
	}
	solver := "auto"
	if in := sc.Run.Integrator; in != nil && in.LinearSolver != "" {
		solver = in.LinearSolver
	}
	if in := sc.Run.Integrator; solver != "dense" && st.LinearIters > 0 {
		pc := "block-jacobi"
		if in != nil && in.Preconditioner != "" {
			pc = in.Preconditioner
		}
		if in != nil && in.MatrixFree {
			pc += ", matrix-free"
		}
		if solver == "auto" {
			solver += " → gmres"
		}
		solver += " (" + pc + ")"
	} else if solver == "auto" {
		solver += " → dense LU"
	}
	fmt.Fprintf(w, "work (%s): Newton iterations %d, linear iterations %d, RHS evaluations %d, Jacobian evaluations %d, factorizations %d\n",
		solver, st.NewtonIters, st.LinearIters, st.FuncEvals, st.JacEvals, st.Factorize)
}

// fmtF formats a value in the shortest form that reads back exactly.
func fmtF(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// fmtTime formats a simulation time rounded to 12 significant digits, so
// the sum of n steps of dt prints as 0.3, not 0.30000000000000004.
func fmtTime(t float64) string { return strconv.FormatFloat(t, 'g', 12, 64) }

// historyFormat picks csv or jsonl from the flag or the file extension.
func historyFormat(format, out string) (string, error) {
	switch format {
	case "csv", "jsonl":
		return format, nil
	case "":
		if strings.HasSuffix(out, ".jsonl") {
			return "jsonl", nil
		}
		return "csv", nil
	}
	return "", usagef("--format %q: use csv or jsonl", format)
}

func writeHistoryFile(path, format string, h *graph.History, stdout io.Writer) error {
	write := func(w io.Writer) error {
		if format == "jsonl" {
			return writeJSONL(w, h)
		}
		return h.WriteCSV(w)
	}
	if path == "-" {
		return write(stdout)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeJSONL writes one JSON object per row: {"t": …, "column": …, …},
// keys in column order, floats in the shortest form that reads back
// exactly.
func writeJSONL(w io.Writer, h *graph.History) error {
	bw := bufio.NewWriter(w)
	keys := make([]string, len(h.Columns))
	for j, c := range h.Columns {
		keys[j] = strconv.Quote(c)
	}
	var buf []byte
	for i, r := range h.Rows {
		buf = append(buf[:0], `{"t":`...)
		buf = appendJSONFloat(buf, h.Times[i])
		for j, v := range r {
			buf = append(buf, ',')
			buf = append(buf, keys[j]...)
			buf = append(buf, ':')
			buf = appendJSONFloat(buf, v)
		}
		buf = append(buf, "}\n"...)
		bw.Write(buf)
	}
	return bw.Flush()
}

func appendJSONFloat(b []byte, x float64) []byte {
	// Histories hold only finite values (the graph stops on NaN or Inf).
	return strconv.AppendFloat(b, x, 'g', -1, 64)
}

// selectColumns resolves -y choices against history columns: a column
// name, or a field whose components are columns ("mass.position" for
// "mass.position[0]" …). No choice means every column.
func selectColumns(columns, ys []string) ([]string, error) {
	if len(ys) == 0 {
		return columns, nil
	}
	var out []string
	for _, y := range ys {
		found := false
		for _, c := range columns {
			if c == y || strings.HasPrefix(c, y+"[") {
				out = append(out, c)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("-y %s: not a recorded column%s; recorded: %s", y, node.DidYouMean(y, columns), strings.Join(columns, ", "))
		}
	}
	return out, nil
}

// panelsByUnits groups the columns by their units (looked up in the
// nodes' specs), in order of first appearance: one panel per quantity, so
// a force in newtons does not flatten a displacement in metres.
func panelsByUnits(sim *graph.Sim, cols []string) []panel {
	var ps []panel
	at := map[string]int{}
	for _, c := range cols {
		u := columnUnits(sim, c)
		i, ok := at[u]
		if !ok {
			i = len(ps)
			at[u] = i
			ps = append(ps, panel{ylabel: u}) // the units, until the label below
		}
		ps[i].cols = append(ps[i].cols, c)
	}
	for i := range ps {
		ps[i].ylabel = axisLabel(ps[i].cols, ps[i].ylabel)
	}
	return ps
}

func columnUnits(sim *graph.Sim, col string) string {
	if sim == nil {
		return ""
	}
	nn, fn, ok := strings.Cut(col, ".")
	if !ok {
		return ""
	}
	if i := strings.IndexByte(fn, '['); i >= 0 {
		fn = fn[:i]
	}
	n, ok := sim.Node(nn)
	if !ok {
		return ""
	}
	s := n.Spec()
	for _, f := range append(append([]node.Field(nil), s.State...), s.Outputs...) {
		if f.Name == fn {
			return f.Units
		}
	}
	return ""
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// isTerminal reports whether w is a terminal (a character device), as
// os.File.Stat tells without any dependency.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
