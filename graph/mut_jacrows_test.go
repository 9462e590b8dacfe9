package graph_test

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
)

// lambdaNode is a test node made of closures: f writes the Derivatives (nil
// for a stateless node), out the Outputs (nil without outputs). Update is
// one explicit Euler step of f, so that a Sim can step it too.
type lambdaNode struct {
	spec *node.Spec
	x0   []float64
	f    func(x []float64, in node.Inputs, dst []float64)
	out  func(x []float64, in node.Inputs, dst []float64)
}

func (n *lambdaNode) Spec() *node.Spec           { return n.spec }
func (n *lambdaNode) InitialState(dst []float64) { copy(dst, n.x0) }
func (n *lambdaNode) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	if n.f == nil {
		return nil
	}
	n.f(x, in, dst)
	for i := range dst {
		dst[i] = x[i] + dt*dst[i]
	}
	return nil
}
func (n *lambdaNode) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	n.f(x, in, dst)
	return nil
}
func (n *lambdaNode) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	n.out(x, in, dst)
	return nil
}

// lambdaJacNode adds an analytic DerivativesJacobian to an lambdaNode.
type lambdaJacNode struct {
	*lambdaNode
	jac func(x []float64, in node.Inputs, dx, du []float64)
}

func (n *lambdaJacNode) DerivativesJacobian(t float64, x []float64, in node.Inputs, dx, du []float64) error {
	n.jac(x, in, dx, du)
	return nil
}

// soloSystem builds a graph of the single node n, named name, and
// returns its monolithic System.
func soloSystem(t *testing.T, name string, n node.Node) *graph.System {
	t.Helper()
	g := graph.New()
	g.Add(name, n)
	return buildSystem(t, g)
}

// buildSystem builds g and returns its monolithic System.
func buildSystem(t *testing.T, g *graph.Graph) *graph.System {
	t.Helper()
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	sys, err := s.System()
	if err != nil {
		t.Fatal(err)
	}
	return sys
}

// squareOutputOsc is a node of one state q, q' = −q from q = 0.4, with an
// output y = q² + q that reads its state only.
func squareOutputOsc() *lambdaNode {
	return &lambdaNode{
		spec: node.NewSpec(node.Spec{Type: "squareoutputosc",
			State:   []node.Field{{Name: "q", Units: "1"}},
			Outputs: []node.Field{{Name: "y", Units: "1"}},
		}),
		x0:  []float64{0.4},
		f:   func(x []float64, _ node.Inputs, dst []float64) { dst[0] = -x[0] },
		out: func(x []float64, _ node.Inputs, dst []float64) { dst[0] = x[0]*x[0] + x[0] },
	}
}

// velocityFirstOsc is a damped oscillator whose state lays its velocity out
// before its position (v, x: the position's rate is local component 0)
// and whose force input has two components:
//
//	v' = u₀ + 2u₁ − 3v − 5x,   x' = rate·v,
//
// with its analytic Jacobian. rate = 1 is the node contract of a
// Position field (x' is its Rate field v); any other rate breaks it.
func velocityFirstOsc(rate float64) *lambdaJacNode {
	return &lambdaJacNode{
		lambdaNode: &lambdaNode{
			spec: node.NewSpec(node.Spec{
				Type: "velocityfirst",
				State: []node.Field{
					{Name: "v", Units: "m/s", Role: node.Velocity},
					{Name: "x", Units: "m", Role: node.Position, Rate: "v"},
				},
				Inputs: []node.Input{{Name: "force", Shape: node.Vec(2), Units: "N", Default: []float64{0, 0}}},
			}),
			x0: []float64{0.5, 0.25},
			f: func(x []float64, in node.Inputs, dst []float64) {
				u := in.Values
				dst[0] = u[0] + 2*u[1] - 3*x[0] - 5*x[1]
				dst[1] = rate * x[0]
			},
		},
		jac: func(x []float64, in node.Inputs, dx, du []float64) {
			copy(dx, []float64{-3, -5, rate, 0})
			copy(du, []float64{1, 2, 0, 0})
		},
	}
}

// A Position field's row of ∂f/∂y is its single velocity entry (the
// comment at the top of jacobian.go), wherever the velocity sits in the
// node's state: here before the position, at local component 0. The
// pattern is then row 0 (v) over the node's columns {0, 1} and row 1 (x)
// over {0} alone, and the values are the analytic Jacobian's,
// [[−3, −5], [1, 0]]. The position row is checked against the node's own
// local Jacobian, whose B row is zero although the velocity row's B is
// not (two inputs, so that the rows of B are told apart).
func TestJacobianPositionAfterVelocity(t *testing.T) {
	sys := soloSystem(t, "osc", velocityFirstOsc(1))
	rowPtr, col := sys.JacobianPattern()
	if !slices.Equal(rowPtr, []int{0, 2, 3}) || !slices.Equal(col, []int{0, 1, 0}) {
		t.Fatalf("pattern rowPtr %v, col %v; want [0 2 3], [0 1 0]", rowPtr, col)
	}
	y := []float64{0.5, 0.25}
	val := make([]float64, len(col))
	if err := sys.SparseJacobian(0, y, val); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(val, []float64{-3, -5, 1}) {
		t.Errorf("SparseJacobian values %v, want [-3 -5 1]", val)
	}
	J := make([]float64, 4)
	if err := sys.Jacobian(0, y, J); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(J, []float64{-3, -5, 1, 0}) {
		t.Errorf("Jacobian %v, want [-3 -5 1 0]", J)
	}
}

// A node whose position rate is not its velocity breaks the node contract
// (x' = 2v here): the Jacobian refuses it with an error naming the node,
// the row (d/dt x) and the offending entry, ∂/∂v = 2 (the node's A[1][0]),
// even when the velocity comes first in the state.
func TestJacobianPositionRateChecked(t *testing.T) {
	sys := soloSystem(t, "osc", velocityFirstOsc(2))
	J := make([]float64, 4)
	err := sys.Jacobian(0.5, []float64{0.5, 0.25}, J)
	var se *node.StateError
	if !errors.As(err, &se) || se.Node != "osc" || se.Field != "d/dt x" || se.Time != 0.5 ||
		!strings.Contains(err.Error(), "∂/∂v is 2, but a position's rate is its velocity (node.Position) so it must be 1") {
		t.Fatalf("Jacobian of a node with x' = 2v: err = %v; want a *node.StateError for osc, d/dt x, t = 0.5, naming ∂/∂v = 2", err)
	}
}

// transformInputChain is a graph through which every kind of input row of the
// Jacobian passes:
//
//   - src (state p ∈ ℝ², p' = (−p₀ + p₁/2, −2p₁)) feeds sink.a through
//     Component{1} and sink.b through a user TransformFunc ℝ² → ℝ²,
//     (p₀p₁, p₀ + 3p₁), whose Jacobian is differenced;
//   - osc (state q, q' = −q) has an output y = q² + q read by sink: its
//     rows of ∂y/∂y_state come from its own state;
//   - sink.a is additive (Component{1} of p, plus osc.y), and so is
//     sink.c (osc.y plus Component{0} of p);
//   - sink (state z ∈ ℝ³) has z' = (−z₀ + a + a², −z₁ + b₀b₁ + b₁,
//     −z₂ + 3c + c²).
//
// The state is (p₀, p₁, q, z₀, z₁, z₂).
func transformInputChain(t *testing.T) *graph.Sim {
	t.Helper()
	g := graph.New()
	g.Add("src", &lambdaNode{
		spec: node.NewSpec(node.Spec{Type: "mutsrc", State: []node.Field{{Name: "p", Shape: node.Vec(2), Units: "1"}}}),
		x0:   []float64{0.7, -1.3},
		f: func(x []float64, _ node.Inputs, dst []float64) {
			dst[0], dst[1] = -x[0]+x[1]/2, -2*x[1]
		},
	})
	g.Add("osc", squareOutputOsc())
	g.Add("sink", &lambdaNode{
		spec: node.NewSpec(node.Spec{Type: "mutsink",
			State: []node.Field{{Name: "z", Shape: node.Vec(3), Units: "1"}},
			Inputs: []node.Input{
				{Name: "a", Units: "1", Default: []float64{0}},
				{Name: "b", Shape: node.Vec(2), Units: "1", Default: []float64{0, 0}},
				{Name: "c", Units: "1", Default: []float64{0}},
			},
		}),
		x0: []float64{0.1, 0.2, 0.3},
		f: func(x []float64, in node.Inputs, dst []float64) {
			a, b0, b1, c := in.Values[0], in.Values[1], in.Values[2], in.Values[3]
			dst[0] = -x[0] + a + a*a
			dst[1] = -x[1] + b0*b1 + b1
			dst[2] = -x[2] + 3*c + c*c
		},
	})
	g.Connect("src.p", "sink.a", graph.Via(graph.Component{Index: 1}))
	g.Connect("osc.y", "sink.a")
	g.Connect("src.p", "sink.b", graph.Via(graph.TransformFunc{Label: "mix", In: node.Vec(2), Out: node.Vec(2),
		F: func(dst, src []float64) { dst[0], dst[1] = src[0]*src[1], src[0]+3*src[1] }}))
	g.Connect("osc.y", "sink.c")
	g.Connect("src.p", "sink.c", graph.Via(graph.Component{Index: 0}))
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The assembled Jacobian of transformInputChain is the derivative of the System's
// own right-hand side: it matches central differences of System.Func
// (step 10⁻⁶, on functions at most quadratic, so exact up to rounding
// ε·|f|/h ≈ 10⁻¹⁰; tolerance 10⁻⁷). The entries it must get right include
// ∂a/∂p₁ = 1 (Component), the TransformFunc's rows (∂b₀/∂p = (p₁, p₀),
// ∂b₁/∂p = (1, 3)) and ∂y/∂q = 2q + 1 (an output node's own state).
func TestJacobianThroughTransformsAndOutputs(t *testing.T) {
	s := transformInputChain(t)
	sys, err := s.System()
	if err != nil {
		t.Fatal(err)
	}
	n := sys.Dim()
	y := s.State(nil)
	J := make([]float64, n*n)
	if err := sys.Jacobian(0, y, J); err != nil {
		t.Fatal(err)
	}
	want := fdJacobian(t, s, y) // loop_ift_test.go: central differences of System.Func
	for i := range n {
		for j := range n {
			if got, w := J[i*n+j], want[i*n+j]; math.Abs(got-w) > 1e-7 {
				t.Errorf("J[%s][%s] = %v, want %v (differences of Func)", sys.Component(i), sys.Component(j), got, w)
			}
		}
	}

}
