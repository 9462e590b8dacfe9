package verification

import (
	"context"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// A panic inside user code (a spring-damper's user force function) is
// recovered and returned as an error naming the node, in co-simulation
// with any worker count and in monolithic mode; the process survives and
// the state is the last good one.
func TestUserFunctionPanic(t *testing.T) {
	for _, mode := range []string{"co-simulation/1", "co-simulation/2", "monolithic"} {
		g := graph.New()
		mp, _ := masspoint.New(masspoint.Params{Mass: 1, InitialPosition: [3]float64{1, 0, 0}})
		g.Add("mass", mp)
		p := springdamper.DefaultParams()
		p.ForceFunc = func(t float64, item int, u, v, k, d, off [3]float64) [3]float64 {
			if t >= 0.05 {
				panic("user force exploded")
			}
			return [3]float64{-u[0], 0, 0}
		}
		if _, err := springdamper.Connect(g, "spring", p, "ground", [3]float64{}, "mass", [3]float64{}); err != nil {
			t.Fatal(err)
		}
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		set := graph.Settings{Mode: graph.CoSimulation{Workers: 1, Grain: 1}, Dt: 0.01, Steps: 10}
		if mode == "co-simulation/2" {
			set.Mode = graph.CoSimulation{Workers: 2, Grain: 1}
		}
		if mode == "monolithic" {
			m, _ := integrators.ByName(integrators.MethodRK4)
			_, err = s.RunMonolithic(context.Background(), m, nil, set)
		} else {
			_, err = s.Run(context.Background(), set)
		}
		if err == nil || !strings.Contains(err.Error(), "spring") || !strings.Contains(err.Error(), "user force exploded") {
			t.Errorf("%s: err = %v, want the panic reported against node spring", mode, err)
		}
		// Co-simulation evaluates the force at t_n: the panic comes in step 5
		// (t = 0.05). RK4's last stage of step 4 is at t = 0.05 already.
		want := 5
		if mode == "monolithic" {
			want = 4
		}
		if s.StepCount() != want {
			t.Errorf("%s: %d steps kept, want the %d before the panic", mode, s.StepCount(), want)
		}
	}
}
