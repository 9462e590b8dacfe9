package rigidbody2d_test

import (
	"fmt"
	"log/slog"
	"os"

	"github.com/cosimgo/cosim/nodes/rigidbody2d"
)

// Constructing the deprecated node logs a warning naming its replacement;
// here it goes to standard output, without the time. The body then falls
// for 0.1 s while a torque spins it up.
func Example() {
	p := rigidbody2d.DefaultParams()
	p.Logger = slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == "replacement" || a.Key == "algorithm_id" {
				return slog.Attr{}
			}
			return a
		},
	}))
	n, err := rigidbody2d.New(p)
	if err != nil {
		fmt.Println(err)
		return
	}
	in := n.Spec().DefaultInputs()
	in.Values[2] = 1 // torque, N·m
	x, dst := make([]float64, 6), make([]float64, 6)
	n.InitialState(x)
	for k := range 10 {
		if err := n.Update(float64(k)*0.01, 0.01, x, in, dst); err != nil {
			fmt.Println(err)
			return
		}
		x, dst = dst, x
	}
	fmt.Printf("x %.5f, angle %.4f, v %.4f, omega %.2f\n", x[:2], x[2], x[3:5], x[5])
	// Output:
	// level=WARN msg="rigidbody2d is deprecated since cosim 0.1.0: use rigidbody with constraints {z: 0, rx: 0, ry: 0} (gravity [g_x, g_y, 0], e.g. [0, -9.81, 0] for this node's default)" node=rigidbody2d deprecated_since=0.1.0
	// x [0.00000 -0.05396], angle 0.0055, v [0.0000 -0.9810], omega 0.10
}
