package graph_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/constant"
	"github.com/cosimgo/cosim/nodes/masspoint"
)

// fnNode is x' = f(x, p), x(0) = 1, with a declared ∂f/∂x of zero and
// no ∂f/∂p: the parameter p is differenced over SetParams, and its own
// rows of ∂f/∂p are checked for a switch of mode inside the step.
type fnNode struct {
	spec *node.Spec
	p    float64
	f    func(x, p float64) float64
}

func newFnNode(p float64, f func(x, p float64) float64) *fnNode {
	return &fnNode{p: p, f: f, spec: node.NewSpec(node.Spec{
		Type:   "testfn",
		State:  []node.Field{{Name: "x", Shape: node.Scalar, Units: "1", Description: "state"}},
		Params: []node.Param{{Name: "p", Kind: node.Real, Default: 1.0, Units: "1", Description: "parameter", Range: node.Finite()}},
	})}
}

func (n *fnNode) Spec() *node.Spec           { return n.spec }
func (n *fnNode) InitialState(dst []float64) { dst[0] = 1 }
func (n *fnNode) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	return nil
}
func (n *fnNode) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = n.f(x[0], n.p)
	return nil
}
func (n *fnNode) DerivativesJacobian(t float64, x []float64, in node.Inputs, dstX, dstU []float64) error {
	clear(dstX)
	return nil
}
func (n *fnNode) Params() node.Values { return node.Values{"p": n.p} }
func (n *fnNode) SetParams(p map[string]any) error {
	n.p = p["p"].(float64)
	return nil
}

// fnSens runs Sensitivities of x with respect to fn.p to T.
func fnSens(t *testing.T, n node.Node, T float64) (float64, error) {
	t.Helper()
	g := graph.New()
	g.Add("fn", n)
	res, err := mustBuild(t, g).Sensitivities(context.Background(), []string{"fn.p"}, &graph.SensitivityOptions{End: T, Output: []float64{T}})
	if err != nil {
		return 0, err
	}
	d, _ := res.At(0, "fn.x", "fn.p")
	return d, nil
}

// A smooth f is not mistaken for a mode switch: f = p³ at p = 10 (a
// large derivative, 300, and curvature, so the one-sided differences
// differ by h·f” = 6e-4), and f = (1000 + p) − p, whose derivative is
// zero up to the rounding of 1000 + p (its one-sided differences are
// that rounding over h). Closed forms ∂x(T)/∂p = 3p²·T and 0 (1e-6
// relative, 1e-5 absolute: the differences' truncation and rounding).
func TestMutSensSmoothRowsNotSwitched(t *testing.T) {
	const T = 0.5
	d, err := fnSens(t, newFnNode(10, func(_, p float64) float64 { return p * p * p }), T)
	if err != nil || !numtest.Within(d, 300*T, 1e-6*300*T) {
		t.Errorf("f = p³: ∂x/∂p = %.12g, %v; want %v", d, err, 300*T)
	}
	d, err = fnSens(t, newFnNode(0.7, func(_, p float64) float64 { return (p+0.1)*1e3 - p*1e3 }), T)
	if err != nil || math.Abs(d) > 1e-5 {
		t.Errorf("f = (p + 0.1)·1000 − p·1000: ∂x/∂p = %.12g, %v; want 0", d, err)
	}
}

// A mode that switches on the parameter at the very point: x(0) = 1 =
// p, f = fB(p) while x ≥ p (the mode in force) and 2p below. The
// difference across the switch (p + h) grows like 1/h; the side on
// which the mode at p extends (p − h) converges, and its second-order
// one-sided difference is the derivative: fB = 3p gives ∂f/∂p = 3, and
// x stays in that mode (x' = 3 > 0), so ∂x(T)/∂p = 3T (1e-7); fB =
// 1000p², a converging side of large derivative (2000) and curvature
// (its differences at h and h/16 differ by 1e-3), gives 2000T (1e-6
// relative: the one-sided difference is exact for a quadratic), and so
// does fB = 1e4·(p − 0.9)² (derivative 2000, second derivative 2e4,
// value only 100: its differences at h and h/16 differ by 9e-3, far
// more than their rounding); fB = (p + 0.1)·1000 − p·1000 gives 0 up to
// rounding (1e-5), its converging side being rounding noise only
// (differences 0 at h, 1.8e-6 at h/16).
func TestMutSensSwitchSide(t *testing.T) {
	const T = 0.5
	mode := func(fb func(p float64) float64) func(x, p float64) float64 {
		return func(x, p float64) float64 {
			if x >= p {
				return fb(p)
			}
			return 2 * p
		}
	}
	d, err := fnSens(t, newFnNode(1, mode(func(p float64) float64 { return 3 * p })), T)
	if err != nil || !numtest.Within(d, 3*T, 1e-7) {
		t.Errorf("fB = 3p: ∂x/∂p = %.12g, %v; want %v", d, err, 3*T)
	}
	d, err = fnSens(t, newFnNode(1, mode(func(p float64) float64 { return 1000 * p * p })), T)
	if err != nil || !numtest.Within(d, 2000*T, 1e-6*2000*T) {
		t.Errorf("fB = 1000p²: ∂x/∂p = %.12g, %v; want %v", d, err, 2000*T)
	}
	d, err = fnSens(t, newFnNode(1, mode(func(p float64) float64 { return 1e4 * (p - 0.9) * (p - 0.9) })), T)
	if err != nil || !numtest.Within(d, 2000*T, 1e-6*2000*T) {
		t.Errorf("fB = 1e4·(p − 0.9)²: ∂x/∂p = %.12g, %v; want %v", d, err, 2000*T)
	}
	d, err = fnSens(t, newFnNode(1, mode(func(p float64) float64 { return (p+0.1)*1e3 - p*1e3 })), T)
	if err != nil || math.Abs(d) > 1e-5 {
		t.Errorf("fB = (p + 0.1)·1000 − p·1000: ∂x/∂p = %.12g, %v; want 0", d, err)
	}
}

// kink2 is the kink node with a second, constant state y after x.
type kink2 struct{ *kinkNode }

var kink2Spec = node.NewSpec(node.Spec{
	Type: "testkink2",
	State: []node.Field{
		{Name: "x", Shape: node.Scalar, Units: "1", Description: "state"},
		{Name: "y", Shape: node.Scalar, Units: "1", Description: "constant"},
	},
	Params: []node.Param{{Name: "p", Kind: node.Real, Default: 1.0, Units: "1", Description: "kink", Range: node.Finite()}},
})

func (kink2) Spec() *node.Spec { return kink2Spec }
func (k kink2) InitialState(dst []float64) {
	dst[0], dst[1] = 1, 0
}
func (k kink2) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[1] = 0
	return k.kinkNode.Derivatives(t, x[:1], in, dst[:1])
}
func (k kink2) DerivativesJacobian(t float64, x []float64, in node.Inputs, dstX, dstU []float64) error {
	clear(dstX)
	dstX[0] = 1
	if x[0] < k.p {
		dstX[0] = -1
	}
	return nil
}

// A kink at the state (ẋ = |x − p| at x = p), of a node placed after
// another and with a second state: the *SwitchError names the node's
// own component x.
func TestMutSensKinkAfterMass(t *testing.T) {
	mp, _ := masspoint.New(masspoint.Params{Mass: 1})
	g := graph.New()
	g.Add("m", mp)
	g.Add("k", kink2{newKinkNode()})
	_, err := mustBuild(t, g).Sensitivities(context.Background(), []string{"k.p"}, &graph.SensitivityOptions{End: 1})
	var se *graph.SwitchError
	if !errors.As(err, &se) || se.Node != "k" || se.Of != "x" {
		t.Errorf("err = %v (%+v), want a *SwitchError of k's x", err, se)
	}
}

// kinkIn is ẋ = |x − u|, x(0) = 1, u its input, with the declared
// Jacobian of the mode x ≥ u: ∂f/∂x = +1, ∂f/∂u = −1.
type kinkIn struct{ spec *node.Spec }

func newKinkIn() *kinkIn {
	return &kinkIn{spec: node.NewSpec(node.Spec{
		Type:   "testkinkin",
		State:  []node.Field{{Name: "x", Shape: node.Scalar, Units: "1", Description: "state"}},
		Inputs: []node.Input{{Name: "u", Shape: node.Scalar, Units: "1", Description: "kink", Default: []float64{0}}},
	})}
}

func (k *kinkIn) Spec() *node.Spec           { return k.spec }
func (k *kinkIn) InitialState(dst []float64) { dst[0] = 1 }
func (k *kinkIn) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	return nil
}
func (k *kinkIn) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = math.Abs(x[0] - in.Values[0])
	return nil
}
func (k *kinkIn) DerivativesJacobian(t float64, x []float64, in node.Inputs, dstX, dstU []float64) error {
	s := 1.0
	if x[0] < in.Values[0] {
		s = -1
	}
	if dstX != nil {
		dstX[0] = s
	}
	if dstU != nil {
		dstU[0] = -s
	}
	return nil
}

// A parameter reaching a node through its input goes through the node's
// declared ∂f/∂u (the chain rule), not a difference of its f: at the
// kink x = u, which differences of f cannot resolve, the declared mode
// (x ≥ u) gives ∂f/∂p = −1 and S' = S − 1, so ∂x(T)/∂p = 1 − e^T (1e-7:
// default tolerances on an exponential).
func TestMutSensKinkThroughInput(t *testing.T) {
	const T = 0.5
	src, err := constant.New(constant.Params{Value: [3]float64{1, 0, 0}, Units: "1"})
	if err != nil {
		t.Fatal(err)
	}
	g := graph.New()
	g.Add("src", src)
	g.Add("k", newKinkIn())
	g.Connect("src.value", "k.u", graph.Via(graph.Component{Index: 0}))
	res, err := mustBuild(t, g).Sensitivities(context.Background(), []string{"src.value[0]"}, &graph.SensitivityOptions{End: T, Output: []float64{T}})
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := res.At(0, "k.x", "src.value[0]"); !numtest.Within(d, 1-math.Exp(T), 1e-7) {
		t.Errorf("∂x/∂u = %.12g, want %.12g", d, 1-math.Exp(T))
	}
}

// plainDrain is the drain without its ParamJacobian: its parameter c is
// differenced, and at the floor (a = c, held) the difference crosses
// the switch.
type plainDrain struct{ d *drainNode }

func (n plainDrain) Spec() *node.Spec           { return n.d.Spec() }
func (n plainDrain) InitialState(dst []float64) { n.d.InitialState(dst) }
func (n plainDrain) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	return nil
}
func (n plainDrain) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	return n.d.Derivatives(t, x, in, dst)
}
func (n plainDrain) DerivativesJacobian(t float64, x []float64, in node.Inputs, dstX, dstU []float64) error {
	return n.d.DerivativesJacobian(t, x, in, dstX, dstU)
}
func (n plainDrain) EventValues(t float64, x []float64, in node.Inputs, dst []float64) error {
	return n.d.EventValues(t, x, in, dst)
}
func (n plainDrain) Reset(event int, t float64, x []float64, in node.Inputs, dst []float64) error {
	return n.d.Reset(event, t, x, in, dst)
}
func (n plainDrain) Params() node.Values              { return n.d.Params() }
func (n plainDrain) SetParams(p map[string]any) error { return n.d.SetParams(p) }

// Once held at its floor, the drain's differenced ∂f/∂c takes the held
// mode's side (0), not the central difference across the switch (c/2h):
// ∂a/∂c stays 1 after the event (t* = ln 2, c = 0.5, T = 1.5; 1e-7),
// with the floor the second parameter, after a mass's.
func TestMutSensHeldDrainDifferenced(t *testing.T) {
	const T = 1.5
	mp, _ := masspoint.New(masspoint.Params{Mass: 1, InitialVelocity: [3]float64{1, 0, 0}})
	g := graph.New()
	g.Add("m", mp)
	g.Add("drain", plainDrain{newDrainNode(0.5)})
	res, err := mustBuild(t, g).Sensitivities(context.Background(), []string{"m.initial_velocity[0]", "drain.c"}, &graph.SensitivityOptions{End: T, Output: []float64{T},
		Record: []string{"drain.a"}, Mode: graph.MonolithicAdaptive{Method: sensTightDP, Options: sensTightEvents}})
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := res.At(0, "drain.a", "drain.c"); !numtest.Within(d, 1, 1e-7) {
		t.Errorf("∂a/∂c = %.12g, want 1", d)
	}
}
