package fmi_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/internal/fmitest"
)

// testFMU builds cosim's own test FMU (testdata/testfmu): variant ""
// can get, set and serialize its state, "nostate" cannot, "nodostep"
// lacks fmi3DoStep. It returns the unpacked directory and the .fmu.
func testFMU(t *testing.T, variant string) (dir, zip string) {
	t.Helper()
	td := filepath.Join(fmitest.ModuleRoot(t), "fmi", "testdata", "testfmu")
	src, xml := filepath.Join(td, "testfmu.c"), filepath.Join(td, "testfmu.xml")
	hdr := fmitest.HeadersDir(t)
	flags := []string{"-DFMI_VERSION=3", "-I" + hdr}
	switch variant {
	case "nostate":
		xml = filepath.Join(td, "testfmu-nostate.xml")
	case "nodostep":
		flags = append(flags, "-DOMIT_DOSTEP")
	}
	headers, _ := filepath.Glob(filepath.Join(hdr, "*.h"))
	headers = append(headers, filepath.Join(td, "..", "fmustate.h"))
	return fmitest.Package(t, "testfmu-"+variant, "testfmu", xml, flags, []string{src}, headers, nil)
}

// lifecycle points the test FMU's record of instantiations, terminations
// and frees (COSIM_TESTFMU_LOG) at a new file and returns a function
// counting its lines by kind.
func lifecycle(t *testing.T) func() map[string]int {
	t.Helper()
	p := filepath.Join(t.TempDir(), "lifecycle.log")
	t.Setenv("COSIM_TESTFMU_LOG", p)
	return func() map[string]int {
		out := map[string]int{}
		f, err := os.Open(p)
		if err != nil {
			return out
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			kind, _, _ := strings.Cut(sc.Text(), " ")
			out[kind]++
		}
		return out
	}
}

// privateTemp points the temporary directory at a new empty one and
// returns a function listing what cosim left in it.
func privateTemp(t *testing.T) func() []string {
	t.Helper()
	d := t.TempDir()
	t.Setenv("TMPDIR", d)
	return func() []string {
		ents, _ := os.ReadDir(d)
		var out []string
		for _, e := range ents {
			out = append(out, e.Name())
		}
		return out
	}
}
