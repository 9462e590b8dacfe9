package graph_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
)

// scaler is a one-value node whose own explicit step multiplies its
// state by r: x_{n+1} = r·x_n, so x_n = x0·rⁿ exactly up to rounding.
// With |r| > 1 it grows exponentially the way an explicit scheme beyond
// its stable step does (r < 0: the sign flips every step). It has no
// Derivatives, so the graph has no monolithic view and the physical
// growth rate is unknown (GrowthError.Physical NaN): nothing in the
// physics explains the growth. Its input is read by nothing; it lets a
// source be wired into the graph.
type scaler struct {
	spec  *node.Spec
	r, x0 float64
}

func newScaler(r, x0 float64) *scaler {
	return &scaler{r: r, x0: x0, spec: node.NewSpec(node.Spec{
		Type:   "scaler",
		State:  []node.Field{{Name: "x", Units: "m", Description: "scaled value"}},
		Inputs: []node.Input{{Name: "u", Units: "N", Shape: 3, Description: "ignored", Combine: node.Additive, Default: []float64{0, 0, 0}}},
	})}
}

func (n *scaler) Spec() *node.Spec           { return n.spec }
func (n *scaler) InitialState(dst []float64) { dst[0] = n.x0 }
func (n *scaler) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = n.r * x[0]
	return nil
}

// power is a one-value node whose state is (t/τ)^p at the end of each
// step: polynomial growth of degree p with no input and no physics
// behind it (no Derivatives).
type power struct {
	spec   *node.Spec
	tau, p float64
}

func newPower(tau, p float64) *power {
	return &power{tau: tau, p: p, spec: node.NewSpec(node.Spec{
		Type:  "power",
		State: []node.Field{{Name: "x", Units: "m", Description: "(t/τ)^p"}},
	})}
}

func (n *power) Spec() *node.Spec           { return n.spec }
func (n *power) InitialState(dst []float64) { dst[0] = 0 }
func (n *power) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = math.Pow((t+dt)/n.tau, n.p)
	return nil
}

// growthFire is the growth watch's documented rule (graph/growth.go's
// header) applied to the closed form d_n = |x0|·|rⁿ − 1| of a scaler
// (the largest change of any state value since the start), sampled
// every 16 steps: the base is the first sample above the floor
// 1e-9·max(M, 1), M the largest state magnitude at the start, and for
// exponential growth (constant doubling intervals: spread and trend
// hold) the watch fires at the first sample by which d has crossed six
// doublings of the base, the five intervals it compares. It returns that
// step and d there (0, 0 when it does not fire within steps).
func growthFire(x0, r, m float64, steps int) (int, float64) {
	floor := 1e-9 * max(m, 1)
	base := 0.0
	for n := 16; n <= steps; n += 16 {
		d := math.Abs(x0 * (math.Pow(r, float64(n)) - 1))
		if base == 0 {
			if d > floor {
				base = d
			}
			continue
		}
		if math.Log2(d/base) >= 6 {
			return n, d
		}
	}
	return 0, 0
}

// TestGrowthErrorTimesExponentialGrowth: a scaler with r = −1.05 (a
// sign-flipping growth by 5 % per step, as an explicit step beyond its
// stable step grows) from x0 = 1e-15 stops the run with a *GrowthError
// whose fields are those of the closed form x_n = x0·(−1.05)ⁿ:
//
//   - Doubling = dt·ln 2/ln 1.05 (14.2 steps), Rate = ln 2/Doubling =
//     ln(1.05)/dt. The watch interpolates the crossing times in log₂ d,
//     which is linear in n up to log₂(1 − 1.05⁻ⁿ), whose slope is below
//     1e-6 of ln 1.05 once d is above the floor (1.05ⁿ > 10⁶): 1e-5
//     relative covers it.
//   - Step, Time = Step·dt and Change = d at that step from growthFire.
//   - Component: the scaler's value, the one that moved.
//
// With an idle value of magnitude 1e6 in the graph (a second scaler
// with r = 1) the floor is 1e-9·1e6 = 1e-3 instead of 1e-9: the watch
// takes its base, and so fires, only when the change exceeds it, 288
// steps later (growthFire; 1.05²⁸⁸ ≈ 10⁶), and the change it reports is at least 2⁶
// times the floor: a change of 1e-9 of the state's magnitude is
// rounding, not the start of a growth.
//
// A constant source (1 000 N, wired to the scaler's ignored input)
// explains nothing: the run stops as without it. A source growing as
// fast as the state, 1e-3·e^(λt) with λ = ln(1.05)/dt, explains the
// growth (an input growing at least half as fast), and the run goes
// to its end.
func TestGrowthErrorTimesExponentialGrowth(t *testing.T) {
	const (
		dt    = 1e-3
		r     = -1.05
		x0    = 1e-15
		steps = 800
	)
	lambda := math.Log(1.05) / dt
	for _, tc := range []struct {
		name   string
		idle   float64 // magnitude of an idle value (0: none)
		source func(float64) float64
		fires  bool
	}{
		{"alone", 0, nil, true},
		{"large idle value", 1e6, nil, true},
		{"constant source", 0, func(float64) float64 { return 1e3 }, true},
		{"source growing as fast", 0, func(t float64) float64 { return 1e-3 * math.Exp(lambda*t) }, false},
	} {
		g := graph.New()
		g.Add("g", newScaler(r, x0))
		if tc.idle != 0 {
			g.Add("idle", newScaler(1, tc.idle))
		}
		if tc.source != nil {
			g.Add("f", &pushSource{f: tc.source, spec: node.NewSpec(node.Spec{
				Type:    "push",
				Outputs: []node.Field{{Name: "push", Units: "N", Shape: 3, Description: "force"}},
			})})
			g.Connect("f.push", "g.u")
		}
		sim, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		res, err := sim.Run(context.Background(), graph.Settings{Dt: dt, Steps: steps})
		var ge *graph.GrowthError
		if !tc.fires {
			if err != nil || res.Steps != steps {
				t.Errorf("%s: %v after %d steps; want the run to its end (the input explains the growth)", tc.name, err, res.Steps)
			}
			continue
		}
		if !errors.As(err, &ge) {
			t.Errorf("%s: err = %v, want a *GrowthError", tc.name, err)
			continue
		}
		step, d := growthFire(x0, r, max(x0, tc.idle), steps)
		if ge.Step != step || !numtest.Within(ge.Time, float64(step)*dt, 1e-12) {
			t.Errorf("%s: fired at step %d, t = %v; want step %d (the sixth doubling of the base), t = %v", tc.name, ge.Step, ge.Time, step, float64(step)*dt)
		}
		if !numtest.Within(ge.Change, d, 1e-9*d) || ge.Component != "g.x" {
			t.Errorf("%s: change %v of %q, want %v of g.x", tc.name, ge.Change, ge.Component, d)
		}
		if want := dt * math.Ln2 / math.Log(1.05); !numtest.Within(ge.Doubling, want, 1e-5*want) || !numtest.Within(ge.Rate, lambda, 1e-5*lambda) {
			t.Errorf("%s: doubling %v s, rate %v/s; want dt·ln 2/ln 1.05 = %v s, ln(1.05)/dt = %v/s", tc.name, ge.Doubling, ge.Rate, want, lambda)
		}
		if !math.IsNaN(ge.Physical) || ge.Dt != dt || ge.Strategy != "jacobi" {
			t.Errorf("%s: physical %v, dt %v, strategy %q; want NaN (no monolithic view), %v, jacobi", tc.name, ge.Physical, ge.Dt, ge.Strategy, dt)
		}
		if tc.idle != 0 && !(ge.Change >= 64*1e-9*tc.idle) {
			t.Errorf("%s: change %v, want at least 2⁶ times the floor 1e-9·%v", tc.name, ge.Change, tc.idle)
		}
	}
}

// TestGrowthWatchIgnoresDegreeSevenPolynomial: polynomial growth of
// degree p doubles at intervals that lengthen by 2^(1/p) each: over the
// five intervals the watch compares, the mean of the last two is
// 2^(3/p) times that of the first two, above its 1.25 for every p ≤ 9
// (growth.go's header). At p = 7 (2^(3/7) = 1.35) the spread of the
// intervals, 2^(4/7) = 1.49, is within the 2 the watch allows, so only
// the trend tells it from exponential growth. The state (t/τ)^7 with
// τ = 1 s, sampled every 16 steps of 10 µs, doubles every 34 samples or
// more once above the floor (t > 0.052 s): 13 doublings by t = 0.2 s,
// and the run goes to its end.
func TestGrowthWatchIgnoresDegreeSevenPolynomial(t *testing.T) {
	g := graph.New()
	g.Add("p", newPower(1, 7))
	sim, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	const steps = 20000
	res, err := sim.Run(context.Background(), graph.Settings{Dt: 1e-5, Steps: steps})
	if err != nil || res.Steps != steps {
		t.Fatalf("t⁷: %v after %d steps, want the run to its end", err, res.Steps)
	}
	if x, _ := sim.Value("p.x"); !numtest.Within(x[0], math.Pow(0.2, 7), 1e-9*math.Pow(0.2, 7)) {
		t.Errorf("p.x = %v at t = 0.2 s, want 0.2⁷: the state grew as the test means", x)
	}
}

// TestStabilityAnalysesKeptPerStep: a Sim analyses each strategy and
// step once, at the state of the first Run with them (startStability),
// and keeps at most graph.MaxAnalyses analyses (a caller varying the
// step: bounded memory). A Run with a step analysed before returns that
// analysis (its Time is the first Run's start) even after Runs with
// other steps; a Sim run with one step more than it keeps holds no more
// than graph.MaxAnalyses.
func TestStabilityAnalysesKeptPerStep(t *testing.T) {
	g := graph.New()
	g.Add("g", newScaler(0.5, 1))
	sim, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	run := func(dt float64) *graph.Result {
		t.Helper()
		res, err := sim.Run(ctx, graph.Settings{Dt: dt, Steps: 16})
		if err != nil || res.Stability == nil {
			t.Fatalf("run at dt = %v: %v", dt, err)
		}
		return res
	}
	run(1e-3)
	run(2e-3)
	if res := run(1e-3); res.Stability.Time != 0 || sim.KeptAnalyses() != 2 {
		t.Errorf("third run, dt = 1e-3 again: analysis at t = %v, %d kept; want the first run's (t = 0), 2 kept", res.Stability.Time, sim.KeptAnalyses())
	}
	for k := 3; k <= graph.MaxAnalyses+1; k++ {
		run(float64(k) * 1e-3)
		if n := sim.KeptAnalyses(); n > graph.MaxAnalyses {
			t.Fatalf("after %d steps: %d analyses kept, want at most %d", k, n, graph.MaxAnalyses)
		}
	}
}
