package main

import (
	"encoding/json"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
)

const (
	calibScene = "../../examples/calibration/ball.json"
	calibData  = "../../examples/calibration/bounce.csv"
)

// cosim fit --json on the worked example: the shape, and the
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
		if math.Abs(v-want) > 2*se || e["identifiable"] != true {
			t.Errorf("%s: %v ± %v, true %v", name, v, se, want)
		}
	}
	for _, k := range []string{"residual", "iterations", "evaluations"} {
		if _, ok := got[k]; !ok {
			t.Errorf("no %q in %s", k, out)
		}
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
			if math.Abs(g[k]-d[k]) > 1e-6*math.Abs(g[k]) {
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
