//go:build cgo

package main

import (
	"archive/zip"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/cgo"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/fmi"
	"github.com/cosimgo/cosim/fmi/export"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/nodes"
)

// oscillator returns the resources folder and instantiation token of the
// oscillator scene's FMU (../testdata/oscillator.json), exported with the
// process binary (a C compiler's work, not a Go build), whose resources
// folder is the same as the c-shared binary's.
func oscillator(t *testing.T) (resources, token string) {
	t.Helper()
	if _, ok := export.Target(); !ok {
		t.Skip("exported FMUs run on Linux only")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "osc.fmu")
	m, err := export.Export("../testdata/oscillator.json", out, nodes.Registry(), export.Options{Binary: export.BinaryProcess, Program: "/bin/true", CacheDir: "off"})
	if err != nil {
		t.Fatal(err)
	}
	z, err := zip.OpenReader(out)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	for _, f := range z.File {
		name, ok := strings.CutPrefix(f.Name, "resources/")
		if !ok || strings.HasSuffix(f.Name, "/") {
			continue
		}
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "resources", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "resources"), m.Token
}

// TestStepAllocatesNothing: the Go side of a master's communication step
// on the c-shared binary — fmi3SetFloat64 of the oscillator's force
// input, fmi3DoStep (one scene step, then three, then 1.5 of them in two
// sub-steps), fmi3GetFloat64 of its outputs, each through the instance's
// handle and lock as the exported C functions call them — allocates
// nothing once the instance is initialized.
func TestStepAllocatesNothing(t *testing.T) {
	res, token := oscillator(t)
	for _, h := range []float64{1e-3, 3e-3, 1.5e-3} {
		in := export.NewInstance(res, nodes.Registry(), func(s fmi.CallStatus, cat, msg string) { t.Error(msg) })
		x := &instance{in: in, log: func(s fmi.CallStatus, cat, msg string) { t.Error(msg) }}
		hd := cgo.NewHandle(x)
		if in.Instantiate(token, "osc", false) != fmi.StatusOK ||
			in.EnterInitializationMode(false, 0, 0, false, 0) != fmi.StatusOK ||
			in.ExitInitializationMode() != fmi.StatusOK {
			t.Fatal("initialization failed")
		}
		// Value references: 3 the force input F (3 values), 4 x (3), 5 y.
		f, vin := []uint64{0, math.Float64bits(-2), 0}, []uint32{3}
		out, vout := make([]uint64, 4), []uint32{4, 5}
		now := 0.0
		step := func() {
			if s := set(hd, export.TypeFloat64, vin, f); int(s) != int(fmi.StatusOK) {
				t.Fatalf("fmi3SetFloat64: status %d", s)
			}
			s, last := doStep(hd, now, h)
			if int(s) != int(fmi.StatusOK) {
				t.Fatalf("fmi3DoStep: status %d", s)
			}
			now = last
			if s := get(hd, export.TypeFloat64, vout, out); int(s) != int(fmi.StatusOK) {
				t.Fatalf("fmi3GetFloat64: status %d", s)
			}
		}
		step()
		if n := numtest.AllocsPerRun(200, step); n != 0 {
			t.Errorf("h = %v: %v allocations per step, want 0", h, n)
		}
		if y := math.Float64frombits(out[3]); !(y < 1) {
			t.Errorf("h = %v: y = %v after the steps: the force of -2 N and the load should have pulled the mass down from y = 1", h, y)
		}
		in.Free()
		hd.Delete()
	}
}
