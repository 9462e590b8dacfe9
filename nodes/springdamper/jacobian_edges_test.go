package springdamper_test

import (
	"math"
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// At coincident markers (Δp = 0) the distance L = |Δp| has no
// derivative: OutputsJacobian states 0 for its row (the subgradient at
// the cone's tip, as a solver needs a finite matrix) and every entry of
// the Jacobian is finite, on the direct path (a wall and a point mass)
// and on the general one (a wall and a ball, through the Marker
// methods). The markers meet exactly: the wall at the origin, the mass
// at the origin, the ball's coordinate 0 along its axis.
func TestJacobianCoincidentMarkers(t *testing.T) {
	for _, c := range []struct {
		name string
		end  node.Attachment
	}{
		{"mass", node.At(newMass(t, 1, [3]float64{}, [3]float64{}), [3]float64{})},
		{"ball", node.At(newBall(t), [3]float64{0, 0, 1})},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := springdamper.DefaultParams()
			p.Stiffness, p.Damping, p.Offset = [3]float64{300, 200, 100}, [3]float64{30, 20, 10}, [3]float64{0.1, -0.2, 0.3}
			n, err := springdamper.New(p, node.GroundAt([3]float64{}), c.end)
			if err != nil {
				t.Fatal(err)
			}
			s := n.Spec()
			in := s.DefaultInputs()
			clear(in.Values)
			for i := range in.Values {
				if s.InputLayout.Component(i) == "m1_velocity" || s.InputLayout.Component(i) == "m1_velocity[2]" {
					in.Values[i] = 0.5 // moving, so the velocity rows are not all trivial
				}
			}
			ny, nu := s.OutputLayout.Size(), s.InputLayout.Size()
			jac := make([]float64, ny*nu)
			if err := n.OutputsJacobian(0, nil, in, jac); err != nil {
				t.Fatal(err)
			}
			dist := s.OutputOffset("distance")
			for i := range ny {
				for j := range nu {
					v := jac[i*nu+j]
					if math.IsNaN(v) || math.IsInf(v, 0) || (i == dist && v != 0) {
						t.Errorf("∂%s/∂%s = %v, want finite (0 on the distance row)", s.OutputLayout.Component(i), s.InputLayout.Component(j), v)
					}
				}
			}
		})
	}
}

// JacobianCSD panics when dst is shorter than nu × nu, as documented,
// even when dst's capacity would hold the matrix: writing past len(dst)
// would fill memory the caller did not hand over.
func TestJacobianCSDShortDst(t *testing.T) {
	n, err := springdamper.New(springdamper.DefaultParams(), node.GroundAt([3]float64{}), node.At(newMass(t, 1, [3]float64{}, [3]float64{}), [3]float64{}))
	if err != nil {
		t.Fatal(err)
	}
	nu := n.Spec().InputLayout.Size()
	dst := make([]float64, nu*nu-1, 2*nu*nu)
	defer func() {
		if recover() == nil {
			t.Errorf("JacobianCSD with len(dst) = %d < %d did not panic", len(dst), nu*nu)
		}
	}()
	_ = n.JacobianCSD(1, 0, 0, n.Spec().DefaultInputs(), dst)
}
