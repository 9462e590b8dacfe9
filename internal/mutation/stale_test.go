package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// inScratchRepo runs the test in a fresh directory holding a git
// repository (the command's paths are relative to the working
// directory) and returns a function that runs git there.
func inScratchRepo(t *testing.T) func(args ...string) {
	t.Helper()
	dir := t.TempDir()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chdir(wd) })
	for k, v := range map[string]string{
		"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
		"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
		"GIT_CONFIG_GLOBAL": os.DevNull, "GIT_CONFIG_NOSYSTEM": "1",
	} {
		t.Setenv(k, v)
	}
	g := func(args ...string) {
		t.Helper()
		var out bytes.Buffer
		cmd := exec.Command("git", args...)
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out.String())
		}
	}
	g("init", "-q")
	return g
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func wantStale(t *testing.T, dir string, stale bool, why string) {
	t.Helper()
	s, w := isStale(dir)
	if s != stale || !strings.Contains(w, why) {
		t.Errorf("isStale(%s) = %v, %q; want %v, %q", dir, s, w, stale, why)
	}
}

// TestStaleBySource: a record with source hashes is stale exactly when a
// non-test .go file of its package changed, was added or was removed,
// whatever git says; the reason names the file.
func TestStaleBySource(t *testing.T) {
	g := inScratchRepo(t)
	writeFile(t, "p/a.go", "package p\n\nfunc A() int { return 1 }\n")
	writeFile(t, "p/b.go", "package p\n\nfunc B() int { return 2 }\n")
	writeFile(t, "p/a_test.go", "package p\n")
	src, err := hashSources("p", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(src) != 2 || src["p/a.go"] == "" || src["p/b.go"] == "" {
		t.Fatalf("hashes %v: want p/a.go and p/b.go, not the test file", src)
	}
	// The record is committed before the source: the git rule calls it
	// stale (the case of a re-run that rewrites a byte-identical result,
	// which git sees no new commit of); the hashes say it is current.
	r := &Result{Package: "p", Tool: engineTool, Files: map[string]*Counts{}, Survivors: []Mutant{}, Sources: src}
	if err := writeResult(r); err != nil {
		t.Fatal(err)
	}
	g("add", "-A", resultsDir)
	g("commit", "-qm", "record")
	g("add", "-A")
	g("commit", "-qm", "source")
	if stale, why, _ := staleByGit("p"); !stale {
		t.Fatalf("the git rule says current (%s): the test shows nothing", why)
	}
	wantStale(t, "p", false, "no source change since the record")

	writeFile(t, "p/a_test.go", "package p\n\n// a test file changed\n")
	wantStale(t, "p", false, "no source change")
	writeFile(t, "p/b.go", "package p\n\nfunc B() int { return 3 }\n")
	wantStale(t, "p", true, "p/b.go changed since the record")
	writeFile(t, "p/b.go", "package p\n\nfunc B() int { return 2 }\n")
	wantStale(t, "p", false, "no source change")
	writeFile(t, "p/c.go", "package p\n")
	wantStale(t, "p", true, "p/c.go has no recorded hash")
	os.Remove("p/c.go")
	os.Remove("p/a.go")
	wantStale(t, "p", true, "p/a.go removed since the record")
}

// TestFilesRunUpdatesItsHashes: a run on some files (-files) replaces
// the hashes of those files only, so a package whose other files
// changed stays stale.
func TestFilesRunUpdatesItsHashes(t *testing.T) {
	inScratchRepo(t)
	writeFile(t, "p/a.go", "package p\n\nfunc A() int { return 1 }\n")
	writeFile(t, "p/b.go", "package p\n\nfunc B() int { return 2 }\n")
	src, _ := hashSources("p", nil)
	whole := &Result{Package: "p", Tool: engineTool, Files: map[string]*Counts{"p/a.go": {Killed: 1}, "p/b.go": {Killed: 1}}, Sources: src}
	writeFile(t, "p/a.go", "package p\n\nfunc A() int { return 10 }\n")
	writeFile(t, "p/b.go", "package p\n\nfunc B() int { return 20 }\n")
	partSrc, err := hashSources("p", []string{"a.go"})
	if err != nil {
		t.Fatal(err)
	}
	if len(partSrc) != 1 {
		t.Fatalf("hashes of -files a.go: %v", partSrc)
	}
	whole.merge(&Result{Package: "p", Tool: engineTool, Files: map[string]*Counts{"p/a.go": {Killed: 1}}, Sources: partSrc})
	if whole.Sources["p/a.go"] != partSrc["p/a.go"] || whole.Sources["p/b.go"] != src["p/b.go"] {
		t.Errorf("merged hashes %v: want a.go's new one and b.go's old one", whole.Sources)
	}
	if err := writeResult(whole); err != nil {
		t.Fatal(err)
	}
	wantStale(t, "p", true, "p/b.go changed since the record")
	bSrc, _ := hashSources("p", []string{"b.go"})
	whole.merge(&Result{Package: "p", Tool: engineTool, Files: map[string]*Counts{"p/b.go": {Killed: 1}}, Sources: bSrc})
	writeResult(whole)
	wantStale(t, "p", false, "no source change")
}

// TestStamp: -stamp writes hashes into the records without them that
// git history says are current, and leaves stale, void and partial
// records as they are; a record without hashes keeps the git rule, and
// stampUnchanged hashes only the files git says did not change.
func TestStamp(t *testing.T) {
	g := inScratchRepo(t)
	for _, p := range []string{"cur", "old", "void"} {
		writeFile(t, p+"/a.go", "package "+p+"\n")
		writeFile(t, p+"/b.go", "package "+p+"\n\nvar B = 1\n")
		tool := engineTool
		if p == "void" {
			tool = "gremlins v0.6.0"
		}
		if err := writeResult(&Result{Package: p, Tool: tool, Files: map[string]*Counts{}, Survivors: []Mutant{}}); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, "part/a.go", "package part\n")
	writeResult(&Result{Package: "part", Tool: engineTool, Partial: true, Files: map[string]*Counts{}, Survivors: []Mutant{}})
	g("add", "-A")
	g("commit", "-qm", "records")
	writeFile(t, "old/b.go", "package old\n\nvar B = 2\n")
	g("commit", "-qam", "old/b.go changes after its record")

	wantStale(t, "cur", false, "no source change since")
	wantStale(t, "old", true, "old/b.go changed since")
	var out bytes.Buffer
	if err := stamp([]string{"cur", "old", "void", "part", "none"}, &out); err != nil {
		t.Fatal(err)
	}
	t.Log(out.String())
	for _, want := range []string{
		"cur: stamped with the SHA-256 of its 2 files",
		"old: not stamped: old/b.go changed since",
		"void: not stamped: recorded by gremlins v0.6.0",
		"part: not stamped: the recorded result is partial",
		"none: no recorded result",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stamp output lacks %q", want)
		}
	}
	cur, err := readResult("cur")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := hashSources("cur", nil)
	if d := cmp.Diff(want, cur.Sources); d != "" {
		t.Errorf("cur's stamped hashes (-want +got):\n%s", d)
	}
	for _, p := range []string{"old", "void", "part"} {
		if r, _ := readResult(p); len(r.Sources) != 0 {
			t.Errorf("%s stamped: %v", p, r.Sources)
		}
	}
	// Stamped, cur is judged by its source, not by the commit of its
	// record: a later commit that only touches a test file, or none at
	// all, leaves it current, a source change makes it stale.
	wantStale(t, "cur", false, "SHA-256")
	out.Reset()
	stamp([]string{"cur"}, &out)
	if !strings.Contains(out.String(), "cur: already stamped (stale false") {
		t.Errorf("second stamp: %s", out.String())
	}
	writeFile(t, "cur/b.go", "package cur\n\nvar B = 3\n")
	wantStale(t, "cur", true, "cur/b.go changed since the record")

	// A -files run on a record without hashes: the files run carry
	// theirs, the others are hashed where git says they did not change.
	old, _ := readResult("old")
	aSrc, _ := hashSources("old", []string{"a.go"})
	old.merge(&Result{Package: "old", Tool: engineTool, Files: map[string]*Counts{}, Sources: aSrc})
	left, err := stampUnchanged(old)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"old/b.go"}, left); d != "" {
		t.Errorf("files left unhashed (-want +got):\n%s", d)
	}
	if len(old.Sources) != 1 || old.Sources["old/a.go"] != aSrc["old/a.go"] {
		t.Errorf("hashes %v: want old/a.go's only", old.Sources)
	}
	writeResult(old)
	wantStale(t, "old", true, "old/b.go has no recorded hash")
}

// TestBudgetSkipsLongPackages: with -changed -budget, a stale package
// whose recorded run time exceeds the budget left is skipped with the
// command to run it, not run and not failed; one that fits is kept.
func TestBudgetSkipsLongPackages(t *testing.T) {
	inScratchRepo(t)
	for p, secs := range map[string]float64{"long": 5400, "short": 60} {
		writeFile(t, p+"/a.go", "package "+p+"\n")
		src, _ := hashSources(p, nil)
		writeResult(&Result{Package: p, Tool: engineTool, ElapsedSeconds: secs, Files: map[string]*Counts{}, Survivors: []Mutant{}, Sources: src})
		writeFile(t, p+"/a.go", "package "+p+"\n\nvar X = 1\n")
	}
	var out bytes.Buffer
	keep := selectStale([]string{"long", "short"}, 25*time.Minute, &out)
	if d := cmp.Diff([]string{"short"}, keep); d != "" {
		t.Errorf("kept (-want +got):\n%s", d)
	}
	if !strings.Contains(out.String(), "long: stale (long/a.go changed since the record (its SHA-256 differs)) but its expected 1h30m0s exceeds the budget left (25m0s): run go run ./internal/mutation -pkgs long") {
		t.Errorf("output:\n%s", out.String())
	}
}
