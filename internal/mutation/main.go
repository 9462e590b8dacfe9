package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Paths, relative to the repository root.
const (
	resultsDir     = "internal/mutation/testdata/results"
	equivalentFile = "internal/mutation/equivalent.txt"
	reportFile     = "docs/mutation.md"
)

// threshold returns the minimum efficacy (percent, equivalent mutants set
// aside) of package dir.
func threshold(dir string) float64 {
	if dir == "integrators" || dir == "nodes" || strings.HasPrefix(dir, "nodes/") {
		return 95
	}
	return 90
}

// Result is the recorded outcome of one gremlins run on one package.
type Result struct {
	Package        string  `json:"package"`
	Tool           string  `json:"tool"`
	ElapsedSeconds float64 `json:"elapsed_seconds"`
	Killed         int     `json:"killed"`
	Lived          int     `json:"lived"`
	TimedOut       int     `json:"timed_out"`
	NotCovered     int     `json:"not_covered"`
	NotViable      int     `json:"not_viable"`
	// Partial is set when only some files of the package were mutated
	// (-files without a complete recorded result): Files lists them.
	Partial bool `json:"partial,omitempty"`
	// Ran lists the files of a partial result that were mutated (some
	// may have no mutants); once it holds every non-test file of the
	// package the result is complete.
	Ran []string `json:"ran,omitempty"`
	// Files holds the counts per file (slash path from the repository
	// root), so that a run on some files (-files) can replace theirs.
	Files     map[string]*Counts `json:"files"`
	Survivors []Mutant           `json:"survivors"`
	// NotViableReasons says, per mutant ("path:line:col MUTATOR"), why
	// it was not run: the engine could not instrument it.
	NotViableReasons map[string]string `json:"not_viable_reasons,omitempty"`
	// LeftOutTests names the tests that failed without a mutant in the
	// instrumented one-CPU build and so were not used (engine.go).
	LeftOutTests []string `json:"left_out_tests,omitempty"`
	// Sources holds the SHA-256 (hex) of each non-test .go file of the
	// package (slash path from the repository root) as the run mutated
	// it: the record is stale when a file's hash differs, or a file was
	// added or removed (isStale). A run on some files (-files) updates
	// the hashes of those files only. Records made before it existed
	// have none and fall back to git history (-stamp adds them).
	Sources map[string]string `json:"sources,omitempty"`
	// Rechecked names the files whose untriaged survivors were run again
	// (-recheck) after the run that recorded them, the record's other
	// outcomes of those files standing; a run that mutates a file afresh
	// (-files, or the whole package) removes it.
	Rechecked []string `json:"rechecked,omitempty"`
}

// Counts are the mutants of one file by outcome.
type Counts struct {
	Killed     int `json:"killed"`
	Lived      int `json:"lived"`
	TimedOut   int `json:"timed_out"`
	NotCovered int `json:"not_covered"`
	NotViable  int `json:"not_viable"`
}

// Mutant is one surviving mutant.
type Mutant struct {
	File    string `json:"file"` // slash path from the repository root
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	Mutator string `json:"mutator"`
	Code    string `json:"code"` // the source line, trimmed
}

// Key identifies a mutant in equivalent.txt.
func (m Mutant) Key() string { return fmt.Sprintf("%s:%d:%d %s", m.File, m.Line, m.Col, m.Mutator) }

func main() {
	pkgsFlag := flag.String("pkgs", "all", "comma-separated package directories, or all")
	changed := flag.Bool("changed", false, "only packages whose recorded result is stale (see doc.go)")
	budget := flag.Duration("budget", 0, "with -changed: skip packages whose expected run time does not fit (0: no limit)")
	reportOnly := flag.Bool("report", false, "only re-render "+reportFile+" from the recorded results")
	importFlag := flag.String("import", "", "record PKG=FILE: gremlins -o JSON of a run made by hand on ./PKG, then re-render")
	stampFlag := flag.Bool("stamp", false, "write source hashes into the records (of -pkgs) that have none and that git history says are current; run nothing")
	filesFlag := flag.String("files", "", "with one package in -pkgs: mutate only these comma-separated files of it and merge their outcome into its recorded result")
	flag.BoolVar(&verbose, "v", false, "print every mutant's outcome")
	recheckFlag := flag.Bool("recheck", false, "with one package in -pkgs (and optionally -files): run again the untriaged survivors of its record (source unchanged) and move those now killed out of it; the record's other outcomes stand (doc.go)")
	onlyFlag := flag.String("only", "", "with one package in -pkgs: run only the mutants at these comma-separated file.go:line[:col] positions, print their outcomes and record nothing (to check that a new test kills a survivor)")
	flag.Parse()
	if *recheckFlag {
		if *pkgsFlag == "all" || strings.Contains(*pkgsFlag, ",") || *changed || *onlyFlag != "" {
			fmt.Fprintln(os.Stderr, "mutation: -recheck needs exactly one package in -pkgs (and no -changed or -only)")
			os.Exit(2)
		}
		var only []string
		if *filesFlag != "" {
			only = strings.Split(*filesFlag, ",")
		}
		if err := runRecheck(strings.Trim(*pkgsFlag, "./"), only, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "mutation:", err)
			os.Exit(1)
		}
		return
	}
	if *onlyFlag != "" {
		if *pkgsFlag == "all" || strings.Contains(*pkgsFlag, ",") || *changed || *filesFlag != "" {
			fmt.Fprintln(os.Stderr, "mutation: -only needs exactly one package in -pkgs (and no -changed or -files)")
			os.Exit(2)
		}
		if err := tryOnly(*pkgsFlag, strings.Split(*onlyFlag, ","), os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "mutation:", err)
			os.Exit(1)
		}
		return
	}
	if *importFlag != "" {
		if err := importJSON(*importFlag); err != nil {
			fmt.Fprintln(os.Stderr, "mutation:", err)
			os.Exit(1)
		}
		*reportOnly = true
	}
	var files []string
	if *filesFlag != "" {
		files = strings.Split(*filesFlag, ",")
		if *pkgsFlag == "all" || strings.Contains(*pkgsFlag, ",") || *changed {
			fmt.Fprintln(os.Stderr, "mutation: -files needs exactly one package in -pkgs (and no -changed)")
			os.Exit(2)
		}
	}
	if *stampFlag {
		pkgs, err := selectPackages(*pkgsFlag)
		if err == nil {
			err = stamp(pkgs, os.Stdout)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "mutation:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*pkgsFlag, files, *changed, *budget, *reportOnly, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "mutation:", err)
		os.Exit(1)
	}
}

// runRecheck is -recheck: recheck package p's untriaged survivors,
// write its record and re-render the report.
func runRecheck(p string, files []string, out io.Writer) error {
	all, err := allPackages()
	if err != nil {
		return err
	}
	eq, err := readEquivalents(equivalentFile)
	if err != nil {
		return err
	}
	r, err := recheck(p, files, eq, out)
	if err != nil {
		return err
	}
	if err := writeResult(r); err != nil {
		return err
	}
	s := summarize(r, eq)
	fmt.Fprintf(out, "%s: killed %d, lived %d (%d equivalent), timed out %d: %.2f %% without equivalents, threshold %.0f %%\n",
		p, r.Killed, r.Lived, s.equivalent, r.TimedOut, s.adjusted, threshold(p))
	return writeReport(all, eq)
}

func run(pkgsFlag string, files []string, changed bool, budget time.Duration, reportOnly bool, out io.Writer) error {
	all, err := allPackages()
	if err != nil {
		return err
	}
	eq, err := readEquivalents(equivalentFile)
	if err != nil {
		return err
	}
	if reportOnly {
		return writeReport(all, eq)
	}
	pkgs, err := selectPackages(pkgsFlag)
	if err != nil {
		return err
	}
	if changed {
		pkgs = selectStale(pkgs, budget, out)
	}
	var failed []string
	for _, p := range pkgs {
		fmt.Fprintf(out, "== %s: mutation testing ./%s\n", p, p)
		base := baseline(p, eq)
		r, err := unleash(p, files, out)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if len(files) > 0 {
			old, err := readResult(p)
			switch {
			case errors.Is(err, os.ErrNotExist), err == nil && old.Tool != engineTool:
				// No record, or a void gremlins one whose counts must not be
				// mixed with measured ones: the files run are a partial
				// record of their own.
				r.Partial = true
			case err != nil:
				return err
			default:
				legacy := len(old.Sources) == 0 && !old.Partial
				old.merge(r)
				r = old
				if legacy {
					// A record made before source hashes: the files not
					// run keep the git rule's verdict, now as hashes.
					left, err := stampUnchanged(r)
					if err != nil {
						fmt.Fprintf(out, "%s: the other files of the record are not hashed (%v): the record stays stale until a full run\n", p, err)
					} else if len(left) > 0 {
						fmt.Fprintf(out, "%s: %s changed since the record and not run: the record stays stale\n", p, strings.Join(left, ", "))
					}
				}
			}
			if r.Partial {
				r.complete(files)
			}
		}
		if err := writeResult(r); err != nil {
			return err
		}
		s := summarize(r, eq)
		fmt.Fprintf(out, "%s: killed %d, lived %d (%d equivalent), timed out %d, not covered %d: efficacy %.2f %% (%.2f %% without equivalents), threshold %.0f %%, %.0f s\n",
			p, r.Killed, r.Lived, s.equivalent, r.TimedOut, r.NotCovered, s.efficacy, s.adjusted, threshold(p), r.ElapsedSeconds)
		switch {
		case s.pass:
		case base < 0:
			fmt.Fprintf(out, "%s: below its threshold in its first measured record: this record is the baseline the next run must not fall below (survivors in %s)\n", p, reportFile)
		case s.adjusted >= base:
			fmt.Fprintf(out, "%s: below its threshold, not below its last record (%.2f %%): survivors in %s\n", p, base, reportFile)
		default:
			fmt.Fprintf(out, "%s: %.2f %% is below its threshold and below its last record, %.2f %%\n", p, s.adjusted, base)
		}
		if ratchetFails(s.pass, s.adjusted, base) {
			failed = append(failed, p)
		}
	}
	if err := writeReport(all, eq); err != nil {
		return err
	}
	if len(failed) > 0 {
		return fmt.Errorf("below threshold: %s (see %s)", strings.Join(failed, ", "), reportFile)
	}
	return nil
}

// selectPackages returns the packages that -pkgs names ("all": every
// package, in run order).
func selectPackages(pkgsFlag string) ([]string, error) {
	all, err := allPackages()
	if err != nil || pkgsFlag == "all" {
		return all, err
	}
	var pkgs []string
	for _, p := range strings.Split(pkgsFlag, ",") {
		p = strings.Trim(strings.TrimSpace(p), "./")
		if !contains(all, p) {
			return nil, fmt.Errorf("package %q is not one of %s", p, strings.Join(all, ", "))
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}

// baseline returns the adjusted efficacy of package p's recorded result,
// the ratchet a new run below the threshold is held to: −1 when there is
// none to hold it to (no record, a partial one, or a void gremlins one).
// A package at or above its threshold passes; one below it passes only
// when it is not below its last measured record, so that a change may
// not add surviving mutants to a package whose survivors are still being
// killed, while the package's first measured record (which a change
// cannot be blamed for) sets the level.
func baseline(p string, eq map[string]Equivalent) float64 {
	r, err := readResult(p)
	if err != nil || r.Tool != engineTool || r.Partial {
		return -1
	}
	return summarize(r, eq).adjusted
}

// ratchetFails reports whether a run of a package fails: below its
// threshold (pass false) and below its baseline (base ≥ 0, see baseline).
func ratchetFails(pass bool, adjusted, base float64) bool {
	return !pass && base >= 0 && adjusted < base
}

// importJSON records the result of a gremlins run made by hand
// ("PKG=FILE"), with the same flags as unleash uses, on the current
// source.
func importJSON(arg string) error {
	pkg, file, ok := strings.Cut(arg, "=")
	if !ok {
		return fmt.Errorf("-import %q: want PKG=FILE", arg)
	}
	all, err := allPackages()
	if err != nil {
		return err
	}
	if !contains(all, pkg) {
		return fmt.Errorf("package %q is not one of %s", pkg, strings.Join(all, ", "))
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	r, err := parseGremlins(pkg, data)
	if err != nil {
		return err
	}
	return writeResult(r)
}

// allPackages lists the packages under mutation testing, in run order:
// node, integrators, coupling, nodes and every nodes/* package, graph
// last.
func allPackages() ([]string, error) {
	pkgs := []string{"node", "integrators", "coupling", "nodes"}
	ents, err := os.ReadDir("nodes")
	if err != nil {
		return nil, fmt.Errorf("run from the repository root: %w", err)
	}
	for _, e := range ents {
		if e.IsDir() && hasGo(filepath.Join("nodes", e.Name())) {
			pkgs = append(pkgs, "nodes/"+e.Name())
		}
	}
	return append(pkgs, "graph"), nil
}

func hasGo(dir string) bool {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".go") && !strings.HasSuffix(e.Name(), "_test.go") {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// selectStale keeps the packages whose recorded result is stale and, with
// a budget, those whose expected run time fits it, in order.
func selectStale(pkgs []string, budget time.Duration, out io.Writer) []string {
	var keep []string
	left := budget
	for _, p := range pkgs {
		stale, why := isStale(p)
		if !stale {
			fmt.Fprintf(out, "%s: not run: %s\n", p, why)
			continue
		}
		est := 10 * time.Minute
		if r, err := readResult(p); err == nil && r.ElapsedSeconds > 0 {
			est = time.Duration(r.ElapsedSeconds * float64(time.Second))
		}
		if budget > 0 && est > left {
			fmt.Fprintf(out, "%s: stale (%s) but its expected %v exceeds the budget left (%v): run go run ./internal/mutation -pkgs %s\n",
				p, why, est.Round(time.Second), left.Round(time.Second), p)
			continue
		}
		fmt.Fprintf(out, "%s: stale (%s), expected %v\n", p, why, est.Round(time.Second))
		left -= est
		keep = append(keep, p)
	}
	return keep
}

// gremlinsReport is the part of gremlins' -o JSON that we read.
type gremlinsReport struct {
	Elapsed float64 `json:"elapsed_time"`
	Files   []struct {
		Name      string `json:"file_name"`
		Mutations []struct {
			Type   string `json:"type"`
			Status string `json:"status"`
			Line   int    `json:"line"`
			Column int    `json:"column"`
		} `json:"mutations"`
	} `json:"files"`
}

// parseGremlins turns gremlins' JSON for package dir into a Result.
func parseGremlins(dir string, data []byte) (*Result, error) {
	var g gremlinsReport
	if err := json.Unmarshal(data, &g); err != nil {
		return nil, fmt.Errorf("gremlins output: %w", err)
	}
	r := &Result{Package: dir, Tool: "gremlins v0.6.0", ElapsedSeconds: float64(int(g.Elapsed + 0.5)),
		Files: map[string]*Counts{}, Survivors: []Mutant{}}
	for _, f := range g.Files {
		file := filepath.ToSlash(f.Name)
		if !strings.Contains(file, "/") || !strings.HasPrefix(file, dir+"/") {
			file = dir + "/" + filepath.Base(file)
		}
		c := r.Files[file]
		if c == nil {
			c = &Counts{}
			r.Files[file] = c
		}
		for _, m := range f.Mutations {
			switch m.Status {
			case "KILLED":
				c.Killed++
			case "LIVED":
				c.Lived++
				r.Survivors = append(r.Survivors, Mutant{File: file, Line: m.Line, Col: m.Column, Mutator: m.Type, Code: sourceLine(file, m.Line)})
			case "TIMED OUT":
				c.TimedOut++
			case "NOT COVERED":
				c.NotCovered++
			case "NOT VIABLE":
				c.NotViable++
			}
		}
	}
	r.total()
	sortMutants(r.Survivors)
	return r, nil
}

// total sets r's totals from its per-file counts.
func (r *Result) total() {
	r.Killed, r.Lived, r.TimedOut, r.NotCovered, r.NotViable = 0, 0, 0, 0, 0
	for _, c := range r.Files {
		r.Killed += c.Killed
		r.Lived += c.Lived
		r.TimedOut += c.TimedOut
		r.NotCovered += c.NotCovered
		r.NotViable += c.NotViable
	}
}

// complete adds files to r.Ran and clears Partial once every non-test
// Go file of the package has been mutated.
func (r *Result) complete(files []string) {
	if len(r.Ran) == 0 {
		// A result recorded before Ran existed: its files with mutants.
		for f := range r.Files {
			r.Ran = append(r.Ran, filepath.Base(f))
		}
	}
	for _, f := range files {
		if !contains(r.Ran, f) {
			r.Ran = append(r.Ran, f)
		}
	}
	sort.Strings(r.Ran)
	ents, err := os.ReadDir(r.Package)
	if err != nil {
		return
	}
	for _, e := range ents {
		n := e.Name()
		if strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") && !contains(r.Ran, n) {
			return
		}
	}
	r.Partial, r.Ran = false, nil
}

// merge replaces the counts and survivors of the files of part (a run on
// some files of the package) in r.
func (r *Result) merge(part *Result) {
	if r.Files == nil {
		r.Files = map[string]*Counts{}
	}
	keep := r.Survivors[:0:0]
	for _, m := range r.Survivors {
		if _, ok := part.Files[m.File]; !ok {
			keep = append(keep, m)
		}
	}
	for f, c := range part.Files {
		r.Files[f] = c
	}
	keepRe := r.Rechecked[:0:0]
	for _, f := range r.Rechecked {
		if _, ok := part.Files[r.Package+"/"+f]; !ok {
			keepRe = append(keepRe, f)
		}
	}
	r.Rechecked = keepRe
	if r.Partial {
		r.ElapsedSeconds += part.ElapsedSeconds
	}
	r.Survivors = append(keep, part.Survivors...)
	sortMutants(r.Survivors)
	r.LeftOutTests = part.LeftOutTests // a property of the package's tests, as of the latest run
	for k := range r.NotViableReasons {
		file, _, _ := strings.Cut(k, ":")
		if _, ok := part.Files[file]; ok {
			delete(r.NotViableReasons, k)
		}
	}
	for k, v := range part.NotViableReasons {
		if r.NotViableReasons == nil {
			r.NotViableReasons = map[string]string{}
		}
		r.NotViableReasons[k] = v
	}
	for f, h := range part.Sources {
		if r.Sources == nil {
			r.Sources = map[string]string{}
		}
		r.Sources[f] = h
	}
	r.Tool = part.Tool
	r.total()
}

func sortMutants(ms []Mutant) {
	sort.Slice(ms, func(i, j int) bool { return ms[i].before(ms[j]) })
}

// before orders mutants by file, line, column and mutator: the order of
// the results, the report and the gremlins fixtures.
func (a Mutant) before(b Mutant) bool {
	if a.File != b.File {
		return a.File < b.File
	}
	if a.Line != b.Line {
		return a.Line < b.Line
	}
	if a.Col != b.Col {
		return a.Col < b.Col
	}
	return a.Mutator < b.Mutator
}

// sourceLine returns line n of file, trimmed (at most 120 bytes).
func sourceLine(file string, n int) string {
	data, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	lines := strings.Split(string(data), "\n")
	if n < 1 || n > len(lines) {
		return ""
	}
	s := strings.TrimSpace(lines[n-1])
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

func resultPath(dir string) string {
	return filepath.Join(resultsDir, strings.ReplaceAll(dir, "/", "_")+".json")
}

func writeResult(r *Result) error {
	data, err := json.MarshalIndent(r, "", "\t")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(resultsDir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(resultPath(r.Package), append(data, '\n'), 0o644)
}

func readResult(dir string) (*Result, error) {
	data, err := os.ReadFile(resultPath(dir))
	if err != nil {
		return nil, err
	}
	var r Result
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", resultPath(dir), err)
	}
	return &r, nil
}

// Equivalent is one line of equivalent.txt.
type Equivalent struct {
	Key    string // "path:line:col MUTATOR"
	Reason string
	Line   int // line in equivalent.txt
}

// readEquivalents parses equivalent.txt: one "path:line:col MUTATOR
// reason" per line; blank lines and lines starting with # are comments.
func readEquivalents(path string) (map[string]Equivalent, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	eq := map[string]Equivalent{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 3 {
			return nil, fmt.Errorf("%s:%d: want \"path:line:col MUTATOR reason\", got %q", path, n, line)
		}
		loc := strings.Split(fields[0], ":")
		if len(loc) != 3 {
			return nil, fmt.Errorf("%s:%d: location %q is not path:line:col", path, n, fields[0])
		}
		for _, x := range loc[1:] {
			if _, err := strconv.Atoi(x); err != nil {
				return nil, fmt.Errorf("%s:%d: location %q is not path:line:col", path, n, fields[0])
			}
		}
		key := fields[0] + " " + fields[1]
		if _, dup := eq[key]; dup {
			return nil, fmt.Errorf("%s:%d: %s listed twice", path, n, key)
		}
		reason := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(strings.TrimPrefix(line, fields[0])), fields[1]))
		eq[key] = Equivalent{Key: key, Reason: reason, Line: n}
	}
	return eq, sc.Err()
}

type summary struct {
	equivalent         int
	efficacy, adjusted float64
	pass               bool
}

func summarize(r *Result, eq map[string]Equivalent) summary {
	var s summary
	for _, m := range r.Survivors {
		if _, ok := eq[m.Key()]; ok {
			s.equivalent++
		}
	}
	s.efficacy = pct(r.Killed, r.Killed+r.Lived)
	s.adjusted = pct(r.Killed, r.Killed+r.Lived-s.equivalent)
	s.pass = s.adjusted >= threshold(r.Package)
	return s
}

func pct(a, b int) float64 {
	if b == 0 {
		return 100
	}
	return 100 * float64(a) / float64(b)
}

func writeReport(pkgs []string, eq map[string]Equivalent) error {
	results := map[string]*Result{}
	for _, p := range pkgs {
		r, err := readResult(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		results[p] = r
	}
	return os.WriteFile(reportFile, []byte(render(pkgs, results, eq)), 0o644)
}

// render is the Markdown report: a pure function of its arguments.
func render(pkgs []string, results map[string]*Result, eq map[string]Equivalent) string {
	var b strings.Builder
	b.WriteString("<!-- Code generated by go run ./internal/mutation; DO NOT EDIT. -->\n\n")
	b.WriteString("# Mutation testing report\n\n")
	b.WriteString("Generated by `go run ./internal/mutation` from the recorded results in `" + resultsDir + "` and the\n")
	b.WriteString("triage in `" + equivalentFile + "`; `go run ./internal/mutation -report` re-renders it. The engine\n")
	b.WriteString("(internal/mutation/doc.go) makes gremlins v0.6.0's default mutants, compiles them all into one test\n")
	b.WriteString("binary (mutant schemata) and runs each against the tests that reach it, one process at a time.\n")
	b.WriteString("Efficacy is killed / (killed + lived); the adjusted efficacy sets the equivalent mutants aside,\n")
	b.WriteString("killed / (killed + lived − equivalent), and is held to the threshold (95 % for integrators and the\n")
	b.WriteString("node packages, 90 % elsewhere); a package below it (pass: no) is held to a ratchet, and a run\n")
	b.WriteString("fails when it falls below the package's last record (doc.go). Not-covered mutants are outside every function body (package-level\n")
	b.WriteString("constants and variables, as gremlins) or reached by no test of the package. Not-viable mutants are\n")
	b.WriteString("not run: a + on strings (its - does not compile), an operator in a constant declared in a function\n")
	b.WriteString("(it cannot switch at run time), or instrumentation that does not compile (the result file gives\n")
	b.WriteString("each reason). Timed-out mutants ran past 10 times their tests' un-mutated time plus 10 s: an endless\n")
	b.WriteString("loop, or a starved machine. A record whose tool is gremlins v0.6.0 is void: gremlins was run with\n")
	b.WriteString("--test-cpu 1, which made every go test invocation fail, so every covered mutant was reported killed.\n\n")
	b.WriteString("| package | tool | killed | lived | equivalent | timed out | not covered | not viable | efficacy | adjusted | threshold | pass | run time |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|\n")
	var untriaged []Mutant
	used := map[string]bool{}
	for _, p := range pkgs {
		r := results[p]
		if r == nil {
			fmt.Fprintf(&b, "| %s | | | | | | | | | | %.0f %% | not run | |\n", p, threshold(p))
			continue
		}
		s := summarize(r, eq)
		pass := "yes"
		if !s.pass {
			pass = "**no**"
		}
		label := p
		if r.Partial {
			ran := r.Ran
			if len(ran) == 0 {
				for f := range r.Files {
					ran = append(ran, filepath.Base(f))
				}
				sort.Strings(ran)
			}
			label += " (partial: " + strings.Join(ran, ", ") + ")"
		}
		if len(r.Rechecked) > 0 {
			label += " (survivors rechecked: " + strings.Join(r.Rechecked, ", ") + ")"
		}
		if r.Tool != engineTool {
			// A void record's counts were never measured (doc.go): show
			// none of them, so that no one reads its "100 %".
			fmt.Fprintf(&b, "| %s | %s (void) | | | | | | | not measured | not measured | %.0f %% | **not measured** | |\n", label, r.Tool, threshold(p))
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d | %d | %d | %.2f %% | %.2f %% | %.0f %% | %s | %.0f s |\n",
			label, "engine", r.Killed, r.Lived, s.equivalent, r.TimedOut, r.NotCovered, r.NotViable, s.efficacy, s.adjusted, threshold(p), pass, r.ElapsedSeconds)
		for _, m := range r.Survivors {
			if _, ok := eq[m.Key()]; ok {
				used[m.Key()] = true
			} else {
				untriaged = append(untriaged, m)
			}
		}
	}
	var leftOut []string
	for _, p := range pkgs {
		if r := results[p]; r != nil && len(r.LeftOutTests) > 0 {
			leftOut = append(leftOut, fmt.Sprintf("%s: %s", p, strings.Join(r.LeftOutTests, ", ")))
		}
	}
	if len(leftOut) > 0 {
		b.WriteString("\nTests left out (they fail with no mutant in the instrumented one-CPU build, so they cannot tell\n")
		b.WriteString("a mutant from the original; a mutant only they reach counts as not covered): " + strings.Join(leftOut, "; ") + ".\n")
	}
	b.WriteString("\n## Surviving mutants\n\n")
	for _, p := range pkgs {
		r := results[p]
		if r == nil || len(r.Survivors) == 0 {
			continue
		}
		fmt.Fprintf(&b, "### %s\n\n| where | mutator | code | triage |\n|---|---|---|---|\n", p)
		for _, m := range r.Survivors {
			triage := "**untriaged**: kill it with a test or list it in " + equivalentFile
			if e, ok := eq[m.Key()]; ok {
				triage = "equivalent: " + e.Reason
			}
			fmt.Fprintf(&b, "| %s:%d:%d | %s | `%s` | %s |\n", m.File, m.Line, m.Col, m.Mutator, strings.ReplaceAll(m.Code, "|", `\|`), strings.ReplaceAll(triage, "|", `\|`))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "## Untriaged\n\n%d surviving mutants are neither killed nor listed as equivalent.\n", len(untriaged))
	var stale []string
	for k := range eq {
		if !used[k] {
			stale = append(stale, k)
		}
	}
	sort.Strings(stale)
	if len(stale) > 0 {
		fmt.Fprintf(&b, "\n## Stale equivalents\n\nThese entries of %s name no recorded survivor (the code moved or a test now kills them): %s.\n",
			equivalentFile, strings.Join(stale, "; "))
	}
	return b.String()
}
