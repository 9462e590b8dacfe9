package rigidbody2d_test

import (
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/rigidbody2d"
	"github.com/cosimgo/cosim/verification"
)

// The batch kernel against the members' own Update and Derivatives, in
// this package's tests so that mutation testing (go run
// ./internal/mutation -pkgs nodes/rigidbody2d) sees batch.go exercised.
// verification.CheckBatch draws states and inputs (with zeros, tiny,
// large and non-finite values), strided and broadcast layouts,
// chunkings, steps including 0, negative and non-finite ones, and
// overrides the members' parameters after NewBatch. The reference is
// each member's own method; the tolerance is zero (bit for bit), as
// node.Batch requires: a graph may run either path.
func TestBatchKernelMatchesMembers(t *testing.T) {
	for _, n := range []int{1, 6, 11} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(2, uint64(n)))
			members := make([]node.Node, n)
			for i := range members {
				b, err := rigidbody2d.New(rigidbody2d.Params{
					Mass: 0.1 + 10*rng.Float64(), Inertia: 0.1 + 3*rng.Float64(),
					Gravity:  [2]float64{rng.NormFloat64(), -10 * rng.Float64()},
					InitialX: rng.NormFloat64(), InitialVY: rng.NormFloat64(), InitialAngle: rng.NormFloat64(),
					Logger: slog.New(slog.DiscardHandler),
				})
				if err != nil {
					t.Fatal(err)
				}
				members[i] = b
			}
			for _, err := range verification.CheckBatch(members, verification.BatchOptions{Seed: uint64(n)}) {
				t.Error(err)
			}
		})
	}
}

// MarkerInverseMass is the inverse effective mass of a point of a planar
// rigid body: a unit impulse along the world axis e at the point r
// (world frame) changes the point's velocity along e by
// 1/m + (r × e)²/I (from the impulse–momentum equations Δv = e/m,
// Δω = (r × e)/I and the point's velocity v + ω ẑ × r, written out by
// hand), so along x by 1/m + r_y²/I and along y by
// 1/m + r_x²/I; along z, which the body cannot move, 0. With m = 2 kg,
// I = 0.5 kg m², the angle π/2 and the body point (1, 0.5), the world
// point is r = (−0.5, 1): 0.5 + 1/0.5 = 2.5 along x, 0.5 + 0.25/0.5 = 1
// along y. Tolerance 1e-15 relative: cos(π/2) rounds to 6e-17, not 0.
// The same numbers are then checked against the impulse response the
// body's own MarkerLoad and Derivatives give (velocity change of the
// point per unit impulse, to 1e-12 relative: rounding of the chain).
func TestMarkerInverseMass(t *testing.T) {
	b, err := rigidbody2d.New(rigidbody2d.Params{Mass: 2, Inertia: 0.5, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{0.3, -0.7, math.Pi / 2, 1, 2, 3} // x, y, θ, v_x, v_y, ω
	local := [3]float64{1, 0.5, 9}                  // local[2] is ignored
	var inv [3]float64
	b.MarkerInverseMass(x, local, &inv)
	want := [3]float64{2.5, 1, 0}
	for i := range want {
		if !numtest.Within(inv[i], want[i], 1e-15*math.Max(1, want[i])) {
			t.Errorf("MarkerInverseMass[%d] = %v, want %v", i, inv[i], want[i])
		}
	}

	// Impulse response: a unit force along e at the marker for a time τ
	// changes (v, ω) by τ·(F/m, torque/I); the marker's velocity change
	// per unit impulse along e is the inverse mass along e.
	spec := b.Spec()
	for axis := range 2 {
		var e [3]float64
		e[axis] = 1
		load := make([]float64, 3)
		b.MarkerLoad(x, local, e, load)
		in := node.Inputs{Values: make([]float64, spec.InputLayout.Size()), Present: make([]bool, len(spec.Inputs))}
		copy(in.Values[spec.InputOffset("force"):], load[:2])
		in.Values[spec.InputOffset("torque")] = load[2]
		for i := range in.Present {
			in.Present[i] = true
		}
		grav := make([]float64, len(x)) // rates without the load: gravity only
		d := make([]float64, len(x))
		in0 := node.Inputs{Values: make([]float64, len(in.Values)), Present: in.Present}
		if err := b.Derivatives(0, x, in0, grav); err != nil {
			t.Fatal(err)
		}
		if err := b.Derivatives(0, x, in, d); err != nil {
			t.Fatal(err)
		}
		xs := slices6(x)
		for _, f := range []string{"v", "omega"} {
			o := spec.StateFieldOffset(f)
			for k := range spec.State[spec.StateLayout.Index(f)].Shape.Len() {
				xs[o+k] += d[o+k] - grav[o+k] // unit impulse: τ = 1
			}
		}
		var p, v0, v1 [3]float64
		b.MarkerKinematics(x, local, &p, &v0)
		b.MarkerKinematics(xs, local, &p, &v1)
		if got := v1[axis] - v0[axis]; !numtest.Within(got, inv[axis], 1e-12*inv[axis]) {
			t.Errorf("axis %d: velocity change per unit impulse %v, MarkerInverseMass %v", axis, got, inv[axis])
		}
	}
}

func slices6(x []float64) []float64 { return append([]float64(nil), x...) }
