package graph_test

import (
	"context"
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/nodes/ball"
	"github.com/cosimgo/cosim/nodes/table"
)

// For nodes whose Update is semi-implicit Euler, co-simulation (Jacobi,
// inputs at t_n) and monolithic semi-implicit Euler on the graph's
// System are the same scheme: v' = v + dt·F(x_n)/m, x' = x + dt·v'. They
// agree to round-off (the node computes x + dt·F/m as (dt·F)/m, the
// integrator dt·(F/m): 1e-12 relative covers 300 steps of that).
func TestMonolithicMatchesCoSimulation(t *testing.T) {
	co, _ := chain(20).Build()
	mono, _ := chain(20).Build()
	set := graph.Settings{Dt: 1e-3, Steps: 300, Record: []string{"m3.x"}, RecordEvery: 100}
	if _, err := co.Run(context.Background(), set); err != nil {
		t.Fatal(err)
	}
	m, _ := integrators.ByName(integrators.MethodSemiImplicitEuler)
	res, err := mono.RunMonolithic(context.Background(), m, nil, set)
	if err != nil {
		t.Fatal(err)
	}
	a, b := co.State(nil), mono.State(nil)
	for i := range a {
		if !numtest.Within(a[i], b[i], 1e-12*math.Max(1, math.Abs(a[i]))) {
			t.Fatalf("state[%d]: co-simulation %v, monolithic %v", i, a[i], b[i])
		}
	}
	if co.Time() != mono.Time() || res.Steps != 300 || len(res.History.Times) != 4 || res.Integrator.FuncEvals != 300 {
		t.Errorf("time %v/%v, result %+v", co.Time(), mono.Time(), res)
	}
}

// RK4 through the graph adapter on the chain's first mode converges at
// 4th order against the exact modal solution: the adapter re-evaluates
// connector forces at every stage (frozen inputs would give order 1).
func TestMonolithicRK4Order(t *testing.T) {
	const n = 5
	errAt := func(steps int) float64 {
		s, _ := chain(n).Build()
		m, _ := integrators.ByName(integrators.MethodRK4)
		if _, err := s.RunMonolithic(context.Background(), m, nil, graph.Settings{Dt: 1.0 / float64(steps), Steps: steps}); err != nil {
			t.Fatal(err)
		}
		// Mode 1 of n unit masses between walls with k = 1000:
		// ω = 2√k·sin(π/(2(n+1))); u_i(t) = 0.01·sin(πi/(n+1))·cos ωt.
		w := 2 * math.Sqrt(1000) * math.Sin(math.Pi/(2*(n+1)))
		worst := 0.0
		for i := 1; i <= n; i++ {
			x, _ := s.Value("m" + string(rune('0'+i)) + ".x")
			u := 0.01 * math.Sin(math.Pi*float64(i)/(n+1)) * math.Cos(w)
			worst = math.Max(worst, math.Abs(x[0]-float64(i)-u))
		}
		return worst
	}
	e1, e2 := errAt(400), errAt(800)
	if p := math.Log2(e1 / e2); !numtest.Within(p, 4, 0.2) {
		t.Errorf("observed order %.3f (errors %g, %g), want 4", p, e1, e2)
	}
}

// The ball bouncing on a table, integrated monolithically with event
// localization through the graph: impacts at the analytic times (h0 = 10
// m, e = 0.9, g = 9.81: t1 = √(2h0/g), then flights of 2·e^k·g·t1/g) to
// 1e-9, and the state at 10 s (h = 2.1006464 m, v = −6.5759398 m/s, the
// closed form) to 1e-7.
func TestIntegrateBallEvents(t *testing.T) {
	s := ballTable(t)
	res, err := s.Integrate(context.Background(), 10, integrators.DormandPrince{RTol: 1e-12, ATol: 1e-12, MaxStep: 5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t1 := math.Sqrt(2 * 10 / 9.81)
	want := []float64{t1}
	v := 9.81 * t1
	for k := 1; k < 4; k++ {
		v *= 0.9
		want = append(want, want[k-1]+2*v/9.81)
	}
	if len(res.Integrator.Events) != 4 {
		t.Fatalf("%d events, want 4", len(res.Integrator.Events))
	}
	for i, e := range res.Integrator.Events {
		if !numtest.Within(e.T, want[i], 1e-9) {
			t.Errorf("impact %d at %.10f, want %.10f", i+1, e.T, want[i])
		}
	}
	x, _ := s.Value("ball.position")
	vel, _ := s.Value("ball.velocity")
	if !numtest.Within(x[0], 2.1006464, 1e-7) || !numtest.Within(vel[0], -6.5759398, 1e-7) {
		t.Errorf("h(10) = %.8f, v(10) = %.8f; want 2.1006464, -6.5759398", x[0], vel[0])
	}
	if s.Time() != 10 {
		t.Errorf("time %v", s.Time())
	}
}

// Zeno guard through the graph: a ball that comes to rest (e = 0.5, the
// rest rule below 1e-4 m/s) ends at rest on the table without stalling
// the integrator: the bounces are finite (rebound speeds fall by e each
// time, from √(2g) until the rebound is below 1e-4) and the resting contact
// keeps it there.
func TestIntegrateBallComesToRest(t *testing.T) {
	p := ball.DefaultParams()
	p.InitialPosition, p.Elasticity = 1, 0.5
	b, _ := ball.New(p)
	tb, _ := table.New(table.DefaultParams())
	g := graph.New()
	g.Add("ball", b)
	g.Add("table", tb)
	g.Connect("table.position", "ball.table_position")
	s, _ := g.Build()
	res, err := s.Integrate(context.Background(), 5, integrators.DormandPrince{RTol: 1e-10, ATol: 1e-12}, nil)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := s.Value("ball.position")
	v, _ := s.Value("ball.velocity")
	if x[0] != 0 || v[0] != 0 {
		t.Errorf("final state %v, %v; want at rest on the table", x[0], v[0])
	}
	// Impacts: v_k = √(2g)·e^k; the last bounce is the first k with
	// e·v_k < 1e-4.
	want := int(math.Ceil(math.Log(1e-4/math.Sqrt(2*9.81)) / math.Log(0.5)))
	if n := len(res.Integrator.Events); n < want-1 || n > want+1 || res.Steps > 5000 {
		t.Errorf("%d impacts in %d steps; want about %d", n, res.Steps, want)
	}
}

// A RunMonolithic or Integrate after SetState (the state moved on
// without the kept stepper) re-initialises the stepper set aside when the
// method and options are the same, instead of allocating its stage
// vectors again, and steps exactly as a fresh Sim does: the states agree
// bit for bit with a Sim built anew and run once. A different method is
// a fresh stepper, with the same guarantee.
func TestMonolithicAfterSetStateReusesStepper(t *testing.T) {
	rk4, _ := integrators.ByName(integrators.MethodRK4)
	dp, _ := integrators.ByName(integrators.MethodDormandPrince)
	ctx := context.Background()
	set := graph.Settings{Dt: 1e-3, Steps: 40}
	fresh := func(run func(*graph.Sim)) []float64 {
		s, err := chain(2000).Build()
		if err != nil {
			t.Fatal(err)
		}
		run(s)
		return s.State(nil)
	}
	runRK4 := func(s *graph.Sim) {
		if _, err := s.RunMonolithic(ctx, rk4, nil, set); err != nil {
			t.Fatal(err)
		}
	}
	runDP := func(s *graph.Sim) {
		if _, err := s.RunMonolithic(ctx, dp, nil, set); err != nil {
			t.Fatal(err)
		}
	}
	integrate := func(s *graph.Sim) {
		if _, err := s.Integrate(ctx, 0.05, integrators.DormandPrince{RTol: 1e-8, ATol: 1e-10}, nil); err != nil {
			t.Fatal(err)
		}
	}
	s, err := chain(2000).Build()
	if err != nil {
		t.Fatal(err)
	}
	y0, t0 := s.State(nil), s.Time()
	for _, c := range []struct {
		name string
		run  func(*graph.Sim)
	}{{"rk4", runRK4}, {"rk4 again", runRK4}, {"dormand-prince", runDP}, {"integrate", integrate}, {"integrate again", integrate}, {"rk4 last", runRK4}} {
		if err := s.SetState(y0, t0); err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		c.run(s)
		runtime.ReadMemStats(&after)
		want := fresh(c.run)
		if got := s.State(nil); !slices.EqualFunc(got, want, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }) {
			t.Errorf("%s after SetState: the state differs from a fresh Sim's", c.name)
		}
		// A reused stepper allocates less than one state vector; a new
		// RK4 stepper allocates six (y, its next value, four stages).
		if c.name == "rk4 again" || c.name == "integrate again" {
			if grew := after.TotalAlloc - before.TotalAlloc; grew >= uint64(8*len(y0)) {
				t.Errorf("%s after SetState allocated %d bytes, want less than one state vector (%d): the stepper was not reused", c.name, grew, 8*len(y0))
			}
		}
	}
}
