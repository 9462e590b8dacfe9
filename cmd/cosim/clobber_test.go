package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// No output may be an input or another output of the same command,
// compared after resolving symbolic links and by inode (hard links):
// each case below once replaced the input, exit 0. Each is a usage
// error naming both, before anything runs, and the input is unchanged.
func TestOutputNeverAnInput(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "s.json")
	orig, _ := os.ReadFile(springScene)
	os.WriteFile(sc, orig, 0o644)
	data := filepath.Join(dir, "bounce.csv")
	bounce, _ := os.ReadFile(calibData)
	os.WriteFile(data, bounce, 0o644)
	ball := filepath.Join(dir, "b.json")
	ballJSON, _ := os.ReadFile(calibScene)
	os.WriteFile(ball, ballJSON, 0o644)
	hist := filepath.Join(dir, "r.csv")
	if code, _, errs := cosim(t, "run", sc, "-q", "-o", hist); code != 0 {
		t.Fatal(errs)
	}
	histBytes, _ := os.ReadFile(hist)
	link := filepath.Join(dir, "link.json")
	os.Symlink(sc, link)
	hard := filepath.Join(dir, "hard.json")
	os.Link(sc, hard)
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	dotdot := filepath.Join(sub, "..", "s.json")
	for _, c := range []struct {
		args []string
		want string
	}{
		// (A .json history is refused by its name alone; --format csv
		// gets past that check to this one.)
		{[]string{"run", sc, "-o", sc}, "a history is CSV (.csv) or JSON lines (.jsonl)"},
		{[]string{"run", sc, "--format", "csv", "-o", sc}, "-o " + sc + " is the scene file"},
		{[]string{"run", sc, "--format", "csv", "-o", link}, "is the scene file"},
		{[]string{"run", sc, "--format", "csv", "-o", hard}, "is the scene file"},
		{[]string{"run", sc, "--format", "jsonl", "-o", dotdot}, "is the scene file"},
		{[]string{"run", sc, "--checkpoint-every", "1h", "--checkpoint", sc}, "--checkpoint " + sc + " is the scene file"},
		{[]string{"run", sc, "-o", filepath.Join(dir, "x.png"), "--format", "csv", "--plot", filepath.Join(dir, "x.png")}, "--plot " + filepath.Join(dir, "x.png") + " is also the -o file"},
		{[]string{"run", sc, "-o", filepath.Join(dir, "out.csv"), "--checkpoint-every", "1h", "--checkpoint", filepath.Join(dir, "out.csv")}, "is also the -o file"},
		{[]string{"view", sc, "-o", sc}, "is the scene file"},
		{[]string{"view", sc, "--history", hist, "-o", hist}, "is the --history file"},
		{[]string{"sweep", sc, "--vary", "mass.mass=1,2", "-o", sc}, "is the scene file"},
		{[]string{"fit", ball, "--data", data, "--free", "ball.gravity", "-o", data}, "-o " + data + " is the --data file"},
		{[]string{"fit", ball, "--data", data, "--free", "ball.gravity", "-o", ball}, "is the scene file"},
		{[]string{"plot", hist, "-o", filepath.Join(dir, "r.csv")}, ""}, // not a figure name: refused before (exit 2)
		{[]string{"sensitivity", ball, "--wrt", "ball.gravity", "-o", ball}, "is the scene file"},
		{[]string{"render", sc, "-o", filepath.Join(dir, "x.png"), "--history", filepath.Join(dir, "x.png")}, ""},
	} {
		code, _, errs := cosim(t, c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, %q; want exit 2 and %q", c.args, code, errs, c.want)
		}
	}
	if got, _ := os.ReadFile(sc); !bytes.Equal(got, orig) {
		t.Error("the scene file changed")
	}
	if got, _ := os.ReadFile(data); !bytes.Equal(got, bounce) {
		t.Error("the data file changed")
	}
	if got, _ := os.ReadFile(hist); !bytes.Equal(got, histBytes) {
		t.Error("the history changed")
	}
	// sweep merge into one of its tables.
	shards, _ := shardTables(t, 2)
	if code, _, errs := cosim(t, "sweep", "merge", "-o", shards[0], shards[0], shards[1]); code != 2 || !strings.Contains(errs, "is a table to merge") {
		t.Errorf("merge into a shard: exit %d, %s", code, errs)
	}
	// A lookup node's table is an input too.
	lk := filepath.Join(dir, "lk.json")
	os.WriteFile(filepath.Join(dir, "thrust.csv"), []byte("t,f\n0,1\n1,2\n"), 0o644)
	os.WriteFile(lk, []byte(`{"nodes": [{"name": "f", "type": "lookup", "params": {"file": "thrust.csv", "column": "f"}}], "run": {"dt": 0.1, "end": 1}, "record": {"fields": ["f.value"]}}`), 0o644)
	if code, _, errs := cosim(t, "run", lk, "-o", filepath.Join(dir, "thrust.csv")); code != 2 || !strings.Contains(errs, "is the table file of lookup node f") {
		t.Errorf("-o the lookup table: exit %d, %s", code, errs)
	}
	// Resuming from a checkpoint and writing newer ones to the same file
	// is allowed: it is read whole first and replaced atomically.
	ck := filepath.Join(dir, "s.checkpoint")
	if code, _, errs := cosim(t, "run", sc, "-q", "--checkpoint-every", "1ns", "--checkpoint", ck, "--set", "run.end=0.003"); code != 0 {
		t.Fatalf("checkpointed run: %s", errs)
	}
	if _, err := os.Stat(ck); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := cosim(t, "run", sc, "-q", "--resume", ck, "--checkpoint-every", "1h", "--checkpoint", ck); code != 0 {
		t.Errorf("--resume X --checkpoint X: exit %d, %s", code, errs)
	}
}

// kill -9 leaves a temporary file beside an output; the next cosim that
// writes into that directory removes it when the process that made it no
// longer runs on this host, and says so. Files of running processes and
// of other hosts are left alone.
func TestStaleTemporaryFiles(t *testing.T) {
	dir := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("cannot run true:", err)
	}
	deadPID := dead.Process.Pid
	stale := filepath.Join(dir, fmt.Sprintf(".part.csv%s%s-%d-123", tmpMark, hostTag(), deadPID))
	live := filepath.Join(dir, fmt.Sprintf(".ck%s%s-%d-456", tmpMark, hostTag(), os.Getpid()))
	foreign := filepath.Join(dir, fmt.Sprintf(".x.csv%sotherhost-%d-789", tmpMark, deadPID))
	for _, p := range []string{stale, live, foreign} {
		os.WriteFile(p, []byte("partial"), 0o600)
	}
	code, _, errs := cosim(t, "run", springScene, "-q", "-o", filepath.Join(dir, "h.csv"))
	if code != 0 {
		t.Fatal(errs)
	}
	mustContain(t, "stderr", errs, "cosim: removed "+stale+fmt.Sprintf(", the partial output of cosim process %d, which no longer runs", deadPID))
	if _, err := os.Stat(stale); err == nil {
		t.Error("the stale file is still there")
	}
	for _, p := range []string{live, foreign} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed", p)
		}
	}
	// The temporary files cosim makes carry the marks it looks for.
	if got := tmpPattern("h.csv"); !strings.HasPrefix(got, ".h.csv"+tmpMark+hostTag()+"-"+fmt.Sprint(os.Getpid())+"-") {
		t.Errorf("tmpPattern = %q", got)
	}
}
