package verification_test

import (
	"fmt"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/verification"
)

// CheckBatch holds a family's batch kernel to its members' own methods.
// A node type with a kernel of its own (node.Batcher) is checked the
// same way: build a few members with different parameters and check
// that the list of violations is empty.
func ExampleCheckBatch() {
	var members []node.Node
	for i := range 5 {
		m, err := masspoint.New(masspoint.Params{Mass: 1 + float64(i), Gravity: [3]float64{0, 0, -9.81}})
		if err != nil {
			panic(err)
		}
		members = append(members, m)
	}
	errs := verification.CheckBatch(members, verification.BatchOptions{Seed: 1})
	fmt.Println("violations:", len(errs))
	// Output: violations: 0
}
