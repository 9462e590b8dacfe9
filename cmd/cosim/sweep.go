package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cosimgo/cosim/internal/textio"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
)

const sweepArgs = "SCENE (--vary NODE.PARAM=START:STOP:COUNT… | --list FILE) [-y FIELD]… [-j N] [-o FILE] [--shard I/N | --shards N] [--keep-going]\n       cosim sweep merge [-o FILE] [--keep-going] SHARD.csv…"

// Environment variables that give a shard index to array jobs.
const (
	envK8sIndex   = "JOB_COMPLETION_INDEX" // Kubernetes Indexed Job
	envSlurmIndex = "SLURM_ARRAY_TASK_ID"  // Slurm job array: the task id is the shard index
)

func cmdSweep(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "merge" {
		return cmdSweepMerge(args[1:], stdout, stderr)
	}
	fs := newFlags("sweep", sweepArgs, stderr)
	var varies, ys, sets stringList
	fs.Var(&varies, "vary", "vary a setting over `NODE.PARAM=START:STOP:COUNT` (COUNT values, ends included) or NODE.PARAM=V1,V2,…; repeatable: the grid is every combination, the last --vary fastest")
	list := fs.String("list", "", "run the parameter sets in `FILE`: a CSV table (a header of NODE.PARAM keys, one set a row; an empty cell keeps the scene's value) or one set a line, a JSON object {\"ball.elasticity\": 0.5} or k=v,k=v; # comments")
	fs.Var(&ys, "y", "a `FIELD` whose value at the end time is a column (repeatable; default: the scene's record.fields)")
	fs.Var(&sets, "set", "override a setting for every run, `NODE.PARAM=VALUE` (repeatable)")
	jobs := fs.Int("j", runtime.GOMAXPROCS(0), "run `N` simulations at once (each on one goroutine)")
	out := fs.String("o", "", "write the table to `FILE` instead of stdout")
	shard := fs.String("shard", "", "run only shard `I/N` of the grid: the runs k with k mod N = I; /N (or N) takes I from $"+envK8sIndex+" or $"+envSlurmIndex)
	shards := fs.Int("shards", 0, "split the grid into `N` shards and take this one's index from $"+envK8sIndex+" (Kubernetes Indexed Job) or $"+envSlurmIndex+" (Slurm array)")
	quiet := fs.Bool("q", false, "no progress display (--progress none)")
	progress := fs.String("progress", showAuto, "progress display: auto (a bar on a terminal, else a log line every --progress-every), bar, log or none")
	progressEvery := fs.Duration("progress-every", 10*time.Second, "wall-clock `DURATION` between progress log lines")
	keepGoing := fs.Bool("keep-going", false, "exit 0 when runs fail (their rows say why in the status column; sweep merge reports them): for array jobs whose next step needs every shard to succeed")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("name exactly one scene file, got %d arguments", len(pos))
	}
	if len(varies) > 0 && *list != "" || len(varies) == 0 && *list == "" {
		return usagef("give either --vary (a grid) or --list (parameter sets)")
	}
	if *jobs < 1 {
		return usagef("-j %d: run at least one simulation at once", *jobs)
	}
	if !slices.Contains(progressModes, *progress) {
		return usagef("--progress %q: use %s%s", *progress, strings.Join(progressModes, ", "), node.DidYouMean(*progress, progressModes))
	}
	if *progressEvery <= 0 {
		return usagef("--progress-every %v: must be positive", *progressEvery)
	}
	if err := checkOutputPath("-o", *out); err != nil {
		return err
	}
	si, sn, err := shardOf(*shard, *shards, os.Getenv)
	if err != nil {
		return err
	}
	base, err := loadScene(pos[0], sets)
	if err != nil {
		return err
	}
	if err := prepareOutputs(stderr, append(sceneInputs(pos[0], base), namedPath{"the --list file", *list}), []namedPath{{"-o", *out}}); err != nil {
		return err
	}
	var sw *sweepPlan
	if *list != "" {
		sw, err = readList(*list)
	} else {
		sw, err = gridOf(varies)
	}
	if err != nil {
		return err
	}
	// A misspelt key would fail every run alike: name it once, now.
	for _, k := range sw.keys {
		if err := base.CheckKey(k, nodes.Registry()); err != nil {
			return usageError{err.Error()}
		}
	}

	fields := []string(ys)
	if len(fields) == 0 {
		fields = base.Record.Fields
	}
	if len(fields) == 0 {
		return usagef("choose the outputs with -y NODE.FIELD (the scene records no fields)")
	}
	cols, err := outputColumns(base, fields)
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	fp, err := sweepFingerprint(base, sw, fields)
	if err != nil {
		return err
	}
	sw.warn = &onceWarner{stderr: stderr}
	var mine []int
	for k := si; k < sw.n; k += sn {
		mine = append(mine, k)
	}
	rows := make([][]string, len(mine))
	finished := make([]bool, len(mine)) // runs that ran to their end or their own failure
	var done atomic.Int64
	count := func() (int, int) { return int(done.Load()), len(mine) }
	mode := *progress
	if *quiet {
		mode = showNone
	}
	var bar *progressBar
	switch {
	case mode == showBar, mode == showAuto && stderrIsTerminal(stderr):
		bar = startCountProgress(stderr, count)
	case mode == showLog, mode == showAuto:
		bar = startCountLog(stderr, count, *progressEvery)
	}
	ctx, sig := watchSignals(stderr)
	defer sig.close()
	task := func(i int) {
		if ctx.Err() != nil {
			return // interrupted: runs not started are not run
		}
		row, ok := sw.run(ctx, base, mine[i], fields, len(cols), fp)
		if !ok {
			return // cancelled part way: not a finished row
		}
		rows[i], finished[i] = row, true
		done.Add(1)
	}
	if *jobs == 1 || len(mine) < 2 {
		for i := range mine {
			task(i)
		}
	} else {
		// *jobs workers take the runs in order; each run reports its
		// failure in its own status cell, so there is no error to collect.
		next := make(chan int)
		var wg sync.WaitGroup
		for range min(*jobs, len(mine)) {
			wg.Go(func() {
				for i := range next {
					task(i)
				}
			})
		}
		for i := range mine {
			next <- i
		}
		close(next)
		wg.Wait()
	}
	bar.stop()
	sw.warn.summary(len(mine))
	header := append(append(append([]string{"run", "runs"}, sw.keys...), "t"), cols...)
	header = append(header, "sweep", "status")
	var kept [][]string
	for i, r := range rows {
		if finished[i] {
			kept = append(kept, r)
		}
	}
	failed := 0
	for _, r := range kept {
		if r[len(r)-1] != "ok" {
			failed++
		}
	}
	if err := writeTable(*out, stdout, header, kept); err != nil {
		return err
	}
	if s := sig.received(); s != nil && len(kept) < len(mine) {
		where := fmt.Sprintf("%d of %d runs finished", len(kept), len(mine))
		if *out != "" {
			where += "; their rows are in " + *out
		}
		return &interrupted{sig: s, where: where}
	}
	if *out != "" {
		fmt.Fprintf(stderr, "cosim sweep: %d runs (shard %d/%d of %d) written to %s\n", len(mine), si, sn, sw.n, *out)
	}
	if failed > 0 {
		if *keepGoing {
			fmt.Fprintf(stderr, "cosim sweep: %d of %d runs failed; the status column says why (--keep-going: exit 0)\n", failed, len(mine))
			return nil
		}
		return fmt.Errorf("%d of %d runs failed; the status column says why (--keep-going writes them and exits 0)", failed, len(mine))
	}
	return nil
}

// sweepPlan is the list of parameter sets: keys are the columns, and set
// k holds the values of run k (unset where a set leaves a key at the
// scene's value). A grid keeps only its axes and computes set k when it
// is run, so that a grid of maxRuns runs needs no table of them.
type sweepPlan struct {
	keys []string
	sets [][]any // a list's sets
	axes [][]any // a grid's values of each key, the last fastest
	n    int     // the number of runs
	// warn prints the start warnings of the first run that has any.
	warn *onceWarner
}

// unset marks a key a set leaves at the scene's value (an empty cell of a
// list table, a key a line of a list does not name).
var unset any = unsetValue{}

type unsetValue struct{}

// set returns the values of run k.
func (sw *sweepPlan) set(k int) []any {
	if sw.axes == nil {
		return sw.sets[k]
	}
	set := make([]any, len(sw.axes))
	for j := len(sw.axes) - 1; j >= 0; j-- {
		set[j] = sw.axes[j][k%len(sw.axes[j])]
		k /= len(sw.axes[j])
	}
	return set
}

// run runs set k and returns its row: run, runs, values, t, outputs,
// sweep fingerprint, status; ok is false when ctx cancelled the run part
// way (the row is not a result).
func (sw *sweepPlan) run(ctx context.Context, base *scene.Scene, k int, fields []string, ncols int, fp string) (_ []string, ok bool) {
	row := []string{strconv.Itoa(k), strconv.Itoa(sw.n)}
	set := map[string]any{}
	for j, v := range sw.set(k) {
		row = append(row, cellText(v))
		if v != unset {
			set[sw.keys[j]] = v
		}
	}
	fail := func(err error) ([]string, bool) {
		row = append(row, "")
		for range ncols {
			row = append(row, "")
		}
		return append(row, fp, "error: "+oneLine(err.Error())), true
	}
	sc, err := base.With(set)
	if err != nil {
		return fail(err)
	}
	sc.SetBy = base.SetBy // the run's own values are --vary or --list values, not --set flags
	sc.Run.Workers = 1    // the sweep runs simulations in parallel instead
	res, err := sc.Simulate(ctx, nodes.Registry(), &scene.Options{NoHistory: true})
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return nil, false
	}
	if res == nil {
		return fail(err)
	}
	if sw.warn != nil && res.Result != nil {
		label := "run " + strconv.Itoa(k)
		var vals []string
		for j, v := range sw.set(k) {
			if v != unset {
				vals = append(vals, sw.keys[j]+"="+cellText(v))
			}
		}
		if len(vals) > 0 {
			label += " (" + strings.Join(vals, ", ") + ")"
		}
		sw.warn.run(k, label, res.Result)
	}
	defer res.Sim.Close()
	row = append(row, fmtTime(res.Time))
	for _, f := range fields {
		v, verr := res.Sim.Value(f)
		if verr != nil {
			return fail(verr)
		}
		for _, x := range v {
			row = append(row, fmtF(x))
		}
	}
	if err != nil {
		return append(row, fp, "error: "+oneLine(err.Error())), true
	}
	return append(row, fp, "ok"), true
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// cellText formats a parameter value for a table cell.
func cellText(v any) string {
	switch x := v.(type) {
	case unsetValue:
		return ""
	case nil:
		return "null"
	case float64:
		return fmtF(x)
	case string:
		return x
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// outputColumns compiles the base scene to check the fields and name
// their columns ("f" for a scalar, "f[k]" for each component of a
// vector), as a history does.
func outputColumns(sc *scene.Scene, fields []string) ([]string, error) {
	sim, err := sc.Compile(nodes.Registry(), nil)
	if err != nil {
		return nil, err
	}
	var cols []string
	for _, f := range fields {
		v, err := sim.Value(f)
		if err != nil {
			return nil, fmt.Errorf("-y %s: %w", f, err)
		}
		if len(v) == 1 {
			cols = append(cols, f)
			continue
		}
		for k := range v {
			cols = append(cols, fmt.Sprintf("%s[%d]", f, k))
		}
	}
	return cols, nil
}

// gridOf reads --vary flags into the Cartesian product of their values,
// the last flag varying fastest. The grid's size is checked against
// maxRuns before any of it is allocated.
func gridOf(varies []string) (*sweepPlan, error) {
	sw := &sweepPlan{n: 1}
	for _, v := range varies {
		key, spec, ok := strings.Cut(v, "=")
		if !ok || key == "" {
			return nil, usagef("--vary %q: write NODE.PARAM=START:STOP:COUNT or NODE.PARAM=V1,V2,…", v)
		}
		if slices.Contains(sw.keys, key) {
			return nil, usagef("--vary %s given twice", key)
		}
		vals, err := axisValues(spec)
		if err != nil {
			return nil, usagef("--vary %s: %v", v, err)
		}
		if sw.n > maxRuns/len(vals) {
			return nil, usagef("the grid has more than %d runs (--vary %s makes it %d × %d)", maxRuns, key, sw.n, len(vals))
		}
		sw.n *= len(vals)
		sw.keys = append(sw.keys, key)
		sw.axes = append(sw.axes, vals)
	}
	return sw, nil
}

// axisValues reads START:STOP:COUNT (COUNT evenly spaced values, both ends
// included; each computed as start + k·(stop−start)/(count−1), so no
// error accumulates; at most maxRuns, checked before they are made) or a
// comma-separated list of values.
func axisValues(spec string) ([]any, error) {
	parts := strings.Split(spec, ":")
	if len(parts) == 3 {
		a, err1 := textio.ParseNumber(parts[0])
		b, err2 := textio.ParseNumber(parts[1])
		n, err3 := strconv.Atoi(parts[2])
		if err1 != nil || err2 != nil || err3 != nil || n < 1 || math.IsInf(a, 0) || math.IsInf(b, 0) || a != a || b != b {
			return nil, errors.New("START and STOP must be finite numbers and COUNT a positive integer")
		}
		if n > maxRuns {
			return nil, fmt.Errorf("COUNT %d is more than the %d runs a sweep may have", n, maxRuns)
		}
		vals := make([]any, n)
		for k := range vals {
			if n == 1 {
				vals[k] = a
				continue
			}
			x := a + float64(k)*(b-a)/float64(n-1)
			if k == n-1 {
				x = b
			}
			vals[k] = x
		}
		return vals, nil
	}
	if len(parts) != 1 {
		return nil, errors.New("write START:STOP:COUNT or a list V1,V2,…")
	}
	var vals []any
	for _, s := range splitTop(spec) {
		if s = strings.TrimSpace(s); s == "" {
			return nil, errors.New("empty value in the list")
		}
		vals = append(vals, scene.ParseValue(s))
	}
	return vals, nil
}

// splitTop splits s at commas outside brackets, braces and quotes.
func splitTop(s string) []string {
	var out []string
	depth, start, inStr := 0, 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case inStr && c == '\\':
			i++
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
		case c == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// readList reads parameter sets from a file in one of two forms, told
// apart by the first line that is not blank or a # comment:
//
//   - one set a line, a JSON object {"k": v, …} or k=v,k=v (the first line
//     starts with "{" or holds "="); the columns are the keys in order of
//     first appearance;
//   - a CSV table (anything else): a header of keys, then one set a row,
//     as design-of-experiments tools write them; the columns are the
//     header's, and an empty cell keeps the scene's value.
//
// The file may have at most maxListBytes bytes and maxRuns sets.
func readList(path string) (*sweepPlan, error) {
	data, err := textio.ReadFile(path, maxListBytes, "the list")
	if err != nil {
		return nil, fmt.Errorf("--list %s: %w", path, err)
	}
	return parseList(path, data)
}

// parseList reads the sets of readList from data.
func parseList(path string, data []byte) (sw *sweepPlan, err error) {
	if first := firstLine(string(data)); strings.HasPrefix(first, "{") || strings.Contains(first, "=") {
		sw, err = readSetLines(path, data)
	} else {
		sw, err = readSetCSV(path, data)
	}
	if err != nil {
		return nil, err
	}
	if len(sw.sets) == 0 {
		return nil, fmt.Errorf("%s has no parameter sets", path)
	}
	sw.n = len(sw.sets)
	return sw, nil
}

// firstLine returns the first line of text that is not blank or a comment.
func firstLine(text string) string {
	for line := range strings.Lines(text) {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			return line
		}
	}
	return ""
}

// readSetLines reads one set a line: a JSON object or k=v,k=v.
func readSetLines(path string, data []byte) (*sweepPlan, error) {
	sw := &sweepPlan{}
	var maps []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<16), 1<<22)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		keys, m, err := parseSetLine(text)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		for _, k := range keys {
			if err := checkKey(k); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, line, err)
			}
			if !slices.Contains(sw.keys, k) {
				sw.keys = append(sw.keys, k)
			}
		}
		if maps = append(maps, m); len(maps) > maxRuns {
			return nil, fmt.Errorf("%s:%d: more than %d parameter sets, the runs a sweep may have", path, line, maxRuns)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, m := range maps {
		set := make([]any, len(sw.keys))
		for j, k := range sw.keys {
			v, ok := m[k]
			if !ok {
				v = unset
			}
			set[j] = v
		}
		sw.sets = append(sw.sets, set)
	}
	return sw, nil
}

// readSetCSV reads a CSV table of sets: a header of keys, one set a row.
func readSetCSV(path string, data []byte) (*sweepPlan, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.Comment = '#'
	r.TrimLeadingSpace = true
	header, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: not a list of parameter sets (a CSV header of NODE.PARAM keys, or one JSON object or k=v,k=v a line): %w", path, err)
	}
	sw := &sweepPlan{}
	for i, k := range header {
		k = strings.TrimSpace(k)
		if err := checkKey(k); err != nil {
			return nil, fmt.Errorf("%s:1: column %d: %v", path, i+1, err)
		}
		if slices.Contains(sw.keys, k) {
			return nil, fmt.Errorf("%s:1: column %q given twice", path, k)
		}
		sw.keys = append(sw.keys, k)
	}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return sw, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w (every row needs one cell for each of the %d columns; leave a cell empty to keep the scene's value)", path, err, len(header))
		}
		line, _ := r.FieldPos(0)
		set := make([]any, len(rec))
		for j, cell := range rec {
			set[j] = unset
			if cell = strings.TrimSpace(cell); cell != "" {
				set[j] = scene.ParseValue(cell)
			}
		}
		if !slices.ContainsFunc(set, func(v any) bool { return v != unset }) {
			return nil, fmt.Errorf("%s:%d: the row sets nothing (every cell is empty; write the scene's values to run it unchanged)", path, line)
		}
		if sw.sets = append(sw.sets, set); len(sw.sets) > maxRuns {
			return nil, fmt.Errorf("%s:%d: more than %d parameter sets, the runs a sweep may have", path, line, maxRuns)
		}
	}
}

// checkKey checks the form of a sweep key: NODE.PARAM, or a run. or
// record. path. Whether the node and its parameter exist is the scene's
// to say, for each run.
func checkKey(k string) error {
	node, param, ok := strings.Cut(k, ".")
	if !ok || node == "" || param == "" || strings.ContainsAny(k, " \t=,") {
		return fmt.Errorf("%q is not a key: write NODE.PARAM (or run.FIELD, record.FIELD)", k)
	}
	return nil
}

// parseSetLine reads {"k": v, …} (keys in file order) or k=v,k=v.
func parseSetLine(text string) ([]string, map[string]any, error) {
	m := map[string]any{}
	var keys []string
	if strings.HasPrefix(text, "{") {
		dec := json.NewDecoder(strings.NewReader(text))
		dec.UseNumber()
		if _, err := dec.Token(); err != nil {
			return nil, nil, err
		}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return nil, nil, fmt.Errorf("not a JSON object: %v", err)
			}
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, nil, fmt.Errorf("not a JSON object: %v", err)
			}
			k := tok.(string)
			keys = append(keys, k)
			m[k] = scene.ParseValue(string(raw))
		}
		return keys, m, nil
	}
	for _, kv := range splitTop(text) {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok || k == "" {
			return nil, nil, fmt.Errorf("%q is not k=v (write node.param=value,node.param=value or a JSON object)", kv)
		}
		keys = append(keys, k)
		m[k] = scene.ParseValue(v)
	}
	return keys, m, nil
}

// shardOf returns the shard index and count from --shard I/N, or from
// --shards N and the array-job environment.
func shardOf(shard string, shards int, getenv func(string) string) (int, int, error) {
	if shard != "" && shards != 0 {
		return 0, 0, usagef("give --shard I/N or --shards N, not both")
	}
	if shard != "" {
		a, b, ok := strings.Cut(shard, "/")
		if !ok || a == "" {
			// --shard N or --shard /N: the index comes from the batch
			// engine's environment, as with --shards N.
			if !ok {
				b = a
			}
			n, err := strconv.Atoi(b)
			if err != nil || n < 1 {
				return 0, 0, usagef("--shard %q: write I/N with 0 <= I < N (e.g. --shard 0/4), or /N to take I from $%s or $%s", shard, envK8sIndex, envSlurmIndex)
			}
			shards = n
		} else {
			i, err1 := strconv.Atoi(a)
			n, err2 := strconv.Atoi(b)
			if err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
				return 0, 0, usagef("--shard %q: write I/N with 0 <= I < N (e.g. --shard 0/4), or /N to take I from $%s or $%s", shard, envK8sIndex, envSlurmIndex)
			}
			return i, n, nil
		}
	}
	if shards == 0 {
		return 0, 1, nil
	}
	if shards < 0 {
		return 0, 0, usagef("--shards %d: give a positive count", shards)
	}
	for _, env := range []string{envK8sIndex, envSlurmIndex} {
		s := getenv(env)
		if s == "" {
			continue
		}
		i, err := strconv.Atoi(s)
		if err != nil {
			return 0, 0, fmt.Errorf("$%s = %q is not an integer", env, s)
		}
		if i < 0 || i >= shards {
			if env == envSlurmIndex {
				// The task id itself is the shard, not the id minus
				// SLURM_ARRAY_TASK_MIN: "sbatch --array=5" reruns shard 5
				// only if the id is used as it is.
				return 0, 0, fmt.Errorf("$%s = %d is outside 0..%d: number the array's tasks 0..%d (sbatch --array=0-%d); the task id is the shard index", env, i, shards-1, shards-1, shards-1)
			}
			return 0, 0, fmt.Errorf("$%s gives shard %d, outside 0..%d: the Job must have completions: %d", env, i, shards-1, shards)
		}
		return i, shards, nil
	}
	return 0, 0, usagef("--shards %d needs the shard index: set $%s (Kubernetes Indexed Job) or $%s (Slurm array), or give --shard I/%d", shards, envK8sIndex, envSlurmIndex, shards)
}

// sweepFingerprint identifies a sweep: the first 16 hex digits of the
// SHA-256 of the cosim version, the scene as the runs start from it (its
// canonical JSON, after the --set flags), the parameter sets (the keys and
// the values of the grid's axes or of the list's sets, as the table
// writes them) and the recorded fields. Every row of the sweep's tables
// carries it in the sweep column, so that sweep merge joins the shards of
// one sweep only; a grid or list written another way with the same
// values is the same sweep. (The CSV files lookup nodes name are not part
// of it.)
func sweepFingerprint(base *scene.Scene, sw *sweepPlan, fields []string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "cosim %s\n", cosimVersion())
	if err := base.Encode(h); err != nil {
		return "", err
	}
	cells := func(what string, vals []any) {
		fmt.Fprintf(h, "%s", what)
		for _, v := range vals {
			fmt.Fprintf(h, " %q", cellText(v))
		}
		fmt.Fprintln(h)
	}
	for j, k := range sw.keys {
		fmt.Fprintf(h, "key %q\n", k)
		if sw.axes != nil {
			cells("axis", sw.axes[j])
		}
	}
	for _, set := range sw.sets {
		cells("set", set)
	}
	for _, f := range fields {
		fmt.Fprintf(h, "y %q\n", f)
	}
	return fmt.Sprintf("%x", h.Sum(nil)[:8]), nil
}

// writeTable writes a CSV table to the file, or to stdout when path is
// "" or "-". A file is written whole or not at all: the table goes to a
// temporary file beside it (".NAME.tmp-…", which shard globs such as
// shard-*.csv do not match), is synced, and is renamed over path. A task
// killed mid-write (a time limit, scancel, a lost node) leaves at most
// that temporary file, never a truncated table under the real name.
func writeTable(path string, stdout io.Writer, header []string, rows [][]string) error {
	write := func(w io.Writer) error {
		cw := csv.NewWriter(w)
		cw.Write(header)
		cw.WriteAll(rows) // flushes
		return cw.Error()
	}
	if path == "" || path == "-" {
		return write(stdout)
	}
	return writeAtomic(path, write)
}

// cmdSweepMerge joins shard tables into one, in run order, checking that
// they come from one sweep (same header, same total) and that every run
// is there exactly once.
func cmdSweepMerge(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("sweep merge", "[-o FILE] [--keep-going] SHARD.csv…", stderr)
	out := fs.String("o", "", "write the merged table to `FILE` instead of stdout")
	keepGoing := fs.Bool("keep-going", false, "exit 0 when the merged table has failed runs (they are reported on stderr either way)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("name the shard tables to merge (the -o files of cosim sweep --shard)")
	}
	if err := checkOutputPath("-o", *out); err != nil {
		return err
	}
	var tables []namedPath
	for _, p := range pos {
		tables = append(tables, namedPath{"a table to merge", p})
	}
	if err := prepareOutputs(stderr, tables, []namedPath{{"-o", *out}}); err != nil {
		return err
	}
	var header []string
	byRun := map[int][]string{}
	from := map[int]string{} // the table each run was first read from
	total, twice := -1, 0
	fp, fpFrom := "", "" // the sweep's fingerprint and the table it was first read from
	for _, p := range pos {
		h, rows, err := readTable(p)
		if err != nil {
			return err
		}
		if header == nil {
			header = h
		} else if !slices.Equal(header, h) {
			return fmt.Errorf("%s: its columns differ from %s's; merge shards of one sweep only", p, pos[0])
		}
		if fpCol := len(h) - 2; h[fpCol] == "sweep" {
			for line, r := range rows {
				switch {
				case fp == "":
					fp, fpFrom = r[fpCol], fmt.Sprintf("%s:%d", p, line+2)
				case r[fpCol] != fp:
					return fmt.Errorf("%s:%d: a different sweep from %s: sweep fingerprint %s here, %s there (the scene, the --set flags, the --vary grid or --list file, the -y fields or the cosim version differ); merge the tables of one sweep only", p, line+2, fpFrom, r[fpCol], fp)
				}
			}
		}
		for line, r := range rows {
			k, _ := strconv.Atoi(r[0]) // readTable checked both
			n, _ := strconv.Atoi(r[1])
			if total >= 0 && n != total {
				return fmt.Errorf("%s:%d: the sweep has %d runs here and %d elsewhere; merge shards of one sweep only", p, line+2, n, total)
			}
			total = n
			if prev, dup := byRun[k]; dup {
				// A task that ran twice (requeued, rerun by hand, shards
				// of two shard counts) writes its runs twice: the same
				// run gives the same bits, so identical rows are one run.
				if !slices.Equal(prev, r) {
					j := 0
					for prev[j] == r[j] {
						j++
					}
					return fmt.Errorf("%s:%d: run %d is also in %s, with %s = %q there and %q here: the tables come from different scenes, flags or binaries; merge one sweep's tables only", p, line+2, k, from[k], header[j], prev[j], r[j])
				}
				twice++
				continue
			}
			byRun[k] = r
			from[k] = p
		}
	}
	if total < 0 {
		// Shards beyond the grid's size (shards 2 and 3 of a 2-run grid)
		// are empty; with only such tables, runs are missing but the
		// grid size is unknown.
		return fmt.Errorf("the tables have no runs at all (every shard given is empty): is a shard table left out? Merge the shard tables that hold runs")
	}
	var missing []int
	for k := 0; k < total; k++ {
		if _, ok := byRun[k]; !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		show := missing[:min(len(missing), 10)]
		return fmt.Errorf("%d of %d runs are missing (runs %v…): is a shard table left out, or did a shard fail or get cancelled? Rerun its shard (--shard I/N, or the array task alone), then merge again", len(missing), total, show)
	}
	keys := make([]int, 0, len(byRun))
	for k := range byRun {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	rows := make([][]string, len(keys))
	for i, k := range keys {
		rows[i] = byRun[k]
	}
	if err := writeTable(*out, stdout, header, rows); err != nil {
		return err
	}
	if *out != "" {
		fmt.Fprintf(stderr, "cosim sweep merge: %d runs from %d tables written to %s\n", len(rows), len(pos), *out)
	}
	if twice > 0 {
		fmt.Fprintf(stderr, "cosim sweep merge: %d rows were in more than one table with identical values (a task that ran twice); each run is counted once\n", twice)
	}
	var failed []int
	for _, k := range keys {
		if r := byRun[k]; header[len(header)-1] == "status" && r[len(r)-1] != "ok" {
			failed = append(failed, k)
		}
	}
	if len(failed) > 0 {
		show := failed[:min(len(failed), 10)]
		msg := fmt.Sprintf("%d of %d runs failed (runs %v…); the status column says why", len(failed), total, show)
		if *keepGoing {
			fmt.Fprintf(stderr, "cosim sweep merge: %s\n", msg)
			return nil
		}
		return errors.New(msg + " (--keep-going exits 0)")
	}
	return nil
}

// readTable reads a sweep table and checks it is whole: a header that
// starts run,runs and ends with status, rows of the header's width whose
// run and runs are integers with 0 <= run < runs, and a final newline (the
// CSV writer ends every row with one, so a file without it was cut off).
//
// A table may have at most maxSweepTableBytes bytes, and runs at most
// maxRuns.
func readTable(path string) ([]string, [][]string, error) {
	data, err := textio.ReadFile(path, maxSweepTableBytes, "the sweep table")
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return parseTable(path, data)
}

// parseTable reads the sweep table of readTable from data.
func parseTable(path string, data []byte) ([]string, [][]string, error) {
	if len(data) == 0 {
		return nil, nil, fmt.Errorf("%s is empty: not a cosim sweep table (was its task killed before it wrote the table?)", path)
	}
	r := csv.NewReader(bytes.NewReader(data))
	h, err := r.Read()
	if err != nil || len(h) < 4 || h[0] != "run" || h[1] != "runs" || h[len(h)-1] != "status" {
		return nil, nil, fmt.Errorf("%s: not a cosim sweep table (its header is %q, want run,runs,…,status)", path, strings.Join(h[:min(len(h), 4)], ","))
	}
	rows, err := r.ReadAll()
	cut := data[len(data)-1] != '\n'
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) && (cut || errors.Is(pe.Err, csv.ErrFieldCount)) {
			return nil, nil, fmt.Errorf("%s:%d: truncated or damaged table: %v (a task killed mid-write, or a partial copy); rerun its shard", path, pe.StartLine, pe.Err)
		}
		return nil, nil, fmt.Errorf("%s: not a cosim sweep table: %w", path, err)
	}
	if cut {
		return nil, nil, fmt.Errorf("%s:%d: truncated table: the last row ends without a newline (a task killed mid-write, or a partial copy); rerun its shard", path, len(rows)+1)
	}
	for i, row := range rows {
		k, err1 := strconv.Atoi(row[0])
		n, err2 := strconv.Atoi(row[1])
		if err1 != nil || err2 != nil || k < 0 || k >= n || n > maxRuns {
			return nil, nil, fmt.Errorf("%s:%d: bad run %q of %q: want 0 <= run < runs <= %d", path, i+2, row[0], row[1], maxRuns)
		}
		if row[len(row)-1] == "" {
			return nil, nil, fmt.Errorf("%s:%d: run %d has no status: truncated or damaged table", path, i+2, k)
		}
	}
	return h, rows, nil
}
