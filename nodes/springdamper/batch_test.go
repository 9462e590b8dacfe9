package springdamper_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/ball"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/rigidbody"
	"github.com/cosimgo/cosim/nodes/rigidbody2d"
	"github.com/cosimgo/cosim/nodes/springdamper"
	"github.com/cosimgo/cosim/verification"
)

func rv3(rng *rand.Rand, s float64) [3]float64 {
	return [3]float64{s * rng.NormFloat64(), s * rng.NormFloat64(), s * rng.NormFloat64()}
}

// batchMarkers make one end of a connector for the batch test: the
// ground, a mass point, a rigid body, a planar rigid body and a ball
// (each marker configuration selects a kernel path).
var batchMarkers = map[string]func(t testing.TB, rng *rand.Rand) node.Attachment{
	"ground": func(t testing.TB, rng *rand.Rand) node.Attachment { return node.GroundAt(rv3(rng, 1)) },
	"point": func(t testing.TB, rng *rand.Rand) node.Attachment {
		m, err := masspoint.New(masspoint.Params{Mass: 0.1 + 10*rng.Float64(), Gravity: rv3(rng, 10), InitialPosition: rv3(rng, 1), InitialVelocity: rv3(rng, 1)})
		if err != nil {
			t.Fatal(err)
		}
		return node.At(m, rv3(rng, 1))
	},
	"rigid": func(t testing.TB, rng *rand.Rand) node.Attachment {
		p := rigidbody.DefaultParams()
		p.Mass, p.Inertia = 0.1+10*rng.Float64(), [3]float64{1 + rng.Float64(), 1 + rng.Float64(), 1 + rng.Float64()} // moments of some body: each at most the sum of the others
		p.InitialPosition, p.InitialVelocity, p.InitialAngularVelocity = rv3(rng, 1), rv3(rng, 1), rv3(rng, 1)
		p.InitialOrientation = [4]float64{1 + rng.Float64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		return node.At(newBody3D(t, p), rv3(rng, 1))
	},
	"rigid2d": func(t testing.TB, rng *rand.Rand) node.Attachment {
		return node.At(newBody2D(t, rigidbody2d.Params{Mass: 0.1 + 10*rng.Float64(), Inertia: 0.1 + 3*rng.Float64(),
			Gravity: [2]float64{0, -9.81}, InitialX: rng.NormFloat64(), InitialVY: rng.NormFloat64(), InitialAngle: rng.NormFloat64()}), rv3(rng, 1))
	},
	"ball": func(t testing.TB, rng *rand.Rand) node.Attachment {
		b, err := ball.New(ball.Params{InitialPosition: rng.NormFloat64(), InitialVelocity: rng.NormFloat64(), Elasticity: rng.Float64(), Gravity: -9.81, Mass: 0.5 + rng.Float64()})
		if err != nil {
			t.Fatal(err)
		}
		a := rv3(rng, 1)
		l := math.Sqrt(a[0]*a[0] + a[1]*a[1] + a[2]*a[2])
		return node.At(b, [3]float64{a[0] / l, a[1] / l, a[2] / l})
	},
}

// batchUserForce is a nonlinear user force law that fails (NaN) on the
// connector with item number 3 when its displacement's x is positive
// after t = 1, so that the kernel's error path is exercised on one row.
func batchUserForce(t float64, item int, dp, dv, k, d, off [3]float64) [3]float64 {
	f := [3]float64{k[0]*dp[0]*dp[0] - d[0]*dv[0], k[1]*math.Sin(dp[1]) + t, k[2]*dp[2]*dv[2] + off[0]}
	if item == 3 && dp[0] > 0 && t > 1 {
		f[1] = math.NaN()
	}
	return f
}

// The batch kernel against the members' own Outputs on every kernel path
// (ground and point markers directly, with and without a user force;
// other bodies through the members' Outputs), in this package's tests so
// that mutation testing (go run ./internal/mutation -pkgs
// nodes/springdamper) sees batch.go exercised. verification.CheckBatch
// draws inputs (with zeros, tiny, large and non-finite values), strided
// and broadcast layouts, Need masks and chunkings, and overrides the
// members' parameters after NewBatch. The reference is each member's own
// Outputs; the tolerance is zero (bit for bit), as node.Batch requires:
// a graph may run either path.
func TestBatchKernelMatchesMembers(t *testing.T) {
	for _, c := range []struct {
		m0, m1 string
		user   bool
		// mirror: every other member has its ends swapped, so that the
		// family holds both walls of a chain (one BatchKey: a connector
		// with one ground marker has its mirror image's).
		mirror bool
	}{
		{"ground", "ground", false, false}, {"ground", "point", false, false}, {"point", "ground", false, false}, {"point", "point", false, false},
		{"point", "point", true, false}, {"ground", "point", true, false}, {"rigid", "ground", false, false}, {"rigid", "point", true, false},
		{"ball", "point", false, false}, {"rigid2d", "ground", false, false},
		{"ground", "point", false, true}, {"point", "ground", false, true}, {"ground", "point", true, true}, {"rigid", "ground", false, true},
	} {
		name := c.m0 + "-" + c.m1
		if c.user {
			name += "-userforce"
		}
		if c.mirror {
			name += "-mirrored"
		}
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(len(c.m0)), uint64(len(name))))
			members := make([]node.Node, 7)
			for i := range members {
				p := springdamper.DefaultParams()
				p.Stiffness, p.Damping, p.Offset = rv3(rng, 100), rv3(rng, 10), rv3(rng, 1)
				p.Active = rng.IntN(6) != 0
				if c.user {
					p.ForceFunc, p.ItemNumber = batchUserForce, i
				}
				m0, m1 := batchMarkers[c.m0](t, rng), batchMarkers[c.m1](t, rng)
				if c.mirror && i%2 == 1 {
					m0, m1 = m1, m0
				}
				n, err := springdamper.New(p, m0, m1)
				if err != nil {
					t.Fatal(err)
				}
				members[i] = n
			}
			for _, err := range verification.CheckBatch(members, verification.BatchOptions{Seed: 5}) {
				t.Error(err)
			}
		})
	}
}

// A family of connectors with one linear law reads one row of parameters
// (batch.go, uniform); a SetParams that changes one member's stiffness
// alone must reach the kernel. CheckBatch runs the kernel before the
// override (every row equal) and after it (member 3 differs), bit for bit
// against the members' own Outputs, on the ground–point and point–point
// paths.
func TestBatchKernelEqualLawThenTuned(t *testing.T) {
	for _, ends := range [][2]string{{"ground", "point"}, {"point", "point"}} {
		t.Run(ends[0]+"-"+ends[1], func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, uint64(len(ends[0]))))
			p := springdamper.DefaultParams()
			p.Stiffness, p.Damping, p.Offset = [3]float64{120, 80, 40}, [3]float64{1.5, 0.5, 0.25}, [3]float64{0.1, 0, -0.2}
			members := make([]node.Node, 6)
			for i := range members {
				n, err := springdamper.New(p, batchMarkers[ends[0]](t, rng), batchMarkers[ends[1]](t, rng))
				if err != nil {
					t.Fatal(err)
				}
				members[i] = n
			}
			perturb := func(i int, n node.Node) error {
				if i != 3 {
					return nil
				}
				return n.(node.Tunable).SetParams(map[string]any{"stiffness": []float64{120, 80, 41}})
			}
			for _, err := range verification.CheckBatch(members, verification.BatchOptions{Seed: 11, Perturb: perturb}) {
				t.Error(err)
			}
		})
	}
}
