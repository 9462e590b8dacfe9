package rigidbody_test

import (
	"fmt"
	"math"

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
	// Output:
	// position [0.5050 0.0000 0.0000]
	// orientation [0.9683 0.0000 0.0000 0.2498]
	// angular velocity [0.0000 0.0000 1.0000]
}

// One held rotation leaves a two-axis gimbal. Holding rz = 0.5 (a Cardan
// suspension: the outer free axis is the fixed horizontal world axis
// R_z(0.5)·e_y, the inner one the body's x axis) and driving the body with
// a torque that has a component along z too, the body turns about the two
// free axes while rz, read back from the orientation with the Z-Y-X
// formulas, stays 0.5. Such a body runs its own scheme, which its Spec
// names. Holding ry alone at π/2 is a locked gimbal: both free axes would
// be the world z axis.
func Example_gimbal() {
	p := rigidbody.DefaultParams()
	p.Inertia = [3]float64{1, 2, 3}
	p.Constraints = rigidbody.Constraints{rigidbody.RZ: 0.5}
	n, err := rigidbody.New(p)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(n.Spec().Meta.Discretization)
	in := n.Spec().DefaultInputs()
	copy(in.Values[3:6], []float64{0.3, -0.2, 5}) // torque (N·m)
	x, dst := make([]float64, 13), make([]float64, 13)
	n.InitialState(x)
	for k := range 1000 {
		if err := n.Update(float64(k)*1e-3, 1e-3, x, in, dst); err != nil {
			fmt.Println(err)
			return
		}
		x, dst = dst, x
	}
	w, qx, qy, qz := x[3], x[4], x[5], x[6]
	rx := math.Atan2(2*(w*qx+qy*qz), 1-2*(qx*qx+qy*qy))
	ry := math.Asin(2 * (w*qy - qz*qx))
	rz := math.Atan2(2*(w*qz+qx*qy), 1-2*(qy*qy+qz*qz))
	fmt.Printf("rx %.4f, ry %.4f, rz %.12f\n", rx, ry, rz)

	_, err = rigidbody.FromMap(map[string]any{"constraints": "ry=1.5708"})
	fmt.Println(err)
	// Output:
	// semi-implicit-euler-gimbal
	// rx 0.1172, ry -0.0798, rz 0.500000000000
	// rigidbody: parameter "constraints" = "ry=1.5708" holds ry = 1.5708 alone, 3.67e-06 rad from ±π/2: there the two free axes of the gimbal are both the world z axis (gimbal lock); hold ry at least 1e-3 rad away from ±π/2, or hold rx or rz too; valid: comma-separated axis=value pairs (or a map axis → number) with axes among x, y, z, rx, ry, rz, each at most once, with finite values; ry held alone needs |cos ry| ≥ 1e-3; e.g. "z=0,rx=0,ry=0"; "" for none
}
