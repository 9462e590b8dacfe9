package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The tests run in internal/mutation; the command's paths are relative
// to the repository root.
func chdirRoot(t *testing.T) {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(wd, "..", "..")
	if err := os.Chdir(root); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chdir(wd) })
}

func loadAll(t *testing.T) ([]string, map[string]*Result, map[string]Equivalent) {
	t.Helper()
	pkgs, err := allPackages()
	if err != nil {
		t.Fatal(err)
	}
	eq, err := readEquivalents(equivalentFile)
	if err != nil {
		t.Fatal(err)
	}
	results := map[string]*Result{}
	for _, p := range pkgs {
		r, err := readResult(p)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		results[p] = r
	}
	return pkgs, results, eq
}

// TestReportUpToDate fails when docs/mutation.md is not what the
// recorded results and equivalent.txt render to.
func TestReportUpToDate(t *testing.T) {
	chdirRoot(t)
	pkgs, results, eq := loadAll(t)
	got, err := os.ReadFile(reportFile)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(render(pkgs, results, eq), string(got)); d != "" {
		t.Errorf("%s is stale: run go run ./internal/mutation -report (-want +got):\n%s", reportFile, d)
	}
}

// TestEquivalentsNameSurvivors: every entry of equivalent.txt gives a
// reason and names a survivor of a recorded result, so the list cannot
// hide a mutant that a test now kills or that moved.
func TestEquivalentsNameSurvivors(t *testing.T) {
	chdirRoot(t)
	_, results, eq := loadAll(t)
	survivors := map[string]bool{}
	for _, r := range results {
		for _, m := range r.Survivors {
			survivors[m.Key()] = true
		}
	}
	for k, e := range eq {
		if len(strings.Fields(e.Reason)) < 3 {
			t.Errorf("%s:%d: %s: the reason %q is not an explanation", equivalentFile, e.Line, k, e.Reason)
		}
		if !survivors[k] {
			t.Errorf("%s:%d: %s names no recorded survivor (stale: remove it)", equivalentFile, e.Line, k)
		}
	}
}

// TestEveryCorePackageListed: node, integrators, coupling, graph and
// every nodes/* package are under mutation testing, graph last.
func TestEveryCorePackageListed(t *testing.T) {
	chdirRoot(t)
	pkgs, err := allPackages()
	if err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir("nodes")
	want := 5 // node, integrators, coupling, nodes, graph
	for _, e := range ents {
		if e.IsDir() && hasGo(filepath.Join("nodes", e.Name())) {
			want++
			if !contains(pkgs, "nodes/"+e.Name()) {
				t.Errorf("nodes/%s missing from %v", e.Name(), pkgs)
			}
		}
	}
	if len(pkgs) != want || pkgs[len(pkgs)-1] != "graph" {
		t.Errorf("packages %v, want %d ending with graph", pkgs, want)
	}
	for _, p := range []string{"node", "integrators", "coupling", "nodes"} {
		if !contains(pkgs, p) {
			t.Errorf("%s missing", p)
		}
	}
}

// TestParseGremlins reads gremlins' JSON: statuses counted, survivors
// located in the package, thresholds and efficacies computed as doc.go
// says.
func TestParseGremlins(t *testing.T) {
	chdirRoot(t)
	const js = `{"go_module":"github.com/cosimgo/cosim","elapsed_time":12.4,"files":[
	 {"file_name":"accel.go","mutations":[
	  {"type":"CONDITIONALS_BOUNDARY","status":"LIVED","line":311,"column":8},
	  {"type":"ARITHMETIC_BASE","status":"KILLED","line":307,"column":20},
	  {"type":"ARITHMETIC_BASE","status":"KILLED","line":308,"column":20},
	  {"type":"INVERT_NEGATIVES","status":"TIMED OUT","line":1,"column":1},
	  {"type":"INVERT_NEGATIVES","status":"NOT COVERED","line":2,"column":1},
	  {"type":"INVERT_NEGATIVES","status":"NOT VIABLE","line":3,"column":1}]}]}`
	r, err := parseGremlins("coupling", []byte(js))
	if err != nil {
		t.Fatal(err)
	}
	want := &Result{Package: "coupling", Tool: "gremlins v0.6.0", ElapsedSeconds: 12, Killed: 2, Lived: 1, TimedOut: 1, NotCovered: 1, NotViable: 1,
		Files:     map[string]*Counts{"coupling/accel.go": {Killed: 2, Lived: 1, TimedOut: 1, NotCovered: 1, NotViable: 1}},
		Survivors: []Mutant{{File: "coupling/accel.go", Line: 311, Col: 8, Mutator: "CONDITIONALS_BOUNDARY", Code: sourceLine("coupling/accel.go", 311)}}}
	if d := cmp.Diff(want, r); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	s := summarize(r, map[string]Equivalent{})
	if s.efficacy != 100*2.0/3 || s.adjusted != s.efficacy || s.pass {
		t.Errorf("summary %+v, want efficacy 66.7 %% failing 90 %%", s)
	}
	s = summarize(r, map[string]Equivalent{r.Survivors[0].Key(): {Reason: "a reason"}})
	if s.equivalent != 1 || s.adjusted != 100 || !s.pass {
		t.Errorf("summary with the survivor equivalent %+v, want 100 %% passing", s)
	}
	// A run on some files replaces their counts and survivors only.
	whole := &Result{Package: "coupling", Files: map[string]*Counts{
		"coupling/accel.go":    {Killed: 5, Lived: 2},
		"coupling/strategy.go": {Killed: 7, Lived: 1},
	}, Survivors: []Mutant{{File: "coupling/accel.go", Line: 1}, {File: "coupling/accel.go", Line: 2}, {File: "coupling/strategy.go", Line: 3}}}
	whole.merge(r)
	if whole.Killed != 9 || whole.Lived != 2 || whole.TimedOut != 1 || len(whole.Survivors) != 2 ||
		whole.Survivors[0].File != "coupling/accel.go" || whole.Survivors[0].Line != 311 || whole.Survivors[1].Line != 3 {
		t.Errorf("merged %+v", whole)
	}
	// A partial result is complete once every non-test file has run.
	var tableFiles []string // every non-test file of nodes/table
	ents, _ := os.ReadDir("nodes/table")
	for _, e := range ents {
		if n := e.Name(); strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			tableFiles = append(tableFiles, n)
		}
	}
	part := &Result{Package: "nodes/table", Partial: true}
	part.complete(tableFiles)
	if part.Partial {
		t.Errorf("nodes/table still partial after all its files (files %v, ran %v)", ents, part.Ran)
	}
	part = &Result{Package: "coupling", Partial: true}
	part.complete([]string{"accel.go"})
	if !part.Partial || len(part.Ran) != 1 {
		t.Errorf("coupling complete after accel.go alone: %+v", part)
	}
	if threshold("integrators") != 95 || threshold("nodes/ball") != 95 || threshold("nodes") != 95 || threshold("graph") != 90 || threshold("coupling") != 90 {
		t.Error("thresholds differ from doc.go")
	}
}

// The ratchet: a package at its threshold passes; below it, a run fails
// only when it is below the package's last measured record, and the
// first measured record (base −1) sets the level.
func TestRatchet(t *testing.T) {
	for _, c := range []struct {
		pass           bool
		adjusted, base float64
		fails          bool
	}{
		{true, 96, 99, false},
		{false, 85, -1, false},
		{false, 85, 85, false},
		{false, 86, 85, false},
		{false, 84.99, 85, true},
	} {
		if got := ratchetFails(c.pass, c.adjusted, c.base); got != c.fails {
			t.Errorf("pass %v, adjusted %v, base %v: fails %v, want %v", c.pass, c.adjusted, c.base, got, c.fails)
		}
	}
}

// TestBatches: a mutant's tests run cheapest first, an example or fuzz
// target alone (so that a failing test ends the run before it), and
// cheap tests share a process until their time reaches that of the
// batches before them.
func TestBatches(t *testing.T) {
	ms := time.Millisecond
	runs := []testRun{
		{name: "TestSlow", elapsed: 4000 * ms},
		{name: "ExampleSlow", elapsed: 3000 * ms},
		{name: "TestA", elapsed: 30 * ms},
		{name: "TestB", elapsed: 30 * ms},
		{name: "TestC", elapsed: 50 * ms},
		{name: "TestD", elapsed: 200 * ms},
		{name: "TestE", elapsed: 300 * ms},
		{name: "ExampleFast", elapsed: 1 * ms},
		{name: "FuzzF", elapsed: 250 * ms},
		{name: "TestG", elapsed: 500 * ms},
	}
	var got [][]string
	for _, b := range batches(runs) {
		got = append(got, b.names)
		var sum time.Duration
		for _, n := range b.names {
			for _, r := range runs {
				if r.name == n {
					sum += r.elapsed
				}
			}
		}
		if sum != b.cost {
			t.Errorf("batch %v: cost %v, want the sum of its tests' times %v", b.names, b.cost, sum)
		}
	}
	// Sorted: ExampleFast 1, TestA 30, TestB 30 (list order), TestC 50,
	// TestD 200, FuzzF 250, TestE 300, TestG 500, ExampleSlow 3000,
	// TestSlow 4000. TestA+TestB+TestC (110 ms) reach minBatch, so TestD
	// starts a batch, which FuzzF (alone) closes; TestE starts a batch
	// that does not reach the 561 ms before it until TestG (800 ms);
	// ExampleSlow alone; TestSlow last.
	want := [][]string{
		{"ExampleFast"},
		{"TestA", "TestB", "TestC"},
		{"TestD"},
		{"FuzzF"},
		{"TestE", "TestG"},
		{"ExampleSlow"},
		{"TestSlow"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("batches (-want +got):\n%s", d)
	}
	// Every test runs exactly once, whatever the times.
	seen := map[string]int{}
	for _, b := range got {
		for _, n := range b {
			seen[n]++
		}
	}
	for _, r := range runs {
		if seen[r.name] != 1 {
			t.Errorf("%s runs %d times", r.name, seen[r.name])
		}
	}
}
