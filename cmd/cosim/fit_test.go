package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
)

const (
	calibScene = "../../examples/calibration/ball.json"
	calibData  = "../../examples/calibration/bounce.csv"
)

// cosim fit --json on the worked example: the documented shape, and the
// true ball behind bounce.csv (elasticity 0.75, gravity −9.81) within two
// reported standard errors.
func TestFitJSON(t *testing.T) {
	code, out, errs := cosim(t, "fit", calibScene, "--data", calibData, "--free", "ball.elasticity=0.5:0:1", "--free", "ball.gravity", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	for name, want := range map[string]float64{"ball.elasticity": 0.75, "ball.gravity": -9.81} {
		e := got[name].(map[string]any)
		v, se := e["value"].(float64), e["stderr"].(float64)
		if !numtest.Within(v, want, 2*se) || e["identifiable"] != true {
			t.Errorf("%s: %v ± %v, true %v", name, v, se, want)
		}
	}
	for _, k := range []string{"residual", "iterations", "evaluations"} {
		if _, ok := got[k]; !ok {
			t.Errorf("no %q in %s", k, out)
		}
	}
}

// The table's height fitted with the ball's elasticity and gravity:
// bounce.csv's ball comes to rest on the table before its last samples,
// where the sensitivity of its position to the table's height is 1 (it
// was 1e2 to 1e8, so the fit stopped at its start after one iteration
// and reported a standard error of 5e-7 for a parameter it never moved).
// The truth behind the data (elasticity 0.75, gravity −9.81, table 0)
// is within two reported standard errors, and the table's standard
// error is of the size the data's noise (0.003 m on 90 samples) allows,
// not a tiny one.
func TestFitTableHeight(t *testing.T) {
	code, out, errs := cosim(t, "fit", calibScene, "--data", calibData, "--free", "ball.elasticity=0.5:0:1", "--free", "ball.gravity", "--free", "table.position", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	for name, want := range map[string]float64{"ball.elasticity": 0.75, "ball.gravity": -9.81, "table.position": 0} {
		e := got[name].(map[string]any)
		v, se := e["value"].(float64), e["stderr"].(float64)
		if !numtest.Within(v, want, 2*se) || e["identifiable"] != true {
			t.Errorf("%s: %v ± %v, true %v", name, v, se, want)
		}
	}
	if se := got["table.position"].(map[string]any)["stderr"].(float64); se < 1e-4 {
		t.Errorf("table.position: standard error %v, too small for 0.003 m noise on 90 samples", se)
	}
}

// The table; an unidentifiable parameter is said to be one; errors.
func TestFitTableAndErrors(t *testing.T) {
	code, out, errs := cosim(t, "fit", calibScene, "--data", calibData, "--free", "ball.elasticity:0:1", "--free", "ball.gravity", "--free", "ball.initial_velocity", "--set", "ball.initial_velocity=0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	mustContain(t, "fit table", out, "PARAMETER", "ball.elasticity", "0.749", "residual")
	// A window before the first contact cannot tell the elasticity.
	short := t.TempDir() + "/short.csv"
	writeFile(t, short, "t,ball.position\n0.1,1.15095\n0.2,1.0038\n0.3,0.75855\n0.4,0.4152\n")
	code, out, errs = cosim(t, "fit", calibScene, "--data", short, "--free", "ball.elasticity=0.5:0:1", "--free", "ball.gravity")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	mustContain(t, "unidentifiable", out, "not identifiable from these data", "∞")
	for _, bad := range [][]string{
		{"fit", calibScene, "--free", "ball.gravity"},
		{"fit", calibScene, "--data", calibData},
		{"fit", calibScene, "--data", calibData, "--free", "ball.elasticity=x"},
		{"fit", calibScene, "--data", calibData, "--free", "ball.elasticity:1:0"},
		{"fit", calibScene, "--data", calibData, "--free", "ball.gravity", "--weight", "nope=1"},
	} {
		if code, _, errs := cosim(t, bad...); code != 2 {
			t.Errorf("%v: exit %d, %s", bad, code, errs)
		}
	}
	code, _, errs = cosim(t, "fit", "../../examples/scenes/bouncing-ball.json", "--data", calibData, "--free", "ball.gravity")
	if code == 0 || !strings.Contains(errs, "co-simulation") {
		t.Errorf("co-simulation scene: exit %d, %s", code, errs)
	}
}

func TestParseFree(t *testing.T) {
	p, err := parseFree("ball.elasticity=0.5:0:1")
	if err != nil || p.Name != "ball.elasticity" || *p.Start != 0.5 || p.Lo != 0 || p.Hi != 1 {
		t.Errorf("%+v %v", p, err)
	}
	p, err = parseFree("s.stiffness[0]::1e6")
	if err != nil || p.Start != nil || !math.IsInf(p.Lo, -1) || p.Hi != 1e6 {
		t.Errorf("%+v %v", p, err)
	}
	p, err = parseFree("ball.gravity=-9")
	if err != nil || *p.Start != -9 || p.Lo != 0 || p.Hi != 0 {
		t.Errorf("%+v %v", p, err)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The README's cosim fit table is what the command prints, to 1e-6
// relative (the last digits follow the optimizer's path, which the last
// bits of the gradient steer).
func TestFitReadmeTable(t *testing.T) {
	code, out, errs := cosim(t, "fit", calibScene, "--data", calibData, "--free", "ball.elasticity=0.5:0:1", "--free", "ball.gravity")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	table := func(text string) map[string][2]float64 {
		rows := map[string][2]float64{}
		for _, line := range strings.Split(text, "\n") {
			f := strings.Fields(line)
			if len(f) == 3 && strings.HasPrefix(f[0], "ball.") {
				a, err1 := strconv.ParseFloat(f[1], 64)
				b, err2 := strconv.ParseFloat(f[2], 64)
				if err1 == nil && err2 == nil {
					rows[f[0]] = [2]float64{a, b}
				}
			}
		}
		return rows
	}
	got, doc := table(out), table(string(readme))
	if len(got) != 2 || len(doc) != 2 {
		t.Fatalf("tables: command %v, README %v", got, doc)
	}
	for name, g := range got {
		d := doc[name]
		for k := range 2 {
			if !numtest.Within(g[k], d[k], 1e-6*math.Abs(g[k])) {
				t.Errorf("README.md: %s %v, cosim fit prints %v", name, d, g)
			}
		}
	}
}

// -o writes the scene with the fitted values, which loads and holds the
// estimates the table printed.
func TestFitSavesScene(t *testing.T) {
	out := t.TempDir() + "/fitted.json"
	code, stdout, errs := cosim(t, "fit", calibScene, "--data", calibData, "--free", "ball.elasticity=0.5:0:1", "--free", "ball.gravity", "--json", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	sc, err := scene.LoadFile(out, nodes.Registry())
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range sc.Nodes {
		if n.Name != "ball" {
			continue
		}
		for _, p := range []string{"elasticity", "gravity"} {
			v, _ := n.Params[p].(float64)
			if want := got["ball."+p].(map[string]any)["value"].(float64); v != want {
				t.Errorf("saved %s = %v, fitted %v", p, v, want)
			}
		}
	}
}

// The fit of data the model itself recorded (bouncing-ball-events.json
// dropped from 2 m, e = 0.73, 3 s, every 0.01 s, position and velocity)
// from e = 0.5: the velocity jumps at every bounce, and the gradient
// method alone stopped at e = 0.73080 (rms 0.17 m) saying converged. The
// fit recovers 0.73 to 1e-7 (the recording's rtol is 1e-9).
func TestFitHybridFromTheModel(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data.csv")
	sc := "../../examples/scenes/bouncing-ball-events.json"
	set := []string{"--set", "ball.initial_position=2", "--set", "run.end=3"}
	if code, _, errs := cosim(t, append([]string{"run", sc, "-q", "-o", data, "--set", "ball.elasticity=0.73"}, set...)...); code != 0 {
		t.Fatal(errs)
	}
	code, out, errs := cosim(t, append([]string{"fit", sc, "--data", data, "--free", "ball.elasticity=0.5", "--json"}, set...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	var got struct {
		E struct {
			Value float64 `json:"value"`
		} `json:"ball.elasticity"`
		Converged bool     `json:"converged"`
		Jumping   []string `json:"jumping"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	if !numtest.Within(got.E.Value, 0.73, 1e-7) || !got.Converged || len(got.Jumping) != 1 {
		t.Errorf("e = %.10f, converged %v, jumping %q:\n%s", got.E.Value, got.Converged, got.Jumping, out)
	}
}

// A fit that does not converge — here the stated noise cannot explain the
// residual of a ball whose gravity is wrong — exits 1 and does not write
// -o, unless --accept-unconverged asks for both.
func TestFitNotConvergedExits(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data.csv")
	sc := "../../examples/scenes/bouncing-ball-events.json"
	set := []string{"--set", "ball.initial_position=2", "--set", "run.end=1.5"}
	if code, _, errs := cosim(t, append([]string{"run", sc, "-q", "-o", data, "--set", "ball.elasticity=0.73"}, set...)...); code != 0 {
		t.Fatal(errs)
	}
	fitted := filepath.Join(dir, "fitted.json")
	args := append([]string{"fit", sc, "--data", data, "--free", "ball.elasticity=0.5:0:1", "--set", "ball.gravity=-5",
		"--noise", "ball.position=0.01", "--noise", "ball.velocity=0.01", "-o", fitted}, set...)
	code, out, errs := cosim(t, args...)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	mustContain(t, "stdout", out, "NOT converged", "warning: the stated noise does not explain the residual")
	mustContain(t, "stderr", errs, "the fit did not converge", fitted+" was not written")
	if _, err := os.Stat(fitted); err == nil {
		t.Errorf("%s written for a fit that did not converge", fitted)
	}
	code, _, errs = cosim(t, append(args, "--accept-unconverged")...)
	if code != 0 {
		t.Errorf("--accept-unconverged: exit %d: %s", code, errs)
	}
	mustContain(t, "stderr", errs, "warning: the fit did not converge (--accept-unconverged: exit 0)")
	if _, err := os.Stat(fitted); err != nil {
		t.Errorf("--accept-unconverged: %v", err)
	}
	// --noise for every column, and not with a weight.
	for _, bad := range [][]string{
		{"--noise", "ball.position=0.01"},
		{"--noise", "ball.position=0.01", "--noise", "ball.velocity=0.01", "--weight", "ball.velocity=2"},
		{"--noise", "ball.position=-1"},
	} {
		if code, _, errs := cosim(t, append([]string{"fit", sc, "--data", data, "--free", "ball.elasticity"}, append(bad, set...)...)...); code != 2 {
			t.Errorf("%q: exit %d, %s", bad, code, errs)
		}
	}
}

// Data files: one number syntax, each column once, one row is not
// enough for two parameters.
func TestFitDataMistakes(t *testing.T) {
	dir := t.TempDir()
	for text, want := range map[string]string{
		"t,ball.position\n0.1,1_0\n0.2,1\n":              `"1_0" is not a number: digit separators`,
		"t,ball.position\n0x1p-2,1\n0.3,1\n":             `"0x1p-2" is not a number: hexadecimal`,
		"t,ball.position,ball.position\n0.1,1,1\n":       "column ball.position is given twice",
		"t,ball.position,ball.velocity\n0.1,1.15,-0.9\n": "2 data values for 2 free parameters",
	} {
		p := filepath.Join(dir, "d.csv")
		writeFile(t, p, text)
		code, _, errs := cosim(t, "fit", calibScene, "--data", p, "--free", "ball.gravity", "--free", "ball.initial_velocity")
		if code != 1 || !strings.Contains(errs, want) {
			t.Errorf("%q: exit %d, %s; want %q", text, code, errs, want)
		}
	}
}
