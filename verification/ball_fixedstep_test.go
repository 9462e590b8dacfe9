package verification

import (
	"context"
	"math"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/nodes/ball"
	"github.com/cosimgo/cosim/nodes/table"
)

// The ball on a table run monolithically with fixed-step methods through
// graph.RunMonolithic: the fixed-step methods now locate the ball's
// contact event and apply its reset (integrators, fixedevents.go); before,
// they ignored it and the ball fell through the table to h(10) ≈ −480 m.
// Reference: the closed form of bounceExact (h0 = 10 m, e =
// 0.9, g = 9.81 m/s², four impacts before t = 10, h(10) = 2.1006464 m).
//
// Tolerances: RK4 integrates the constant-acceleration flight exactly
// (a polynomial of degree 2), so its error is the event tolerance
// (1e-12 s) times the speeds (≤ 14 m/s) over four impacts, plus rounding:
// 1e-8. Semi-implicit Euler is first order with a position bias
// g·dt·τ/2 per flight; its error at dt = 1e-3 is ≈ 0.13 m (the
// integrators test derives it), bounded by 0.2 m, and halving dt must
// halve it (ratio in [1.6, 2.4]).
func TestBallFixedStepMonolithic(t *testing.T) {
	const h0, e, g, end = 10.0, 0.9, 9.81, 10.0
	impacts, hx, vx := bounceExact(h0, e, g, end)
	if len(impacts) != 4 {
		t.Fatalf("closed form has %d impacts before t = 10, want 4", len(impacts))
	}
	run := func(method string, dt float64) (h, v float64, st integrators.Work) {
		p := ball.DefaultParams()
		p.InitialPosition, p.Elasticity, p.Gravity = h0, e, -g
		b, err := ball.New(p)
		if err != nil {
			t.Fatal(err)
		}
		tb, err := table.New(table.DefaultParams())
		if err != nil {
			t.Fatal(err)
		}
		gr := graph.New()
		gr.Add("ball", b)
		gr.Add("table", tb)
		gr.Connect("table.position", "ball.table_position")
		s, err := gr.Build()
		if err != nil {
			t.Fatal(err)
		}
		m, err := integrators.ByName(method)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.RunMonolithic(context.Background(), m, nil, graph.Settings{Dt: dt, End: end, Record: []string{"ball.position"}, RecordEvery: 10})
		if err != nil {
			t.Fatal(err)
		}
		lowest := math.Inf(1)
		for _, r := range res.History.Rows {
			lowest = math.Min(lowest, r[0])
		}
		if lowest < 0 {
			t.Errorf("%s dt %v: the ball went %v m below the table", method, dt, -lowest)
		}
		x, _ := s.Value("ball.position")
		vv, _ := s.Value("ball.velocity")
		if s.Time() != end {
			t.Errorf("%s: ended at t = %v, want %v", method, s.Time(), end)
		}
		return x[0], vv[0], res.Integrator.Work
	}
	for _, c := range []struct {
		method string
		tol    float64
		first  bool
	}{
		{integrators.MethodRK4, 1e-8, false},
		{integrators.MethodSemiImplicitEuler, 0.2, true},
	} {
		h, v, st := run(c.method, 1e-3)
		if !numtest.Within(h, hx, c.tol) || !numtest.Within(v, vx, c.tol) {
			t.Errorf("%s: h(10) = %.12g, v(10) = %.12g; closed form %.12g, %.12g (± %g)", c.method, h, v, hx, vx, c.tol)
		}
		if st.EventsHandled != len(impacts) {
			t.Errorf("%s: %d contacts handled, want %d", c.method, st.EventsHandled, len(impacts))
		}
		if c.first {
			h2, _, _ := run(c.method, 5e-4)
			if r := (h - hx) / (h2 - hx); !(r >= 1.6 && r <= 2.4) {
				t.Errorf("%s: error ratio %.3g between dt and dt/2, want ≈ 2 (first order)", c.method, r)
			}
		}
	}
}
