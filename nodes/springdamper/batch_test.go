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
		// Two bodies of the general path and a linear law: no marker is
		// read directly (ground or point), so every row is its member's
		// own Outputs.
		{"rigid", "rigid", false, false}, {"rigid2d", "ball", false, false},
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

// A family whose linear laws differ in one parameter only (stiffness,
// damping, offset or active) is not one law: the kernel must give each
// member its own parameters, not the first member's (every member
// differs from the first). CheckBatch compares
// the kernel bit for bit with the members' own Outputs on the
// point–point path, with the members differing from construction on (not
// only after SetParams, as in TestBatchKernelEqualLawThenTuned).
func TestBatchKernelLawsDifferingInOneParameter(t *testing.T) {
	base := springdamper.DefaultParams()
	base.Stiffness, base.Damping, base.Offset = [3]float64{120, 80, 40}, [3]float64{1.5, 0.5, 0.25}, [3]float64{0.1, 0, -0.2}
	for _, c := range []struct {
		name string
		set  func(p *springdamper.Params, i int)
	}{
		{"stiffness", func(p *springdamper.Params, i int) { p.Stiffness[1] += float64(i) }},
		{"damping", func(p *springdamper.Params, i int) { p.Damping[2] += float64(i) }},
		{"offset", func(p *springdamper.Params, i int) { p.Offset[0] += float64(i) / 10 }},
		{"active", func(p *springdamper.Params, i int) { p.Active = i == 0 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(13, uint64(len(c.name))))
			members := make([]node.Node, 5)
			for i := range members {
				p := base
				c.set(&p, i)
				n, err := springdamper.New(p, batchMarkers["point"](t, rng), batchMarkers["point"](t, rng))
				if err != nil {
					t.Fatal(err)
				}
				members[i] = n
			}
			for _, err := range verification.CheckBatch(members, verification.BatchOptions{Seed: 17}) {
				t.Error(err)
			}
		})
	}
}

// A chain of connectors between mass points, as a graph lays it out: the
// points' states are rows of one buffer (position, then velocity: 6
// values each), connector i joins point i (its marker 0) and point i+1
// (its marker 1, one row further), and the two loads of connector i are
// the 6-value row i of one output buffer. When only the loads are needed
// the kernel reads that layout directly; the variants break one of its
// conditions (the chain reversed, so marker 1 comes first; marker 0's or
// marker 1's velocity, or marker 1's load, in a buffer of its own, while
// the chain buffer holds other numbers where it would be), and the
// kernel must then not read the chain layout. The reference is each
// member's own Outputs on its row's input values (node.Batch requires
// the kernel to match it bit for bit); positions, velocities and
// parameters have three distinct non-zero components, so that each
// axis's difference and damping term is seen.
func TestBatchKernelChainLayout(t *testing.T) {
	const n = 5
	rng := rand.New(rand.NewPCG(19, 23))
	members := make([]node.Node, n)
	for i := range members {
		p := springdamper.DefaultParams()
		p.Stiffness, p.Damping, p.Offset = [3]float64{100 + rv3(rng, 10)[0], 80, 60}, [3]float64{3, 2 + rng.Float64(), 1}, rv3(rng, 0.1)
		m, err := springdamper.New(p, batchMarkers["point"](t, rng), batchMarkers["point"](t, rng))
		if err != nil {
			t.Fatal(err)
		}
		members[i] = m
	}
	random := func(l int) []float64 {
		v := make([]float64, l)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		return v
	}
	spec := members[0].Spec()
	ny := spec.OutputLayout.Size()
	fl0, fl1 := len(spec.Outputs)-2, len(spec.Outputs)-1 // the loads of marker 0 and 1
	for _, variant := range []string{"chain", "reversed", "v0 apart", "v1 apart", "load 1 apart"} {
		t.Run(variant, func(t *testing.T) {
			body, loads := random(6*(n+1)), make([]float64, 6*n)
			in := []node.Strided{
				{Buf: body, Off: 0, Stride: 6}, {Buf: body, Off: 3, Stride: 6},
				{Buf: body, Off: 6, Stride: 6}, {Buf: body, Off: 9, Stride: 6},
			}
			out := [2]node.Strided{{Buf: loads, Off: 0, Stride: 6}, {Buf: loads, Off: 3, Stride: 6}}
			switch variant {
			case "reversed":
				in[0], in[1], in[2], in[3] = in[2], in[3], in[0], in[1]
			case "v0 apart":
				in[1] = node.Strided{Buf: random(3 * n), Stride: 3}
			case "v1 apart":
				in[3] = node.Strided{Buf: random(3 * n), Stride: 3}
			case "load 1 apart":
				out[1] = node.Strided{Buf: make([]float64, 3*n), Stride: 3}
			}
			need := make([]bool, len(spec.Outputs))
			need[fl0], need[fl1] = true, true
			a := &node.BatchArgs{Lo: 0, Hi: n, In: in, Out: make([]node.Strided, len(spec.Outputs)), Need: need}
			for f := range a.Out {
				a.Out[f] = node.Strided{Buf: make([]float64, ny*n), Stride: ny}
			}
			a.Out[fl0], a.Out[fl1] = out[0], out[1]
			b := members[0].(node.Batcher).NewBatch(members)
			if err := b.(node.BatchOutputter).Outputs(a); err != nil {
				t.Fatal(err)
			}
			for i, m := range members {
				vals := make([]float64, 0, 12)
				for _, v := range in {
					vals = append(vals, v.Row(i, 3)...)
				}
				mi := node.Inputs{Values: vals, Present: make([]bool, len(spec.Inputs))}
				for k := range mi.Present {
					mi.Present[k] = true
				}
				dst := make([]float64, ny)
				if err := m.(node.Outputter).Outputs(0, nil, mi, dst); err != nil {
					t.Fatal(err)
				}
				got := append(append([]float64(nil), out[0].Row(i, 3)...), out[1].Row(i, 3)...)
				for k := range 6 {
					if want := dst[ny-6+k]; math.Float64bits(got[k]) != math.Float64bits(want) {
						t.Errorf("connector %d: load value %d = %v, its own Outputs %v", i, k, got[k], want)
					}
				}
			}
		})
	}
}
