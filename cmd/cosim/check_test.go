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
// when the scene's scheme is unstable; --json gives the same numbers.
func TestCheck(t *testing.T) {
	code, out, errs := cosim(t, "check", chainScene)
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, errs)
	}
	mustContain(t, "check", out, "scheme", "spectral radius", "largest stable dt",
		"gauss-seidel (the scene's)", "1.00002415", "jacobi  ", "iterative:iqn-ils")
	mustContain(t, "check stderr", errs, "the scene's coupling gauss-seidel is unstable at dt = 0.001 s")
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
