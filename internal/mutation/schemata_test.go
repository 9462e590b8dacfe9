package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const trickyDir = "internal/mutation/testdata/tricky"

// runTricky runs the tricky package's test binary with mutant id active
// and returns what it prints.
func runTricky(t *testing.T, bin string, id int) string {
	t.Helper()
	cmd := exec.Command(bin, "-test.run", "^TestPrint$", "-test.count=1")
	cmd.Dir = trickyDir
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", mutantEnv, id))
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "error: " + err.Error()
	}
	return string(out)
}

// sourceMutant builds the tricky package with mutant m applied to its
// source, as gremlins does (the operator token replaced), and returns
// the test binary, or "" when that does not compile.
func sourceMutant(t *testing.T, m *mutantInfo, dir string) string {
	t.Helper()
	src, err := os.ReadFile(m.File)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(src, []byte("\n"))
	l := lines[m.Line-1]
	from := m.From.String()
	if !bytes.HasPrefix(l[m.Col-1:], []byte(from)) {
		t.Fatalf("%s:%d:%d: no %s there", m.File, m.Line, m.Col, from)
	}
	lines[m.Line-1] = append(append(append([]byte{}, l[:m.Col-1]...), m.To.String()...), l[m.Col-1+len(from):]...)
	mut := filepath.Join(dir, fmt.Sprintf("m%d.go", m.ID))
	if err := os.WriteFile(mut, bytes.Join(lines, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(m.File)
	ov, _ := json.Marshal(map[string]any{"Replace": map[string]string{abs: mut}})
	ovf := filepath.Join(dir, fmt.Sprintf("m%d.json", m.ID))
	os.WriteFile(ovf, ov, 0o644)
	bin := filepath.Join(dir, fmt.Sprintf("m%d.bin", m.ID))
	if out, err := exec.Command("go", "test", "-c", "-overlay", ovf, "-o", bin, "./"+trickyDir).CombinedOutput(); err != nil {
		t.Logf("%s:%d:%d %s does not compile mutated in the source: %s", m.File, m.Line, m.Col, m.Mutator, firstLine(string(out)))
		return ""
	}
	return bin
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// TestSchemata checks the instrumentation on a package of awkward
// operators (nil comparisons, untyped and typed constants, shifts,
// operands with side effects, ++ on map entries and in loop headers,
// named types, generics, NaN): every mutant selected in the one
// instrumented binary prints exactly what the package prints with that
// mutation made in its source, and the un-mutated binary prints what the
// original does. It builds one binary per mutant (about a minute).
func TestSchemata(t *testing.T) {
	if testing.Short() {
		t.Skip("builds one test binary per mutant")
	}
	chdirRoot(t)
	pi, err := loadPackage(trickyDir)
	if err != nil {
		t.Fatal(err)
	}
	pl := &plan{pi: pi, mutants: enumerate(pi, nil), tmp: t.TempDir()}
	var log bytes.Buffer
	if err := pl.build(&log); err != nil {
		t.Fatal(err)
	}
	if log.Len() > 0 {
		t.Errorf("instrumentation withdrew mutants: %s", log.String())
	}
	orig, err := exec.Command("go", "test", "-count=1", "-v", "-run", "^TestPrint$", "./"+trickyDir).Output()
	if err != nil {
		t.Fatal(err)
	}
	want := string(orig)
	want = want[:strings.LastIndex(want, "PASS\n")]
	clean := func(s string) string { return s[:max(0, strings.LastIndex(s, "PASS\n"))] }
	if got := clean(runTricky(t, pl.bin, 0)); got != strings.TrimPrefix(want, "=== RUN   TestPrint\n")[:len(got)] || got == "" {
		t.Fatalf("the instrumented package without a mutant prints\n%s\nthe original\n%s", got, want)
	}
	statuses := map[string]int{}
	dir := t.TempDir()
	for _, m := range pl.mutants {
		statuses[m.Status]++
		if m.Status != "" || m.Twin != 0 {
			continue
		}
		bin := sourceMutant(t, m, dir)
		if bin == "" {
			t.Errorf("%s:%d:%d %s: instrumented, but the source mutant does not compile", m.File, m.Line, m.Col, m.Mutator)
			continue
		}
		if got, want := runTricky(t, pl.bin, m.ID), runTricky(t, bin, 0); got != want {
			t.Errorf("%s:%d:%d %s: schemata prints\n%s\nsource mutant prints\n%s", m.File, m.Line, m.Col, m.Mutator, got, want)
		}
	}
	// The mutants that are not run: the package-level var and const
	// (not covered: three, a minus makes two), the local constant and the string + (not viable).
	if statuses[statusNotCovered] != 3 || statuses[statusNotViable] != 2 {
		for _, m := range pl.mutants {
			if m.Status != "" {
				t.Logf("%s:%d:%d %s %s: %s", m.File, m.Line, m.Col, m.Mutator, m.Status, m.Reason)
			}
		}
		t.Errorf("not covered %d, not viable %d; want 3 and 2", statuses[statusNotCovered], statuses[statusNotViable])
	}
	t.Logf("%d mutants: %v", len(pl.mutants), statuses)
}

// TestEnumerationMatchesGremlins compares the engine's mutants with the
// list gremlins v0.6.0 made of the same packages (its -o JSON, recorded
// in testdata/gremlins; docs/mutation.md says how): the same mutants per
// file, position and mutator.
func TestEnumerationMatchesGremlins(t *testing.T) {
	chdirRoot(t)
	fixtures, err := filepath.Glob("internal/mutation/testdata/gremlins/*.json")
	if err != nil || len(fixtures) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, fx := range fixtures {
		data, err := os.ReadFile(fx)
		if err != nil {
			t.Fatal(err)
		}
		var g gremlinsReport
		if err := json.Unmarshal(data, &g); err != nil {
			t.Fatal(err)
		}
		dir := strings.ReplaceAll(strings.TrimSuffix(filepath.Base(fx), ".json"), "_", "/")
		var want []string
		for _, f := range g.Files {
			for _, m := range f.Mutations {
				want = append(want, fmt.Sprintf("%s/%s:%d:%d %s", dir, filepath.Base(f.Name), m.Line, m.Column, m.Type))
			}
		}
		pi, err := loadPackage(dir)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range enumerate(pi, nil) {
			got = append(got, fmt.Sprintf("%s:%d:%d %s", m.File, m.Line, m.Col, m.Mutator))
		}
		sort.Strings(want)
		sort.Strings(got)
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: mutants differ from gremlins' (-gremlins +engine):\n%s", dir, d)
		}
		t.Logf("%s: %d mutants, as gremlins", dir, len(got))
	}
}

// TestMutantRunOrder runs mutants of testdata/order through the engine:
// a mutant that every test catches is killed by the cheapest test alone
// (TestFastCatch, though TestSlowCatch comes first in the source and the
// example would run after a failed test in one process), and a mutant
// that no test catches runs every test and the example once.
func TestMutantRunOrder(t *testing.T) {
	chdirRoot(t)
	const dir = "internal/mutation/testdata/order"
	logFile := filepath.Join(t.TempDir(), "log")
	t.Setenv("COSIM_ORDER_LOG", logFile)
	pi, err := loadPackage(dir)
	if err != nil {
		t.Fatal(err)
	}
	pl := &plan{pi: pi, mutants: enumerate(pi, nil), tmp: t.TempDir()}
	var log bytes.Buffer
	if err := pl.build(&log); err != nil {
		t.Fatal(err)
	}
	names, err := pl.listTests()
	if err != nil {
		t.Fatal(err)
	}
	runs, err := pl.record(names, &log)
	if err != nil || len(runs) != 3 {
		t.Fatalf("recorded %d tests of %v (%v): %s", len(runs), names, err, log.String())
	}
	ran := func() []string {
		data, _ := os.ReadFile(logFile)
		os.Remove(logFile)
		return strings.Fields(string(data))
	}
	ran()
	var add, scale *mutantInfo
	for _, m := range pl.mutants {
		switch {
		case m.Twin != 0 || m.Status != "":
		case m.Mutator == "ARITHMETIC_BASE" && m.From.String() == "+":
			add = m
		case m.Mutator == "ARITHMETIC_BASE" && m.From.String() == "*":
			scale = m
		}
	}
	if add == nil || scale == nil {
		t.Fatalf("mutants %v: want Add's + and Scale's *", pl.mutants)
	}
	status, _, err := pl.runMutant(add, runs)
	if err != nil || status != statusKilled {
		t.Fatalf("Add's mutant: %s, %v; want killed", status, err)
	}
	if d := cmp.Diff([]string{"TestFastCatch"}, ran()); d != "" {
		t.Errorf("Add's mutant ran (-want +got):\n%s", d)
	}
	status, _, err = pl.runMutant(scale, runs)
	if err != nil || status != statusLived {
		t.Fatalf("Scale's mutant: %s, %v; want lived", status, err)
	}
	got := ran()
	sort.Strings(got)
	if d := cmp.Diff([]string{"ExampleAdd", "TestFastCatch", "TestSlowCatch"}, got); d != "" {
		t.Errorf("Scale's mutant ran (-want +got):\n%s", d)
	}
}

// TestJournalResume: a run stopped after its first mutant keeps that
// outcome in its journal; the next run of the same code takes it from
// there, runs only the other mutants (the log of the tests shows that
// Add's mutant is not run again), gives the result an uninterrupted run
// gives, and removes the journal.
func TestJournalResume(t *testing.T) {
	chdirRoot(t)
	const dir = "internal/mutation/testdata/order"
	logFile := filepath.Join(t.TempDir(), "log")
	t.Setenv("COSIM_ORDER_LOG", logFile)
	journalDir = t.TempDir()
	defer func() { journalDir, stopAfter = "", 0 }()
	var log bytes.Buffer
	full, err := unleash(dir, nil, &log)
	if err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(journalDir); len(ents) != 0 {
		t.Errorf("a complete run left its journal: %v", ents)
	}
	stopAfter = 1
	if _, err := unleash(dir, nil, &log); err != errInterrupted {
		t.Fatalf("interrupted run: %v", err)
	}
	ents, _ := os.ReadDir(journalDir)
	if len(ents) != 1 {
		t.Fatalf("journals after the interrupted run: %v", ents)
	}
	data, _ := os.ReadFile(filepath.Join(journalDir, ents[0].Name()))
	if lines := strings.Split(strings.TrimSpace(string(data)), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], "1 KILLED ") {
		t.Errorf("journal %q: want the first mutant (Add's +) killed", data)
	}
	stopAfter = 0
	os.Remove(logFile)
	log.Reset()
	resumed, err := unleash(dir, nil, &log)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "1 outcomes taken from the journal") {
		t.Errorf("the resumed run did not take the journal:\n%s", log.String())
	}
	// Recording runs each test once; then only Scale's mutant runs, and
	// it runs every test once: two of each name, where re-running Add's
	// mutant would add a TestFastCatch.
	data, _ = os.ReadFile(logFile)
	count := map[string]int{}
	for _, n := range strings.Fields(string(data)) {
		count[n]++
	}
	if d := cmp.Diff(map[string]int{"TestFastCatch": 2, "TestSlowCatch": 2, "ExampleAdd": 2}, count); d != "" {
		t.Errorf("tests run by the resumed run (-want +got):\n%s", d)
	}
	full.ElapsedSeconds, resumed.ElapsedSeconds = 0, 0
	if d := cmp.Diff(full, resumed); d != "" {
		t.Errorf("resumed result differs from the full run's (-full +resumed):\n%s", d)
	}
	if ents, _ := os.ReadDir(journalDir); len(ents) != 0 {
		t.Errorf("the completed resumed run left its journal: %v", ents)
	}
}

// TestRecheck: a record in which Add's mutant (caught by every test)
// is still listed as a survivor, as after tests were added to kill it,
// is rechecked: the mutant is run again, moved to the killed count and
// out of the survivors, giving the full run's record (with the file
// named as rechecked); Scale's mutant, which no test can catch, stays;
// a survivor listed as equivalent is not run again; and a record whose
// source changed is refused.
func TestRecheck(t *testing.T) {
	chdirRoot(t)
	const dir = "internal/mutation/testdata/order"
	t.Setenv("COSIM_ORDER_LOG", filepath.Join(t.TempDir(), "log"))
	journalDir = t.TempDir()
	defer func() { journalDir = "" }()
	var log bytes.Buffer
	full, err := unleash(dir, nil, &log)
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Survivors) != 1 || full.Killed == 0 {
		t.Fatalf("full run: %+v", full)
	}
	clone := func(r *Result) *Result {
		data, _ := json.Marshal(r)
		var c Result
		if err := json.Unmarshal(data, &c); err != nil {
			t.Fatal(err)
		}
		return &c
	}
	// Add's + → − as a survivor of an older record.
	old := clone(full)
	addMut := Mutant{File: dir + "/order.go", Line: 7, Col: 35, Mutator: "ARITHMETIC_BASE", Code: "func Add(a, b int) int { return a + b }"}
	old.Survivors = append([]Mutant{addMut}, old.Survivors...)
	old.Files[dir+"/order.go"].Killed--
	old.Files[dir+"/order.go"].Lived++
	old.total()
	got, err := recheckResult(dir, clone(old), nil, nil, &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	want := clone(full)
	want.Rechecked = []string{"order.go"}
	got.ElapsedSeconds, want.ElapsedSeconds = 0, 0
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("rechecked record differs from the full run's (-want +got):\n%s", d)
	}
	// Both survivors listed as equivalent: nothing to run, record unchanged.
	eq := map[string]Equivalent{addMut.Key(): {}, full.Survivors[0].Key(): {}}
	got, err = recheckResult(dir, clone(old), nil, eq, &log)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(old, got); d != "" {
		t.Errorf("recheck with every survivor equivalent changed the record (-old +got):\n%s", d)
	}
	// A changed source voids the record's other outcomes: refused.
	changed := clone(old)
	changed.Sources[dir+"/order.go"] = "0000"
	if _, err := recheckResult(dir, changed, nil, nil, &log); err == nil || !strings.Contains(err.Error(), "changed since its record") {
		t.Errorf("recheck of a changed source: %v, want refused", err)
	}
}
