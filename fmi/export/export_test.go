package export_test

import (
	"archive/zip"
	"bytes"
	"context"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/cosimgo/cosim/fmi"
	"github.com/cosimgo/cosim/fmi/export"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
)

// The test binary is the cosim program of the process binary's FMUs the
// tests export: started as "fmu-serve RESOURCES" by the FMU's binary, it
// serves the instance as cosim does. The c-shared binaries the tests
// export are built against the standard's fmi3Functions.h
// (-DCOSIM_FMI3_HEADERS), which checks every fmi3 function's definition
// against the standard's declaration.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == export.ServeCommand {
		if err := export.Serve(os.Stdin, os.Stdout, os.Args[2], nodes.Registry()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	headers, err := filepath.Abs(shared + "/fmi-standard/headers")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("CGO_CFLAGS", strings.TrimSpace(os.Getenv("CGO_CFLAGS")+" -O2 -DCOSIM_FMI3_HEADERS -I"+headers))
	code := m.Run()
	for _, e := range exported {
		if e.dir != "" {
			os.RemoveAll(e.dir)
		}
	}
	os.Exit(code)
}

const shared = "../../../shared/fmi"

// The two binaries, as the tests name them.
const (
	cshared = export.BinaryCShared
	process = export.BinaryProcess
)

var binaries = []string{cshared, process}

var exported = map[string]*struct {
	once sync.Once
	dir  string
	path string
	err  error
}{cshared: {}, process: {}}

// exportOptions are the options of an export with the binary.
func exportOptions(t testing.TB, binary string) export.Options {
	prog, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return export.Options{Binary: binary, Program: prog}
}

// oscillatorFMU exports testdata/oscillator.json with the binary once
// per test run.
func oscillatorFMU(t testing.TB, binary string) string {
	t.Helper()
	e := exported[binary]
	e.once.Do(func() {
		e.dir, e.err = os.MkdirTemp("", "cosim-export-test-*")
		if e.err != nil {
			return
		}
		e.path = filepath.Join(e.dir, "Oscillator.fmu")
		_, e.err = export.Export("testdata/oscillator.json", e.path, nodes.Registry(), exportOptions(t, binary))
	})
	if e.err != nil {
		t.Fatal(e.err)
	}
	return e.path
}

// unzip unpacks the FMU into dir/name.
func unzip(t testing.TB, fmu, dir string) string {
	t.Helper()
	z, err := zip.OpenReader(fmu)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	for _, f := range z.File {
		dst := filepath.Join(dir, f.Name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		w, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, f.Mode())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(w, r); err != nil {
			t.Fatal(err)
		}
		r.Close()
		w.Close()
	}
	return dir
}

func TestModelDescriptionValidatesAgainstTheXSD(t *testing.T) {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Fatal("xmllint (Debian package libxml2-utils) is needed to check the model description against the FMI 3.0 XSD")
	}
	for _, binary := range binaries {
		t.Run(binary, func(t *testing.T) {
			dir := unzip(t, oscillatorFMU(t, binary), t.TempDir())
			out, err := exec.Command(xmllint, "--noout", "--schema", shared+"/fmi-standard/schema/fmi3ModelDescription.xsd",
				filepath.Join(dir, "modelDescription.xml")).CombinedOutput()
			if err != nil {
				t.Fatalf("xmllint: %v\n%s", err, out)
			}
			files := []string{"binaries/x86_64-linux/Oscillator.so", "resources/scene.json"}
			if binary == process {
				files = append(files, "resources/cosim")
			}
			for _, f := range files {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// TestShimMatchesTheStandardHeaders compiles the process binary against
// the standard's fmi3Functions.h, which declares every function it
// defines: a signature that differs from the standard's does not compile.
// (The c-shared binaries of the tests are built so: TestMain.) Both
// binaries export every function fmi3Functions.h declares,
// and the same ones.
func TestShimMatchesTheStandardHeaders(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "fmu.c")
	code, headers := export.ShimSource()
	if err := os.WriteFile(src, code, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, data := range headers {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	shim := filepath.Join(dir, "fmu.so")
	out, err := exec.Command("gcc", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-fvisibility=hidden", "-DCOSIM_FMI3_HEADERS",
		"-I"+shared+"/fmi-standard/headers", "-I"+dir, src, "-o", shim).CombinedOutput()
	if err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	decls, err := os.ReadFile(shared + "/fmi-standard/headers/fmi3Functions.h")
	if err != nil {
		t.Fatal(err)
	}
	var standard []string
	for _, m := range regexp.MustCompile(`FMI3_Export\s+fmi3\w+TYPE\s+(fmi3\w+);`).FindAllStringSubmatch(string(decls), -1) {
		standard = append(standard, m[1])
	}
	slices.Sort(standard)
	standard = slices.Compact(standard)
	if len(standard) < 70 {
		t.Fatalf("read %d function declarations from fmi3Functions.h", len(standard))
	}
	lib := unzip(t, oscillatorFMU(t, cshared), t.TempDir()) + "/binaries/x86_64-linux/Oscillator.so"
	for name, so := range map[string]string{"process": shim, "c-shared": lib} {
		got := exportedFMI3(t, so)
		if !slices.Equal(got, standard) {
			t.Errorf("the %s binary exports %d fmi3 functions, the standard declares %d:\nexports %v\nstandard %v", name, len(got), len(standard), got, standard)
		}
	}
}

// exportedFMI3 returns the fmi3 functions the shared library exports,
// sorted.
func exportedFMI3(t *testing.T, so string) []string {
	t.Helper()
	f, err := elf.Open(so)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.DynamicSymbols()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range syms {
		if strings.HasPrefix(s.Name, "fmi3") && s.Section != elf.SHN_UNDEF && elf.ST_TYPE(s.Info) == elf.STT_FUNC {
			names = append(names, s.Name)
		}
	}
	slices.Sort(names)
	return names
}

// direct runs the oscillator scene itself with the changes the FMU
// tests make through the FMU's interface: mass.mass = 4, spring stiffness
// [4000, 5000, 6000] and a force [0, 2, 0] on the mass (a second constant
// source, added after the scene's load as the FMU's input is), with step
// dt, recording mass.position every step.
func direct(t *testing.T, dt float64, end float64) (times []float64, pos [][]float64) {
	t.Helper()
	raw, err := os.ReadFile("testdata/oscillator.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	doc["nodes"] = append(doc["nodes"].([]any), map[string]any{"name": "extra", "type": "constant", "params": map[string]any{"value": []any{0, 2, 0}, "units": "N"}})
	doc["edges"] = append(doc["edges"].([]any), map[string]any{"from": "extra.value", "to": "mass.force"})
	delete(doc, "fmu")
	doc["run"] = map[string]any{"dt": dt, "end": end}
	doc["record"] = map[string]any{"fields": []any{"mass.position"}}
	data, _ := json.Marshal(doc)
	sc, err := scene.Decode(strings.NewReader(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	res, err := sc.Simulate(context.Background(), nodes.Registry(), &scene.Options{Overrides: map[string]any{
		"mass.mass": 4.0, "spring.stiffness": []float64{4000, 5000, 6000}}})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Sim.Close()
	return res.History.Times, res.History.Rows
}

// TestReferenceImporterRunsTheExport runs the exported FMU with the
// Reference FMUs' own co-simulation master (examples/simulate_fmi3_cs.c
// with src/FMI3.c, compiled here), which sets the parameters and the
// input through fmi3SetFloat64 and records the position with
// fmi3GetFloat64 at every communication point. It agrees with the
// scene's own run to 1e-12 (relative): the FMU steps the scene's graph
// on the same grid (in fact bit for bit; the bound leaves room for the
// text round trip, which %.17g makes exact). A communication step of 2.5
// scene steps is taken in three equal sub-steps, and agrees with the
// scene run at that step. Both binaries.
func TestReferenceImporterRunsTheExport(t *testing.T) {
	for _, binary := range binaries {
		t.Run(binary, func(t *testing.T) { referenceImporterRuns(t, binary) })
	}
}

func referenceImporterRuns(t *testing.T, binary string) {
	for _, tc := range []struct {
		name       string
		h, dt      float64
		everySteps int
	}{
		{"scene step", 0.001, 0.001, 1},
		{"2.5 scene steps", 0.0025, 0.0025 / 3, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := referenceMaster(t, binary, tc.h, masterIO)
			run := exec.Command(filepath.Join(dir, "master"))
			run.Dir = dir
			if out, err := run.CombinedOutput(); err != nil {
				t.Fatalf("the Reference FMUs' master: %v\n%s", err, out)
			}
			got := readCSV(t, filepath.Join(dir, "Oscillator_cs_out.csv"))
			times, pos := direct(t, tc.dt, 0.5)
			if want := (len(times)-1)/tc.everySteps + 1; len(got) != want {
				t.Fatalf("the master recorded %d rows, want %d", len(got), want)
			}
			worst := 0.0
			for i, row := range got {
				j := i * tc.everySteps
				if !numtest.Within(row[0], times[j], 1e-12) {
					t.Fatalf("row %d at t = %v, the scene's at %v", i, row[0], times[j])
				}
				for c := 0; c < 3; c++ {
					d := math.Abs(row[1+c]-pos[j][c]) / math.Max(1, math.Abs(pos[j][c]))
					worst = math.Max(worst, d)
				}
			}
			if !numtest.AtMost(worst, 1e-12) {
				t.Errorf("largest relative difference from the scene's run: %.3g (bound 1e-12)", worst)
			}
			t.Logf("%d communication points, largest relative difference %.3g", len(got), worst)
		})
	}
}

// masterIO is the model-specific part of the Reference FMUs' master for
// the oscillator: it sets m = 4, k = [4000, 5000, 6000] and the input
// F = [0, 2, 0], and records the position x at every communication point.
const masterIO = `#include "util.h"
FILE *createOutputFile(const char *filename) {
    FILE *f = fopen(filename, "w");
    if (f) fputs("time,x0,x1,x2\n", f);
    return f;
}
FMIStatus recordVariables(FMIInstance *S, double time, FILE *f) {
    const fmi3ValueReference vr[1] = {4};
    fmi3Float64 x[3] = {0};
    FMIStatus s = FMI3GetFloat64(S, vr, 1, x, 3);
    fprintf(f, "%.17g,%.17g,%.17g,%.17g\n", time, x[0], x[1], x[2]);
    return s;
}
double nextInputEventTime(double time) { return INFINITY; }
FMIStatus applyStartValues(FMIInstance *S) {
    const fmi3ValueReference m[1] = {1}, k[1] = {2};
    const fmi3Float64 mv[1] = {4}, kv[3] = {4000, 5000, 6000};
    FMIStatus s = FMI3SetFloat64(S, m, 1, mv, 1);
    if (s > FMIOK) return s;
    return FMI3SetFloat64(S, k, 1, kv, 3);
}
FMIStatus applyContinuousInputs(FMIInstance *S, double time, bool afterEvent) {
    const fmi3ValueReference F[1] = {3};
    const fmi3Float64 v[3] = {0, 2, 0};
    return FMI3SetFloat64(S, F, 1, v, 3);
}
FMIStatus applyDiscreteInputs(FMIInstance *S, double time) { return FMIOK; }
`

// referenceMaster compiles the Reference FMUs' co-simulation master
// (examples/simulate_fmi3_cs.c with src/FMI.c and src/FMI3.c) for the
// oscillator exported with the binary, unpacked beside it, with the communication step h
// and the model-specific part io; it returns the directory holding
// "master", which writes Oscillator_cs_out.csv there.
func referenceMaster(t *testing.T, binary string, h float64, io string) string {
	t.Helper()
	dir := t.TempDir()
	unzip(t, oscillatorFMU(t, binary), filepath.Join(dir, "Oscillator"))
	md, err := os.ReadFile(filepath.Join(dir, "Oscillator", "modelDescription.xml"))
	if err != nil {
		t.Fatal(err)
	}
	tok := strings.SplitN(strings.SplitN(string(md), `instantiationToken="`, 2)[1], `"`, 2)[0]
	config := fmt.Sprintf(`#define MODEL_IDENTIFIER Oscillator
#define INSTANTIATION_TOKEN %q
#define CO_SIMULATION
#define FIXED_SOLVER_STEP %v
#define DEFAULT_STOP_TIME 0.5
`, tok, h)
	if err := os.WriteFile(filepath.Join(dir, "config.h"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "io.c"), []byte(io), 0o644); err != nil {
		t.Fatal(err)
	}
	r, _ := filepath.Abs(shared + "/reference-fmus")
	cmd := exec.Command("gcc", "-g", "-DFMI_VERSION=3", "-I"+dir, "-I"+r+"/include", "-I"+r+"/src", "-I"+r+"/examples",
		r+"/examples/simulate_fmi3_cs.c", r+"/src/FMI.c", r+"/src/FMI3.c", filepath.Join(dir, "io.c"), "-ldl", "-lm", "-o", filepath.Join(dir, "master"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("compiling the Reference FMUs' master: %v\n%s", err, out)
	}
	return dir
}

// TestReferenceMasterUnderValgrind runs the Reference FMUs' master under
// valgrind's memcheck, taking, serializing, deserializing and freeing an
// FMU state at every communication point: the process binary makes no
// invalid access and frees everything it allocates (FreeInstance and
// FreeFMUState included). The cosim process is not followed (it is Go,
// and exits with its instance); nor is the c-shared binary checked so (a
// Go runtime's memory is its own, and memcheck reports its collector's
// reads as errors).
func TestReferenceMasterUnderValgrind(t *testing.T) {
	vg, err := exec.LookPath("valgrind")
	if err != nil {
		t.Skip("valgrind is not installed")
	}
	io := strings.Replace(masterIO, `    FMIStatus s = FMI3GetFloat64(S, vr, 1, x, 3);
`, `    FMIStatus s = FMI3GetFloat64(S, vr, 1, x, 3);
    fmi3FMUState st = NULL, st2 = NULL;
    size_t n = 0;
    if (s == FMIOK) s = FMI3GetFMUState(S, &st);
    if (s == FMIOK) s = FMI3SerializedFMUStateSize(S, st, &n);
    if (s == FMIOK) {
        fmi3Byte *b = malloc(n);
        s = FMI3SerializeFMUState(S, st, b, n);
        if (s == FMIOK) s = FMI3DeserializeFMUState(S, b, n, &st2);
        if (s == FMIOK) s = FMI3SetFMUState(S, st2);
        free(b);
    }
    if (st2) FMI3FreeFMUState(S, &st2);
    if (st) FMI3FreeFMUState(S, &st);
`, 1)
	dir := referenceMaster(t, process, 0.0025, io)
	run := exec.Command(vg, "--leak-check=full", "--errors-for-leak-kinds=definite,indirect,possible", "--error-exitcode=9", "./master")
	run.Dir = dir
	out, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("valgrind: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "All heap blocks were freed") {
		t.Errorf("valgrind:\n%s", out)
	}
	if rows := readCSV(t, filepath.Join(dir, "Oscillator_cs_out.csv")); len(rows) != 201 {
		t.Errorf("%d rows, want 201", len(rows))
	}
}

func readCSV(t *testing.T, path string) [][]float64 {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]float64
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if i == 0 {
			continue
		}
		var row []float64
		for _, f := range strings.Split(line, ",") {
			x, err := strconv.ParseFloat(f, 64)
			if err != nil {
				t.Fatalf("%s line %d: %v", path, i+1, err)
			}
			row = append(row, x)
		}
		rows = append(rows, row)
	}
	return rows
}

// TestImportedBackAgreesBitForBit imports the exported FMU into a cosim
// scene and compares its output, step by step, with the scene's own run:
// the same graph on the same grid, so the same bits. The process binary
// is C, with no Go runtime, so it shares cosim's process as well as
// running isolated in cosim's FMU host; the c-shared binary holds a Go
// runtime, which cannot share cosim's (a Go program) process: cosim's
// importer refuses it in-process (fmi.ErrNeedsIsolation, naming the
// option) and runs it isolated.
func TestImportedBackAgreesBitForBit(t *testing.T) {
	raw, err := os.ReadFile("testdata/oscillator.json")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scene.Decode(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	sc.Record.Fields = []string{"mass.position[1]", "mass.position[0]"}
	res, err := sc.Simulate(context.Background(), nodes.Registry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Sim.Close()
	for _, tc := range []struct {
		binary  string
		isolate bool
	}{{process, false}, {process, true}, {cshared, true}} {
		t.Run(fmt.Sprintf("%s/isolate=%v", tc.binary, tc.isolate), func(t *testing.T) {
			imp := fmt.Sprintf(`{"name": "imported", "nodes": [{"name": "osc", "type": "fmu", "params": {"path": %q, "isolate": %v}}],
"run": {"dt": 0.001, "end": 0.5}, "record": {"fields": ["osc.y", "osc.x[0]"]}}`, oscillatorFMU(t, tc.binary), tc.isolate)
			isc, err := scene.Decode(strings.NewReader(imp))
			if err != nil {
				t.Fatal(err)
			}
			ires, err := isc.Simulate(context.Background(), nodes.Registry(), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ires.Sim.Close()
			if len(ires.History.Rows) != len(res.History.Rows) {
				t.Fatalf("%d rows imported, %d direct", len(ires.History.Rows), len(res.History.Rows))
			}
			for i := range res.History.Rows {
				for c := range 2 {
					if a, b := ires.History.Rows[i][c], res.History.Rows[i][c]; math.Float64bits(a) != math.Float64bits(b) {
						t.Fatalf("t = %v, %s: imported %v, direct %v", res.History.Times[i], ires.History.Columns[c], a, b)
					}
				}
			}
		})
	}
	t.Run("c-shared/in-process", func(t *testing.T) {
		imp := fmt.Sprintf(`{"name": "imported", "nodes": [{"name": "osc", "type": "fmu", "params": {"path": %q}}],
"run": {"dt": 0.001, "end": 0.5}}`, oscillatorFMU(t, cshared))
		isc, err := scene.Decode(strings.NewReader(imp))
		if err != nil {
			t.Fatal(err)
		}
		sim, err := isc.Compile(nodes.Registry(), nil)
		if err == nil {
			sim.Close()
			t.Fatal("cosim loaded a Go-built FMU into its own process")
		}
		if !errors.Is(err, fmi.ErrNeedsIsolation) || !strings.Contains(err.Error(), "was built with Go") || !strings.Contains(err.Error(), `"isolate": true`) {
			t.Errorf("error %v: want fmi.ErrNeedsIsolation naming the option", err)
		}
	})
}

// servers returns the pids of this process's children that serve an
// exported FMU's instance.
func servers(t *testing.T) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	me := os.Getpid()
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold spaces, so read after ')'.
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(f) < 2 || f[1] != strconv.Itoa(me) {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if strings.Contains(string(cmd), export.ServeCommand) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// importedSim compiles a scene holding the oscillator exported with the
// binary as the node "osc": the process binary in cosim's process, the
// c-shared one isolated.
func importedSim(t *testing.T, binary string) (*scene.Scene, func() (*graph.Sim, error)) {
	t.Helper()
	imp := fmt.Sprintf(`{"name": "imported", "nodes": [{"name": "osc", "type": "fmu", "params": {"path": %q, "isolate": %v}}],
"run": {"dt": 0.001, "end": 0.5}}`, oscillatorFMU(t, binary), binary == cshared)
	sc, err := scene.Decode(strings.NewReader(imp))
	if err != nil {
		t.Fatal(err)
	}
	return sc, func() (*graph.Sim, error) { return sc.Compile(nodes.Registry(), nil) }
}

// TestImportedCheckpointAndRelease checkpoints a graph holding the
// exported FMU (cosim's importer saves the FMU's state through
// fmi3GetFMUState and fmi3SerializeFMUState, restores it through
// fmi3DeserializeFMUState and fmi3SetFMUState), resumes bit for bit, and
// frees the instance: for the process binary, its process is reaped,
// none is left. Both binaries (c-shared isolated).
func TestImportedCheckpointAndRelease(t *testing.T) {
	for _, binary := range binaries {
		t.Run(binary, func(t *testing.T) { importedCheckpointAndRelease(t, binary) })
	}
}

func importedCheckpointAndRelease(t *testing.T, binary string) {
	before := len(servers(t))
	_, compile := importedSim(t, binary)
	sim, err := compile()
	if err != nil {
		t.Fatal(err)
	}
	if n, want := len(servers(t))-before, map[string]int{process: 1, cshared: 0}[binary]; n != want {
		t.Errorf("%d processes serve the instance, want %d", n, want)
	}
	ctx := context.Background()
	if _, err := sim.Run(ctx, graph.Settings{Dt: 0.001, Steps: 200}); err != nil {
		t.Fatal(err)
	}
	cp := sim.Checkpoint()
	var buf bytes.Buffer
	if err := cp.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := sim.Run(ctx, graph.Settings{Dt: 0.001, Steps: 300}); err != nil {
		t.Fatal(err)
	}
	want, err := sim.Value("osc.x")
	if err != nil {
		t.Fatal(err)
	}
	back, err := graph.DecodeCheckpoint(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Restore(back); err != nil {
		t.Fatal(err)
	}
	if _, err := sim.Run(ctx, graph.Settings{Dt: 0.001, Steps: 300}); err != nil {
		t.Fatal(err)
	}
	got, err := sim.Value("osc.x")
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Errorf("x[%d] resumed = %v, want %v", i, got[i], want[i])
		}
	}
	if err := sim.Close(); err != nil {
		t.Fatal(err)
	}
	if n := len(servers(t)) - before; n != 0 {
		t.Errorf("%d processes left after Close", n)
	}
}

// TestImportedProcessKilled kills the process of a process binary's
// instance mid-run:
// the next step fails with fmi3Fatal and the FMU's logged reason, the
// run keeps the steps before, and nothing is left.
func TestImportedProcessKilled(t *testing.T) {
	before := servers(t)
	_, compile := importedSim(t, process)
	sim, err := compile()
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	ctx := context.Background()
	if _, err := sim.Run(ctx, graph.Settings{Dt: 0.001, Steps: 10}); err != nil {
		t.Fatal(err)
	}
	var pid int
	for _, p := range servers(t) {
		if !slices.Contains(before, p) {
			pid = p
		}
	}
	if pid == 0 {
		t.Fatal("no process serves the instance")
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(ctx, graph.Settings{Dt: 0.001, Steps: 10})
	if err == nil || !strings.Contains(err.Error(), "the cosim process running the scene died of signal 9") || !strings.Contains(err.Error(), "Fatal") {
		t.Fatalf("error %v: want fmi3DoStep's Fatal with the logged reason", err)
	}
	t.Logf("the error: %v", err)
	if res == nil || res.Time != 0.01 {
		t.Errorf("the failed run's result: %+v; want it at t = 0.01, where the process died", res)
	}
	sim.Close()
	if n := len(servers(t)) - len(before); n != 0 {
		t.Errorf("%d processes left", n)
	}
}

// TestAdaptiveSceneWithItsFiles exports a monolithic scene integrated by
// adaptive Dormand–Prince (rtol 1e-9, atol 1e-12) that reads a table
// file, removes the table, and runs the FMU in cosim on the scene's
// 10 ms grid: the FMU carries the table, and each fmi3DoStep integrates
// to the communication point. The integrator restarts at each of the 600
// points, so its steps differ from the scene's single run: the two agree
// to the sum of two global errors of that tolerance, measured 4e-9 m in
// the position (amplitude 0.5 m) and 3e-7 N in the tension (10 N); the
// bounds, 1e-7 m and 1e-5 N, leave a factor 25 to 30. Both binaries
// (c-shared isolated).
func TestAdaptiveSceneWithItsFiles(t *testing.T) {
	for _, binary := range binaries {
		t.Run(binary, func(t *testing.T) { adaptiveSceneWithItsFiles(t, binary) })
	}
}

func adaptiveSceneWithItsFiles(t *testing.T, binary string) {
	dir := t.TempDir()
	raw, err := os.ReadFile("testdata/thrust.json")
	if err != nil {
		t.Fatal(err)
	}
	table, err := os.ReadFile("../../examples/scenes/data/thrust.csv")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "thrust.csv"), table, 0o644); err != nil {
		t.Fatal(err)
	}
	sceneText := strings.Replace(string(raw), "../../../examples/scenes/data/thrust.csv", "thrust.csv", 1)
	if err := os.WriteFile(filepath.Join(dir, "thrust.json"), []byte(sceneText), 0o644); err != nil {
		t.Fatal(err)
	}
	fmu := filepath.Join(dir, "Thrust.fmu")
	if _, err := export.Export(filepath.Join(dir, "thrust.json"), fmu, nodes.Registry(), exportOptions(t, binary)); err != nil {
		t.Fatal(err)
	}
	sc, err := scene.LoadFile(filepath.Join(dir, "thrust.json"), nodes.Registry())
	if err != nil {
		t.Fatal(err)
	}
	res, err := sc.Simulate(context.Background(), nodes.Registry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Sim.Close()
	if err := os.Remove(filepath.Join(dir, "thrust.csv")); err != nil {
		t.Fatal(err)
	}
	imp := fmt.Sprintf(`{"name": "imported", "nodes": [{"name": "t", "type": "fmu", "params": {"path": %q, "isolate": %v}}],
"run": {"dt": 0.01, "end": 6}, "record": {"fields": ["t.x", "t.tension"]}}`, fmu, binary == cshared)
	isc, err := scene.Decode(strings.NewReader(imp))
	if err != nil {
		t.Fatal(err)
	}
	ires, err := isc.Simulate(context.Background(), nodes.Registry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ires.Sim.Close()
	if len(ires.History.Rows) != len(res.History.Rows) {
		t.Fatalf("%d rows imported, %d direct", len(ires.History.Rows), len(res.History.Rows))
	}
	var dx, dT float64
	for i, r := range res.History.Rows {
		dx = math.Max(dx, math.Abs(ires.History.Rows[i][0]-r[0]))
		dT = math.Max(dT, math.Abs(ires.History.Rows[i][1]-r[1]))
	}
	if dx > 1e-7 || dT > 1e-5 {
		t.Errorf("largest differences from the scene's run: %.3g m, %.3g N (bounds 1e-7 m, 1e-5 N)", dx, dT)
	}
	t.Logf("largest differences from the scene's run: %.3g m, %.3g N", dx, dT)
}

// TestCSharedNeedsSourceAndGo: a c-shared export without cosim's source
// or without the Go toolchain fails with export.ErrExport naming what is
// missing and the process binary as the way out; an unknown binary is
// refused naming both. Nothing is written.
func TestCSharedNeedsSourceAndGo(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "X.fmu")
	for _, tc := range []struct {
		name string
		opts export.Options
		want []string
	}{
		{"no source", export.Options{Source: dir},
			[]string{dir + " is not cosim's source (a go.mod of module github.com/cosimgo/cosim", "--binary process"}},
		{"no go", export.Options{Go: "no-such-go-command"},
			[]string{`the c-shared binary is built at export with the Go toolchain, and "no-such-go-command" was not found`, "--binary process"}},
		{"unknown binary", export.Options{Binary: "java"},
			[]string{`binary "java": choose "c-shared"`, `or "process"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := export.Export("testdata/oscillator.json", out, nodes.Registry(), tc.opts)
			if !errors.Is(err, export.ErrExport) {
				t.Fatalf("error %v: want export.ErrExport", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("a failed export wrote the FMU")
			}
		})
	}
	// SourceDir finds the source these tests are built from.
	root, err := export.SourceDir()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "fmi/export/cshared/main.go")); err != nil {
		t.Errorf("SourceDir() = %s: %v", root, err)
	}
}
