package fmi_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cosimgo/cosim/fmi"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/internal/fmitest"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
)

// Out-of-process mode: every test here runs FMUs in cosim's FMU host
// program (built with gcc on first use), so it needs gcc like the
// Reference FMUs do.

// needHost builds the host program, or skips (fails under CI=true).
func needHost(t *testing.T) {
	t.Helper()
	if _, err := fmi.HostProgram(); err != nil {
		fmitest.Missing(t, "%v", err)
	}
}

// TestIsolateReference: every Reference FMU with co-simulation, FMI 2.0
// and 3.0, run isolated reproduces its <Model>_out.csv bit for bit, as it
// does in cosim's process (TestReferenceCoSimulation): the host calls the
// same binary with the same doubles, which cross the pipe as their bits.
func TestIsolateReference(t *testing.T) {
	needHost(t)
	for _, rm := range referenceModels {
		for _, v := range rm.versions {
			f := fmitest.Reference(t, rm.model, v)
			tab := readCSV(t, f.Out)
			t.Run(fmt.Sprintf("%s/FMI%d", rm.model, v), func(t *testing.T) {
				n, err := fmi.Load(f.Zip, fmi.Options{Interface: fmi.InterfaceCoSimulation, Isolate: true})
				if err != nil {
					t.Fatal(err)
				}
				defer n.(interface{ Close() error }).Close()
				fields, h := runReference(t, n, tab, 1)
				compared := compareReference(t, fields, h, tab)
				t.Logf("%d values of %v compared over %d rows", compared, fields, len(tab.rows))
			})
		}
	}
}

// TestIsolateModelExchange: a model-exchange FMU isolated integrates to
// the same bits as in cosim's process — BouncingBall's located impacts
// and final state under adaptive Dormand–Prince (events, event
// iteration, state get/set around events all cross the pipe), and
// VanDerPol under implicit trapezoid with its directional derivatives —
// for FMI 2.0 and 3.0.
func TestIsolateModelExchange(t *testing.T) {
	needHost(t)
	for _, c := range []struct {
		model string
		set   graph.Settings
	}{
		{"BouncingBall", graph.Settings{Mode: graph.MonolithicAdaptive{}, End: 3, Dt: 0.1}},
		{"VanDerPol", graph.Settings{Mode: graph.Monolithic{Method: integrators.ImplicitTrapezoid{Newton: integrators.NewtonOptions{Tol: 1e-12}}}, Dt: 0.01, Steps: 300}},
	} {
		for _, v := range []int{2, 3} {
			t.Run(fmt.Sprintf("%s/FMI%d", c.model, v), func(t *testing.T) {
				f := fmitest.Reference(t, c.model, v)
				run := func(isolate bool) ([]float64, []float64) {
					n, err := fmi.Load(f.Zip, fmi.Options{Interface: fmi.InterfaceModelExchange, Isolate: isolate})
					if err != nil {
						t.Fatal(err)
					}
					s := buildOne(t, "m", n)
					defer s.Close()
					res, err := s.Run(context.Background(), c.set)
					if err != nil {
						t.Fatal(err)
					}
					var ev []float64
					if res.Integrator != nil {
						for _, e := range res.Integrator.Events {
							ev = append(ev, e.T)
						}
					}
					return s.State(nil), ev
				}
				x0, e0 := run(false)
				x1, e1 := run(true)
				sameBits(t, "state", x0, x1)
				sameBits(t, "event times", e0, e1)
				t.Logf("state %v, %d events: the same bits isolated", x1, len(e1))
			})
		}
	}
}

func sameBits(t *testing.T, what string, a, b []float64) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%s: %d values in cosim's process, %d isolated", what, len(a), len(b))
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			t.Errorf("%s[%d]: %v in cosim's process, %v isolated", what, i, a[i], b[i])
		}
	}
}

// TestIsolateCheckpoint: an isolated FMU's state is serialized through
// the host into a graph checkpoint, and a fresh isolated instance
// restored from it continues bit for bit; an iterated coupling group
// re-steps isolated FMUs (fmi3GetFMUState/SetFMUState in the host) to the
// implicit coupling's closed form.
func TestIsolateCheckpoint(t *testing.T) {
	needHost(t)
	_, zip := testFMU(t, "")
	build := func() *graph.Sim {
		n, err := fmi.Load(zip, fmi.Options{Instance: "tf", Isolate: true, Params: map[string]any{"k": 0.5}})
		if err != nil {
			t.Fatal(err)
		}
		g := graph.New()
		g.Add("tf", n)
		g.Add("src", constantNode{v: 3})
		g.Connect("src.value", "tf.u")
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	full := build()
	if _, err := full.Run(context.Background(), graph.Settings{Dt: 0.1, Steps: 10}); err != nil {
		t.Fatal(err)
	}
	half := build()
	if _, err := half.Run(context.Background(), graph.Settings{Dt: 0.1, Steps: 4}); err != nil {
		t.Fatal(err)
	}
	c := half.Checkpoint()
	if c.Err != nil {
		t.Fatal(c.Err)
	}
	fresh := build()
	if err := fresh.Restore(c); err != nil {
		t.Fatal(err)
	}
	if _, err := fresh.Run(context.Background(), graph.Settings{Dt: 0.1, Steps: 6}); err != nil {
		t.Fatal(err)
	}
	sameBits(t, "state after a restored checkpoint", full.State(nil), fresh.State(nil))
}

// misbehave runs the test FMU isolated in a graph of its own, asked to
// misbehave (1 segfault, 2 hang, 3 garbage, 4 exit, 5 abort) in its step
// from t = 0.3, with the node options opts, and returns the result and
// the error of the run with the process id of its host and the sim
// (closed by the test's cleanup).
func misbehave(t *testing.T, how int, opts fmi.Options, ctx context.Context) (*graph.Result, error, *graph.Sim) {
	t.Helper()
	_, zip := testFMU(t, "")
	opts.Instance, opts.Isolate = "tf", true
	opts.Params = map[string]any{"misbehave_at": 0.3, "misbehave": how}
	n, err := fmi.Load(zip, opts)
	if err != nil {
		t.Fatal(err)
	}
	g := graph.New()
	g.Add("tf", n)
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	res, err := s.Run(ctx, graph.Settings{Dt: 0.1, Steps: 10, Record: []string{"tf.x"}})
	return res, err, s
}

// TestIsolateCrash: an isolated FMU that crashes in fmi3DoStep (a
// segmentation fault, exit(3), abort) does not take cosim down: the run
// stops at that step with a *fmi.CallError naming the FMU, the instance,
// the function, the time and how the process ended (with what it printed
// last), wrapping fmi.ErrCrashed; the history of the three good steps is
// kept; closing the graph then frees nothing more (the process is gone)
// and leaves no process or file descriptor behind.
func TestIsolateCrash(t *testing.T) {
	needHost(t)
	for _, c := range []struct {
		name  string
		how   int
		parts []string
	}{
		{"segfault", 1, []string{"): killed by signal SIGSEGV (segmentation fault)"}},
		{"exit", 4, []string{"): it exited with status 3 during the call"}},
		{"abort", 5, []string{"): killed by signal SIGABRT (aborted); it printed last: testfmu: giving up at t=0.3"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			count := lifecycle(t)
			before := openFiles(t)
			res, err, s := misbehave(t, c.how, fmi.Options{}, context.Background())
			wantErr(t, err, fmi.ErrCrashed, append([]string{"node tf", "step 3", "FMU TestFMU (instance tf): fmi3DoStep at t=0.3", " did not return: the FMU's process died (pid "}, c.parts...)...)
			var ce *fmi.CallError
			if !errors.As(err, &ce) || ce.Function != "fmi3DoStep" || ce.Status != fmi.StatusFatal || !numtest.Within(ce.Time, 0.3, 1e-12) || errors.Is(err, fmi.ErrStatus) {
				t.Errorf("CallError %+v", ce)
			}
			if res == nil || res.Steps != 3 || len(res.History.Times) != 4 {
				t.Fatalf("the result keeps %v steps; want the 3 good steps and their 4 rows", res)
			}
			if x := res.History.Column("tf.x"); x[3] != 0.30000000000000004 && !numtest.Within(x[3], 0.3, 1e-15) {
				t.Errorf("x(0.3) = %v in the kept history", x[3])
			}
			// The node refuses further calls: the process is gone.
			_, err = s.Run(context.Background(), graph.Settings{Dt: 0.1, Steps: 1})
			wantErr(t, err, fmi.ErrCrashed, "failed earlier")
			s.Close()
			if got := count(); got["instantiate"] != 1 || got["free"] != 0 || got["terminate"] != 0 {
				t.Errorf("lifecycle %v: the crashed instance is neither terminated nor freed (its process is gone)", got)
			}
			noChildren(t)
			sameFiles(t, before)
		})
	}
}

// TestIsolateHang: an isolated FMU whose fmi3DoStep never returns is
// stopped by the node's timeout (its process killed, the error wrapping
// fmi.ErrTimeout) or by cancelling the run's context given to the node
// (fmi.Options.Context; the error wraps context.Canceled); either way the
// run returns with its history so far and nothing is left running.
func TestIsolateHang(t *testing.T) {
	needHost(t)
	t.Run("timeout", func(t *testing.T) {
		before := openFiles(t)
		start := time.Now()
		res, err, s := misbehave(t, 2, fmi.Options{Timeout: 300 * time.Millisecond}, context.Background())
		wantErr(t, err, fmi.ErrTimeout, "FMU TestFMU (instance tf): fmi3DoStep at t=0.3", " did not return: the FMU's call did not return in time: no answer within 300ms; cosim killed the FMU's process")
		if res == nil || res.Steps != 3 {
			t.Errorf("result %v: want the 3 good steps", res)
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("the run took %s to give up on a 300 ms timeout", d)
		}
		s.Close()
		noChildren(t)
		sameFiles(t, before)
	})
	t.Run("timeout-param", func(t *testing.T) {
		_, zip := testFMU(t, "")
		n, err := fmi.Load(zip, fmi.Options{Params: map[string]any{"isolate": true, "timeout": 0.3, "misbehave_at": 0.0, "misbehave": 2}})
		if err != nil {
			t.Fatal(err)
		}
		s := buildOne(t, "tf", n)
		defer s.Close()
		_, err = s.Run(context.Background(), graph.Settings{Dt: 0.1, Steps: 1})
		wantErr(t, err, fmi.ErrTimeout, "no answer within 300ms")
	})
	t.Run("cancel", func(t *testing.T) {
		before := openFiles(t)
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(500*time.Millisecond, cancel)
		res, err, s := misbehave(t, 2, fmi.Options{Context: ctx}, ctx)
		wantErr(t, err, context.Canceled, "fmi3DoStep at t=0.3", " did not return: cancelled: cosim killed the FMU's process (pid ", "context canceled")
		if res == nil || res.Steps != 3 {
			t.Errorf("result %v: want the 3 good steps", res)
		}
		s.Close()
		noChildren(t)
		sameFiles(t, before)
	})
	t.Run("timeout-without-isolate", func(t *testing.T) {
		_, zip := testFMU(t, "")
		_, err := fmi.Load(zip, fmi.Options{Timeout: time.Second})
		wantErr(t, err, nil, `parameter "timeout" = 1 needs "isolate": true`)
	})
}

// TestIsolateGarbage: an FMU that writes into the host's reply pipe breaks
// the protocol: the call fails with fmi.ErrProtocol, the process is
// killed and reaped.
func TestIsolateGarbage(t *testing.T) {
	needHost(t)
	before := openFiles(t)
	res, err, s := misbehave(t, 3, fmi.Options{}, context.Background())
	wantErr(t, err, fmi.ErrProtocol, "FMU TestFMU (instance tf): fmi3DoStep at t=0.3", " did not return: the FMU's process broke cosim's host protocol: it sent a frame of 2147483647 bytes")
	if res == nil || res.Steps != 3 {
		t.Errorf("result %v: want the 3 good steps", res)
	}
	s.Close()
	noChildren(t)
	sameFiles(t, before)
}

// TestIsolateLifecycle: isolated instances are freed exactly once and
// their processes reaped on every path — many instances run and closed;
// a binary lacking a function (refused before instantiating); a wrong
// instantiation token (NULL from fmi3InstantiateCoSimulation); a node
// dropped without Close (freed by the garbage collector) — with no child
// process, zombie or file descriptor left behind.
func TestIsolateLifecycle(t *testing.T) {
	needHost(t)
	count := lifecycle(t)
	_, zip := testFMU(t, "")
	f, err := fmi.Open(zip)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	before := openFiles(t)

	const n = 12
	g := graph.New()
	for i := 0; i < n; i++ {
		nd, err := f.New(fmi.Options{Instance: "i" + strconv.Itoa(i), Isolate: true})
		if err != nil {
			t.Fatal(err)
		}
		g.Add("i"+strconv.Itoa(i), nd)
	}
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	if got := len(children(t)); got != n {
		t.Errorf("%d host processes for %d isolated instances", got, n)
	}
	if _, err := s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Workers: 2}, Dt: 0.1, Steps: 10}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if x, _ := s.Value("i" + strconv.Itoa(i) + ".x"); !numtest.Within(x[0], 1, 1e-15) {
			t.Errorf("i%d.x = %v, want 1", i, x[0])
		}
	}
	s.Close()
	s.Close()
	if c := count(); c["instantiate"] != n || c["terminate"] != n || c["free"] != n {
		t.Errorf("after %d instances closed: %v", n, c)
	}
	noChildren(t)
	sameFiles(t, before)

	_, noDoStep := testFMU(t, "nodostep")
	_, err = fmi.Load(noDoStep, fmi.Options{Isolate: true})
	wantErr(t, err, fmi.ErrMissingFunction, "does not export fmi3DoStep")

	bad := copyDir(t, f.Dir())
	xml, _ := os.ReadFile(filepath.Join(bad, "modelDescription.xml"))
	os.WriteFile(filepath.Join(bad, "modelDescription.xml"), []byte(strings.Replace(string(xml), "{cosim-testfmu-1}", "{wrong}", 1)), 0o644)
	_, err = fmi.Load(bad, fmi.Options{Isolate: true})
	wantErr(t, err, fmi.ErrStatus, "fmi3InstantiateCoSimulation returned NULL", "wrong instantiation token")

	func() {
		if _, err := f.New(fmi.Options{Instance: "dropped", Isolate: true}); err != nil {
			t.Fatal(err)
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for len(children(t)) > 0 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(20 * time.Millisecond)
	}
	noChildren(t)
	sameFiles(t, before)
	if c := count(); c["instantiate"] != n+1 || c["free"] != n+1 {
		t.Errorf("after every path: %v (want %d instantiations and as many frees)", c, n+1)
	}
}

// TestNeedsIsolation: a binary built with Go cannot be loaded into
// cosim's process (fmi.ErrNeedsIsolation, naming the option to use); the
// same FMU isolated runs (TestImportedBackAgreesBitForBit in package
// export imports an exported cosim FMU this way).
func TestNeedsIsolation(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the test builds an ELF shared library")
	}
	_, zip := testFMU(t, "")
	dir := unpacked(t, zip)
	// Replace the binary by a Go c-shared library: any will do for the
	// check, which reads the file before loading it.
	lib := goSharedLibrary(t)
	data, err := os.ReadFile(lib)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "binaries", fmi.Platform(), "testfmu.so"), data, 0o755)
	_, err = fmi.Load(dir, fmi.Options{})
	wantErr(t, err, fmi.ErrNeedsIsolation, "testfmu.so was built with Go", `import it with "isolate": true`)
}

// goSharedLibrary builds a trivial Go c-shared library (the go command
// is at hand: the tests run under it).
func goSharedLibrary(t *testing.T) string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		fmitest.Missing(t, "the go command is not on PATH: %v", err)
	}
	d := t.TempDir()
	os.WriteFile(filepath.Join(d, "go.mod"), []byte("module golib\n\ngo 1.21\n"), 0o644)
	os.WriteFile(filepath.Join(d, "lib.go"), []byte("package main\n\nimport \"C\"\n\n//export golibAnswer\nfunc golibAnswer() C.int { return 42 }\n\nfunc main() {}\n"), 0o644)
	cmd := exec.Command(goCmd, "build", "-buildmode=c-shared", "-o", "lib.so", ".")
	cmd.Dir = d
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1", "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build -buildmode=c-shared: %v\n%s", err, out)
	}
	return filepath.Join(d, "lib.so")
}

// unpacked copies the unpacked form of an .fmu into a test directory.
func unpacked(t *testing.T, zip string) string {
	t.Helper()
	f, err := fmi.Open(zip)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return copyDir(t, f.Dir())
}

// children lists this process's child processes (zombies included).
func children(t *testing.T) []int {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("counting child processes reads /proc")
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	me := os.Getpid()
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces: split after ')'.
		s := string(stat)
		rest := s[strings.LastIndexByte(s, ')')+2:]
		f := strings.Fields(rest)
		if len(f) > 1 {
			if ppid, _ := strconv.Atoi(f[1]); ppid == me {
				out = append(out, pid)
			}
		}
	}
	return out
}

// noChildren fails when a child process (a host, or its zombie) is left.
func noChildren(t *testing.T) {
	t.Helper()
	if c := children(t); len(c) > 0 {
		t.Errorf("child processes left: %v", c)
	}
}

// openFiles lists this process's open file descriptors.
func openFiles(t *testing.T) map[string]string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("listing open files reads /proc")
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range ents {
		target, _ := os.Readlink("/proc/self/fd/" + e.Name())
		out[e.Name()] = target
	}
	return out
}

// sameFiles fails when file descriptors are open that were not before
// (the ReadDir of openFiles itself aside).
func sameFiles(t *testing.T, before map[string]string) {
	t.Helper()
	var extra []string
	for fd, target := range openFiles(t) {
		if _, ok := before[fd]; !ok && !strings.HasPrefix(target, "/proc/") {
			extra = append(extra, fd+" → "+target)
		}
	}
	if len(extra) > 0 {
		t.Errorf("file descriptors left open: %v", extra)
	}
}

var _ node.Node
