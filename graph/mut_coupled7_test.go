package graph_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
)

// ramp integrates x' = t exactly: x_{n+1} = x_n + t·dt + dt²/2 is the
// integral of t over [t, t+dt]. Its state after any sequence of steps
// that tiles [0, T] is T²/2, whatever the steps, provided each Update is
// given its true start time t.
type ramp struct{ spec *node.Spec }

func newRamp() *ramp {
	return &ramp{spec: node.NewSpec(node.Spec{
		Type:  "ramp",
		State: []node.Field{{Name: "x", Units: "s^2", Description: "integral of t"}},
	})}
}

func (n *ramp) Spec() *node.Spec           { return n.spec }
func (n *ramp) InitialState(dst []float64) { dst[0] = 0 }
func (n *ramp) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = x[0] + t*dt + dt*dt/2
	return nil
}

// tsource is a source whose output is the time it is evaluated at.
type tsource struct {
	node.Stateless
	spec *node.Spec
}

func newTSource() *tsource {
	return &tsource{spec: node.NewSpec(node.Spec{
		Type:    "tsource",
		Outputs: []node.Field{{Name: "t", Units: "1", Description: "time"}},
	})}
}

func (n *tsource) Spec() *node.Spec { return n.spec }
func (n *tsource) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = t
	return nil
}

// acc is x_{n+1} = x_n + dt·u (explicit Euler of x' = u, u held over the
// step), with an output y = x + off.
type acc struct {
	spec    *node.Spec
	x0, off float64
}

func newAcc(x0, off float64) *acc {
	return &acc{x0: x0, off: off, spec: node.NewSpec(node.Spec{
		Type:    "acc",
		State:   []node.Field{{Name: "x", Units: "1", Description: "accumulated"}},
		Inputs:  []node.Input{{Name: "u", Units: "1", Description: "rate", Combine: node.Replacing, Default: []float64{0}}},
		Outputs: []node.Field{{Name: "y", Units: "1", Description: "x + off"}},
	})}
}

func (n *acc) Spec() *node.Spec           { return n.spec }
func (n *acc) InitialState(dst []float64) { dst[0] = n.x0 }
func (n *acc) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = x[0] + dt*in.Values[0]
	return nil
}
func (n *acc) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = x[0] + n.off
	return nil
}

func cosimRun(t *testing.T, s *graph.Sim, st *coupling.Strategy, dt float64, steps int) *graph.Result {
	t.Helper()
	res, err := s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Coupling: st, AllowGrowth: true}, Dt: dt, Steps: steps})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func schedule(t *testing.T, s *graph.Sim, st *coupling.Strategy) string {
	t.Helper()
	sc, err := s.Schedule(st)
	if err != nil {
		t.Fatal(err)
	}
	return sc.String()
}

// Substeps start at t_n + j·h: a ramp subcycled at rate 2 (multirate
// Jacobi), alone in an iterated group at rate 2 (its group's slowest
// class), or in a group's faster class, ends at T²/2 exactly (dt = 0.25,
// h = 0.125: every term is a dyadic fraction, so the sums are exact).
func TestSubstepTimes(t *testing.T) {
	for _, st := range []*coupling.Strategy{
		{Rates: map[string]int{"r2": 2, "r3": 4}},
		{Scheme: coupling.Iterative, Rates: map[string]int{"r2": 2, "r3": 2},
			Groups: []coupling.Group{{Name: "g", Nodes: []string{"r1", "r2"}}, {Name: "h", Nodes: []string{"r3"}}}},
	} {
		g := graph.New()
		g.Add("r1", newRamp())
		g.Add("r2", newRamp())
		g.Add("r3", newRamp())
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		cosimRun(t, s, st, 0.25, 4)
		for i, x := range s.State(nil) {
			if x != 0.5 {
				t.Errorf("%s: ramp %d ends at %v, want T²/2 = 0.5", st, i+1, x)
			}
		}
	}
}

// Iterated groups read the outputs of nodes outside them at t_n: a node
// outside the groups subcycling at rate 2 re-evaluates its upstream
// sources at t_n + j·h, and runs after the groups, so that the group's
// member still reads the clock at t_n. The member a (explicit Euler of
// a' = t) ends at dt·Σ t_n = 0.25·(0 + 0.25 + 0.5 + 0.75) = 0.375; the
// subcycled b at h·Σ (t_n + j·h) = h²·(0 + 1 + … + 7) = 28/64; c, a rate-1
// group member, at 0.375 too. All exact (dyadic).
func TestGroupsReadOutsideOutputsAtStepStart(t *testing.T) {
	g := graph.New()
	g.Add("clk", newTSource())
	g.Add("a", newAcc(0, 0))
	g.Add("b", newAcc(0, 0))
	g.Add("c", newAcc(0, 0))
	for _, n := range []string{"a", "b", "c"} {
		g.Connect("clk.t", n+".u")
	}
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	st := &coupling.Strategy{Scheme: coupling.Iterative, Rates: map[string]int{"b": 2},
		Groups: []coupling.Group{{Name: "g", Nodes: []string{"a", "c"}}}}
	cosimRun(t, s, st, 0.25, 4)
	if got, want := s.State(nil), []float64{0.375, 28.0 / 64, 0.375}; maxDiff(got, want) != 0 {
		t.Errorf("state %v, want %v", got, want)
	}
	// With c outside the group at rate 1, c updates before the group
	// (it reads t_n values only) and b subcycles after it; g has no
	// interface (a reads only the clock), so its gather lists no input.
	st = &coupling.Strategy{Scheme: coupling.Iterative, Rates: map[string]int{"b": 2},
		Groups: []coupling.Group{{Name: "g", Nodes: []string{"a"}}}, Iteration: coupling.Iteration{Acceleration: coupling.Acceleration{Accel: coupling.Aitken}}}
	want := `step t_n → t_n+dt, iterative:aitken,group.g=a,rate.b=2
  1. outputs at t_n: clk, a, b, c
  2. update at t_n → t_n+dt: c (outside groups: inputs at t_n)
  3. iterate: a (group g, at most 50 iterations, first iterate constant)
     3.1. update at t_n → t_n+dt: a (from the t_n state; interface inputs held at the iterate u^k, other inputs at t_n)
     3.2. outputs at t_n+dt: a (from the trial state)
     3.3. gather (G(u^k); stop when |G(u)−u| ≤ atol + rtol·|G(u)|, else u^{k+1} by aitken)
  4. subcycle: b (outside groups; j = 0…1, h = dt/2; slower nodes held at t_n, faster nodes at t_n)
     4.1. outputs at t_n+j·h: clk
     4.2. update at t_n+j·h → t_n+(j+1)·h: b
`
	if got := schedule(t, s, st); got != want {
		t.Errorf("schedule:\n%s\nwant:\n%s", got, want)
	}
}

// The schedule of an iterated group whose slowest class subcycles names
// its substeps j = 0…rate−1 with h = dt/rate; a graph without state has
// no update stage; an empty stage of a Gauss–Seidel order is no stage.
func TestScheduleEdgeCases(t *testing.T) {
	g := graph.New()
	g.Add("r2", newRamp())
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	st := &coupling.Strategy{Scheme: coupling.Iterative, Rates: map[string]int{"r2": 3},
		Groups: []coupling.Group{{Name: "g", Nodes: []string{"r2"}}}, Iteration: coupling.Iteration{Acceleration: coupling.Acceleration{Accel: coupling.Aitken}}}
	if got, want := schedule(t, s, st), "     1.1. subcycle: r2 (j = 0…2, h = dt/3, from the t_n state; interface inputs held at the iterate u^k, other inputs at t_n)\n"; !strings.Contains(got, want) {
		t.Errorf("schedule:\n%s\nwant it to contain:\n%s", got, want)
	}

	g = graph.New()
	g.Add("clk", newTSource())
	s, err = g.Build()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := schedule(t, s, nil), "step t_n → t_n+dt, jacobi (default)\n  1. outputs at t_n: clk\n"; got != want {
		t.Errorf("schedule of a graph without state:\n%s\nwant:\n%s", got, want)
	}

	s = moderate.sim(t)
	with := schedule(t, s, &coupling.Strategy{Scheme: coupling.GaussSeidel, Order: [][]string{{"a"}, {}, {"b"}}})
	without := schedule(t, s, &coupling.Strategy{Scheme: coupling.GaussSeidel, Order: [][]string{{"a"}, {"b"}}})
	if _, w, _ := strings.Cut(with, "\n"); !strings.HasSuffix(without, w) {
		t.Errorf("an empty stage changes the schedule:\n%s\nwant the stages of:\n%s", with, without)
	}
}

// Under Gauss–Seidel an output node updated by an earlier stage is
// re-evaluated at t_{n+1} = t0 + (n+1)·dt, the time from the step count
// (the time the next step starts at), bit for bit: q sums dt·y of the
// timer's output, so it ends at Σ dt·((n+1)·dt) computed the same way.
// With dt = 0.1, t_n + dt differs from (n+1)·dt in the last bit for
// several n (0.7 + 0.1 = 0.7999999999999999).
func TestGaussSeidelEndOfStepTime(t *testing.T) {
	g := graph.New()
	g.Add("tm", newTimer())
	g.Add("q", newAcc(0, 0))
	g.Connect("tm.t", "q.u")
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	st := &coupling.Strategy{Scheme: coupling.GaussSeidel, Order: [][]string{{"tm"}, {"q"}}}
	want := `step t_n → t_n+dt, gauss-seidel,order=tm/q
  1. outputs at t_n: tm, q
  2. update at t_n → t_n+dt: tm (stage 1, reads t_n state)
  3. outputs at t_n+dt: tm (re-evaluated from their own state updated by stages 1–1)
  4. update at t_n → t_n+dt: q (stage 2, reads the state updated by stages 1–1)
`
	if got := schedule(t, s, st); got != want {
		t.Errorf("schedule:\n%s\nwant:\n%s", got, want)
	}
	const dt, steps = 0.1, 20
	cosimRun(t, s, st, dt, steps)
	sum := 0.0
	for n := range steps {
		sum += dt * (float64(n+1) * dt)
	}
	if got := s.State(nil)[1]; got != sum {
		t.Errorf("q = %v, want %v", got, sum)
	}
}

// timer is a stateful node (its state stays 0) whose output is the time
// it is evaluated at.
type timer struct{ spec *node.Spec }

func newTimer() *timer {
	return &timer{spec: node.NewSpec(node.Spec{
		Type:    "timer",
		State:   []node.Field{{Name: "z", Units: "1", Description: "unused"}},
		Outputs: []node.Field{{Name: "t", Units: "1", Description: "time"}},
	})}
}

func (n *timer) Spec() *node.Spec           { return n.spec }
func (n *timer) InitialState(dst []float64) { dst[0] = 0 }
func (n *timer) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = x[0]
	return nil
}
func (n *timer) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = t
	return nil
}

// An iterated group whose members read each other's state (not an
// output) iterates both inputs: Interface 2, and the step converges to
// the implicit coupling a1 = a0 + dt·b1, b1 = b0 + dt·a1, whose solution
// is a1 = (a0 + dt·b0)/(1 − dt²), b1 = (b0 + dt·a0)/(1 − dt²) = 4/3, 2/3
// for a0 = 1, b0 = 0, dt = 0.5 (to the iteration's tolerance, 1e-12 here).
// A stateless node comes first and an unrelated stateful one last, so
// that the owner of each state value must be found exactly.
func TestGroupInterfaceFromState(t *testing.T) {
	g := graph.New()
	g.Add("clk", newTSource())
	g.Add("a", newAcc(1, 0))
	g.Add("b", newAcc(0, 0))
	g.Add("c", newAcc(0, 0))
	g.Connect("b.x", "a.u")
	g.Connect("a.x", "b.u")
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	st := &coupling.Strategy{Scheme: coupling.Iterative, Groups: []coupling.Group{{Name: "g", Nodes: []string{"a", "b"}}},
		Iteration: coupling.Iteration{Acceleration: coupling.Acceleration{Accel: coupling.Aitken}, ATol: 1e-14, RTol: 1e-14, MaxIter: 200}}
	res := cosimRun(t, s, st, 0.5, 1)
	if n := res.Coupling.Groups[0].Interface; n != 2 {
		t.Errorf("interface %d, want 2 (a.u and b.u)", n)
	}
	x := s.State(nil)
	if math.Abs(x[0]-4.0/3) > 1e-12 || math.Abs(x[1]-2.0/3) > 1e-12 {
		t.Errorf("a, b = %v, %v; want 4/3, 2/3", x[0], x[1])
	}
}

// plus1 is a feedthrough node y = u + 1.
type plus1 struct {
	node.Stateless
	spec *node.Spec
}

func newPlus1() *plus1 {
	return &plus1{spec: node.NewSpec(node.Spec{
		Type:        "plus1",
		Inputs:      []node.Input{{Name: "u", Units: "1", Description: "in", Combine: node.Replacing, Default: []float64{0}}},
		Outputs:     []node.Field{{Name: "y", Units: "1", Description: "u + 1"}},
		Feedthrough: true,
	})}
}

func (n *plus1) Spec() *node.Spec { return n.spec }
func (n *plus1) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = in.Values[0] + 1
	return nil
}

// GroupStats.Fallbacks counts the IQN-ILS fallbacks of the Run it is
// reported by, not those of earlier Runs that the kept accelerator
// memory has seen. The group's G(u) = x_n + dt·u + 1 with dt = 1 has
// slope 1: the residual G(u) − u is the same at every iterate (exactly:
// the values are small dyadic numbers), so the secant column is zero,
// filtered out, and every iteration after the first falls back to
// relaxation: MaxIter = 3 gives one fallback per step.
func TestGroupFallbacksPerRun(t *testing.T) {
	g := graph.New()
	g.Add("a", newAcc(0, 0))
	g.Add("p", newPlus1())
	g.Connect("a.x", "p.u")
	g.Connect("p.y", "a.u")
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	st := &coupling.Strategy{Scheme: coupling.Iterative, Iteration: coupling.Iteration{
		Acceleration: coupling.Acceleration{Accel: coupling.IQNILS}, MaxIter: 3, OnFail: coupling.Accept}}
	for run := range 2 {
		res := cosimRun(t, s, st, 1, 2)
		if f := res.Coupling.Groups[0].Fallbacks; f != 2 {
			t.Errorf("run %d: %d fallbacks, want 2 (one in each of its 2 steps)", run+1, f)
		}
	}
}

// An iterated group without a stateful member (a connector alone) has
// nothing to iterate: it steps as the plain Jacobi step does, bit for
// bit, with an empty interface.
func TestGroupWithoutState(t *testing.T) {
	ref := moderate.sim(t)
	runStrategy(t, ref, nil, 0.01, 10, 1)
	s := moderate.sim(t)
	res := runStrategy(t, s, &coupling.Strategy{Scheme: coupling.Iterative, Groups: []coupling.Group{{Name: "g", Nodes: []string{"s"}}}}, 0.01, 10, 1)
	if got, want := s.State(nil), ref.State(nil); maxDiff(got, want) != 0 {
		t.Errorf("state %v, want the Jacobi step's %v", got, want)
	}
	if gs := res.Coupling.Groups[0]; gs.Interface != 0 {
		t.Errorf("interface %d, want 0", gs.Interface)
	}
}

// A coupling checkpoint whose group memory holds a value that is not
// finite is refused, whichever interface value it is (here the first).
func TestRestoreNonFiniteGroupMemory(t *testing.T) {
	s := moderate.sim(t)
	st := &coupling.Strategy{Scheme: coupling.Iterative, Iteration: coupling.Iteration{Predictor: coupling.LinearPredictor}}
	runStrategy(t, s, st, 0.01, 3, 1)
	c := s.Checkpoint()
	if c.Coupling == nil || len(c.Coupling.Groups) != 1 || len(c.Coupling.Groups[0].Prev) == 0 {
		t.Fatalf("coupling checkpoint %+v: want one group with its interface memory", c.Coupling)
	}
	c.Coupling.Groups[0].Prev[0] = math.NaN()
	var me *graph.MismatchError
	if err := s.Restore(c); !errors.As(err, &me) || !strings.Contains(err.Error(), "interface value 0 is not finite") {
		t.Errorf("Restore: %v, want a *MismatchError naming interface value 0", err)
	}
}

// jump7 is a stateful node with a scalar input k (unused) and a 2-vector
// output y = [0, x]; its Update sets x to 1e308.
type jump7 struct{ spec *node.Spec }

func newJump7() *jump7 {
	return &jump7{spec: node.NewSpec(node.Spec{
		Type:    "jump7",
		State:   []node.Field{{Name: "x", Units: "1", Description: "jumps to 1e308"}},
		Inputs:  []node.Input{{Name: "k", Units: "1", Description: "unused", Combine: node.Replacing, Default: []float64{0}}},
		Outputs: []node.Field{{Name: "y", Shape: node.Vec(2), Units: "1", Description: "[0, x]"}},
	})}
}

func (n *jump7) Spec() *node.Spec           { return n.spec }
func (n *jump7) InitialState(dst []float64) { dst[0] = 0 }
func (n *jump7) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = 1e308
	return nil
}
func (n *jump7) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0], dst[1] = 0, x[0]
	return nil
}

// vsum2 is a stateful node with an additive 2-vector input u.
type vsum2 struct{ spec *node.Spec }

func newVSum2() *vsum2 {
	return &vsum2{spec: node.NewSpec(node.Spec{
		Type:   "vsum2",
		State:  []node.Field{{Name: "x", Units: "1", Description: "x + dt·(u0 + u1)"}},
		Inputs: []node.Input{{Name: "u", Shape: node.Vec(2), Units: "1", Description: "rates", Combine: node.Additive, Default: []float64{0, 0}}},
	})}
}

func (n *vsum2) Spec() *node.Spec           { return n.spec }
func (n *vsum2) InitialState(dst []float64) { dst[0] = 0 }
func (n *vsum2) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = x[0] + dt*(in.Values[0]+in.Values[1])
	return nil
}

// An interface input that stops being finite when the group gathers it
// at the trial state is an error naming the node and the input
// component: v.u = w.y + src.value is [0, 1e308] at t_0, and
// [0, 1e308 + 1e308 = +Inf] at the trial state, so the error names
// input u[1] of v (whose inputs do not start the input buffer: w's k
// comes first).
func TestGroupInterfaceNonFiniteNamesComponent(t *testing.T) {
	g := graph.New()
	g.Add("w", newJump7())
	g.Add("v", newVSum2())
	g.Add("src", newSource("1", 0, 1e308))
	g.Connect("w.y", "v.u")
	g.Connect("src.value", "v.u")
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	st := &coupling.Strategy{Scheme: coupling.Iterative, Groups: []coupling.Group{{Name: "g", Nodes: []string{"v", "w"}}}}
	_, err = s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Coupling: st, AllowGrowth: true}, Dt: 0.5, Steps: 1})
	var se *node.StateError
	if !errors.As(err, &se) || !errors.Is(err, node.ErrNonFinite) || se.Node != "v" || se.Field != "input u[1]" {
		t.Errorf("Run: %v, want a non-finite StateError naming node v, input u[1]", err)
	}
}
