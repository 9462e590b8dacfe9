package graph_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/ball"
	"github.com/cosimgo/cosim/nodes/masspoint"
	srcnodes "github.com/cosimgo/cosim/nodes/source"
	"github.com/cosimgo/cosim/nodes/springdamper"
	"github.com/cosimgo/cosim/nodes/table"
)

// sensTight is a tight adaptive integration: the Dormand–Prince
// tolerances and the event tolerance.
var (
	sensTightDP     = integrators.DormandPrince{RTol: 1e-12, ATol: 1e-12}
	sensTightEvents = &integrators.DriverOptions{EventTol: 1e-14}
)

// stepOnMass: a step force (0 before T = 0.5 s, [F, 0, 0] after) on a
// 2 kg mass at rest.
func stepOnMass(t *testing.T, F float64) *graph.Sim {
	t.Helper()
	st, err := srcnodes.NewStep(srcnodes.StepParams{Time: 0.5, Initial: []float64{0, 0, 0}, Final: []float64{F, 0, 0}, Units: "N"})
	if err != nil {
		t.Fatal(err)
	}
	mp, _ := masspoint.New(masspoint.Params{Mass: 2})
	g := graph.New()
	g.Add("f", st)
	g.Add("m", mp)
	g.Connect("f.value", "m.force")
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A step force's final value is differentiable: x(t) = F·(t − T)²/(2m)
// after the step, so ∂x(1)/∂F = 0.25/4 = 0.0625 and ∂v(1)/∂F = 0.5/2 =
// 0.25 (1e-9: the flight is polynomial, the step lands on the time
// event). Its switching time moves the time event: refused.
func TestSensitivitiesTimeEvents(t *testing.T) {
	s := stepOnMass(t, 3)
	res, err := s.Sensitivities(context.Background(), []string{"f.final[0]"}, &graph.SensitivityOptions{End: 1, Output: []float64{1}, Mode: graph.MonolithicAdaptive{Method: sensTightDP, Options: sensTightEvents}, Record: []string{"m.position[0]", "m.velocity[0]"}})
	if err != nil {
		t.Fatal(err)
	}
	dx, _ := res.At(0, "m.position[0]", "f.final[0]")
	dv, _ := res.At(0, "m.velocity[0]", "f.final[0]")
	if !numtest.Within(dx, 0.0625, 1e-9) || !numtest.Within(dv, 0.25, 1e-9) {
		t.Errorf("∂x/∂F = %v, ∂v/∂F = %v; want 0.0625, 0.25", dx, dv)
	}
	_, err = s.Sensitivities(context.Background(), []string{"f.time"}, &graph.SensitivityOptions{End: 1})
	if !errors.Is(err, graph.ErrNotDifferentiable) || !strings.Contains(err.Error(), "moves the time events") {
		t.Errorf("switching time: %v", err)
	}
	// Past the end, the switching time moves nothing: accepted (zero).
	res, err = s.Sensitivities(context.Background(), []string{"f.time"}, &graph.SensitivityOptions{End: 0.4, Output: []float64{0.4}})
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := res.At(0, "m.position[0]", "f.time"); d != 0 {
		t.Errorf("∂x/∂T before the step = %v", d)
	}
}

// oneSpring: a unit mass at x = 0.3 on a spring-damper to the ground.
func oneSpring(t *testing.T, k float64) *graph.Sim {
	t.Helper()
	mp, _ := masspoint.New(masspoint.Params{Mass: 1, InitialPosition: [3]float64{0.3, 0, 0}})
	g := graph.New()
	g.Add("m", mp)
	p := springdamper.DefaultParams()
	p.Stiffness, p.Damping = [3]float64{k, 0, 0}, [3]float64{0.2, 0, 0}
	if _, err := springdamper.Connect(g, "s", p, node.GroundAt([3]float64{}), node.Body("m")); err != nil {
		t.Fatal(err)
	}
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A recorded output (the connector's Force) is differentiated along S;
// checked against central differences of the recorded value between runs
// at k ± 1e-4·k (truncation ~1e-8 relative). The parameters and the
// Sim's state are as before the call, bit for bit.
func TestSensitivitiesOutputs(t *testing.T) {
	const k, T = 25.0, 0.9
	s := oneSpring(t, k)
	x0 := s.State(nil)
	opts := &graph.SensitivityOptions{End: T, Output: []float64{T}, Mode: graph.MonolithicAdaptive{Method: sensTightDP, Options: sensTightEvents}, Record: []string{"s.force[0]", "m.position[0]"}}
	res, err := s.Sensitivities(context.Background(), []string{"s.stiffness[0]"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := res.At(0, "s.force[0]", "s.stiffness[0]")
	val := func(k float64) float64 {
		r, err := oneSpring(t, k).Sensitivities(context.Background(), []string{"s.stiffness[0]"}, opts)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := r.Value(0, "s.force[0]")
		return v
	}
	h := 1e-4 * k
	want := (val(k+h) - val(k-h)) / (2 * h)
	if !numtest.Within(got, want, 1e-6*math.Abs(want)) {
		t.Errorf("∂Force/∂k = %.10g, differences %.10g", got, want)
	}
	nd, _ := s.Node("s")
	if v := nd.(*springdamper.Node).Params()["stiffness"].([]float64); v[0] != k || v[1] != 0 {
		t.Errorf("stiffness not restored: %v", v)
	}
	if x := s.State(nil); !equalBits(x, x0) || s.Time() != 0 {
		t.Errorf("state changed: %v → %v", x0, x)
	}
}

func equalBits(a, b []float64) bool {
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return len(a) == len(b)
}

// Without Output the history has a row at the start, at every step end,
// and two rows at each event (before and after the reset), and S jumps
// there by the saltation map: at fixed t just before the first contact
// (t* = √(2h/G)) v = −G·t, so ∂v/∂h = 0; just after, v⁺(t) = e·V₁ −
// G·(t − t*) with V₁ = √(2Gh), ∂V₁/∂h = G/V₁ and ∂t*/∂h = 1/V₁, so
// ∂v⁺/∂h = (1 + e)·G/V₁ (1e-9).
func TestSensitivitiesEventRows(t *testing.T) {
	const h, G = 1.0, 9.81
	s := sensBall(t, h, 0.8)
	res, err := s.Sensitivities(context.Background(), []string{"ball.initial_position"}, &graph.SensitivityOptions{End: 0.6, Mode: graph.MonolithicAdaptive{Method: sensTightDP, Options: sensTightEvents}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Times[0] != 0 || res.Times[len(res.Times)-1] != 0.6 || len(res.Events) != 1 {
		t.Fatalf("times %v, events %v", res.Times, res.Events)
	}
	i := -1
	for r := 1; r < len(res.Times); r++ {
		if res.Times[r] == res.Times[r-1] {
			i = r - 1
		}
	}
	if i < 0 || res.Times[i] != res.Events[0].T {
		t.Fatalf("no pair of rows at the event %v: %v", res.Events[0].T, res.Times)
	}
	vb, _ := res.Value(i, "ball.velocity")
	va, _ := res.Value(i+1, "ball.velocity")
	if !(vb < 0 && va > 0) {
		t.Errorf("velocities around the event: %v, %v", vb, va)
	}
	V1 := math.Sqrt(2 * G * h)
	db, _ := res.At(i, "ball.velocity", "ball.initial_position")
	da, _ := res.At(i+1, "ball.velocity", "ball.initial_position")
	if want := 1.8 * G / V1; !numtest.Within(db, 0, 1e-12) || !numtest.Within(da, want, 1e-9) {
		t.Errorf("∂v/∂h before %v (want 0), after %v (want %v)", db, da, want)
	}
}

func sensBall(t *testing.T, h, e float64) *graph.Sim {
	t.Helper()
	p := ball.DefaultParams()
	p.InitialPosition, p.Elasticity = h, e
	b, _ := ball.New(p)
	tb, _ := table.New(table.DefaultParams())
	g := graph.New()
	g.Add("ball", b)
	g.Add("table", tb)
	g.Connect("table.position", "ball.table_position")
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The table's height is a parameter of another node, reaching the ball's
// event and reset through its input: after one bounce at T = 0.8 (drop
// from 1, e = 0.8), x(T) = z + e·V₁·τ − Gτ²/2 with V₁ = √(2G(h − z)),
// τ = T − √(2(h − z)/G), so ∂x/∂z = 1 − ∂x/∂h|_{z=0}·1 = 1 − 0.5892…
// (the MADD-ANO-021 value), 1e-8.
func TestSensitivitiesThroughInputs(t *testing.T) {
	s := sensBall(t, 1, 0.8)
	res, err := s.Sensitivities(context.Background(), []string{"table.position", "ball.initial_position"}, &graph.SensitivityOptions{End: 0.8, Output: []float64{0.8}, Mode: graph.MonolithicAdaptive{Method: sensTightDP, Options: sensTightEvents}})
	if err != nil {
		t.Fatal(err)
	}
	dz, _ := res.At(0, "ball.position", "table.position")
	dh, _ := res.At(0, "ball.position", "ball.initial_position")
	if !numtest.Within(dh, 0.589201781010415, 1e-8) || !numtest.Within(dz, 1-0.589201781010415, 1e-8) {
		t.Errorf("∂x/∂z = %.12f, ∂x/∂h = %.12f", dz, dh)
	}
}

// Option errors and cancellation.
func TestSensitivitiesOptionErrors(t *testing.T) {
	s := sensBall(t, 1, 0.8)
	ctx := context.Background()
	ps := []string{"ball.elasticity"}
	for _, o := range []*graph.SensitivityOptions{
		nil,
		{End: 0},
		{End: 1, Output: []float64{0.5, 0.2}},
		{End: 1, Record: []string{"ball.nope"}},
	} {
		if _, err := s.Sensitivities(ctx, ps, o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	// The mode is chosen by SensitivityOptions.Mode alone; a setting the
	// mode cannot honour is an error naming it, before any step.
	rk4 := integrators.RK4{}
	for name, c := range map[string]struct {
		o    graph.SensitivityOptions
		want string
	}{
		"co-simulation":             {graph.SensitivityOptions{End: 1, Mode: graph.CoSimulation{}}, "co-simulation runs are not differentiated"},
		"an adaptive implicit":      {graph.SensitivityOptions{End: 1, Mode: graph.MonolithicAdaptive{Method: integrators.BDF{}}}, "MonolithicAdaptive.Method is bdf"},
		"Dt with an adaptive mode":  {graph.SensitivityOptions{End: 1, Dt: 0.01}, "Dt = 0.01 with an adaptive mode"},
		"adaptive Options.Output":   {graph.SensitivityOptions{End: 1, Mode: graph.MonolithicAdaptive{Options: &integrators.DriverOptions{Output: []float64{1}}}}, "give the sample times as SensitivityOptions.Output"},
		"fixed step without Dt":     {graph.SensitivityOptions{End: 1, Mode: graph.Monolithic{Method: rk4}}, "Dt 0 must be finite and positive"},
		"fixed step with Output":    {graph.SensitivityOptions{End: 1, Dt: 0.01, Output: []float64{1}, Mode: &graph.Monolithic{Method: rk4}}, "Output is set for the fixed-step method rk4"},
		"Monolithic without Method": {graph.SensitivityOptions{End: 1, Dt: 0.01, Mode: graph.Monolithic{}}, "Monolithic.Method is nil"},
		"negative RecordEvery":      {graph.SensitivityOptions{End: 1, RecordEvery: -1}, "RecordEvery = -1"},
	} {
		_, err := s.Sensitivities(ctx, ps, &c.o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want an error containing %q", name, err, c.want)
		}
		if co := name == "co-simulation"; co != errors.Is(err, graph.ErrNotDifferentiable) {
			t.Errorf("%s: errors.Is(err, ErrNotDifferentiable) = %v", name, !co)
		}
	}
	if _, err := s.Sensitivities(ctx, nil, &graph.SensitivityOptions{End: 1}); err == nil {
		t.Error("no parameters accepted")
	}
	if _, err := s.Sensitivities(ctx, []string{"ball.elasticity", "ball.elasticity"}, &graph.SensitivityOptions{End: 1}); err == nil {
		t.Error("a parameter twice accepted")
	}
	ran := sensBall(t, 1, 0.8)
	if _, err := ran.Integrate(ctx, 0.1, integrators.DormandPrince{}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := ran.Sensitivities(ctx, ps, &graph.SensitivityOptions{End: 1}); err == nil || !strings.Contains(err.Error(), "already run") {
		t.Errorf("after a run: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Sensitivities(cctx, ps, &graph.SensitivityOptions{End: 1}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// Initial sensitivities from InitialState (the masspoint has no analytic
// one: differenced over SetParams of vector components): a free mass has
// x(T) = x₀ + v₀·T, so ∂x(T)/∂x₀ = 1 and ∂x(T)/∂v₀ = T, exactly (1e-9);
// ∂x(T)/∂x₀[1] = 0 for the x component. Two runs give the same bits.
func TestSensitivitiesInitialState(t *testing.T) {
	mp, _ := masspoint.New(masspoint.Params{Mass: 1, InitialPosition: [3]float64{0.5, 2, 0}, InitialVelocity: [3]float64{1, 0, 0}})
	g := graph.New()
	g.Add("m", mp)
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	const T = 1.5
	ps := []string{"m.initial_position[0]", "m.initial_velocity[0]", "m.initial_position[1]"}
	run := func() *graph.Sensitivity {
		res, err := s.Sensitivities(context.Background(), ps, &graph.SensitivityOptions{End: T, Output: []float64{0, T}, Record: []string{"m.position[0]"}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := run()
	for i, want := range [][]float64{{1, 0, 0}, {1, T, 0}} {
		for j, p := range ps {
			if d, _ := res.At(i, "m.position[0]", p); !numtest.Within(d, want[j], 1e-9) {
				t.Errorf("t=%v ∂x/∂%s = %v, want %v", res.Times[i], p, d, want[j])
			}
		}
	}
	if got := res.Series("m.position[0]", "m.initial_velocity[0]"); len(got) != 2 || got[0] != 0 || !numtest.Within(got[1], T, 1e-9) {
		t.Errorf("Series = %v, want [0 %v]", got, T)
	}
	if res.Series("m.nope", "m.initial_velocity[0]") != nil {
		t.Error("Series of an unknown column")
	}
	again := run()
	for i := range res.D {
		if !equalBits(res.D[i], again.D[i]) || !equalBits(res.Values[i], again.Values[i]) {
			t.Errorf("row %d differs between identical runs", i)
		}
	}
}
