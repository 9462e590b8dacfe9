package main

import (
	"bufio"
	"bytes"
	"encoding/json"
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
		"ball — A point mass", "algorithm MADD-NODE-001, version 1.0.0, stable",
		"discretization semi-implicit-euler; declared order: spatial none, temporal 1",
		"table_position", "MADD-ANO-021")
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
					Records  []anomalies.Record         `json:"anomaly_records"`
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
			if diff := cmp.Diff(wantRecs, d.Extra.Records, cmp.Comparer(func(a, b []anomalies.Record) bool {
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
		if got := strings.Contains(out, r.ID+" "); got != (r.Status == anomalies.Open) {
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
		var got []anomalies.Record
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		want := anomalies.Filter(anomalies.Status(st))
		if len(want) == 0 && len(got) == 0 {
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", args, diff)
		}
	}
}

// guide writes the same bytes as go generate ./docs: to a directory (all
// types and the index) and, with -o -, one guide to stdout.
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
	for _, name := range nodes.Registry().Names() {
		got, err := os.ReadFile(filepath.Join(dir, name+".md"))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want["nodes/"+name+".md"]), string(got)); diff != "" {
			t.Errorf("%s.md differs from docs.Files (-want +got):\n%s", name, diff)
		}
		mustContain(t, "guide output", out, filepath.Join(dir, name+".md"))
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "README.md")); !bytes.Equal(got, want["nodes/README.md"]) {
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
