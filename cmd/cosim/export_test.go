package main

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestExport writes the FMU of a scene from the command line with each
// binary: the summary names what it holds, and the archive has the model
// description, the binary and the resources (for the process binary, the
// command's own program among them; the c-shared binary is a Go library,
// which the test checks by its Go build information). Running exported
// FMUs is tested in fmi/export.
func TestExport(t *testing.T) {
	for _, tc := range []struct {
		binary  string
		args    []string
		program bool
	}{
		{"c-shared", nil, false},
		{"process", []string{"--binary", "process"}, true},
	} {
		t.Run(tc.binary, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "Osc.fmu")
			code, stdout, stderr := cosim(t, append([]string{"export", "../../fmi/export/testdata/oscillator.json", "-o", out}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			mustContain(t, "stdout", stdout, `FMI 3.0 co-simulation FMU "Oscillator" (1 inputs, 3 outputs, 2 parameters; step 0.001 s, default stop 0.5 s; `+tc.binary+` binary)`)
			z, err := zip.OpenReader(out)
			if err != nil {
				t.Fatal(err)
			}
			defer z.Close()
			have := map[string]*zip.File{}
			for _, f := range z.File {
				have[f.Name] = f
			}
			for _, want := range []string{"modelDescription.xml", "binaries/x86_64-linux/Oscillator.so", "resources/scene.json"} {
				if have[want] == nil {
					t.Errorf("the FMU has no %s (it has %v)", want, have)
				}
			}
			if (have["resources/cosim"] != nil) != tc.program {
				t.Errorf("the FMU carries the cosim program: %v, want %v", have["resources/cosim"] != nil, tc.program)
			}
			if f := have["binaries/x86_64-linux/Oscillator.so"]; f != nil {
				r, err := f.Open()
				if err != nil {
					t.Fatal(err)
				}
				data, _ := io.ReadAll(r)
				r.Close()
				if goBuilt := bytes.Contains(data, []byte("\xff Go buildinf:")); goBuilt != !tc.program {
					t.Errorf("the binary carries Go's build information: %v, want %v", goBuilt, !tc.program)
				}
			}
		})
	}
}

func TestExportUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"export", "../../fmi/export/testdata/oscillator.json"}, "-o MODEL.fmu: name the FMU to write"},
		{[]string{"export", "../../fmi/export/testdata/oscillator.json", "-o", "x.zip"}, "an FMU's file name ends in .fmu"},
		{[]string{"export", "-o", "x.fmu"}, "name exactly one scene file"},
		{[]string{"export", "../../fmi/export/testdata/oscillator.json", "-o", "x.fmu", "--binary", "java"}, "--binary java: choose c-shared or process"},
		{[]string{"export", "../../fmi/export/testdata/oscillator.json", "-o", "x.fmu", "--binary", "process", "--source", "."}, "--source is for --binary c-shared"},
	} {
		code, _, stderr := cosim(t, tc.args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2", tc.args, code)
		}
		mustContain(t, "stderr", stderr, tc.want)
	}
	if _, err := os.Stat("x.fmu"); err == nil {
		t.Error("a refused export wrote x.fmu")
	}
}
