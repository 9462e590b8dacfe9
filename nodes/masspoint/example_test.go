package masspoint_test

import (
	"fmt"

	"github.com/cosimgo/cosim/nodes/masspoint"
)

// A 5 kg mass under a 5 N load in −y, the body of the Cartesian
// spring-damper mini example, stepped without its spring for 1 s.
func Example() {
	p := masspoint.DefaultParams()
	p.Mass = 5
	p.InitialPosition = [3]float64{1, 1, 0}
	n, err := masspoint.New(p)
	if err != nil {
		fmt.Println(err)
		return
	}
	in := n.Spec().DefaultInputs()
	in.Values[1] = -5 // force = (0, −5, 0) N
	x, dst := make([]float64, 6), make([]float64, 6)
	n.InitialState(x)
	const dt = 0.01
	for k := range 100 {
		if err := n.Update(float64(k)*dt, dt, x, in, dst); err != nil {
			fmt.Println(err)
			return
		}
		x, dst = dst, x
	}
	fmt.Printf("position %.4f, velocity %.4f\n", x[:3], x[3:])

	_, err = masspoint.FromMap(map[string]any{"mass": 0})
	fmt.Println(err)
	// Output:
	// position [1.0000 0.4950 0.0000], velocity [0.0000 -1.0000 0.0000]
	// masspoint: parameter "mass" = 0 is out of range; valid: (0, +Inf)
}
