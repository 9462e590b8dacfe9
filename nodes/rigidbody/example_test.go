package rigidbody_test

import (
	"fmt"

	"github.com/cosimgo/cosim/nodes/rigidbody"
)

// A body held in the x-y plane (the replacement of rigidbody2d) spun up by
// a torque about z (the angle reaches 0.505 rad: Δt²·α·n(n+1)/2); the out-of-plane force and torque are taken by the
// constraints, so it stays exactly planar.
func Example() {
	p := rigidbody.DefaultParams()
	p.Constraints = rigidbody.Planar()
	n, err := rigidbody.New(p)
	if err != nil {
		fmt.Println(err)
		return
	}
	in := n.Spec().DefaultInputs()
	copy(in.Values, []float64{1, 0, 10, 0.5, 0.5, 1}) // force (N), then torque (N·m)
	x, dst := make([]float64, 13), make([]float64, 13)
	n.InitialState(x)
	for k := range 100 {
		if err := n.Update(float64(k)*0.01, 0.01, x, in, dst); err != nil {
			fmt.Println(err)
			return
		}
		x, dst = dst, x
	}
	fmt.Printf("position %.4f\norientation %.4f\nangular velocity %.4f\n", x[0:3], x[3:7], x[10:13])

	_, err = rigidbody.FromMap(map[string]any{"constraints": "z=0,rx=0"})
	fmt.Println(err)
	// Output:
	// position [0.5050 0.0000 0.0000]
	// orientation [0.9683 0.0000 0.0000 0.2498]
	// angular velocity [0.0000 0.0000 1.0000]
	// rigidbody: parameter "constraints" = "z=0,rx=0" holds exactly one rotation; hold none, two (a hinge) or all three of rx, ry, rz; valid: comma-separated axis=value pairs (or a map axis → number) with axes among x, y, z, rx, ry, rz, each at most once, holding none, two or three of rx, ry, rz, e.g. "z=0,rx=0,ry=0"; "" for none
}
