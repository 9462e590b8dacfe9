package masspoint

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/node"
)

// The batch reads one row of parameters when its members' laws of motion
// are equal, whatever their initial conditions (a chain of equal masses
// at different places), and one row per member once a SetParams makes
// one law differ. What the kernels compute is held to the members'
// methods by TestBatchKernelEqualLawThenTuned; this pins the layout, on
// which a long chain's memory traffic depends (80 bytes of parameters
// per mass and evaluation when every row is read).
func TestBatchUniformLaw(t *testing.T) {
	members := make([]node.Node, 4)
	for i := range members {
		m, err := New(Params{Mass: 2, Gravity: [3]float64{0, 0, -1}, InitialPosition: [3]float64{float64(i), 0, 0}, InitialVelocity: [3]float64{0, float64(-i), 0}})
		if err != nil {
			t.Fatal(err)
		}
		members[i] = m
	}
	b := members[0].(*Node).NewBatch(members).(*batch)
	if _, stride := b.laws.Walk(0, 4); !b.laws.Uniform() || stride != 0 {
		t.Fatalf("equal laws, different initial conditions: uniform %v, row stride %d; want true, 0", b.laws.Uniform(), stride)
	}
	// An initial condition changed alone leaves the law shared.
	if err := members[1].(*Node).SetParams(map[string]any{"initial_position": []float64{9, 9, 9}}); err != nil {
		t.Fatal(err)
	}
	if !b.laws.Uniform() {
		t.Fatal("a SetParams of initial_position alone made the batch non-uniform")
	}
	if err := members[3].(*Node).SetParams(map[string]any{"mass": 5.0}); err != nil {
		t.Fatal(err)
	}
	if _, stride := b.laws.Walk(0, 4); b.laws.Uniform() || stride == 0 || b.laws.At(3).mass != 5 || b.laws.At(0).mass != 2 {
		t.Fatalf("after member 3's mass changed: uniform %v, row stride %d, masses %v, %v; want false, > 0, 2, 5",
			b.laws.Uniform(), stride, b.laws.At(0).mass, b.laws.At(3).mass)
	}
}

// TestKernelInlinesTheLaw: the batch kernels call accel, advance and
// derivatives — the functions Update and Derivatives call — once per
// row, and the compiler must inline them there (a call per row costs a
// third of a chain's row). The compiler's inlining report
// (go build -gcflags=-m) is the reference.
func TestKernelInlinesTheLaw(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the package with -gcflags=-m")
	}
	out, err := exec.Command("go", "build", "-gcflags=-m", "-o", os.DevNull, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build -gcflags=-m: %v\n%s", err, out)
	}
	for _, call := range []string{"advance", "(*law).accel", "(*law).derivatives"} {
		if !regexp.MustCompile(`batch\.go:\d+:\d+: inlining call to ` + regexp.QuoteMeta(call) + `\n`).Match(out) {
			t.Errorf("the batch kernel does not inline %s; the compiler says:\n%s", call, grepLines(out, call))
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
