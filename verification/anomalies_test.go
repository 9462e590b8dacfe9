package verification

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/anomalies"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/nodes/ball"
	"github.com/cosimgo/cosim/nodes/rigidbody2d"
	"github.com/cosimgo/cosim/nodes/springdamper"
	"github.com/cosimgo/cosim/nodes/table"
	"github.com/cosimgo/cosim/verification/gimbal"
)

// Every anomaly record names a test function that exists: its package's
// _test.go files are parsed and searched for the function.
func TestAnomalyTestsExist(t *testing.T) {
	const module = "github.com/cosimgo/cosim/"
	for _, r := range anomalies.All() {
		i := strings.LastIndex(r.Test, ".")
		pkg, fn := r.Test[:i], r.Test[i+1:]
		dir := filepath.Join("..", strings.TrimPrefix(pkg, module))
		if !strings.HasPrefix(pkg, module) {
			t.Errorf("%s: test %s is not in this module", r.ID, r.Test)
			continue
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
		found := false
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			af, err := parser.ParseFile(token.NewFileSet(), f, src, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range af.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == fn {
					found = true
				}
			}
		}
		if !found {
			t.Errorf("%s names test %s, which does not exist in %s", r.ID, r.Test, dir)
		}
	}
}

// MADD-ANO-011 (resolved): every node's Update agrees with the scheme its
// metadata names, applied to its Derivatives. The regression test is the
// conformance checker's scheme check, over every registered type.
func TestUpdateMatchesNamedScheme(t *testing.T) {
	reg := nodes.Registry()
	for _, typ := range reg.Names() {
		n, err := reg.New(typ, conformanceParams[typ])
		if err != nil {
			t.Fatal(err)
		}
		if n.Spec().StateLayout.Size() == 0 {
			continue
		}
		in := loaded(n.Spec())
		x := conformanceState(t, typ, n, in)
		if x == nil {
			x = make([]float64, n.Spec().StateLayout.Size())
			n.InitialState(x)
		}
		for _, err := range checkScheme(n, x, in, map[string]SchemeFunc{gimbal.Name: gimbal.ReferenceStep}) {
			t.Errorf("MADD-ANO-011 is back: %v", err)
		}
	}
}

// MADD-ANO-018 (resolved): parameters overridden with SetParams reach
// Update and Derivatives exactly as parameters given at construction.
func TestParameterInjection(t *testing.T) {
	reg := nodes.Registry()
	for _, typ := range reg.Names() {
		fresh := freshFor(reg, typ, conformanceParams[typ])
		n, err := fresh(nil)
		if err != nil {
			t.Fatal(err)
		}
		x := make([]float64, n.Spec().StateLayout.Size())
		n.InitialState(x)
		for _, err := range checkInjection(n, fresh, x, loaded(n.Spec())) {
			t.Errorf("MADD-ANO-018 is back: %v", err)
		}
	}
}

// MADD-ANO-013 (resolved): an injected gravity reaches Derivatives in
// float64, bit for bit (0.1 is not a float32 value: a float32 path would
// change its bits).
func TestInjectedGravityFloat64(t *testing.T) {
	b, _ := ball.New(ball.DefaultParams())
	if err := b.SetParams(map[string]any{"gravity": 0.1}); err != nil {
		t.Fatal(err)
	}
	dst := make([]float64, 2)
	if err := b.Derivatives(0, []float64{1, 0.5}, b.Spec().DefaultInputs(), dst); err != nil {
		t.Fatal(err)
	}
	if math.Float64bits(dst[1]) != math.Float64bits(0.1) {
		t.Errorf("MADD-ANO-013 is back: injected gravity 0.1 arrives as %.20g", dst[1])
	}
}

// COSIM-ANO-001 (won't fix, pinned): the ball's Derivatives pass through
// the table. From 0.001 above at −1 m/s (the MADDENING BallNode guide's case), one 0.01 s
// forward-Euler step of Derivatives lands at −0.009, where Update bounces
// to 0.0. If this stops reproducing, Derivatives has learned contact:
// update the record and the ball's limitations.
func TestAnomalyCOSIMANO001(t *testing.T) {
	b, _ := ball.New(ball.DefaultParams())
	sys, err := graph.NewNodeSystem(b)
	if err != nil {
		t.Fatal(err)
	}
	sys.In.Present[0], sys.In.Values[0] = true, 0 // table at 0
	m, _ := integrators.ByName(integrators.MethodForwardEuler)
	// Derivatives alone, without the ball's contact event: given the
	// event (sys itself), every fixed-step method now locates the contact
	// and applies the reset (integrators, fixedevents.go; checked by
	// TestBallFixedStepMonolithic), which is the workaround.
	st, _ := m.New(integrators.SystemFunc{N: sys.Dim(), F: sys.Func}, nil)
	st.Init(0, []float64{0.001, -1})
	if err := st.Step(0.01); err != nil {
		t.Fatal(err)
	}
	_, y := st.State()
	upd := make([]float64, 2)
	if err := b.Update(0, 0.01, []float64{0.001, -1}, sys.In, upd); err != nil {
		t.Fatal(err)
	}
	// 1e-15: the MADDENING BallNode guide's −0.009 is 0.001 − 0.01 in decimal; in binary the
	// sum is one ulp away.
	if !numtest.Within(y[0], -0.009, 1e-15) || upd[0] != 0 {
		t.Errorf("COSIM-ANO-001 no longer reproduces (Euler on Derivatives → %v, Update → %v; published: −0.009 and 0.0): "+
			"mark it resolved in anomalies/records.go and update the ball's limitations", y[0], upd[0])
	}
}

// bounceX is x(T) of a ball dropped from h with gravity −g onto a table at
// 0 (e = 0.8), by fixed-step co-simulation (Update) or by event-localized
// integration.
func bounceX(t *testing.T, h, g float64, events bool) float64 {
	t.Helper()
	p := ball.DefaultParams()
	p.InitialPosition, p.Gravity = h, -g
	b, _ := ball.New(p)
	tb, _ := table.New(table.DefaultParams())
	gr := graph.New()
	gr.Add("ball", b)
	gr.Add("table", tb)
	gr.Connect("table.position", "ball.table_position")
	s, err := gr.Build()
	if err != nil {
		t.Fatal(err)
	}
	const T = 0.8
	if events {
		_, err = s.Integrate(context.Background(), T, integrators.DormandPrince{RTol: 1e-13, ATol: 1e-13}, &integrators.DriverOptions{EventTol: 1e-14})
	} else {
		_, err = s.Run(context.Background(), graph.Settings{Dt: 1e-3, End: T})
	}
	if err != nil {
		t.Fatal(err)
	}
	x, _ := s.Value("ball.position")
	return x[0]
}

// MADD-ANO-021 (resolved; both paths pinned): fixed-step bounce
// sensitivities miss the contact-time derivative. Published: dt = 1e-3,
// drop from h = 1.0, one bounce before T = 0.8 s (e = 0.8, g = 9.81):
// ∂x(T)/∂h is 0 against the exact +0.5892 and ∂x(T)/∂|g| is +0.0651
// against +0.0051. The exact values are the derivatives of x(T) =
// e·√(2gh)·τ − gτ²/2, τ = T − √(2h/g). The fixed-step co-simulation path
// still shows the anomaly (pinned: it is inherent to differentiating
// per-step branches); Sim.Sensitivities gets the exact values to 1e-8
// relative and refuses the co-simulation path rather than answer with
// its numbers. Event-localized finite differences agree to 1e-5.
func TestAnomalyMADDANO021(t *testing.T) {
	const h, g, e, T = 1.0, 9.81, 0.8, 0.8
	v1 := math.Sqrt(2 * g * h)
	tau := T - math.Sqrt(2*h/g)
	// x = e·v1·τ − g·τ²/2 with v1 = √(2gh): ∂v1/∂h = g/v1, ∂τ/∂h = −1/v1,
	// ∂v1/∂g = h/v1, ∂τ/∂g = (T − τ)/(2g).
	dv1h, dtauh := g/v1, -1/v1
	dv1g, dtaug := h/v1, (T-tau)/(2*g)
	exactH := e*(dv1h*tau+v1*dtauh) - g*tau*dtauh
	exactG := e*(dv1g*tau+v1*dtaug) - tau*tau/2 - g*tau*dtaug
	// Closed-form check of the MADDENING BallNode guide's exact values (4 digits).
	if !numtest.Within(exactH, 0.5892, 5e-5) || !numtest.Within(exactG, 0.0051, 5e-5) {
		t.Fatalf("closed form gives %.5f, %.5f; published: 0.5892, 0.0051", exactH, exactG)
	}
	// Central differences with δ = 1e-7: small enough that the fixed-step
	// run takes the same branches (the step of impact does not move), so
	// they measure the branch derivative the MADDENING BallNode guide's jax.grad measured.
	const d = 1e-7
	fd := func(events bool, dh, dg float64) float64 {
		return (bounceX(t, h+dh, g+dg, events) - bounceX(t, h-dh, g-dg, events)) / (2 * d)
	}
	fixH, fixG := fd(false, d, 0), fd(false, 0, d)
	evH, evG := fd(true, d, 0), fd(true, 0, d)
	t.Logf("fixed step: ∂x/∂h = %.4f, ∂x/∂|g| = %.4f; events: %.4f, %.4f; exact %.4f, %.4f", fixH, fixG, evH, evG, exactH, exactG)
	// The anomaly reproduces: ∂h exactly 0 (to FD round-off, 1e-6), ∂|g|
	// the MADDENING BallNode guide's +0.0651 to one step of travel (3e-3).
	if !numtest.Within(fixH, 0, 1e-6) || !numtest.Within(fixG, 0.0651, 3e-3) {
		t.Errorf("MADD-ANO-021 no longer reproduces as the MADDENING BallNode guide describes (∂x/∂h = %.4f, ∂x/∂|g| = %.4f): "+
			"update the record: its description says the co-simulation path still shows it", fixH, fixG)
	}
	// Event localization gets the exact values: 1e-5 covers the FD
	// truncation and the integrator tolerance amplified by 1/δ.
	if !numtest.Within(evH, exactH, 1e-5) || !numtest.Within(evG, exactG, 1e-5) {
		t.Errorf("event-localized sensitivities %.6f, %.6f; exact %.6f, %.6f", evH, evG, exactH, exactG)
	}
	// The resolution: forward sensitivities with the saltation jump at the
	// located contact. gravity = −|g|, so ∂/∂|g| = −∂/∂gravity. 1e-8
	// relative: the flight is quadratic (DOPRI5 exact to rounding) and
	// the contact is located to 1e-14 s.
	s := ballOnTable(t, h, e, g)
	res, err := s.Sensitivities(context.Background(), []string{"ball.initial_position", "ball.gravity"},
		&graph.SensitivityOptions{End: T, Output: []float64{T}, Mode: graph.MonolithicAdaptive{Method: integrators.DormandPrince{RTol: 1e-12, ATol: 1e-12}, Options: &integrators.DriverOptions{EventTol: 1e-14}}})
	if err != nil {
		t.Fatal(err)
	}
	sH, _ := res.At(0, "ball.position", "ball.initial_position")
	sG, _ := res.At(0, "ball.position", "ball.gravity")
	sG = -sG
	t.Logf("Sim.Sensitivities: ∂x/∂h = %.10f, ∂x/∂|g| = %.10f", sH, sG)
	if !numtest.Within(sH, exactH, 1e-8*math.Abs(exactH)) || !numtest.Within(sG, exactG, 1e-8*math.Abs(exactG)) {
		t.Errorf("MADD-ANO-021 is back on the sensitivity path: ∂x/∂h = %.12f, ∂x/∂|g| = %.12f; exact %.12f, %.12f", sH, sG, exactH, exactG)
	}
	// The fixed-step monolithic path differentiates through the contact
	// too: RK4 at the seed's dt = 1e-3, the contact located by
	// re-stepping (RK4 is exact on the quadratic flight).
	rk4, _ := integrators.ByName(integrators.MethodRK4)
	res, err = s.Sensitivities(context.Background(), []string{"ball.initial_position"},
		&graph.SensitivityOptions{End: T, Mode: graph.Monolithic{Method: rk4, Options: &integrators.DriverOptions{EventTol: 1e-14}}, Dt: 1e-3, RecordEvery: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	if fH, _ := res.At(len(res.Times)-1, "ball.position", "ball.initial_position"); !numtest.Within(fH, exactH, 1e-8*math.Abs(exactH)) {
		t.Errorf("MADD-ANO-021 is back on the fixed-step sensitivity path: ∂x/∂h = %.12f, exact %.12f", fH, exactH)
	}
	// And the co-simulation path is refused, not differentiated.
	if _, err := s.Sensitivities(context.Background(), []string{"ball.gravity"}, &graph.SensitivityOptions{End: T, Mode: graph.CoSimulation{}}); !errors.Is(err, graph.ErrNotDifferentiable) {
		t.Errorf("co-simulation sensitivities not refused: %v", err)
	}
}

// value reads "node.field" from a built simulation.
func value(t *testing.T, s *graph.Sim, path string) []float64 {
	t.Helper()
	v, err := s.Value(path)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// ballTrajectory runs g (which has a node "ball") with fixed steps of dt
// to end and returns the ball's final [position, velocity].
func ballTrajectory(t *testing.T, g *graph.Graph, dt, end float64) []float64 {
	t.Helper()
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(context.Background(), graph.Settings{Dt: dt, End: end}); err != nil {
		t.Fatal(err)
	}
	return append(value(t, s, "ball.position"), value(t, s, "ball.velocity")...)
}

// COSIM-ANO-002 (resolved in ball 1.1.0, regression test): a
// spring-damper's force on a ball marker used to be lost, because the
// ball had no force input. Now MarkerLoads is ["force"], Connect wires the
// connector's load output m1_force into ball.force, and the ball moves
// under gravity and the spring. A vertical spring (k_z = 1000 N/m) ties a
// 1 kg ball at 0 to the world point (0, 0, 1), so the ball obeys
// ẍ = g − k(x − 1)/m. The reference is an independent computation of the
// co-simulation step (the connector's force at the step's start, then
// semi-implicit Euler): v ← v + (g + F/m)·dt, x ← x + dt·v with
// F = −k(x − 1). It is the same arithmetic, so the tolerance is 1e-12 m
// (a few roundings of values of order 1). The test also checks the run is
// far from free fall and near the exact solution of the ODE,
// x(t) = x_eq + (x₀ − x_eq) cos ωt with ω² = k/m and x_eq = 1 + m·g/k:
// semi-implicit Euler's global error is O(ω·dt) relative to the amplitude
// over a few periods (ω·dt = 0.032 here), so 5 % of the amplitude.
func TestAnomalyCOSIMANO002(t *testing.T) {
	const (
		dt, steps = 1e-3, 100
		k, m, g   = 1000.0, 1.0, -9.81
	)
	newBall := func() *ball.Node {
		p := ball.DefaultParams()
		p.Mass = m
		b, err := ball.New(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	free := graph.New()
	free.Add("ball", newBall())
	fall := ballTrajectory(t, free, dt, dt*steps)

	gr := graph.New()
	gr.Add("ball", newBall())
	p := springdamper.DefaultParams()
	p.Stiffness = [3]float64{0, 0, k}
	sd, err := springdamper.Connect(gr, "sd", p, node.GroundAt([3]float64{0, 0, 1}), node.BodyAt("ball", [3]float64{0, 0, 1}))
	if err != nil {
		t.Fatal(err)
	}
	loads := 0
	for _, o := range sd.Spec().Outputs {
		if strings.HasPrefix(o.Name, "m1_") {
			loads++
		}
	}
	if loads != 1 {
		t.Fatalf("the connector has %d load outputs for the ball marker, want 1 (m1_force): COSIM-ANO-002 is back", loads)
	}
	s, err := gr.Build()
	if err != nil {
		t.Fatal(err)
	}
	if f0 := value(t, s, "sd.m1_force"); f0[0] != k {
		t.Fatalf("load on the ball at t = 0 is %v N, want +%v (the spring pulls the ball up)", f0, k)
	}
	got := ballTrajectory(t, gr, dt, dt*steps)

	x, v := 0.0, 0.0
	for range steps {
		f := -k * (x - 1)
		v += (g + f/m) * dt
		x += dt * v
	}
	omega := math.Sqrt(k / m)
	xeq := 1 + m*g/k
	exact := xeq + (0-xeq)*math.Cos(omega*dt*steps)
	t.Logf("ball with the spring %v, recurrence [%v, %v], exact x %v, free fall %v", got, x, v, exact, fall)
	if !numtest.Within(got[0], x, 1e-12) || !numtest.Within(got[1], v, 1e-12*omega) {
		t.Errorf("COSIM-ANO-002 is back or the coupling changed: ball [x, v] = %v, want the semi-implicit Euler "+
			"recurrence under the spring's force [%v, %v] to 1e-12", got, x, v)
	}
	if !numtest.Within(got[0], exact, 0.05*math.Abs(xeq)) {
		t.Errorf("ball position %v is not within 5 %% of the amplitude of the exact %v", got[0], exact)
	}
	if math.Abs(got[0]-fall[0]) < 0.1 {
		t.Errorf("ball position %v is close to free fall %v: the spring's force does not reach the ball", got[0], fall[0])
	}
}

// COSIM-ANO-003 (won't fix, pinned): a marker on a planar body drops the
// out-of-plane component of the connector's force. rigidbody2d's
// MarkerLoad keeps (f_x, f_y) and the z moment of the in-plane part, so a
// force along z, and the in-plane moment (R r) × f_z it carries, reach
// nothing, without an error: here a spring along z (k_z = 1000 N/m)
// between the body point r = (1, 0, 0) and the world point (1, 0, 1)
// pushes marker 0 with (0, 0, 1000) N, whose moment about the centre of
// mass is (0, −1000, 0) N·m, and the body receives zero force and torque.
// Against a body that can take it (a 6-DOF rigid body on the other side),
// the pair of forces is not equal and opposite.
func TestAnomalyCOSIMANO003(t *testing.T) {
	p2 := rigidbody2d.DefaultParams()
	p2.Gravity = [2]float64{0, 0}
	p2.Logger = slog.New(slog.NewTextHandler(io.Discard, nil)) // the deprecation warning
	body, err := rigidbody2d.New(p2)
	if err != nil {
		t.Fatal(err)
	}
	g := graph.New()
	g.Add("body", body)
	p := springdamper.DefaultParams()
	p.Stiffness = [3]float64{0, 0, 1000}
	if _, err := springdamper.Connect(g, "sd", p, node.BodyAt("body", [3]float64{1, 0, 0}), node.GroundAt([3]float64{1, 0, 1})); err != nil {
		t.Fatal(err)
	}
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	f := value(t, s, "sd.force")
	force, torque := value(t, s, "sd.m0_force"), value(t, s, "sd.m0_torque")
	if f[0] != 0 || f[1] != 0 || f[2] != 1000 {
		t.Fatalf("connector force %v, want (0, 0, 1000)", f)
	}
	if _, err := s.Run(context.Background(), graph.Settings{Dt: 1e-3, Steps: 100}); err != nil {
		t.Fatal(err)
	}
	x := append(value(t, s, "body.x"), value(t, s, "body.angle")...)
	t.Logf("force %v N on the marker; body load: force %v, torque %v; body after 0.1 s: %v", f, force, torque, x)
	if len(force) == 2 && force[0] == 0 && force[1] == 0 && torque[0] == 0 && x[0] == 0 && x[1] == 0 && x[2] == 0 {
		return // reproduces
	}
	t.Errorf("COSIM-ANO-003 no longer reproduces (load force %v, torque %v, body %v for a connector force %v): "+
		"the out-of-plane component now goes somewhere, so mark it resolved in anomalies/records.go and update "+
		"the springdamper's and rigidbody2d's limitations", force, torque, x, f)
}

// COSIM-ANO-004 (resolved): a ball at rest on the table stays at rest at
// any step. Before the ball's resting contact (version 1.2.0), above the
// rest threshold's step dt = RestSpeed/|g| = 1.02e-5 s a ball at rest fell
// under the table each step, hit it at |g|·dt > RestSpeed and rebounded:
// v_{k+1} = e(|g|dt − v_k) → e|g|dt/(1+e), 0.0436 m/s for the defaults at
// dt = 0.01 s and 0.0327 m/s for e = 0.5, with the position exactly on
// the table and no warning.
//
// Checked: (1) a default ball put at rest stays exactly at [0, +0] for
// 300 steps at every dt from just above the threshold to 0.1 s; (2) the
// case reported with e = 0.5, dropped from 10 m and co-simulated with
// dt = 0.01 s for 10 s: once it reaches [0, 0] it stays there to the
// end, and it gets there at t_r near the closed form of the bounces,
// t1 + Σ 2e^k·v1/|g| over the rebounds e^k·v1 > RestSpeed = 4.2835 s.
// The fixed step loses up to one step per contact and resolves no
// bounce shorter than a step (rebound below |g|·dt), so t_r is early by
// O(dt) per bounce: measured 0.073 s at dt = 0.01, 0.017 s at 1e-3 and
// 0.0023 s at 1e-4; the bounds 0.1, 0.03 and 0.005 s hold them with
// margin and require the convergence; (3) event-localized integration
// keeps the ball at rest too.
func TestAnomalyCOSIMANO004(t *testing.T) {
	const g = -9.81
	if thr := ball.RestSpeed / -g; !numtest.Within(thr, 1.02e-5, 1e-7) {
		t.Errorf("rest-threshold step %g, documented 1.02e-5 s", thr)
	}
	for _, dt := range []float64{1.05e-5, 1e-4, 1e-3, 0.01, 0.1} {
		b, _ := ball.New(ball.DefaultParams())
		sys, err := graph.NewNodeSystem(b)
		if err != nil {
			t.Fatal(err)
		}
		sys.In.Present[0], sys.In.Values[0] = true, 0 // table at 0
		x, y := []float64{0, 0}, make([]float64, 2)
		for i := range 300 {
			if err := b.Update(float64(i)*dt, dt, x, sys.In, y); err != nil {
				t.Fatal(err)
			}
			if y[0] != 0 || y[1] != 0 || math.Signbit(y[1]) {
				t.Fatalf("dt = %g, step %d: a ball at rest is at %v, want exactly [0, +0] (COSIM-ANO-004)", dt, i, y)
			}
			x, y = y, x
		}
	}

	const h0, e = 10.0, 0.5
	t1 := math.Sqrt(2 * h0 / -g)
	tRest := t1
	for v := e * -g * t1; v > ball.RestSpeed; v *= e {
		tRest += 2 * v / -g
	}
	if !numtest.Within(tRest, 4.2835, 1e-4) {
		t.Errorf("closed-form time of rest %v, documented 4.2835 s", tRest)
	}
	for _, c := range []struct{ dt, bound float64 }{{0.01, 0.1}, {1e-3, 0.03}, {1e-4, 0.005}} {
		p := ball.DefaultParams()
		p.InitialPosition, p.Elasticity = h0, e
		b, _ := ball.New(p)
		tb, _ := table.New(table.DefaultParams())
		gr := graph.New()
		gr.Add("ball", b)
		gr.Add("table", tb)
		gr.Connect("table.position", "ball.table_position")
		s, err := gr.Build()
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Run(context.Background(), graph.Settings{Dt: c.dt, End: 10, Record: []string{"ball.position", "ball.velocity"}})
		if err != nil {
			t.Fatal(err)
		}
		x, v := res.History.Column("ball.position"), res.History.Column("ball.velocity")
		rest := -1
		for k := range x {
			if x[k] == 0 && v[k] == 0 {
				if rest < 0 {
					rest = k
				}
			} else if rest >= 0 {
				t.Fatalf("dt = %g: at rest from t = %v, then at [%v, %v] at t = %v", c.dt, res.History.Times[rest], x[k], v[k], res.History.Times[k])
			}
		}
		if rest < 0 {
			t.Fatalf("dt = %g: the ball never comes to rest in 10 s (ends at [%v, %v])", c.dt, x[len(x)-1], v[len(v)-1])
		}
		tr := res.History.Times[rest]
		t.Logf("dt = %g: at rest from t = %v (closed form %v, early by %.3g s)", c.dt, tr, tRest, tRest-tr)
		if d := math.Abs(tr - tRest); d > c.bound {
			t.Errorf("dt = %g: at rest from t = %v, %.3g s from the closed form %v (bound %g)", c.dt, tr, d, tRest, c.bound)
		}
	}

	gr := graph.New()
	b, _ := ball.New(ball.DefaultParams())
	tb, _ := table.New(table.DefaultParams())
	gr.Add("ball", b)
	gr.Add("table", tb)
	gr.Connect("table.position", "ball.table_position")
	s, err := gr.Build()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Integrate(context.Background(), 1, integrators.DormandPrince{}, nil); err != nil {
		t.Fatal(err)
	}
	if x := append(value(t, s, "ball.position"), value(t, s, "ball.velocity")...); x[0] != 0 || x[1] != 0 {
		t.Errorf("graph.Sim.Integrate: ball at rest on the table ends at %v, want [0, 0]", x)
	}
}
