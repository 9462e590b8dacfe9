package graph_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/ball"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// springAt: a unit mass at x0 on a spring-damper (stiffness k, damping
// 0.2) to the ground.
func springAt(t *testing.T, k, x0 float64) *graph.Sim {
	t.Helper()
	mp, _ := masspoint.New(masspoint.Params{Mass: 1, InitialPosition: [3]float64{x0, 0, 0}})
	g := graph.New()
	g.Add("m", mp)
	p := springdamper.DefaultParams()
	p.Stiffness, p.Damping = [3]float64{k, 0, 0}, [3]float64{0.2, 0, 0}
	if _, err := springdamper.Connect(g, "s", p, node.GroundAt([3]float64{}), node.Body("m")); err != nil {
		t.Fatal(err)
	}
	return mustBuild(t, g)
}

// A recorded output (the connector's force, recorded after a state
// field) is differentiated along S for each of two parameters: checked
// against central differences of the recorded value between runs at p ±
// 1e-4·p (truncation ~1e-8 relative), as TestSensitivitiesOutputs.
func TestMutSensOutputTwoParams(t *testing.T) {
	const k, x0, T = 25.0, 0.3, 0.9
	params := []string{"s.stiffness[0]", "m.initial_position[0]"}
	opts := &graph.SensitivityOptions{End: T, Output: []float64{T}, Mode: graph.MonolithicAdaptive{Method: sensTightDP, Options: sensTightEvents},
		Record: []string{"m.position[0]", "s.force[0]"}}
	res, err := springAt(t, k, x0).Sensitivities(context.Background(), params, opts)
	if err != nil {
		t.Fatal(err)
	}
	val := func(k, x0 float64) float64 {
		r, err := springAt(t, k, x0).Sensitivities(context.Background(), params, opts)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := r.Value(0, "s.force[0]")
		return v
	}
	hk, hx := 1e-4*k, 1e-4*x0
	for j, want := range []float64{(val(k+hk, x0) - val(k-hk, x0)) / (2 * hk), (val(k, x0+hx) - val(k, x0-hx)) / (2 * hx)} {
		if got, _ := res.At(0, "s.force[0]", params[j]); !numtest.Within(got, want, 1e-6*math.Abs(want)) {
			t.Errorf("∂force/∂%s = %.10g, differences of runs %.10g", params[j], got, want)
		}
	}
}

// Output may repeat a time (ascending, not strictly): each listed time
// gets its row.
func TestMutSensOutputRepeated(t *testing.T) {
	res, err := springAt(t, 25, 0.3).Sensitivities(context.Background(), []string{"m.initial_position[0]"},
		&graph.SensitivityOptions{End: 1, Output: []float64{0.5, 0.5, 1}, Record: []string{"m.position[0]"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Times) != 3 || res.Times[0] != 0.5 || res.Times[1] != 0.5 || !equalBits(res.D[0], res.D[1]) {
		t.Errorf("times %v, D %v", res.Times, res.D)
	}
}

// The driver's MaxSteps bounds the adaptive run: after exactly MaxSteps
// accepted steps short of End the run stops with an error saying so.
func TestMutSensMaxSteps(t *testing.T) {
	_, err := springAt(t, 25, 0.3).Sensitivities(context.Background(), []string{"m.initial_position[0]"},
		&graph.SensitivityOptions{End: 10, Mode: graph.MonolithicAdaptive{Method: sensTightDP, Options: &integrators.DriverOptions{MaxSteps: 3}}})
	if err == nil || !strings.Contains(err.Error(), "graph: Sensitivities: 3 steps before t=") {
		t.Errorf("err = %v, want 3 steps before End", err)
	}
}

// stopDrain is the drain whose reset asks to stop the run (node.ErrStop).
type stopDrain struct{ *drainNode }

func (n stopDrain) Reset(event int, t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = n.c
	return node.ErrStop
}

// A reset that returns node.ErrStop ends the run at its event: the last
// row is at the located time t* = ln 2 (c = 0.5; 1e-5, the default
// tolerances), well before End = 3.
func TestMutSensEventStop(t *testing.T) {
	g := graph.New()
	g.Add("drain", stopDrain{newDrainNode(0.5)})
	res, err := mustBuild(t, g).Sensitivities(context.Background(), []string{"drain.c"}, &graph.SensitivityOptions{End: 3})
	if err != nil {
		t.Fatal(err)
	}
	last := res.Times[len(res.Times)-1]
	if len(res.Events) != 1 || !numtest.Within(last, math.Ln2, 1e-5) || last != res.Events[0].T {
		t.Errorf("last row at %v, events %+v: want the run to end at the event ln 2", last, res.Events)
	}
}

// Fixed steps: End one step after the start is one step (two rows), and
// RecordEvery = 3 over 10 steps records the start, every third step and
// the last.
func TestMutSensFixedRows(t *testing.T) {
	run := func(end float64, every int) []float64 {
		res, err := springAt(t, 25, 0.3).Sensitivities(context.Background(), []string{"m.initial_position[0]"},
			&graph.SensitivityOptions{End: end, Dt: 0.1, RecordEvery: every, Mode: graph.Monolithic{Method: integrators.RK4{}}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Times
	}
	if got := run(0.1, 0); len(got) != 2 || got[1] != 0.1 {
		t.Errorf("one step: times %v, want [0 0.1]", got)
	}
	got := run(1, 3)
	want := []float64{0, 0.30000000000000004, 0.6000000000000001, 0.9, 1}
	if len(got) != len(want) {
		t.Fatalf("RecordEvery 3: times %v, want %v", got, want)
	}
	for i := range want {
		if !numtest.Within(got[i], want[i], 1e-12) {
			t.Errorf("RecordEvery 3: times %v, want %v", got, want)
		}
	}
}

// Two parameters with analytic ∂f/∂p (a ball's mass and gravity, no
// table: free fall from h = 2 with no force): x(T) = h + g·T²/2, v(T) =
// g·T, so ∂x/∂g = T²/2, ∂v/∂g = T and the mass moves nothing (1e-9).
func TestMutSensTwoAnalyticParams(t *testing.T) {
	const T = 0.5
	p := ball.DefaultParams()
	p.InitialPosition = 2
	b, _ := ball.New(p)
	g := graph.New()
	g.Add("ball", b)
	params := []string{"ball.mass", "ball.gravity"}
	res, err := mustBuild(t, g).Sensitivities(context.Background(), params, &graph.SensitivityOptions{End: T, Output: []float64{T}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		col  string
		want [2]float64
	}{{"ball.position", [2]float64{0, T * T / 2}}, {"ball.velocity", [2]float64{0, T}}} {
		for j, p := range params {
			if d, _ := res.At(0, c.col, p); !numtest.Within(d, c.want[j], 1e-9) {
				t.Errorf("∂%s/∂%s = %.12g, want %v", c.col, p, d, c.want[j])
			}
		}
	}
}

// An implicit fixed-step method steps the augmented system with its
// block-diagonal Jacobian: a stiff spring (k = 1e6, ω·dt = 10, where
// a fixed-point iteration without the Jacobian diverges) under backward
// Euler. The scheme is linear in the initial position, so S equals the
// difference of two runs at x₀ ± 1e-3 up to rounding (1e-9 absolute on
// values of order 1e-2).
func TestMutSensImplicitStiff(t *testing.T) {
	const k, x0, T = 1e6, 0.3, 0.1
	opts := &graph.SensitivityOptions{End: T, Dt: 0.01, Record: []string{"m.position[0]", "m.velocity[0]"}, Mode: graph.Monolithic{Method: integrators.BackwardEuler{}}}
	run := func(x0 float64) *graph.Sensitivity {
		res, err := springAt(t, k, x0).Sensitivities(context.Background(), []string{"m.initial_position[0]"}, opts)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res, up, down := run(x0), run(x0+1e-3), run(x0-1e-3)
	last := len(res.Times) - 1
	for _, col := range []string{"m.position[0]", "m.velocity[0]"} {
		vu, _ := up.Value(last, col)
		vd, _ := down.Value(last, col)
		want := (vu - vd) / 2e-3
		if d, _ := res.At(last, col, "m.initial_position[0]"); !numtest.Within(d, want, 1e-9) {
			t.Errorf("∂%s/∂x₀ = %.12g, differences of runs %.12g", col, d, want)
		}
	}
}

// nanStart is a one-state node whose initial state turns NaN once *nan
// is set: Build refuses a non-finite initial state, but Sensitivities
// asks the nodes for their initial states again (they may depend on
// parameters set since).
type nanStart struct {
	*drainNode
	nan *bool
}

func (n nanStart) InitialState(dst []float64) {
	n.drainNode.InitialState(dst)
	if *n.nan {
		dst[0] = math.NaN()
	}
}

// A non-finite initial state is an error naming its component, also for
// the graph's first component.
func TestMutSensNaNInitial(t *testing.T) {
	g := graph.New()
	nan := new(bool)
	g.Add("bad", nanStart{newDrainNode(0.5), nan})
	s := mustBuild(t, g)
	*nan = true
	_, err := s.Sensitivities(context.Background(), []string{"bad.c"}, &graph.SensitivityOptions{End: 1})
	if err == nil || !strings.Contains(err.Error(), "initial state bad.a is not finite") {
		t.Errorf("err = %v, want the non-finite initial state bad.a", err)
	}
}

// kinkJac is the kink node (ẋ = |x − p| at x = p) stating its ∂f/∂p: −1,
// the derivative of the mode x ≥ p its ∂f/∂x = +1 already declares. A
// declared ParamJacobian is used as given (no difference, so no
// *SwitchError): S' = S − 1, S(0) = 0, so ∂x(T)/∂p = 1 − e^T (1e-7:
// default tolerances of the adaptive method on an exponential).
type kinkJac struct{ *kinkNode }

func (kinkJac) DerivativesParamJacobian(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = -1
	return nil
}

func TestMutSensDeclaredParamJacobian(t *testing.T) {
	const T = 0.5
	g := graph.New()
	g.Add("k", kinkJac{newKinkNode()})
	res, err := mustBuild(t, g).Sensitivities(context.Background(), []string{"k.p"}, &graph.SensitivityOptions{End: T, Output: []float64{T}})
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := res.At(0, "k.x", "k.p"); !numtest.Within(d, 1-math.Exp(T), 1e-7) {
		t.Errorf("∂x/∂p = %.12g, want %.12g", d, 1-math.Exp(T))
	}
}

// Parameter names a user can get wrong are errors naming what is wrong.
func TestMutSensParamNameErrors(t *testing.T) {
	s := springAt(t, 25, 0.3)
	for _, c := range []struct{ name, want string }{
		{"m.nope", `node m (masspoint) has no parameter "nope"`},
		{"m.[0]", `has no parameter "[0]"`},
		{"m.mass[0]", "mass is float, not a vector with components"},
		{"m.gravity[3]", `parameter "m.gravity[3]" has no finite real value`},
	} {
		_, err := s.Sensitivities(context.Background(), []string{c.name}, &graph.SensitivityOptions{End: 1})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
		if errors.Is(err, graph.ErrNotDifferentiable) {
			t.Errorf("%s: a naming error wraps ErrNotDifferentiable", c.name)
		}
	}
}
