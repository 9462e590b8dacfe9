package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cosimgo/cosim/anomalies"
	"github.com/cosimgo/cosim/docs"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/verification"
)

// cosim runs the command with args and returns its exit code and output.
func cosim(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func mustContain(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q; it is:\n%s", what, w, text)
		}
	}
}

// Usage problems exit 2 and say what to do; help exits 0.
func TestUsage(t *testing.T) {
	code, out, _ := cosim(t)
	if code != 2 {
		t.Errorf("no arguments: exit %d, want 2", code)
	}
	for _, c := range commands() {
		mustContain(t, "usage", out, "cosim "+c.name)
	}
	if code, out, _ := cosim(t, "help"); code != 0 || !strings.Contains(out, "cosim anomalies") {
		t.Errorf("help: exit %d, output %q", code, out)
	}
	code, _, errs := cosim(t, "help", "guide")
	if code != 0 {
		t.Errorf("help guide: exit %d, want 0", code)
	}
	mustContain(t, "help guide", errs, "usage: cosim guide [-o DIR] [TYPE…]", "-o DIR")

	code, _, errs = cosim(t, "frobnicate")
	if code != 2 {
		t.Errorf("unknown command: exit %d, want 2", code)
	}
	mustContain(t, "unknown command message", errs, `unknown command "frobnicate"`, `run "cosim help"`)

	for _, args := range [][]string{
		{"nodes", "extra"},
		{"describe"},
		{"describe", "ball", "table"},
		{"demo", "extra"},
		{"anomalies", "open"},
		{"anomalies", "--status", "closed"},
		{"guide", "-o", "-"},
		{"guide", "-o", "-", "ball", "table"},
		{"nodes", "--bogus"},
	} {
		code, out, errs := cosim(t, args...)
		if code != 2 {
			t.Errorf("%q: exit %d, want 2 (stdout %q, stderr %q)", args, code, out, errs)
		}
		if !strings.Contains(errs, "usage: cosim "+args[0]) {
			t.Errorf("%q: stderr does not show the usage: %q", args, errs)
		}
	}
	_, _, errs = cosim(t, "anomalies", "--status", "closed")
	mustContain(t, "bad status message", errs, "use open, resolved or wont-fix")
	_, _, errs = cosim(t, "guide", "-o", "-")
	mustContain(t, "guide -o - message", errs, "name exactly one node type")
}

// An unknown node type is an error (exit 1) that suggests close names.
func TestUnknownType(t *testing.T) {
	for _, args := range [][]string{{"describe", "bal"}, {"guide", "-o", "-", "bal"}, {"guide", "-o", t.TempDir(), "ball", "tabel"}} {
		code, _, errs := cosim(t, args...)
		if code != 1 {
			t.Errorf("%q: exit %d, want 1", args, code)
		}
		if !strings.Contains(errs, "did you mean") {
			t.Errorf("%q: no suggestion in %q", args, errs)
		}
	}
	_, _, errs := cosim(t, "describe", "bal")
	mustContain(t, "describe bal", errs, `unknown node type "bal"`, `"ball"`)
}

// nodes lists every registered type with its algorithm ID.
func TestNodes(t *testing.T) {
	code, out, _ := cosim(t, "nodes")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	mustContain(t, "nodes", out, "TYPE", "ALGORITHM", "ORDER", "ANOMALIES")
	reg := nodes.Registry()
	for _, name := range reg.Names() {
		s, _ := reg.Spec(name)
		found := false
		for _, line := range strings.Split(out, "\n") {
			f := strings.Fields(line)
			found = found || len(f) > 1 && f[0] == name && f[1] == s.Meta.AlgorithmID
		}
		if !found {
			t.Errorf("no line for %s (%s) in:\n%s", name, s.Meta.AlgorithmID, out)
		}
	}
}

func TestDescribeText(t *testing.T) {
	code, out, _ := cosim(t, "describe", "ball")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	mustContain(t, "describe ball", out,
		"ball — A point mass", "algorithm MADD-NODE-001, version 1.2.0, stable",
		"discretization semi-implicit-euler; declared order: spatial none, temporal 1",
		"table_position", "MADD-ANO-021",
		// the full metadata, not only the interface
		"\nEquations\n", "\nValidated regimes\n  - elasticity:", "\nImplementation mapping\n",
		"→ github.com/cosimgo/cosim/nodes/ball.Node.Update", "\nReferences\n  - [Hairer2006]",
		"\nChangelog\n  - 1.0.0 (2025-03-01): Initial implementation", "\nDiscretization notes\n")
}

// describe --json decodes, carries the metadata, and has the anomaly
// records and the evidence in extra, equal to the registries' own.
func TestDescribeJSON(t *testing.T) {
	reg := nodes.Registry()
	for _, name := range reg.Names() {
		t.Run(name, func(t *testing.T) {
			code, out, errs := cosim(t, "describe", "--json", name)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			var d struct {
				Type     string `json:"type"`
				Package  string `json:"package"`
				Metadata struct {
					AlgorithmID string   `json:"algorithm_id"`
					Stability   string   `json:"stability"`
					Anomalies   []string `json:"anomalies"`
					Evidence    []string `json:"verification_evidence"`
				} `json:"metadata"`
				Extra struct {
					Records  []anomalies.Entry          `json:"anomaly_records"`
					Evidence []verification.Measurement `json:"verification_evidence"`
				} `json:"extra"`
			}
			dec := json.NewDecoder(strings.NewReader(out))
			if err := dec.Decode(&d); err != nil {
				t.Fatal(err)
			}
			s, _ := reg.Spec(name)
			if d.Type != name || d.Package != s.Package || d.Metadata.AlgorithmID != s.Meta.AlgorithmID ||
				d.Metadata.Stability != s.Meta.Stability.String() {
				t.Errorf("decoded %+v", d)
			}
			if diff := cmp.Diff(s.Meta.Anomalies, d.Metadata.Anomalies); diff != "" {
				t.Errorf("metadata.anomalies (-want +got):\n%s", diff)
			}
			wantRecs := docs.Records(s.Meta.Anomalies)
			if diff := cmp.Diff(wantRecs, d.Extra.Records, cmp.Comparer(func(a, b []anomalies.Entry) bool {
				return len(a) == 0 && len(b) == 0 || cmp.Equal(a, b)
			})); diff != "" {
				t.Errorf("extra.anomaly_records (-want +got):\n%s", diff)
			}
			wantEv, err := verification.EvidenceFor(s.Meta.Evidence...)
			if err != nil {
				t.Fatal(err)
			}
			if len(wantEv) != len(d.Extra.Evidence) || len(wantEv) > 0 && !cmp.Equal(wantEv, d.Extra.Evidence) {
				t.Errorf("extra.verification_evidence = %+v, want %+v", d.Extra.Evidence, wantEv)
			}
			// The keys are there even when empty, as [] (not null).
			var top map[string]json.RawMessage
			if err := json.Unmarshal([]byte(out), &top); err != nil {
				t.Fatal(err)
			}
			var extra map[string]json.RawMessage
			if err := json.Unmarshal(top["extra"], &extra); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"anomaly_records", "verification_evidence"} {
				if v := strings.TrimSpace(string(extra[k])); v == "" || v == "null" {
					t.Errorf("extra.%s = %q, want a list", k, v)
				}
			}
			// Re-encoding the decoded document gives the same document.
			var generic any
			if err := json.Unmarshal([]byte(out), &generic); err != nil {
				t.Fatal(err)
			}
			again, _ := json.MarshalIndent(generic, "", "  ")
			var g2 any
			if err := json.Unmarshal(again, &g2); err != nil || !cmp.Equal(generic, g2) {
				t.Errorf("JSON does not round-trip: %v", err)
			}
		})
	}
}

// demo runs the bouncing-ball scene, reports its bounces, and -o writes
// the history as CSV.
func TestDemo(t *testing.T) {
	out := filepath.Join(t.TempDir(), "ball.csv")
	code, stdout, errs := cosim(t, "demo", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	mustContain(t, "demo", stdout, "bounces: ", "apex ratio", "written to "+out)
	if strings.Contains(stdout, "bounces: 0;") {
		t.Errorf("the demo ball never bounced:\n%s", stdout)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() || sc.Text() != "t,ball.position,ball.velocity" {
		t.Errorf("CSV header %q, want t,ball.position,ball.velocity", sc.Text())
	}
	rows := 0
	for sc.Scan() {
		rows++
	}
	if rows < 2 {
		t.Errorf("CSV has %d data rows", rows)
	}
}

func TestAnomalies(t *testing.T) {
	code, out, _ := cosim(t, "anomalies")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	mustContain(t, "anomalies", out, "ID", "SEVERITY", "STATUS", "COMPONENTS", "TITLE")
	for _, r := range anomalies.All() {
		mustContain(t, "anomalies", out, r.ID, r.Title)
	}

	code, out, _ = cosim(t, "anomalies", "--status", "open")
	if code != 0 {
		t.Fatalf("--status open: exit %d", code)
	}
	for _, r := range anomalies.All() {
		if got := strings.Contains(out, r.ID+" "); got != (r.Status == anomalies.Unresolved) {
			t.Errorf("--status open: %s (%s) listed = %v", r.ID, r.Status, got)
		}
	}

	for _, st := range []string{"", "open", "resolved", "wont-fix"} {
		args := []string{"anomalies", "--json"}
		if st != "" {
			args = append(args, "--status", st)
		}
		code, out, _ := cosim(t, args...)
		if code != 0 {
			t.Fatalf("%q: exit %d", args, code)
		}
		var got []anomalies.Entry
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		want := anomalies.Filter(anomalies.Resolution(st))
		if len(want) == 0 && len(got) == 0 {
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", args, diff)
		}
	}
}

// guide writes the same bytes as go generate ./docs: to a directory (all
// types and the index, their relative links fixed for the directory, and
// the anomalies list they link) and, with -o -, one guide to stdout.
func TestGuide(t *testing.T) {
	root, err := docs.ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	want, err := docs.Files(nodes.Registry(), root)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	code, out, errs := cosim(t, "guide", "-o", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.Contains(errs, "deprecated") {
		t.Errorf("guide prints construction warnings: %s", errs)
	}
	lk, err := newLinker(dir, root, nodes.Registry().Names(), nodes.Registry().Names())
	if err != nil {
		t.Fatal(err)
	}
	inDir := map[string][]byte{}
	for name, b := range want {
		if strings.HasPrefix(name, "nodes/") {
			inDir[name] = lk.guide(b)
		}
	}
	checkLinks(t, dir)
	for _, name := range nodes.Registry().Names() {
		got, err := os.ReadFile(filepath.Join(dir, name+".md"))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(inDir["nodes/"+name+".md"]), string(got)); diff != "" {
			t.Errorf("%s.md differs from docs.Files (-want +got):\n%s", name, diff)
		}
		mustContain(t, "guide output", out, filepath.Join(dir, name+".md"))
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "README.md")); !bytes.Equal(got, inDir["nodes/README.md"]) {
		t.Error("README.md differs from docs.Files")
	}

	code, out, _ = cosim(t, "guide", "-o", "-", "ball")
	if code != 0 {
		t.Fatalf("guide -o - ball: exit %d", code)
	}
	if out != string(want["nodes/ball.md"]) {
		t.Error("guide -o - ball differs from docs.Files")
	}
	mustContain(t, "ball guide", out, docs.Header, "## Verification Evidence", "## Known Limitations and Failure Modes")

	one := t.TempDir()
	if code, _, errs := cosim(t, "guide", "-o", one, "table"); code != 0 {
		t.Fatalf("guide table: exit %d: %s", code, errs)
	}
	entries, _ := os.ReadDir(one)
	if len(entries) != 1 || entries[0].Name() != "table.md" {
		t.Errorf("guide -o DIR table wrote %v, want only table.md", entries)
	}
}

// Every command answers -h with its usage on stderr and exit 0.
func TestHelpEveryCommand(t *testing.T) {
	for _, c := range commands() {
		code, _, errs := cosim(t, c.name, "-h")
		if code != 0 || !strings.Contains(errs, "usage: cosim "+c.name) {
			t.Errorf("%s -h: exit %d, stderr %q", c.name, code, errs)
		}
	}
	code, _, errs := cosim(t, "sweep", "merge", "-h")
	if code != 0 || !strings.Contains(errs, "usage: cosim sweep merge") {
		t.Errorf("sweep merge -h: exit %d, stderr %q", code, errs)
	}
}

const springScene = "../../examples/scenes/spring-damper.json"

// demo --print writes the embedded scene, which runs as a scene file and
// gives the demo's numbers: the path from cosim demo to one's own scene.
func TestDemoPrintRuns(t *testing.T) {
	code, scene, errs := cosim(t, "demo", "--print")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	path := filepath.Join(t.TempDir(), "my.json")
	os.WriteFile(path, []byte(scene), 0o644)
	dir := t.TempDir()
	code, out, errs := cosim(t, "run", path, "-o", filepath.Join(dir, "run.csv"))
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	mustContain(t, "run summary", out, "bouncing ball: co-simulation (jacobi), 100000 steps to t = 10", "coupling iterations 0, events n/a (co-simulated nodes handle theirs in their steps)")
	cosim(t, "demo", "-o", filepath.Join(dir, "demo.csv"))
	a, _ := os.ReadFile(filepath.Join(dir, "run.csv"))
	b, _ := os.ReadFile(filepath.Join(dir, "demo.csv"))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("the printed demo scene does not run to the demo's history")
	}
	_, out, _ = cosim(t, "demo")
	mustContain(t, "demo next steps", out, "cosim demo --print", "examples/scenes")
}

// run writes the history as CSV and JSON lines with the same numbers,
// applies --set, plots, and reports scene errors with their JSON path.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	csvPath, jsonl, fig := filepath.Join(dir, "h.csv"), filepath.Join(dir, "h.jsonl"), filepath.Join(dir, "fig.png")
	code, out, errs := cosim(t, "run", springScene, "-o", csvPath, "--plot", fig, "-y", "spring.displacement", "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	mustContain(t, "run", out, "2000 steps to t = 2", "401 rows × 2 columns", "plot of spring.displacement[1]")
	if st, err := os.Stat(fig); err != nil || st.Size() < 1000 {
		t.Errorf("plot: %v", err)
	}
	if code, _, errs = cosim(t, "run", springScene, "-o", jsonl); code != 0 {
		t.Fatalf("jsonl: exit %d: %s", code, errs)
	}
	hc, err := readHistoryFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	hj, err := readHistoryFile(jsonl)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(hc, hj); diff != "" {
		t.Errorf("CSV and JSON lines differ:\n%s", diff)
	}
	// The static displacement of Exudyn's mini example.
	if d := hc.Column("spring.displacement[1]"); d[len(d)-1] > -0.000999 || d[len(d)-1] < -0.001001 {
		t.Errorf("final displacement %v, want -0.001", d[len(d)-1])
	}
	// -o - sends the history to stdout and the summary to stderr.
	code, out, errs = cosim(t, "run", springScene, "-o", "-", "--format", "jsonl", "--set", "run.end=0.01", "--set", "mass.mass=10")
	if code != 0 || !strings.HasPrefix(out, `{"t":0,"spring.displacement[1]":0,`) || !strings.Contains(errs, "10 steps") {
		t.Errorf("-o -: exit %d, stdout %.80q, stderr %q", code, out, errs)
	}
	// Monolithic with an overridden rho_inf.
	code, out, _ = cosim(t, "run", "../../examples/scenes/two-mass-modes.json", "--set", "run.integrator.rho_inf=1")
	mustContain(t, "monolithic run", out, "monolithic (generalized-alpha), 120 steps", "iterations ",
		"work (auto → dense LU): Newton iterations ", "linear iterations 0, RHS evaluations ")
	if code != 0 {
		t.Errorf("monolithic: exit %d", code)
	}
	// The same scene with GMRES prints its Krylov work.
	code, out, _ = cosim(t, "run", "../../examples/scenes/two-mass-modes.json", "--set", "run.integrator.linear_solver=gmres", "--set", "run.integrator.preconditioner=ilu0")
	mustContain(t, "gmres run", out, "work (gmres (ilu0)): Newton iterations ", "linear iterations ", "factorizations ")
	if code != 0 || strings.Contains(out, "linear iterations 0,") {
		t.Errorf("gmres: exit %d, %s", code, out)
	}

	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run"}, 2, "name exactly one scene file"},
		{[]string{"run", "nope.json"}, 1, "examples/scenes"},
		{[]string{"run", springScene, "--set", "mas.mass=1"}, 1, `no node or connector "mas" in the scene (did you mean "mass"?)`},
		{[]string{"run", springScene, "--set", "mass.mass=-1"}, 1, `nodes[0].params (after --set mass.mass): masspoint: parameter "mass" = -1 is out of range`},
		{[]string{"run", springScene, "--set", "mass"}, 2, "write NODE.PARAM=VALUE"},
		{[]string{"run", springScene, "--format", "xml"}, 2, "use csv or jsonl"},
		{[]string{"run", springScene, "--plot", filepath.Join(dir, "f.png"), "-y", "mass.velocity"}, 1, `-y mass.velocity: not a recorded column`},
		{[]string{"run", springScene, "-y", "mass.position"}, 2, "add --plot FIG"},
		{[]string{"run", springScene, "--plot", filepath.Join(dir, "f.txt")}, 2, "use a .png, .svg, .pdf, .jpg"},
	} {
		code, _, errs := cosim(t, c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d and %q", c.args, code, errs, c.code, c.want)
		}
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"nodes": [{"name": "b", "type": "ball"}, {"name": "t", "type": "table"}], "edges": [{"from": "t.position", "to": "b.tabel_position"}], "run": {"dt": 0.1, "steps": 1}}`), 0o644)
	_, _, errs = cosim(t, "run", bad)
	mustContain(t, "wiring error", errs, "bad.json: edges[0]: t.position -> b.tabel_position: unknown field", `did you mean "table_position"?`)
}

// plot draws chosen columns of a CSV or JSON-lines history.
func TestPlot(t *testing.T) {
	dir := t.TempDir()
	h := filepath.Join(dir, "h.csv")
	if code, _, errs := cosim(t, "run", springScene, "-o", h); code != 0 {
		t.Fatal(errs)
	}
	code, out, errs := cosim(t, "plot", h, "-y", "spring.force[1]", "-o", filepath.Join(dir, "p.svg"), "--title", "mass")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	mustContain(t, "plot", out, "plot of spring.force[1] (401 rows) written to")
	svg, _ := os.ReadFile(filepath.Join(dir, "p.svg"))
	mustContain(t, "svg", string(svg), "spring.force[1]", "t (s)")
	if code, _, _ := cosim(t, "plot", h); code != 0 {
		t.Errorf("plot with default -o: exit %d", code)
	}
	if _, err := os.Stat(filepath.Join(dir, "h.png")); err != nil {
		t.Errorf("default figure: %v", err)
	}
	notHist := filepath.Join(dir, "x.csv")
	os.WriteFile(notHist, []byte("a,b\n1,2\n"), 0o644)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"plot"}, 2, "name exactly one history file"},
		{[]string{"plot", notHist}, 1, "a history starts with a t column"},
		{[]string{"plot", h, "-y", "spring.Forse[1]"}, 1, `did you mean`},
	} {
		code, _, errs := cosim(t, c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d and %q", c.args, code, errs, c.code, c.want)
		}
	}
}

// graph writes DOT with node types, field labels and additive inputs.
func TestGraph(t *testing.T) {
	code, out, errs := cosim(t, "graph", springScene)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	mustContain(t, "dot", out, `digraph "spring-damper mini example" {`, `"mass" [label="mass\nmasspoint", shape=box`,
		`"spring" [label="spring\nspringdamper", shape=ellipse]`, `"mass" -> "spring" [label="position → m1_position\nvelocity → m1_velocity"]`,
		`"spring" -> "mass" [label="m1_force → force (+)"]`, `"ground" -> "spring" [style=dashed, arrowhead=none, label="marker 0 at [1, 1, 0]"]`)
	if !strings.HasSuffix(out, "}\n") {
		t.Errorf("unterminated graph")
	}
	if code, _, errs := cosim(t, "graph"); code != 2 || !strings.Contains(errs, "usage: cosim graph") {
		t.Errorf("graph without a scene: exit %d %q", code, errs)
	}
}

// sweep runs a grid in parallel with one row per run, in grid order; the
// same grid split into shards (by --shard or the array-job variables) and
// merged is byte for byte the unsharded table.
func TestSweepShardsMerge(t *testing.T) {
	dir := t.TempDir()
	grid := []string{"sweep", "../../examples/scenes/bouncing-ball.json", "--vary", "ball.elasticity=0.5:0.9:5", "--vary", "table.position=0,0.5", "-y", "ball.position", "--set", "run.end=2"}
	all := filepath.Join(dir, "all.csv")
	code, _, errs := cosim(t, append(grid, "-j", "3", "-o", all)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want, _ := os.ReadFile(all)
	lines := strings.Split(strings.TrimSpace(string(want)), "\n")
	if len(lines) != 11 || lines[0] != "run,runs,ball.elasticity,table.position,t,ball.position,sweep,status" || lines[1] != lines[1][:2]+"10,0.5,0,2,"+strings.Split(lines[1], ",")[5]+","+strings.Split(lines[1], ",")[6]+",ok" {
		t.Fatalf("sweep table:\n%s", want)
	}
	if !strings.HasPrefix(lines[4], "3,10,0.6,0.5,2,") || !strings.HasPrefix(lines[10], "9,10,0.9,0.5,2,") {
		t.Errorf("grid order (last --vary fastest):\n%s", want)
	}
	// One worker gives the same table.
	_, one, _ := cosim(t, append(grid, "-j", "1")...)
	if one != string(want) {
		t.Errorf("-j 1 differs from -j 3:\n%s", one)
	}
	var shards []string
	for i := range 3 {
		p := filepath.Join(dir, fmt.Sprintf("s%d.csv", i))
		shards = append(shards, p)
		var args []string
		switch i {
		case 0:
			args = append(grid, "--shard", "0/3")
		case 1:
			t.Setenv("JOB_COMPLETION_INDEX", "1")
			args = append(grid, "--shard", "/3") // I from the environment
		case 2:
			os.Unsetenv("JOB_COMPLETION_INDEX")
			t.Setenv("SLURM_ARRAY_TASK_ID", "2")
			t.Setenv("SLURM_ARRAY_TASK_MIN", "2") // sbatch --array=2: the id is the shard, MIN is ignored
			args = append(grid, "--shards", "3")
		}
		if code, _, errs := cosim(t, append(args, "-o", p)...); code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, code, errs)
		}
	}
	merged := filepath.Join(dir, "merged.csv")
	if code, _, errs := cosim(t, "sweep", "merge", "-o", merged, shards[2], shards[0], shards[1]); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, errs)
	}
	got, _ := os.ReadFile(merged)
	if !bytes.Equal(got, want) {
		t.Errorf("merged shards differ from the unsharded run:\n%s\nwant:\n%s", got, want)
	}
	// merge refuses incomplete and foreign tables (duplicates: TestSweepMergeDuplicates).
	for _, c := range []struct {
		files []string
		want  string
	}{
		{shards[:2], "3 of 10 runs are missing (runs [2 5 8]…)"},
		{[]string{shards[0], "../../examples/scenes/README.md"}, "not a cosim sweep table"},
	} {
		code, _, errs := cosim(t, append([]string{"sweep", "merge"}, c.files...)...)
		if code != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("merge %q: exit %d, %q; want %q", c.files, code, errs, c.want)
		}
	}
}

// sweep --list runs parameter sets from a file; failed runs keep their
// row with the reason and make the exit status 1.
func TestSweepList(t *testing.T) {
	dir := t.TempDir()
	list := filepath.Join(dir, "sets.txt")
	os.WriteFile(list, []byte("# elasticity and gravity\n{\"ball.elasticity\": 0.5, \"ball.gravity\": -9.81}\nball.elasticity=0.7\nball.elasticity=2\n"), 0o644)
	code, out, errs := cosim(t, "sweep", "../../examples/scenes/bouncing-ball.json", "--list", list, "--set", "run.end=0.5", "-y", "ball.velocity")
	if code != 1 || !strings.Contains(errs, "1 of 3 runs failed") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	mustContain(t, "list sweep", out, "run,runs,ball.elasticity,ball.gravity,t,ball.velocity,sweep,status\n0,3,0.5,-9.81,0.5,",
		"\n1,3,0.7,,0.5,", `,"error: nodes[0].params: ball: parameter ""elasticity"" = 2 is out of range`)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"sweep", springScene}, 2, "give either --vary (a grid) or --list"},
		{[]string{"sweep", springScene, "--vary", "mass.mass=1:2"}, 2, "write START:STOP:COUNT"},
		{[]string{"sweep", springScene, "--vary", "mass.mass=1:2:2", "--shard", "3/3"}, 2, "0 <= I < N"},
		{[]string{"sweep", springScene, "--vary", "mass.mass=1:2:2", "--shards", "2"}, 2, "JOB_COMPLETION_INDEX"},
		{[]string{"sweep", springScene, "--vary", "mass.mass=1:2:2", "-y", "mass.nope"}, 1, "-y mass.nope"},
	} {
		code, _, errs := cosim(t, c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d and %q", c.args, code, errs, c.code, c.want)
		}
	}
}
