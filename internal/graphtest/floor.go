package graphtest

import (
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
)

// FloorMass is a 1 kg mass over a penalty floor at x = 0 of stiffness K:
//
//	ẋ = v,  v̇ = −K·min(x, 0) + F,
//
// with F its additive input "force" (default 0). Its Derivatives switch
// mode at x = 0 (contact open above, closed below), like a ball on a
// table, and it has no analytic Jacobian: graph linearises it by
// differences. Its Update is explicit Euler of the same law.
type FloorMass struct {
	spec *node.Spec
	k    float64
	x0   float64
}

// NewFloorMass returns a FloorMass of stiffness k (N/m) starting at rest
// at height x0 (m).
func NewFloorMass(k, x0 float64) *FloorMass {
	return &FloorMass{k: k, x0: x0, spec: node.NewSpec(node.Spec{
		Type: "floormass",
		State: []node.Field{
			{Name: "x", Units: "m", Description: "height above the floor", Role: node.Position, Rate: "v"},
			{Name: "v", Units: "m/s", Description: "velocity", Role: node.Velocity},
		},
		Inputs: []node.Input{{Name: "force", Units: "N", Description: "force", Combine: node.Additive, Default: []float64{0}}},
	})}
}

// Spec implements node.Node.
func (n *FloorMass) Spec() *node.Spec { return n.spec }

// InitialState implements node.Node: (x0, 0).
func (n *FloorMass) InitialState(dst []float64) { dst[0], dst[1] = n.x0, 0 }

// Update implements node.Node: one explicit Euler step.
func (n *FloorMass) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	v := x[1] + dt*(-n.k*min(x[0], 0)+in.Values[0])
	dst[0], dst[1] = x[0]+dt*v, v
	return nil
}

// Derivatives implements node.Deriver.
func (n *FloorMass) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0], dst[1] = x[1], -n.k*min(x[0], 0)+in.Values[0]
	return nil
}

// FloorJacobian builds a graph of one FloorMass(k, x0) named "ball" and
// returns its System's dense Jacobian at time t and the initial state,
// row-major 2×2 over (x, v), with the error of graph.System.Jacobian (a
// *graph.SwitchError at x0 = 0). A failed Build or System stops the
// test: the fixture is valid by construction.
func FloorJacobian(tb testing.TB, k, x0, t float64) ([]float64, error) {
	tb.Helper()
	g := graph.New()
	g.Add("ball", NewFloorMass(k, x0))
	s, err := g.Build()
	if err != nil {
		tb.Fatal(err)
	}
	sys, err := s.System()
	if err != nil {
		tb.Fatal(err)
	}
	J := make([]float64, 4)
	return J, sys.Jacobian(t, s.State(nil), J)
}
