package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunUnstableCoupling: the mass-spring chain with Gauss–Seidel at
// dt = 1 ms grows (m4 reached 62.6 m at t = 300 s, exit 0, before the
// stability checks): cosim run now warns on stderr before the run, naming
// the scheme, the radius, a stable dt and a stable scheme, and stops the
// run with the growth error, exit 1. Jacobi at the same dt runs to the
// end without a warning, and run.allow_growth lets Gauss–Seidel run on.
func TestRunUnstableCoupling(t *testing.T) {
	out := filepath.Join(t.TempDir(), "t.csv")
	code, _, errs := cosim(t, "run", chainScene, "--set", "run.end=300", "-q", "-o", out)
	if code != 1 {
		t.Fatalf("Gauss–Seidel to t = 300: exit %d, want 1: %s", code, errs)
	}
	mustContain(t, "stderr", errs,
		"cosim: warning: coupling gauss-seidel is unstable at dt = 0.001 s",
		"spectral radius of its one-step amplification matrix (linearised at t = 0) is 1.00002415 > 1",
		"it is stable for dt ≤ 0.000402 s", "stable at this dt: jacobi (radius 1)",
		"the state grows exponentially", "coupling gauss-seidel is likely unstable at dt = 0.001 s")
	if i, j := strings.Index(errs, "warning: coupling"), strings.Index(errs, "grows exponentially"); i > j {
		t.Errorf("the warning comes after the error:\n%s", errs)
	}
	code, _, errs = cosim(t, "run", chainScene, "--set", "run.end=300", "--set", "run.coupling.scheme=jacobi", "-q", "-o", out)
	if code != 0 || strings.Contains(errs, "warning: coupling") {
		t.Errorf("Jacobi: exit %d: %s", code, errs)
	}
	code, _, errs = cosim(t, "run", chainScene, "--set", "run.end=300", "--set", "run.allow_growth=true", "-q", "-o", out)
	if code != 0 || !strings.Contains(errs, "warning: coupling gauss-seidel is unstable") {
		t.Errorf("allow_growth: exit %d: %s", code, errs)
	}
}

// TestCheck: cosim check prints the table of spectral radii and exits 1
// when the scene's scheme is unstable over the scene's run (the growth
// (radius/bound)^steps above graph.MaxRunGrowth = 2); --json gives the
// same numbers. Gauss–Seidel on the chain has radius 1 + 2.415e-5: over
// the scene's own 10 s (10 000 steps) that grows a perturbation by
// e^0.24 = 1.27, no warning; over 300 s by e^7.2 = 1.4e3, a warning.
func TestCheck(t *testing.T) {
	code, out, errs := cosim(t, "check", chainScene, "--set", "run.end=300")
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, errs)
	}
	mustContain(t, "check", out, "scheme", "spectral radius", "largest stable dt",
		"gauss-seidel (the scene's)", "1.00002415", "jacobi  ", "iterative:iqn-ils", "over the run's 300000 steps")
	mustContain(t, "check stderr", errs, "the scene's coupling gauss-seidel is unstable at dt = 0.001 s", "growth over the run's 300000 steps 1.4e+03")
	code, out, errs = cosim(t, "check", chainScene)
	if code != 0 || strings.Contains(out, "warning") {
		t.Errorf("Gauss–Seidel over the scene's 10 s: exit %d, want 0 without a warning:\n%s%s", code, out, errs)
	}
	mustContain(t, "check 10 s", out, "1.00002415", "over the run's 10000 steps")
	code, out, errs = cosim(t, "check", chainScene, "--json", "--set", "run.coupling.scheme=jacobi")
	if code != 0 {
		t.Fatalf("--json jacobi: exit %d: %s", code, errs)
	}
	var r struct {
		Unstable bool `json:"unstable"`
		Schemes  []struct {
			Strategy string   `json:"strategy"`
			Chosen   bool     `json:"chosen"`
			Radius   *float64 `json:"radius"`
			Stable   bool     `json:"stable"`
		} `json:"schemes"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if r.Unstable || len(r.Schemes) < 3 || !r.Schemes[0].Chosen || r.Schemes[0].Strategy != "jacobi" || *r.Schemes[0].Radius != 1 {
		t.Errorf("--json: %+v", r)
	}
	for _, s := range r.Schemes {
		if s.Strategy == "gauss-seidel" && (s.Stable || *s.Radius < 1.00002) {
			t.Errorf("gauss-seidel in the Jacobi scene's table: %+v", s)
		}
	}
	if code, _, _ := cosim(t, "check", chainScene, "--dt", "0.0001"); code != 0 {
		t.Errorf("--dt 0.0001 (below the largest stable 0.000402 s): exit %d", code)
	}
}

// TestRigidBodyIQNILSNoFalseAlarm: the rigid body on a spring under
// IQN-ILS has radius 1.0000118 at dt = 1 ms, linearised at its start
// away from equilibrium (the energy-conserving system's linearisation
// there is not exactly neutral), while its run stays bounded: over the
// scene's 6 000 steps that is a growth of e^0.071 = 1.07, below
// graph.MaxRunGrowth, so neither run nor check warns (both did before
// the run-growth rule).
func TestRigidBodyIQNILSNoFalseAlarm(t *testing.T) {
	const bar = "../../examples/scenes/rigid-body-spring.json"
	iqn := `run.coupling={"scheme": "iqn-ils"}`
	code, _, errs := cosim(t, "run", bar, "--set", iqn, "-q")
	if code != 0 || strings.Contains(errs, "warning") {
		t.Errorf("run: exit %d: %s", code, errs)
	}
	code, out, errs := cosim(t, "check", bar, "--set", iqn)
	if code != 0 || strings.Contains(out, "warning") {
		t.Errorf("check: exit %d:\n%s%s", code, out, errs)
	}
	mustContain(t, "check", out, "iterative:iqn-ils (the scene's)  1.00001179")
}

// TestCheckMonolithic: a fixed-step monolithic scene is analysed for its
// method (one RK4 step of the stiff spring at a too-large dt warns in run
// and makes check exit 1), an adaptive one is said not to need it.
func TestCheckMonolithic(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "stiff.json")
	writeFile(t, sc, `{"nodes": [{"name": "m", "type": "masspoint", "params": {"initial_position": [1.01, 0, 0]}}],
  "connectors": [{"name": "s", "type": "springdamper", "params": {"stiffness": [10000, 0, 0], "offset": [1, 0, 0]}, "bodies": ["ground", "m"]}],
  "run": {"dt": 0.05, "end": 2, "mode": "monolithic", "integrator": {"method": "rk4"}}}`)
	_, _, errs := cosim(t, "run", sc, "-q")
	mustContain(t, "run stderr", errs, "cosim: warning: monolithic rk4 is unstable at dt = 0.05 s", "21.4977793 > 1", "it is stable for dt ≤ 0.0283 s")
	code, out, errs := cosim(t, "check", sc)
	if code != 1 {
		t.Errorf("check: exit %d, want 1: %s", code, errs)
	}
	mustContain(t, "check", out, "stability of monolithic rk4 at dt = 0.05 s", "rk4 (the scene's)", "21.4977793", "0.0283 s")
	code, out, errs = cosim(t, "check", sc, "--set", "run.integrator.adaptive=true", "--set", "run.integrator.method=dormand-prince")
	if code != 0 {
		t.Errorf("adaptive check: exit %d: %s", code, errs)
	}
	mustContain(t, "adaptive check", out, "its error estimate chooses the steps and keeps them stable")
}
