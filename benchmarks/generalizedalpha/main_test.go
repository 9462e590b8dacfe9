package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The command runs end to end into a temporary directory and its numbers
// meet the MADDENING two-mass guide's claims: the driver within 1e-13 of the modal reference
// for every variant, ρ∞ = 1 within 5e-14 of Newmark, carried order ≥ 1.98,
// reset order ≈ 1 for the damped variants, the β = 1/16 control at 5.83.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	var out strings.Builder
	if err := run(dir, &out); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "validation.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v Validation
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Variants) != 5 || len(v.Refinement) != 5 {
		t.Fatalf("%d variants, %d refinement studies", len(v.Variants), len(v.Refinement))
	}
	for _, c := range v.Variants {
		if !c.ParamsEqual || c.Modal > 1e-13 {
			t.Errorf("%s: parameters equal %v, vs reference %g", c.Label, c.ParamsEqual, c.Modal)
		}
	}
	if v.RhoOneNewmark > 5e-14 {
		t.Errorf("ρ∞ = 1 vs Newmark %g", v.RhoOneNewmark)
	}
	for _, r := range v.Refinement {
		if r.OrderCarried < 1.98 {
			t.Errorf("%s: carried order %v", r.Label, r.OrderCarried)
		}
	}
	for _, l := range []int{2, 3, 4} {
		if r := v.Refinement[l]; r.OrderReset < 0.9 || r.OrderReset > 1.1 {
			t.Errorf("%s: reset order %v", r.Label, r.OrderReset)
		}
	}
	if d := v.BadBetaRadius.Driver; d < 5.825 || d > 5.835 {
		t.Errorf("β = 1/16 radius %v", d)
	}
	// The seed's work comparison with the matrix-free GMRES stack: both
	// methods, both forcings, GMRES really ran (no Jacobian formed), and
	// the trajectories agree with dense LU to 1e-12 in displacement (each
	// of the 120 steps is solved to NewtonTol 1e-10 on accelerations of
	// order 10³, i.e. displacements to about dt²·β·1e-7 = 2.5e-10·1e-3;
	// measured 3e-14).
	if len(v.SeedWork) != 4 {
		t.Fatalf("%d seed-work rows, want 4", len(v.SeedWork))
	}
	for _, w := range v.SeedWork {
		if w.Work.Steps != 120 || w.Work.LinearIters == 0 || w.Work.JacEvals != 0 || w.MaxVsDense > 1e-12 {
			t.Errorf("%s %s: %+v, vs dense %g", w.Label, w.Forcing, w.Work, w.MaxVsDense)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "VALIDATION.md")); err != nil {
		t.Error(err)
	}
}
