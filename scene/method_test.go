package scene_test

import (
	"bytes"
	"context"
	"errors"
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

// A scene's integrator keys become the options of the method the
// registry returns: each method gets its own, and keys of another
// method's are validation errors (not silently ignored).
func TestSceneIntegratorConfigure(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	for _, tc := range []struct {
		in   scene.IntegrationMethod
		want integrators.Method
	}{
		{scene.IntegrationMethod{Method: "RK4"}, integrators.RK4{}},
		{scene.IntegrationMethod{Method: "backward-euler", NewtonTol: 1e-12, LinearSolver: "gmres", KrylovRestart: 7},
			integrators.BackwardEuler{Newton: integrators.NewtonOptions{Tol: 1e-12},
				Linear: integrators.LinearOptions{Solver: integrators.LinearGMRES, KrylovRestart: 7}}},
		{scene.IntegrationMethod{Method: "newmark", Gamma: f(0.6)}, integrators.Newmark{Gamma: 0.6}},
		{scene.IntegrationMethod{Method: "generalized-alpha", RhoInf: f(0.3), NewtonMaxIter: 4},
			integrators.GeneralizedAlpha{RhoInf: 0.3, Newton: integrators.NewtonOptions{MaxIter: 4}}},
		{scene.IntegrationMethod{Method: "generalized-alpha"}, integrators.GeneralizedAlpha{RhoInf: integrators.DefaultRhoInf}},
		{scene.IntegrationMethod{Method: "dormand-prince", Adaptive: true, RTol: 1e-9, MaxStep: 0.5, MaxSteps: 100, EventTol: 1e-13},
			integrators.DormandPrince{RTol: 1e-9, MaxStep: 0.5}},
	} {
		m, o, err := tc.in.Configure()
		if err != nil || m != tc.want {
			t.Errorf("%+v: %#v, %v; want %#v", tc.in, m, err, tc.want)
			continue
		}
		if o.MaxSteps != tc.in.MaxSteps || o.EventTol != tc.in.EventTol {
			t.Errorf("%+v: driver options %+v", tc.in, o)
		}
	}
	if _, _, err := (&scene.IntegrationMethod{Method: "rk5"}).Configure(); !errors.Is(err, integrators.ErrUnknownMethod) {
		t.Errorf("rk5: %v", err)
	}
	// Another method's keys are errors naming them.
	for _, in := range []string{`{"method":"rk4","newton_tol":1e-8}`, `{"method":"rk4","rho_inf":0.5}`, `{"method":"backward-euler","rtol":1e-8}`} {
		if _, err := simulate(t, in); err == nil {
			t.Errorf("%s accepted", in)
		}
	}
}
