package main

import (
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The command runs end to end into a temporary directory: REPORT.md and
// report.json with the five table rows, the work of Newmark and ρ∞ = 0.5
// and the refinement study, and a decodable PNG of the four panels.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	fig := filepath.Join(dir, "assets", "structural-modes.png")
	var out strings.Builder
	if err := run(dir, fig, &out); err != nil {
		t.Fatal(err)
	}
	var rep Report
	data, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Table) != 5 || len(rep.Work) != 2 || len(rep.Refinement) != 5 {
		t.Errorf("report has %d rows, %d work entries, %d refinement studies", len(rep.Table), len(rep.Work), len(rep.Refinement))
	}
	if r := rep.Table[3]; r.Label != "rho=0.5" || !(r.SlowEnergy > 0.999) || !(r.FastEnergy < 1e-15) {
		t.Errorf("ρ∞ = 0.5 row %+v", r)
	}
	md, err := os.ReadFile(filepath.Join(dir, "REPORT.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| ρ∞ = 0.5 | 99.9470% | 1.53e-18% | 0.0149 |", "Counted work", "Refinement"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("REPORT.md lacks %q", want)
		}
	}
	f, err := os.Open(fig)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() < 1000 || b.Dy() < 700 {
		t.Errorf("figure is %v", b)
	}
	if !strings.Contains(out.String(), fig) {
		t.Errorf("output does not say where the figure is: %q", out.String())
	}
}
