package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cosimgo/cosim/nodes"
)

// With --set, a scene's problems are reported all at once, as without:
// the structural ones (run.workers) came alone first, the parameters only
// once they were fixed.
func TestSetReportsEveryProblem(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.json")
	os.WriteFile(p, []byte(`{"nodes": [{"name": "mass", "type": "masspoint", "params": {"mass": -1}}],
 "run": {"dt": 0.01, "end": 1, "workers": -2}}`), 0o644)
	for _, args := range [][]string{{"run", p}, {"run", p, "--set", "run.end=2"}} {
		code, _, errs := cosim(t, args...)
		if code != 1 {
			t.Errorf("%q: exit %d", args, code)
		}
		mustContain(t, strings.Join(args, " "), errs, "run.workers: -2 is negative", `nodes[0].params: masspoint: parameter "mass" = -1 is out of range`)
	}
}

// --set run.coupling=null takes a scene's coupling section out, so that
// the scene can run monolithically; null was the string "null".
func TestSetNullCoupling(t *testing.T) {
	sc := "../../examples/scenes/mass-spring-chain.json"
	code, out, errs := cosim(t, "run", sc, "-q", "--set", "run.coupling=null", "--set", "run.mode=monolithic",
		"--set", `run.integrator={"method": "rk4"}`, "--set", "run.end=0.1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	mustContain(t, "summary", out, "monolithic")
	// "coupling": {} is Jacobi, the default.
	p := filepath.Join(t.TempDir(), "c.json")
	os.WriteFile(p, []byte(`{"nodes": [{"name": "m", "type": "masspoint"}], "run": {"dt": 0.1, "end": 1, "coupling": {}}}`), 0o644)
	if code, out, errs := cosim(t, "run", p, "-q"); code != 0 || !strings.Contains(out, "co-simulation (jacobi)") {
		t.Errorf("coupling {}: exit %d, %s %s", code, out, errs)
	}
}

// With TERM=dumb the bar draws no escape sequence (it wrote ESC[K): a
// line is padded with spaces over the one before it, and the bar is
// erased with spaces.
func TestProgressDumbTerminal(t *testing.T) {
	t.Setenv("TERM", "dumb")
	var w syncBuffer
	clock := &fakeClock{t: time.Unix(0, 0)}
	ticks := make(chan time.Time)
	b := startProgressForTest(&w, clock, ticks)
	ticks <- clock.now() // the bar has read its start time (and draws nothing yet)
	clock.add(1100 * time.Millisecond)
	ticks <- clock.now()
	b.stop()
	out := w.String()
	if strings.Contains(out, "\x1b") {
		t.Errorf("escape sequence on a dumb terminal: %q", out)
	}
	draws := strings.Split(out, "\r")
	if len(draws) != 4 || !strings.HasPrefix(draws[1], "[") || strings.TrimSpace(draws[2]) != "" || len(draws[2]) != len(draws[1]) || draws[3] != "" {
		t.Errorf("want a draw and an erase of spaces: %q", out)
	}
	// Over a longer line, a shorter one is padded to its length.
	b = &progressBar{plain: true}
	if got := b.pad("short", 9); got != "short    " {
		t.Errorf("pad = %q", got)
	}
}

// startProgressForTest starts a time bar (end 2, at 0.125) on a fake
// clock and ticker, as newProgress would on a terminal.
func startProgressForTest(w *syncBuffer, clock *fakeClock, ticks chan time.Time) *progressBar {
	b := &progressBar{w: w, end: 2, done: make(chan struct{}), now: clock.now, ticks: ticks, plain: dumbTerminal()}
	b.p.Report(0.125)
	b.start()
	return b
}

// Help lists the flags as the README writes them: --print, not -print;
// -o stays one dash. cosim --version prints the version.
func TestHelpFlagForm(t *testing.T) {
	_, _, errs := cosim(t, "help", "demo")
	mustContain(t, "help demo", errs, "\n  --print\n", "\n  -o FILE\n")
	if strings.Contains(errs, "  -print") {
		t.Errorf("help shows -print:\n%s", errs)
	}
	code, out, _ := cosim(t, "--version")
	if code != 0 || !strings.HasPrefix(out, "cosim ") || !strings.Contains(out, "go1.") {
		t.Errorf("--version: exit %d, %q", code, out)
	}
}

// run -o h.json wrote CSV under a JSON name: the format comes from the
// extension (.csv, .jsonl, .ndjson) or --format, else it is refused.
func TestHistoryFormatFromName(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		out, format string
		code        int
		starts      string
	}{
		{"h.json", "", 2, ""},
		{"h.txt", "", 2, ""},
		{"h.csv", "", 0, "t,"},
		{"h.jsonl", "", 0, "{\"t\":"},
		{"h.ndjson", "", 0, "{\"t\":"},
		{"h.json", "jsonl", 0, "{\"t\":"},
		{"h", "", 0, "t,"},
	} {
		p := filepath.Join(dir, c.out)
		os.Remove(p)
		args := []string{"run", springScene, "-q", "-o", p, "--set", "run.end=0.01"}
		if c.format != "" {
			args = append(args, "--format", c.format)
		}
		code, _, errs := cosim(t, args...)
		if code != c.code {
			t.Errorf("-o %s --format %q: exit %d, %s", c.out, c.format, code, errs)
			continue
		}
		b, err := os.ReadFile(p)
		if c.code != 0 {
			if err == nil {
				t.Errorf("-o %s: written", c.out)
			}
			mustContain(t, c.out, errs, "rename the file or give --format csv|jsonl")
			continue
		}
		if !strings.HasPrefix(string(b), c.starts) {
			t.Errorf("-o %s --format %q: %.30q", c.out, c.format, b)
		}
	}
}

// cosim nodes --json lists the catalog with the text listing's content,
// each field documented in docs/describe-json.md.
func TestNodesJSON(t *testing.T) {
	code, out, errs := cosim(t, "nodes", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var list []map[string]any
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	reg := nodes.Registry()
	if len(list) != len(reg.Names()) {
		t.Fatalf("%d entries for %d types", len(list), len(reg.Names()))
	}
	doc, err := os.ReadFile("../../docs/describe-json.md")
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range reg.Names() {
		s, _ := reg.Spec(name)
		if list[i]["type"] != name || list[i]["algorithm"] != s.Meta.AlgorithmID {
			t.Errorf("entry %d: %v, want %s (%s)", i, list[i], name, s.Meta.AlgorithmID)
		}
		for k := range list[i] {
			if !strings.Contains(string(doc), "| `"+k+"` |") {
				t.Errorf("field %q is not documented in docs/describe-json.md", k)
			}
		}
	}
	if list[slices.Index(reg.Names(), "springdamper")]["connector"] != true {
		t.Error("springdamper is not listed as a connector")
	}
}

// Outside the module, guide without -o refuses instead of making
// ./docs/nodes in the working directory.
func TestGuideNeedsDirOutsideModule(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	code, _, errs := cosim(t, "guide")
	if code != 2 || !strings.Contains(errs, "outside the cosim module there is no docs/nodes") {
		t.Errorf("exit %d, %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "docs")); err == nil {
		t.Error("./docs was made")
	}
}
