package masspoint_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/verification"
)

// The batch kernel against the members' own Update and Derivatives, in
// this package's tests so that mutation testing (go run
// ./internal/mutation -pkgs nodes/masspoint) sees batch.go exercised.
// verification.CheckBatch draws states, forces (with zeros, tiny, large
// and non-finite values), strided and broadcast layouts, chunkings and
// steps including 0, negative and non-finite ones, and overrides the
// members' parameters after NewBatch. The reference is each member's own
// method; the tolerance is zero (bit for bit), as node.Batch requires:
// a graph may run either path.
func TestBatchKernelMatchesMembers(t *testing.T) {
	for _, n := range []int{1, 4, 13} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(201, uint64(n)))
			v3 := func(s float64) [3]float64 {
				return [3]float64{s * rng.NormFloat64(), s * rng.NormFloat64(), s * rng.NormFloat64()}
			}
			members := make([]node.Node, n)
			for i := range members {
				m, err := masspoint.New(masspoint.Params{Mass: 0.1 + 10*rng.Float64(), Gravity: v3(10), InitialPosition: v3(1), InitialVelocity: v3(1)})
				if err != nil {
					t.Fatal(err)
				}
				members[i] = m
			}
			for _, err := range verification.CheckBatch(members, verification.BatchOptions{Seed: uint64(n)}) {
				t.Error(err)
			}
		})
	}
}

// MarkerInverseMass is 1/m on every world axis, wherever the marker and
// whatever the state (a point mass: F = m a on each axis, Newton's
// second law). m = 4 kg gives 0.25 exactly in binary: compared exactly.
func TestMarkerInverseMass(t *testing.T) {
	m, err := masspoint.New(masspoint.Params{Mass: 4})
	if err != nil {
		t.Fatal(err)
	}
	var inv [3]float64
	m.MarkerInverseMass([]float64{1, 2, 3, 4, 5, 6}, [3]float64{0.5, -1, 2}, &inv)
	if inv != [3]float64{0.25, 0.25, 0.25} {
		t.Errorf("MarkerInverseMass = %v, want [0.25 0.25 0.25]", inv)
	}
}

// A chain's masses share their law of motion (mass, gravity) and differ
// in their initial conditions, which the kernels never read: the batch
// keeps one row of the law for all of them (batch.go, uniform). The
// kernel is checked bit for bit against the members' own methods with
// equal laws and different initial conditions, then after a SetParams
// that changes member 2's mass alone, which must reach the kernel.
func TestBatchKernelEqualLawThenTuned(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 3))
	members := make([]node.Node, 5)
	for i := range members {
		p := masspoint.Params{Mass: 1.5, Gravity: [3]float64{0, 0, -9.81},
			InitialPosition: [3]float64{float64(i), rng.NormFloat64(), 0}, InitialVelocity: [3]float64{0, rng.NormFloat64(), 0}}
		m, err := masspoint.New(p)
		if err != nil {
			t.Fatal(err)
		}
		members[i] = m
	}
	perturb := func(i int, n node.Node) error {
		if i != 2 {
			return nil
		}
		return n.(node.Tunable).SetParams(map[string]any{"mass": 3.25})
	}
	for _, err := range verification.CheckBatch(members, verification.BatchOptions{Seed: 23, Perturb: perturb}) {
		t.Error(err)
	}
}

// An empty row range [Lo, Lo) is a valid kernel call (node.BatchArgs:
// rows [Lo, Hi)): a caller that splits a family into chunks may hand a
// kernel a chunk with no rows. Update and Derivatives then return nil
// and write nothing: the destination keeps its sentinel values, at the
// start, the middle and the end of the family.
func TestBatchKernelEmptyRange(t *testing.T) {
	const n = 3
	members := make([]node.Node, n)
	for i := range members {
		m, err := masspoint.New(masspoint.Params{Mass: 2, Gravity: [3]float64{0, 0, -9.81}})
		if err != nil {
			t.Fatal(err)
		}
		members[i] = m
	}
	b := members[0].(node.Batcher).NewBatch(members)
	x, f, dst := make([]float64, 6*n), make([]float64, 3*n), make([]float64, 6*n)
	for i := range x {
		x[i] = float64(i)
	}
	for i := range f {
		f[i] = 1
	}
	for lo := range n + 1 {
		for i := range dst {
			dst[i] = -7
		}
		a := &node.BatchArgs{Dt: 0.01, Lo: lo, Hi: lo,
			X: node.Strided{Buf: x, Stride: 6}, Dst: node.Strided{Buf: dst, Stride: 6},
			In: []node.Strided{{Buf: f, Stride: 3}}, Present: []bool{true}}
		if err := b.(node.BatchUpdater).Update(a); err != nil {
			t.Errorf("Update of rows [%d, %d): %v, want nil", lo, lo, err)
		}
		if err := b.(node.BatchDeriver).Derivatives(a); err != nil {
			t.Errorf("Derivatives of rows [%d, %d): %v, want nil", lo, lo, err)
		}
		for i, v := range dst {
			if v != -7 {
				t.Errorf("rows [%d, %d): dst[%d] = %v, want the sentinel -7 (nothing written)", lo, lo, i, v)
				break
			}
		}
	}
}
