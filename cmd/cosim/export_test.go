package main

import (
	"archive/zip"
	"os"
	"path/filepath"
	"testing"
)

// TestExport writes the FMU of a scene from the command line: the
// summary names what it holds, and the archive has the model
// description, the binary and the resources (the command's own program
// among them). Running exported FMUs is tested in fmi/export.
func TestExport(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "Osc.fmu")
	code, stdout, stderr := cosim(t, "export", "../../fmi/export/testdata/oscillator.json", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	mustContain(t, "stdout", stdout, `FMI 3.0 co-simulation FMU "Oscillator" (1 inputs, 3 outputs, 2 parameters; step 0.001 s, default stop 0.5 s)`)
	z, err := zip.OpenReader(out)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	have := map[string]bool{}
	for _, f := range z.File {
		have[f.Name] = true
	}
	for _, want := range []string{"modelDescription.xml", "binaries/x86_64-linux/Oscillator.so", "resources/scene.json", "resources/cosim"} {
		if !have[want] {
			t.Errorf("the FMU has no %s (it has %v)", want, have)
		}
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
