package scene_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
)

// twiceEuler is forward Euler under another name: a method a program
// registers and a scene then names.
type twiceEuler struct{}

func (twiceEuler) Name() string { return "scene-test-euler" }
func (twiceEuler) Order() int   { return 1 }
func (twiceEuler) New(sys integrators.System, o *integrators.DriverOptions) (integrators.Stepper, error) {
	st, err := integrators.NewStepper(integrators.ForwardEuler{}, sys, o)
	return named{st}, err
}

type named struct{ integrators.Stepper }

func (named) Method() string { return "scene-test-euler" }

const massScene = `{"nodes":[{"name":"m","type":"masspoint","params":{"initial_velocity":[1,0,0]}}],
 "connectors":[{"name":"s","type":"springdamper","bodies":["ground","m"],"local":[[1,1,0],[0,0,0]]}],
 "run":{"mode":"monolithic","dt":0.01,"steps":20,"integrator":%s}}`

func simulate(t *testing.T, integrator string) (*scene.Result, error) {
	t.Helper()
	sc, err := scene.Decode(bytes.NewReader([]byte(strings.Replace(massScene, "%s", integrator, 1))))
	if err != nil {
		return nil, err
	}
	return sc.Simulate(context.Background(), nodes.Registry(), nil)
}

// A scene names a registered method, in any case, and runs it; the
// method's parameters are matched in any case of its name too.
func TestSceneRegisteredMethod(t *testing.T) {
	if _, err := simulate(t, `{"method":"scene-test-euler"}`); err == nil || !strings.Contains(err.Error(), "not a method") {
		t.Fatalf("unregistered method: %v", err)
	}
	if _, err := integrators.ByName("scene-test-euler"); err != nil {
		if err := integrators.Register(twiceEuler{}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := simulate(t, `{"method":"Scene-Test-Euler"}`)
	if err != nil {
		t.Fatal(err)
	}
	want, err := simulate(t, `{"method":"forward-euler"}`)
	if err != nil {
		t.Fatal(err)
	}
	x1, err := got.Sim.Value("m.position")
	if err != nil {
		t.Fatal(err)
	}
	x2, _ := want.Sim.Value("m.position")
	if got.Time != want.Time || got.Steps != want.Steps || x1[0] != x2[0] || x1[1] != x2[1] {
		t.Errorf("registered euler: t=%v, %d steps, x=%v; forward-euler: t=%v, %d steps, x=%v (want the same bits)", got.Time, got.Steps, x1, want.Time, want.Steps, x2)
	}
	if got.Method != "scene-test-euler" {
		t.Errorf("Result.Method = %q", got.Method)
	}
	if _, err := simulate(t, `{"method":"Generalized-Alpha","rho_inf":0.3}`); err != nil {
		t.Errorf("rho_inf with the method name in another case: %v", err)
	}
	if _, err := simulate(t, `{"method":"scene-test-euler","beta":0.3}`); err == nil || !strings.Contains(err.Error(), "beta") {
		t.Errorf("beta with a method that has none: %v", err)
	}
}
