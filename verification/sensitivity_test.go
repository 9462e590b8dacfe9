package verification

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/ball"
	"github.com/cosimgo/cosim/nodes/table"
)

// bounceState is the closed-form state of a ball dropped from rest at
// height h onto a table at 0 under gravity of magnitude G with
// restitution e, at time T, and its derivatives with respect to h, e and
// G (columns 0, 1, 2), for T before the (k+1)-th impact:
//
//	V₁ = √(2Gh) (impact speed), t₁ = V₁/G (first impact),
//	t_k = t₁ + (2V₁/G)·A_k, A_k = Σ_{i=1}^{k−1} eⁱ (k-th impact),
//	u_k = eᵏ·V₁ (rebound speed after it), τ = T − t_k,
//	x = u_k·τ − G·τ²/2,  v = u_k − G·τ       (k ≥ 1),
//	x = h − G·T²/2,      v = −G·T             (k = 0),
//
// and by the chain rule, for q ∈ {h, e, G}:
//
//	∂x/∂q = ∂u_k/∂q·τ − (u_k − Gτ)·∂t_k/∂q − (τ²/2)·∂G/∂q,
//	∂v/∂q = ∂u_k/∂q + G·∂t_k/∂q − τ·∂G/∂q,
//	∂V₁/∂h = G/V₁, ∂V₁/∂G = h/V₁, ∂t₁/∂h = 1/V₁, ∂t₁/∂G = −t₁/(2G),
//	∂t_k/∂h = ∂t₁/∂h + (2A_k/G)·∂V₁/∂h,
//	∂t_k/∂G = ∂t₁/∂G + 2A_k·(∂V₁/∂G/G − V₁/G²),
//	∂t_k/∂e = (2V₁/G)·Σ_{i=1}^{k−1} i·eⁱ⁻¹,
//	∂u_k/∂h = eᵏ·∂V₁/∂h, ∂u_k/∂G = eᵏ·∂V₁/∂G, ∂u_k/∂e = k·eᵏ⁻¹·V₁.
//
// It returns the number of impacts k before T as well.
func bounceState(h, e, G, T float64) (x, v float64, dx, dv [3]float64, k int) {
	V1 := math.Sqrt(2 * G * h)
	t1 := V1 / G
	if T < t1 {
		return h - G*T*T/2, -G * T, [3]float64{1, 0, -T * T / 2}, [3]float64{0, 0, -T}, 0
	}
	dV1 := [3]float64{G / V1, 0, h / V1}
	dt1 := [3]float64{1 / V1, 0, -t1 / (2 * G)}
	// Find k: impacts at t_k ≤ T.
	k = 1
	var A, dA float64 // Σ eⁱ and Σ i·eⁱ⁻¹ for i < k
	tk := t1
	for {
		next := tk + 2*math.Pow(e, float64(k))*V1/G
		if next > T {
			break
		}
		A += math.Pow(e, float64(k))
		dA += float64(k) * math.Pow(e, float64(k-1))
		k++
		tk = next
	}
	ek := math.Pow(e, float64(k))
	uk := ek * V1
	tau := T - tk
	dtk := [3]float64{
		dt1[0] + 2*A/G*dV1[0],
		2 * V1 / G * dA,
		dt1[2] + 2*A*(dV1[2]/G-V1/(G*G)),
	}
	duk := [3]float64{ek * dV1[0], float64(k) * math.Pow(e, float64(k-1)) * V1, ek * dV1[2]}
	dG := [3]float64{0, 0, 1}
	for q := range 3 {
		dx[q] = duk[q]*tau - (uk-G*tau)*dtk[q] - tau*tau/2*dG[q]
		dv[q] = duk[q] + G*dtk[q] - tau*dG[q]
	}
	return uk*tau - G*tau*tau/2, uk - G*tau, dx, dv, k
}

// ballOnTable builds a ball dropped from h (e, gravity −G) above a table
// at 0.
func ballOnTable(t *testing.T, h, e, G float64) *graph.Sim {
	t.Helper()
	p := ball.DefaultParams()
	p.InitialPosition, p.Elasticity, p.Gravity = h, e, -G
	b, err := ball.New(p)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := table.New(table.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	g := graph.New()
	g.Add("ball", b)
	g.Add("table", tb)
	g.Connect("table.position", "ball.table_position")
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestClosedFormBounceDerivatives checks the closed form of bounceState
// against central differences of its own x and v (step 1e-6, so
// truncation ~1e-12 and rounding ~1e-10): it guards the derivation the
// sensitivity test relies on.
func TestClosedFormBounceDerivatives(t *testing.T) {
	for _, T := range []float64{0.3, 0.8, 2.0} {
		p := [3]float64{1, 0.8, 9.81}
		_, _, dx, dv, _ := bounceState(p[0], p[1], p[2], T)
		for q := range 3 {
			d := 1e-6
			pp, pm := p, p
			pp[q] += d
			pm[q] -= d
			xp, vp, _, _, _ := bounceState(pp[0], pp[1], pp[2], T)
			xm, vm, _, _, _ := bounceState(pm[0], pm[1], pm[2], T)
			if fx, fv := (xp-xm)/(2*d), (vp-vm)/(2*d); !numtest.Within(fx, dx[q], 1e-7) || !numtest.Within(fv, dv[q], 1e-7) {
				t.Errorf("T=%v param %d: closed form ∂x=%v ∂v=%v, differences %v %v", T, q, dx[q], dv[q], fx, fv)
			}
		}
	}
}

// TestBallSensitivitiesClosedForm: ∂x(T)/∂p and ∂v(T)/∂p for p = initial
// height h, elasticity e and gravity (signed; ∂/∂gravity = −∂/∂G) from
// Sim.Sensitivities (adaptive Dormand–Prince, events, saltation jumps)
// against bounceState's closed form, before the first bounce, after one
// and after three. Tolerance 1e-8 relative (an absolute 1e-12 floor for
// derivatives that are exactly zero): free flight is quadratic in t, so
// DOPRI5 and its dense output are exact up to rounding, and the located
// contact times are within EventTol = 1e-14 of the roots.
func TestBallSensitivitiesClosedForm(t *testing.T) {
	const h, e, G = 1.0, 0.8, 9.81
	params := []string{"ball.initial_position", "ball.elasticity", "ball.gravity"}
	for _, tc := range []struct {
		T       float64
		bounces int
		fixed   float64 // Integrator.FixedStep: Dormand–Prince at a fixed step, events still located
		method  string  // a fixed-step method with step 0.01 (events located by re-stepping)
	}{
		{0.3, 0, 0, ""}, {0.8, 1, 0, ""}, {2.0, 3, 0, ""}, {2.0, 3, 0.05, ""},
		{0.8, 1, 0, integrators.MethodRK4}, {2.0, 3, 0, integrators.MethodRK4}, {2.0, 3, 0, integrators.MethodHeun},
	} {
		s := ballOnTable(t, h, e, G)
		opts := &graph.SensitivityOptions{
			End: tc.T, Output: []float64{tc.T},
			Mode: graph.MonolithicAdaptive{Method: integrators.DormandPrince{RTol: 1e-12, ATol: 1e-12, FixedStep: tc.fixed}, Options: &integrators.DriverOptions{EventTol: 1e-14}},
		}
		if tc.method != "" {
			m, _ := integrators.ByName(tc.method)
			opts.Dt, opts.RecordEvery, opts.Output = 0.01, 1<<30, nil
			// A fixed-step method uses only the event settings: the
			// adaptive driver's tolerances would be an error.
			opts.Mode = graph.Monolithic{Method: m, Options: &integrators.DriverOptions{EventTol: 1e-14}}
		}
		res, err := s.Sensitivities(context.Background(), params, opts)
		if err != nil {
			t.Fatal(err)
		}
		x, v, dx, dv, k := bounceState(h, e, G, tc.T)
		if k != tc.bounces || len(res.Events) != k {
			t.Fatalf("T=%v: %d bounces in the closed form, %d located, want %d", tc.T, k, len(res.Events), tc.bounces)
		}
		sign := [3]float64{1, 1, -1} // gravity = −G
		last := len(res.Times) - 1
		worst := 0.0
		defer func() { t.Logf("T=%v %s fixed=%v: largest relative error %.2g", tc.T, tc.method, tc.fixed, worst) }()
		check := func(what string, got, want float64) {
			if want != 0 {
				worst = math.Max(worst, math.Abs(got-want)/math.Abs(want))
			}
			if !numtest.Within(got, want, 1e-8*math.Abs(want)+1e-12) {
				t.Errorf("T=%v %s = %.15g, closed form %.15g (rel. error %.2g)", tc.T, what, got, want, math.Abs(got-want)/math.Abs(want))
			}
		}
		gx, _ := res.Value(last, "ball.position")
		gv, _ := res.Value(last, "ball.velocity")
		check("x", gx, x)
		check("v", gv, v)
		for q, p := range params {
			sx, _ := res.At(last, "ball.position", p)
			sv, _ := res.At(last, "ball.velocity", p)
			check("∂x/∂"+p, sx, sign[q]*dx[q])
			check("∂v/∂"+p, sv, sign[q]*dv[q])
		}
		// Each event time's derivative: ∂t₁/∂h = 1/V₁ for the first one.
		if k > 0 {
			V1 := math.Sqrt(2 * G * h)
			check("∂t₁/∂h", res.Events[0].DT[0], 1/V1)
		}
	}
}

// TestBallSensitivitiesFDFallback: the same closed form when the ball's
// analytic Jacobians are hidden (a wrapper without Unwrap), so every
// derivative comes from the graph's finite differences over SetParams and
// over Events/Reset: 1e-6 relative, the differences' accuracy (steps
// 1e-6 relative, rounding amplified by 1/step).
func TestBallSensitivitiesFDFallback(t *testing.T) {
	const h, e, G, T = 1.0, 0.8, 9.81, 2.0
	p := ball.DefaultParams()
	p.InitialPosition, p.Elasticity, p.Gravity = h, e, -G
	b, _ := ball.New(p)
	tb, _ := table.New(table.DefaultParams())
	g := graph.New()
	g.Add("ball", plainBall{b})
	g.Add("table", tb)
	g.Connect("table.position", "ball.table_position")
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	params := []string{"ball.initial_position", "ball.elasticity", "ball.gravity"}
	res, err := s.Sensitivities(context.Background(), params, &graph.SensitivityOptions{
		End: T, Output: []float64{T},
		Mode: graph.MonolithicAdaptive{Method: integrators.DormandPrince{RTol: 1e-12, ATol: 1e-12}, Options: &integrators.DriverOptions{EventTol: 1e-14}},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, _, dx, dv, _ := bounceState(h, e, G, T)
	sign := [3]float64{1, 1, -1}
	for q, p := range params {
		sx, _ := res.At(0, "ball.position", p)
		sv, _ := res.At(0, "ball.velocity", p)
		if !numtest.Within(sx, sign[q]*dx[q], 1e-6*math.Abs(dx[q])) || !numtest.Within(sv, sign[q]*dv[q], 1e-6*math.Abs(dv[q])) {
			t.Errorf("∂/∂%s: got %v, %v; closed form %v, %v", p, sx, sv, sign[q]*dx[q], sign[q]*dv[q])
		}
	}
}

// plainBall is a ball with only the capabilities the graph needs to run
// it monolithically: no analytic Jacobians.
type plainBall struct{ b *ball.Node }

func (p plainBall) Spec() *node.Spec                 { return p.b.Spec() }
func (p plainBall) InitialState(dst []float64)       { p.b.InitialState(dst) }
func (p plainBall) Params() node.Values              { return p.b.Params() }
func (p plainBall) SetParams(m map[string]any) error { return p.b.SetParams(m) }
func (p plainBall) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	return p.b.Update(t, dt, x, in, dst)
}
func (p plainBall) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	return p.b.Derivatives(t, x, in, dst)
}
func (p plainBall) EventValues(t float64, x []float64, in node.Inputs, dst []float64) error {
	return p.b.EventValues(t, x, in, dst)
}
func (p plainBall) Reset(i int, t float64, x []float64, in node.Inputs, dst []float64) error {
	return p.b.Reset(i, t, x, in, dst)
}

// TestSensitivitiesRejections: what cannot be differentiated correctly is
// an error wrapping graph.ErrNotDifferentiable, not a wrong number.
func TestSensitivitiesRejections(t *testing.T) {
	s := ballOnTable(t, 1, 0.8, 9.81)
	ctx := context.Background()
	ps := []string{"ball.elasticity"}
	if _, err := s.Sensitivities(ctx, ps, &graph.SensitivityOptions{End: 1, Mode: graph.CoSimulation{}}); !errors.Is(err, graph.ErrNotDifferentiable) {
		t.Errorf("co-simulation: %v", err)
	}
	for _, bad := range []string{"ball", "nosuch.x", "ball.nosuch", "ball.color"} {
		if _, err := s.Sensitivities(ctx, []string{bad}, &graph.SensitivityOptions{End: 1}); err == nil {
			t.Errorf("parameter %q accepted", bad)
		} else {
			t.Log(err)
		}
	}
}
