package graph_test

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
)

// eulerOsc is x” = −k·x stepped by explicit (forward) Euler:
// x ← x + dt·v, v ← v − dt·k·x, both from the old state. Its one-step
// amplification matrix is [[1, dt], [−dt·k, 1]], of eigenvalues
// 1 ± dt·√(−k): for k = ω² > 0 (an undamped oscillator) the radius is
// √(1 + dt²ω²) > 1 at every step, the textbook instability of explicit
// Euler on a centre, while the physics (the Jacobian [[0, 1], [−k, 0]],
// eigenvalues ±iω) does not grow; for k = −a² < 0 (a repelling spring,
// physical growth rate a) the radius is 1 + dt·a.
type eulerOsc struct {
	spec *node.Spec
	k    float64
}

func newEulerOsc(k float64) *eulerOsc {
	return &eulerOsc{k: k, spec: node.NewSpec(node.Spec{
		Type: "euler-oscillator",
		State: []node.Field{
			{Name: "x", Units: "m", Description: "position", Role: node.Position, Rate: "v"},
			{Name: "v", Units: "m/s", Description: "velocity", Role: node.Velocity},
		},
	})}
}

func (n *eulerOsc) Spec() *node.Spec           { return n.spec }
func (n *eulerOsc) InitialState(dst []float64) { dst[0], dst[1] = 1, 0 }
func (n *eulerOsc) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0], dst[1] = x[0]+dt*x[1], x[1]-dt*n.k*x[0]
	return nil
}
func (n *eulerOsc) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0], dst[1] = x[1], -n.k*x[0]
	return nil
}

// eulerOscSim is a graph of one eulerOsc node named "osc".
func eulerOscSim(t *testing.T, k float64) *graph.Sim {
	t.Helper()
	g := graph.New()
	g.Add("osc", newEulerOsc(k))
	sim, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	return sim
}

// TestStabilityRejectsZeroStep: a step of 0 is a user mistake every
// analysis entry point rejects with an error naming dt, as it rejects a
// negative or infinite one (the documented "finite and positive"); a step
// of 0 would otherwise analyse the identity map and call any scheme
// stable.
func TestStabilityRejectsZeroStep(t *testing.T) {
	sim := eulerOscSim(t, 1)
	calls := map[string]func() error{
		"Stability":      func() error { _, err := sim.Stability(nil, 0); return err },
		"CheckStability": func() error { _, err := sim.CheckStability(nil, 0, 10); return err },
		"Amplification":  func() error { _, err := sim.Amplification(nil, 0); return err },
		"MonolithicStability": func() error {
			_, err := sim.MonolithicStability(integrators.RK4{}, nil, 0)
			return err
		},
		"CheckMonolithicStability": func() error {
			_, err := sim.CheckMonolithicStability(integrators.RK4{}, nil, 0, 10)
			return err
		},
	}
	for name, call := range calls {
		if err := call(); err == nil || !strings.Contains(err.Error(), "dt = 0: the step must be finite and positive") {
			t.Errorf("%s with dt = 0: err = %v, want the step rejected", name, err)
		}
	}
}

// TestExplicitEulerOscillatorNeverStable: explicit Euler on an undamped
// oscillator (ω = 1000 rad/s) is unstable at every step, radius
// √(1 + dt²ω²) (eulerOsc). At dt = 2 s every scheme of the one-node graph
// has radius √(1 + 4·10⁶) = 2000.00025 (tolerance 1e-9 relative: the
// dense matrix of a linear step is exact up to rounding), none is
// stable, and the search for a stable step finds none down to dt/2²⁰
// (there dt·ω = 1.9·10⁻³, radius 1 + 1.8·10⁻⁶, still above
// 1 + StabilityTol): MaxDt is 0. The analysis is per step (Steps 0), so
// the warning says the state grows without bound; it has no note to
// add, names no stable step and no stable scheme. A graph of one
// stateful node lists Jacobi, Gauss–Seidel and the iterated group:
// Gauss–Seidel in reverse node order is the same scheme as in node
// order and is not listed twice.
func TestExplicitEulerOscillatorNeverStable(t *testing.T) {
	const omega, dt = 1000.0, 2.0
	want := math.Sqrt(1 + dt*dt*omega*omega)
	r, err := eulerOscSim(t, omega*omega).Stability(nil, dt)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, sc := range r.Schemes {
		names = append(names, sc.Strategy)
		if !numtest.Within(sc.Radius, want, 1e-9*want) || sc.Stable || !sc.Searched || sc.MaxDt != 0 || sc.AtLeast {
			t.Errorf("%s: radius %v (stable %v), searched %v, max dt %v (at least %v); want radius %v, unstable, no stable step", sc.Strategy, sc.Radius, sc.Stable, sc.Searched, sc.MaxDt, sc.AtLeast, want)
		}
	}
	if wantNames := []string{"jacobi", "gauss-seidel", "iterative:iqn-ils"}; !slices.Equal(names, wantNames) {
		t.Errorf("schemes %q, want %q", names, wantNames)
	}
	if !r.Unstable() {
		t.Fatalf("analysis %+v: want unstable", r)
	}
	w := r.Warning()
	for _, part := range []string{
		"coupling jacobi is unstable at dt = 2 s: the spectral radius of its one-step amplification matrix (linearised at t = 0) is 2000.00025 > 1, so the state will grow without bound; ",
		"; no step down to " + strconv.FormatFloat(dt/(1<<20), 'g', 3, 64) + " s makes it stable; none of the schemes analysed is stable at this dt (cosim check SCENE prints the analysis)",
	} {
		if !strings.Contains(w, part) {
			t.Errorf("warning lacks %q:\n%s", part, w)
		}
	}
}

// TestRunGrowthBeyondPhysicalGrowth: a repelling spring (k = −1, physical
// growth rate a = 1/s) stepped by explicit Euler at dt = 0.1 s has radius
// 1 + dt·a = 1.1 (eulerOsc), within the bound exp(2·dt·a) = e^0.2 a
// physically growing system is allowed (StabilityAnalysis.Bound): stable.
// Over a run of 10 steps the scheme grows a perturbation by
// (Radius/Bound)^10 = 1.1^10·e^−2 = 0.35102 beyond the physics
// (RunGrowth's definition): less than the physics, as explicit Euler
// under-predicts an exponential. Tolerances: 1e-9 relative on the radius
// and the growth rate (the dense matrices of linear maps, exact up to
// rounding), 1e-8 on the run growth (ten times the radius's error).
func TestRunGrowthBeyondPhysicalGrowth(t *testing.T) {
	const a, dt = 1.0, 0.1
	r, err := eulerOscSim(t, -a*a).Stability(nil, dt)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := r.Chosen()
	if !numtest.Within(c.Radius, 1+dt*a, 1e-9) || !c.Stable || !numtest.Within(r.Growth, a, 1e-9) || !numtest.Within(r.Bound, math.Exp(2*dt*a), 1e-9) {
		t.Fatalf("radius %v (stable %v), growth %v, bound %v; want 1.1, stable, growth 1, bound e^0.2", c.Radius, c.Stable, r.Growth, r.Bound)
	}
	want := math.Pow(1+dt*a, 10) * math.Exp(-2)
	run := r.Over(10)
	if g := run.RunGrowth(); !numtest.Within(g, want, 1e-8) || run.Unstable() {
		t.Errorf("growth over 10 steps %v (unstable %v), want (1.1/e^0.2)^10 = %v", g, run.Unstable(), want)
	}
}

// TestUndecidedEstimateNoted: the matrix-free estimate of the test chain
// of 60 masses (120 values, every eigenvalue on the unit circle) under
// Jacobi at dt = 1 ms does not converge (TestDenseAndKrylovAgree: about
// 1.02, Ritz residual about 1.5e-3): it exceeds the bound 1 by less than
// CertifyFactor residuals, so it is undecided and counted stable, and
// Note says so (SchemeStability.Stable: "Note says so when it exceeds the
// bound"), so that a reader of a radius above 1 marked stable knows why.
func TestUndecidedEstimateNoted(t *testing.T) {
	sim, err := chain(60).Build()
	if err != nil {
		t.Fatal(err)
	}
	r, err := sim.StabilityForced(nil, 1e-3, false)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := r.Chosen()
	if !c.Estimated || !(c.Radius > 1+graph.StabilityTol) || !c.Stable || !(c.Radius-graph.CertifyFactor*c.Residual <= 1+graph.StabilityTol) {
		t.Fatalf("estimate %+v: want an estimate above 1 within CertifyFactor residuals, counted stable", c)
	}
	if !strings.Contains(c.Note, "undecided, counted stable") || !strings.Contains(c.Note, fmtG9(c.Radius)) {
		t.Errorf("note %q: want it to say the estimate %s is undecided and counted stable", c.Note, fmtG9(c.Radius))
	}
}

// TestStabilityAlternativesNamed: the alternatives an analysis lists are
// Jacobi, Gauss–Seidel in node order and in reverse node order, and one
// iterated group (StabilityAnalysis.Schemes), each named in
// coupling.ParseStrategy's syntax, so that a user can re-run with the
// one the warning recommends. Gauss–Seidel m1→m2 on the two-mass chain at
// h = 0.01 s is unstable (TestAmplificationTwoMassesClosedForm's
// hand-derived matrix), so CheckStability analyses the alternatives; the
// reverse order must name both stateful nodes, m2 then m1, and re-analysed
// as the chosen strategy from its name it has the same radius (the same
// dense computation: 1e-12 relative).
func TestStabilityAlternativesNamed(t *testing.T) {
	gs := &coupling.Strategy{Scheme: coupling.GaussSeidel}
	sim := gsTwoMasses(t, 1, 0.1, 100, 100)
	r, err := sim.CheckStability(gs, 0.01, 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, sc := range r.Schemes {
		names = append(names, sc.Strategy)
	}
	want := []string{"gauss-seidel", "jacobi", "gauss-seidel,order=m2/m1", "iterative:iqn-ils"}
	if !slices.Equal(names, want) {
		t.Fatalf("schemes %q, want %q", names, want)
	}
	st, err := coupling.ParseStrategy(names[2])
	if err != nil {
		t.Fatal(err)
	}
	again, err := sim.CheckStability(&st, 0.01, 0)
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := again.Chosen(); !numtest.Within(c.Radius, r.Schemes[2].Radius, 1e-12*c.Radius) {
		t.Errorf("%s re-analysed: radius %v, listed %v", names[2], c.Radius, r.Schemes[2].Radius)
	}
}

// TestDenseAtDenseStabilityStates: a graph of exactly
// DenseStabilityStates values (the test chain of 64 masses) gets the
// dense radius directly ("dense, for at most DenseStabilityStates
// values"), neither a matrix-free estimate nor one escalated to the dense
// radius. Jacobi on the undamped chain at 1 ms is symplectic Euler within
// its stable step (dt·ω_max ≤ 1e-3·√4000 = 0.063 < 2): radius 1, to
// 1e-8 (the rounding of the differences on the eigenvalues of the
// Jordan-like pairs; TestUndampedChainDecided uses the same).
func TestDenseAtDenseStabilityStates(t *testing.T) {
	sim, err := chain(graph.DenseStabilityStates / 2).Build()
	if err != nil {
		t.Fatal(err)
	}
	if n := sim.StateSize(); n != graph.DenseStabilityStates {
		t.Fatalf("%d values, want %d", n, graph.DenseStabilityStates)
	}
	r, err := sim.CheckStability(nil, 1e-3, 0)
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := r.Chosen(); c.Estimated || c.Escalated || math.Abs(c.Radius-1) > 1e-8 || !c.Stable {
		t.Errorf("%d values: %+v; want the dense radius 1, neither estimated nor escalated", graph.DenseStabilityStates, c)
	}
}

// TestAmplificationUpToMaxStabilityStates: Sim.Amplification returns the
// dense matrix for 1 to MaxStabilityStates values (its documented range):
// the test chain of 150 masses (300 values) gets its 300×300 matrix, one
// of 151 masses (302 values) an error naming the limit. The entry
// ∂x1(t+dt)/∂x1(t) of the first mass (semi-implicit Euler, springs of
// k = 1000 N/m to both sides, m = 1 kg) is 1 − 2k·dt²/m = 0.998 at
// dt = 1 ms (to 1e-9: an affine step, exact up to rounding).
func TestAmplificationUpToMaxStabilityStates(t *testing.T) {
	const dt = 1e-3
	sim, err := chain(graph.MaxStabilityStates / 2).Build()
	if err != nil {
		t.Fatal(err)
	}
	a, err := sim.Amplification(nil, dt)
	if err != nil {
		t.Fatal(err)
	}
	sys, err := sim.System()
	if err != nil {
		t.Fatal(err)
	}
	if r, c := a.Dims(); r != graph.MaxStabilityStates || c != graph.MaxStabilityStates || sys.Component(0) != "m1.x" {
		t.Fatalf("matrix %d×%d (first value %s), want %d×%d", r, c, sys.Component(0), graph.MaxStabilityStates, graph.MaxStabilityStates)
	}
	if got := a.At(0, 0); !numtest.Within(got, 1-2*1000*dt*dt, 1e-9) {
		t.Errorf("∂x1'/∂x1 = %v, want 1 − 2k·dt²/m = 0.998", got)
	}
	big, err := chain(graph.MaxStabilityStates/2 + 1).Build()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := big.Amplification(nil, dt); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("MaxStabilityStates = %d", graph.MaxStabilityStates)) {
		t.Errorf("%d values: err = %v, want the limit named", big.StateSize(), err)
	}
}

// TestGrowthMadeExactAfterEscalation: above DenseStabilityStates values
// the physical growth rate starts as an estimate (one Arnoldi cycle on
// the Jacobian: about 0.0135/s on the undamped test chain of 65 masses,
// 130 values, whose true rate is 0: every eigenvalue of its Jacobian is
// ±i√κ, κ an eigenvalue of the symmetric positive definite stiffness).
// Gauss–Seidel's estimate is undecided and escalated to the dense radius
// (about 1 + 5e-4), and a dense radius above 1 makes the growth rate
// exact too (amplifier.decide): the analysis then reports that rate,
// 0 to 1e-9 (measured 5e-14: the rounding of the dense Jacobian's
// eigenvalues), and the bound it judges every scheme by, 1 to 1e-12 —
// not the estimate's exp(2·dt·0.0135) = 1 + 2.7e-5, which would hide a
// growth of 10⁻⁵ per step.
func TestGrowthMadeExactAfterEscalation(t *testing.T) {
	sim, err := chain(65).Build()
	if err != nil {
		t.Fatal(err)
	}
	r, err := sim.CheckStability(&coupling.Strategy{Scheme: coupling.GaussSeidel}, 1e-3, 0)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := r.Chosen()
	if !c.Escalated || c.Stable || !r.GrowthKnown || math.Abs(r.Growth) > 1e-9 || math.Abs(r.Bound-1) > 1e-12 {
		t.Errorf("gauss-seidel %+v; growth %v (known %v), bound %v: want escalated, unstable, growth 0 and bound 1", c, r.Growth, r.GrowthKnown, r.Bound)
	}
}

// TestStartPlanBudgetBoundaries: the check at a run's start picks the
// first plan whose cost fits its budget of max(steps/StartCheckShare,
// StartCheckFloor/n) passes over the n values (startPlan), with the
// costs of checkPlan.passes's model, computed here from its definition:
// the dense matrix costs 2n trial steps, n Jacobian columns and n² for
// the eigenvalues; a Krylov cycle of dimension m costs Σ_{j<m} (2 trial
// steps + 4(j+1) + 3 Gram–Schmidt and scaling passes) = 2m² + 7m, and
// cycles+1 of them are run (the last for the growth rate); escalation to
// the dense radius and growth rate adds 3n + 2n². A cost equal to the
// budget fits; one pass more does not. At each boundary one pass decides
// between two plans, so every term of the model is checked:
//
//   - n = 128 (dense is the full plan): 3·128 + 128² = 16 768 passes,
//     so 167 680 steps get the dense matrix, 167 670 (budget 16 767)
//     the full Krylov plan (32 × 4: 5·(2·32² + 7·32) = 11 360);
//   - n = 200: the full plan escalates, 11 360 + 600 + 80 000 = 91 960
//     passes: 919 600 steps get it, 919 590 the Krylov plan without
//     escalation; with a budget of 50 000 (500 000 steps) the dense
//     matrix (40 600) would fit but is not used above
//     DenseStabilityStates (the matrix-free estimate is);
//   - n = 10 000 (floor 104 passes): one cycle of dimension 4 costs
//     2·(2·16 + 28) = 120 passes and of dimension 5 170: 1 200 steps get
//     dimension 4, 1 190 nothing (too short), 1 500 (budget 150)
//     dimension 4;
//   - without an end (steps 0) the full plan escalates up to
//     DenseMaxStates values and not above.
func TestStartPlanBudgetBoundaries(t *testing.T) {
	for _, c := range []struct {
		n, steps        int
		analysed, dense bool
		dim, cycles     int
		escalate        bool
	}{
		{128, 167_680, true, true, 0, 0, false},
		{128, 167_670, true, false, 32, 4, false},
		{200, 919_600, true, false, 32, 4, true},
		{200, 919_590, true, false, 32, 4, false},
		{200, 500_000, true, false, 32, 4, false},
		{10_000, 1_200, true, false, 4, 1, false},
		{10_000, 1_190, false, false, 0, 0, false},
		{10_000, 1_500, true, false, 4, 1, false},
		{graph.DenseMaxStates, 0, true, false, 32, 4, true},
		{graph.DenseMaxStates + 1, 0, true, false, 32, 4, false},
	} {
		dense, dim, cycles, passes, ok := graph.StartPlan(c.n, c.steps)
		esc, _ := graph.StartPlanEscalates(c.n, c.steps)
		if ok != c.analysed || ok && (dense != c.dense || dim != c.dim || cycles != c.cycles || esc != c.escalate) {
			t.Errorf("n = %d, %d steps: analysed %v, dense %v, dim %d, cycles %d, escalate %v (%d passes); want analysed %v, dense %v, dim %d, cycles %d, escalate %v",
				c.n, c.steps, ok, dense, dim, cycles, esc, passes, c.analysed, c.dense, c.dim, c.cycles, c.escalate)
		}
	}
}

// TestMonolithicShortRunSkipped: the start check of a fixed-step
// monolithic run skips a graph the run is too short to analyse, as a
// co-simulation's does (TestStartCheckAnalysesEverything): 4 370 free
// masses (8 740 values) for 10 steps afford max(10/10, 2²⁰/8 740) = 119
// passes, less than one Arnoldi cycle of dimension 4 (120 passes,
// TestStartPlanBudgetBoundaries). The analysis says why and analyses
// nothing.
func TestMonolithicShortRunSkipped(t *testing.T) {
	g := graph.New()
	for i := 1; i <= 4370; i++ {
		g.Add(fmt.Sprintf("m%d", i), newMass(1, float64(i)))
	}
	sim, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	r, err := sim.CheckMonolithicStability(integrators.RK4{}, nil, 1e-3, 10)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Skipped, "the run's 10 steps are too short for the analysis of 8740 state values") || len(r.Schemes) != 0 {
		t.Errorf("skipped %q, schemes %+v; want skipped as too short", r.Skipped, r.Schemes)
	}
}

// growNode is x' = g·x stepped by explicit Euler, x ← (1 + dt·g)·x: a
// physically growing value (rate g) whose one-step amplification is the
// scalar 1 + dt·g.
type growNode struct {
	spec *node.Spec
	g    float64
}

func newGrowNode(g float64) *growNode {
	return &growNode{g: g, spec: node.NewSpec(node.Spec{
		Type:  "grow",
		State: []node.Field{{Name: "x", Units: "1", Description: "growing value"}},
	})}
}

func (n *growNode) Spec() *node.Spec           { return n.spec }
func (n *growNode) InitialState(dst []float64) { dst[0] = 1 }
func (n *growNode) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = (1 + dt*n.g) * x[0]
	return nil
}
func (n *growNode) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = n.g * x[0]
	return nil
}

// TestConvergedEstimateKept: above DenseStabilityStates values a
// matrix-free estimate whose Ritz residual is below krylovTol = 1e-8
// relative to the radius has converged and decides stability itself; it
// is not replaced by the dense radius (SchemeStability.Escalated, an
// O(n³) computation the converged estimate makes needless). 130
// independent growing values (growNode), rates 3/s and 1 + 1.98·k/129
// for k = 1..129 (up to 2.98/s), at dt = 100 s: the amplification is
// diagonal with entries 1 + dt·g, radius 301, the next 299, close enough
// that Arnoldi stops on a residual that is small relative to the radius
// but not to rounding (measured 4.6e-8, 1.5e-10 relative; the test
// asks for at most 1e-8·301); the physical growth rate about 3/s allows
// exp(2·dt·3) = e^600: stable. The radius is exact to 1e-9 relative.
func TestConvergedEstimateKept(t *testing.T) {
	const dt = 100.0
	g := graph.New()
	g.Add("g0", newGrowNode(3))
	for k := 1; k < 130; k++ {
		g.Add(fmt.Sprintf("g%d", k), newGrowNode(1+1.98*float64(k)/129))
	}
	sim, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	r, err := sim.CheckStability(nil, dt, 0)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := r.Chosen()
	if !c.Estimated || c.Escalated || !numtest.Within(c.Radius, 301, 301e-9) || !(c.Residual <= 1e-8*c.Radius) || !c.Stable {
		t.Errorf("%+v (growth %v, bound %v): want the converged estimate 301 kept, stable", c, r.Growth, r.Bound)
	}
}
