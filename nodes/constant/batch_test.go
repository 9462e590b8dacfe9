package constant_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/constant"
	"github.com/cosimgo/cosim/verification"
)

// The batch kernel against the members' own Outputs, in this package's
// tests so that mutation testing (go run ./internal/mutation -pkgs
// nodes/constant) sees batch.go exercised: without it the row offset
// o.Off+(a.Lo+k)*o.Stride was reached only with a zero offset and a
// single row, and its mutants lived. verification.CheckBatch draws
// strided and broadcast layouts, chunkings and outputs nobody reads, and
// overrides the members' parameters after NewBatch. The reference is
// each member's own Outputs; the tolerance is zero (bit for bit), as
// node.Batch requires: a graph may run either path.
func TestBatchKernelMatchesMembers(t *testing.T) {
	for _, n := range []int{1, 4, 13} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(23, uint64(n)))
			members := make([]node.Node, n)
			for i := range members {
				m, err := constant.New(constant.Params{Value: [3]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}, Units: "N"})
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
