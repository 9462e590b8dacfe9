package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// An existing -o file survives a run that fails before it records and a
// run whose flags are wrong: nothing is written or removed until there
// are rows to write.
func TestRunLeavesExistingFileOnFailure(t *testing.T) {
	dir := t.TempDir()
	h := filepath.Join(dir, "h.csv")
	old := []byte("precious\n")
	if err := os.WriteFile(h, old, 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"nodes": [{"name": "m", "type": "masspoint"}], "edges": [{"from": "m.position", "to": "nobody.force"}], "run": {"dt": 0.01, "end": 1}, "record": {"fields": ["m.position"]}}`), 0o644)
	// Fails at its first evaluation, before the first row is recorded.
	early := filepath.Join(dir, "early.json")
	os.WriteFile(early, []byte(`{"nodes": [{"name": "f", "type": "lookup", "params": {"times": [1, 2], "values": [0, 1], "outside": "error"}}],
 "run": {"dt": 0.1, "end": 1}, "record": {"fields": ["f.value"]}}`), 0o644)
	_, out, _ := cosim(t, "run", early, "-o", h)
	mustContain(t, "early failure", out, "history: no rows recorded before the failure; "+h+" left unchanged")
	for _, args := range [][]string{
		{"run", early, "-o", h},
		{"run", bad, "-o", h},
		{"run", springScene, "-o", h, "--plot", filepath.Join(dir, "f.png"), "-y", "nosuch.field"},
		{"run", springScene, "-o", h, "--plot", filepath.Join(dir, "f.txt")},
		{"run", springScene, "-o", h, "--plot", filepath.Join(dir, "missing", "f.png")},
		{"run", springScene, "-o", h, "--progress", "sometimes"},
	} {
		code, out, errs := cosim(t, args...)
		if code == 0 {
			t.Errorf("%q: exit 0", args)
		}
		if got, _ := os.ReadFile(h); !bytes.Equal(got, old) {
			t.Errorf("%q changed the existing %s: %q (stdout %q, stderr %q)", args, h, got, out, errs)
		}
		if strings.Contains(out, "steps to t") && args[1] != early {
			t.Errorf("%q: ran the simulation before failing on its flags:\n%s", args, out)
		}
	}
	// A -y that is not recorded is named before the run.
	_, _, errs := cosim(t, "run", springScene, "--plot", filepath.Join(dir, "f.png"), "-y", "spring.force[7]")
	mustContain(t, "bad -y", errs, "-y spring.force[7]: not a recorded column")
}

// -o /dev/null and a FIFO are written in place: they are never removed
// or replaced by a regular file, whether the run succeeds or fails.
func TestRunSpecialFiles(t *testing.T) {
	before, err := os.Stat(os.DevNull)
	if err != nil {
		t.Skip("no /dev/null")
	}
	for _, args := range [][]string{
		{"run", springScene, "-o", os.DevNull},
		{"run", springScene, "-o", os.DevNull, "--set", "spring.stiffness=[5e9,5e9,5e9]"}, // fails part way: NaN
	} {
		cosim(t, args...)
		after, err := os.Stat(os.DevNull)
		if err != nil || after.Mode() != before.Mode() {
			t.Fatalf("%q: /dev/null is now %v (%v), was %v", args, after.Mode(), err, before.Mode())
		}
	}
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	var got []byte
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		f, err := os.Open(fifo)
		if err == nil {
			got, _ = io.ReadAll(f)
			f.Close()
		}
	}()
	if code, _, errs := cosim(t, "run", springScene, "-o", fifo); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	wg.Wait()
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO is now %v (%v)", fi.Mode(), err)
	}
	if !bytes.HasPrefix(got, []byte("t,")) {
		t.Errorf("the FIFO's reader got %.40q, want the CSV history", got)
	}
}

// cosim plot replaces an existing figure as every output does (it asked
// for --force, the other commands did not: one policy now), and --force
// is still accepted.
func TestPlotReplacesFigure(t *testing.T) {
	dir := t.TempDir()
	h := filepath.Join(dir, "h.csv")
	if code, _, errs := cosim(t, "run", springScene, "-o", h); code != 0 {
		t.Fatal(errs)
	}
	fig := filepath.Join(dir, "h.png")
	for _, args := range [][]string{{"plot", h}, {"plot", h, "--force"}} {
		os.WriteFile(fig, []byte("old"), 0o644)
		if code, _, errs := cosim(t, args...); code != 0 {
			t.Errorf("%q: exit %d %s", args, code, errs)
		}
		if b, _ := os.ReadFile(fig); !bytes.HasPrefix(b, []byte("\x89PNG")) {
			t.Errorf("%q did not replace the figure", args)
		}
	}
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// binary builds the cosim command once for the tests that signal it.
func binary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the command")
	}
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "cosim-bin")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "cosim")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = err
			binPath = string(out)
		}
	})
	if binErr != nil {
		t.Fatalf("go build: %v\n%s", binErr, binPath)
	}
	return binPath
}

// longRun is a spring-damper run of 2e7 steps (about 15 s): long enough
// to be signalled while it runs.
var longRun = []string{"--set", "run.dt=1e-5", "--set", "run.end=200", "--set", "record.every=20000", "--progress", "log", "--progress-every", "100ms"}

// startAndSignal starts the command, waits for its first progress line
// (it is running) and sends sigs, each after the command has said it
// received the one before (signals of one kind sent together may merge).
// A command that has not exited a minute later is killed.
func startAndSignal(t *testing.T, args []string, sigs ...syscall.Signal) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	var out bytes.Buffer
	cmd.Stdout = &out
	pr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var killed atomic.Bool
	timer := time.AfterFunc(60*time.Second, func() { killed.Store(true); cmd.Process.Kill() })
	defer timer.Stop()
	var errb strings.Builder
	sc := bufio.NewScanner(pr)
	// waitFor reads stderr up to a line starting with prefix.
	waitFor := func(prefix string) {
		for sc.Scan() {
			errb.WriteString(sc.Text() + "\n")
			if strings.HasPrefix(sc.Text(), prefix) {
				return
			}
		}
	}
	// The first progress line that reports work done: a sweep's first
	// lines may count 0 finished runs on a loaded machine.
	for {
		waitFor("progress:")
		if l := sc.Text(); !strings.Contains(l, " 0/") || sc.Err() != nil || l == "" {
			break
		}
	}
	for i, s := range sigs {
		if i > 0 {
			waitFor("cosim: SIG")
		}
		cmd.Process.Signal(s)
	}
	for sc.Scan() {
		errb.WriteString(sc.Text() + "\n")
	}
	cmd.Wait()
	if killed.Load() {
		t.Fatalf("the command did not stop; stderr:\n%s", errb.String())
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

// The first SIGINT or SIGTERM stops the run at the end of a step, writes
// the history recorded so far, says where it stopped and exits 130 or
// 143.
func TestRunSignals(t *testing.T) {
	for _, c := range []struct {
		sig  syscall.Signal
		code int
		name string
	}{{syscall.SIGINT, 130, "SIGINT"}, {syscall.SIGTERM, 143, "SIGTERM"}} {
		h := filepath.Join(t.TempDir(), "h.csv")
		args := append([]string{"run", springScene, "-o", h}, longRun...)
		code, out, errs := startAndSignal(t, args, c.sig)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d; stderr:\n%s", c.name, code, c.code, errs)
		}
		mustContain(t, c.name+" stderr", errs, "cosim: "+c.name+": stopping at the end of the current step", "interrupted by "+c.name+": stopped at t = ")
		mustContain(t, c.name+" stdout", out, "written to "+h+" (up to t = ", "before the interrupt")
		b, err := os.ReadFile(h)
		if err != nil || bytes.Count(b, []byte("\n")) < 2 {
			t.Errorf("%s: history %q (%v), want the rows recorded so far", c.name, b, err)
		}
	}
	// A second signal exits at once: here while the command is blocked
	// writing its history into a FIFO nobody reads.
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	code, _, errs := startAndSignal(t, append([]string{"run", springScene, "-o", fifo}, longRun...), syscall.SIGINT, syscall.SIGINT)
	if code != 130 || !strings.Contains(errs, "cosim: SIGINT again: exiting at once") {
		t.Errorf("two SIGINTs: exit %d; stderr:\n%s", code, errs)
	}
}

// A run interrupted (its checkpoint written at the interrupt) and resumed
// ends exactly as an uninterrupted run: the resumed history's rows are
// the uninterrupted run's rows at the same times, bit for bit (the CSV
// writes the shortest exact form), also for a coupling strategy with
// memory across steps (IQN-ILS reusing columns, the linear predictor:
// the signal stops the run at a step boundary, so its checkpoint holds
// that memory whole) and for an adaptive run (whose resumed samples stay
// on the uninterrupted run's grid and end at the end time).
func TestRunResume(t *testing.T) {
	for _, c := range []struct {
		name      string
		set, long []string // long: what makes the interrupted run long enough
	}{
		{"jacobi", nil, nil},
		{"iqn-ils reuse", []string{"--set", `run.coupling={"scheme": "iqn-ils", "reuse": 3, "predictor": "linear"}`}, nil},
		{"adaptive", []string{"--set", "run.mode=monolithic", "--set", `run.integrator={"method": "dormand-prince", "adaptive": true, "rtol": 1e-9, "atol": 1e-12}`,
			"--set", "run.dt=1e-3", "--set", "record.every=100"}, []string{"--set", "run.end=1e5"}},
	} {
		t.Run(c.name, func(t *testing.T) { testRunResume(t, c.set, c.long) })
	}
}

func testRunResume(t *testing.T, set, long []string) {
	dir := t.TempDir()
	ck := filepath.Join(dir, "run.checkpoint")
	args := append(append(append([]string{"run", springScene, "--checkpoint-every", "1h", "--checkpoint", ck}, longRun...), set...), long...)
	scode, _, serrs := startAndSignal(t, args, syscall.SIGINT)
	if scode != 130 || !strings.Contains(serrs, "--resume "+ck) {
		t.Fatalf("exit %d; stderr:\n%s", scode, serrs)
	}
	// Both runs end 2 s after the interrupt (whenever it came: that
	// depends on the machine's speed).
	_, after, ok := strings.Cut(serrs, "stopped at t = ")
	stopped, err := strconv.ParseFloat(strings.Fields(after + " x")[0], 64)
	if !ok || err != nil {
		t.Fatalf("no stop time in stderr:\n%s", serrs)
	}
	end := fmt.Sprintf("run.end=%d", int(stopped)+2)
	short := append([]string{"--set", "run.dt=1e-5", "--set", end, "--set", "record.every=20000", "-q"}, set...)
	full := filepath.Join(dir, "full.csv")
	if code, _, errs := cosim(t, append([]string{"run", springScene, "-o", full}, short...)...); code != 0 {
		t.Fatal(errs)
	}
	rest := filepath.Join(dir, "rest.csv")
	code, out, errs := cosim(t, append([]string{"run", springScene, "-o", rest, "--resume", ck}, short...)...)
	if code != 0 {
		t.Fatalf("resume: exit %d %s", code, errs)
	}
	mustContain(t, "resume", out, "resumed from "+ck+" at t = ")
	fb, _ := os.ReadFile(full)
	rb, _ := os.ReadFile(rest)
	fl := strings.Split(strings.TrimSpace(string(fb)), "\n")
	rl := strings.Split(strings.TrimSpace(string(rb)), "\n")
	rows := map[string]string{}
	for _, l := range fl[1:] {
		tm, _, _ := strings.Cut(l, ",")
		rows[tm] = l
	}
	matched := 0
	for i, l := range rl[1:] {
		tm, _, _ := strings.Cut(l, ",")
		w, ok := rows[tm]
		if !ok {
			if i > 0 { // the first row is the state resumed, at the checkpoint's time
				t.Errorf("resumed row at t = %s is off the uninterrupted run's grid", tm)
			}
			continue
		}
		matched++
		if w != l {
			t.Errorf("t = %s: resumed %q, uninterrupted %q", tm, l, w)
		}
	}
	if matched < 2 || rl[len(rl)-1] != fl[len(fl)-1] {
		t.Errorf("%d rows matched; last rows %q and %q", matched, rl[len(rl)-1], fl[len(fl)-1])
	}
}

// An interrupted sweep writes the rows of the runs that finished (every
// one ok, none cut short) and exits 130.
func TestSweepSignal(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s.csv")
	args := []string{"sweep", springScene, "--vary", "mass.mass=1:10:40", "-j", "1", "-o", out,
		"--set", "run.dt=1e-5", "--progress", "log", "--progress-every", "300ms"}
	code, _, errs := startAndSignal(t, args, syscall.SIGINT)
	if code != 130 {
		t.Fatalf("exit %d; stderr:\n%s", code, errs)
	}
	mustContain(t, "stderr", errs, "interrupted by SIGINT: stopped at ", " of 40 runs finished; their rows are in "+out)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) < 2 || len(lines) > 40 {
		t.Fatalf("%d lines, want the header and the finished runs:\n%s", len(lines), b)
	}
	for _, l := range lines[1:] {
		if !strings.HasSuffix(l, ",ok") {
			t.Errorf("row %q: a run cut short or failed", l)
		}
	}
}

// Without a terminal, progress is a log line with the percentage, the
// simulated time, the rate and an ETA, every --progress-every.
func TestRunProgressLog(t *testing.T) {
	code, _, errs := cosim(t, "run", springScene, "--set", "run.dt=1e-5", "--progress-every", "1ns")
	if code != 0 {
		t.Fatal(errs)
	}
	mustContain(t, "progress log", errs, "progress: ", "% t = ", " s of 2 s, step ", "simulated s per s", "steps/s), ETA ")
	if _, _, errs := cosim(t, "run", springScene, "--progress", "none", "--progress-every", "1ns"); strings.Contains(errs, "progress:") {
		t.Errorf("--progress none logged: %s", errs)
	}
	if code, _, errs := cosim(t, "run", springScene, "--progress", "sometimes"); code != 2 || !strings.Contains(errs, `--progress "sometimes": use auto, bar, log, none`) {
		t.Errorf("exit %d %s", code, errs)
	}
}

// --checkpoint-every writes checkpoints while the run goes; the last one
// resumes to the same end state.
func TestRunPeriodicCheckpoint(t *testing.T) {
	dir := t.TempDir()
	ck := filepath.Join(dir, "c.checkpoint")
	code, _, errs := cosim(t, "run", springScene, "--set", "run.dt=0.01", "--checkpoint-every", "1ns", "--checkpoint", ck, "-q")
	if code != 0 {
		t.Fatal(errs)
	}
	mustContain(t, "stderr", errs, "checkpoint at t = ", "written to "+ck)
	if _, err := os.Stat(ck); err != nil {
		t.Fatal(err)
	}
	// Every step was observed (200 steps), so the last checkpoint is the
	// end state: resuming it has nothing left to run, and says so.
	code, _, errs = cosim(t, "run", springScene, "--set", "run.dt=0.01", "--resume", ck, "-q")
	if code != 1 || !strings.Contains(errs, "checkpoint: the checkpoint is at t = 2, step 200: the run ends at t = 2, nothing is left to run") {
		t.Fatalf("resume: exit %d %s", code, errs)
	}
}

// A CSV history that is not plotted streams to its file while the run
// records (constant memory): the file is the same, byte for byte, as
// the one written from memory when the run is also plotted, and no
// temporary file is left beside it.
func TestRunStreamsHistory(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv")
	args := []string{"run", springScene, "--set", "record.every=7", "-q"}
	if code, _, errs := cosim(t, append(args, "-o", a)...); code != 0 {
		t.Fatal(errs)
	}
	if code, _, errs := cosim(t, append(args, "-o", b, "--plot", filepath.Join(dir, "b.png"))...); code != 0 {
		t.Fatal(errs)
	}
	ab, _ := os.ReadFile(a)
	bb, _ := os.ReadFile(b)
	if len(ab) == 0 || !bytes.Equal(ab, bb) {
		t.Fatalf("streamed history (%d bytes) differs from the one written from memory (%d bytes)", len(ab), len(bb))
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}
