package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The command's own new errors are quoted in docs/errors.md as the code
// words them (docs/errors_test.go does the same for the library's): each
// is made for real here, and the part of it without paths or hashes must
// appear there verbatim.
func TestCLIErrorsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/errors.md")
	if err != nil {
		t.Fatal(err)
	}
	ballAbs, _ := filepath.Abs(ballScene)
	springAbs, _ := filepath.Abs(springScene)
	dir := t.TempDir()
	t.Chdir(dir)
	spring, _ := os.ReadFile(springAbs)
	os.WriteFile("s.json", spring, 0o644)
	errText := func(args ...string) string {
		t.Helper()
		code, _, errs := cosim(t, args...)
		if code == 0 {
			t.Fatalf("%q: exit 0", args)
		}
		_, msg, _ := strings.Cut(strings.SplitN(errs, "\n", 2)[0], ": ") // drop "cosim CMD: "
		return msg
	}
	for what, msg := range map[string]string{
		"sweep key":      errText("sweep", ballAbs, "--vary", "ball.elastcity=0.1:0.9:3"),
		"grid count":     errText("sweep", ballAbs, "--vary", "ball.elasticity=0:1:1000000000"),
		"output=input":   errText("run", "s.json", "-o", "s.json", "--format", "csv"),
		"output=output":  errText("run", "s.json", "-o", "x.png", "--format", "csv", "--plot", "x.png"),
		"history format": errText("run", "s.json", "-o", "h.json"),
		"guide":          errText("guide"),
	} {
		if !strings.Contains(string(doc), msg) {
			t.Errorf("docs/errors.md does not quote the %s error as the code words it now:\n%s", what, msg)
		}
	}
	for _, fragment := range []string{
		"a different sweep from",
		"(the scene, the --set flags, the --vary grid or --list file, the -y fields or the cosim version differ); merge the tables of one sweep only",
		"the fit did not converge: ",
		"was not written (--accept-unconverged exits 0 and writes -o)",
		", the partial output of cosim process ",
	} {
		if !strings.Contains(string(doc), fragment) {
			t.Errorf("docs/errors.md lacks %q", fragment)
		}
	}
}
