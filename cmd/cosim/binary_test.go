package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Under an address-space rlimit (prlimit --as=2000000000), a run whose
// kept rows cannot fit is refused before it computes anything, naming the
// bound: the default RecordLimit comes from RLIMIT_AS, cgroups and
// MemAvailable, and the estimate counts what the recorder really holds.
// It used to pass the check (458 MiB estimated for 1e7 rows against a
// fixed 4 GiB), compute for seconds and die of memory.
func TestRunRefusesRowsBeyondRlimit(t *testing.T) {
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("no prlimit")
	}
	bin := binary(t)
	out := filepath.Join(t.TempDir(), "h.jsonl") // JSON lines keep the rows in memory
	cmd := exec.Command(prlimit, "--as=2000000000", bin, "run", "../../examples/scenes/bouncing-ball.json",
		"--set", "run.dt=1e-6", "--set", "run.end=10", "--set", "record.every=1", "-q", "-o", out)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	code := cmd.ProcessState.ExitCode()
	if code != 1 || !strings.Contains(stderr.String(), "graph: recording 10000001 rows of 3 values would need") || !strings.Contains(stderr.String(), "half of RLIMIT_AS") {
		t.Errorf("exit %d (%v), stderr %q", code, err, stderr.String())
	}
	if strings.Contains(stdout.String(), "steps to t") {
		t.Errorf("it ran before refusing:\n%s", stdout.String())
	}
	t.Logf("refused in %v", time.Since(start))
}

// A scene read from standard input resolves a lookup node's relative
// file against the working directory: /dev/stdin's directory is /dev, and
// the file was looked for as /dev/data/ok.csv. Both a redirected file and
// a pipe.
func TestSceneFromStdin(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "data", "ok.csv"), []byte("t,f\n0,1\n1,2\n"), 0o644)
	text := `{"nodes": [{"name": "f", "type": "lookup", "params": {"file": "data/ok.csv", "column": "f"}}], "run": {"dt": 0.5, "end": 1}, "record": {"fields": ["f.value"]}}`
	scenePath := filepath.Join(t.TempDir(), "s.json")
	os.WriteFile(scenePath, []byte(text), 0o644)
	for _, pipe := range []bool{false, true} {
		cmd := exec.Command(bin, "run", "/dev/stdin", "-q", "-o", "-")
		cmd.Dir = dir
		if pipe {
			cmd.Stdin = strings.NewReader(text)
		} else {
			f, err := os.Open(scenePath)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			cmd.Stdin = f
		}
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "\n1,2\n") {
			t.Errorf("pipe %v: %v\n%s", pipe, err, out)
		}
	}
}
