package scene_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
	"github.com/google/go-cmp/cmp"
)

// CheckKey names a misspelt parameter or field without a value, with the
// closest names, and accepts what With can set.
func TestCheckKey(t *testing.T) {
	sc, err := scene.DecodeFile("../examples/scenes/thrust-on-spring.json")
	if err != nil {
		t.Fatal(err)
	}
	reg := nodes.Registry()
	for _, key := range []string{"bob.mass", "rod.stiffness", "run.dt", "run.coupling.omega", "run.integrator.rtol", "record.every"} {
		if err := sc.CheckKey(key, reg); err != nil {
			t.Errorf("%s: %v", key, err)
		}
	}
	for key, want := range map[string]string{
		"bob.mas":         `bob.mas: bob (masspoint) has no parameter "mas" (did you mean "mass"?)`,
		"bobb.mass":       `bobb.mass: no node or connector "bobb" in the scene (did you mean "bob"?)`,
		"run.dtt":         `run.dtt: run has no field "dtt" (did you mean "dt"?)`,
		"run.dt.x":        `run.dt.x: run.dt is a value, not a section`,
		"record.evry":     `record.evry: record has no field "evry" (did you mean "every"?)`,
		"run":             `write node.param`,
		"rod.stifness":    `did you mean "stiffness"?`,
		"thrust.columnn":  `did you mean "column"?`,
		"run.coupling.xx": `run.coupling has no field "xx"`,
	} {
		err := sc.CheckKey(key, reg)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", key, err, want)
		}
	}
	// Every parameter the example scenes give passes.
	for _, f := range []string{"bouncing-ball.json", "mass-spring-chain.json", "thrust-on-spring.json", "two-mass-modes.json"} {
		sc, err := scene.DecodeFile("../examples/scenes/" + f)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range sc.Nodes {
			for p := range n.Params {
				if err := sc.CheckKey(n.Name+"."+p, reg); err != nil {
					t.Errorf("%s: %v", f, err)
				}
			}
		}
		for _, c := range sc.Connectors {
			for p := range c.Params {
				if err := sc.CheckKey(c.Name+"."+p, reg); err != nil {
					t.Errorf("%s: %v", f, err)
				}
			}
		}
	}
}

// "coupling": {} is explicit Jacobi, the documented default (it was
// `unknown strategy ""`), bit for bit the run without a coupling section.
func TestEmptyCouplingIsJacobi(t *testing.T) {
	reg := nodes.Registry()
	base := `{"nodes": [{"name": "m", "type": "masspoint", "params": {"initial_position": [1, 0, 0]}}],
 "connectors": [{"name": "s", "type": "springdamper", "params": {"stiffness": [20, 20, 20]}, "bodies": ["ground", "m"]}],
 "run": {"dt": 0.01, "end": 1 %s}, "record": {"fields": ["m.position"]}}`
	var rows [][][]float64
	for _, c := range []string{``, `, "coupling": {}`, `, "coupling": {"scheme": "jacobi"}`} {
		sc, err := scene.Load(strings.NewReader(strings.Replace(base, "%s", c, 1)), reg)
		if err != nil {
			t.Fatalf("coupling %q: %v", c, err)
		}
		res, err := sc.Simulate(context.Background(), reg, nil)
		if err != nil {
			t.Fatalf("coupling %q: %v", c, err)
		}
		rows = append(rows, res.History.Rows)
	}
	for i := 1; i < len(rows); i++ {
		if diff := cmp.Diff(rows[0], rows[i]); diff != "" {
			t.Errorf("run %d differs from the one without coupling:\n%s", i, diff)
		}
	}
}

// null removes a setting: --set run.coupling=null lets a co-simulation
// scene with a coupling section run monolithically.
func TestSetNullRemoves(t *testing.T) {
	sc, err := scene.DecodeFile("../examples/scenes/mass-spring-chain.json")
	if err != nil {
		t.Fatal(err)
	}
	if sc.Run.Coupling == nil {
		t.Fatal("the example has no coupling section")
	}
	mono, err := sc.With(map[string]any{
		"run.coupling":   scene.ParseValue("null"),
		"run.mode":       scene.ParseValue("monolithic"),
		"run.integrator": scene.ParseValue(`{"method": "rk4"}`),
	})
	if err != nil {
		t.Fatal(err)
	}
	if mono.Run.Coupling != nil || !mono.Run.Monolithic() {
		t.Errorf("coupling %+v, mode %q", mono.Run.Coupling, mono.Run.Mode)
	}
	if scene.ParseValue("null") != nil {
		t.Errorf("ParseValue(null) = %#v", scene.ParseValue("null"))
	}
}

// Tolerances no double-precision step can meet are refused with the
// reason; they read "step at t=NaN (dt=NaN)" (rtol = atol = 1e-300) or
// ran a million steps of dt = 0 (atol = 1e-300).
func TestAdaptiveToleranceFloor(t *testing.T) {
	sc, err := scene.DecodeFile("../examples/scenes/bouncing-ball-events.json")
	if err != nil {
		t.Fatal(err)
	}
	_, err = sc.With(map[string]any{"run.integrator.rtol": 1e-300, "run.integrator.atol": 1e-300})
	for _, want := range []string{
		"--set run.integrator.rtol: 1e-300 is below 10·ε = 2.2e-15",
		"--set run.integrator.atol: 1e-300 is below 1e-100",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v; want %q", err, want)
		}
	}
	if _, err := sc.With(map[string]any{"run.integrator.rtol": 1e-14, "run.integrator.atol": 1e-99}); err != nil {
		t.Errorf("tolerances above the floor: %v", err)
	}
}
