package graph_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/cmplx"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// gsTwoMasses is ground —k1— m1 —k2— m2 along x: two masspoint nodes
// (semi-implicit Euler: v ← v + dt·F/m, then x ← x + dt·v) joined by
// linear springdamper connectors without damping, at rest.
func gsTwoMasses(t *testing.T, m1, m2, k1, k2 float64) *graph.Sim {
	t.Helper()
	g := graph.New()
	for _, b := range []struct {
		name string
		m, x float64
	}{{"m1", m1, 1}, {"m2", m2, 2}} {
		p := masspoint.DefaultParams()
		p.Mass, p.InitialPosition = b.m, [3]float64{b.x, 0, 0}
		n, err := masspoint.New(p)
		if err != nil {
			t.Fatal(err)
		}
		g.Add(b.name, n)
	}
	for _, c := range []struct {
		name, a, b string
		k          float64
	}{{"s1", "", "m1", k1}, {"s2", "m1", "m2", k2}} {
		p := springdamper.DefaultParams()
		p.Stiffness, p.Offset = [3]float64{c.k, 0, 0}, [3]float64{1, 0, 0}
		if _, err := g.AddConnector(c.name, p, c.a, [3]float64{}, c.b, [3]float64{}); err != nil {
			t.Fatal(err)
		}
	}
	sim, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	return sim
}

// xBlock extracts the rows and columns of m1.position[0], m1.velocity[0],
// m2.position[0], m2.velocity[0] from the amplification matrix.
func xBlock(t *testing.T, sim *graph.Sim, a *mat.Dense) *mat.Dense {
	t.Helper()
	sys, err := sim.System()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"m1.position[0]", "m1.velocity[0]", "m2.position[0]", "m2.velocity[0]"}
	idx := make([]int, len(want))
	for k, w := range want {
		idx[k] = -1
		for j := 0; j < sys.Dim(); j++ {
			if sys.Component(j) == w {
				idx[k] = j
			}
		}
		if idx[k] < 0 {
			t.Fatalf("no state component %s", w)
		}
	}
	b := mat.NewDense(4, 4, nil)
	for r, i := range idx {
		for c, j := range idx {
			b.Set(r, c, a.At(i, j))
		}
	}
	return b
}

func radiusOf(t *testing.T, m mat.Matrix) float64 {
	t.Helper()
	var e mat.Eigen
	if !e.Factorize(m, mat.EigenNone) {
		t.Fatal("eigenvalues did not converge")
	}
	r := 0.0
	for _, v := range e.Values(nil) {
		r = max(r, cmplx.Abs(v))
	}
	return r
}

// TestAmplificationTwoMassesClosedForm checks the computed amplification
// matrices of a two-mass chain against the matrices derived by hand from
// the masspoint's semi-implicit Euler step, and the spectral radii and
// the largest stable step against closed forms.
//
// In the state (x1, v1, x2, v2) (deviations from rest), with step h and
// F1 = −(k1+k2)·x1 + k2·x2, F2 = k2·(x1 − x2):
//
// Jacobi: both masses read the connectors at t_n, so the step is
// symplectic Euler on the whole system:
//
//	v1' = v1 + h·F1(x1, x2)/m1,  x1' = x1 + h·v1'
//	v2' = v2 + h·F2(x1, x2)/m2,  x2' = x2 + h·v2'
//
// Each mode of M⁻¹K with ω² gives λ² − (2 − h²ω²)·λ + 1 = 0: |λ| = 1
// while h·ω ≤ 2, and ρ = (|2 − a| + √((2 − a)² − 4))/2, a = h²ω², beyond;
// the largest stable step is 2/ω_max.
//
// Gauss–Seidel, m1 then m2: m2's connector is re-evaluated with m1's new
// position, F2' = k2·(x1' − x2):
//
//	x1' = (1 − h²(k1+k2)/m1)·x1 + h·v1 + (h²k2/m1)·x2
//	v1' = −h(k1+k2)/m1·x1 + v1 + (h·k2/m1)·x2
//	v2' = v2 + (h·k2/m2)·(x1' − x2)
//	x2' = x2 + h·v2'
//
// The y and z rows (no stiffness, no gravity) are [[1, h], [0, 1]]
// blocks, of radius 1. Tolerance 1e-9 on entries of order one: the
// central differences of an affine step are exact up to rounding,
// about 1e-16·|x|/h_fd ≈ 1e-11 with the perturbation 1e-5·max(|x|, 1).
func TestAmplificationTwoMassesClosedForm(t *testing.T) {
	const (
		m1, m2 = 1.0, 0.1
		k1, k2 = 100.0, 100.0
		h      = 0.01
	)
	// Jacobi.
	sim := gsTwoMasses(t, m1, m2, k1, k2)
	a, err := sim.Amplification(nil, h)
	if err != nil {
		t.Fatal(err)
	}
	jac := mat.NewDense(4, 4, []float64{
		1 - h*h*(k1+k2)/m1, h, h * h * k2 / m1, 0,
		-h * (k1 + k2) / m1, 1, h * k2 / m1, 0,
		h * h * k2 / m2, 0, 1 - h*h*k2/m2, h,
		h * k2 / m2, 0, -h * k2 / m2, 1,
	})
	if got := xBlock(t, sim, a); !mat.EqualApprox(got, jac, 1e-9) {
		t.Errorf("Jacobi amplification:\n got %v\nwant %v", mat.Formatted(got), mat.Formatted(jac))
	}
	// ω² of M⁻¹K = [[(k1+k2)/m1, −k2/m1], [−k2/m2, k2/m2]].
	tr, det := (k1+k2)/m1+k2/m2, k1*k2/(m1*m2)
	w2max := (tr + math.Sqrt(tr*tr-4*det)) / 2
	closedRadius := func(h float64) float64 {
		a := h * h * w2max
		if a <= 4 {
			return 1
		}
		return (math.Abs(2-a) + math.Sqrt((2-a)*(2-a)-4)) / 2
	}
	r, err := sim.Stability(nil, h)
	if err != nil {
		t.Fatal(err)
	}
	jr, _ := r.Chosen()
	if !numtest.Within(jr.Radius, closedRadius(h), 1e-9) || !jr.Stable {
		t.Errorf("Jacobi at h = %v: radius %v (stable %v), closed form %v", h, jr.Radius, jr.Stable, closedRadius(h))
	}
	if want := 2 / math.Sqrt(w2max); !numtest.Within(jr.MaxDt, want, 2e-3*want) || jr.MaxDt > want {
		t.Errorf("Jacobi largest stable dt %v, closed form 2/ω_max = %v (bisection to 1e-3, from below)", jr.MaxDt, want)
	}
	hBig := 1.5 * 2 / math.Sqrt(w2max)
	rb, err := sim.Stability(nil, hBig)
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := rb.Chosen(); !numtest.Within(c.Radius, closedRadius(hBig), 1e-9*closedRadius(hBig)) || c.Stable {
		t.Errorf("Jacobi at h = %v: radius %v (stable %v), closed form %v", hBig, c.Radius, c.Stable, closedRadius(hBig))
	}

	// Gauss–Seidel in node order.
	gs := &coupling.Strategy{Scheme: coupling.GaussSeidel}
	a, err = sim.Amplification(gs, h)
	if err != nil {
		t.Fatal(err)
	}
	x1 := []float64{1 - h*h*(k1+k2)/m1, h, h * h * k2 / m1, 0}
	v1 := []float64{-h * (k1 + k2) / m1, 1, h * k2 / m1, 0}
	c := h * k2 / m2
	v2 := []float64{c * x1[0], c * x1[1], c*x1[2] - c, 1}
	x2 := []float64{h * v2[0], h * v2[1], 1 + h*v2[2], h * v2[3]}
	want := mat.NewDense(4, 4, append(append(append(append([]float64{}, x1...), v1...), x2...), v2...))
	got := xBlock(t, sim, a)
	if !mat.EqualApprox(got, want, 1e-9) {
		t.Errorf("Gauss–Seidel amplification:\n got %v\nwant %v", mat.Formatted(got), mat.Formatted(want))
	}
	rg, err := sim.Stability(gs, h)
	if err != nil {
		t.Fatal(err)
	}
	cg, _ := rg.Chosen()
	wantR := max(1, radiusOf(t, want))
	if !numtest.Within(cg.Radius, wantR, 1e-9) {
		t.Errorf("Gauss–Seidel radius %v, of the hand-derived matrix %v", cg.Radius, wantR)
	}
	// The light mass updated last, reading the heavy one's new state,
	// makes this undamped chain grow: the point of the analysis.
	if !(wantR > 1+graph.StabilityTol) || cg.Stable || !rg.Unstable() {
		t.Errorf("Gauss–Seidel m1→m2 at h = %v: radius %v, stable %v; the hand-derived matrix has %v > 1", h, cg.Radius, cg.Stable, wantR)
	}
	// The state and clock are untouched by the analysis.
	if sim.Time() != 0 || sim.StepCount() != 0 {
		t.Errorf("the analysis moved the clock: t = %v, %d steps", sim.Time(), sim.StepCount())
	}
	if x, _ := sim.Value("m2.position"); x[0] != 2 {
		t.Errorf("the analysis changed the state: m2.position = %v", x)
	}
}

// chain4 is examples/scenes/mass-spring-chain.json built in Go: four
// 1 kg masses, springs of 100 N/m with damping 0.2 N·s/m, the last mass
// 0.2 m out.
func chain4(t testing.TB) *graph.Sim {
	t.Helper()
	g := graph.New()
	for i, x := range []float64{1, 2, 3, 4.2} {
		p := masspoint.DefaultParams()
		p.InitialPosition = [3]float64{x, 0, 0}
		n, err := masspoint.New(p)
		if err != nil {
			t.Fatal(err)
		}
		g.Add("m"+string(rune('1'+i)), n)
	}
	prev := ""
	for i := 1; i <= 4; i++ {
		p := springdamper.DefaultParams()
		p.Stiffness, p.Damping, p.Offset = [3]float64{100, 0, 0}, [3]float64{0.2, 0, 0}, [3]float64{1, 0, 0}
		m := "m" + string(rune('0'+i))
		if _, err := g.AddConnector("s"+string(rune('0'+i)), p, prev, [3]float64{}, m, [3]float64{}); err != nil {
			t.Fatal(err)
		}
		prev = m
	}
	sim, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	return sim
}

// TestGaussSeidelChainStopsWithGrowthError: Gauss–Seidel on the damped
// four-mass chain at dt = 1 ms has radius 1 + 2.4e-5 (measured: the
// run's m4 reaches 62.6 m at t = 300 s, an e-folding time of about 41 s,
// ln(1 + 2.4e-5)/1 ms = 0.024/s); the run starts with an unstable
// analysis in Result.Stability and stops with a *GrowthError well
// before t = 300 s. Jacobi at the same step (symplectic Euler, radius 1)
// runs to the end, and AllowGrowth lets Gauss–Seidel run to it too.
func TestGaussSeidelChainStopsWithGrowthError(t *testing.T) {
	gs := &coupling.Strategy{Scheme: coupling.GaussSeidel}
	sim := chain4(t)
	res, err := sim.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Coupling: gs}, Dt: 1e-3, End: 300})
	var ge *graph.GrowthError
	if !errors.As(err, &ge) || !errors.Is(err, graph.ErrGrowth) {
		t.Fatalf("Gauss–Seidel run to 300 s: err = %v, want a *GrowthError", err)
	}
	if res == nil || res.Status != graph.Failed || res.Stability == nil || !res.Stability.Unstable() {
		t.Fatalf("result %+v: want Failed with an unstable Stability", res)
	}
	c, _ := res.Stability.Chosen()
	if !numtest.Within(c.Radius-1, 2.4e-5, 0.1e-5) {
		t.Errorf("Gauss–Seidel radius %v, want 1 + 2.4e-5 (the growth measured in the run)", c.Radius)
	}
	if ge.Time >= 300 || !numtest.Within(ge.Rate, 0.024, 0.003) || !strings.Contains(ge.Error(), "coupling gauss-seidel is likely unstable") {
		t.Errorf("growth error at t = %v, rate %v/s (want ≈ ln(ρ)/dt = 0.024/s): %v", ge.Time, ge.Rate, ge)
	}
	w := res.Stability.Warning()
	for _, part := range []string{"gauss-seidel is unstable at dt = 0.001 s", "1.00002415", "stable for dt ≤", "jacobi (radius 1)"} {
		if !strings.Contains(w, part) {
			t.Errorf("warning lacks %q: %s", part, w)
		}
	}

	sim = chain4(t)
	res, err = sim.Run(context.Background(), graph.Settings{Dt: 1e-3, End: 300})
	if err != nil || res.Stability.Unstable() {
		t.Fatalf("Jacobi: %v, unstable %v", err, res.Stability.Unstable())
	}
	if x, _ := sim.Value("m4.position"); !numtest.Within(x[0], 4, 0.05) {
		t.Errorf("Jacobi at t = 300 s: m4 at %v, want near its rest position 4 (the damped pulse)", x[0])
	}

	sim = chain4(t)
	res, err = sim.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Coupling: gs, AllowGrowth: true}, Dt: 1e-3, End: 300})
	if err != nil || res.Time != 300 {
		t.Fatalf("AllowGrowth: %v at t = %v", err, res.Time)
	}
}

// pushed is a 1 kg mass pushed by a source force F(t): the state grows
// polynomially (a ramp force: x ∝ t³) or exponentially (F = e^(t/τ)),
// which the input explains.
func pushed(t *testing.T, f func(float64) float64) *graph.Sim {
	t.Helper()
	g := graph.New()
	m, err := masspoint.New(masspoint.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	g.Add("m", m)
	g.Add("f", &pushSource{f: f, spec: node.NewSpec(node.Spec{
		Type:    "push",
		Outputs: []node.Field{{Name: "push", Units: "N", Shape: 3, Description: "force"}},
	})})
	g.Connect("f.push", "m.force")
	sim, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	return sim
}

// pushSource outputs the force (f(t), 0, 0).
type pushSource struct {
	node.Stateless
	spec *node.Spec
	f    func(float64) float64
}

func (n *pushSource) Spec() *node.Spec { return n.spec }
func (n *pushSource) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0], dst[1], dst[2] = n.f(t), 0, 0
	return nil
}

// TestGrowthWatchNoFalsePositives: polynomial growth (x ∝ t³ under a
// ramp force, for 10⁶ steps: 34 doublings), growth an input explains
// (an exponential force) and growth the physics explains (a negative
// stiffness, which a stable scheme must follow) run to the end.
func TestGrowthWatchNoFalsePositives(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func(float64) float64
	}{
		{"ramp", func(t float64) float64 { return t }},
		{"exponential input", func(t float64) float64 { return math.Exp(t / 5) }},
	} {
		sim := pushed(t, tc.f)
		res, err := sim.Run(context.Background(), graph.Settings{Dt: 1e-3, End: 100})
		if err != nil || res.Stability.Unstable() {
			t.Errorf("%s: %v, unstable %v", tc.name, err, res.Stability.Unstable())
		}
	}
	// A mass on a spring of negative stiffness grows as e^(√(k/m)·t) =
	// e^(0.2·t): physically.
	g := graph.New()
	p := masspoint.DefaultParams()
	p.InitialPosition = [3]float64{1e-3, 0, 0}
	m, _ := masspoint.New(p)
	g.Add("m", m)
	sp := springdamper.DefaultParams()
	sp.Stiffness = [3]float64{-0.04, 0, 0}
	if _, err := g.AddConnector("s", sp, "", [3]float64{}, "m", [3]float64{}); err != nil {
		t.Fatal(err)
	}
	sim, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(context.Background(), graph.Settings{Dt: 1e-3, End: 100})
	if err != nil || res.Stability.Unstable() {
		t.Errorf("negative stiffness: %v, unstable %v", err, res.Stability.Unstable())
	}
	if g := res.Stability.Growth; !numtest.Within(g, 0.2, 1e-9) {
		t.Errorf("physical growth %v, want √(k/m) = 0.2", g)
	}
}

// TestGrowthWatchAllocs: the watch's sample, and a co-simulation step
// with the watch on, allocate nothing: a Run of 1 600 steps allocates
// what a Run of 16 does (the analysis is done once per strategy and
// step, by the first Run).
func TestGrowthWatchAllocs(t *testing.T) {
	sim := chain4(t)
	sim.StartGrowthWatch(1e-3)
	k := 0
	if n := numtest.AllocsPerRun(100, func() {
		k++
		_ = sim.Step(1e-3)
		_ = sim.GrowthSample(k)
	}); n != 0 {
		t.Errorf("step and sample: %v allocations, want 0", n)
	}
	sim = chain4(t)
	ctx := context.Background()
	if _, err := sim.Run(ctx, graph.Settings{Mode: graph.CoSimulation{Workers: 1}, Dt: 1e-3, Steps: 16}); err != nil {
		t.Fatal(err)
	}
	short := numtest.AllocsPerRun(5, func() { _, _ = sim.Run(ctx, graph.Settings{Mode: graph.CoSimulation{Workers: 1}, Dt: 1e-3, Steps: 16}) })
	long := numtest.AllocsPerRun(5, func() {
		_, _ = sim.Run(ctx, graph.Settings{Mode: graph.CoSimulation{Workers: 1}, Dt: 1e-3, Steps: 1600})
	})
	// The race detector allocates on its own now and then: the counts
	// are compared exactly only without it.
	if long != short && !raceEnabled {
		t.Errorf("a Run of 1600 steps allocates %v times, one of 16 steps %v: the steps allocate", long, short)
	}
}

// BenchmarkGrowthSample is the watch's cost per sample (one pass over
// the state, every growthStride steps) on the four-mass chain.
func BenchmarkGrowthSample(b *testing.B) {
	sim := chain4(b)
	sim.StartGrowthWatch(1e-3)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_ = sim.GrowthSample(i)
	}
}

// TestStartCheckAnalysesEverything: the check at a run's start analyses
// a graph of any size (the matrix-free estimate above
// DenseStabilityStates values), iterated coupling groups (each trial
// step iterated to its fixed point) and multirate nodes with many
// substeps; only a node keeping hidden state is skipped (hidden_test.go),
// and a run shorter than the analysis.
func TestStartCheckAnalysesEverything(t *testing.T) {
	steps := 2 * graph.KrylovDim * graph.KrylovCycles // at least the trial steps
	run := func(n int, st *coupling.Strategy) *graph.StabilityAnalysis {
		t.Helper()
		s, err := chain(n).Build()
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Coupling: st}, Dt: 1e-3, Steps: steps})
		if err != nil {
			t.Fatal(err)
		}
		return res.Stability
	}
	for _, c := range []struct {
		n         int
		st        *coupling.Strategy
		estimated bool
	}{
		{10, nil, false},
		{graph.DenseStabilityStates, nil, true}, // two state values per mass
		{10, &coupling.Strategy{Scheme: coupling.Iterative}, false},
		{10, &coupling.Strategy{Rates: map[string]int{"m1": 100}}, false},
	} {
		r := run(c.n, c.st)
		sc, ok := r.Chosen()
		if r.Skipped != "" || !ok || sc.Estimated != c.estimated || math.IsInf(sc.Radius, 0) || r.Unstable() {
			t.Errorf("%d masses, %+v: skipped %q, chosen %+v; want the chosen scheme analysed (estimated %v) and stable", c.n, c.st, r.Skipped, sc, c.estimated)
		}
	}
	// A short run is analysed where the cost is proportionate
	// (StartCheckShare, StartCheckFloor): 20 masses (40 values) for 39
	// steps by the dense matrix (80 trial steps, within the floor), 1 000
	// masses (2 000 values) for 2 000 steps by a smaller Krylov space.
	steps = 39
	if r := run(20, nil); r.Skipped != "" || len(r.Schemes) != 1 || r.Schemes[0].Estimated {
		t.Errorf("a run of 39 steps of 40 values: skipped %q, schemes %+v; want the dense analysis", r.Skipped, r.Schemes)
	}
	steps = 2000
	if r := run(1000, nil); r.Skipped != "" || len(r.Schemes) != 1 || !r.Schemes[0].Estimated || r.Unstable() {
		t.Errorf("a run of 2000 steps of 2000 values: skipped %q, schemes %+v; want a stable matrix-free estimate", r.Skipped, r.Schemes)
	}
	// A run too short for even one Arnoldi cycle of dimension 4 (120
	// passes over the state) within max(steps/10, 2^20/values) passes:
	// 5 000 masses (10 000 values) for 10 steps, whose budget is 104.
	steps = 10
	if r := run(5000, nil); !strings.Contains(r.Skipped, "the run's 10 steps are too short for the analysis of 10000 state values") || len(r.Schemes) != 0 {
		t.Errorf("a run of 10 steps of 10 000 values: skipped %q", r.Skipped)
	}
}

// TestStartCheckCostBounded: the plan of the check at a run's start
// costs at most max(steps/StartCheckShare, StartCheckFloor/n) passes
// over the n state values, is the full analysis (dense up to
// DenseStabilityStates values, KrylovDim × KrylovCycles above) when that
// fits, and analyses every run whose budget affords one Arnoldi cycle of
// dimension 4. The pass counts are checkPlan.passes's model (a trial step
// is one pass, a Gram–Schmidt dot or update one, dense eigenvalues n²).
func TestStartCheckCostBounded(t *testing.T) {
	for _, c := range []struct {
		n, steps        int
		dense, analysed bool
		dim, cycles     int
	}{
		{6, 1, true, true, 0, 0},                 // a spring: always, densely
		{128, 1, false, true, 26, 4},             // floor 8192 passes: neither the dense n² (16 768) nor the full Krylov plan (11 360) fits
		{128, 200_000, true, true, 0, 0},         // long enough for the dense matrix
		{2000, 2000, false, true, 5, 4},          // budget 524
		{60_000, 2000, false, true, 5, 1},        // W1 at N = 10⁴: budget 200
		{600_000, 200, false, false, 0, 0},       // W1 at N = 10⁵: budget 20
		{600_000, 2_000_000, false, true, 32, 4}, // long runs get the full plan
		{60, 0, true, true, 0, 0},                // a run without an end: the full plan
	} {
		dense, dim, cycles, passes, ok := graph.StartPlan(c.n, c.steps)
		budget := max(c.steps/graph.StartCheckShare, graph.StartCheckFloor/c.n)
		if ok != c.analysed || ok && (dense != c.dense || dim != c.dim || cycles != c.cycles || c.steps > 0 && passes > budget) {
			t.Errorf("n = %d, %d steps: plan dense %v dim %d cycles %d (%d passes, analysed %v); want dense %v dim %d cycles %d analysed %v within %d passes",
				c.n, c.steps, dense, dim, cycles, passes, ok, c.dense, c.dim, c.cycles, c.analysed, budget)
		}
	}
}

// TestStartCheckRefinedForLongerRun: a Sim keeps its start analysis per
// strategy and step, but a run that affords a finer analysis than the
// kept one (made for a shorter run) analyses again: 1 100 masses (2 200
// values, above DenseMaxStates, so that the run without an end keeps the
// matrix-free estimate rather than the dense radius) for 2 000 steps get
// Krylov dimension 5 (budget 476 passes, TestStartCheckCostBounded), a
// run without an end the full KrylovDim × KrylovCycles, whose Ritz
// residual differs; a second short run reuses the finer one.
func TestStartCheckRefinedForLongerRun(t *testing.T) {
	s, err := chain(1100).Build()
	if err != nil {
		t.Fatal(err)
	}
	short := s.StartAnalysis(1e-3, 2000)
	long := s.StartAnalysis(1e-3, 0)
	again := s.StartAnalysis(1e-3, 2000)
	sc, _ := short.Chosen()
	lc, _ := long.Chosen()
	ac, _ := again.Chosen()
	if sc.Residual == lc.Residual || ac.Residual != lc.Residual || ac.Radius != lc.Radius {
		t.Errorf("residuals: 2000 steps %v, without an end %v, 2000 steps again %v: want the finer analysis made and then kept", sc.Residual, lc.Residual, ac.Residual)
	}
}

// TestStartCheckSameForAnyWorkers: the check at a run's start takes its
// trial steps on the run's engine and workers (Grain 8 makes a chain of
// 100 masspoints share its phases between two workers); its analysis is
// the same bits with one worker and with two.
func TestStartCheckSameForAnyWorkers(t *testing.T) {
	build := func() *graph.Sim {
		g := graph.New()
		prev := ""
		for i := 1; i <= 100; i++ {
			p := masspoint.DefaultParams()
			p.InitialPosition = [3]float64{float64(i) + 0.01*math.Sin(float64(i)), 0, 0}
			m, err := masspoint.New(p)
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("m%d", i)
			g.Add(name, m)
			sp := springdamper.DefaultParams()
			sp.Stiffness, sp.Offset = [3]float64{1000, 1000, 1000}, [3]float64{1, 0, 0}
			if _, err := g.AddConnector("s"+name, sp, prev, [3]float64{}, name, [3]float64{}); err != nil {
				t.Fatal(err)
			}
			prev = name
		}
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	var radii []uint64
	for _, w := range []int{1, 2} {
		res, err := build().Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Workers: w, Grain: 8}, Dt: 1e-3, Steps: 3000})
		if err != nil {
			t.Fatal(err)
		}
		c, ok := res.Stability.Chosen()
		if !ok || res.Workers != w {
			t.Fatalf("%d workers: ran with %d, analysis %+v", w, res.Workers, res.Stability)
		}
		radii = append(radii, math.Float64bits(c.Radius), math.Float64bits(c.Residual))
	}
	if radii[0] != radii[2] || radii[1] != radii[3] {
		t.Errorf("radius and residual bits with 1 worker %x %x, with 2 %x %x", radii[0], radii[1], radii[2], radii[3])
	}
}

// TestDenseAndKrylovAgree: on graphs where both run, the matrix-free
// estimate (restarted Arnoldi) agrees with the dense matrix's spectral
// radius, and both decide stability alike.
//
//   - The test chain of 60 masses (120 values, springs of 1000 N/m)
//     under Jacobi at dt = 0.04 s, beyond its stable step 2/ω_max ≈
//     0.0316 s: a dominant eigenvalue (≈ 4.155) outside the unit circle,
//     to which Arnoldi converges: agreement to 1e-6 relative (measured
//     3e-9; the dense radius is exact up to the differences' rounding,
//     1e-10).
//   - The same chain at dt = 1 ms: every eigenvalue on the unit circle.
//     Arnoldi does not converge within its budget (measured estimate
//     1.022, Ritz residual 1.5e-3): the estimate must lie within
//     CertifyFactor residuals of the dense radius 1 and count as stable
//     (undecided).
//   - The damped masspoint chain under Gauss–Seidel (24 values: the
//     Krylov space is the whole space, so Arnoldi is exact): 1e-9.
func TestDenseAndKrylovAgree(t *testing.T) {
	gs := &coupling.Strategy{Scheme: coupling.GaussSeidel}
	for _, c := range []struct {
		name string
		sim  func() *graph.Sim
		st   *coupling.Strategy
		dt   float64
		tol  float64 // relative; 0: within CertifyFactor residuals
	}{
		{"chain of 60, jacobi, dt beyond stable", func() *graph.Sim { s, _ := chain(60).Build(); return s }, nil, 0.04, 1e-6},
		{"chain of 60, jacobi, dt stable", func() *graph.Sim { s, _ := chain(60).Build(); return s }, nil, 1e-3, 0},
		{"masspoint chain, gauss-seidel", func() *graph.Sim { return chain4(t) }, gs, 1e-3, 1e-9},
	} {
		d, err := c.sim().StabilityForced(c.st, c.dt, true)
		if err != nil {
			t.Fatal(err)
		}
		k, err := c.sim().StabilityForced(c.st, c.dt, false)
		if err != nil {
			t.Fatal(err)
		}
		dc, _ := d.Chosen()
		kc, _ := k.Chosen()
		diff := math.Abs(dc.Radius - kc.Radius)
		tol := c.tol * dc.Radius
		if c.tol == 0 {
			tol = graph.CertifyFactor * kc.Residual
		}
		if dc.Estimated || !kc.Estimated || diff > tol || dc.Stable != kc.Stable {
			t.Errorf("%s: dense radius %v (stable %v), matrix-free %v (stable %v, residual %v): differ by %v, more than %v", c.name, dc.Radius, dc.Stable, kc.Radius, kc.Stable, kc.Residual, diff, tol)
		}
	}
}

// stiffSpring is one 1 kg masspoint on a springdamper of 10⁴ N/m to the
// ground along x, 1 cm out: ω = 100 rad/s.
func stiffSpring(t *testing.T) *graph.Sim {
	t.Helper()
	g := graph.New()
	p := masspoint.DefaultParams()
	p.InitialPosition = [3]float64{1.01, 0, 0}
	m, err := masspoint.New(p)
	if err != nil {
		t.Fatal(err)
	}
	g.Add("m", m)
	sp := springdamper.DefaultParams()
	sp.Stiffness, sp.Offset = [3]float64{1e4, 0, 0}, [3]float64{1, 0, 0}
	if _, err := g.AddConnector("s", sp, "", [3]float64{}, "m", [3]float64{}); err != nil {
		t.Fatal(err)
	}
	sim, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	return sim
}

// TestMonolithicRK4StiffSpringWarns: a fixed-step monolithic RK4 run of
// a stiff spring (ω = 100 rad/s) at dt = 0.05 s, beyond RK4's stable
// step on the imaginary axis 2√2/ω = 0.028284 s, starts with an unstable
// analysis naming the method, its radius and a stable step. Closed form:
// one RK4 step multiplies a mode of eigenvalue iω by R(iy) = 1 − y²/2 +
// y⁴/24 + i(y − y³/6), y = ω·dt; the free y and z motion has radius 1.
// Tolerance 1e-9 relative on the radius (the dense matrix of an affine
// step, exact up to rounding), 2e-3 on the stable step (bisection to
// 1e-3). At dt = 0.02 s the run's analysis is stable (|R(2i)| = 0.745
// < 1; the free motion's radius 1 is the largest).
func TestMonolithicRK4StiffSpringWarns(t *testing.T) {
	const omega, dt = 100.0, 0.05
	y := omega * dt
	want := cmplx.Abs(complex(1-y*y/2+y*y*y*y/24, y-y*y*y/6))
	sim := stiffSpring(t)
	res, err := sim.Run(context.Background(), graph.Settings{Mode: graph.Monolithic{Method: integrators.RK4{}}, Dt: dt, Steps: 40})
	if err != nil && res == nil {
		t.Fatal(err)
	}
	r := res.Stability
	if r == nil || r.Method != integrators.MethodRK4 || !r.Unstable() {
		t.Fatalf("analysis %+v: want an unstable rk4 analysis", r)
	}
	c, _ := r.Chosen()
	if !numtest.Within(c.Radius, want, 1e-9*want) {
		t.Errorf("rk4 radius %v, closed form |R(%vi)| = %v", c.Radius, y, want)
	}
	stable := 2 * math.Sqrt2 / omega
	if !c.Searched || c.MaxDt > stable || c.MaxDt < stable*(1-2e-3) {
		t.Errorf("largest stable dt %v (searched %v), closed form 2√2/ω = %v", c.MaxDt, c.Searched, stable)
	}
	w := r.Warning()
	for _, part := range []string{"monolithic rk4 is unstable at dt = 0.05 s", fmtG9(want), "it is stable for dt ≤ 0.0283 s", "over the run's 40 steps"} {
		if !strings.Contains(w, part) {
			t.Errorf("warning lacks %q: %s", part, w)
		}
	}
	sim = stiffSpring(t)
	res, err = sim.Run(context.Background(), graph.Settings{Mode: graph.Monolithic{Method: integrators.RK4{}}, Dt: 0.02, Steps: 40})
	if err != nil || res.Stability == nil || res.Stability.Unstable() || res.Stability.Skipped != "" {
		t.Errorf("rk4 at dt = 0.02 s: %v, analysis %+v; want analysed and stable", err, res.Stability)
	}
	// Dense and matrix-free agree here too (6 values: the Krylov space is
	// the whole space).
	k, err := stiffSpring(t).MonolithicStabilityForced(integrators.RK4{}, dt, false)
	if err != nil {
		t.Fatal(err)
	}
	if kc, _ := k.Chosen(); !kc.Estimated || !numtest.Within(kc.Radius, want, 1e-9*want) {
		t.Errorf("matrix-free rk4 radius %v (estimated %v), closed form %v", kc.Radius, kc.Estimated, want)
	}
}

func fmtG9(v float64) string { return strconv.FormatFloat(v, 'g', 9, 64) }

// BenchmarkStartCheck is the start-of-run stability check's radius of
// the chosen scheme on the test chain (two state values per mass) at 60,
// 600 and 6 000 state values, for Jacobi, Gauss–Seidel and an iterated
// group of all masses, against one step of the same run; it reports the
// trial steps the radius took (dense: 2n; matrix-free: at most
// 2·KrylovDim·KrylovCycles, each a full step; an iterated group's trial
// step iterates to its fixed point, and may not reach it: the radius
// is then +Inf and the start check reports the scheme not analysed).
// "iterative" finds the fixed point as the analysis does, by Newton with
// the interface Jacobian formed once (its 2m evaluations counted in the
// iterations); "iterative-iqn-ils" by the strategy's own IQN-ILS at the
// analysis's tolerance, as before Newton: at 600 values 1 373 against
// 5 727 group iterations over 256 trial steps (3.0 against 22 per trial
// step, Newton's count including the 600 that form its Jacobian), 2.0 s
// against 7.1 s (measured on the loaded development machine, load about
// 30 on 2 cores: indicative only).
func BenchmarkStartCheck(b *testing.B) {
	for _, n := range []int{60, 600, 6000} {
		it := &coupling.Strategy{Scheme: coupling.Iterative}
		for _, sc := range []struct {
			name   string
			st     *coupling.Strategy
			newton bool
		}{{"jacobi", nil, true}, {"gauss-seidel", &coupling.Strategy{Scheme: coupling.GaussSeidel}, true}, {"iterative", it, true}, {"iterative-iqn-ils", it, false}} {
			b.Run(fmt.Sprintf("states=%d/%s", n, sc.name), func(b *testing.B) {
				sim, err := chain(n / 2).Build()
				if err != nil {
					b.Fatal(err)
				}
				trials, iters := 0, int64(0)
				for b.Loop() {
					var r graph.SchemeStability
					if r, trials, iters, err = sim.RadiusTrialsWith(sc.st, 1e-3, sc.newton); err != nil {
						b.Fatal(err, r)
					}
				}
				b.ReportMetric(float64(trials), "trial-steps")
				if sc.st != nil && sc.st.Scheme == coupling.Iterative {
					b.ReportMetric(float64(iters), "iterations")
				}
			})
		}
		// One step of the Jacobi run, to compare the check with.
		b.Run(fmt.Sprintf("states=%d/step", n), func(b *testing.B) {
			sim, err := chain(n / 2).Build()
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if err := sim.Step(1e-3); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestObserverSeesStartAnalysis: the run's own start-of-run analysis is
// in the View from the Observer's start call on — the very value
// Result.Stability holds, not a second analysis — in co-simulation
// (Gauss–Seidel on the chain, unstable at 1 ms: the closed-form check of
// TestGaussSeidelChainStopsWithGrowthError) and in a fixed-step
// monolithic run (RK4 on the stiff spring at 0.05 s, unstable:
// TestMonolithicRK4StiffSpringWarns), so that a caller can warn before
// the first step. The step warnings are there too, as Result.Warnings.
func TestObserverSeesStartAnalysis(t *testing.T) {
	for _, tc := range []struct {
		name     string
		sim      *graph.Sim
		set      graph.Settings
		unstable bool
	}{
		// Over 100 steps the chain's radius 1 + 2.4e-5 is harmless (not
		// Unstable), but the analysis is made and reported all the same.
		{"gauss-seidel", chain4(t), graph.Settings{Mode: graph.CoSimulation{Coupling: &coupling.Strategy{Scheme: coupling.GaussSeidel}}, Dt: 1e-3, Steps: 100}, false},
		{"rk4", stiffSpring(t), graph.Settings{Mode: graph.Monolithic{Method: integrators.RK4{}}, Dt: 0.05, Steps: 40}, true},
	} {
		var start, end *graph.StabilityAnalysis
		var warned []graph.StepWarning
		tc.set.Observer = graph.ObserverFunc(func(v *graph.View) error {
			switch v.Phase {
			case graph.ObserveStart:
				start, warned = v.Stability, v.Warnings
			case graph.ObserveEnd:
				end = v.Stability
			}
			return nil
		})
		res, err := tc.sim.Run(context.Background(), tc.set)
		if res == nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if start == nil || start.Skipped != "" || start.Unstable() != tc.unstable || start != res.Stability || end != res.Stability {
			t.Errorf("%s: start call saw %+v (%p), end %p, Result.Stability %p: want the one analysis, unstable %v", tc.name, start, start, end, res.Stability, tc.unstable)
		}
		if len(warned) != len(res.Warnings) {
			t.Errorf("%s: start call saw %d step warnings, Result has %d", tc.name, len(warned), len(res.Warnings))
		}
	}
}
