package graph_test

import (
	"context"
	"math"
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

// TestDenseRadiusCostsTwoTrialsPerValue: the dense amplification matrix
// is formed by central differences along each unit vector, two trial
// steps per state value (stability.go's cost model, DenseStabilityStates:
// "2n trial steps"), for a co-simulation scheme and for a monolithic
// method alike; the start check's cost bound (checkPlan.passes) rests
// on this count.
func TestDenseRadiusCostsTwoTrialsPerValue(t *testing.T) {
	sim := gsTwoMasses(t, 1, 0.1, 100, 100)
	n := sim.StateSize()
	sc, trials, _, err := sim.RadiusTrials(nil, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Estimated || trials != 2*n {
		t.Errorf("Jacobi, %d values: %d trial steps (estimated %v), want 2n = %d from the dense matrix", n, trials, sc.Estimated, 2*n)
	}
	msc, trials, err := sim.MonolithicDenseTrials(integrators.RK4{}, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	if trials != 2*n || !(msc.Radius > 0) {
		t.Errorf("RK4, %d values: %d trial steps (radius %v), want 2n = %d", n, trials, msc.Radius, 2*n)
	}
}

// TestMultirateJacobiAmplification: Jacobi with a rate is analysed as
// the multirate step it is, not as plain Jacobi. The reference matrix is
// computed independently of the analysis: central differences of real
// one-step runs of the multirate strategy from the perturbed states
// (Sim.SetState, Sim.Run). The step is affine in the state (linear
// springs), so both are exact up to rounding: entries of order one
// agree to 1e-7 (perturbation 1e-4, rounding 1e-16·2/1e-4 ≈ 1e-12 on
// states of order one; margin for the entries' sums). The light mass
// m2 (ω = √(k2/m2) ≈ 31.6/s) is subcycled 4 times in a step of 0.05 s,
// where plain Jacobi is unstable (h·ω_max > 2) and the multirate step is
// not the same matrix.
func TestMultirateJacobiAmplification(t *testing.T) {
	const h = 0.05
	sim := gsTwoMasses(t, 1, 0.1, 100, 100)
	st := &coupling.Strategy{Rates: map[string]int{"m2": 4}}
	got, err := sim.Amplification(st, h)
	if err != nil {
		t.Fatal(err)
	}
	x0 := sim.State(nil)
	n := len(x0)
	want := mat.NewDense(n, n, nil)
	const d = 1e-4
	for j := 0; j < n; j++ {
		var cols [2][]float64
		for k, sgn := range []float64{1, -1} {
			x := append([]float64(nil), x0...)
			x[j] += sgn * d
			if err := sim.SetState(x, 0); err != nil {
				t.Fatal(err)
			}
			sim.ResetCoupling()
			if _, err := sim.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Coupling: st, AllowGrowth: true}, Dt: h, Steps: 1}); err != nil {
				t.Fatal(err)
			}
			cols[k] = sim.State(nil)
		}
		for i := 0; i < n; i++ {
			want.Set(i, j, (cols[0][i]-cols[1][i])/(2*d))
		}
	}
	if !mat.EqualApprox(got, want, 1e-7) {
		t.Errorf("multirate Jacobi amplification differs from the runs':\n got %v\nwant %v", mat.Formatted(xBlock(t, sim, got)), mat.Formatted(xBlock(t, sim, want)))
	}
	plain, err := sim.Amplification(nil, h)
	if err != nil {
		t.Fatal(err)
	}
	if mat.EqualApprox(plain, want, 1e-3) {
		t.Error("the multirate step's matrix equals plain Jacobi's: the test cannot tell them apart")
	}
}

// TestEstimatedGrowthOfLargeState: the matrix-free estimate of the
// physical growth rate (forced here on a small graph) perturbs each
// value in proportion to the state's scale max(‖x‖∞, 1) and divides the
// difference by the same: a mass on a spring of negative stiffness
// k = −0.04 N/m (1 kg) grows as e^(√(|k|/m)·t), so max Re λ = 0.2/s
// exactly, whatever the state (the spring is linear), here 1 km from its
// anchor (scale 1000). The estimate converges to the dense Jacobian's
// eigenvalue: 1e-6 relative covers the differences' rounding.
func TestEstimatedGrowthOfLargeState(t *testing.T) {
	g := graph.New()
	p := masspoint.DefaultParams()
	p.InitialPosition = [3]float64{1000, 0, 0}
	m, err := masspoint.New(p)
	if err != nil {
		t.Fatal(err)
	}
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
	for _, dense := range []bool{true, false} {
		r, err := sim.StabilityForced(nil, 1e-3, dense)
		if err != nil {
			t.Fatal(err)
		}
		if !r.GrowthKnown || !numtest.Within(r.Growth, 0.2, 1e-6) {
			t.Errorf("dense %v: growth %v (known %v), want √(|k|/m) = 0.2", dense, r.Growth, r.GrowthKnown)
		}
		if want := math.Exp(2 * 1e-3 * 0.2); !numtest.Within(r.Bound, want, 1e-9) {
			t.Errorf("dense %v: bound %v, want exp(2·dt·0.2) = %v", dense, r.Bound, want)
		}
	}
}

// signSpring is a connector whose force has constant magnitude f0 and
// the sign of its stretch b − a − rest (+ at zero): force f on a, −f on
// b, pulling the ends together when stretched. It is discontinuous where
// the stretch is zero.
type signSpring struct {
	node.Stateless
	spec     *node.Spec
	f0, rest float64
}

func newSignSpring(f0, rest float64) *signSpring {
	return &signSpring{f0: f0, rest: rest, spec: node.NewSpec(node.Spec{
		Type: "sign-spring",
		Inputs: []node.Input{
			{Name: "a", Units: "m", Description: "position of end a", Combine: node.Replacing},
			{Name: "b", Units: "m", Description: "position of end b", Combine: node.Replacing},
		},
		Outputs: []node.Field{
			{Name: "fa", Units: "N", Description: "force on a"},
			{Name: "fb", Units: "N", Description: "force on b"},
		},
		Feedthrough: true,
	})}
}

func (n *signSpring) Spec() *node.Spec { return n.spec }
func (n *signSpring) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	f := n.f0
	if in.Values[1]-in.Values[0]-n.rest < 0 {
		f = -f
	}
	dst[0], dst[1] = f, -f
	return nil
}

// TestAnalysisFlagsGroupWithoutFixedPoint: two 1 kg masses, at rest with
// the sign spring at its switch (stretch 0), iterated as one group at
// dt = 0.1 s. The group's fixed point does not exist: the force +f0
// moves the ends together within the step, to a stretch of
// −2·dt²·f0/m = −0.02 m, where the force is −f0, which moves them apart
// to +0.02 m; every iterate flips, and the residual stays 2·f0, far
// above analysisResidual relative. The analysis must say so: as the
// chosen strategy, it skips the graph with the reason; as an
// alternative to Jacobi, that scheme's radius is +Inf with the note.
func TestAnalysisFlagsGroupWithoutFixedPoint(t *testing.T) {
	g := graph.New()
	g.Add("a", newMass(1, 0))
	g.Add("b", newMass(1, 1))
	g.Add("s", newSignSpring(1, 1))
	g.Connect("a.x", "s.a")
	g.Connect("b.x", "s.b")
	g.Connect("s.fa", "a.force")
	g.Connect("s.fb", "b.force")
	sim, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	it := &coupling.Strategy{Scheme: coupling.Iterative}
	r, err := sim.Stability(it, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Skipped, "does not reach the analysis's fixed-point tolerance") || len(r.Schemes) != 0 {
		t.Errorf("iterated: skipped %q, schemes %+v; want the group's non-convergence", r.Skipped, r.Schemes)
	}
	r, err = sim.Stability(nil, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, sc := range r.Schemes {
		if strings.HasPrefix(sc.Strategy, "iterative") {
			found = true
			if !math.IsInf(sc.Radius, 1) || !strings.Contains(sc.Note, "does not converge") {
				t.Errorf("%s: radius %v, note %q; want +Inf, its group iteration does not converge", sc.Strategy, sc.Radius, sc.Note)
			}
		}
	}
	if !found {
		t.Errorf("no iterated alternative in %+v", r.Schemes)
	}
}

// TestLargestStableStepSearch checks the search for the largest stable
// step (SchemeStability.MaxDt) from both sides against closed forms:
//
//   - A free 1 kg masspoint (no force): Jacobi's step is exact free
//     motion, amplification blocks [[1, h], [0, 1]] of radius 1 at every
//     h, so every step is stable: the search doubles from dt ten times
//     and reports MaxDt = 2¹⁰·dt (exact: powers of two) with AtLeast.
//   - gsTwoMasses (m1 = 1, m2 = 0.1, k1 = k2 = 100) under Jacobi, from an
//     unstable step 1.5·2/ω_max: the search halves to a stable step and
//     bisects to the closed form 2/ω_max from below, within the
//     bisection's relative precision 1e-3 (2e-3 allowed: the
//     bisection's last interval and the radius's 1e-6 tolerance).
func TestLargestStableStepSearch(t *testing.T) {
	g := graph.New()
	m, err := masspoint.New(masspoint.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	g.Add("m", m)
	free, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	const dt = 0.01
	r, err := free.Stability(nil, dt)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := r.Chosen()
	if !c.Stable || !c.Searched || !c.AtLeast || c.MaxDt != 1024*dt {
		t.Errorf("free mass: stable %v, searched %v, MaxDt %v (at least %v); want every step stable: MaxDt = 1024·dt = %v, AtLeast", c.Stable, c.Searched, c.MaxDt, c.AtLeast, 1024*dt)
	}

	const (
		m1, m2 = 1.0, 0.1
		k1, k2 = 100.0, 100.0
	)
	tr, det := (k1+k2)/m1+k2/m2, k1*k2/(m1*m2)
	wmax := math.Sqrt((tr + math.Sqrt(tr*tr-4*det)) / 2)
	sim := gsTwoMasses(t, m1, m2, k1, k2)
	r, err = sim.Stability(nil, 1.5*2/wmax)
	if err != nil {
		t.Fatal(err)
	}
	c, _ = r.Chosen()
	want := 2 / wmax
	if c.Stable || !c.Searched || c.AtLeast || c.MaxDt > want || !numtest.Within(c.MaxDt, want, 2e-3*want) {
		t.Errorf("two masses from an unstable step: stable %v, searched %v, MaxDt %v (at least %v); want 2/ω_max = %v from below", c.Stable, c.Searched, c.MaxDt, c.AtLeast, want)
	}
	// From a stable step above √2 s the search doubles to an unstable
	// one and bisects back: soft springs k1 = k2 = 0.01 N/m give
	// 2/ω_max ≈ 6.0 s; from dt = 1 s, 2 and 4 s are stable, 8 s is not.
	soft := gsTwoMasses(t, m1, m2, 0.01, 0.01)
	str, sdet := 0.02/m1+0.01/m2, 0.01*0.01/(m1*m2)
	softWant := 2 / math.Sqrt((str+math.Sqrt(str*str-4*sdet))/2)
	r, err = soft.Stability(nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	c, _ = r.Chosen()
	if !c.Stable || !c.Searched || c.AtLeast || c.MaxDt > softWant || !numtest.Within(c.MaxDt, softWant, 2e-3*softWant) {
		t.Errorf("soft two masses from a stable 1 s: stable %v, searched %v, MaxDt %v (at least %v); want 2/ω_max = %v from below", c.Stable, c.Searched, c.MaxDt, c.AtLeast, softWant)
	}
	// The search halves at most 20 times: from 0.9·2²⁰·(2/ω_max) it
	// reaches the stable 0.9·(2/ω_max) at the 20th halving and bisects
	// to 2/ω_max; from 1.5·2²⁰·(2/ω_max) every step down to dt/2²⁰ is
	// unstable: MaxDt 0 (SchemeStability: "0 when no step in that range
	// is stable").
	for _, f := range []float64{0.9, 1.5} {
		r, err = sim.Stability(nil, f*(1<<20)*want)
		if err != nil {
			t.Fatal(err)
		}
		c, _ = r.Chosen()
		ok := numtest.Within(c.MaxDt, want, 2e-3*want) && c.MaxDt <= want
		if f > 1 {
			ok = c.MaxDt == 0
		}
		if !c.Searched || c.Stable || c.AtLeast || !ok {
			t.Errorf("two masses from %v·2²⁰·(2/ω_max): searched %v, stable %v, MaxDt %v (at least %v)", f, c.Searched, c.Stable, c.MaxDt, c.AtLeast)
		}
	}
}

// TestAnalysisAcceptsGroupAtItsRoundingFloor: an iterated group whose
// fixed point can be reached only to its rounding floor is accepted when
// that floor is within analysisResidual (1e-9) relative to its interface
// values, as stability.go documents (analysisIteration: "counts as not
// converged when that iterate's residual exceeds analysisResidual
// relative to the interface values"). Two 1 kg masses 1 000 km from the
// origin joined by a spring of 1e8 N/m stretched 1 m: interface forces
// of 1e8 N, computed from positions whose rounding (1e-10 m) makes
// forces round at about 1e-2 N, 1e-10 relative: far above IQN-ILS's own
// tolerance (RTol 1e-14), so the trial steps use up their iterations
// (about 38 of 40 each on average), and far below 1e-9 relative, so the
// analysis accepts them. The undamped chain at h = 1e-4 s (h·ω = 1.4 <
// 2) has radius 1 (semi-implicit Euler on an undamped mode): within
// StabilityTol.
func TestAnalysisAcceptsGroupAtItsRoundingFloor(t *testing.T) {
	g := graph.New()
	for i, name := range []string{"a", "b"} {
		p := masspoint.DefaultParams()
		p.Mass, p.InitialPosition = 1, [3]float64{1e6 + 2*float64(i), 0, 0}
		n, err := masspoint.New(p)
		if err != nil {
			t.Fatal(err)
		}
		g.Add(name, n)
	}
	p := springdamper.DefaultParams()
	p.Stiffness, p.Offset = [3]float64{1e8, 0, 0}, [3]float64{1, 0, 0}
	if _, err := g.AddConnector("s", p, "a", [3]float64{}, "b", [3]float64{}); err != nil {
		t.Fatal(err)
	}
	sim, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	it := &coupling.Strategy{Scheme: coupling.Iterative}
	sc, trials, iters, err := sim.RadiusTrialsWith(it, 1e-4, false)
	if err != nil {
		t.Fatal(err)
	}
	if iters < int64(30*trials) {
		t.Fatalf("%d iterations in %d trial steps: the group meets IQN-ILS's tolerance, so the test does not reach the floor", iters, trials)
	}
	if !numtest.Within(sc.Radius, 1, graph.StabilityTol) || sc.Note != "" {
		t.Errorf("radius %v, note %q; want 1 (an undamped mode), accepted at the rounding floor", sc.Radius, sc.Note)
	}
}

// TestKrylovExactOnSmallState: on a state of n ≤ KrylovDim values the
// Arnoldi iteration spans the whole space within n steps, where the
// next vector is rounding (about 1e-16 of the Hessenberg entries) and
// the iteration stops as invariant: SchemeStability documents Residual 0
// for that case, "the estimate is then exact up to rounding". The
// matrix-free estimate (forced) then equals the dense radius: 1e-8
// relative covers the differences' rounding (perturbation 1e-5, entries
// 1e-11 relative). The invariance test is relative to the Hessenberg
// entries: at dt = 1 s both graphs are far beyond their
// stable step (radius 10² to 10³), and the rounding of the last vector
// grows with it.
func TestKrylovExactOnSmallState(t *testing.T) {
	for name, sim := range map[string]*graph.Sim{"two masses": gsTwoMasses(t, 1, 0.1, 100, 100), "chain4": chain4(t)} {
		for _, dt := range []float64{0.01, 1} {
			for _, st := range []*coupling.Strategy{nil, {Scheme: coupling.GaussSeidel}} {
				est, err := sim.StabilityForced(st, dt, false)
				if err != nil {
					t.Fatal(err)
				}
				dense, err := sim.StabilityForced(st, dt, true)
				if err != nil {
					t.Fatal(err)
				}
				e, _ := est.Chosen()
				d, _ := dense.Chosen()
				if !e.Estimated || e.Residual != 0 || !numtest.Within(e.Radius, d.Radius, 1e-8*max(1, d.Radius)) {
					t.Errorf("%s, %s, dt %v: estimate %v (estimated %v, residual %v), dense %v; want the invariant estimate, residual 0, equal to the dense radius", name, e.Strategy, dt, e.Radius, e.Estimated, e.Residual, d.Radius)
				}
			}
		}
	}
}
