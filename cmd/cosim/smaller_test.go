package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// With --set, a scene's problems are reported all at once, as without:
// the structural ones (run.workers) came alone first, the parameters only
// once they were fixed.
func TestSetReportsEveryProblem(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.json")
	os.WriteFile(p, []byte(`{"nodes": [{"name": "mass", "type": "masspoint", "params": {"mass": -1}}],
 "run": {"dt": 0.01, "end": 1, "workers": -2}}`), 0o644)
	for _, args := range [][]string{{"run", p}, {"run", p, "--set", "run.end=2"}} {
		code, _, errs := cosim(t, args...)
		if code != 1 {
			t.Errorf("%q: exit %d", args, code)
		}
		mustContain(t, strings.Join(args, " "), errs, "run.workers: -2 is negative", `nodes[0].params: masspoint: parameter "mass" = -1 is out of range`)
	}
}

// --set run.coupling=null takes a scene's coupling section out, so that
// the scene can run monolithically; null was the string "null".
func TestSetNullCoupling(t *testing.T) {
	sc := "../../examples/scenes/mass-spring-chain.json"
	code, out, errs := cosim(t, "run", sc, "-q", "--set", "run.coupling=null", "--set", "run.mode=monolithic",
		"--set", `run.integrator={"method": "rk4"}`, "--set", "run.end=0.1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	mustContain(t, "summary", out, "monolithic")
	// "coupling": {} is Jacobi, the default.
	p := filepath.Join(t.TempDir(), "c.json")
	os.WriteFile(p, []byte(`{"nodes": [{"name": "m", "type": "masspoint"}], "run": {"dt": 0.1, "end": 1, "coupling": {}}}`), 0o644)
	if code, out, errs := cosim(t, "run", p, "-q"); code != 0 || !strings.Contains(out, "co-simulation (jacobi)") {
		t.Errorf("coupling {}: exit %d, %s %s", code, out, errs)
	}
}
