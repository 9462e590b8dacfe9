package graph_test

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/control"
	"github.com/cosimgo/cosim/nodes/masspoint"
	srcnodes "github.com/cosimgo/cosim/nodes/source"
)

// Helpers for loop graphs built from the control blocks.

func lgain(t testing.TB, k float64, size int, in, out string) node.Node {
	t.Helper()
	n, err := control.NewGain(control.GainParams{Size: size, Gain: []float64{k}, InputUnits: in, OutputUnits: out})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func lsum(t testing.TB, signs string, size int, units string) node.Node {
	t.Helper()
	n, err := control.NewSum(control.SumParams{Signs: signs, Size: size, Units: units})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func lconst(t testing.TB, v []float64, units string) node.Node {
	t.Helper()
	n, err := srcnodes.NewStep(srcnodes.StepParams{Time: 0, Initial: v, Final: v, Units: units})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func value(t testing.TB, s *graph.Sim, f string) float64 {
	t.Helper()
	v, err := s.Value(f)
	if err != nil {
		t.Fatal(err)
	}
	return v[0]
}

// gainLoop is y = u + a·y: sum.out = ref + gain.out, gain.out = a·sum.out.
func gainLoop(t testing.TB, u, a float64) *graph.Graph {
	g := graph.New()
	g.Add("ref", lconst(t, []float64{u}, "1"))
	g.Add("sum", lsum(t, "++", 1, "1"))
	g.Add("gain", lgain(t, a, 1, "1", "1"))
	g.Connect("ref.value", "sum.in1")
	g.Connect("sum.out", "gain.in")
	g.Connect("gain.out", "sum.in2")
	return g
}

// The gain loop against its closed form y = u/(1−a): Newton on the
// analytic loop Jacobian (Gain and Sum have OutputsJacobian) is exact for
// a linear loop, so the tolerance is a few ulps of y. a = 2 and a = −3
// make the plain fixed-point iteration diverge; Newton does not care.
func TestLoopGainClosedForm(t *testing.T) {
	for _, a := range []float64{0.5, 0.9, -3, 2, 0.999} {
		s, err := gainLoop(t, 2, a).Build()
		if err != nil {
			t.Fatal(err)
		}
		want := 2 / (1 - a)
		if got := value(t, s, "sum.out"); !numtest.Within(got, want, 4e-16*math.Abs(want)*8) {
			t.Errorf("a=%v: y = %.17g, want u/(1−a) = %.17g", a, got, want)
		}
		if got := value(t, s, "gain.out"); !numtest.Within(got, a*want, 1e-14*math.Abs(a*want)) {
			t.Errorf("a=%v: gain.out = %.17g, want a·y = %.17g", a, got, a*want)
		}
		loops := s.Loops()
		if l := loops[0]; l.String() != "loop through sum, gain (tear: sum.out)" || l.Iterations != l.Solves {
			t.Errorf("a=%v: %v: %d iterations in %d solves, want one per solve", a, l, l.Iterations, l.Solves)
		}
		if len(loops) != 1 || strings.Join(loops[0].Members, ",") != "sum,gain" || len(loops[0].Tear) != 1 || !loops[0].Analytic {
			t.Errorf("a=%v: Loops() = %+v, want one analytic loop through sum, gain with one tear variable", a, loops)
		}
	}
}

// Without the blocks' OutputsJacobian (an edge with a transform inside
// the loop forces differences) the loop still converges to the closed
// form, to the loop tolerance.
func TestLoopFiniteDifferenceJacobian(t *testing.T) {
	g := graph.New()
	g.Add("ref", lconst(t, []float64{3}, "1"))
	g.Add("sum", lsum(t, "++", 1, "1"))
	g.Add("gain", lgain(t, 1, 1, "1", "1"))
	g.Connect("ref.value", "sum.in1")
	g.Connect("sum.out", "gain.in")
	// a = 0.25 · 1 through a Scale transform.
	g.Connect("gain.out", "sum.in2", graph.Via(graph.Scale{Factor: 0.25}))
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	if l := s.Loops()[0]; l.Analytic || l.ChainRule {
		t.Fatal("a loop with a transform inside claims the chain rule")
	}
	want := 3 / (1 - 0.25)
	if got := value(t, s, "sum.out"); !numtest.Within(got, want, graph.DefaultLoopRelTol*want) {
		t.Errorf("y = %.17g, want %.17g (within the loop's RelTol)", got, want)
	}
}

// A resistive ladder: a source Vs through R1 to node 1, R4 from node 1
// to ground, R2 from node 1 to node 2, R3 from node 2 to ground. Written
// as blocks, the currents and voltages form one loop with two cycles:
//
//	i1 = (Vs − v1)/R1,  i2 = (v1 − v2)/R2,  v2 = R3·i2,  v1 = R4·(i1 − i2).
//
// Closed form: v1 = Vs·Rp/(R1 + Rp), Rp = R4 ∥ (R2 + R3), and the
// divider v2 = v1·R3/(R2 + R3). Tolerance: 1e-13 relative (a linear loop,
// solved by Newton in one step up to the rounding of the LU).
func TestLoopResistiveDivider(t *testing.T) {
	const Vs, R1, R2, R3, R4 = 10.0, 100.0, 220.0, 330.0, 470.0
	g := graph.New()
	g.Add("vs", lconst(t, []float64{Vs}, "V"))
	addLadder(t, g, "vs.value", R1, R2, R3, R4)
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	Rp := 1 / (1/R4 + 1/(R2+R3))
	v1 := Vs * Rp / (R1 + Rp)
	v2 := v1 * R3 / (R2 + R3)
	for _, c := range []struct {
		f    string
		want float64
	}{{"r4.out", v1}, {"r3.out", v2}, {"r1.out", (Vs - v1) / R1}, {"r2.out", (v1 - v2) / R2}} {
		if got := value(t, s, c.f); !numtest.Within(got, c.want, 1e-13*math.Abs(c.want)) {
			t.Errorf("%s = %.17g, want %.17g", c.f, got, c.want)
		}
	}
	loops := s.Loops()
	// Three cycles (d1 r1 kcl r4, d2 r2 kcl r4, d2 r2 r3): no single node
	// is on all of them, so two tear nodes is the minimum; the greedy
	// choice tears d2 (on two cycles, first in node order among the
	// equals) and then d1.
	if len(loops) != 1 || len(loops[0].Members) != 7 || strings.Join(loops[0].TearNodes, ",") != "d1,d2" || !loops[0].Analytic {
		t.Errorf("Loops() = %+v, want one analytic loop of 7 members torn at d1 and d2", loops)
	}
	// Newton with the analytic matrix solves a linear loop in one
	// iteration (the second residual is within tolerance).
	if l := loops[0]; l.Iterations != l.Solves {
		t.Errorf("%d iterations in %d solves, want one per solve", l.Iterations, l.Solves)
	}
}

// addLadder adds the ladder of TestLoopResistiveDivider, its source
// voltage read from vs: blocks d1, r1, d2, r2, r3, kcl, r4, the current
// through R1 at r1.out.
func addLadder(t testing.TB, g *graph.Graph, vs string, R1, R2, R3, R4 float64) {
	g.Add("d1", lsum(t, "+-", 1, "V"))
	g.Add("r1", lgain(t, 1/R1, 1, "V", "A"))
	g.Add("d2", lsum(t, "+-", 1, "V"))
	g.Add("r2", lgain(t, 1/R2, 1, "V", "A"))
	g.Add("r3", lgain(t, R3, 1, "A", "V"))
	g.Add("kcl", lsum(t, "+-", 1, "A"))
	g.Add("r4", lgain(t, R4, 1, "A", "V"))
	g.Connect(vs, "d1.in1")
	g.Connect("r4.out", "d1.in2")
	g.Connect("d1.out", "r1.in")
	g.Connect("r4.out", "d2.in1")
	g.Connect("r3.out", "d2.in2")
	g.Connect("d2.out", "r2.in")
	g.Connect("r2.out", "r3.in")
	g.Connect("r1.out", "kcl.in1")
	g.Connect("r2.out", "kcl.in2")
	g.Connect("kcl.out", "r4.in")
}

// massLoop is a unit mass held at ref = 1 m by a feedthrough controller
// whose output u reads itself: u = Kp·(r − x) − Kd·v − β·u, a stiff loop
// for β = 1e3. flat is the same model without the loop: u = (Kp·(r − x)
// − Kd·v)/(1 + β).
func massLoop(t testing.TB, flat bool) *graph.Graph {
	const Kp, Kd, beta = 400.0, 20.0, 1e3
	g := graph.New()
	m, err := masspoint.New(masspoint.Params{Mass: 1, InitialVelocity: [3]float64{0.5, 0, -0.25}})
	if err != nil {
		t.Fatal(err)
	}
	g.Add("mass", m)
	g.Add("ref", lconst(t, []float64{1, 0, 2}, "m"))
	g.Add("err", lsum(t, "+-", 3, "m"))
	g.Connect("ref.value", "err.in1")
	g.Connect("mass.position", "err.in2")
	scale := 1.0
	if flat {
		scale = 1 / (1 + beta)
	}
	g.Add("kp", lgain(t, Kp*scale, 3, "m", "N"))
	g.Add("kd", lgain(t, -Kd*scale, 3, "m/s", "N"))
	g.Connect("err.out", "kp.in")
	g.Connect("mass.velocity", "kd.in")
	if flat {
		g.Add("u", lsum(t, "++", 3, "N"))
	} else {
		g.Add("u", lsum(t, "++-", 3, "N"))
		g.Add("beta", lgain(t, beta, 3, "N", "N"))
		g.Connect("u.out", "beta.in")
		g.Connect("beta.out", "u.in3")
	}
	g.Connect("kp.out", "u.in1")
	g.Connect("kd.out", "u.in2")
	g.Connect("u.out", "mass.force")
	return g
}

func mustBuild(t testing.TB, g *graph.Graph) *graph.Sim {
	t.Helper()
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The mass through the stiff loop against the same model reformulated
// without it, in co-simulation under every coupling strategy and in
// monolithic runs (explicit RK4; implicit BDF and backward Euler, whose
// Newton matrix goes through the loop by the implicit-function theorem). The two
// models compute the same numbers up to the loop's solve (exact for this
// linear loop up to rounding) and the reordering of u's terms, so the
// tolerance is 1e-9 relative over the run (rounding grown over steps), far
// below the models' own error.
func TestLoopMassMatchesFlatModel(t *testing.T) {
	strategies := []string{"jacobi", "gauss-seidel", "iterative", "relaxation", "aitken", "iqn-ils", "jacobi,rate.mass=4", "jacobi,rate.mass=4,interp=linear", "iterative,predictor=linear", "iterative,onfail=accept"}
	type run struct {
		name string
		set  graph.Settings
	}
	var runs []run
	for _, name := range strategies {
		st, err := coupling.ParseStrategy(name)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, run{"cosim " + name, graph.Settings{Dt: 1e-3, Steps: 500, Mode: graph.CoSimulation{Coupling: &st}}})
	}
	runs = append(runs,
		run{"rk4", graph.Settings{Dt: 1e-3, Steps: 500, Mode: graph.Monolithic{Method: integrators.RK4{}}}},
		run{"backward euler", graph.Settings{Dt: 1e-3, Steps: 500, Mode: graph.Monolithic{Method: integrators.BackwardEuler{}}}},
		run{"bdf", graph.Settings{End: 0.5, Mode: graph.MonolithicAdaptive{Method: integrators.BDF{RTol: 1e-8, ATol: 1e-10}}}},
	)
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			var got [2][]float64
			for k, flat := range []bool{false, true} {
				s := mustBuild(t, massLoop(t, flat))
				if _, err := s.Run(context.Background(), r.set); err != nil {
					t.Fatal(err)
				}
				got[k] = s.State(nil)
			}
			for i := range got[0] {
				if !numtest.Within(got[0][i], got[1][i], 1e-9*math.Max(1, math.Abs(got[1][i]))) {
					t.Errorf("state[%d]: loop %.17g, flat %.17g", i, got[0][i], got[1][i])
				}
			}
		})
	}
}

// Sensitivities through the loop with respect to a parameter outside it:
// ∂x/∂Kp of the loop model against the flat model's ∂x/∂Kp', Kp' =
// Kp/(1 + β), so ∂x/∂Kp = ∂x/∂Kp'/(1 + β). ∂f/∂y through the loop is
// exact (TestLoopSensitivitiesExact); ∂f/∂Kp is differenced in both
// models (the gain has no parameter Jacobian; central, h = 1e-6·Kp),
// the loop frozen at its solution and moved along its tangent
// (loop_sensitivity.go): the rounding of f over h, about 1e-10
// relative, bounds the agreement, as it bounds any differenced
// parameter. 2e-9 relative.
func TestLoopSensitivities(t *testing.T) {
	var got [2]float64
	for k, flat := range []bool{false, true} {
		s := mustBuild(t, massLoop(t, flat))
		res, err := s.Sensitivities(context.Background(), []string{"kp.gain[0]"}, &graph.SensitivityOptions{End: 0.5, Dt: 1e-3, Mode: graph.Monolithic{Method: integrators.RK4{}}, Record: []string{"mass.position[0]"}})
		if err != nil {
			t.Fatal(err)
		}
		ser := res.Series("mass.position[0]", "kp.gain[0]")
		got[k] = ser[len(ser)-1]
	}
	want := got[1] / (1 + 1e3)
	if !numtest.Within(got[0], want, 2e-9*math.Abs(want)) || want == 0 {
		t.Errorf("∂x/∂Kp = %.12g through the loop, %.12g from the flat model", got[0], want)
	}
}

// Same bits for any worker count.
func TestLoopDeterminism(t *testing.T) {
	var ref []float64
	for _, w := range []int{1, 2, 3, 8} {
		s := mustBuild(t, massLoop(t, false))
		if _, err := s.Run(context.Background(), graph.Settings{Dt: 1e-3, Steps: 200, Mode: graph.CoSimulation{Workers: w, Grain: 1}}); err != nil {
			t.Fatal(err)
		}
		x := s.State(nil)
		if ref == nil {
			ref = x
			continue
		}
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(ref[i]) {
				t.Fatalf("workers=%d: state[%d] = %v, one worker %v", w, i, x[i], ref[i])
			}
		}
	}
}

// y = u + y has no solution: Newton meets a singular matrix, the
// fixed-point fallback diverges, and the run fails naming the loop, its
// members, the residual and the time, leaving the state at the last step.
// A coupling strategy's own failure policy does not reach the loop: with
// onfail=accept (which accepts a group iteration that does not converge)
// the unsolved loop is still an error, in co-simulation and in a
// monolithic run alike.
func TestLoopNotConverged(t *testing.T) {
	modes := []struct {
		name string
		mode graph.Mode
	}{
		{"default", nil},
		{"iterative,onfail=accept", nil},
		{"gauss-seidel", nil},
		{"rk4", graph.Monolithic{Method: integrators.RK4{}}},
	}
	for _, md := range modes {
		t.Run(md.name, func(t *testing.T) {
			g := gainLoop(t, 2, 1)
			m, _ := masspoint.New(masspoint.Params{Mass: 1})
			g.Add("mass", m)
			s := mustBuild(t, g)
			set := graph.Settings{Dt: 0.01, Steps: 3, Mode: md.mode}
			if md.mode == nil && md.name != "default" {
				st, err := coupling.ParseStrategy(md.name)
				if err != nil {
					t.Fatal(err)
				}
				set.Mode = graph.CoSimulation{Coupling: &st}
			}
			res, err := s.Run(context.Background(), set)
			if !errors.Is(err, graph.ErrLoopNotConverged) {
				t.Fatalf("error %v, want ErrLoopNotConverged", err)
			}
			var le *graph.LoopSolveError
			if !errors.As(err, &le) || strings.Join(le.Members, ",") != "sum,gain" || le.Time != 0 || !(le.Residual > 0) {
				t.Fatalf("LoopSolveError %+v", le)
			}
			for _, w := range []string{"sum, gain", "t=0", "residual 2 in sum.out"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message %q lacks %q", err.Error(), w)
				}
			}
			if res == nil || res.Steps != 0 {
				t.Errorf("result %+v, want no step taken", res)
			}
		})
	}
}

// Refuse keeps Build's old answer: a *LoopError listing the members.
func TestLoopRefused(t *testing.T) {
	g := gainLoop(t, 1, 0.5)
	g.SetLoopSettings(graph.LoopSettings{Refuse: true})
	_, err := g.Build()
	var le *graph.LoopError
	if !errors.As(err, &le) || strings.Join(le.Members, ",") != "gain,sum" {
		t.Fatalf("Build error %v, want a LoopError through gain, sum", err)
	}
	g = gainLoop(t, 1, 0.5)
	g.SetLoopSettings(graph.LoopSettings{RelTol: -1})
	if _, err := g.Build(); err == nil || !strings.Contains(err.Error(), "RelTol") {
		t.Fatalf("Build with RelTol −1: %v", err)
	}
}

// Settings.Loops replaces the tolerances for one run: a MaxIter of 1
// with MaxFallbackIter 1 cannot solve a nonlinear-free but fallback-bound
// loop (a = 2, where the fixed point diverges), after which the Build
// settings apply again.
func TestLoopRunSettings(t *testing.T) {
	g := gainLoop(t, 2, 0.5)
	m, _ := masspoint.New(masspoint.Params{Mass: 1})
	g.Add("mass", m)
	s := mustBuild(t, g)
	if _, err := s.Run(context.Background(), graph.Settings{Dt: 0.01, Steps: 1, Loops: &graph.LoopSettings{AbsTol: math.NaN()}}); err == nil {
		t.Fatal("a NaN AbsTol was accepted")
	}
	if _, err := s.Run(context.Background(), graph.Settings{Dt: 0.01, Steps: 1, Loops: &graph.LoopSettings{Refuse: true}}); err == nil {
		t.Fatal("Settings.Loops.Refuse was accepted")
	}
	if _, err := s.Run(context.Background(), graph.Settings{Dt: 0.01, Steps: 2, Loops: &graph.LoopSettings{RelTol: 1e-6}}); err != nil {
		t.Fatal(err)
	}
	if l := s.Loops()[0]; l.Solves == 0 || l.Iterations == 0 || l.Fallbacks != 0 {
		t.Errorf("loop statistics %+v", l)
	}
}

// The loop solve allocates nothing per step.
func TestLoopStepAllocs(t *testing.T) {
	s := mustBuild(t, massLoop(t, false))
	if n := numtest.AllocsPerRun(50, func() {
		if err := s.Step(1e-3); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("Step allocates %v times", n)
	}
	g := graph.New()
	g.Add("ref", lconst(t, []float64{3}, "1"))
	g.Add("sum", lsum(t, "++", 1, "1"))
	g.Add("gain", lgain(t, 1, 1, "1", "1"))
	g.Add("mass", func() node.Node { m, _ := masspoint.New(masspoint.Params{Mass: 1}); return m }())
	g.Connect("ref.value", "sum.in1")
	g.Connect("sum.out", "gain.in")
	g.Connect("gain.out", "sum.in2", graph.Via(graph.Scale{Factor: 0.25}))
	s = mustBuild(t, g)
	if n := numtest.AllocsPerRun(50, func() {
		if err := s.Step(1e-3); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("Step with a differenced loop Jacobian allocates %v times", n)
	}
	g = graph.New()
	g.Add("ref", lconst(t, []float64{2}, "1"))
	g.Add("sum", lsum(t, "+-", 1, "1"))
	g.Add("cube", newCubic())
	g.Add("mass", func() node.Node { m, _ := masspoint.New(masspoint.Params{Mass: 1}); return m }())
	g.Connect("ref.value", "sum.in1")
	g.Connect("cube.out", "sum.in2")
	g.Connect("sum.out", "cube.in")
	s = mustBuild(t, g)
	if n := numtest.AllocsPerRun(50, func() {
		if err := s.Step(1e-3); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("Step with a locally differenced member allocates %v times", n)
	}
}

// BenchmarkLoopStep is one co-simulation step of the mass through the
// stiff loop (three tear variables, analytic Newton matrix).
func BenchmarkLoopStep(b *testing.B) {
	s := mustBuild(b, massLoop(b, false))
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Step(1e-3); err != nil {
			b.Fatal(err)
		}
	}
}

// A nonlinear loop: y = u − y³ through a product block (in1·in2·in3, all
// reading y). For u = 2 the real root is y = 1 (y³ + y − 2 =
// (y − 1)(y² + y + 2)); Newton from zero reaches it, to the loop's
// tolerance (1e-10 relative, and quadratic convergence puts it far below).
func TestLoopNonlinearClosedForm(t *testing.T) {
	g := cubicLoop(t, graph.LoopSettings{})
	s := mustBuild(t, g)
	if got := value(t, s, "sum.out"); !numtest.Within(got, 1, 1e-12) {
		t.Errorf("y = %.17g, want 1", got)
	}
	l := s.Loops()[0]
	if !l.Analytic || l.Fallbacks != 0 || l.Iterations < 3 {
		t.Errorf("%v: analytic %v, %d iterations, %d fallbacks; want Newton with the analytic matrix, several iterations", l, l.Analytic, l.Iterations, l.Fallbacks)
	}
}

// A chain of masses and springs with a loop driving its first mass: the
// Jacobian through the loop has the chain's sparse pattern (each mass's
// rows reach its neighbours' states; the loop's rows reach the first
// mass's state only) and the values of the loop-free model's chain-rule
// Jacobian. Both are assembled from the same analytic block Jacobians
// (the loop's by the implicit-function theorem), and the springs'
// local differences are the same computations in both, so they agree to
// rounding: 1e-12 relative to the largest entry (the stiffness 100).
func TestLoopJacobianSparse(t *testing.T) {
	const n = 60
	chain := func(loop bool) *graph.Sim {
		g := massLoop(t, !loop)
		for i := range n {
			m, _ := masspoint.New(masspoint.Params{Mass: 1, InitialPosition: [3]float64{float64(i + 1), 0.01 * float64(i), 0}})
			name := "c" + strconv.Itoa(i)
			g.Add(name, m)
			prev := "mass"
			if i > 0 {
				prev = "c" + strconv.Itoa(i-1)
			}
			g.Add("k"+strconv.Itoa(i), newSpring(100))
			g.Connect(prev+".position", "k"+strconv.Itoa(i)+".a", graph.Via(graph.Component{Index: 0}))
			g.Connect(name+".position", "k"+strconv.Itoa(i)+".b", graph.Via(graph.Component{Index: 0}))
			g.Connect("k"+strconv.Itoa(i)+".fa", prev+".force", graph.Via(graph.Embed{Axis: 0, Len: 3}))
			g.Connect("k"+strconv.Itoa(i)+".fb", name+".force", graph.Via(graph.Embed{Axis: 0, Len: 3}))
		}
		return mustBuild(t, g)
	}
	var J [2][]float64
	var nnz [2]int
	var dim int
	for k, loop := range []bool{true, false} {
		s := chain(loop)
		m, err := s.System()
		if err != nil {
			t.Fatal(err)
		}
		dim = m.Dim()
		y := s.State(nil)
		J[k] = make([]float64, dim*dim)
		if err := m.Jacobian(0, y, J[k]); err != nil {
			t.Fatal(err)
		}
		_, col := m.JacobianPattern()
		nnz[k] = len(col)
	}
	if nnz[0] != nnz[1] || nnz[0] > 20*dim {
		t.Errorf("pattern of %d entries through the loop, %d without it, for %d states: want the chain's", nnz[0], nnz[1], dim)
	}
	for i := range J[0] {
		if !numtest.Within(J[0][i], J[1][i], 1e-12*100) {
			t.Errorf("entry (%d,%d): loop %.17g, flat %.17g", i/dim, i%dim, J[0][i], J[1][i])
		}
	}
}

// cubic is a feedthrough node y = u³ without OutputsJacobian, so the
// loop's chain rule differences it.
type cubic struct {
	node.Stateless
	spec *node.Spec
}

func newCubic() *cubic {
	return &cubic{spec: node.NewSpec(node.Spec{Type: "cubic",
		Inputs:      []node.Input{{Name: "in", Units: "1", Description: "u", Combine: node.Replacing, Default: []float64{0}}},
		Outputs:     []node.Field{{Name: "out", Units: "1", Description: "u³"}},
		Feedthrough: true})}
}

func (c *cubic) Spec() *node.Spec { return c.spec }
func (c *cubic) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	u := in.Values[0]
	dst[0] = u * u * u
	return nil
}

// The nonlinear loop y = u − y³ again, the cube now from a node without
// OutputsJacobian: the chain rule differences that member (Differenced)
// and Newton still converges to y = 1, without the fallback.
func TestLoopLocallyDifferencedMember(t *testing.T) {
	g := graph.New()
	g.Add("ref", lconst(t, []float64{2}, "1"))
	g.Add("sum", lsum(t, "+-", 1, "1"))
	g.Add("cube", newCubic())
	g.Connect("ref.value", "sum.in1")
	g.Connect("cube.out", "sum.in2")
	g.Connect("sum.out", "cube.in")
	s := mustBuild(t, g)
	if got := value(t, s, "sum.out"); !numtest.Within(got, 1, 1e-12) {
		t.Errorf("y = %.17g, want 1", got)
	}
	l := s.Loops()[0]
	if l.Analytic || !l.ChainRule || strings.Join(l.Differenced, ",") != "cube" || l.Fallbacks != 0 {
		t.Errorf("%+v: want the chain rule with cube differenced, no fallback", l)
	}
}

// A stateful feedthrough member (a PID whose measurement is its own
// output through a gain, beside the mass it drives): a checkpoint taken
// mid-run and restored into a fresh Sim continues bit for bit, because
// every solve starts from zero and keeps nothing across evaluations.
func TestLoopCheckpointResumes(t *testing.T) {
	build := func() *graph.Sim {
		g := graph.New()
		m, _ := masspoint.New(masspoint.Params{Mass: 2})
		g.Add("mass", m)
		g.Add("ref", lconst(t, []float64{1}, "N"))
		pid, err := control.NewPID(control.PIDParams{Kp: []float64{0.8}, Ki: []float64{2}, Kd: []float64{0.1}, Tf: []float64{0.05}, InputUnits: "N", OutputUnits: "N"})
		if err != nil {
			t.Fatal(err)
		}
		g.Add("pid", pid)
		g.Add("fb", lgain(t, 0.5, 1, "N", "N"))
		g.Connect("ref.value", "pid.reference")
		g.Connect("pid.out", "fb.in")
		g.Connect("fb.out", "pid.measurement")
		g.Connect("pid.out", "mass.force", graph.Via(graph.Embed{Axis: 0, Len: 3}))
		return mustBuild(t, g)
	}
	ctx := context.Background()
	set := graph.Settings{Dt: 1e-3, Steps: 100}
	a := build()
	if l := a.Loops(); len(l) != 1 || strings.Join(l[0].Members, ",") != "pid,fb" {
		t.Fatalf("Loops() = %v, want one through pid, fb", l)
	}
	if _, err := a.Run(ctx, set); err != nil {
		t.Fatal(err)
	}
	cp := a.Checkpoint()
	if _, err := a.Run(ctx, set); err != nil {
		t.Fatal(err)
	}
	b := build()
	if err := b.Restore(cp); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Run(ctx, set); err != nil {
		t.Fatal(err)
	}
	xa, xb := a.State(nil), b.State(nil)
	for i := range xa {
		if math.Float64bits(xa[i]) != math.Float64bits(xb[i]) {
			t.Errorf("state[%d]: %v uninterrupted, %v resumed", i, xa[i], xb[i])
		}
	}
	if xa[0] == 0 {
		t.Error("the mass did not move: the test proves nothing")
	}
}

// cubicLoop is y = u − y³ (u = 2, root y = 1; TestLoopNonlinearClosedForm)
// with the loop settings ls.
func cubicLoop(t *testing.T, ls graph.LoopSettings) *graph.Graph {
	g := graph.New()
	g.Add("ref", lconst(t, []float64{2}, "1"))
	g.Add("sum", lsum(t, "+-", 1, "1"))
	cube, err := control.NewProduct(control.ProductParams{Ops: "***"})
	if err != nil {
		t.Fatal(err)
	}
	g.Add("cube", cube)
	g.Connect("ref.value", "sum.in1")
	g.Connect("cube.out", "sum.in2")
	for _, in := range []string{"in1", "in2", "in3"} {
		g.Connect("sum.out", "cube."+in)
	}
	g.SetLoopSettings(ls)
	return g
}

// The fallback solves what Newton, held to one iteration, does not: on
// y = u − y³ the fixed-point map g(y) = 2 − y³ has |g'(1)| = 3, so the
// plain iteration diverges (Memory −1: the evaluation fails with a
// LoopSolveError that says so, once an iterate overflows the cube), and Anderson acceleration (the default
// depth 5) converges to the root y = 1 — to the loop's tolerance, 1e-10
// relative; 1e-9 is asserted. The solve is counted as a fallback.
func TestLoopAndersonFallback(t *testing.T) {
	s := mustBuild(t, cubicLoop(t, graph.LoopSettings{MaxIter: 1}))
	if got := value(t, s, "sum.out"); !numtest.Within(got, 1, 1e-9) {
		t.Errorf("y = %.17g, want 1", got)
	}
	if l := s.Loops()[0]; l.Fallbacks != 1 || l.Solves != 1 {
		t.Errorf("%v: %d solves, %d fallbacks; want one solve, by the fallback", l, l.Solves, l.Fallbacks)
	}
	s = mustBuild(t, cubicLoop(t, graph.LoopSettings{MaxIter: 1, Memory: -1}))
	_, err := s.Value("sum.out")
	var le *graph.LoopSolveError
	if !errors.As(err, &le) || !strings.Contains(le.Detail, "fixed-point fallback: node error at an iterate") || !strings.Contains(err.Error(), "not finite") {
		t.Errorf("plain fixed point on a divergent map: %v, want a LoopSolveError from the fallback", err)
	}
}
