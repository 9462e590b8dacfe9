package main

import (
	"bytes"
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
