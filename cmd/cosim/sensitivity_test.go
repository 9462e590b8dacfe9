package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
)

const ballEventsScene = "../../examples/scenes/bouncing-ball-events.json"

// cosim sensitivity --json: the documented shape, and the MADD-ANO-021
// numbers: a drop from 1 m (e = 0.8, g = −9.81) to T = 0.8 s, one bounce,
// ∂x(T)/∂h = 0.589201781010415 and ∂x(T)/∂|g| = 0.00509702150972624 (the
// closed form of verification.TestAnomalyMADDANO021; ∂/∂gravity is its
// negative). 1e-7 relative: the scene's tolerances (rtol 1e-9) are looser
// than the verification test's.
func TestSensitivityJSON(t *testing.T) {
	code, out, errs := cosim(t, "sensitivity", ballEventsScene, "--json",
		"--wrt", "ball.initial_position", "--wrt", "ball.gravity", "-y", "ball.position",
		"--set", "ball.initial_position=1", "--set", "ball.elasticity=0.8", "--set", "run.end=0.8")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	if got["t"] != 0.8 || len(got) != 2 {
		t.Fatalf("keys: %s", out)
	}
	pos := got["ball.position"].(map[string]any)
	for p, want := range map[string]float64{"ball.initial_position": 0.589201781010415, "ball.gravity": -0.00509702150972624} {
		if v := pos[p].(float64); !numtest.Within(v, want, 1e-7*math.Abs(want)) {
			t.Errorf("∂x/∂%s = %v, want %v", p, v, want)
		}
	}
}

// The table, the event lines and -o's CSV history; a co-simulation scene
// is refused with the way to run it monolithically; usage errors.
func TestSensitivityTableAndErrors(t *testing.T) {
	csv := filepath.Join(t.TempDir(), "s.csv")
	code, out, errs := cosim(t, "sensitivity", ballEventsScene, "--wrt", "ball.elasticity", "-o", csv)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	mustContain(t, "table", out, "∂y/∂p at t = 10", "∂/∂ball.elasticity", "ball.velocity", "event ball.contact at t = 1.4278", "rows written to")
	data, _ := os.ReadFile(csv)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if lines[0] != "t,ball.position,d(ball.position)/d(ball.elasticity),ball.velocity,d(ball.velocity)/d(ball.elasticity)" || len(lines) < 1000 {
		t.Errorf("CSV header %q, %d lines", lines[0], len(lines))
	}
	code, _, errs = cosim(t, "sensitivity", "../../examples/scenes/bouncing-ball.json", "--wrt", "ball.elasticity")
	if code == 0 {
		t.Fatal("co-simulation scene differentiated")
	}
	mustContain(t, "co-simulation refusal", errs, "co-simulation runs are not differentiated", "MADD-ANO-021", "add --monolithic")
	// --monolithic differentiates the same model with adaptive
	// Dormand–Prince, even with a coupling scheme in the scene.
	code, out, errs = cosim(t, "sensitivity", "../../examples/scenes/mass-spring-chain.json", "--wrt", "s1.stiffness[0]", "--monolithic", "--json")
	if code != 0 || !strings.Contains(out, `"s1.stiffness[0]"`) {
		t.Errorf("--monolithic: exit %d, %s %s", code, out, errs)
	}
	if code, _, errs = cosim(t, "sensitivity", ballEventsScene); code != 2 || !strings.Contains(errs, "--wrt") {
		t.Errorf("no --wrt: exit %d, %s", code, errs)
	}
	if code, _, errs = cosim(t, "sensitivity", ballEventsScene, "--wrt", "ball.nope"); code == 0 || !strings.Contains(errs, "has no parameter \"nope\"") {
		t.Errorf("bad parameter: exit %d, %s", code, errs)
	}
}
