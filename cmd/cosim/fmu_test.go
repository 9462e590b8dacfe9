package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/internal/fmitest"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/nodes"
)

// TestRunFMUScene runs a scene holding an imported FMU from the command
// line with --set on the FMU's parameter, and checks the history against
// the Reference FMU's own output for the default parameter (a different
// e changes it after the first bounce, and only then).
func TestRunFMUScene(t *testing.T) {
	f := fmitest.Reference(t, "BouncingBall", 3)
	dir := t.TempDir()
	rel, _ := filepath.Rel(dir, f.Zip)
	scene := `{"nodes": [{"name": "bb", "type": "fmu", "params": {"path": ` + strconv.Quote(rel) + `}}],
		"run": {"dt": 0.01, "end": 3}, "record": {"fields": ["bb.h", "bb.v"]}}`
	sp := filepath.Join(dir, "bb.json")
	os.WriteFile(sp, []byte(scene), 0o644)
	read := func(p string) [][]string {
		fh, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		rows, err := csv.NewReader(fh).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	ref := read(f.Out)
	for _, set := range []string{"", "bb.e=0.9"} {
		out := filepath.Join(dir, "out.csv")
		args := []string{"run", sp, "-o", out, "-q"}
		if set != "" {
			args = append(args, "--set", set)
		}
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 0 {
			t.Fatalf("cosim %s: exit %d\n%s", strings.Join(args, " "), code, stderr.String())
		}
		got := read(out)
		if len(got) != len(ref) {
			t.Fatalf("%d rows, the reference has %d", len(got), len(ref))
		}
		differ := 0
		for r := 1; r < len(got); r++ {
			for c := 1; c < 3; c++ {
				a, _ := strconv.ParseFloat(got[r][c], 64)
				b, _ := strconv.ParseFloat(ref[r][c], 64)
				if a != b {
					differ++
				}
			}
		}
		switch {
		case set == "" && differ > 0:
			t.Errorf("%d values differ from BouncingBall_out.csv", differ)
		case set != "" && differ == 0:
			t.Errorf("--set %s changed nothing", set)
		}
	}
}

// TestDescribeFMU: cosim describe FILE.fmu prints the variables with
// their units and the node's fields; --json adds the FMU record.
func TestDescribeFMU(t *testing.T) {
	f := fmitest.Reference(t, "BouncingBall", 2)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"describe", f.Dir}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{"FMI 2.0", "default experiment: startTime 0, stopTime 3, stepSize 0.01",
		"canGetAndSetFMUstate", "m/s2 (m/s^2)", "parameter e", "state h", "capabilities: outputs, tunable, hidden-state"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("describe does not say %q:\n%s", want, stdout.String())
		}
	}
	stdout.Reset()
	if code := run([]string{"describe", f.Zip, "--json", "--interface", "model-exchange"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var d struct {
		Type  string
		Caps  []string `json:"capabilities"`
		Extra struct {
			FMU struct {
				FMIVersion string `json:"fmi_version"`
				Variables  []struct {
					Name, Role string
				}
			} `json:"fmu"`
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &d); err != nil {
		t.Fatal(err)
	}
	if d.Type != "fmu" || d.Extra.FMU.FMIVersion != "2.0" || len(d.Extra.FMU.Variables) != 8 || !strings.Contains(strings.Join(d.Caps, ","), "events") {
		t.Errorf("describe --json: %+v", d)
	}
	stdout.Reset()
	if code := run([]string{"help", "fmi"}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), `"type": "fmu"`) {
		t.Errorf("cosim help fmi: exit %d\n%s", code, stdout.String())
	}
}

// TestSensitivityFMUScene: `cosim sensitivity` over a scene holding an
// imported model-exchange FMU differentiates one without discrete state
// (the Reference Dahlquist: ∂x(1)/∂k = −exp(−1), to 1e-6 relative at the
// scene's default tolerances) and refuses one with events (BouncingBall),
// naming the node, the FMU and why.
func TestSensitivityFMUScene(t *testing.T) {
	dir := t.TempDir()
	scene := func(model, name string) string {
		f := fmitest.Reference(t, model, 3)
		rel, _ := filepath.Rel(dir, f.Zip)
		sp := filepath.Join(dir, model+".json")
		s := `{"nodes": [{"name": "` + name + `", "type": "fmu", "params": {"path": ` + strconv.Quote(rel) + `, "interface": "model-exchange"}}],
			"run": {"dt": 0.01, "end": 1}}`
		if err := os.WriteFile(sp, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return sp
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"sensitivity", scene("Dahlquist", "d"), "--wrt", "d.k", "-y", "d.x", "--json", "--monolithic"}, &stdout, &stderr); code != 0 {
		t.Fatalf("Dahlquist: exit %d: %s", code, stderr.String())
	}
	var got map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	dx, _ := got["d.x"].(map[string]any)
	if v, ok := dx["d.k"].(float64); !ok || !numtest.Within(v, -math.Exp(-1), 1e-6*math.Exp(-1)) {
		t.Errorf("Dahlquist: ∂x(1)/∂k = %v (from %s), want −exp(−1)", dx["d.k"], stdout.String())
	}
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"sensitivity", scene("BouncingBall", "bb"), "--wrt", "bb.e", "--monolithic"}, &stdout, &stderr); code == 0 {
		t.Fatalf("BouncingBall: exit 0, want a refusal: %s", stdout.String())
	}
	for _, w := range []string{"node bb", "FMU BouncingBall", "event indicator"} {
		if !strings.Contains(stderr.String(), w) {
			t.Errorf("BouncingBall: %q does not say %q", stderr.String(), w)
		}
	}
}

// TestNodesListsNoFMU: `cosim nodes` is unchanged by FMI import: it lists
// exactly the node packages' types (nodes.Types), in text and JSON, and
// not the dynamic type "fmu", whose nodes take their specs from their
// FMU files (cosim describe FILE.fmu describes one).
func TestNodesListsNoFMU(t *testing.T) {
	var want []string
	for _, ty := range nodes.Types() {
		want = append(want, ty.Name)
	}
	slices.Sort(want)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"nodes", "--json"}, &stdout, &stderr); code != 0 {
		t.Fatalf("cosim nodes --json: exit %d\n%s", code, stderr.String())
	}
	var list []struct{ Type string }
	if err := json.Unmarshal(stdout.Bytes(), &list); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range list {
		got = append(got, e.Type)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("cosim nodes --json lists %v, the node packages' types are %v", got, want)
	}
	stdout.Reset()
	if code := run([]string{"nodes"}, &stdout, &stderr); code != 0 {
		t.Fatalf("cosim nodes: exit %d\n%s", code, stderr.String())
	}
	for _, line := range strings.Split(stdout.String(), "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == "fmu" {
			t.Errorf("cosim nodes lists the type fmu: %q", line)
		}
	}
}
