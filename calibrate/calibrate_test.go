package calibrate_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/calibrate"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/ball"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/springdamper"
	"github.com/cosimgo/cosim/nodes/table"
)

// ballSim is a ball dropped from 1 m onto a table at 0 with elasticity e
// and gravity g.
func ballSim(t testing.TB, e, g float64) *graph.Sim { return ballSimAt(t, 1, e, g) }

// ballSimAt is a ball dropped from h0 onto a table at 0 with elasticity e
// and gravity g.
func ballSimAt(t testing.TB, h0, e, g float64) *graph.Sim {
	t.Helper()
	p := ball.DefaultParams()
	p.InitialPosition, p.Elasticity, p.Gravity = h0, e, g
	b, err := ball.New(p)
	if err != nil {
		t.Fatal(err)
	}
	tb, _ := table.New(table.DefaultParams())
	gr := graph.New()
	gr.Add("ball", b)
	gr.Add("table", tb)
	gr.Connect("table.position", "ball.table_position")
	s, err := gr.Build()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// synthetic records ball.position at times (adaptive Dormand–Prince with
// located contacts, dense output: Sim.Integrate, not the sensitivity
// path) and adds Gaussian noise of standard deviation sigma.
func synthetic(t testing.TB, e, g float64, times []float64, sigma float64, rng *rand.Rand) *calibrate.Data {
	t.Helper()
	s := ballSim(t, e, g)
	res, err := s.Integrate(context.Background(), times[len(times)-1], integrators.DormandPrince{RTol: 1e-12, ATol: 1e-13}, &integrators.DriverOptions{EventTol: 1e-14, Output: times})
	if err != nil {
		t.Fatal(err)
	}
	d := &calibrate.Data{Times: times, Columns: []string{"ball.position"}}
	for _, smp := range res.Integrator.Samples {
		v := smp.Y[0]
		if sigma > 0 {
			v += sigma * rng.NormFloat64()
		}
		d.Values = append(d.Values, []float64{v})
	}
	return d
}

func grid(t0, t1 float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = t0 + (t1-t0)*float64(i)/float64(n-1)
	}
	return out
}

func ptr(v float64) *float64 { return &v }

// Synthetic data from the same model, three bounces in the window (t up
// to 2 s; contacts at 0.45, 1.17, 1.75 s), elasticity in (0, 1) by the
// logistic transform and gravity unbounded, from a start 25 % off: the
// estimates recover e = 0.8 and g = −9.81 to 1e-7 relative (the data's
// integration tolerance, 1e-12, and the optimizer's gradient threshold),
// with a residual at rounding level.
func TestFitExactRecovery(t *testing.T) {
	d := synthetic(t, 0.8, -9.81, grid(0.02, 2, 100), 0, nil)
	for _, method := range []string{"bfgs", "lbfgs"} {
		t.Run(method, func(t *testing.T) { exactRecovery(t, d, method) })
	}
}

func exactRecovery(t *testing.T, d *calibrate.Data, method string) {
	s := ballSim(t, 0.6, -7)
	res, err := calibrate.Fit(context.Background(), &calibrate.Problem{
		Sim:  s,
		Free: []calibrate.FreeParam{{Name: "ball.elasticity", Lo: 0, Hi: 1}, {Name: "ball.gravity", Start: ptr(-7.5)}},
		Data: d,
	}, &calibrate.Settings{Method: method})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v residual %g, %d iterations, %d evaluations, %v", res.Params, res.Residual, res.Iterations, res.Evaluations, res.Status)
	for i, want := range []float64{0.8, -9.81} {
		e := res.Params[i]
		if !numtest.Within(e.Value, want, 1e-7*math.Abs(want)) || !e.Identifiable {
			t.Errorf("%s = %.12g (identifiable %v), want %v", e.Name, e.Value, e.Identifiable, want)
		}
	}
	if res.Residual > 1e-16 || !res.Converged {
		t.Errorf("residual %g, converged %v", res.Residual, res.Converged)
	}
	// The Sim keeps the estimates.
	b, _ := s.Node("ball")
	if v := b.(*ball.Node).Params()["elasticity"].(float64); v != res.Params[0].Value {
		t.Errorf("Sim's elasticity %v, estimate %v", v, res.Params[0].Value)
	}
}

// Noisy data (σ = 5 mm on the position, 100 points, two bounces in
// [0, 1.6] s), 40 seeded trials: the true values lie within two reported
// standard errors (the 95 % interval of the Gauss–Newton approximation)
// in at least 90 % of the trials for each parameter, and within one
// (68 %) in between 50 % and 85 %, so the standard errors are neither
// too small nor inflated.
func TestFitNoiseCoverage(t *testing.T) {
	if testing.Short() {
		t.Skip("40 fits")
	}
	const trials, sigma = 40, 5e-3
	truth := []float64{0.8, -9.81}
	times := grid(0.016, 1.6, 100)
	clean := synthetic(t, truth[0], truth[1], times, 0, nil)
	in2, in1 := make([]int, 2), make([]int, 2)
	for seed := range trials {
		rng := rand.New(rand.NewPCG(uint64(seed), 16))
		d := &calibrate.Data{Times: times, Columns: clean.Columns}
		for _, r := range clean.Values {
			d.Values = append(d.Values, []float64{r[0] + sigma*rng.NormFloat64()})
		}
		s := ballSim(t, 0.7, -9)
		res, err := calibrate.Fit(context.Background(), &calibrate.Problem{
			Sim:  s,
			Free: []calibrate.FreeParam{{Name: "ball.elasticity", Lo: 0, Hi: 1}, {Name: "ball.gravity"}},
			Data: d,
		}, nil)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if !res.Converged {
			t.Errorf("seed %d: not converged (%v, %s)", seed, res.Status, res.Stop)
		}
		for j, e := range res.Params {
			dev := math.Abs(e.Value-truth[j]) / e.StdErr
			if dev <= 2 {
				in2[j]++
			}
			if dev <= 1 {
				in1[j]++
			}
		}
		if seed == 0 {
			t.Logf("seed 0: %+v, s = %.3g (σ = %g)", res.Params, math.Sqrt(res.Sigma2), sigma)
		}
	}
	for j, name := range []string{"elasticity", "gravity"} {
		t.Logf("%s: within 2 s.e. in %d/%d trials, within 1 s.e. in %d/%d", name, in2[j], trials, in1[j], trials)
		if float64(in2[j]) < 0.9*trials {
			t.Errorf("%s within 2 standard errors in only %d of %d trials", name, in2[j], trials)
		}
		if f := float64(in1[j]) / trials; f < 0.5 || f > 0.85 {
			t.Errorf("%s within 1 standard error in %.0f %% of trials: the standard errors are miscalibrated", name, 100*f)
		}
	}
}

// A window that ends before the first contact (t ≤ 0.4 s, contact at
// 0.45 s) says nothing about the elasticity: it is reported as
// unidentifiable, with an infinite standard error, while gravity is
// still fitted exactly.
func TestFitUnidentifiable(t *testing.T) {
	d := synthetic(t, 0.8, -9.81, grid(0.01, 0.4, 40), 0, nil)
	s := ballSim(t, 0.5, -8)
	res, err := calibrate.Fit(context.Background(), &calibrate.Problem{
		Sim:  s,
		Free: []calibrate.FreeParam{{Name: "ball.elasticity", Lo: 0, Hi: 1}, {Name: "ball.gravity"}},
		Data: d,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	e, g := res.Params[0], res.Params[1]
	if e.Identifiable || !math.IsInf(e.StdErr, 1) || len(res.Unidentifiable) != 1 || res.Unidentifiable[0] != "ball.elasticity" {
		t.Errorf("elasticity %+v, unidentifiable %v", e, res.Unidentifiable)
	}
	if !g.Identifiable || !numtest.Within(g.Value, -9.81, 1e-7*9.81) {
		t.Errorf("gravity %+v", g)
	}
}

// A data time off a fixed-step grid is an error (no snapping); bounds
// that exclude the start are an error; bad data are errors naming the
// line.
func TestFitErrors(t *testing.T) {
	rk4, _ := integrators.ByName(integrators.MethodRK4)
	s := ballSim(t, 0.8, -9.81)
	d := &calibrate.Data{Times: []float64{0.1, 0.1005}, Columns: []string{"ball.position"}, Values: [][]float64{{1}, {1}}}
	_, err := calibrate.Fit(context.Background(), &calibrate.Problem{Sim: s, Free: []calibrate.FreeParam{{Name: "ball.gravity"}}, Data: d,
		Options: &graph.SensitivityOptions{Mode: graph.Monolithic{Method: rk4}, Dt: 0.001}}, nil)
	if err == nil || !strings.Contains(err.Error(), "not on the fixed-step grid") {
		t.Errorf("off-grid time: %v", err)
	}
	_, err = calibrate.Fit(context.Background(), &calibrate.Problem{Sim: s, Free: []calibrate.FreeParam{{Name: "ball.elasticity", Start: ptr(1.5), Lo: 0, Hi: 1}}, Data: d}, nil)
	if err == nil || !strings.Contains(err.Error(), "not strictly inside") {
		t.Errorf("start outside bounds: %v", err)
	}
	_, err = calibrate.ReadCSV(strings.NewReader("t,ball.position\n0.1,1\n0.2,x\n"))
	if err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("bad cell: %v", err)
	}
	got, err := calibrate.ReadCSV(strings.NewReader("t,ball.position,ball.velocity\n0.1,1,\n0.2,0.9,-1\n"))
	if err != nil || !math.IsNaN(got.Values[0][1]) || got.Values[1][1] != -1 {
		t.Errorf("ReadCSV: %+v, %v", got, err)
	}
}

// Two springs side by side between the ground and a mass act only
// through k₁ + k₂: the data determine the sum, not the split. Both are
// reported unidentifiable (a null direction (1, −1)/√2 of the scaled
// Jacobian), not given arbitrary values with small standard errors.
func TestFitUnidentifiableCombination(t *testing.T) {
	build := func(k1, k2 float64) *graph.Sim {
		mp, _ := masspoint.New(masspoint.Params{Mass: 1, InitialPosition: [3]float64{0.2, 0, 0}})
		g := graph.New()
		g.Add("m", mp)
		for i, k := range []float64{k1, k2} {
			p := springdamper.DefaultParams()
			p.Stiffness = [3]float64{k, 0, 0}
			if _, err := springdamper.Connect(g, []string{"s1", "s2"}[i], p, node.GroundAt([3]float64{}), node.Body("m")); err != nil {
				t.Fatal(err)
			}
		}
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	times := grid(0.05, 2, 40)
	truth := build(10, 30)
	r, err := truth.Integrate(context.Background(), 2, integrators.DormandPrince{RTol: 1e-12, ATol: 1e-13}, &integrators.DriverOptions{Output: times})
	if err != nil {
		t.Fatal(err)
	}
	d := &calibrate.Data{Times: times, Columns: []string{"m.position[0]"}}
	for _, smp := range r.Integrator.Samples {
		d.Values = append(d.Values, []float64{smp.Y[0]})
	}
	res, err := calibrate.Fit(context.Background(), &calibrate.Problem{
		Sim:  build(15, 20),
		Free: []calibrate.FreeParam{{Name: "s1.stiffness[0]", Lo: 0, Hi: 100}, {Name: "s2.stiffness[0]", Lo: 0, Hi: 100}},
		Data: d,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Unidentifiable) != 2 {
		t.Errorf("unidentifiable %v; estimates %+v", res.Unidentifiable, res.Params)
	}
	if sum := res.Params[0].Value + res.Params[1].Value; !numtest.Within(sum, 40, 1e-6) {
		t.Errorf("k₁ + k₂ = %v, want 40 (the data do determine the sum)", sum)
	}
}

// Weights: a column with weight 0 does not pull the fit, whatever its
// values.
func TestFitWeights(t *testing.T) {
	times := grid(0.02, 1.2, 60)
	d := synthetic(t, 0.8, -9.81, times, 0, nil)
	d.Columns = append(d.Columns, "ball.velocity")
	for i := range d.Values {
		d.Values[i] = append(d.Values[i], 100) // nonsense, weighted out
	}
	d.Weights = []float64{1, 0}
	res, err := calibrate.Fit(context.Background(), &calibrate.Problem{
		Sim:  ballSim(t, 0.6, -9),
		Free: []calibrate.FreeParam{{Name: "ball.elasticity", Lo: 0, Hi: 1}, {Name: "ball.gravity"}},
		Data: d,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !numtest.Within(res.Params[0].Value, 0.8, 1e-7) || !numtest.Within(res.Params[1].Value, -9.81, 1e-6) {
		t.Errorf("%+v", res.Params)
	}
}

// A cancelled context stops the fit with ctx's error and puts the free
// parameters back.
func TestFitCancelled(t *testing.T) {
	d := synthetic(t, 0.8, -9.81, grid(0.02, 2, 100), 0, nil)
	s := ballSim(t, 0.6, -7)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := calibrate.Fit(ctx, &calibrate.Problem{Sim: s, Free: []calibrate.FreeParam{{Name: "ball.gravity", Start: ptr(-5)}}, Data: d}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
	b, _ := s.Node("ball")
	if g := b.(*ball.Node).Params()["gravity"].(float64); g != -7 {
		t.Errorf("gravity left at %v, want -7", g)
	}
}

// Data of an output (a spring-damper's Force, differentiated along S)
// determine the spring's stiffness and damping: recovered to 1e-6 from a
// start 50 % off (the fit's integration tolerance is 1e-9).
func TestFitOutputData(t *testing.T) {
	build := func(k, c float64) *graph.Sim {
		mp, _ := masspoint.New(masspoint.Params{Mass: 1, InitialPosition: [3]float64{0.2, 0, 0}})
		g := graph.New()
		g.Add("m", mp)
		p := springdamper.DefaultParams()
		p.Stiffness, p.Damping = [3]float64{k, 0, 0}, [3]float64{c, 0, 0}
		if _, err := springdamper.Connect(g, "s", p, node.GroundAt([3]float64{}), node.Body("m")); err != nil {
			t.Fatal(err)
		}
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	times := grid(0.1, 2, 20)
	ref, err := build(20, 0.5).Sensitivities(context.Background(), []string{"s.stiffness[0]"}, &graph.SensitivityOptions{
		End: 2, Output: times, Record: []string{"s.force[0]"}, Mode: graph.MonolithicAdaptive{Method: integrators.DormandPrince{RTol: 1e-12, ATol: 1e-13}}})
	if err != nil {
		t.Fatal(err)
	}
	d := &calibrate.Data{Times: times, Columns: []string{"s.force[0]"}, Values: ref.Values}
	res, err := calibrate.Fit(context.Background(), &calibrate.Problem{
		Sim:  build(30, 0.25),
		Free: []calibrate.FreeParam{{Name: "s.stiffness[0]", Lo: 0, Hi: math.Inf(1)}, {Name: "s.damping[0]", Lo: 0, Hi: math.Inf(1)}},
		Data: d,
		// Looser than the default 1e-10: the connector's parameters are
		// differenced over SetParams at every evaluation, which is slow.
		Options: &graph.SensitivityOptions{Mode: graph.MonolithicAdaptive{Method: integrators.DormandPrince{RTol: 1e-9, ATol: 1e-11}}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d iterations, %d evaluations, %v %s", res.Iterations, res.Evaluations, res.Status, res.Stop)
	if k, c := res.Params[0].Value, res.Params[1].Value; !numtest.Within(k, 20, 1e-6*20) || !numtest.Within(c, 0.5, 1e-6*0.5) || !res.Converged {
		t.Errorf("k = %.10g, c = %.10g, converged %v (%+v)", k, c, res.Converged, res)
	}
}
