package spring_test

import (
	"errors"
	"log/slog"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/ball"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/rigidbody"
	"github.com/cosimgo/cosim/nodes/rigidbody2d"
	"github.com/cosimgo/cosim/nodes/spring"
	"github.com/cosimgo/cosim/verification"
)

func v3(rng *rand.Rand, s float64) [3]float64 {
	return [3]float64{s * rng.NormFloat64(), s * rng.NormFloat64(), s * rng.NormFloat64()}
}

// markerKinds make one end of a spring: the ground, a mass point, a
// rigid body (which has MarkerVelocityJacobian), a planar rigid body and
// a ball (which have not: the spring differentiates their kinematics).
var markerKinds = map[string]func(rng *rand.Rand) node.Attachment{
	"ground": func(rng *rand.Rand) node.Attachment { return node.GroundAt(v3(rng, 1)) },
	"point": func(rng *rand.Rand) node.Attachment {
		m, err := masspoint.New(masspoint.Params{Mass: 0.1 + 10*rng.Float64(), Gravity: v3(rng, 10), InitialPosition: v3(rng, 1), InitialVelocity: v3(rng, 1)})
		if err != nil {
			panic(err)
		}
		return node.At(m, v3(rng, 1))
	},
	"rigid": func(rng *rand.Rand) node.Attachment {
		p := rigidbody.DefaultParams()
		p.Mass, p.Inertia = 0.1+10*rng.Float64(), [3]float64{1 + rng.Float64(), 1 + rng.Float64(), 1 + rng.Float64()} // moments of some body: each at most the sum of the others
		p.InitialPosition, p.InitialVelocity, p.InitialAngularVelocity = v3(rng, 1), v3(rng, 1), v3(rng, 1)
		p.InitialOrientation = [4]float64{1 + rng.Float64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		b, err := rigidbody.New(p)
		if err != nil {
			panic(err)
		}
		return node.At(b, v3(rng, 1))
	},
	"rigid2d": func(rng *rand.Rand) node.Attachment {
		b, err := rigidbody2d.New(rigidbody2d.Params{Mass: 0.1 + 10*rng.Float64(), Inertia: 0.1 + 3*rng.Float64(),
			Gravity: [2]float64{0, -9.81}, InitialX: rng.NormFloat64(), InitialVY: rng.NormFloat64(), InitialAngle: rng.NormFloat64(),
			Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			panic(err)
		}
		return node.At(b, v3(rng, 1))
	},
	"ball": func(rng *rand.Rand) node.Attachment {
		b, err := ball.New(ball.Params{InitialPosition: rng.NormFloat64(), InitialVelocity: rng.NormFloat64(), Elasticity: rng.Float64(), Gravity: -9.81, Mass: 0.5 + rng.Float64()})
		if err != nil {
			panic(err)
		}
		a := v3(rng, 1)
		l := math.Sqrt(a[0]*a[0] + a[1]*a[1] + a[2]*a[2])
		return node.At(b, [3]float64{a[0] / l, a[1] / l, a[2] / l})
	},
}

// newSpring draws a spring between markers of kinds k0 and k1, redrawing
// markers that start closer than min_length.
func newSpring(t *testing.T, rng *rand.Rand, k0, k1 string) *spring.Node {
	p := spring.DefaultParams()
	p.Stiffness, p.Damping, p.RestLength = 200*rng.Float64(), 5*rng.Float64(), 2*rng.Float64()
	if rng.IntN(4) == 0 {
		p.MinLength = 1e-3 * rng.Float64()
	}
	for {
		s, err := spring.New(p, markerKinds[k0](rng), markerKinds[k1](rng))
		if err == nil {
			return s
		}
		if !errors.Is(err, spring.ErrCoincident) {
			t.Fatal(err)
		}
	}
}

// The batch kernel against the members' own Outputs, on the direct path
// (ground and point markers) and the generic one (a marker on any other
// body), in this package's tests so that mutation testing (go run
// ./internal/mutation -pkgs nodes/spring) sees batch.go exercised.
// verification.CheckBatch draws inputs (with zeros, tiny, large and
// non-finite values: a NaN length is below min_length), strided and
// broadcast layouts, Need masks and chunkings, and overrides the members'
// parameters after NewBatch (raising min_length to the order of the
// positions, so rows fail). The reference is each member's own Outputs;
// the tolerance is zero (bit for bit), as node.Batch requires.
func TestBatchKernelMatchesMembers(t *testing.T) {
	for _, c := range [][2]string{{"ground", "ground"}, {"ground", "point"}, {"point", "ground"}, {"point", "point"}, {"rigid", "ground"}, {"point", "rigid2d"}, {"ball", "point"}, {"rigid", "rigid"}} {
		t.Run(c[0]+"-"+c[1], func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(len(c[0])), uint64(len(c[1]))))
			members := make([]node.Node, 7)
			for i := range members {
				members[i] = newSpring(t, rng, c[0], c[1])
			}
			for _, err := range verification.CheckBatch(members, verification.BatchOptions{Seed: 3}) {
				t.Error(err)
			}
		})
	}
}

// The Jacobian with markers on bodies other than mass points, where it
// chains the bodies' MarkerJacobian, MarkerVelocityJacobian (rigid body)
// or unit velocities and differences of MarkerKinematics (planar body,
// ball), and MarkerLoad: central differences of Outputs with the step
// ε^(1/3)·max(1, |u|) (error about 1e-10 relative; the spring's own
// differences of MarkerLoad add as much), so the tolerance is 1e-6
// relative to the Jacobian's largest entry. Reference: the definition of
// the derivative, evaluated independently of the node's chaining.
func TestJacobianWithBodiesMatchesFiniteDifferences(t *testing.T) {
	for _, c := range [][2]string{{"rigid", "ground"}, {"point", "rigid"}, {"rigid", "rigid"}, {"rigid2d", "ground"}, {"ball", "point"}, {"rigid2d", "rigid"}} {
		t.Run(c[0]+"-"+c[1], func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(len(c[0])), 11*uint64(len(c[1]))))
			s := newSpring(t, rng, c[0], c[1])
			spec := s.Spec()
			ny, nu := spec.OutputLayout.Size(), spec.InputLayout.Size()
			in := spec.DefaultInputs()
			for j := range in.Values {
				in.Values[j] = rng.NormFloat64()
			}
			jac := make([]float64, ny*nu)
			if err := s.OutputsJacobian(0, nil, in, jac); err != nil {
				t.Fatal(err)
			}
			yp, ym := make([]float64, ny), make([]float64, ny)
			scale, worst := numtest.FiniteScale(t, "the analytic Jacobian", jac), 0.0
			for j := range nu {
				u0 := in.Values[j]
				h := math.Cbrt(0x1p-52) * math.Max(1, math.Abs(u0))
				in.Values[j] = u0 + h
				if err := s.Outputs(0, nil, in, yp); err != nil {
					t.Fatal(err)
				}
				in.Values[j] = u0 - h
				if err := s.Outputs(0, nil, in, ym); err != nil {
					t.Fatal(err)
				}
				in.Values[j] = u0
				for i := range ny {
					fd := (yp[i] - ym[i]) / (2 * h)
					worst = max(worst, math.Abs(fd-jac[i*nu+j])) // NaN if fd is: AtMost below fails
				}
			}
			t.Logf("max |analytic − FD| = %.2g (scale %.3g)", worst, scale)
			if !numtest.AtMost(worst, 1e-6*scale) {
				t.Errorf("Jacobian differs from central differences by %.3g (scale %.3g)", worst, scale)
			}
		})
	}
}
