package graph_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/control"
	"github.com/cosimgo/cosim/nodes/masspoint"
)

// Tests of the monolithic Jacobian through an algebraic loop (the
// implicit-function theorem on the converged loop, loop_jacobian.go) and
// of what uses it: implicit methods and sensitivities.

// jacobians returns ∂f/∂y at (0, y) in its three forms (dense, sparse
// scattered, rows scattered), checking they hold the same bits.
func jacobians(t *testing.T, s *graph.Sim, y []float64) []float64 {
	t.Helper()
	m, err := s.System()
	if err != nil {
		t.Fatal(err)
	}
	n := m.Dim()
	J := make([]float64, n*n)
	if err := m.Jacobian(0, y, J); err != nil {
		t.Fatal(err)
	}
	rp, col := m.JacobianPattern()
	val := make([]float64, len(col))
	if err := m.SparseJacobian(0, y, val); err != nil {
		t.Fatal(err)
	}
	for r := range n {
		for q := rp[r]; q < rp[r+1]; q++ {
			if val[q] != J[r*n+col[q]] {
				t.Errorf("sparse (%d,%d) = %v, dense %v", r, col[q], val[q], J[r*n+col[q]])
			}
		}
	}
	return J
}

// closeTo reports entries of got that differ from want by more than tol
// times the largest |want|.
func closeTo(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	scale := numtest.FiniteScale(t, what+" (reference)", want)
	worst := 0.0
	for i := range want {
		d := math.Abs(got[i] - want[i])
		worst = math.Max(worst, d)
		if !numtest.Within(got[i], want[i], tol*scale) {
			t.Errorf("%s: entry %d = %.17g, want %.17g (tolerance %.3g of %.3g)", what, i, got[i], want[i], tol, scale)
		}
	}
	t.Logf("%s: largest difference %.3g of %.3g", what, worst/scale, scale)
}

// gainLoopMass is a mass (m = 2) pulled by the gain loops y_i =
// y_(i−1) + a_i·y_i in series, y_0 = k·x: F = k·x/Π(1 − a_i), so ∂v̇/∂x =
// k/(Π(1 − a_i)·m)·I and ∂ẋ/∂v = I. Loop i is sum<i> and gain<i>, the
// second reading the first's member.
func gainLoopMass(t testing.TB, k float64, as ...float64) *graph.Graph {
	g := graph.New()
	m, err := masspoint.New(masspoint.Params{Mass: 2, InitialPosition: [3]float64{0.3, -0.1, 0.2}})
	if err != nil {
		t.Fatal(err)
	}
	g.Add("mass", m)
	g.Add("k", lgain(t, k, 3, "m", "N"))
	g.Connect("mass.position", "k.in")
	prev := "k.out"
	for i, a := range as {
		sum, gain := fmt.Sprintf("sum%d", i+1), fmt.Sprintf("gain%d", i+1)
		g.Add(sum, lsum(t, "++", 3, "N"))
		g.Add(gain, lgain(t, a, 3, "N", "N"))
		g.Connect(prev, sum+".in1")
		g.Connect(sum+".out", gain+".in")
		g.Connect(gain+".out", sum+".in2")
		prev = sum + ".out"
	}
	g.Connect(prev, "mass.force")
	return g
}

// The Jacobian through the gain loop y = u + a·y against its closed form
// dy/du = 1/(1 − a). Every member has an analytic OutputsJacobian and the
// mass an exact DerivativesJacobian, so the implicit-function theorem
// computes k/((1 − a)·m) from exact blocks: one LU of the 3 × 3 matrix
// (1 − a)·I and a back substitution, a few ulps times its condition
// number (1 for a ≤ 0, 1/(1 − a) ≤ 1000 here): 1e-12 relative covers it,
// and it does not depend on the loop's tolerance.
func TestLoopJacobianGainClosedForm(t *testing.T) {
	const k, mass = 40.0, 2.0
	y := []float64{0.3, -0.1, 0.2, 1, 2, 3}
	for _, a := range []float64{0.5, 0.9, -3, 2, 0.999} {
		s := mustBuild(t, gainLoopMass(t, k, a))
		J := jacobians(t, s, y)
		want := make([]float64, 36)
		for i := range 3 {
			want[i*6+3+i] = 1
			want[(3+i)*6+i] = k / ((1 - a) * mass)
		}
		closeTo(t, fmt.Sprintf("a=%v", a), J, want, 1e-12)
	}
}

// rcLadder is a capacitor (an integrator, v̇ = −i1/C) discharged through
// the resistive ladder of TestLoopResistiveDivider (R1 in series, then R4
// beside R2 + R3): i1 = v/(R1 + Rp), Rp = R4 ∥ (R2 + R3). The ladder is
// an algebraic loop of seven blocks torn at two. flat replaces it by the
// single gain 1/(R1 + Rp) it reduces to. The ladder reads the capacitor's
// state field, so the Jacobian has no block differenced over a node's
// outputs (∂out/∂state has no capability in the node contract and would
// be differenced, 1e-10 relative).
func rcLadder(t testing.TB, flat bool) *graph.Graph {
	const C, V0, R1, R2, R3, R4 = 1e-3, 10.0, 100.0, 220.0, 330.0, 470.0
	g := graph.New()
	capacitor, err := control.NewIntegrator(control.IntegratorParams{Gain: []float64{-1 / C}, Initial: []float64{V0}, InputUnits: "A", OutputUnits: "V"})
	if err != nil {
		t.Fatal(err)
	}
	g.Add("cap", capacitor)
	if flat {
		Rp := 1 / (1/R4 + 1/(R2+R3))
		g.Add("r1", lgain(t, 1/(R1+Rp), 1, "V", "A"))
		g.Connect("cap.state", "r1.in")
		g.Connect("r1.out", "cap.in")
		return g
	}
	addLadder(t, g, "cap.state", R1, R2, R3, R4)
	g.Connect("r1.out", "cap.in")
	return g
}

// The resistive divider: ∂v̇/∂v = −1/(C·(R1 + Rp)), through a loop of two
// tear variables, to 1e-12 relative (exact blocks, a 2 × 2 LU of
// condition about 10). Not at v = 0: the integrator's DerivativesJacobian
// reports ∂v̇/∂u = 0 where its rate is zero.
func TestLoopJacobianResistiveDivider(t *testing.T) {
	const C, R1, R2, R3, R4 = 1e-3, 100.0, 220.0, 330.0, 470.0
	Rp := 1 / (1/R4 + 1/(R2+R3))
	want := []float64{-1 / (C * (R1 + Rp))}
	for _, v := range []float64{10, -3.5, 1e-3} {
		s := mustBuild(t, rcLadder(t, false))
		if l := s.Loops(); len(l) != 1 || len(l[0].Tear) != 2 {
			t.Fatalf("Loops() = %v, want one loop of two tear variables", l)
		}
		closeTo(t, fmt.Sprintf("v=%v", v), jacobians(t, s, []float64{v}), want, 1e-12)
	}
}

// The mass through the stiff controller loop (β = 1e3): its Jacobian
// equals the flat model's chain-rule Jacobian (the same blocks, the loop
// resolved by the implicit-function theorem instead of by hand) to 1e-12
// relative to its largest entry, Kp/(1 + β)·… ≈ 0.4: rounding in the LU
// of (1 + β)·I and in the different order of the terms.
func TestLoopMonolithicJacobianMatchesFlat(t *testing.T) {
	y := []float64{0.3, -0.2, 1.5, 0.7, 0.1, -0.4}
	J := [2][]float64{}
	for k, flat := range []bool{false, true} {
		J[k] = jacobians(t, mustBuild(t, massLoop(t, flat)), y)
	}
	closeTo(t, "loop against flat", J[0], J[1], 1e-12)
}

// Forward sensitivities through a loop against the model without it, for
// a parameter that enters only through the initial state: S' = (∂f/∂y)·S
// then involves no parameter difference at all, so the two runs differ
// only by the rounding of the two Jacobians (1e-14 relative above)
// carried through the steps: 1e-13 relative (measured: a few ulps). The
// Jacobian through the loop is exact; the central differences of the
// loop-solving right-hand side it replaces agreed to 3e-10.
func TestLoopSensitivitiesExact(t *testing.T) {
	cases := []struct {
		name  string
		model func(testing.TB, bool) *graph.Graph
		param string
		rec   string
	}{
		{"mass", massLoop, "mass.initial_position[0]", "mass.position[0]"},
		{"mass velocity", massLoop, "mass.initial_velocity[2]", "mass.position[2]"},
		{"rc ladder", rcLadder, "cap.initial[0]", "cap.out"},
	}
	modes := []struct {
		name string
		opts graph.SensitivityOptions
	}{
		{"rk4", graph.SensitivityOptions{End: 0.2, Dt: 1e-3, Mode: graph.Monolithic{Method: integrators.RK4{}}}},
		{"backward euler", graph.SensitivityOptions{End: 0.2, Dt: 1e-3, Mode: graph.Monolithic{Method: integrators.BackwardEuler{}}}},
		{"implicit trapezoid", graph.SensitivityOptions{End: 0.2, Dt: 1e-3, Mode: graph.Monolithic{Method: integrators.ImplicitTrapezoid{}}}},
	}
	for _, c := range cases {
		for _, md := range modes {
			t.Run(c.name+"/"+md.name, func(t *testing.T) {
				var got [2][]float64
				for k, flat := range []bool{false, true} {
					s := mustBuild(t, c.model(t, flat))
					o := md.opts
					o.Record = []string{c.rec}
					res, err := s.Sensitivities(context.Background(), []string{c.param}, &o)
					if err != nil {
						t.Fatal(err)
					}
					got[k] = res.Series(c.rec, c.param)
				}
				if len(got[0]) != len(got[1]) || len(got[0]) < 2 {
					t.Fatalf("%d rows through the loop, %d without", len(got[0]), len(got[1]))
				}
				closeTo(t, "∂"+c.rec+"/∂"+c.param, got[0], got[1], 1e-13)
			})
		}
	}
}

// Implicit runs through the loop take the same steps, Newton iterations
// and Jacobians as the same model without it, with every linear solver:
// the Newton matrix is the same up to rounding, so the iterations agree
// exactly (a differenced Jacobian off by 1e-8 could cost or save an
// iteration at a tolerance boundary). The states agree to 1e-9 as in
// TestLoopMassMatchesFlatModel.
func TestLoopImplicitNewtonIterations(t *testing.T) {
	lin := func(s integrators.LinearSolver) integrators.LinearOptions {
		return integrators.LinearOptions{Solver: s}
	}
	modes := []struct {
		name string
		mode graph.Mode
	}{
		{"backward euler dense", graph.Monolithic{Method: integrators.BackwardEuler{Linear: lin(integrators.LinearDense)}}},
		{"backward euler gmres", graph.Monolithic{Method: integrators.BackwardEuler{Linear: lin(integrators.LinearGMRES)}}},
		{"backward euler gmres ilu0", graph.Monolithic{Method: integrators.BackwardEuler{Linear: integrators.LinearOptions{Solver: integrators.LinearGMRES, Preconditioner: integrators.PrecondILU0}}}},
		{"backward euler banded", graph.Monolithic{Method: integrators.BackwardEuler{Linear: lin(integrators.LinearBanded)}}},
		{"bdf", graph.MonolithicAdaptive{Method: integrators.BDF{RTol: 1e-8, ATol: 1e-10}}},
		{"esdirk", graph.MonolithicAdaptive{Method: integrators.ESDIRK43{RTol: 1e-8, ATol: 1e-10}}},
	}
	for _, md := range modes {
		t.Run(md.name, func(t *testing.T) {
			var work [2]integrators.Work
			var state [2][]float64
			for k, flat := range []bool{false, true} {
				s := mustBuild(t, massLoop(t, flat))
				set := graph.Settings{Mode: md.mode, End: 0.5}
				if _, ok := md.mode.(graph.Monolithic); ok {
					set = graph.Settings{Mode: md.mode, Dt: 1e-3, Steps: 500}
				}
				res, err := s.Run(context.Background(), set)
				if err != nil {
					t.Fatal(err)
				}
				work[k], state[k] = res.Integrator.Work, s.State(nil)
			}
			w, f := work[0], work[1]
			if w.Steps != f.Steps || w.Rejected != f.Rejected || w.NewtonIters != f.NewtonIters || w.JacEvals != f.JacEvals || w.LinearIters != f.LinearIters {
				t.Errorf("work through the loop %+v, without it %+v", w, f)
			}
			if w.NewtonIters == 0 {
				t.Error("no Newton iteration: the test proves nothing")
			}
			closeTo(t, "state", state[0], state[1], 1e-9)
		})
	}
}

// A parameter inside the loop: ∂v/∂R4 (R4 the gain r4, a member of the
// ladder's loop) against the flat model's ∂v/∂g, g = 1/(R1 + Rp) its
// single gain, by the chain rule ∂v/∂R4 = ∂v/∂g·dg/dR4 with dg/dR4 =
// −(dRp/dR4)/(R1 + Rp)², dRp/dR4 = ((R2 + R3)/(R4 + R2 + R3))². Both
// parameters are differenced (h = 1e-6 relative), the loop frozen at its
// solution and moved along its tangent by the implicit-function theorem
// (loop_sensitivity.go): rounding over h bounds the agreement, 2e-9
// relative (measured 9e-10).
func TestLoopSensitivityLoopParameter(t *testing.T) {
	const R1, R2, R3, R4 = 100.0, 220.0, 330.0, 470.0
	Rp := 1 / (1/R4 + 1/(R2+R3))
	dg := -math.Pow((R2+R3)/(R4+R2+R3), 2) / ((R1 + Rp) * (R1 + Rp))
	var got [2][]float64
	for k, c := range []struct {
		flat  bool
		param string
	}{{false, "r4.gain[0]"}, {true, "r1.gain[0]"}} {
		s := mustBuild(t, rcLadder(t, c.flat))
		res, err := s.Sensitivities(context.Background(), []string{c.param}, &graph.SensitivityOptions{End: 0.2, Dt: 1e-3, Mode: graph.Monolithic{Method: integrators.BackwardEuler{}}, Record: []string{"cap.out"}})
		if err != nil {
			t.Fatal(err)
		}
		got[k] = res.Series("cap.out", c.param)
	}
	for i := range got[1] {
		got[1][i] *= dg
	}
	if got[1][len(got[1])-1] == 0 {
		t.Fatal("zero sensitivity: the test proves nothing")
	}
	closeTo(t, "∂v/∂R4", got[0], got[1], 2e-9)
}

// The Jacobian through a loop allocates nothing once its plan is built.
func TestLoopJacobianAllocs(t *testing.T) {
	for _, g := range []*graph.Graph{massLoop(t, false), rcLadder(t, false)} {
		s := mustBuild(t, g)
		m, err := s.System()
		if err != nil {
			t.Fatal(err)
		}
		y := s.State(nil)
		J := make([]float64, len(y)*len(y))
		if err := m.Jacobian(0, y, J); err != nil {
			t.Fatal(err)
		}
		if n := numtest.AllocsPerRun(20, func() {
			if err := m.Jacobian(0, y, J); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("Jacobian through a loop allocates %v times", n)
		}
	}
}

// BenchmarkLoopImplicitStep is one backward-Euler step (dense LU, the
// Newton matrix formed at every iteration) of the mass through the stiff
// loop, and of the same model without the loop: the ratio is what the
// loop costs an implicit method.
func BenchmarkLoopImplicitStep(b *testing.B) {
	for _, flat := range []bool{false, true} {
		name := "loop"
		if flat {
			name = "flat"
		}
		b.Run(name, func(b *testing.B) {
			s := mustBuild(b, massLoop(b, flat))
			m, err := s.System()
			if err != nil {
				b.Fatal(err)
			}
			st, err := integrators.NewStepper(integrators.BackwardEuler{Linear: integrators.LinearOptions{Solver: integrators.LinearDense}}, m, nil)
			if err != nil {
				b.Fatal(err)
			}
			st.Init(0, s.State(nil))
			b.ReportAllocs()
			for b.Loop() {
				if err := st.Step(1e-3); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// fdJacobian is the central difference of f over each state component
// (h = 1e-6·max(1, |y_j|)), an independent check of the assembly.
func fdJacobian(t *testing.T, s *graph.Sim, y []float64) []float64 {
	t.Helper()
	m, err := s.System()
	if err != nil {
		t.Fatal(err)
	}
	n := len(y)
	J := make([]float64, n*n)
	fp, fm := make([]float64, n), make([]float64, n)
	yt := append([]float64(nil), y...)
	for j := range n {
		h := 1e-6 * math.Max(1, math.Abs(y[j]))
		yt[j] = y[j] + h
		if err := m.Func(0, yt, fp); err != nil {
			t.Fatal(err)
		}
		yt[j] = y[j] - h
		if err := m.Func(0, yt, fm); err != nil {
			t.Fatal(err)
		}
		yt[j] = y[j]
		for i := range n {
			J[i*n+j] = (fp[i] - fm[i]) / (2 * h)
		}
	}
	return J
}

// Loops the closed-form tests do not cover, each against the central
// differences of the loop-solving right-hand side (1e-6 relative to the
// largest entry: O(h²) truncation and rounding over h = 1e-6):
//   - a loop closed through Scale and user-transform edges (their
//     Jacobians, exact and differenced);
//   - a stateful member (a PID, whose ∂out/∂state is differenced)
//     reading its own output through a gain;
//   - two loops in series, the second reading the first's member;
//   - a nonlinear loop (y = x − y³) away from its singular point.
//
// The two loops in series also have a closed form: F = k·x/((1 − a)(1 −
// b)), checked to 1e-12.
func TestLoopJacobianAgainstDifferences(t *testing.T) {
	mass := func(g *graph.Graph) {
		m, err := masspoint.New(masspoint.Params{Mass: 2, InitialPosition: [3]float64{0.3, -0.1, 0.2}, InitialVelocity: [3]float64{0.1, 0.2, -0.3}})
		if err != nil {
			t.Fatal(err)
		}
		g.Add("mass", m)
	}
	cases := map[string]func() *graph.Graph{
		"transforms": func() *graph.Graph {
			g := graph.New()
			mass(g)
			g.Add("k", lgain(t, 40, 3, "m", "N"))
			g.Add("sum", lsum(t, "++", 3, "N"))
			g.Add("gain", lgain(t, 1, 3, "N", "N"))
			g.Connect("mass.position", "k.in")
			g.Connect("k.out", "sum.in1")
			g.Connect("sum.out", "gain.in", graph.Via(graph.TransformFunc{Label: "tanh", In: node.Vec(3), Out: node.Vec(3), F: func(dst, src []float64) {
				for i := range dst {
					dst[i] = math.Tanh(src[i] / 10)
				}
			}}))
			g.Connect("gain.out", "sum.in2", graph.Via(graph.Scale{Factor: -3}))
			g.Connect("sum.out", "mass.force")
			return g
		},
		"pid member": func() *graph.Graph {
			g := graph.New()
			mass(g)
			pid, err := control.NewPID(control.PIDParams{Size: 3, Kp: []float64{0.8}, Ki: []float64{2}, Kd: []float64{0.1}, Tf: []float64{0.05}, InputUnits: "m", OutputUnits: "N"})
			if err != nil {
				t.Fatal(err)
			}
			g.Add("pid", pid)
			g.Add("fb", lgain(t, 0.5, 3, "N", "m"))
			g.Add("ref", lconst(t, []float64{1, 0, 2}, "m"))
			g.Add("sum", lsum(t, "++", 3, "m"))
			g.Connect("ref.value", "sum.in1")
			g.Connect("fb.out", "sum.in2")
			g.Connect("sum.out", "pid.reference")
			g.Connect("mass.position", "pid.measurement")
			g.Connect("pid.out", "fb.in")
			g.Connect("pid.out", "mass.force")
			return g
		},
		"loops in series": func() *graph.Graph { return gainLoopMass(t, 40, 0.5, -2) },
		"nonlinear": func() *graph.Graph {
			g := graph.New()
			mass(g)
			g.Add("unit", lgain(t, 1, 3, "m", "m"))
			cube, err := control.NewProduct(control.ProductParams{Ops: "***", Size: 3, InputUnits: "m", OutputUnits: "m"})
			if err != nil {
				t.Fatal(err)
			}
			g.Add("cube", cube)
			g.Add("sum", lsum(t, "++-", 3, "m"))
			g.Connect("mass.position", "sum.in1")
			g.Connect("sum.out", "unit.in")
			g.Connect("unit.out", "sum.in2")
			for _, in := range []string{"in1", "in2", "in3"} {
				g.Connect("sum.out", "cube."+in)
			}
			g.Connect("cube.out", "sum.in3")
			g.Connect("sum.out", "mass.force", graph.Via(graph.Scale{Factor: 1, From: "m", To: "N"}))
			return g
		},
	}
	for name, build := range cases {
		t.Run(name, func(t *testing.T) {
			s := mustBuild(t, build())
			if len(s.Loops()) == 0 {
				t.Fatal("no loop: the test proves nothing")
			}
			y := s.State(nil)
			closeTo(t, name, jacobians(t, s, y), fdJacobian(t, s, y), 1e-6)
		})
	}
	const k, a, b = 40.0, 0.5, -2.0
	s := mustBuild(t, gainLoopMass(t, k, a, b))
	if len(s.Loops()) != 2 {
		t.Fatalf("Loops() = %v, want two", s.Loops())
	}
	want := make([]float64, 36)
	for i := range 3 {
		want[i*6+3+i] = 1
		want[(3+i)*6+i] = k / ((1 - a) * (1 - b) * 2)
	}
	closeTo(t, "loops in series", jacobians(t, s, s.State(nil)), want, 1e-12)
}

// cubicLoopCap is a capacitor-like integrator ẋ = −y discharged through
// the nonlinear loop y = x − c·y³ (y + c·y³ = x: a sum, a product block
// cubing y, and the gain c, all three members of the loop), x(0) = 2.
func cubicLoopCap(t testing.TB, c float64, ls graph.LoopSettings) *graph.Graph {
	return cubicLoopCapFrom(t, c, 2, ls)
}

// cubicLoopCapFrom is cubicLoopCap with x(0) = x0.
func cubicLoopCapFrom(t testing.TB, c, x0 float64, ls graph.LoopSettings) *graph.Graph {
	g := graph.New()
	capacitor, err := control.NewIntegrator(control.IntegratorParams{Gain: []float64{-1}, Initial: []float64{x0}})
	if err != nil {
		t.Fatal(err)
	}
	g.Add("cap", capacitor)
	g.Add("sum", lsum(t, "+-", 1, "1"))
	cube, err := control.NewProduct(control.ProductParams{Ops: "***"})
	if err != nil {
		t.Fatal(err)
	}
	g.Add("cube", cube)
	g.Add("c", lgain(t, c, 1, "1", "1"))
	g.Connect("cap.state", "sum.in1")
	for _, in := range []string{"in1", "in2", "in3"} {
		g.Connect("sum.out", "cube."+in)
	}
	g.Connect("cube.out", "c.in")
	g.Connect("c.out", "sum.in2")
	g.Connect("sum.out", "cap.in")
	g.SetLoopSettings(ls)
	return g
}

// iterationBoundary bisects [lo, hi] to within tol for a point v where
// iters, a loop's Newton iteration count as a function of v, changes
// between v − step(v) and v + step(v): the point where a difference of
// step(v) through the loop solve mixes two iteration counts.
func iterationBoundary(t *testing.T, lo, hi, tol float64, step func(v float64) float64, iters func(v float64) int64) float64 {
	t.Helper()
	nlo := iters(lo)
	if iters(hi) == nlo {
		t.Fatalf("%d Newton iterations at both ends: no boundary to find", nlo)
	}
	for hi-lo > tol {
		if mid := (lo + hi) / 2; iters(mid) == nlo {
			lo = mid
		} else {
			hi = mid
		}
	}
	v := (lo + hi) / 2
	if h := step(v); iters(v-h) == iters(v+h) {
		t.Fatalf("%v: the same iteration count at ± %v: the test proves nothing", v, h)
	}
	return v
}

// cubicLoopReference integrates the model of cubicLoopCap and its
// sensitivity S = ∂x/∂c with classical RK4 written out here, independent
// of the graph: y solves y + c·y³ = x by scalar Newton run to a step
// below 4 ulps (machine precision), and by the implicit-function theorem
// on that scalar equation ∂y/∂x = 1/(1 + 3c·y²), ∂y/∂c = −y³/(1 + 3c·y²),
// so ẋ = −y, Ṡ = −(∂y/∂x·S + ∂y/∂c), S(0) = 0. It returns S at every
// step, and dy/dc = ∂y/∂x·S + ∂y/∂c, the sensitivity of the loop's
// output.
func cubicLoopReference(c, dt float64, steps int) (S, dy []float64) {
	solve := func(x float64) float64 {
		y := x
		for range 100 {
			d := (y + c*y*y*y - x) / (1 + 3*c*y*y)
			y -= d
			if math.Abs(d) <= 4*0x1p-52*math.Abs(y) {
				break
			}
		}
		return y
	}
	f := func(v [2]float64) [2]float64 {
		y := solve(v[0])
		den := 1 + 3*c*y*y
		return [2]float64{-y, -(v[1]/den - y*y*y/den)}
	}
	v := [2]float64{2, 0}
	record := func() {
		y := solve(v[0])
		S = append(S, v[1])
		dy = append(dy, (v[1]-y*y*y)/(1+3*c*y*y))
	}
	record()
	for range steps {
		k1 := f(v)
		k2 := f([2]float64{v[0] + dt/2*k1[0], v[1] + dt/2*k1[1]})
		k3 := f([2]float64{v[0] + dt/2*k2[0], v[1] + dt/2*k2[1]})
		k4 := f([2]float64{v[0] + dt*k3[0], v[1] + dt*k3[1]})
		for i := range v {
			v[i] += dt / 6 * (k1[i] + 2*k2[i] + 2*k3[i] + k4[i])
		}
		record()
	}
	return S, dy
}

// A parameter inside a nonlinear loop: ∂x/∂c of cubicLoopCap, with the
// same RK4 steps as cubicLoopReference, so the two differ only by how
// the right-hand side and its derivatives are computed. Through the
// graph, ∂f/∂x comes from the implicit-function theorem on the loop
// (exact blocks) and ∂f/∂c from differences with the loop frozen at its
// solution (loop_sensitivity.go): O(h²) truncation and rounding over
// h = 1e-6·c, plus the loop's residual at the points they are evaluated
// at, which Newton's last quadratic step puts far below its 1e-10
// tolerance. Measured: 2.5e-11 relative to the largest |S| (the
// differences through the loop solve it replaces: 4e-11, this loop's
// Newton iteration count never changing across a difference step; see
// TestLoopParamDerivativeIterationBoundary for when it does); the
// tolerance is 1e-10. With the loop's tolerance loosened to 1e-6
// (AbsTol 1e-8) the state itself carries the looser solve: measured
// 8.7e-8 (through the solve: 1.1e-6), the tolerance 5e-7. The loop's
// output y, recorded, is differentiated along S with the loop frozen
// along (S, 1): measured 9e-10 relative to its largest derivative, the
// rounding over h of that difference (tolerance 1e-8); loose, 3.9e-7
// (through the solve: 4.9e-6), the tolerance 2e-6.
func TestLoopSensitivityNonlinearParameter(t *testing.T) {
	const c, dt, steps = 0.5, 1e-3, 500
	want, wantY := cubicLoopReference(c, dt, steps)
	for _, tc := range []struct {
		name      string
		ls        graph.LoopSettings
		tol, ytol float64
	}{
		{"default tolerances", graph.LoopSettings{}, 1e-10, 1e-8},
		{"loose tolerances", graph.LoopSettings{RelTol: 1e-6, AbsTol: 1e-8}, 5e-7, 2e-6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustBuild(t, cubicLoopCap(t, c, tc.ls))
			if l := s.Loops(); len(l) != 1 || len(l[0].Members) != 3 {
				t.Fatalf("Loops() = %v, want one loop of three members", l)
			}
			res, err := s.Sensitivities(context.Background(), []string{"c.gain[0]"}, &graph.SensitivityOptions{
				End: dt * steps, Dt: dt, Mode: graph.Monolithic{Method: integrators.RK4{}}, Record: []string{"cap.state", "sum.out"}})
			if err != nil {
				t.Fatal(err)
			}
			got := res.Series("cap.state", "c.gain[0]")
			if len(got) != len(want) {
				t.Fatalf("%d rows, want %d", len(got), len(want))
			}
			if math.Abs(want[len(want)-1]) < 1e-2 {
				t.Fatalf("∂x/∂c = %v at the end: too small to prove anything", want[len(want)-1])
			}
			closeTo(t, "∂x/∂c", got, want, tc.tol)
			closeTo(t, "∂y/∂c", res.Series("sum.out", "c.gain[0]"), wantY, tc.ytol)
		})
	}
}

// ∂f/∂c of cubicLoopCap at x = 2 where the loop's Newton iteration count
// changes between c − h and c + h (found by bisection on the count of
// one solve, to 1e-10 in c, below the step h = 1e-6·c). Differencing
// through the loop solve then divides the difference of two iterates,
// one a Newton step further than the other (up to the loop's tolerance),
// by 2h: measured 5e-5 relative with the default tolerances and 0.5 with
// RelTol 1e-6. With the loop frozen at its solution the difference
// contains no solve: the closed form ∂f/∂c = −∂y/∂c = y³/(1 + 3c·y²)
// (y from scalar Newton to machine precision, as in cubicLoopReference)
// is met to rounding over h (measured 4e-10; tolerance 1e-8) with the
// default tolerances, and with the loose ones to the loop's residual at
// the solution times its second derivatives (measured 7e-7; tolerance
// 1e-5).
func TestLoopParamDerivativeIterationBoundary(t *testing.T) {
	for _, tc := range []struct {
		name string
		ls   graph.LoopSettings
		tol  float64
	}{
		{"default tolerances", graph.LoopSettings{}, 1e-8},
		{"loose tolerances", graph.LoopSettings{RelTol: 1e-6, AbsTol: 1e-8}, 1e-5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			iters := func(c float64) int64 {
				s := mustBuild(t, cubicLoopCap(t, c, tc.ls))
				value(t, s, "sum.out") // one solve at x = 2
				return s.Loops()[0].Iterations
			}
			c := iterationBoundary(t, 0.1, 1.9, 1e-10, func(c float64) float64 { return 1e-6 * c }, iters)
			y := 2.0
			for range 100 {
				y -= (y + c*y*y*y - 2) / (1 + 3*c*y*y)
			}
			want := y * y * y / (1 + 3*c*y*y)
			s := mustBuild(t, cubicLoopCap(t, c, tc.ls))
			got, err := s.ParamDerivs([]string{"c.gain[0]"}, 0, []float64{2}, false)
			if err != nil {
				t.Fatal(err)
			}
			solved, err := s.ParamDerivs([]string{"c.gain[0]"}, 0, []float64{2}, true)
			if err != nil {
				t.Fatal(err)
			}
			e := math.Abs(got[0]-want) / want
			t.Logf("c = %.17g: frozen loop %.3g relative, through the solve %.3g", c, e, math.Abs(solved[0]-want)/want)
			if !numtest.AtMost(e, tc.tol) {
				t.Errorf("∂f/∂c = %.17g, want %.17g (relative error %.3g, tolerance %.3g)", got[0], want, e, tc.tol)
			}
		})
	}
}
