package graph_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/masspoint"
)

// levelNode is a stateless source whose output "value" is its parameter
// "level", which SetParams accepts only within [0, 1]: a parameter at
// either end of its range is differenced one-sided.
type levelNode struct {
	node.Stateless
	spec  *node.Spec
	level float64
}

func newLevelNode(level float64) *levelNode {
	return &levelNode{level: level, spec: node.NewSpec(node.Spec{
		Type:    "testlevel",
		Params:  []node.Param{{Name: "level", Kind: node.Real, Default: 0.5, Units: "m/s", Description: "the output, in [0, 1]", Range: node.Finite()}},
		Outputs: []node.Field{{Name: "value", Shape: node.Scalar, Units: "m/s", Description: "level"}},
	})}
}

func (n *levelNode) Spec() *node.Spec { return n.spec }
func (n *levelNode) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = n.level
	return nil
}
func (n *levelNode) Params() node.Values { return node.Values{"level": n.level} }
func (n *levelNode) SetParams(p map[string]any) error {
	v := p["level"].(float64)
	if v < 0 || v > 1 {
		return fmt.Errorf("level %v outside [0, 1]", v)
	}
	n.level = v
	return nil
}

// A parameter of a stateless node at either end of its range (level 0
// or 1, SetParams refusing the step beyond) is differenced one-sided and
// reaches the trip node's rate through its inputs: a = level·t, so
// ∂a(T)/∂level = T exactly (1e-9: the one-sided difference is of second
// order and the flow linear); the mass beside it (whose inputs the level
// does not reach) has zero. The trip threshold c = 10 is not reached.
// At the upper end the difference is the minus side's, −(−3f(v) +
// 4f(v − h) − f(v − 2h))/(2h); it once read f(v − 2h) for f(v − h) too
// (two names for one buffer) and gave 3T.
func TestMutSensOneSidedInputParam(t *testing.T) {
	const T = 0.5
	for _, level := range []float64{0, 1} {
		mp, _ := masspoint.New(masspoint.Params{Mass: 1, InitialVelocity: [3]float64{1, 0, 0}})
		g := graph.New()
		g.Add("m", mp)
		g.Add("lv", newLevelNode(level))
		g.Add("trip", newTripNode(10, 0.5, 0.3))
		g.Connect("lv.value", "trip.rate")
		res, err := mustBuild(t, g).Sensitivities(context.Background(), []string{"lv.level"}, &graph.SensitivityOptions{End: T, Output: []float64{T},
			Record: []string{"trip.a", "m.position[0]"}})
		if err != nil {
			t.Fatalf("level %v: %v", level, err)
		}
		if d, _ := res.At(0, "trip.a", "lv.level"); !numtest.Within(d, T, 1e-9) {
			t.Errorf("level %v: ∂a/∂level = %.12g, want %v", level, d, T)
		}
		if d, _ := res.At(0, "m.position[0]", "lv.level"); d != 0 {
			t.Errorf("level %v: ∂x_m/∂level = %v, want 0", level, d)
		}
	}
}

// Two differenced parameters of one node (components of a mass's
// gravity, a vector parameter, so never an analytic column) each get
// their own column of ∂f/∂p: under gravity (gx, gy, 0) from rest, x_i(T)
// = g_i·T²/2, so ∂x/∂gx = ∂y/∂gy = T²/2 and the cross terms are zero;
// ∂v_i/∂g_i = T (1e-9: polynomial flight).
func TestMutSensTwoDifferencedParams(t *testing.T) {
	const T = 0.8
	mp, _ := masspoint.New(masspoint.Params{Mass: 1, Gravity: [3]float64{1, -2, 0}})
	g := graph.New()
	g.Add("m", mp)
	params := []string{"m.gravity[0]", "m.gravity[1]"}
	res, err := mustBuild(t, g).Sensitivities(context.Background(), params, &graph.SensitivityOptions{End: T, Output: []float64{T},
		Record: []string{"m.position[0]", "m.position[1]", "m.velocity[0]", "m.velocity[1]"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]float64{
		"m.position[0]": {T * T / 2, 0}, "m.position[1]": {0, T * T / 2},
		"m.velocity[0]": {T, 0}, "m.velocity[1]": {0, T},
	}
	for col, w := range want {
		for j, p := range params {
			if d, _ := res.At(0, col, p); !numtest.Within(d, w[j], 1e-9) {
				t.Errorf("∂%s/∂%s = %.12g, want %v", col, p, d, w[j])
			}
		}
	}
}

// rateNode is x' = p, x(0) = 0, its parameter p accepted only within
// [0, 1]; it states no ∂f/∂p, so its own rows are differenced.
type rateNode struct {
	spec *node.Spec
	p    float64
}

func newRateNode(p float64) *rateNode {
	return &rateNode{p: p, spec: node.NewSpec(node.Spec{
		Type:   "testrate",
		State:  []node.Field{{Name: "x", Shape: node.Scalar, Units: "1", Description: "state"}},
		Params: []node.Param{{Name: "p", Kind: node.Real, Default: 0.5, Units: "1/s", Description: "rate, in [0, 1]", Range: node.Finite()}},
	})}
}

func (n *rateNode) Spec() *node.Spec           { return n.spec }
func (n *rateNode) InitialState(dst []float64) { dst[0] = 0 }
func (n *rateNode) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	return nil
}
func (n *rateNode) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = n.p
	return nil
}
func (n *rateNode) Params() node.Values { return node.Values{"p": n.p} }
func (n *rateNode) SetParams(p map[string]any) error {
	v := p["p"].(float64)
	if v < 0 || v > 1 {
		return fmt.Errorf("p %v outside [0, 1]", v)
	}
	n.p = v
	return nil
}

// A node's own parameter at either end of its range, differenced
// one-sided in its own rows of ∂f/∂p: x = p·t, so ∂x(T)/∂p = T (1e-9;
// linear in p, so the one-sided difference is exact up to rounding).
func TestMutSensOneSidedOwnParam(t *testing.T) {
	const T = 0.5
	for _, p := range []float64{0, 1} {
		g := graph.New()
		g.Add("r", newRateNode(p))
		res, err := mustBuild(t, g).Sensitivities(context.Background(), []string{"r.p"}, &graph.SensitivityOptions{End: T, Output: []float64{T}})
		if err != nil {
			t.Fatalf("p = %v: %v", p, err)
		}
		if d, _ := res.At(0, "r.x", "r.p"); !numtest.Within(d, T, 1e-9) {
			t.Errorf("p = %v: ∂x/∂p = %.12g, want %v", p, d, T)
		}
	}
}
