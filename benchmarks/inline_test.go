package benchmarks

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestMassKernelInlinesTheLaw: the mass point's batch kernels call
// law.accel, advance and law.derivatives — the functions its Update and
// Derivatives call — once per row, and the compiler must inline them
// there: a call per row costs a third of a W1 chain's row. The reference
// is the compiler's inlining report (go build -gcflags=-m). It lives
// here, with the benchmarks whose speed depends on it, rather than in
// package masspoint, whose tests mutation testing runs once per mutant.
func TestMassKernelInlinesTheLaw(t *testing.T) {
	if testing.Short() {
		t.Skip("builds nodes/masspoint with -gcflags=-m")
	}
	cmd := exec.Command("go", "build", "-gcflags=-m", "-o", os.DevNull, "./nodes/masspoint")
	cmd.Dir = ".."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go build -gcflags=-m: %v\n%s", err, out)
	}
	for _, call := range []string{"advance", "(*law).accel", "(*law).derivatives"} {
		if !regexp.MustCompile(`(?m)^\S*batch\.go:\d+:\d+: inlining call to ` + regexp.QuoteMeta(call) + `$`).Match(out) {
			t.Errorf("the mass kernel does not inline %s; the compiler says:\n%s", call, grepLines(out, call))
		}
	}
}

// grepLines returns the lines of out that mention s.
func grepLines(out []byte, s string) string {
	var b strings.Builder
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, s) {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}
