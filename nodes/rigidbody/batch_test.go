package rigidbody_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/rigidbody"
	"github.com/cosimgo/cosim/verification"
)

// batchModes are constraints per rotation mode (free, hinge, fixed,
// gimbal: each selects a kernel path), cycled through by the members of
// a family, so that hinges about different axes, held translations and
// held angles share a kernel.
var batchModes = map[string][]string{
	"free":   {"", "x=0.5", "y=1,z=-1"},
	"hinge":  {"z=0,rx=0,ry=0", "rx=0.3,rz=0.1", "x=1,ry=0.2,rz=-0.5"},
	"fixed":  {"rx=0.1,ry=0.2,rz=0.3", "z=2,rx=-1,ry=0.5,rz=3"},
	"gimbal": {"rx=0.2", "ry=0.3,z=1", "rz=-0.4"},
}

// The batch kernel against the members' own Update and Derivatives in
// every rotation mode, in this package's tests so that mutation testing
// (go run ./internal/mutation -pkgs nodes/rigidbody) sees batch.go
// exercised. verification.CheckBatch draws states and inputs (with
// zeros, tiny, large and non-finite values), strided and broadcast
// layouts, chunkings, steps including 0, negative and non-finite ones,
// and overrides the members' parameters after NewBatch. The reference is
// each member's own method; the tolerance is zero (bit for bit), as
// node.Batch requires: a graph may run either path.
func TestBatchKernelMatchesMembers(t *testing.T) {
	for _, mode := range []string{"free", "hinge", "fixed", "gimbal"} {
		t.Run(mode, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, uint64(len(mode))))
			members := make([]node.Node, 7)
			for i := range members {
				p := rigidbody.DefaultParams()
				p.Mass = 0.1 + 10*rng.Float64()
				p.Inertia = [3]float64{1 + rng.Float64(), 1 + rng.Float64(), 1 + rng.Float64()} // principal moments of some body: each at most the sum of the others
				if i%3 == 2 {
					// Diagonally dominant, hence positive definite.
					d, e, f := rng.Float64()-0.5, rng.Float64()-0.5, rng.Float64()-0.5
					p.InertiaMatrix = &[9]float64{2 + rng.Float64(), d, e, d, 2 + rng.Float64(), f, e, f, 2 + rng.Float64()}
				}
				p.Gravity = [3]float64{10 * rng.NormFloat64(), 10 * rng.NormFloat64(), 10 * rng.NormFloat64()}
				p.InitialVelocity = [3]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
				p.InitialAngularVelocity = [3]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
				p.InitialOrientation = [4]float64{1 + rng.Float64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
				cs, err := rigidbody.ParseConstraints(batchModes[mode][i%len(batchModes[mode])])
				if err != nil {
					t.Fatal(err)
				}
				p.Constraints = cs
				b, err := rigidbody.New(p)
				if err != nil {
					t.Fatal(err)
				}
				members[i] = b
			}
			for _, err := range verification.CheckBatch(members, verification.BatchOptions{Seed: uint64(len(mode))}) {
				t.Error(err)
			}
		})
	}
}

// MarkerInverseMass against the inverse effective mass of a body point
// worked by hand from the impulse–momentum equations (Δv = e/m on a free
// translation, 0 on a held one; Δω = I⁻¹ (r × e); the point's velocity
// change along e is then 1/m + (r × e)·I⁻¹(r × e)). Mass 2 kg, principal
// inertia (1, 2, 4) kg m², identity orientation, the point r = (1, 0, 0)
// m: r × x = 0, r × y = (0, 0, 1), r × z = (0, −1, 0), so
//
//   - free: (0.5, 0.5 + 1/4, 0.5 + 1/2) = (0.5, 0.75, 1);
//   - x held: the x entry loses its 1/m: (0, 0.75, 1);
//   - hinge about z (rx, ry held): only (r × e)_z² / I_z counts:
//     (0.5, 0.75, 0.5);
//   - orientation fixed: the translational part only: (0.5, 0.5, 0.5).
//
// Every value is exact in binary and the arithmetic exact: compared
// exactly.
func TestMarkerInverseMass(t *testing.T) {
	for _, c := range []struct {
		constraints string
		want        [3]float64
	}{
		{"", [3]float64{0.5, 0.75, 1}},
		{"x=0", [3]float64{0, 0.75, 1}},
		{"rx=0,ry=0", [3]float64{0.5, 0.75, 0.5}},
		{"rx=0,ry=0,rz=0", [3]float64{0.5, 0.5, 0.5}},
	} {
		p := rigidbody.DefaultParams()
		p.Mass, p.Inertia = 2, [3]float64{2, 2, 4}
		cs, err := rigidbody.ParseConstraints(c.constraints)
		if err != nil {
			t.Fatal(err)
		}
		p.Constraints = cs
		b, err := rigidbody.New(p)
		if err != nil {
			t.Fatal(err)
		}
		x := make([]float64, 13) // position, orientation (w, x, y, z), velocity, angular velocity
		x[3] = 1
		var inv [3]float64
		b.MarkerInverseMass(x, [3]float64{1, 0, 0}, &inv)
		if inv != c.want {
			t.Errorf("constraints %q: MarkerInverseMass = %v, want %v", c.constraints, inv, c.want)
		}
	}
	// The orientation rotates the point: a quarter turn about z takes
	// r = (1, 0, 0) to (0, 1, 0) in the world, whose r × x = (0, 0, −1)
	// meets I_z (world z is body z): x gains 1/4; y nothing; for z,
	// r × z = (1, 0, 0) in the world is (0, −1, 0) in the body, which
	// meets I_y: 0.5 + 1/2 = 1.
	// cos(π/4) is rounded: tolerance 1e-15.
	p := rigidbody.DefaultParams()
	p.Mass, p.Inertia = 2, [3]float64{2, 2, 4}
	b, err := rigidbody.New(p)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, 13)
	x[3], x[6] = math.Cos(math.Pi/4), math.Sin(math.Pi/4)
	var inv [3]float64
	b.MarkerInverseMass(x, [3]float64{1, 0, 0}, &inv)
	for i, w := range [3]float64{0.75, 0.5, 1} {
		if !numtest.Within(inv[i], w, 1e-15*w) {
			t.Errorf("quarter turn: MarkerInverseMass[%d] = %v, want %v", i, inv[i], w)
		}
	}
}
