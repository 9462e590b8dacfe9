package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const ballScene = "../../examples/scenes/bouncing-ball.json"

// shardTables runs the shards of a small grid of the bouncing ball and
// returns their tables' paths and the unsharded table.
func shardTables(t *testing.T, n int) (paths []string, whole string) {
	t.Helper()
	dir := t.TempDir()
	grid := []string{"sweep", ballScene, "--vary", "ball.elasticity=0.5:0.9:3", "--vary", "table.position=0,0.5", "-y", "ball.position", "--set", "run.end=0.5", "-q"}
	code, out, errs := cosim(t, grid...)
	if code != 0 {
		t.Fatalf("unsharded: exit %d: %s", code, errs)
	}
	for i := range n {
		p := filepath.Join(dir, "shard-"+strconv.Itoa(i)+".csv")
		if code, _, errs := cosim(t, append(grid, "--shard", strconv.Itoa(i)+"/"+strconv.Itoa(n), "-o", p)...); code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, code, errs)
		}
		paths = append(paths, p)
	}
	return paths, out
}

// A task that ran twice (requeued, or rerun by hand) leaves its runs in
// two tables: identical rows are one run, counted once; rows of the same
// run that differ are an error naming the run, the column and both tables.
func TestSweepMergeDuplicates(t *testing.T) {
	shards, whole := shardTables(t, 2)
	again := filepath.Join(filepath.Dir(shards[0]), "shard-0-again.csv")
	data, _ := os.ReadFile(shards[0])
	os.WriteFile(again, data, 0o644)
	code, out, errs := cosim(t, "sweep", "merge", shards[0], shards[1], again, shards[0])
	if code != 0 || out != whole {
		t.Fatalf("merge with a shard twice: exit %d, stderr %q\n%s\nwant\n%s", code, errs, out, whole)
	}
	mustContain(t, "merge stderr", errs, "6 rows were in more than one table with identical values (a task that ran twice); each run is counted once")

	// Shards of two shard counts of one sweep: 0/2 holds runs 0 2 4, the
	// three shards of 3 hold every run, so runs 0 2 4 come twice.
	thirds, _ := shardTables(t, 3)
	code, out, errs = cosim(t, "sweep", "merge", shards[0], thirds[0], thirds[1], thirds[2])
	if code != 0 || out != whole {
		t.Errorf("merge of shards of 2 and of 3: exit %d, stderr %q\n%s", code, errs, out)
	}
	mustContain(t, "merge stderr", errs, "3 rows were in more than one table")

	// Run 2 (elasticity 0.7, table at 0) with another position.
	lines := strings.SplitAfter(string(data), "\n")
	if !strings.HasPrefix(lines[2], "2,6,0.7,0,0.5,") {
		t.Fatalf("shard 0 row 2 is %q", lines[2])
	}
	cells := strings.Split(lines[2], ",")
	cells[5] = "0.25"
	lines[2] = strings.Join(cells, ",")
	os.WriteFile(again, []byte(strings.Join(lines, "")), 0o644)
	code, out, errs = cosim(t, "sweep", "merge", shards[0], shards[1], again)
	if code != 1 || out != "" {
		t.Errorf("merge with a differing duplicate: exit %d, stdout %q", code, out)
	}
	mustContain(t, "merge error", errs, again+":3: run 2 is also in "+shards[0]+", with ball.position = ", ` and "0.25" here`)
}

// Merge never accepts a cut-off table: cut at every byte of its rows, a
// shard table makes the merge fail, saying the table is truncated or
// which runs are missing (a cut at a row's end leaves a well-formed
// table that lacks runs).
func TestSweepMergeTruncated(t *testing.T) {
	shards, _ := shardTables(t, 2)
	data, _ := os.ReadFile(shards[1])
	headerEnd := strings.IndexByte(string(data), '\n') + 1
	cut := filepath.Join(filepath.Dir(shards[1]), "cut.csv")
	for n := headerEnd; n < len(data); n++ {
		os.WriteFile(cut, data[:n], 0o644)
		code, out, errs := cosim(t, "sweep", "merge", shards[0], cut)
		if code == 0 || out != "" {
			t.Fatalf("cut after %d of %d bytes: exit %d, merged:\n%s", n, len(data), code, out)
		}
		if !strings.Contains(errs, cut+":") || !strings.Contains(errs, "truncated") {
			if !strings.Contains(errs, "runs are missing") || data[n-1] != '\n' {
				t.Errorf("cut after %d bytes (%q): %s", n, data[n-5:n], errs)
			}
		}
	}
	os.WriteFile(cut, data[:len(data)-3], 0o644) // "…,ok\n" cut to "…,"
	_, _, errs := cosim(t, "sweep", "merge", shards[0], cut)
	mustContain(t, "cut in the status", errs, cut+":4: truncated table: the last row ends without a newline")
	os.WriteFile(cut, nil, 0o644)
	_, _, errs = cosim(t, "sweep", "merge", shards[0], cut)
	mustContain(t, "empty table", errs, cut+" is empty: not a cosim sweep table")
}

// writeAtomic leaves the old file or the whole new one, never a part, and
// no temporary file either way.
func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "shard-0.csv")
	if err := writeTable(p, nil, []string{"run", "runs", "t", "status"}, [][]string{{"0", "1", "2", "ok"}}); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("disk full")
	err := writeAtomic(p, func(w io.Writer) error {
		io.WriteString(w, "run,runs,t,status\n0,1,")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("failed write: %v, want %v", err, boom)
	}
	got, _ := os.ReadFile(p)
	if string(got) != "run,runs,t,status\n0,1,2,ok\n" {
		t.Errorf("after a failed write the table is %q, want the old one", got)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("files left: %v", ents)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode())
	}
	if err := writeTable(filepath.Join(dir, "no", "such.csv"), nil, []string{"run"}, nil); err == nil {
		t.Errorf("writing into a missing directory: no error")
	}

	// A symbolic link is written through: the link stays, its target
	// gets the table.
	link := filepath.Join(dir, "latest.csv")
	os.Symlink("shard-0.csv", link)
	if err := writeTable(link, nil, []string{"run", "runs", "t", "status"}, [][]string{{"0", "1", "3", "ok"}}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi.Mode(), err)
	}
	if got, _ := os.ReadFile(p); string(got) != "run,runs,t,status\n0,1,3,ok\n" {
		t.Errorf("the link's target is %q", got)
	}
	// A device is written in place, never renamed over.
	if err := writeTable(os.DevNull, nil, []string{"run"}, nil); err != nil {
		t.Errorf("-o %s: %v", os.DevNull, err)
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode()&os.ModeDevice == 0 {
		t.Fatalf("%s is no longer a device: %v %v", os.DevNull, fi.Mode(), err)
	}
}

// --list reads a CSV table of parameter sets (a header of keys, one set a
// row, empty cells keep the scene's value) and gives the table the same
// sets as JSON lines give; its errors name the file, line and column.
func TestSweepListCSV(t *testing.T) {
	dir := t.TempDir()
	csvList := filepath.Join(dir, "doe.csv")
	os.WriteFile(csvList, []byte("# a design of experiments\nball.elasticity, ball.gravity,table.position\n0.5,-9.81,\n0.7,,0.25\n\n0.9,\"-3.7\",0\n"), 0o644)
	jsonList := filepath.Join(dir, "doe.txt")
	os.WriteFile(jsonList, []byte("{\"ball.elasticity\": 0.5, \"ball.gravity\": -9.81}\nball.elasticity=0.7,table.position=0.25\n{\"ball.elasticity\": 0.9, \"ball.gravity\": -3.7, \"table.position\": 0}\n"), 0o644)
	args := []string{"sweep", ballScene, "--set", "run.end=0.5", "-y", "ball.position", "-q"}
	code, fromCSV, errs := cosim(t, append(args, "--list", csvList)...)
	if code != 0 {
		t.Fatalf("CSV list: exit %d: %s", code, errs)
	}
	_, fromJSON, _ := cosim(t, append(args, "--list", jsonList)...)
	if fromCSV != fromJSON {
		t.Errorf("CSV list:\n%s\nJSON lines:\n%s", fromCSV, fromJSON)
	}
	mustContain(t, "CSV list table", fromCSV, "run,runs,ball.elasticity,ball.gravity,table.position,t,ball.position,sweep,status\n0,3,0.5,-9.81,,0.5,", "\n1,3,0.7,,0.25,0.5,", "\n2,3,0.9,-3.7,0,0.5,")
	// Shards of a list merge to the list's table.
	var shards []string
	for i, s := range []string{"0/2", "1/2"} {
		p := filepath.Join(dir, "s"+strconv.Itoa(i)+".csv")
		if code, _, errs := cosim(t, append(args, "--list", csvList, "--shard", s, "-o", p)...); code != 0 {
			t.Fatalf("shard %s: exit %d: %s", s, code, errs)
		}
		shards = append(shards, p)
	}
	if code, merged, errs := cosim(t, "sweep", "merge", shards[1], shards[0]); code != 0 || merged != fromCSV {
		t.Errorf("merged list shards: exit %d %s\n%s", code, errs, merged)
	}

	for _, c := range []struct {
		text string
		code int
		want string
	}{
		{"ball.elasticity,ball.gravity\n0.5\n", 1, "doe.csv: record on line 2: wrong number of fields (every row needs one cell for each of the 2 columns"},
		{"ball.elasticity,elasticity\n0.5,1\n", 1, `doe.csv:1: column 2: "elasticity" is not a key: write NODE.PARAM`},
		{"ball.elasticity,ball.elasticity\n0.5,1\n", 1, `doe.csv:1: column "ball.elasticity" given twice`},
		{"ball.elasticity,ball.gravity\n0.5,-1\n,\n", 1, "doe.csv:3: the row sets nothing"},
		{"# only a header\nball.elasticity\n", 1, "doe.csv has no parameter sets"},
		{"bal.elasticity\n0.5\n", 2, `bal.elasticity: no node or connector "bal" in the scene (did you mean "ball"?)`},
		{"ball.elasticity=0.5\nelasticity=0.7\n", 1, `doe.csv:2: "elasticity" is not a key`},
	} {
		os.WriteFile(csvList, []byte(c.text), 0o644)
		code, _, errs := cosim(t, append(args, "--list", csvList)...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("list %q: exit %d, stderr %q; want exit %d and %q", c.text, code, errs, c.code, c.want)
		}
	}
}

// A Slurm task's id is its shard, whatever the array's first id: the
// documented rerun of one shard, sbatch --array=5, sets
// SLURM_ARRAY_TASK_MIN=5 too and must still run shard 5.
func TestShardOfSlurm(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	i, n, err := shardOf("", 8, env(map[string]string{"SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "5"}))
	if err != nil || i != 5 || n != 8 {
		t.Errorf("--array=5 rerun: shard %d/%d, %v; want 5/8", i, n, err)
	}
	_, _, err = shardOf("/8", 0, env(map[string]string{"SLURM_ARRAY_TASK_ID": "8", "SLURM_ARRAY_TASK_MIN": "1"}))
	if err == nil || !strings.Contains(err.Error(), "$SLURM_ARRAY_TASK_ID = 8 is outside 0..7: number the array's tasks 0..7 (sbatch --array=0-7)") {
		t.Errorf("--array=1-8: %v", err)
	}
	i, _, err = shardOf("", 4, env(map[string]string{"JOB_COMPLETION_INDEX": "3", "SLURM_ARRAY_TASK_ID": "1"}))
	if err != nil || i != 3 {
		t.Errorf("Kubernetes index first: shard %d, %v", i, err)
	}
}
