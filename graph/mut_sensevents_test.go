package graph_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/masspoint"
)

// drainNode decays, a' = −a, while a > c and is held (a' = 0) once a ≤
// c: a mode that switches on its own event's surface, as a limited
// integrator's. Its falling event "floor" is g = a − c; the reset clamps
// a⁺ = c. It states ∂f/∂a (−1 or 0, by mode) and ∂f/∂c = 0 exactly;
// the event and reset are differenced by the graph.
type drainNode struct {
	spec  *node.Spec
	c     float64
	scale float64 // g = scale·(a − c)
}

func newDrainNode(c float64) *drainNode {
	return &drainNode{c: c, scale: 1, spec: node.NewSpec(node.Spec{
		Type:   "testdrain",
		State:  []node.Field{{Name: "a", Shape: node.Scalar, Units: "1", Description: "level"}},
		Params: []node.Param{{Name: "c", Kind: node.Real, Default: 0.5, Units: "1", Description: "floor", Range: node.Finite()}},
		Events: []node.Event{{Name: "floor", Direction: -1, Description: "a falls to c"}},
	})}
}

func (n *drainNode) Spec() *node.Spec           { return n.spec }
func (n *drainNode) InitialState(dst []float64) { dst[0] = 1 }
func (n *drainNode) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	return nil
}
func (n *drainNode) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = 0
	if x[0] > n.c {
		dst[0] = -x[0]
	}
	return nil
}
func (n *drainNode) DerivativesJacobian(t float64, x []float64, in node.Inputs, dstX, dstU []float64) error {
	if dstX != nil {
		dstX[0] = 0
		if x[0] > n.c {
			dstX[0] = -1
		}
	}
	return nil
}
func (n *drainNode) DerivativesParamJacobian(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = 0
	return nil
}
func (n *drainNode) EventValues(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = n.scale * (x[0] - n.c)
	return nil
}
func (n *drainNode) Reset(event int, t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = n.c
	return nil
}
func (n *drainNode) Params() node.Values { return node.Values{"c": n.c} }
func (n *drainNode) SetParams(p map[string]any) error {
	n.c = p["c"].(float64)
	return nil
}

// The event's f⁻ is the flow on the near side of the surface: the
// located state lies on or just past a = c, where the drain already
// reports its held mode (f = 0), and the saltation with that flow would
// refuse the crossing as grazing. Closed form: a = e^{−t} reaches c at
// t* = ln(1/c), so ∂t*/∂c = −1/c, and a is held at c after, so ∂a/∂c =
// 1 at T = 1 (c = 0.5; the time to 1e-9, the derivatives to 1e-8:
// measured 8e-11 and 6e-11, the error of Dormand–Prince at 1e-12 on the
// exponential). A free mass before the drain gives the event's gradient
// ∂g/∂y zeros besides its one; its initial velocity v₀ = 1, a second
// parameter, moves neither the event nor a (zero) and its own position
// by ∂x/∂v₀ = T.
func TestMutSensNearSideFlow(t *testing.T) {
	const c, T = 0.5, 1.0
	mp, _ := masspoint.New(masspoint.Params{Mass: 1, InitialVelocity: [3]float64{1, 0, 0}})
	g := graph.New()
	g.Add("m", mp)
	g.Add("drain", newDrainNode(c))
	s := mustBuild(t, g)
	res, err := s.Sensitivities(context.Background(), []string{"drain.c", "m.initial_velocity[0]"}, &graph.SensitivityOptions{End: T, Output: []float64{T},
		Record: []string{"drain.a", "m.position[0]"}, Mode: graph.MonolithicAdaptive{Method: sensTightDP, Options: sensTightEvents}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Events) != 1 || !numtest.Within(res.Events[0].T, math.Log(1/c), 1e-9) {
		t.Fatalf("events %+v, want one at ln 2", res.Events)
	}
	if d := res.Events[0].DT[0]; !numtest.Within(d, -1/c, 1e-8) {
		t.Errorf("∂t*/∂c = %.12g, want %v", d, -1/c)
	}
	for _, c := range []struct {
		col, p string
		want   float64
	}{{"drain.a", "drain.c", 1}, {"drain.a", "m.initial_velocity[0]", 0}, {"m.position[0]", "drain.c", 0}, {"m.position[0]", "m.initial_velocity[0]", T}} {
		if d, _ := res.At(0, c.col, c.p); !numtest.Within(d, c.want, 1e-8) {
			t.Errorf("∂%s(T)/∂%s = %.12g, want %v", c.col, c.p, d, c.want)
		}
	}
	if d := res.Events[0].DT[1]; !numtest.Within(d, 0, 1e-8) {
		t.Errorf("∂t*/∂v₀ = %.12g, want 0", d)
	}
}

// The move to the near side is along ∂g/∂y by the located state's own
// distance from the surface (plus a few ulps): with g = 10⁶·(a − c), a
// steep gradient, a move scaled by |∂g/∂y|² would put f⁻ = −a visibly
// off the surface. The same closed forms as TestMutSensNearSideFlow:
// ∂t*/∂c = −1/c, ∂a(T)/∂c = 1 (1e-8; measured 5.6e-11 with the default
// tolerances).
func TestMutSensNearSideSteepGradient(t *testing.T) {
	const c, T = 0.5, 1.0
	d := newDrainNode(c)
	d.scale = 1e6
	g := graph.New()
	g.Add("drain", d)
	res, err := mustBuild(t, g).Sensitivities(context.Background(), []string{"drain.c"}, &graph.SensitivityOptions{End: T, Output: []float64{T}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Events) != 1 || !numtest.Within(res.Events[0].DT[0], -1/c, 1e-8) {
		t.Errorf("events %+v, want ∂t*/∂c = %v", res.Events, -1/c)
	}
	if d, _ := res.At(0, "drain.a", "drain.c"); !numtest.Within(d, 1, 1e-8) {
		t.Errorf("∂a(T)/∂c = %.12g, want 1", d)
	}
}

// alarmNode is x' = 1 with a state event at a time, g = t − at (rising,
// no state gradient), resetting x to 0; like a node validating its
// state, its EventValues refuse a non-finite one.
type alarmNode struct {
	spec *node.Spec
	at   float64
}

func newAlarmNode(at float64) *alarmNode {
	return &alarmNode{at: at, spec: node.NewSpec(node.Spec{
		Type:   "testalarm",
		State:  []node.Field{{Name: "x", Shape: node.Scalar, Units: "s", Description: "time since the alarm"}},
		Params: []node.Param{{Name: "at", Kind: node.Real, Default: 0.5, Units: "s", Description: "alarm time", Range: node.Finite()}},
		Events: []node.Event{{Name: "ring", Direction: 1, Description: "t reaches at"}},
	})}
}

func (n *alarmNode) Spec() *node.Spec           { return n.spec }
func (n *alarmNode) InitialState(dst []float64) { dst[0] = 0 }
func (n *alarmNode) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	return nil
}
func (n *alarmNode) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = 1
	return nil
}
func (n *alarmNode) EventValues(t float64, x []float64, in node.Inputs, dst []float64) error {
	if math.IsNaN(x[0]) || math.IsInf(x[0], 0) {
		return fmt.Errorf("alarm: state %v is not finite", x[0])
	}
	dst[0] = t - n.at
	return nil
}
func (n *alarmNode) Reset(event int, t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = 0
	return nil
}
func (n *alarmNode) Params() node.Values { return node.Values{"at": n.at} }
func (n *alarmNode) SetParams(p map[string]any) error {
	n.at = p["at"].(float64)
	return nil
}

// An event with no state gradient (g = t − at) is located and
// differentiated through its explicit time derivative: t* = at, so
// ∂t*/∂at = 1, and x(T) = T − at, so ∂x(T)/∂at = −1 (1e-8). Its located
// state is not moved (there is no direction to move it in).
func TestMutSensTimeDrivenEvent(t *testing.T) {
	const T = 0.8
	g := graph.New()
	g.Add("alarm", newAlarmNode(0.5))
	res, err := mustBuild(t, g).Sensitivities(context.Background(), []string{"alarm.at"}, &graph.SensitivityOptions{End: T, Output: []float64{T},
		Mode: graph.MonolithicAdaptive{Method: sensTightDP, Options: sensTightEvents}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Events) != 1 || !numtest.Within(res.Events[0].DT[0], 1, 1e-8) {
		t.Errorf("events %+v, want ∂t*/∂at = 1", res.Events)
	}
	if d, _ := res.At(0, "alarm.x", "alarm.at"); !numtest.Within(d, -1, 1e-8) {
		t.Errorf("∂x(T)/∂at = %.12g, want -1", d)
	}
}

// slantNode is x' = 1 with the event g = 1000·t − (1000 − 1e-8)·x − c
// (rising): along the trajectory x = t it crosses at t* = c/1e-8, at a
// speed ∂g/∂t + ∂g/∂x·x' = 1e-8 that is the difference of two terms of
// 1000, 5e-12 of them, below the rounding of g's own evaluation (an ulp
// of 1000·t is 1e-13, so t* is uncertain by 1e-5). Its gradient is
// stated exactly, so the speed is that difference, not a difference of
// g's rounding.
type slantNode struct{ *alarmNode }

func (n slantNode) EventValues(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = 1000*t - (1000-1e-8)*x[0] - n.at
	return nil
}

// EventValuesJacobian states ∂g/∂x, ∂g/∂at and ∂g/∂t exactly.
func (n slantNode) EventValuesJacobian(event int, t float64, x []float64, in node.Inputs, dstX, dstU, dstP []float64) (float64, error) {
	dstX[0], dstP[0] = -(1000 - 1e-8), -1
	return 1000, nil
}

// A crossing whose speed cancels to rounding level against its terms
// (relative 5e-12, below 1e-10) has no trustworthy derivative and is
// refused as grazing, with an error wrapping ErrNotDifferentiable.
func TestMutSensNumericallyGrazing(t *testing.T) {
	g := graph.New()
	g.Add("slant", slantNode{newAlarmNode(5e-9)})
	_, err := mustBuild(t, g).Sensitivities(context.Background(), []string{"slant.at"}, &graph.SensitivityOptions{End: 1})
	if !errors.Is(err, graph.ErrNotDifferentiable) || !strings.Contains(err.Error(), "grazes its surface") {
		t.Errorf("err = %v, want the crossing refused as grazing", err)
	}
}
