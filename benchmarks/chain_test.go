package benchmarks

import (
	"context"
	"math"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/internal/numtest"
)

// The quick correctness tests run small chains (N ≤ 300); the large sizes
// belong to the benchmarks and to go run ./benchmarks/report.

// near is the package's tolerance helper: |got − want| ≤
// tol·max(|got|, |want|, floor), relative to the larger magnitude and
// absolute below floor.
func near(got, want, tol, floor float64) bool {
	return math.Abs(got-want) <= tol*math.Max(floor, math.Max(math.Abs(got), math.Abs(want)))
}

func build(t testing.TB, c Chain) *graph.Sim {
	t.Helper()
	s, err := c.Build()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The modal solution solves m·ü = K·u + C·u̇ (tridiagonal, walls fixed):
// the residual by central differences of Chain.Exact (h = 1e-4, error
// O(h²·ω⁴·A) ≈ 2e-4 of the force scale k·A) vanishes for every mode, and
// the velocity is the derivative of the displacement (error
// O(h²·ω³·A) ≈ 4e-6 of the velocity scale A·ω_max; bound 1e-5).
func TestExactSolvesChain(t *testing.T) {
	c := AllModes(7)
	const h, tt = 1e-4, 0.37
	n := c.N
	u, v := make([]float64, n), make([]float64, n)
	up, vp := make([]float64, n), make([]float64, n)
	um, vm := make([]float64, n), make([]float64, n)
	c.Exact(tt, u, v)
	c.Exact(tt+h, up, vp)
	c.Exact(tt-h, um, vm)
	at := func(s []float64, i int) float64 {
		if i < 0 || i >= n {
			return 0
		}
		return s[i]
	}
	for i := 0; i < n; i++ {
		acc := (up[i] - 2*u[i] + um[i]) / (h * h)
		if vel := (up[i] - um[i]) / (2 * h); !numtest.Within(vel, v[i], 1e-5*ChainAmplitude*c.Omega(n)) {
			t.Errorf("mass %d: velocity %g, d/dt of displacement %g", i+1, v[i], vel)
		}
		force := ChainStiffness*(at(u, i-1)-2*u[i]+at(u, i+1)) + ChainDamping*(at(v, i-1)-2*v[i]+at(v, i+1))
		if !numtest.Within(ChainMass*acc, force, 1e-3*ChainStiffness*ChainAmplitude) {
			t.Errorf("mass %d: m·ü = %g, force %g", i+1, ChainMass*acc, force)
		}
	}
	// The damping ratio of mode 1 at N = 10: ζ = c·ω/(2k), ω = 2√1000·sin(π/22).
	w := 2 * math.Sqrt(1000) * math.Sin(math.Pi/22)
	if _, z := Mode1(10).Damping(1); !near(z, w/2000, 1e-15, 0) {
		t.Errorf("ζ1 = %v, want %v", z, w/2000)
	}
}

// W1 in co-simulation is right: after 1000 steps of 1 ms the error of
// semi-implicit Euler against the damped modal solution is first order,
// about Δt/t = 1e-3 of the motion (measured 0.99e-3 at N = 10 and 1000,
// 0.92e-3 at N = 100; bound 2e-3), nothing moves off the chain axis, and
// the graph matches the hand-written loop to round-off (1e-13 of the
// amplitude; it is bit-identical on amd64).
func TestChainCoSimulation(t *testing.T) {
	for _, n := range []int{10, 100} {
		c := Mode1(n)
		s := build(t, c)
		if _, err := s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Workers: 1}, Dt: ChainDt, Steps: ChainSteps}); err != nil {
			t.Fatal(err)
		}
		got := s.State(nil)
		e := c.Measure(got, s.Time())
		if e.Motion > 2e-3 || e.Transverse != 0 || s.Time() != 1 {
			t.Errorf("N=%d: errors %+v at t=%v", n, e, s.Time())
		}
		y := c.InitialState()
		HandSIE(y, n, ChainSteps, ChainDt)
		for i := range y {
			if !near(got[i], y[i], 1e-13, ChainAmplitude) {
				t.Fatalf("N=%d: state[%d] graph %v, hand-written %v", n, i, got[i], y[i])
			}
		}
	}
}

// Results are bit-identical for every worker count, with the phases split
// across workers (Grain 1) or not.
func TestChainWorkersBitIdentical(t *testing.T) {
	c := Mode1(300)
	ref := build(t, c)
	if _, err := ref.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Workers: 1}, Dt: ChainDt, Steps: 50}); err != nil {
		t.Fatal(err)
	}
	want := ref.State(nil)
	for _, w := range []int{2, 3, 4} {
		for _, grain := range []int{1, 0} {
			s := build(t, c)
			res, err := s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Workers: w, Grain: grain}, Dt: ChainDt, Steps: 50})
			if err != nil {
				t.Fatal(err)
			}
			if grain == 1 && res.Workers != w {
				t.Errorf("workers=%d grain=1: ran with %d workers", w, res.Workers)
			}
			got := s.State(nil)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("workers=%d grain=%d: state[%d] = %v, one worker %v", w, grain, i, got[i], want[i])
				}
			}
		}
	}
}

// W1 in monolithic mode: RK4 and fixed-step Dormand–Prince through the
// graph adapter match the hand-written methods to round-off and the modal
// solution to their order (RK4 1.9e-10 of the amplitude at N = 10, bound
// 1e-9; Dormand–Prince below that).
func TestChainMonolithic(t *testing.T) {
	const n, steps = 10, 200
	c := Mode1(n)
	for _, name := range []string{integrators.MethodRK4, integrators.MethodDormandPrince} {
		m, _ := integrators.ByName(name)
		s := build(t, c)
		if _, err := s.RunMonolithic(context.Background(), m, nil, graph.Settings{Dt: ChainDt, Steps: steps}); err != nil {
			t.Fatal(err)
		}
		got := s.State(nil)
		var hand []float64
		if name == integrators.MethodRK4 {
			h := NewHandRK4(n, c.InitialState())
			for range steps {
				h.Step(ChainDt)
			}
			hand = h.State()
		} else {
			h := NewHandDP(n, c.InitialState())
			for range steps {
				h.Step(ChainDt)
			}
			_, hand = h.State()
		}
		for i := range got {
			if !near(got[i], hand[i], 1e-13, ChainAmplitude) {
				t.Fatalf("%s: state[%d] graph %v, hand-written %v", name, i, got[i], hand[i])
			}
		}
		if e := c.Measure(got, s.Time()); e.State > 1e-9 || e.Transverse != 0 {
			t.Errorf("%s: errors %+v", name, e)
		}
	}
}

// W1b: the adaptive Dormand–Prince driver through the graph takes the
// same steps as the hand-written driver, agrees with it to round-off, and
// with every mode excited meets its tolerance against the modal solution
// (RTol 1e-6: the error stays below 1e-5 of the amplitude).
func TestChainAdaptive(t *testing.T) {
	c := AllModes(20)
	s := build(t, c)
	res, err := s.Integrate(context.Background(), 0.2, integrators.DormandPrince{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := NewHandDP(c.N, c.InitialState())
	h.Integrate(0.2)
	_, hand := h.State()
	got := s.State(nil)
	if res.Steps != h.Steps || res.Rejected != h.Rejected || res.Integrator.FuncEvals != h.Evals {
		t.Errorf("graph %d steps, %d rejected, %d evaluations; hand-written %d, %d, %d", res.Steps, res.Rejected, res.Integrator.FuncEvals, h.Steps, h.Rejected, h.Evals)
	}
	for i := range got {
		if !near(got[i], hand[i], 1e-12, ChainAmplitude) {
			t.Fatalf("state[%d] graph %v, hand-written %v", i, got[i], hand[i])
		}
	}
	if e := c.Measure(got, 0.2); e.State > 1e-5 {
		t.Errorf("errors %+v", e)
	}
}

// Stepping allocates nothing: a co-simulation step and a fixed-step RK4
// step through the graph's System.
func TestChainZeroAllocs(t *testing.T) {
	s := build(t, Mode1(50))
	if a := numtest.AllocsPerRun(50, func() { _ = s.Step(ChainDt) }); a != 0 {
		t.Errorf("Sim.Step allocates %v times", a)
	}
	sys, err := s.System()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{integrators.MethodRK4, integrators.MethodDormandPrince} {
		m, _ := integrators.ByName(name)
		st, err := m.New(sys, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Init(0, s.State(nil)); err != nil {
			t.Fatal(err)
		}
		if a := numtest.AllocsPerRun(50, func() { _ = st.Step(ChainDt) }); a != 0 {
			t.Errorf("%s step through the graph allocates %v times", name, a)
		}
	}
}

// W2: the event-localized adaptive run finds the four analytic impacts to
// 1e-9 s. Fixed-step co-simulation is first order: each bounce starts
// from a slightly wrong speed, so the impact error grows from bounce to
// bounce (0.2, 0.0, −1.1, −2.9 ms at Δt = 1 ms; bound 5 ms).
func TestBounce(t *testing.T) {
	want := []float64{1.4278431, 3.9979607, 6.3110666, 8.3928619}
	got := BounceImpacts(BounceEnd)
	if len(got) != len(want) {
		t.Fatalf("analytic impacts %v", got)
	}
	for i := range want {
		if !numtest.Within(got[i], want[i], 5e-8) {
			t.Errorf("analytic impact %d at %.8f, want %.7f", i+1, got[i], want[i])
		}
	}
	a, err := BounceAdaptive(1e-10)
	if err != nil {
		t.Fatal(err)
	}
	if e := a.MaxImpactError(); !numtest.AtMost(e, 1e-9) {
		t.Errorf("adaptive: impacts %v, error %g", a.Impacts, e)
	}
	f, err := BounceFixed(1e-3)
	if err != nil {
		t.Fatal(err)
	}
	if e := f.MaxImpactError(); !numtest.AtMost(e, 5e-3) {
		t.Errorf("fixed step: impacts %v, error %g", f.Impacts, e)
	}
}

// W3: both methods take 120 steps and count their work; Newmark keeps the
// undamped energy ½(vᵀv + qᵀKq) bounded (it conserves it for linear
// forces up to the Newton tolerance).
func TestTwoMass(t *testing.T) {
	for _, m := range []integrators.SecondOrderMethod{integrators.Newmark{Beta: 0.25, Gamma: 0.5}, integrators.GeneralizedAlpha{RhoInf: 0.5}} {
		r, err := TwoMass(m)
		if err != nil {
			t.Fatal(err)
		}
		if r.Stats.Steps != TwoMassSteps || r.Stats.FuncEvals == 0 {
			t.Errorf("%s: stats %+v", m.Name(), r.Stats)
		}
		if !numtest.Within(r.Q[0], 0, 1) || !numtest.Within(r.Q[1], 0, 1) {
			t.Errorf("%s: q(12 s) = %v", m.Name(), r.Q)
		}
	}
}

// The fused baseline does HandSIE's arithmetic in HandSIE's order: the
// two agree bit for bit.
func TestHandSIEFused(t *testing.T) {
	for _, n := range []int{1, 2, 7, 100} {
		a, b := Mode1(n).InitialState(), Mode1(n).InitialState()
		HandSIE(a, n, 200, ChainDt)
		HandSIEFused(b, n, 200, ChainDt)
		for i := range a {
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
				t.Fatalf("N=%d: state[%d] HandSIE %v, HandSIEFused %v", n, i, a[i], b[i])
			}
		}
	}
}
