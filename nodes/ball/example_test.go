package ball_test

import (
	"fmt"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/ball"
)

// Drop a ball from 1 m onto a table at height 0 and report its first
// bounces: each rebound is e = 0.8 times the impact speed (the exact first
// impact is at t = √(2/9.81) ≈ 0.4515 s, at 4.429 m/s).
func Example() {
	b, err := ball.New(ball.Params{InitialPosition: 1, Elasticity: 0.8, Gravity: -9.81, Mass: 1})
	if err != nil {
		panic(err)
	}
	x, next := make([]float64, 2), make([]float64, 2)
	b.InitialState(x)
	in := node.Inputs{Values: []float64{0, 0}, Present: []bool{true, true}} // table_position connected at 0, no force

	const dt = 1e-3
	bounces := 0
	for n := 0; bounces < 3; n++ {
		t := float64(n) * dt
		if err := b.Update(t, dt, x, in, next); err != nil {
			panic(err)
		}
		if x[1] < 0 && next[1] >= 0 { // the velocity turned: a bounce
			bounces++
			fmt.Printf("bounce %d at t = %.3f s: impact %.3f m/s, rebound %.3f m/s\n",
				bounces, t+dt, -x[1]+9.81*dt, next[1])
		}
		x, next = next, x
	}
	// Output:
	// bounce 1 at t = 0.452 s: impact 4.434 m/s, rebound 3.547 m/s
	// bounce 2 at t = 1.175 s: impact 3.545 m/s, rebound 2.836 m/s
	// bounce 3 at t = 1.753 s: impact 2.834 m/s, rebound 2.267 m/s
}
