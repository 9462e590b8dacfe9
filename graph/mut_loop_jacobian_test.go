package graph_test

import (
	"math"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
)

// osc2 is a linear oscillator in the plane: state x (2 components, rate
// v) and v; x' = v, v0' = force − x0, v1' = −x1 + 0.5·x0; it outputs
// pos = x and has no OutputsJacobian (the monolithic Jacobian differences
// its outputs over its state).
type osc2 struct {
	spec *node.Spec
}

func newOsc2() *osc2 {
	return &osc2{spec: node.NewSpec(node.Spec{
		Type: "osc2",
		State: []node.Field{
			{Name: "x", Shape: node.Vec(2), Units: "m", Description: "position", Role: node.Position, Rate: "v"},
			{Name: "v", Shape: node.Vec(2), Units: "m/s", Description: "velocity", Role: node.Velocity},
		},
		Inputs:  []node.Input{{Name: "force", Units: "1", Description: "force on x0", Combine: node.Additive, Default: []float64{0}}},
		Outputs: []node.Field{{Name: "pos", Shape: node.Vec(2), Units: "1", Description: "x"}},
	})}
}

func (o *osc2) Spec() *node.Spec           { return o.spec }
func (o *osc2) InitialState(dst []float64) { copy(dst, []float64{0.3, -0.2, 0.1, 0.4}) }
func (o *osc2) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	d := make([]float64, 4)
	o.Derivatives(t, x, in, d)
	for i := range dst {
		dst[i] = x[i] + dt*d[i]
	}
	return nil
}
func (o *osc2) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	copy(dst, x[:2])
	return nil
}
func (o *osc2) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0], dst[1] = x[2], x[3]
	dst[2] = in.Values[0] - x[0]
	dst[3] = -x[1] + 0.5*x[0]
	return nil
}

// checkJacobian compares the System's dense Jacobian at the Sim's state
// with want (row-major). The system is linear and the only differenced
// part is osc2's outputs over its state (central differences of a linear
// map, exact up to rounding/h ≈ 1e-10), so 1e-8 absolute is ample.
func checkJacobian(t *testing.T, s *graph.Sim, want []float64) {
	t.Helper()
	sys, err := s.System()
	if err != nil {
		t.Fatal(err)
	}
	n := sys.Dim()
	J := make([]float64, n*n)
	if err := sys.Jacobian(0, s.State(nil), J); err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if math.Abs(J[i]-want[i]) > 1e-8 {
			t.Errorf("J[%d][%d] = %.12g, want %v", i/n, i%n, J[i], want[i])
		}
	}
}

// The monolithic Jacobian through a loop (the implicit-function theorem,
// loop_jacobian.go) whose first member is the graph's first node and
// which reads a stateful node's vector output through Component{Index:
// 1}: sum = x1 + 0.5·sum, so sum = 2·x1 drives v0' = sum − x0. Closed
// form: rows x0' = v0, x1' = v1, v0' = −x0 + 2·x1, v1' = 0.5·x0 − x1.
func TestMutLoopJacobianComponentSource(t *testing.T) {
	g := graph.New()
	g.Add("sum", lsum(t, "++", 1, "1"))
	g.Add("gain", lgain(t, 0.5, 1, "1", "1"))
	g.Add("osc", newOsc2())
	g.Connect("osc.pos", "sum.in1", graph.Via(graph.Component{Index: 1}))
	g.Connect("sum.out", "gain.in")
	g.Connect("gain.out", "sum.in2")
	g.Connect("sum.out", "osc.force")
	s := mustBuild(t, g)
	checkJacobian(t, s, []float64{
		0, 0, 1, 0,
		0, 0, 0, 1,
		-1, 2, 0, 0,
		0.5, -1, 0, 0,
	})
}

// The same through a user transform (the sum of pos's components, vsum),
// whose Jacobian is differenced: sum = 2·(x0 + x1), v0' = x0 + 2·x1.
func TestMutLoopJacobianUserTransformSource(t *testing.T) {
	g := graph.New()
	g.Add("sum", lsum(t, "++", 1, "1"))
	g.Add("gain", lgain(t, 0.5, 1, "1", "1"))
	g.Add("osc", newOsc2())
	g.Connect("osc.pos", "sum.in1", graph.Via(vsum{}))
	g.Connect("sum.out", "gain.in")
	g.Connect("gain.out", "sum.in2")
	g.Connect("sum.out", "osc.force")
	s := mustBuild(t, g)
	checkJacobian(t, s, []float64{
		0, 0, 1, 0,
		0, 0, 0, 1,
		1, 2, 0, 0,
		0.5, -1, 0, 0,
	})
}

// A loop that reads no state (y = 2 + 0.5·y) driving a mass: the loop
// has no state columns, and the Jacobian is that of x' = v, v' = F/m
// with F constant: [[0, 1], [0, 0]].
func TestMutLoopJacobianNoStateColumns(t *testing.T) {
	g := gainLoop(t, 2, 0.5)
	g.Add("mass", newMass(1, 0))
	g.Connect("sum.out", "mass.force", graph.Via(graph.Scale{Factor: 1, From: "1", To: "N"}))
	s := mustBuild(t, g)
	checkJacobian(t, s, []float64{0, 1, 0, 0})
}
