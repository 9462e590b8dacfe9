package graph_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/masspoint"
)

// clockNode is a stateless node with one time event at its parameter
// "at", which SetParams accepts only within [0, 1].
type clockNode struct {
	node.Stateless
	spec *node.Spec
	at   float64
	lo   float64 // the lowest at SetParams accepts (0 unless set)
}

func newClockNode(at float64) *clockNode {
	return &clockNode{at: at, spec: node.NewSpec(node.Spec{
		Type:    "testclock",
		Params:  []node.Param{{Name: "at", Kind: node.Real, Default: 0.5, Units: "s", Description: "the event time, in [0, 1]", Range: node.Finite()}},
		Outputs: []node.Field{{Name: "value", Shape: node.Scalar, Units: "1", Description: "0 before at, 1 from at on"}},
	})}
}

func (n *clockNode) Spec() *node.Spec { return n.spec }
func (n *clockNode) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = 0
	if t >= n.at {
		dst[0] = 1
	}
	return nil
}
func (n *clockNode) TimeEvents(t float64) (k int, prev, next float64) {
	if t < n.at {
		return 0, math.Inf(-1), n.at
	}
	return 1, n.at, math.Inf(1)
}
func (n *clockNode) Params() node.Values { return node.Values{"at": n.at} }
func (n *clockNode) SetParams(p map[string]any) error {
	v := p["at"].(float64)
	if v < n.lo || v > 1 {
		return fmt.Errorf("at %v outside [%v, 1]", v, n.lo)
	}
	n.at = v
	return nil
}

// A parameter that moves its node's time events is refused also at
// either end of its range, where only one side of its difference step is
// valid: at = 0 (the event at the start moves into the run) and at = 1
// (the event inside the run moves earlier).
func TestMutSensTimeEventParamAtBound(t *testing.T) {
	for _, at := range []float64{0, 1} {
		mp, _ := masspoint.New(masspoint.Params{Mass: 1})
		g := graph.New()
		g.Add("m", mp)
		g.Add("clk", newClockNode(at))
		_, err := mustBuild(t, g).Sensitivities(context.Background(), []string{"clk.at"}, &graph.SensitivityOptions{End: 2})
		if !errors.Is(err, graph.ErrNotDifferentiable) {
			t.Errorf("at = %v: err = %v, want the time events moved", at, err)
		}
	}
}

// seedNode is a constant one-state node, x' = 0, x(0) = off[0] + s: a
// vector parameter "off" and a real one "s". It states ∂x(0)/∂p, whose
// column of the vector parameter is zero by the node contract (only
// Real parameters have columns).
type seedNode struct {
	spec *node.Spec
	off  []float64
	s    float64
}

func newSeedNode() *seedNode {
	return &seedNode{off: []float64{0.25}, s: 0.5, spec: node.NewSpec(node.Spec{
		Type:  "testseed",
		State: []node.Field{{Name: "x", Shape: node.Scalar, Units: "1", Description: "state"}},
		Params: []node.Param{
			{Name: "off", Kind: node.Vector, Shape: node.Vec(1), Default: []float64{0.25}, Units: "1", Description: "offset"},
			{Name: "s", Kind: node.Real, Default: 0.5, Units: "1", Description: "start", Range: node.Finite()},
		},
	})}
}

func (n *seedNode) Spec() *node.Spec           { return n.spec }
func (n *seedNode) InitialState(dst []float64) { dst[0] = n.off[0] + n.s }
func (n *seedNode) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	return nil
}
func (n *seedNode) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = 0
	return nil
}
func (n *seedNode) InitialStateParamJacobian(dst []float64) { dst[0], dst[1] = 0, 1 }
func (n *seedNode) Params() node.Values {
	return node.Values{"off": append([]float64(nil), n.off...), "s": n.s}
}
func (n *seedNode) SetParams(p map[string]any) error {
	if v, ok := p["off"]; ok {
		n.off = append([]float64(nil), v.([]float64)...)
	}
	if v, ok := p["s"]; ok {
		n.s = v.(float64)
	}
	return nil
}

// The initial sensitivity of a vector parameter's component comes from
// differences of InitialState, not from the node's InitialStateJacobian
// (which has no column for it): ∂x/∂off[0] = ∂x/∂s = 1 (1e-9), the
// second from the Jacobian.
func TestMutSensInitialVectorComponent(t *testing.T) {
	g := graph.New()
	g.Add("seed", newSeedNode())
	params := []string{"seed.off[0]", "seed.s"}
	res, err := mustBuild(t, g).Sensitivities(context.Background(), params, &graph.SensitivityOptions{End: 1, Output: []float64{1}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range params {
		if d, _ := res.At(0, "seed.x", p); !numtest.Within(d, 1, 1e-9) {
			t.Errorf("∂x/∂%s = %.12g, want 1", p, d)
		}
	}
}

// seedDrift is the seed node drifting at its vector component, x' =
// off[0], stating ∂f/∂p: zero in both columns, the vector's by the node
// contract (it has no column), the real s's because f does not read s.
type seedDrift struct{ *seedNode }

func (n seedDrift) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = n.off[0]
	return nil
}
func (seedDrift) DerivativesParamJacobian(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0], dst[1] = 0, 0
	return nil
}

// A vector parameter's component reaches f through differences over
// SetParams, never the node's ParamJacobian (no column for it): x(T) =
// off[0]·(1 + T) + s, so ∂x(T)/∂off[0] = 1 + T and ∂x(T)/∂s = 1 (1e-9).
func TestMutSensDriftVectorComponent(t *testing.T) {
	const T = 0.5
	g := graph.New()
	g.Add("seed", seedDrift{newSeedNode()})
	params := []string{"seed.off[0]", "seed.s"}
	res, err := mustBuild(t, g).Sensitivities(context.Background(), params, &graph.SensitivityOptions{End: T, Output: []float64{T}})
	if err != nil {
		t.Fatal(err)
	}
	for j, want := range []float64{1 + T, 1} {
		if d, _ := res.At(0, "seed.x", params[j]); !numtest.Within(d, want, 1e-9) {
			t.Errorf("∂x/∂%s = %.12g, want %v", params[j], d, want)
		}
	}
}
