package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestStartWarningEveryCommand: sweep, view, render and fit print the
// start-of-run stability warning cosim run prints, once, on stderr. The
// scene is TestCheckMonolithic's stiff spring (ω = 100 rad/s) under
// fixed-step RK4 at dt = 0.05 s, beyond RK4's stable step 2√2/ω =
// 0.0283 s: radius |R(5i)| = 21.4977793. A sweep of three masses warns
// for the lowest-numbered run that does (after the runs, whatever order they finish in) and counts the others; fit analyses the
// mode its sensitivity runs use (the scene's monolithic RK4). The
// co-simulation case: the mass-spring chain under Gauss–Seidel to
// t = 300 s (TestRunUnstableCoupling's warning) swept over two dampings.
func TestStartWarningEveryCommand(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "stiff.json")
	writeFile(t, sc, `{"nodes": [{"name": "m", "type": "masspoint", "params": {"initial_position": [1.01, 0, 0]}}],
  "connectors": [{"name": "s", "type": "springdamper", "params": {"stiffness": [10000, 0, 0], "offset": [1, 0, 0]}, "bodies": ["ground", "m"]}],
  "run": {"dt": 0.05, "end": 2, "mode": "monolithic", "integrator": {"method": "rk4"}},
  "record": {"fields": ["m.position"]}}`)
	data := filepath.Join(dir, "data.csv")
	writeFile(t, data, "t,m.position[0]\n0,1.01\n0.5,1.0\n1,0.99\n")
	const warn = "monolithic rk4 is unstable at dt = 0.05 s"
	once := func(what, errs, want string) {
		t.Helper()
		if n := strings.Count(errs, want); n != 1 {
			t.Errorf("%s: the warning %q printed %d times, want once:\n%s", what, want, n, errs)
		}
	}
	_, _, errs := cosim(t, "sweep", sc, "--vary", "m.mass=1:2:3", "-y", "m.position", "-q", "-j", "2", "-o", filepath.Join(dir, "sweep.csv"))
	once("sweep", errs, warn)
	mustContain(t, "sweep", errs, "cosim: warning: run 0 (m.mass=1): monolithic rk4", "21.4977793 > 1", "3 of 3 runs started with such warnings")
	_, _, errs = cosim(t, "view", sc, "-q", "-o", filepath.Join(dir, "v.html"))
	once("view", errs, warn)
	mustContain(t, "view", errs, "cosim: warning: "+warn)
	_, _, errs = cosim(t, "render", sc, "-q", "-o", filepath.Join(dir, "r.png"), "--at", "1")
	once("render", errs, warn)
	mustContain(t, "render", errs, "cosim: warning: "+warn)
	_, _, errs = cosim(t, "fit", sc, "--data", data, "--free", "m.mass=1:0.5:2")
	once("fit", errs, warn)
	mustContain(t, "fit", errs, "cosim: warning: "+warn)
	mustContain(t, "fit", errs, "21.4977793 > 1", "it is stable for dt ≤ 0.0283 s")

	// A stable scene prints no such warning.
	_, _, errs = cosim(t, "sweep", sc, "--set", "run.dt=0.01", "--vary", "m.mass=1:2:2", "-y", "m.position", "-q", "-o", filepath.Join(dir, "sweep2.csv"))
	if strings.Contains(errs, "warning") {
		t.Errorf("sweep at dt = 0.01 s (stable): %s", errs)
	}

	// Co-simulation: Gauss–Seidel on the chain over 300 s.
	_, _, errs = cosim(t, "sweep", chainScene, "--set", "run.end=300", "--vary", "s1.damping=[0.2,0,0]", "-y", "m4.position", "-q", "-o", filepath.Join(dir, "sweep3.csv"))
	once("sweep gauss-seidel", errs, "coupling gauss-seidel is unstable at dt = 0.001 s")
}
