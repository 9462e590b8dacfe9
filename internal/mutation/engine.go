package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// engineTool names the engine in the recorded results.
const engineTool = "cosim schemata engine (gremlins v0.6.0 default mutants)"

// Deadline of one mutant's run: timeoutCoefficient times the un-mutated
// run time of the tests it runs, plus timeoutFloor (process start, and
// slack for a loaded machine). The binary is built once, so no build
// time hides in the deadline.
const (
	timeoutCoefficient = 10
	timeoutFloor       = 10 * time.Second
)

// verbose prints every mutant's outcome (-v).
var verbose bool

// plan is a package's mutants and the instrumented test binary.
type plan struct {
	pi      *pkgInfo
	mutants []*mutantInfo // every mutant, ID order (mutants[i].ID == i+1)
	tmp     string        // work directory
	bin     string        // instrumented test binary
	spans   []span
	leftOut []string // tests that fail without a mutant (record)
}

// enumerate lists the mutants of package dir (with files, only those of
// these files) in gremlins' order.
func enumerate(pi *pkgInfo, files []string) []*mutantInfo {
	var ms []*mutantInfo
	next := 1
	for i, f := range pi.Files {
		if len(files) > 0 && !contains(files, pi.Names[i]) {
			continue
		}
		add := enumerateFile(pi.Fset, f, pi.Dir+"/"+pi.Names[i], next)
		ms = append(ms, add...)
		next += len(add)
	}
	for _, name := range pi.Ignored {
		if len(files) > 0 && !contains(files, name) {
			continue
		}
		add, err := enumerateIgnored(filepath.Join(pi.Dir, name), pi.Dir+"/"+name, next)
		if err != nil {
			continue
		}
		ms = append(ms, add...)
		next += len(add)
	}
	return ms
}

// build instruments the package and compiles its test binary through an
// overlay. A mutant whose instrumentation does not compile is withdrawn
// (NOT VIABLE, with the compiler's message) and the build retried.
func (pl *plan) build(logw io.Writer) error {
	for attempt := 0; ; attempt++ {
		overlay := map[string]string{}
		pl.spans = nil
		for i, f := range pl.pi.Files {
			var live []*mutantInfo
			for _, m := range pl.mutants {
				if m.Status == "" && m.File == pl.pi.Dir+"/"+pl.pi.Names[i] {
					live = append(live, m)
				}
			}
			if len(live) == 0 {
				continue
			}
			path := filepath.Join(pl.pi.Dir, pl.pi.Names[i])
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			out, spans, _ := instrumentFile(pl.pi, f, pl.pi.Names[i], src, live)
			pl.spans = append(pl.spans, spans...)
			dst := filepath.Join(pl.tmp, pl.pi.Names[i])
			if err := os.WriteFile(dst, []byte(out), 0o644); err != nil {
				return err
			}
			abs, _ := filepath.Abs(path)
			overlay[abs] = dst
		}
		gen := filepath.Join(pl.tmp, schemataFile)
		if err := os.WriteFile(gen, []byte(schemataSource(pl.pi.Types.Name(), len(pl.mutants))), 0o644); err != nil {
			return err
		}
		absDir, _ := filepath.Abs(pl.pi.Dir)
		overlay[filepath.Join(absDir, schemataFile)] = gen
		data, _ := json.Marshal(map[string]any{"Replace": overlay})
		ov := filepath.Join(pl.tmp, "overlay.json")
		if err := os.WriteFile(ov, data, 0o644); err != nil {
			return err
		}
		pl.bin = filepath.Join(pl.tmp, "test.bin")
		cmd := exec.Command("go", "test", "-c", "-overlay", ov, "-o", pl.bin, "./"+pl.pi.Dir)
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stderr, &stderr
		if err := cmd.Run(); err == nil {
			return nil
		}
		n := pl.withdraw(stderr.String())
		if n == 0 || attempt >= 10 {
			return fmt.Errorf("the instrumented package does not compile:\n%s", stderr.String())
		}
		fmt.Fprintf(logw, "instrumentation of %d mutants does not compile: withdrawn, rebuilding\n", n)
	}
}

var compileErr = regexp.MustCompile(`(?m)^\S*?([^/\s]+\.go):(\d+):\d+: (.*)$`)

// withdraw marks NOT VIABLE the mutants of the rewritten regions that the
// compiler's errors name, and returns how many.
func (pl *plan) withdraw(out string) int {
	n := 0
	for _, sm := range compileErr.FindAllStringSubmatch(out, -1) {
		line, _ := strconv.Atoi(sm[2])
		// The innermost region holding the line is the culprit.
		best := -1
		for i, s := range pl.spans {
			if s.file == sm[1] && s.start <= line && line <= s.end {
				if best < 0 || s.end-s.start < pl.spans[best].end-pl.spans[best].start {
					best = i
				}
			}
		}
		if best < 0 {
			continue
		}
		for _, id := range pl.spans[best].ids {
			m := pl.mutants[id-1]
			if m.Status == "" {
				m.Status, m.Reason = statusNotViable, "its instrumentation does not compile: "+sm[3]
				n++
			}
			for _, t := range pl.mutants {
				if t.Twin == id && t.Status == "" {
					t.Status, t.Reason = m.Status, m.Reason
					n++
				}
			}
		}
	}
	return n
}

// testRun is one top-level test's un-mutated run.
type testRun struct {
	name    string
	elapsed time.Duration
	hits    map[int]bool
}

// listTests returns the tests, examples and fuzz targets of the binary
// (go test runs these; benchmarks it does not).
func (pl *plan) listTests() ([]string, error) {
	cmd := exec.Command(pl.bin, "-test.list", ".")
	cmd.Dir = pl.pi.Dir
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s -test.list: %w", pl.bin, err)
	}
	var names []string
	for _, l := range strings.Fields(string(out)) {
		if strings.HasPrefix(l, "Test") || strings.HasPrefix(l, "Example") || strings.HasPrefix(l, "Fuzz") {
			names = append(names, l)
		}
	}
	return names, nil
}

// testArgs are the flags of every run of the binary: one CPU, as the
// shared machines require, and no cached or repeated runs.
func testArgs(names []string) []string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = regexp.QuoteMeta(n)
	}
	return []string{"-test.run", "^(" + strings.Join(quoted, "|") + ")$", "-test.count=1", "-test.cpu=1", "-test.timeout=0"}
}

// record runs each top-level test once, un-mutated, recording the
// mutants it reaches and its time.
func (pl *plan) record(names []string, logw io.Writer) ([]testRun, error) {
	var runs []testRun
	hitsFile := filepath.Join(pl.tmp, "hits")
	for _, name := range names {
		os.Remove(hitsFile)
		cmd := exec.Command(pl.bin, testArgs([]string{name})...)
		cmd.Dir = pl.pi.Dir
		cmd.Env = append(os.Environ(), hitsEnv+"="+hitsFile, mutantEnv+"=0")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		err := cmd.Run()
		elapsed := time.Since(start)
		if err != nil {
			// A test that fails with no mutant selected cannot tell a
			// mutant from the original: it is left out (named in the
			// result), and a mutant that only it reaches counts as not
			// covered. This happens to tests that need more than the one
			// CPU the runs are given (a scheduler test that waits for a
			// second running thread) or that time the instrumented code.
			fmt.Fprintf(logw, "%s fails without a mutant (instrumented build, one CPU): left out\n%s\n", name, tail(out.String(), 1000))
			pl.leftOut = append(pl.leftOut, name)
			continue
		}
		r := testRun{name: name, elapsed: elapsed, hits: map[int]bool{}}
		if data, err := os.ReadFile(hitsFile); err == nil {
			for _, f := range strings.Fields(string(data)) {
				id, _ := strconv.Atoi(f)
				r.hits[id] = true
			}
		}
		runs = append(runs, r)
	}
	return runs, nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// A batch is the tests that one process runs against a mutant.
type batch struct {
	names []string
	cost  time.Duration // their un-mutated run time
}

// minBatch is the least un-mutated run time of a batch of tests (other
// than an example's or fuzz target's, each alone, and the last): a
// process start costs tens of milliseconds, which tests much cheaper
// than this would not repay.
const minBatch = 100 * time.Millisecond

// batches splits the tests that reach a mutant (their un-mutated runs)
// into the processes that run them, cheapest first, so that a mutant
// dies in the cheapest test that catches it and survives after running
// each of them once:
//
//   - the tests are sorted by their un-mutated time (ties: list order);
//   - an example or fuzz target runs alone: -test.failfast does not stop
//     examples (the testing package runs them after the tests whatever
//     failed), so one in a batch with a failing test would still run,
//     and a slow one would turn a caught mutant into a time-out;
//   - consecutive tests share a process until their time reaches that
//     of all the batches before them (at least minBatch): the number of
//     processes grows as the logarithm of the total time, and a mutant
//     caught by a test runs at most about twice the time of the tests
//     cheaper than that one (tests in a batch run in source order, so
//     its cheaper tests may follow the failing one but are cut off by
//     -test.failfast).
func batches(runs []testRun) []batch {
	sorted := append([]testRun(nil), runs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].elapsed < sorted[j].elapsed })
	var out []batch
	var cur batch
	var before time.Duration // the time of the batches made
	flush := func() {
		if len(cur.names) > 0 {
			out = append(out, cur)
			before += cur.cost
			cur = batch{}
		}
	}
	for _, r := range sorted {
		if !strings.HasPrefix(r.name, "Test") {
			flush()
			cur = batch{names: []string{r.name}, cost: r.elapsed}
			flush()
			continue
		}
		if cur.cost >= max(minBatch, before) {
			flush()
		}
		cur.names = append(cur.names, r.name)
		cur.cost += r.elapsed
	}
	flush()
	return out
}

// runMutant runs the tests that reach mutant m against it, batch after
// batch (see batches), stopping at the first failure. Each batch has a
// deadline of its own: timeoutCoefficient times its tests' un-mutated
// time plus timeoutFloor.
func (pl *plan) runMutant(m *mutantInfo, runs []testRun) (string, time.Duration, error) {
	var reach []testRun
	for _, r := range runs {
		if r.hits[m.ID] {
			reach = append(reach, r)
		}
	}
	if len(reach) == 0 {
		return statusNotCovered, 0, nil
	}
	start := time.Now()
	for _, b := range batches(reach) {
		status, err := pl.runBatch(m, b)
		if err != nil || status != statusLived {
			return status, time.Since(start), err
		}
	}
	return statusLived, time.Since(start), nil
}

// runBatch runs one batch of tests against mutant m in a process of its
// own: killed when a test fails (or the binary panics or crashes), lived
// when all pass, timed out past the batch's deadline.
func (pl *plan) runBatch(m *mutantInfo, b batch) (string, error) {
	deadline := timeoutCoefficient*b.cost + timeoutFloor
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, pl.bin, append(testArgs(b.names), "-test.failfast")...)
	cmd.Dir = pl.pi.Dir
	cmd.Env = append(os.Environ(), mutantEnv+"="+strconv.Itoa(m.ID))
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	err := cmd.Run()
	switch {
	case ctx.Err() != nil:
		return statusTimedOut, nil
	case err == nil:
		return statusLived, nil
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		// The binary did not start: nothing was tested.
		return "", fmt.Errorf("mutant %d: %w", m.ID, err)
	}
	return statusKilled, nil
}

// unleash runs mutation testing on package dir (with files, only the
// mutants of those files) and returns its result.
func unleash(dir string, files []string, logw io.Writer) (*Result, error) {
	start := time.Now()
	pi, err := loadPackage(dir)
	if err != nil {
		return nil, err
	}
	// The source as mutated: the record describes these files (isStale).
	sources, err := hashSources(dir, files)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "cosim-mutation-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	pl := &plan{pi: pi, mutants: enumerate(pi, files), tmp: tmp}
	if err := pl.build(logw); err != nil {
		return nil, err
	}
	built := time.Since(start)
	names, err := pl.listTests()
	if err != nil {
		return nil, err
	}
	runs, err := pl.record(names, logw)
	if err != nil {
		return nil, err
	}
	recorded := time.Since(start)
	todo := 0
	for _, m := range pl.mutants {
		if m.Status == "" && m.Twin == 0 {
			todo++
		}
	}
	fmt.Fprintf(logw, "%s: %d mutants (%d to run), %d tests; built in %.0f s, tests recorded in %.0f s\n",
		dir, len(pl.mutants), todo, len(names), built.Seconds(), (recorded - built).Seconds())
	jr, err := pl.openJournal(files)
	if err != nil {
		return nil, err
	}
	complete := false
	defer func() { jr.close(complete) }()
	// The time of the outcomes an earlier, interrupted run judged.
	var earlier time.Duration
	if len(jr.done) > 0 {
		fmt.Fprintf(logw, "%d outcomes taken from the journal of an interrupted run of the same code and tests (%s)\n", len(jr.done), jr.path)
	}
	done := 0
	for _, m := range pl.mutants {
		if m.Status != "" {
			continue
		}
		if m.Twin != 0 {
			m.Status = pl.mutants[m.Twin-1].Status
			continue
		}
		if e, ok := jr.done[m.ID]; ok {
			m.Status = e.status
			earlier += e.elapsed
			done++
			continue
		}
		if stopAfter > 0 && done >= stopAfter {
			return nil, errInterrupted
		}
		var took time.Duration
		if m.Status, took, err = pl.runMutant(m, runs); err != nil {
			return nil, err
		}
		if err := jr.add(m.ID, m.Status, took); err != nil {
			return nil, err
		}
		done++
		if verbose || m.Status == statusLived || m.Status == statusTimedOut {
			fmt.Fprintf(logw, "%s:%d:%d %s %s\n", m.File, m.Line, m.Col, m.Mutator, m.Status)
		}
		if done%50 == 0 {
			fmt.Fprintf(logw, "%d/%d mutants, %.0f s\n", done, todo, time.Since(start).Seconds())
		}
	}
	if verbose {
		for _, m := range pl.mutants {
			if m.Reason != "" || m.Twin != 0 || m.Status == statusNotCovered {
				fmt.Fprintf(logw, "%s:%d:%d %s %s %s\n", m.File, m.Line, m.Col, m.Mutator, m.Status, m.Reason)
			}
		}
	}
	r := resultOf(dir, pl.mutants)
	r.LeftOutTests = pl.leftOut
	r.Sources = sources
	r.ElapsedSeconds = float64(int((time.Since(start) + earlier).Seconds() + 0.5))
	complete = true
	return r, nil
}

// resultOf turns the mutants' outcomes into a Result.
func resultOf(dir string, ms []*mutantInfo) *Result {
	r := &Result{Package: dir, Tool: engineTool, Files: map[string]*Counts{}, Survivors: []Mutant{}}
	for _, m := range ms {
		c := r.Files[m.File]
		if c == nil {
			c = &Counts{}
			r.Files[m.File] = c
		}
		switch m.Status {
		case statusKilled:
			c.Killed++
		case statusLived:
			c.Lived++
			r.Survivors = append(r.Survivors, Mutant{File: m.File, Line: m.Line, Col: m.Col, Mutator: m.Mutator, Code: sourceLine(m.File, m.Line)})
		case statusTimedOut:
			c.TimedOut++
		case statusNotCovered:
			c.NotCovered++
		case statusNotViable:
			c.NotViable++
			if r.NotViableReasons == nil {
				r.NotViableReasons = map[string]string{}
			}
			r.NotViableReasons[fmt.Sprintf("%s:%d:%d %s", m.File, m.Line, m.Col, m.Mutator)] = m.Reason
		}
	}
	r.total()
	sortMutants(r.Survivors)
	return r
}

// tryOnly runs the mutants of package dir at the given positions
// ("file.go:line" or "file.go:line:col", the file relative to the
// package) and prints each one's outcome. It records nothing and keeps
// no journal: it is for checking that a new test kills a survivor
// without re-running the whole package (-only).
func tryOnly(dir string, positions []string, logw io.Writer) error {
	pi, err := loadPackage(dir)
	if err != nil {
		return err
	}
	var files []string
	for _, p := range positions {
		f, _, _ := strings.Cut(p, ":")
		if !contains(files, f) {
			files = append(files, f)
		}
	}
	tmp, err := os.MkdirTemp("", "cosim-mutation-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	pl, runs, err := recorded(pi, files, tmp, logw)
	if err != nil {
		return err
	}
	matched := make([]bool, len(positions))
	for _, m := range pl.mutants {
		base := filepath.Base(m.File)
		hit := false
		for i, p := range positions {
			if p == fmt.Sprintf("%s:%d", base, m.Line) || p == fmt.Sprintf("%s:%d:%d", base, m.Line, m.Col) {
				matched[i], hit = true, true
			}
		}
		if !hit {
			continue
		}
		if err := pl.judge(m, runs); err != nil {
			return err
		}
		fmt.Fprintf(logw, "%s:%d:%d %s %s\n", m.File, m.Line, m.Col, m.Mutator, m.Status)
	}
	for i, ok := range matched {
		if !ok {
			return fmt.Errorf("no mutant at %s", positions[i])
		}
	}
	return nil
}

// recheck runs again the untriaged survivors recorded for package dir
// (every survivor not listed in equivalent.txt) and moves those the
// tests now kill (or that time out) out of the record (-recheck). Every
// other outcome of the record stands: it is for the common case of
// tests added to kill survivors, which cannot revive a killed mutant.
// A file whose source changed since its record is refused (re-run it
// with -files), and the files rechecked are named in the record
// (Rechecked) until a run mutates them afresh.
func recheck(dir string, only []string, eq map[string]Equivalent, logw io.Writer) (*Result, error) {
	r, err := readResult(dir)
	if err != nil {
		return nil, err
	}
	return recheckResult(dir, r, only, eq, logw)
}

// recheckResult is recheck on the record r of package dir, which it
// updates and returns; with only, just the survivors in those files.
func recheckResult(dir string, r *Result, only []string, eq map[string]Equivalent, logw io.Writer) (*Result, error) {
	start := time.Now()
	if r.Tool != engineTool {
		return nil, fmt.Errorf("%s: the record was not made by the engine: run the package in full", dir)
	}
	want := map[string]bool{}
	var files []string
	for _, m := range r.Survivors {
		if _, ok := eq[m.Key()]; ok {
			continue
		}
		if len(only) > 0 && !contains(only, filepath.Base(m.File)) {
			continue
		}
		want[m.Key()] = true
		if f := filepath.Base(m.File); !contains(files, f) {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		fmt.Fprintf(logw, "%s: no untriaged survivors to recheck\n", dir)
		return r, nil
	}
	sort.Strings(files)
	hs, err := hashSources(dir, files)
	if err != nil {
		return nil, err
	}
	for p, h := range hs {
		if r.Sources[p] != h {
			return nil, fmt.Errorf("%s changed since its record: re-run it with -files (a recheck keeps the record's other outcomes, which a changed source voids)", p)
		}
	}
	tmp, err := os.MkdirTemp("", "cosim-mutation-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	pi, err := loadPackage(dir)
	if err != nil {
		return nil, err
	}
	pl, runs, err := recorded(pi, files, tmp, logw)
	if err != nil {
		return nil, err
	}
	gone := map[string]string{}
	for _, m := range pl.mutants {
		key := Mutant{File: m.File, Line: m.Line, Col: m.Col, Mutator: m.Mutator}.Key()
		if !want[key] {
			continue
		}
		delete(want, key)
		if err := pl.judge(m, runs); err != nil {
			return nil, err
		}
		fmt.Fprintf(logw, "%s %s\n", key, m.Status)
		if m.Status == statusKilled || m.Status == statusTimedOut {
			gone[key] = m.Status
		}
	}
	if len(want) > 0 {
		for k := range want {
			return nil, fmt.Errorf("recorded survivor %s is not a mutant of the current source", k)
		}
	}
	keep := r.Survivors[:0:0]
	for _, m := range r.Survivors {
		st, ok := gone[m.Key()]
		if !ok {
			keep = append(keep, m)
			continue
		}
		c := r.Files[m.File]
		c.Lived--
		if st == statusKilled {
			c.Killed++
		} else {
			c.TimedOut++
		}
	}
	r.Survivors = keep
	for _, f := range files {
		if !contains(r.Rechecked, f) {
			r.Rechecked = append(r.Rechecked, f)
		}
	}
	sort.Strings(r.Rechecked)
	r.ElapsedSeconds += float64(int(time.Since(start).Seconds() + 0.5))
	r.total()
	fmt.Fprintf(logw, "%s: %d of the rechecked survivors are now killed or time out\n", dir, len(gone))
	return r, nil
}

// recorded instruments package pi (with files, only those of these
// files) in the work directory tmp, builds its test binary and records
// its tests' un-mutated runs: what -only and -recheck need before they
// run a mutant.
func recorded(pi *pkgInfo, files []string, tmp string, logw io.Writer) (*plan, []testRun, error) {
	pl := &plan{pi: pi, mutants: enumerate(pi, files), tmp: tmp}
	if err := pl.build(logw); err != nil {
		return nil, nil, err
	}
	names, err := pl.listTests()
	if err != nil {
		return nil, nil, err
	}
	runs, err := pl.record(names, logw)
	if err != nil {
		return nil, nil, err
	}
	return pl, runs, nil
}

// judge sets m's status unless it has one (not covered, not viable, or
// judged before): its twin's, or the outcome of running it.
func (pl *plan) judge(m *mutantInfo, runs []testRun) error {
	if m.Status == "" && m.Twin != 0 {
		m.Status = pl.mutants[m.Twin-1].Status
	}
	if m.Status != "" {
		return nil
	}
	var err error
	m.Status, _, err = pl.runMutant(m, runs)
	return err
}
