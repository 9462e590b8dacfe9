package fmi_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cosimgo/cosim/fmi"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/fmitest"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
)

// wantErr fails unless err wraps target and its message holds every part.
func wantErr(t *testing.T, err, target error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one wrapping %v", target)
	}
	if target != nil && !errors.Is(err, target) {
		t.Errorf("error %q does not wrap %v", err, target)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not say %q", err, p)
		}
	}
}

// copyDir copies an unpacked FMU so that a test can damage its copy.
func copyDir(t *testing.T, from string) string {
	t.Helper()
	to := filepath.Join(t.TempDir(), filepath.Base(from))
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return to
}

// TestBadArchives: an .fmu that is not a zip, a truncated one and one
// whose entry leaves the archive are each refused with ErrArchive naming
// the file, and leave nothing in the temporary directory.
func TestBadArchives(t *testing.T) {
	left := privateTemp(t)
	dir := t.TempDir()
	ref := fmitest.Reference(t, "BouncingBall", 3)

	garbage := filepath.Join(dir, "garbage.fmu")
	os.WriteFile(garbage, []byte("this is not a zip archive"), 0o644)
	_, err := fmi.Open(garbage)
	wantErr(t, err, fmi.ErrArchive, "garbage.fmu", "not a readable .fmu (zip) archive")

	data, _ := os.ReadFile(ref.Zip)
	truncated := filepath.Join(dir, "truncated.fmu")
	os.WriteFile(truncated, data[:len(data)/2], 0o644)
	_, err = fmi.Open(truncated)
	wantErr(t, err, fmi.ErrArchive, "truncated.fmu")

	// A damaged entry (its compressed bytes flipped): the checksum fails
	// while unpacking, after the temporary directory was made.
	damaged := filepath.Join(dir, "damaged.fmu")
	bad := append([]byte(nil), data...)
	for i := 200; i < 260 && i < len(bad)/2; i++ {
		bad[i] ^= 0x5a
	}
	os.WriteFile(damaged, bad, 0o644)
	_, err = fmi.Open(damaged)
	wantErr(t, err, fmi.ErrArchive, "damaged.fmu")

	evil := filepath.Join(dir, "evil")
	os.MkdirAll(filepath.Join(evil, "sub"), 0o755)
	os.WriteFile(filepath.Join(evil, "sub", "x.txt"), []byte("x"), 0o644)
	if err := fmitest.Zip(evil, filepath.Join(dir, "evil.fmu")); err != nil {
		t.Fatal(err)
	}
	// Rewrite the entry name to climb out of the archive.
	z, _ := os.ReadFile(filepath.Join(dir, "evil.fmu"))
	z = []byte(strings.ReplaceAll(string(z), "sub/x.txt", "../../x.t"))
	os.WriteFile(filepath.Join(dir, "evil.fmu"), z, 0o644)
	_, err = fmi.Open(filepath.Join(dir, "evil.fmu"))
	wantErr(t, err, fmi.ErrArchive, "leaves the archive")

	if l := left(); len(l) > 0 {
		t.Errorf("left in the temporary directory: %v", l)
	}
}

// TestBadModelDescriptions: a truncated modelDescription.xml (with its
// line), one that is not an FMU's, and an FMI version cosim does not
// import are each ErrModelDescription naming the FMU.
func TestBadModelDescriptions(t *testing.T) {
	ref := fmitest.Reference(t, "BouncingBall", 3)
	xml, _ := os.ReadFile(filepath.Join(ref.Dir, "modelDescription.xml"))
	for _, c := range []struct {
		name, xml string
		parts     []string
	}{
		{"truncated", string(xml[:len(xml)*2/3]), []string{"invalid modelDescription.xml: line"}},
		{"other", `<?xml version="1.0"?><project/>`, []string{"root element is <project>"}},
		{"fmi1", `<?xml version="1.0"?><fmiModelDescription fmiVersion="1.0" modelName="M"/>`, []string{`fmiVersion "1.0": cosim imports FMI 2.0 and 3.0`}},
		{"empty", ``, []string{"no <fmiModelDescription> element"}},
		{"bad-start", strings.Replace(string(xml), `start="0.7"`, `start="zero point seven"`, 1), []string{`variable "e": start "zero point seven": "zero" is not a number`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := copyDir(t, ref.Dir)
			os.WriteFile(filepath.Join(d, "modelDescription.xml"), []byte(c.xml), 0o644)
			_, err := fmi.Open(d)
			wantErr(t, err, fmi.ErrModelDescription, append(c.parts, d)...)
		})
	}
}

// TestWrongPlatform: an FMU with a binary for another platform only, or
// none at all, is ErrPlatform naming the binary it needs and what it has.
func TestWrongPlatform(t *testing.T) {
	ref := fmitest.Reference(t, "BouncingBall", 3)
	d := copyDir(t, ref.Dir)
	os.Rename(filepath.Join(d, "binaries", fmi.Platform()), filepath.Join(d, "binaries", "aarch64-darwin"))
	_, err := fmi.Open(d)
	wantErr(t, err, fmi.ErrPlatform, "needs binaries/"+fmi.Platform()+"/BouncingBall.so", "it has binaries for aarch64-darwin")

	os.RemoveAll(filepath.Join(d, "binaries"))
	_, err = fmi.Open(d)
	wantErr(t, err, fmi.ErrPlatform, "a source-only FMU")

	// A file that is not a loadable library.
	d = copyDir(t, ref.Dir)
	os.WriteFile(filepath.Join(d, "binaries", fmi.Platform(), "BouncingBall.so"), []byte("not an ELF file"), 0o644)
	_, err = fmi.Load(d, fmi.Options{})
	wantErr(t, err, fmi.ErrPlatform, "cannot load", "BouncingBall.so")
}

// TestMissingFunction: a binary that lacks fmi3DoStep is refused before
// any instance is made, naming the function.
func TestMissingFunction(t *testing.T) {
	count := lifecycle(t)
	left := privateTemp(t)
	_, zip := testFMU(t, "nodostep")
	_, err := fmi.Load(zip, fmi.Options{})
	wantErr(t, err, fmi.ErrMissingFunction, "FMU TestFMU", "does not export fmi3DoStep")
	var mf *fmi.MissingFunctionError
	if !errors.As(err, &mf) || len(mf.Missing) != 1 || mf.Missing[0] != "fmi3DoStep" {
		t.Errorf("missing functions %+v, want exactly fmi3DoStep", mf)
	}
	if c := count(); c["instantiate"] != 0 {
		t.Errorf("instantiated %d times before the functions were checked", c["instantiate"])
	}
	if l := left(); len(l) > 0 {
		t.Errorf("left in the temporary directory: %v", l)
	}
}

// runTestFMU runs the test FMU with params in a graph of its own from
// t = 0 by 0.1 for 10 steps and returns the sim, the result and error.
func runTestFMU(t *testing.T, variant string, params map[string]any) (*graph.Sim, *graph.Result, error) {
	t.Helper()
	_, zip := testFMU(t, variant)
	n, err := fmi.Load(zip, fmi.Options{Instance: "tf", Params: params})
	if err != nil {
		t.Fatal(err)
	}
	g := graph.New()
	g.Add("tf", n)
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(context.Background(), graph.Settings{Dt: 0.1, Steps: 10, Record: []string{"tf.x"}})
	return s, res, err
}

// TestFailingStatuses: fmi3DoStep returning Warning, Discard, Error or
// Fatal at t = 0.3 stops the run there with a *fmi.CallError naming the
// FMU, the instance, the function, the status and the time, carrying the
// FMU's own log message, inside the graph's *node.StateError naming the
// node and step; the steps before it are kept. The instance is then
// freed exactly once (Terminate first only after a Warning, which leaves
// the FMU usable), except after Fatal: the standard forbids calling any
// function of the FMU again, FreeInstance included.
func TestFailingStatuses(t *testing.T) {
	for _, c := range []struct {
		status fmi.CallStatus
		code   int
	}{{fmi.StatusWarning, 1}, {fmi.StatusDiscard, 2}, {fmi.StatusError, 3}, {fmi.StatusFatal, 4}} {
		t.Run(c.status.String(), func(t *testing.T) {
			count := lifecycle(t)
			left := privateTemp(t)
			s, res, err := runTestFMU(t, "", map[string]any{"fail_at": 0.3, "fail_status": c.code})
			wantErr(t, err, fmi.ErrStatus, "node tf", "step 3", "FMU TestFMU (instance tf): fmi3DoStep returned "+c.status.String()+" at t=0.3",
				"the FMU logged: "+c.status.String()+": [logStatusError] DoStep from t=0.3 fails as asked (fail_at = 0.3)")
			var ce *fmi.CallError
			if !errors.As(err, &ce) || ce.Function != "fmi3DoStep" || ce.Status != c.status || !numtest.Within(ce.Time, 0.3, 1e-12) {
				t.Errorf("CallError %+v", ce)
			}
			var se *node.StateError
			if !errors.As(err, &se) || se.Node != "tf" || se.Step != 3 {
				t.Errorf("StateError %+v", se)
			}
			if c.status == fmi.StatusFatal && !errors.Is(err, fmi.ErrFatal) {
				t.Errorf("a Fatal status should wrap ErrFatal")
			}
			if res == nil || res.Steps != 3 || len(res.History.Times) != 4 {
				t.Errorf("the result keeps %v steps and %v rows; want the 3 good steps", res.Steps, len(res.History.Times))
			}
			if err := s.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			if err := s.Close(); err != nil {
				t.Errorf("second Close: %v", err)
			}
			want := map[string]int{"instantiate": 1, "free": 1}
			switch c.status {
			case fmi.StatusWarning:
				want["terminate"] = 1
			case fmi.StatusFatal:
				want["free"] = 0
			}
			got := count()
			for k, v := range want {
				if got[k] != v {
					t.Errorf("%s called %d times, want %d (%v)", k, got[k], v, got)
				}
			}
			if c.status != fmi.StatusFatal {
				if l := left(); len(l) > 0 {
					t.Errorf("left in the temporary directory: %v", l)
				}
			}
		})
	}
}

// TestNaNOutput: an FMU output that turns NaN stops the run with an
// error naming the FMU, the function that read it, the variable and the
// time, wrapping fmi.ErrNonFinite, in a StateError naming node.field.
func TestNaNOutput(t *testing.T) {
	count := lifecycle(t)
	s, res, err := runTestFMU(t, "", map[string]any{"nan_at": 0.25})
	wantErr(t, err, fmi.ErrNonFinite, "node tf.x", "FMU TestFMU (instance tf): fmi3GetFloat64 gave x = NaN at t=0.3")
	if res.Steps != 2 {
		t.Errorf("%d good steps kept, want 2", res.Steps)
	}
	s.Close()
	if c := count(); c["instantiate"] != 1 || c["free"] != 1 || c["terminate"] != 1 {
		t.Errorf("lifecycle %v", c)
	}
}

// TestBadInputValue: an integer or Boolean input given a value its type
// cannot hold is refused with the input, the value and the time.
func TestBadInputValue(t *testing.T) {
	f := fmitest.Reference(t, "Feedthrough", 3)
	n, err := fmi.Load(f.Zip, fmi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer n.(interface{ Close() error }).Close()
	g := graph.New()
	g.Add("ft", n)
	g.Add("src", constantNode{v: 2.5})
	g.Connect("src.value", "ft.Int8_input")
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Run(context.Background(), graph.Settings{Dt: 0.1, Steps: 2})
	wantErr(t, err, fmi.ErrNotRepresentable, "ft", "input Int8_input = 2.5 is not an integer (the variable is an Int8) at t=0")
}

// constantNode is a stateless source of one number.
type constantNode struct {
	node.Stateless
	v float64
}

var constantSpec = node.NewSpec(node.Spec{Type: "const", Outputs: []node.Field{{Name: "value", Units: "1", Description: "v"}}})

func (c constantNode) Spec() *node.Spec { return constantSpec }
func (c constantNode) Outputs(_ float64, _ []float64, _ node.Inputs, dst []float64) error {
	dst[0] = c.v
	return nil
}

// TestLifecycle: every instance is freed exactly once, and the
// temporary directory of an .fmu is removed, on every path: a normal run
// closed twice; a bad parameter (refused before instantiating);
// instantiation returning NULL (a wrong token); a cancelled run; a node
// never closed, freed when it is garbage collected.
func TestLifecycle(t *testing.T) {
	count := lifecycle(t)
	left := privateTemp(t)
	dir, zip := testFMU(t, "")

	s, _, err := runTestFMU(t, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := s.Value("tf.x")
	if !numtest.Within(x[0], 1, 1e-15) { // x' = k·u = 1 over 10 steps of 0.1, summed in float64
		t.Errorf("x(1) = %v, want 1", x[0])
	}
	s.Close()
	s.Close()
	if c := count(); c["instantiate"] != 1 || c["terminate"] != 1 || c["free"] != 1 {
		t.Errorf("normal run: %v", c)
	}

	_, err = fmi.Load(zip, fmi.Options{Params: map[string]any{"k": 11.0}})
	wantErr(t, err, nil, `fmu TestFMU: parameter "k" = 11 is out of range; valid: [-10, 10]`)
	if c := count(); c["instantiate"] != 1 {
		t.Errorf("a bad parameter instantiated the FMU: %v", c)
	}

	bad := copyDir(t, dir)
	md, _ := os.ReadFile(filepath.Join(bad, "modelDescription.xml"))
	os.WriteFile(filepath.Join(bad, "modelDescription.xml"), []byte(strings.Replace(string(md), "{cosim-testfmu-1}", "{another}", 1)), 0o644)
	_, err = fmi.Load(bad, fmi.Options{})
	wantErr(t, err, nil, "fmi3InstantiateCoSimulation returned NULL", "wrong instantiation token")

	// Cancelled by an observer at step 4.
	n, err := fmi.Load(zip, fmi.Options{Instance: "c"})
	if err != nil {
		t.Fatal(err)
	}
	g := graph.New()
	g.Add("c", n)
	cs, _ := g.Build()
	ctx, cancel := context.WithCancel(context.Background())
	res, err := cs.Run(ctx, graph.Settings{Dt: 0.1, Steps: 100, Observer: graph.ObserverFunc(func(v *graph.View) error {
		if v.Step == 4 {
			cancel()
		}
		return nil
	})})
	if !errors.Is(err, context.Canceled) || res.Status != graph.Cancelled {
		t.Errorf("cancelled run: %v, status %v", err, res.Status)
	}
	cs.Close()
	if c := count(); c["instantiate"] != 2 || c["free"] != 2 {
		t.Errorf("after the cancelled run: %v", c)
	}

	// Dropped without Close: freed by the garbage collector's cleanup.
	func() {
		n, err := fmi.Load(zip, fmi.Options{Instance: "dropped"})
		if err != nil {
			t.Fatal(err)
		}
		_ = n.Spec()
	}()
	// The cleanup frees the instance, then removes the unpacked files.
	deadline := time.Now().Add(10 * time.Second)
	for (count()["free"] < 3 || len(left()) > 0) && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if c := count(); c["instantiate"] != 3 || c["free"] != 3 {
		t.Errorf("a node dropped without Close was not freed: %v", c)
	}
	if l := left(); len(l) > 0 {
		t.Errorf("left in the temporary directory: %v", l)
	}
}

// TestTwoInstances: one FMU loaded twice in one graph gives two
// independent instances: BouncingBall with e = 0.7 and e = 0.9 side by
// side follows, each, exactly the run of a graph holding it alone.
func TestTwoInstances(t *testing.T) {
	f := fmitest.Reference(t, "BouncingBall", 3)
	load := func(e float64, name string) node.Node {
		n, err := fmi.Load(f.Zip, fmi.Options{Instance: name, Params: map[string]any{"e": e}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { n.(interface{ Close() error }).Close() })
		return n
	}
	run := func(names []string, es []float64) map[string][]float64 {
		g := graph.New()
		var rec []string
		for i, name := range names {
			g.Add(name, load(es[i], name))
			rec = append(rec, name+".h")
		}
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Run(context.Background(), graph.Settings{Dt: 0.01, Steps: 300, Record: rec, Mode: graph.CoSimulation{Workers: 2, Grain: 1}})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]float64{}
		for _, name := range names {
			out[name] = res.History.Column(name + ".h")
		}
		return out
	}
	both := run([]string{"a", "b"}, []float64{0.7, 0.9})
	alone := map[string][]float64{}
	for k, v := range run([]string{"a"}, []float64{0.7}) {
		alone[k] = v
	}
	for k, v := range run([]string{"b"}, []float64{0.9}) {
		alone[k] = v
	}
	for _, name := range []string{"a", "b"} {
		for i := range both[name] {
			if both[name][i] != alone[name][i] {
				t.Fatalf("%s row %d: %v together, %v alone", name, i, both[name][i], alone[name][i])
			}
		}
	}
	if both["a"][200] == both["b"][200] {
		t.Error("the two instances did not differ")
	}
}

// TestStructuralParameter: a structural parameter given a value other
// than its start is set in FMI 3.0's configuration mode before the
// others. The Reference StateSpace rejects every fmi3SetUInt64 (its
// setUInt64 counts the value it reads before checking the count, so it
// reports "Expected nValues >= 2 but was 1" for one value): the error
// names the parameter, the function and the FMU's message, and nothing
// is left loaded.
func TestStructuralParameter(t *testing.T) {
	left := privateTemp(t)
	f := fmitest.Reference(t, "StateSpace", 3)
	_, err := fmi.Load(f.Zip, fmi.Options{Params: map[string]any{"n": 2, "A": []any{1.0, 0.0, 0.0, 1.0}, "B": []any{1.0, 0.0, 0.0, 1.0, 0.0, 0.0},
		"C": []any{1.0, 0.0, 0.0, 1.0, 0.0, 0.0}, "x0": []any{0.0, 0.0}}})
	wantErr(t, err, fmi.ErrStatus, "setting parameter n: FMU StateSpace (instance StateSpace): fmi3SetUInt64 returned Error at t=0", "Expected nValues >= 2 but was 1")
	// The shapes followed n = 2: a 3-value A is refused before any call.
	_, err = fmi.Load(f.Zip, fmi.Options{Params: map[string]any{"n": 2}})
	if err == nil || !strings.Contains(err.Error(), `parameter "A" = [1, 0, 0, 0] `) && !strings.Contains(err.Error(), "setting parameter n") {
		t.Errorf("n = 2 with the default A: %v", err)
	}
	if l := left(); len(l) > 0 {
		t.Errorf("left in the temporary directory: %v", l)
	}
}

// TestUncarriedParameter: a parameter whose start value a node parameter
// cannot default to (here +Inf) is left at the FMU's start, listed in the
// node's limitations, and setting it is refused with the reason; so is
// setting a variable cosim does not carry (a String).
func TestUncarriedParameter(t *testing.T) {
	ref := fmitest.Reference(t, "BouncingBall", 3)
	d := copyDir(t, ref.Dir)
	xml, _ := os.ReadFile(filepath.Join(d, "modelDescription.xml"))
	os.WriteFile(filepath.Join(d, "modelDescription.xml"), []byte(strings.Replace(string(xml), `start="0.7" min="0.5"`, `start="INF" min="0.5"`, 1)), 0o644)
	n, err := fmi.Load(d, fmi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer n.(interface{ Close() error }).Close()
	if _, ok := n.Spec().Param("e"); ok {
		t.Error("a parameter with an infinite start became a node parameter")
	}
	if !strings.Contains(strings.Join(n.Spec().Meta.Limitations, " "), `The FMU's variable "e" is not carried: it is a Float64 parameter whose start value cannot be a node parameter's default`) {
		t.Errorf("limitations: %v", n.Spec().Meta.Limitations)
	}
	err = n.(node.Tunable).SetParams(map[string]any{"e": 0.8})
	wantErr(t, err, nil, `fmu BouncingBall: parameter "e" = 0.8 cannot be set: the FMU's variable "e" is a Float64 parameter whose start value`)

	f := fmitest.Reference(t, "Feedthrough", 3)
	_, err = fmi.Load(f.Zip, fmi.Options{Params: map[string]any{"String_input": "x"}})
	wantErr(t, err, nil, `parameter "String_input" = "x" cannot be set: the FMU's variable "String_input" is a String input: cosim carries numbers only`)
}
