package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/cosimgo/cosim/docs"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/nodes"
)

const (
	chainScene  = "../../examples/scenes/mass-spring-chain.json"
	eventsScene = "../../examples/scenes/bouncing-ball-events.json"
)

// A run that fails part way (a stiff spring blows the explicit chain up
// to a non-finite value; run.allow_growth keeps the growth watch from
// stopping it first) still writes the history of its good steps,
// replacing an old -o file, draws the plot, and exits 1 with the error.
func TestRunFailureKeepsHistory(t *testing.T) {
	dir := t.TempDir()
	out, fig := filepath.Join(dir, "h.csv"), filepath.Join(dir, "h.png")
	if err := os.WriteFile(out, []byte("t,stale\n0,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, errs := cosim(t, "run", chainScene, "--set", "s1.stiffness=[1e9,0,0]", "--set", "run.allow_growth=true", "-o", out, "--plot", fig, "-q")
	if code != 1 {
		t.Fatalf("exit %d, want 1; stdout %q, stderr %q", code, stdout, errs)
	}
	mustContain(t, "stderr", errs, "not finite")
	mustContain(t, "summary", stdout, "mass-spring chain: co-simulation (gauss-seidel)", "written to "+out, "the last good state before the failure")
	h, err := readHistoryFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Times) < 2 || h.Columns[0] != "m1.position[0]" {
		t.Fatalf("history after the failure: %d rows, columns %v", len(h.Times), h.Columns)
	}
	m := regexp.MustCompile(`step \d+ at t=([0-9.e+-]+)`).FindStringSubmatch(errs)
	if m == nil {
		t.Fatalf("no failure time in %q", errs)
	}
	tf, _ := strconv.ParseFloat(m[1], 64)
	if last := h.Times[len(h.Times)-1]; last >= tf {
		t.Errorf("history ends at t = %v, not before the failure at %v", last, tf)
	}
	for i, r := range h.Rows {
		for _, v := range r {
			if v != v || v > 1e300 || v < -1e300 {
				t.Fatalf("row %d holds a non-finite value: %v", i, r)
			}
		}
	}
	if st, err := os.Stat(fig); err != nil || st.Size() < 1000 {
		t.Errorf("plot of the failed run: %v", err)
	}
	// JSON lines to stdout: the rows reached, then the error.
	code, stdout, errs = cosim(t, "run", chainScene, "--set", "s1.stiffness=[1e9,0,0]", "--set", "run.allow_growth=true", "-o", "-", "--format", "jsonl")
	if code != 1 || !strings.HasPrefix(stdout, `{"t":0,`) || !strings.Contains(errs, "not finite") {
		t.Errorf("-o -: exit %d, stdout %.60q, stderr %q", code, stdout, errs)
	}
}

// Monolithic runs count the events their integrator locates: the events
// scene reports its bounces, a fixed-step monolithic run without event
// nodes 0, and a co-simulation, whose nodes handle their events inside
// their own steps, says the count is not available instead of 0.
func TestRunEvents(t *testing.T) {
	code, out, errs := cosim(t, "run", eventsScene, "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	m := regexp.MustCompile(`events (\d+)\n`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no event count in %q", out)
	}
	if n, _ := strconv.Atoi(m[1]); n < 1 {
		t.Errorf("the adaptive bouncing ball located %d events:\n%s", n, out)
	}
	mustContain(t, "adaptive summary", out, "monolithic (adaptive)")
	_, out, _ = cosim(t, "run", springScene, "-q")
	mustContain(t, "co-simulation summary", out, "events n/a")
	if strings.Contains(out, "events 0") {
		t.Errorf("a co-simulation reports events 0:\n%s", out)
	}
	_, out, _ = cosim(t, "run", "../../examples/scenes/two-mass-modes.json", "-q")
	mustContain(t, "fixed-step monolithic summary", out, "monolithic (generalized-alpha)", "events 0\n")
}

// End times print rounded to 12 significant digits.
func TestFmtTime(t *testing.T) {
	for x, want := range map[float64]string{
		0.1 + 0.1 + 0.1: "0.3",
		2:               "2",
		10:              "10",
		1e-3 * 57:       "0.057",
		1.5e-14:         "1.5e-14",
		123456.789:      "123456.789",
	} {
		if got := fmtTime(x); got != want {
			t.Errorf("fmtTime(%v) = %q, want %q", x, got, want)
		}
	}
	_, out, errs := cosim(t, "run", springScene, "--set", "run.dt=0.1", "--set", "run.end=0.3", "-q")
	if !regexp.MustCompile(`steps to t = 0\.3 in`).MatchString(out) {
		t.Errorf("summary %q (stderr %q), want t = 0.3", out, errs)
	}
}

// A grid with fewer runs than shards leaves shards empty: merging only
// empty tables fails instead of writing an empty table.
func TestSweepMergeEmptyShards(t *testing.T) {
	dir := t.TempDir()
	grid := []string{"sweep", "../../examples/scenes/bouncing-ball.json", "--vary", "ball.elasticity=0.5,0.9", "-y", "ball.position", "--set", "run.end=0.5", "-q"}
	var shards []string
	for i := range 4 {
		p := filepath.Join(dir, "s"+strconv.Itoa(i)+".csv")
		if code, _, errs := cosim(t, append(grid, "--shard", strconv.Itoa(i)+"/4", "-o", p)...); code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, code, errs)
		}
		shards = append(shards, p)
	}
	code, out, errs := cosim(t, "sweep", "merge", shards[2], shards[3])
	if code != 1 || !strings.Contains(errs, "no runs at all") || out != "" {
		t.Errorf("merge of empty shards: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, _, errs = cosim(t, "sweep", "merge", shards[2], shards[3], shards[0])
	if code != 1 || !strings.Contains(errs, "1 of 2 runs are missing (runs [1]") {
		t.Errorf("merge without shard 1: exit %d, stderr %q", code, errs)
	}
	code, out, errs = cosim(t, "sweep", "merge", shards[3], shards[1], shards[2], shards[0])
	if code != 0 || strings.Count(out, "\n") != 3 {
		t.Errorf("merge of every shard: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// --keep-going: a shard with failed runs writes them with the reason in
// the status column and exits 0; merge reports them (exit 1, or 0 with
// --keep-going).
func TestSweepKeepGoing(t *testing.T) {
	dir := t.TempDir()
	grid := []string{"sweep", "../../examples/scenes/bouncing-ball.json", "--vary", "ball.elasticity=0.5,2,0.7", "-y", "ball.position", "--set", "run.end=0.5", "-q"}
	s0, s1 := filepath.Join(dir, "s0.csv"), filepath.Join(dir, "s1.csv")
	if code, _, errs := cosim(t, append(grid, "--shard", "1/2", "-o", s1)...); code != 1 || !strings.Contains(errs, "1 of 1 runs failed") {
		t.Errorf("without --keep-going: exit %d, stderr %q", code, errs)
	}
	code, _, errs := cosim(t, append(grid, "--shard", "1/2", "-o", s1, "--keep-going")...)
	if code != 0 || !strings.Contains(errs, "1 of 1 runs failed") {
		t.Errorf("--keep-going: exit %d, stderr %q", code, errs)
	}
	if code, _, errs := cosim(t, append(grid, "--shard", "0/2", "-o", s0, "--keep-going")...); code != 0 {
		t.Fatalf("shard 0: exit %d: %s", code, errs)
	}
	code, out, errs := cosim(t, "sweep", "merge", s0, s1)
	if code != 1 || !strings.Contains(errs, "1 of 3 runs failed (runs [1]") {
		t.Errorf("merge: exit %d, stderr %q", code, errs)
	}
	mustContain(t, "merged table", out, "\n0,3,0.5,", "\n1,3,2,", "error: ", "\n2,3,0.7,")
	code, out2, errs := cosim(t, "sweep", "merge", "--keep-going", s1, s0)
	if code != 0 || out2 != out || !strings.Contains(errs, "1 of 3 runs failed") {
		t.Errorf("merge --keep-going: exit %d, stderr %q", code, errs)
	}
}

// plot --scene takes the columns' units from the scene: one panel per
// unit, as run --plot draws.
func TestPlotUnits(t *testing.T) {
	dir := t.TempDir()
	h := filepath.Join(dir, "h.csv")
	if code, _, errs := cosim(t, "run", springScene, "-o", h, "-q"); code != 0 {
		t.Fatal(errs)
	}
	head, _ := os.ReadFile(h)
	if first, _, _ := strings.Cut(string(head), "\n"); strings.Contains(first, "(") {
		t.Logf("the CSV header now carries units: %q", first)
	}
	fig := filepath.Join(dir, "p.svg")
	code, _, errs := cosim(t, "plot", h, "--scene", springScene, "-o", fig)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	svg, _ := os.ReadFile(fig)
	// Axes are labelled with the field names and units, not "value".
	mustContain(t, "svg", string(svg), "spring.displacement (m)", "spring.force (N)", "spring.force[1]", "spring.displacement[1]")
	code, _, errs = cosim(t, "plot", h, "-o", fig, "--force")
	if code != 0 {
		t.Errorf("plot without --scene: exit %d", code)
	}
	mustContain(t, "plot without --scene", errs, "add --scene SCENE")
	svg, _ = os.ReadFile(fig)
	if s := string(svg); !strings.Contains(s, ">spring.displacement, spring.force<") || strings.Contains(s, "(m)") || strings.Contains(s, ">value<") {
		t.Errorf("without --scene the plot should have one panel labelled with the field names, without units")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"plot", h, "--scene", springScene, "--ylabel", "x"}, "--ylabel labels a single panel"},
		{[]string{"plot", h, "--set", "mass.mass=2"}, "--set applies to --scene"},
	} {
		if code, _, errs := cosim(t, c.args...); code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, stderr %q", c.args, code, errs)
		}
	}
	if code, _, errs := cosim(t, "plot", h, "--scene", springScene, "-y", "spring.force[1]", "--ylabel", "F (N)", "-o", fig, "--force"); code != 0 {
		t.Errorf("one unit with --ylabel: exit %d %s", code, errs)
	}
}

// Stacked panels whose y tick labels differ in width still have their
// data areas (and so their time axes) at one left edge and width.
func TestPanelsAligned(t *testing.T) {
	h := &graph.History{Columns: []string{"small", "big"}}
	for k := range 50 {
		x := float64(k) / 10
		h.Times = append(h.Times, x)
		h.Rows = append(h.Rows, []float64{1e-3 * x, -123456.75 * x})
	}
	plots, legends, err := buildPanels(h, []panel{{cols: []string{"small"}, ylabel: "value (m)"}, {cols: []string{"big"}, ylabel: "value (N)"}}, "t")
	if err != nil {
		t.Fatal(err)
	}
	dc := draw.New(vgimg.New(22*vg.Centimeter, 14*vg.Centimeter))
	pcs, lcs := layoutPanels(dc, plots, legends)
	d0, d1 := plots[0].DataCanvas(pcs[0]), plots[1].DataCanvas(pcs[1])
	const tol = 0.01
	if d := d0.Min.X - d1.Min.X; d > tol || d < -tol {
		t.Errorf("data areas start at x = %v and %v", d0.Min.X, d1.Min.X)
	}
	if d := d0.Max.X - d1.Max.X; d > tol || d < -tol {
		t.Errorf("data areas end at x = %v and %v", d0.Max.X, d1.Max.X)
	}
	for i := range lcs {
		if lcs[i].Min.X < pcs[i].Max.X {
			t.Errorf("legend %d overlaps its plot", i)
		}
	}
	// Unaligned, the tick labels would have put them apart: the test
	// has teeth.
	tiles := draw.Tiles{Rows: 2, Cols: 1}
	u0, u1 := plots[0].DataCanvas(tiles.At(dc, 0, 0)), plots[1].DataCanvas(tiles.At(dc, 0, 1))
	if d := u0.Min.X - u1.Min.X; d < 1 && d > -1 {
		t.Errorf("the panels' tick labels are of one width (%v, %v): the test checks nothing", u0.Min.X, u1.Min.X)
	}
}

// syncBuffer is a writer safe for the bar's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// fakeClock is a settable clock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// The bar stays silent for its first second, then draws, and erases
// itself when stopped.
func TestProgressDelay(t *testing.T) {
	run := func(ticksAt ...time.Duration) string {
		var w syncBuffer
		clock := &fakeClock{t: time.Unix(0, 0)}
		ticks := make(chan time.Time) // unbuffered: a send returns once the bar took the tick
		b := &progressBar{w: &w, end: 2, done: make(chan struct{}), now: clock.now, ticks: ticks}
		b.p.Report(1)
		b.start()
		var at time.Duration
		for _, d := range ticksAt {
			clock.add(d - at)
			at = d
			ticks <- clock.now()
		}
		b.stop()
		return w.String()
	}
	if out := run(100*time.Millisecond, 500*time.Millisecond, 999*time.Millisecond); out != "" {
		t.Errorf("the bar drew within its first second: %q", out)
	}
	out := run(500*time.Millisecond, 1100*time.Millisecond, 1500*time.Millisecond)
	mustContain(t, "bar", out, "\r[###############...............]  50% t = 1 / 2 s", ", 1s left")
	if strings.Count(out, "\r[") != 2 || !strings.HasSuffix(out, "\r\033[K") {
		t.Errorf("want two draws and an erase: %q", out)
	}
	// A nil bar (quiet, no terminal) stops without effect.
	var nb *progressBar
	nb.stop()
}

// No bar on a non-terminal or with -q, even for a run long enough to
// draw one; on a terminal without -q, a long run draws it on stderr.
func TestProgressQuiet(t *testing.T) {
	if isTerminal(&bytes.Buffer{}) {
		t.Error("a buffer is a terminal")
	}
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Error("a regular file is a terminal")
	}
	if b := newProgress(f, false, 1); b != nil {
		b.stop()
		t.Error("a bar on a regular file")
	}
	old := stderrIsTerminal
	defer func() { stderrIsTerminal = old }()
	stderrIsTerminal = func(io.Writer) bool { return true }
	if b := newProgress(io.Discard, true, 1); b != nil {
		b.stop()
		t.Error("a bar with -q")
	}
	// A run longer than the (shortened) delay: the bar shows on a
	// terminal only without -q, and is erased at the end.
	oldDelay, oldEvery := progressDelay, progressEvery
	defer func() { progressDelay, progressEvery = oldDelay, oldEvery }()
	progressDelay, progressEvery = 0, time.Millisecond
	// (Jacobi: the scene's Gauss–Seidel warns on stderr that it is
	// unstable at its dt.) The run lasts about 0.5 s on an idle machine,
	// some 500 ticks of the bar: a run of 20 s of simulated time (50 ms)
	// could end before a loaded machine ran the bar's goroutine once.
	long := []string{"run", chainScene, "--set", "run.end=200", "--set", "run.coupling.scheme=jacobi"}
	code, _, errs := cosim(t, append(long, "-q")...)
	if code != 0 || errs != "" {
		t.Errorf("-q: exit %d, stderr %q", code, errs)
	}
	code, _, errs = cosim(t, long...)
	if code != 0 || !strings.Contains(errs, "\r[") || !strings.HasSuffix(errs, "\r\033[K") {
		t.Errorf("terminal: exit %d, stderr %q, want a bar erased at the end", code, errs)
	}
	stderrIsTerminal = old
	if code, _, errs = cosim(t, long...); code != 0 || errs != "" {
		t.Errorf("not a terminal: exit %d, stderr %q", code, errs)
	}
	// sweeps too.
	sweep := []string{"sweep", "../../examples/scenes/bouncing-ball.json", "--vary", "ball.elasticity=0.5,0.9", "-y", "ball.position", "--set", "run.end=0.5"}
	if code, _, errs := cosim(t, sweep...); code != 0 || errs != "" {
		t.Errorf("sweep, not a terminal: exit %d, stderr %q", code, errs)
	}
}

// checkLinks checks that every relative Markdown link in dir's .md files
// names an existing file.
func checkLinks(t *testing.T, dir string) {
	t.Helper()
	link := regexp.MustCompile(`\]\(([^)#]+)(#[^)]*)?\)`)
	files, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	if len(files) == 0 {
		t.Fatalf("no Markdown files in %s", dir)
	}
	n := 0
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") {
				continue
			}
			n++
			if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(target))); err != nil {
				t.Errorf("%s links %s: %v", filepath.Base(f), target, err)
			}
		}
	}
	if n == 0 {
		t.Errorf("no relative links checked in %s", dir)
	}
}

// Outside the module, guide -o DIR still writes guides whose links
// resolve, says which guides refer to the Example sections it cannot
// write, and prints no deprecation warnings.
func TestGuideOutsideModule(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "guides")
	t.Chdir(t.TempDir())
	code, _, errs := cosim(t, "guide", "-o", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	mustContain(t, "stderr", errs, "without their Example sections", "the springdamper guide's text refers to its Example section")
	if strings.Contains(errs, "deprecated") {
		t.Errorf("deprecation warnings: %s", errs)
	}
	checkLinks(t, dir)
	readme, _ := os.ReadFile(filepath.Join(dir, "README.md"))
	mustContain(t, "README.md", string(readme), "](anomalies.md#", "docs/describe-json.md in the cosim repository")
	// One guide with anomalies: anomalies.md beside it, its links to
	// guides not written become text.
	one := filepath.Join(t.TempDir(), "one")
	if code, _, errs := cosim(t, "guide", "-o", one, "springdamper"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	checkLinks(t, one)
}

// Written into the module's docs/nodes, the guides keep their links
// byte for byte: the same files as go generate ./docs.
func TestGuideLinksInPlace(t *testing.T) {
	root, err := docs.ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	names := nodes.Registry().Names()
	lk, err := newLinker(filepath.Join(root, "docs", "nodes"), root, names, names[:1])
	if err != nil {
		t.Fatal(err)
	}
	want, err := docs.Files(nodes.Registry(), root)
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range want {
		if got := lk.guide(b); !lk.inPlace || !bytes.Equal(got, b) {
			t.Errorf("%s: links changed in place", name)
		}
	}
}

// A scene with problems in several stages reports them all in one run,
// and before the "records nothing" hint.
func TestRunReportsEveryProblem(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.json")
	const bad = `{"name": "bad",
 "nodes": [{"name": "b", "type": "ball", "params": {"elasticity": 2}}, {"name": "t", "type": "table"}],
 "edges": [{"from": "t.position", "to": "b.table_position"}],
 "run": {"dt": 0.01, "steps": 10, "workers": -3}}`
	if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := cosim(t, "run", path, "-o", filepath.Join(t.TempDir(), "h.csv"), "-q")
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr %q", code, errs)
	}
	mustContain(t, "stderr", errs, "run.workers: -3 is negative", `nodes[0].params: ball: parameter "elasticity" = 2 is out of range`)
	if strings.Contains(errs, "records nothing") {
		t.Errorf("hint before the scene's own errors: %q", errs)
	}
}
