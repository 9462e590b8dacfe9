package scene_test

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
)

// What examples/scenes/README.md says of amplifier-loop.json: the
// amplifier's loop F = A·(c − kf·F) gives F = c·A/(1 + A·kf) at every
// sample (a linear loop Newton solves to rounding: 1e-12 relative), and
// the run equals pid-mass-spring.json run the same way (monolithic,
// implicit trapezoid) with its gains scaled by A/(1 + A·kf), the model
// reformulated without the loop: the same positions to 1e-9 (rounding
// over 10 000 steps) and the same Newton iterations, the Newton matrix
// through the loop being the reformulated model's Jacobian up to
// rounding. The position overshoots by 12.3 % and settles within 2 %
// about 3.7 s after the step.
func TestAmplifierLoopExample(t *testing.T) {
	const A, kf = 1000.0, 1.0
	run := func(file string, set map[string]any, cols ...string) (*scene.Result, [][]float64) {
		t.Helper()
		reg := nodes.Registry()
		sc, err := scene.LoadFile("../examples/scenes/"+file, reg)
		if err != nil {
			t.Fatal(err)
		}
		if sc, err = sc.With(set); err != nil {
			t.Fatal(err)
		}
		res, err := sc.Simulate(context.Background(), reg, nil)
		if err != nil {
			t.Fatal(err)
		}
		out := make([][]float64, len(cols))
		for i, c := range cols {
			j := slices.Index(res.History.Columns, c)
			if j < 0 {
				t.Fatalf("%s records no %s", file, c)
			}
			for _, r := range res.History.Rows {
				out[i] = append(out[i], r[j])
			}
		}
		return res, out
	}
	res, c := run("amplifier-loop.json", nil, "mass.position[0]", "pid.out[0]", "amp.out[0]")
	if l := res.Sim.Loops(); len(l) != 1 || l[0].Fallbacks != 0 || !l[0].Analytic {
		t.Fatalf("loops %+v: want one, solved by Newton with the analytic matrix", l)
	}
	x, cmd, force := c[0], c[1], c[2]
	for i := range force {
		if want := cmd[i] * A / (1 + A*kf); !numtest.Within(force[i], want, 1e-12*math.Max(math.Abs(want), 1e-3)) {
			t.Fatalf("row %d: amp.out %.17g, want %.17g", i, force[i], want)
		}
	}
	g := A / (1 + A*kf)
	flatRes, fc := run("pid-mass-spring.json", map[string]any{"pid.kp": 20 * g, "pid.ki": 10 * g, "pid.kd": 4 * g,
		"run.mode": "monolithic", "run.integrator": map[string]any{"method": "implicit-trapezoid"}}, "mass.position[0]")
	for i, v := range fc[0] {
		if !numtest.Within(x[i], v, 1e-9) {
			t.Fatalf("row %d: x = %.17g through the loop, %.17g without it", i, x[i], v)
		}
	}
	w, fw := res.Integrator.Work, flatRes.Integrator.Work
	if w.NewtonIters != fw.NewtonIters || w.NewtonIters == 0 {
		t.Errorf("Newton iterations %d through the loop, %d without it", w.NewtonIters, fw.NewtonIters)
	}
	ts := res.History.Times
	peak, settle := slices.Max(x), 0.0
	for i, v := range x {
		if !numtest.Within(v, 1, 0.02) {
			settle = ts[i]
		}
	}
	if !numtest.Within(peak, 1.123, 0.002) || !numtest.Within(settle-0.5, 3.7, 0.1) {
		t.Errorf("peak %v (want 1.123), 2 %% settling %v s after the step (want 3.7)", peak, settle-0.5)
	}
}
