package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
)

const runArgs = "SCENE [-o FILE] [--format csv|jsonl] [--plot FIG] [-y FIELD]… [--set NODE.PARAM=VALUE]… [--progress auto|bar|log|none] [--checkpoint-every DURATION [--checkpoint FILE]] [--resume FILE] [-q]"

func cmdRun(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("run", runArgs, stderr)
	out := fs.String("o", "", "write the recorded history to `FILE` (\"-\" for stdout; the summary then goes to stderr)")
	format := fs.String("format", "", "history format: csv or jsonl (default: from the -o extension, else csv)")
	fig := fs.String("plot", "", "draw the recorded fields against time into `FIG` ("+figureFormatList+")")
	var ys, sets stringList
	fs.Var(&ys, "y", "a recorded `FIELD` to plot (repeatable; \"mass.position\" selects all its components); default: all")
	fs.Var(&sets, "set", "override a setting, `NODE.PARAM=VALUE` or run.FIELD=VALUE (repeatable); VALUE is JSON or a bare string")
	quiet := fs.Bool("q", false, "no progress display (--progress none)")
	progress := fs.String("progress", showAuto, "progress display: auto (a bar on a terminal, else a log line every --progress-every), bar, log or none")
	progressEvery := fs.Duration("progress-every", 10*time.Second, "wall-clock `DURATION` between progress log lines")
	ckEvery := fs.Duration("checkpoint-every", 0, "write a checkpoint every `DURATION` of wall-clock time (e.g. 10m), and when interrupted")
	ckFile := fs.String("checkpoint", "", "the checkpoint `FILE` (default: the scene's name with .checkpoint, in the working directory)")
	recDraw := fs.Bool("record-drawing", false, "also record every state field cosim view and render --history need to draw the run")
	resume := fs.String("resume", "", "continue from the checkpoint `FILE` of an earlier run of the same scene and --set flags, bit for bit; the history starts at its time")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("name exactly one scene file, got %d arguments (try examples/scenes/spring-damper.json)", len(pos))
	}
	// Everything that can be checked before the run is: the output
	// places and formats, the plotted fields, the checkpoint to resume.
	if !slices.Contains(progressModes, *progress) {
		return usagef("--progress %q: use %s%s", *progress, strings.Join(progressModes, ", "), node.DidYouMean(*progress, progressModes))
	}
	if *progressEvery <= 0 {
		return usagef("--progress-every %v: must be positive", *progressEvery)
	}
	f, err := historyFormat(*format, *out)
	if err != nil {
		return err
	}
	if err := checkOutputPath("-o", *out); err != nil {
		return err
	}
	if *fig != "" {
		if err := checkFigure("--plot", *fig); err != nil {
			return err
		}
	} else if len(ys) > 0 {
		return usagef("-y chooses what --plot draws; add --plot FIG")
	}
	if *ckEvery < 0 {
		return usagef("--checkpoint-every %v: must be positive", *ckEvery)
	}
	ckPath := *ckFile
	if ckPath != "" && *ckEvery == 0 {
		return usagef("--checkpoint names the file of --checkpoint-every; add --checkpoint-every DURATION")
	}
	if *ckEvery > 0 && ckPath == "" {
		ckPath = strings.TrimSuffix(filepath.Base(pos[0]), filepath.Ext(pos[0])) + ".checkpoint"
	}
	if err := checkOutputPath("--checkpoint", ckPath); err != nil {
		return err
	}
	sc, err := loadScene(pos[0], sets)
	if err != nil {
		return err
	}
	// No output may replace an input or another output. The checkpoint
	// may be the one the run resumes from: it is read whole first and
	// replaced by newer ones, atomically.
	inputs := sceneInputs(pos[0], sc)
	if *resume != "" && !samePath(*resume, ckPath) {
		inputs = append(inputs, namedPath{"the --resume checkpoint", *resume})
	}
	if err := prepareOutputs(stderr, inputs, []namedPath{{"-o", *out}, {"--plot", *fig}, {"--checkpoint", ckPath}}); err != nil {
		return err
	}
	if *recDraw {
		if _, err := addDrawingFields(pos[0], sc); err != nil {
			return err
		}
	}
	if (*out != "" || *fig != "") && len(sc.Record.Fields) == 0 {
		// The scene's own errors come before the hint.
		if _, err := sc.Compile(runRegistry(), nil); err != nil {
			return fmt.Errorf("%s: %w", pos[0], err)
		}
		return fmt.Errorf("%s records nothing: add \"record\": {\"fields\": [\"node.field\", …]} to the scene, or --set 'record.fields=[\"node.field\"]'", pos[0])
	}
	if len(ys) > 0 {
		if err := checkPlotted(pos[0], sc, ys); err != nil {
			return err
		}
	}
	var cp *graph.Checkpoint
	if *resume != "" {
		if cp, err = graph.ReadCheckpoint(*resume); err != nil {
			return fmt.Errorf("--resume %s: %w", *resume, err)
		}
	}
	summary := stdout
	if *out == "-" {
		summary = stderr
	}
	ctx, sig := watchSignalsGrace(stderr, stopGrace)
	defer sig.close()
	w := &runWatch{prog: newRunProgress(stderr, *progress, *quiet, *progressEvery, sc.EndTime()), ckEvery: *ckEvery, ckPath: ckPath, stderr: stderr, sig: sig}
	opts := &scene.Options{Observer: w, ObserveEvery: observeEvery(sceneSteps(sc)), Resume: cp, Prepare: w.prepare}
	// A CSV history that is not plotted streams to its file as the run
	// records it: memory stays constant however many rows.
	var stream *streamOut
	// (Not into a device or FIFO: opening a FIFO blocks until it has a
	// reader, so those are written at the end, in place.)
	if *out != "" && *out != "-" && f == "csv" && *fig == "" && !special(*out) {
		if stream, err = createStream(*out); err != nil {
			return err
		}
		defer stream.abort()
		opts.RecordTo, opts.StreamOnly = stream, true
	}
	res, err := sc.Simulate(ctx, runRegistry(), opts)
	w.prog.stop()
	if res != nil {
		defer res.Sim.Close() // an imported FMU's instance, binary and files
	}
	if cp != nil && res != nil {
		fmt.Fprintf(summary, "resumed from %s at t = %s (step %d)\n", *resume, fmtTime(cp.Time()), cp.Steps)
	}
	if s := sig.received(); s != nil && res != nil && (errors.Is(err, context.Canceled) || errors.Is(err, errStopRequested)) {
		// Interrupted: save the work done, say where it stopped. (A
		// run stopped at a step boundary for the signal was cancelled by
		// the user, as one the context stopped.)
		res.Status = graph.Cancelled
		printSummary(summary, pos[0], sc, res)
		werr := writeOutputs(summary, stdout, pos[0], sc, res, stream, *out, f, *fig, ys, "the interrupt")
		if ckPath != "" {
			werr = errors.Join(werr, w.checkpoint())
		}
		where := fmt.Sprintf("t = %s s (step %d, the end is t = %s s)", fmtTime(res.Time), res.Sim.StepCount(), fmtTime(sc.EndTime()))
		if ckPath != "" {
			where += "; continue with --resume " + ckPath
		}
		return errors.Join(werr, &interrupted{sig: s, where: where})
	}
	err = graph.WithStepHint(err, w.warnings)
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
		// (the state before the failing step) so they can be looked at.
		if oerr := writeOutputs(summary, stdout, pos[0], sc, res, stream, *out, f, *fig, ys, "the failure"); oerr != nil {
			return errors.Join(err, oerr)
		}
		return err
	}
	if *out != "" && !*recDraw {
		if hint := replayHint(sc, res.Sim); hint != "" {
			fmt.Fprintln(stderr, hint)
		}
	}
	return writeOutputs(summary, stdout, pos[0], sc, res, stream, *out, f, *fig, ys, "")
}

// runWatch observes a run (graph.Observer): the progress display and the
// periodic checkpoints.
type runWatch struct {
	prog    *runProgress
	sim     *graph.Sim
	ckEvery time.Duration
	ckPath  string
	ckNext  time.Duration
	stderr  io.Writer
	sig     *signals // nil: no signal handling
	// warnings are the run's step warnings, printed with its stability
	// warning at the start call (warnStart).
	warnings []graph.StepWarning
}

// stopGrace is how long `cosim run` waits, after the first SIGINT or
// SIGTERM, for the run to stop at a step boundary (its next Observer
// call) before it cancels the run within a step.
const stopGrace = 3 * time.Second

// errStopRequested stops a run at a step boundary when a signal asked
// it to stop: the coupling and integrator memory are then whole, and
// the checkpoint written continues the run bit for bit.
var errStopRequested = errors.New("stop requested by a signal")

func (w *runWatch) prepare(sim *graph.Sim) error {
	w.sim, w.ckNext = sim, w.ckEvery
	return nil
}

// Observe implements graph.Observer.
func (w *runWatch) Observe(v *graph.View) error {
	if v.Phase == graph.ObserveStart {
		w.warnStart(v)
	}
	if err := w.prog.Observe(v); err != nil {
		return err
	}
	if v.Phase == graph.ObserveStep && w.sig.stopRequested() {
		return errStopRequested
	}
	if w.ckEvery > 0 && v.Phase == graph.ObserveStep && v.Wall >= w.ckNext {
		w.ckNext = v.Wall + w.ckEvery
		return w.checkpoint()
	}
	return nil
}

// warnStart warns, before the first step, about every node whose stated
// stable step (graph.Sim.StepWarnings) run.dt exceeds and about a
// coupling scheme (co-simulation) or fixed-step method (monolithic) that
// is unstable at run.dt over the run's steps. Both come from the run's
// own start analysis (graph.View.Stability, the Result's), so the check
// is paid once; an adaptive run has none (its error control chooses
// stable steps). The step warnings are kept for the hint of a failed
// run.
func (w *runWatch) warnStart(v *graph.View) {
	w.warnings = v.Warnings
	printStartWarnings(w.stderr, "", v.Warnings, v.Stability)
}

// checkpoint writes the Sim's checkpoint, replacing the last one
// atomically.
func (w *runWatch) checkpoint() error {
	if w.sim == nil || w.ckPath == "" {
		return nil
	}
	if err := writeAtomic(w.ckPath, w.sim.Checkpoint().Encode); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	fmt.Fprintf(w.stderr, "checkpoint at t = %s (step %d) written to %s\n", fmtTime(w.sim.Time()), w.sim.StepCount(), w.ckPath)
	return nil
}

// checkPlotted checks the -y choices against the columns the scene
// records, before the run: the recorded fields' values at the start give
// their lengths.
func checkPlotted(path string, sc *scene.Scene, ys []string) error {
	sim, err := sc.Compile(runRegistry(), nil)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer sim.Close()
	var cols []string
	for _, fld := range sc.Record.Fields {
		v, err := sim.Value(fld)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if len(v) == 1 {
			cols = append(cols, fld)
			continue
		}
		for k := range v {
			cols = append(cols, fmt.Sprintf("%s[%d]", fld, k))
		}
	}
	_, err = selectColumns(cols, ys)
	return err
}

// writeOutputs writes the history file and the plot a run asked for.
// stopped, when not empty, says what stopped the run early ("the
// failure", "the interrupt"): the history then ends at the last good
// state. Without rows, an existing -o file is left as it is.
func writeOutputs(summary, stdout io.Writer, path string, sc *scene.Scene, res *scene.Result, stream *streamOut, out, format, fig string, ys []string, stopped string) error {
	failed := stopped != ""
	if stream != nil {
		// The rows are in the stream already; there is no figure.
		n := stream.rows()
		if n == 0 {
			stream.abort()
			if failed {
				fmt.Fprintf(summary, "history: no rows recorded before %s; %s left unchanged\n", stopped, out)
				return nil
			}
			return errors.New("the run recorded no rows")
		}
		if err := stream.commit(); err != nil {
			return err
		}
		until := ""
		if failed {
			until = fmt.Sprintf(" (up to t = %s, the last good state before %s)", fmtTime(res.Time), stopped)
		}
		fmt.Fprintf(summary, "history: %d rows × %d columns written to %s%s\n", n, len(res.History.Columns), out, until)
		return nil
	}
	if res.History == nil || len(res.History.Times) == 0 {
		if failed {
			if out != "" && out != "-" {
				fmt.Fprintf(summary, "history: no rows recorded before %s; %s left unchanged\n", stopped, out)
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
		until = fmt.Sprintf(" (up to t = %s, the last good state before %s)", fmtTime(res.History.Times[len(res.History.Times)-1]), stopped)
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
		sc, err := scene.LoadFile(path, runRegistry())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return sc, nil
	}
	m, err := parseSets(sets)
	if err != nil {
		return nil, err
	}
	sc, err := scene.DecodeFile(path)
	if err != nil {
		// The file's own problems, every one of them, as without --set.
		if _, lerr := scene.LoadFile(path, runRegistry()); lerr != nil {
			err = lerr
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	sc, err = sc.With(m)
	if err != nil {
		// The file decoded: these are the --set flags' problems, named
		// by them.
		return nil, err
	}
	// Then every problem of the scene with its overrides at once: bad
	// parameters, connectors, recorded fields and wiring.
	if _, err := sc.Compile(runRegistry(), nil); err != nil {
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
	ended := ""
	if res.Status != graph.EndReached {
		ended = " (" + res.Status.String() + ")"
	}
	if res.StopCause != nil {
		// Who stopped the run, when: a node's event, an FMU that asked
		// to terminate.
		ended = " (" + res.Status.String() + ": " + res.StopCause.Error() + ")"
	}
	fmt.Fprintf(w, "%s: %s (%s), %d steps to t = %s in %v%s\n", name, res.Mode, res.Method, res.Steps, fmtTime(res.Time), res.Wall.Round(time.Microsecond), ended)
	if res.Sim != nil {
		// Algebraic loops are solved, not refused: say where and at what cost.
		for _, l := range res.Sim.Loops() {
			fmt.Fprintf(w, "algebraic %s: %d solves, %d iterations, %d fallbacks\n", l, l.Solves, l.Iterations, l.Fallbacks)
		}
	}
	if _, ok := res.Mode.(graph.CoSimulation); ok {
		// Co-simulated nodes handle their events inside their own
		// steps, uncounted: a count there would be a wrong 0.
		fmt.Fprintf(w, "node updates %d, coupling iterations %d, events n/a (co-simulated nodes handle theirs in their steps)\n", res.NodeUpdates, res.CouplingIters)
		return
	}
	fmt.Fprintf(w, "rejected steps %d, Newton iterations %d, events %d\n", res.Rejected, res.NewtonIters, res.Events)
	// The integrator's counted work (monolithic runs): right-hand sides,
	// and for implicit methods the Newton, Krylov and Jacobian work.
	st := &res.Integrator.Work
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

// historyFormat picks csv or jsonl from the flag or, without it, from the
// file's extension: .csv, or none (stdout, /dev/null, a name without a
// dot), is CSV; .jsonl or .ndjson is JSON lines; any other extension
// (h.json, h.txt) is refused rather than written as CSV under a name
// that says otherwise.
func historyFormat(format, out string) (string, error) {
	switch format {
	case "csv", "jsonl":
		return format, nil
	case "":
		switch ext := strings.ToLower(filepath.Ext(out)); {
		case ext == ".jsonl" || ext == ".ndjson":
			return "jsonl", nil
		case ext == ".csv" || ext == "" || out == "-" || special(out):
			return "csv", nil
		default:
			return "", usagef("-o %s: a history is CSV (.csv) or JSON lines (.jsonl), and %q says neither; rename the file or give --format csv|jsonl", out, ext)
		}
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
	return writeAtomic(path, write)
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
	if i := strings.IndexByte(col, '['); i >= 0 {
		col = col[:i]
	}
	nn, fn := splitNodeField(col)
	if fn == "" {
		return ""
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

// runRegistry is the node catalog `cosim run` loads and compiles scenes
// with: nodes.Registry, replaced only by tests that count the work one
// run does (TestRunAnalysesOnce).
var runRegistry = nodes.Registry
