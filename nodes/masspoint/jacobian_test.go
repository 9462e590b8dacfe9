package masspoint_test

import (
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// The analytic Jacobian is exact: ∂ẋ/∂v = I and ∂v̇/∂F = I/m, every other
// entry zero, compared bit for bit with those values (reference: the
// equations m v̇ = F + m g, ẋ = v, which are linear).
func TestDerivativesJacobianExact(t *testing.T) {
	const m = 3.0
	n, _ := masspoint.New(masspoint.Params{Mass: m, Gravity: [3]float64{0, 0, -9.81}})
	dx, du := make([]float64, 36), make([]float64, 18)
	for i := range dx {
		dx[i] = 7 // must be overwritten
	}
	in := n.Spec().DefaultInputs()
	if err := n.DerivativesJacobian(0, []float64{1, 2, 3, 4, 5, 6}, in, dx, du); err != nil {
		t.Fatal(err)
	}
	for r := range 6 {
		for c := range 6 {
			want := 0.0
			if r < 3 && c == r+3 {
				want = 1
			}
			if dx[r*6+c] != want {
				t.Errorf("∂f/∂x[%d][%d] = %v, want %v", r, c, dx[r*6+c], want)
			}
		}
		for c := range 3 {
			want := 0.0
			if r >= 3 && c == r-3 {
				want = 1 / m
			}
			if du[r*3+c] != want {
				t.Errorf("∂f/∂F[%d][%d] = %v, want %v", r, c, du[r*3+c], want)
			}
		}
	}
	if err := n.DerivativesJacobian(0, make([]float64, 6), in, nil, nil); err != nil {
		t.Error(err)
	}
}

// A graph's Jacobian of a mass on a Cartesian spring (k = 40 N/m per
// axis, m = 2 kg) is now exact: ∂v̇/∂x = −k/m = −20 exactly, ∂ẋ/∂v = 1,
// with no finite-difference error (finite differences left 1e-12 errors
// in an exactly linear system). Both factors are analytic (springdamper's
// OutputsJacobian, masspoint's DerivativesJacobian), so equality is exact.
func TestGraphJacobianExact(t *testing.T) {
	mp, _ := masspoint.New(masspoint.Params{Mass: 2, InitialPosition: [3]float64{0.3, -0.2, 0.1}})
	g := graph.New()
	g.Add("m", mp)
	p := springdamper.DefaultParams()
	p.Stiffness = [3]float64{40, 40, 40}
	if _, err := springdamper.Connect(g, "k", p, node.GroundAt([3]float64{}), node.Body("m")); err != nil {
		t.Fatal(err)
	}
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	sys, err := s.System()
	if err != nil {
		t.Fatal(err)
	}
	y := s.State(nil)
	j := make([]float64, 36)
	if err := sys.Jacobian(0, y, j); err != nil {
		t.Fatal(err)
	}
	for r := range 6 {
		for c := range 6 {
			want := 0.0
			switch {
			case r < 3 && c == r+3:
				want = 1
			case r >= 3 && c == r-3:
				want = -20
			}
			if j[r*6+c] != want {
				t.Errorf("J[%d][%d] = %v, want %v exactly", r, c, j[r*6+c], want)
			}
		}
	}
}

var _ node.DerivativesJacobian = (*masspoint.Node)(nil)
