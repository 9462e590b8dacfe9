package scene_test

import (
	"context"
	"math"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
)

// The bouncing-ball example run monolithically with fixed-step RK4 and
// semi-implicit Euler (what `cosim run … --set run.mode=monolithic --set
// run.integrator.method=rk4` does) keeps the ball on or above the table
// and counts its contacts: the fixed-step methods once ignored
// the contact event and the ball fell to h(10) ≈ −480 m with exit status
// 0. Reference for h(10): the closed form of the ball dropped from 10 m
// with e = 0.9, g = 9.81 m/s², four impacts before t = 10, h(10) =
// 2.1006464 m (verification.TestBallEvents prints it); RK4 integrates
// the constant-acceleration flights exactly and the contacts are located
// to 1e-12 s, so 1e-8 m bounds its error (speeds ≤ 14 m/s); semi-implicit
// Euler is first order, ≈ 0.013 m at dt = 1e-4, bounded by 0.02 m.
func TestBouncingBallFixedStepMonolithic(t *testing.T) {
	reg := nodes.Registry()
	for _, c := range []struct {
		method string
		tol    float64
	}{{"rk4", 1e-8}, {"semi-implicit-euler", 0.02}} {
		sc, err := scene.LoadFile("../examples/scenes/bouncing-ball.json", reg)
		if err != nil {
			t.Fatal(err)
		}
		sc.Run.Mode = "monolithic"
		sc.Run.Integrator = &scene.IntegrationMethod{Method: c.method}
		res, err := sc.Simulate(context.Background(), reg, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.method, err)
		}
		x := res.History.Column("ball.position")
		lowest := math.Inf(1)
		for _, v := range x {
			lowest = math.Min(lowest, v)
		}
		if lowest < 0 {
			t.Errorf("%s: the ball went to %v m, below the table", c.method, lowest)
		}
		if h := x[len(x)-1]; !numtest.Within(h, 2.1006464, c.tol+5e-8) {
			t.Errorf("%s: h(10) = %.10g, closed form 2.1006464 (± %g)", c.method, h, c.tol)
		}
		if res.Events != 4 {
			t.Errorf("%s: %d events counted, want the 4 contacts", c.method, res.Events)
		}
	}
}
