package fmi_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/fmi"
	"github.com/cosimgo/cosim/internal/fmitest"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
)

// writeScene writes a scene file into dir.
func writeScene(t *testing.T, dir string, sc map[string]any) string {
	t.Helper()
	b, err := json.MarshalIndent(sc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "scene.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// relTo returns target relative to dir (a scene's "path" is relative to
// the scene file).
func relTo(t *testing.T, dir, target string) string {
	t.Helper()
	r, err := filepath.Rel(dir, target)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestFeedthroughDrivenByLookup drives the Feedthrough Reference FMU from
// its Feedthrough_in.csv through cosim lookup sources in a scene file
// (the FMU's "path" and the CSV files relative to the scene), with
// zero-order hold, the input file's semantics: each output must equal
// its input at every communication point (direct feedthrough, read after
// the inputs are set), exactly. The Int8 … UInt32 columns run to the
// end; the file's Int64 and UInt64 maxima (2^63 − 1 and 2^64 − 1) have
// no float64 form (they read as 2^63 and 2^64), so the scene with them
// stops at t = 1 with an error naming the input, the value and the time,
// after recording the exact −2^63 of the first row.
func TestFeedthroughDrivenByLookup(t *testing.T) {
	for _, v := range []int{2, 3} {
		f := fmitest.Reference(t, "Feedthrough", v)
		tab := readCSV(t, f.In)
		for _, all := range []bool{false, true} {
			if v == 2 && all {
				continue // FMI 2.0 has no 64-bit integers
			}
			dir := t.TempDir()
			nodesList := []any{map[string]any{"name": "ft", "type": "fmu", "params": map[string]any{"path": relTo(t, dir, f.Zip)}}}
			var edges []any
			var record []string
			cols := map[string]int{} // recorded field → column of the input file
			for ci, col := range tab.header {
				if ci == 0 || v == 2 && col != "Int32_input" || !all && (col == "Int64_input" || col == "UInt64_input") {
					continue // FMI 2.0's Feedthrough has only Int32 (Integer) among these
				}
				name := "in_" + col
				nodesList = append(nodesList, map[string]any{"name": name, "type": "lookup", "params": map[string]any{
					"file": relTo(t, dir, f.In), "column": col, "interpolation": "hold"}})
				edges = append(edges, map[string]any{"from": name + ".value", "to": "ft." + col})
				out := "ft." + strings.TrimSuffix(col, "_input") + "_output"
				record = append(record, out)
				cols[out] = ci
			}
			p := writeScene(t, dir, map[string]any{"nodes": nodesList, "edges": edges,
				"run": map[string]any{"dt": 0.1, "end": 2}, "record": map[string]any{"fields": record}})
			sc, err := scene.LoadFile(p, nodes.Registry())
			if err != nil {
				t.Fatal(err)
			}
			res, err := sc.Simulate(context.Background(), nodes.Registry(), nil)
			rows := 21
			if all {
				wantErr(t, err, fmi.ErrNotRepresentable, "node ft", "input Int64_input = 9223372036854775808 is out of the range of Int64 [-9223372036854775808, 9223372036854775807] at t=1")
				rows = 10 // t = 0 … 0.9: the outputs at t = 1 need the inputs at 1
			} else if err != nil {
				t.Fatal(err)
			}
			h := res.History
			if len(h.Times) != rows {
				t.Errorf("FMI%d: %d rows recorded, want %d", v, len(h.Times), rows)
			}
			compared := 0
			for _, field := range record {
				got := h.Column(field)
				for r, tt := range h.Times {
					row := 0
					if tt >= 1 {
						row = 1
					}
					want, _ := strconv.ParseFloat(tab.rows[row][cols[field]], 64)
					if got[r] != want {
						t.Errorf("FMI%d t=%v %s = %v, input %v", v, tt, field, got[r], want)
					}
					compared++
				}
			}
			t.Logf("FMI%d, 64-bit columns %v: %d values of %v compared", v, all, compared, record)
			res.Sim.Close()
		}
	}
}

// TestSceneOverrides: --set style overrides reach an FMU's parameters,
// with the FMU's range checked; an unknown interface or a missing path
// is reported at the node's place in the scene.
func TestSceneOverrides(t *testing.T) {
	f := fmitest.Reference(t, "BouncingBall", 3)
	dir := t.TempDir()
	p := writeScene(t, dir, map[string]any{
		"nodes":  []any{map[string]any{"name": "bb", "type": "fmu", "params": map[string]any{"path": relTo(t, dir, f.Zip)}}},
		"run":    map[string]any{"dt": 0.01, "end": 3},
		"record": map[string]any{"fields": []string{"bb.h"}}})
	sc, err := scene.LoadFile(p, nodes.Registry())
	if err != nil {
		t.Fatal(err)
	}
	run := func(sc *scene.Scene) []float64 {
		res, err := sc.Simulate(context.Background(), nodes.Registry(), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Sim.Close()
		return res.History.Column("bb.h")
	}
	base := run(sc)
	set, err := sc.With(map[string]any{"bb.e": 0.9})
	if err != nil {
		t.Fatal(err)
	}
	high := run(set)
	n, err := fmi.Load(f.Zip, fmi.Options{Params: map[string]any{"e": 0.9}})
	if err != nil {
		t.Fatal(err)
	}
	defer n.(interface{ Close() error }).Close()
	_, direct := runReference(t, n, readCSV(t, f.Out), 1)
	for i, x := range direct.Column("fmu.h") {
		if high[i] != x {
			t.Fatalf("row %d: --set bb.e=0.9 gives h = %v, the FMU loaded with e = 0.9 %v", i, high[i], x)
		}
	}
	if math.Abs(high[250]-base[250]) == 0 {
		t.Error("the override changed nothing")
	}
	bad, err := sc.With(map[string]any{"bb.e": 0.3})
	if err == nil {
		_, err = bad.Simulate(context.Background(), nodes.Registry(), nil)
	}
	wantErr(t, err, nil, "nodes[0].params", `fmu BouncingBall: parameter "e" = 0.3 is out of range; valid: [0.5, 1]`)

	p = writeScene(t, dir, map[string]any{
		"nodes": []any{map[string]any{"name": "bb", "type": "fmu", "params": map[string]any{"path": relTo(t, dir, f.Zip), "interface": "scheduled-execution"}}},
		"run":   map[string]any{"dt": 0.01, "end": 3}})
	_, err = scene.LoadFile(p, nodes.Registry())
	wantErr(t, err, nil, "nodes[0].params", `parameter "interface" = "scheduled-execution" is not an FMI interface`)
	p = writeScene(t, dir, map[string]any{"nodes": []any{map[string]any{"name": "bb", "type": "fmu"}}, "run": map[string]any{"dt": 0.01, "end": 3}})
	_, err = scene.LoadFile(p, nodes.Registry())
	wantErr(t, err, nil, "nodes[0].params", `parameter "path" is required`)
}

// TestWithoutCgo builds the module and cosim with CGO_ENABLED=0: the
// builds succeed,
// `cosim describe FILE.fmu` still reads the model description, and
// running a scene with an FMU fails with the clear "needs cgo" error.
func TestWithoutCgo(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		fmitest.Missing(t, "the go command is not on PATH: %v", err)
	}
	if testing.Short() {
		t.Skip("builds cosim without cgo")
	}
	bin := filepath.Join(t.TempDir(), "cosim")
	for _, args := range [][]string{{"build", "./..."}, {"build", "-o", bin, "./cmd/cosim"}} {
		cmd := exec.Command(goTool, args...)
		cmd.Dir = fmitest.ModuleRoot(t)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("CGO_ENABLED=0 go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	f := fmitest.Reference(t, "Dahlquist", 3)
	out, err := exec.Command(bin, "describe", f.Zip).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "parameter k") {
		t.Errorf("describe without cgo: %v\n%s", err, out)
	}
	dir := t.TempDir()
	p := writeScene(t, dir, map[string]any{
		"nodes": []any{map[string]any{"name": "d", "type": "fmu", "params": map[string]any{"path": f.Zip}}},
		"run":   map[string]any{"dt": 0.1, "end": 1}})
	out, err = exec.Command(bin, "run", p, "-o", filepath.Join(dir, "out.csv")).CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || !strings.Contains(string(out), fmi.ErrNeedsCgo.Error()) {
		t.Errorf("run without cgo: %v\n%s", err, out)
	}
}
