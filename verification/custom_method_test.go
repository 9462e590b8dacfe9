package verification

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/spring"
)

// ssp3 is the three-stage, third-order strong-stability-preserving
// Runge–Kutta method of Shu & Osher (J. Comput. Phys. 77, 439–471, 1988,
// eq. 2.18), in its Shu–Osher form:
//
//	u¹ = uⁿ + Δt·f(tₙ, uⁿ)
//	u² = ¾uⁿ + ¼(u¹ + Δt·f(tₙ + Δt, u¹))
//	uⁿ⁺¹ = ⅓uⁿ + ⅔(u² + Δt·f(tₙ + ½Δt, u²))
//
// It is defined here, outside package integrators, by implementing the
// integrators.Method interface directly: nothing of the package's own
// steppers is used.
type ssp3 struct{}

func (ssp3) Name() string { return "ssp-rk3" }
func (ssp3) Order() int   { return 3 }
func (ssp3) New(sys integrators.System, _ *integrators.DriverOptions) (integrators.Stepper, error) {
	n := sys.Dim()
	mk := func() []float64 { return make([]float64, n) }
	return &ssp3Stepper{sys: sys, y: mk(), u1: mk(), u2: mk(), f: mk(), out: mk()}, nil
}

type ssp3Stepper struct {
	sys            integrators.System
	t0, dt         float64 // the clock: t = t0 + stepsSinceBase·dt (time from the step count)
	stepsSinceBase int
	y, u1, u2, f   []float64
	out            []float64
	stats          integrators.Work
}

func (s *ssp3Stepper) Method() string              { return "ssp-rk3" }
func (s *ssp3Stepper) Order() int                  { return 3 }
func (s *ssp3Stepper) Work() integrators.Work      { return s.stats }
func (s *ssp3Stepper) State() (float64, []float64) { return s.now(), s.y }
func (s *ssp3Stepper) now() float64                { return s.t0 + float64(s.stepsSinceBase)*s.dt }
func (s *ssp3Stepper) Init(t0 float64, y0 []float64) error {
	copy(s.y, y0)
	s.t0, s.dt, s.stepsSinceBase, s.stats = t0, 0, 0, integrators.Work{}
	return nil
}

func (s *ssp3Stepper) eval(t, dt float64, y []float64) error {
	s.stats.FuncEvals++
	if err := s.sys.Func(t, y, s.f); err != nil {
		return &integrators.StepError{Method: "ssp-rk3", Status: integrators.Failure, T: t, Dt: dt, Index: -1, Err: err}
	}
	return nil
}

func (s *ssp3Stepper) Step(dt float64) error {
	if dt != s.dt { // a new step size restarts the clock at the current time
		s.t0, s.stepsSinceBase, s.dt = s.now(), 0, dt
	}
	t := s.now()
	if err := s.eval(t, dt, s.y); err != nil {
		return err
	}
	for i, y := range s.y {
		s.u1[i] = y + dt*s.f[i]
	}
	if err := s.eval(t+dt, dt, s.u1); err != nil {
		return err
	}
	for i, y := range s.y {
		s.u2[i] = 0.75*y + 0.25*(s.u1[i]+dt*s.f[i])
	}
	if err := s.eval(t+0.5*dt, dt, s.u2); err != nil {
		return err
	}
	for i, y := range s.y {
		v := y/3 + 2.0/3*(s.u2[i]+dt*s.f[i])
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return &integrators.StepError{Method: "ssp-rk3", Status: integrators.NonFinite, T: t + dt, Dt: dt, Index: i}
		}
		s.out[i] = v
	}
	copy(s.y, s.out)
	s.stepsSinceBase++
	s.stats.Steps++
	return nil
}

// springPair is two point masses (1 kg at the origin, 3 kg at 1.5 m on
// x) at rest, joined by an undamped spring (k = 50 N/m, ℓ₀ = 1 m): the
// motion stays on the x axis, where the spring force k(r − ℓ₀) is linear
// in the separation r, so
//
//	r(t) = ℓ₀ + (r₀ − ℓ₀)·cos ωt,  ω = √(k/μ),  μ = m_a·m_b/(m_a + m_b),
//
// about a centre of mass X = 1.125 m at rest: x_a = X − (m_b/M)·r,
// x_b = X + (m_a/M)·r.
const (
	pairK, pairL, pairR0 = 50.0, 1.0, 1.5
	pairMa, pairMb       = 1.0, 3.0
)

func springPair() (*graph.Sim, error) {
	a, err := masspoint.New(masspoint.Params{Mass: pairMa})
	if err != nil {
		return nil, err
	}
	b, err := masspoint.New(masspoint.Params{Mass: pairMb, InitialPosition: [3]float64{pairR0, 0, 0}})
	if err != nil {
		return nil, err
	}
	g := graph.New()
	g.Add("a", a)
	g.Add("b", b)
	p := spring.DefaultParams()
	p.Stiffness, p.RestLength = pairK, pairL
	if _, err := spring.Connect(g, "s", p, node.Body("a"), node.Body("b")); err != nil {
		return nil, err
	}
	return g.Build()
}

func springPairExact(t float64, field string, dst []float64) {
	M := pairMa + pairMb
	mu := pairMa * pairMb / M
	w := math.Sqrt(pairK / mu)
	X := pairMb * pairR0 / M
	r := pairL + (pairR0-pairL)*math.Cos(w*t)
	rd := -(pairR0 - pairL) * w * math.Sin(w*t)
	clear(dst)
	switch field {
	case "a.position":
		dst[0] = X - pairMb/M*r
	case "b.position":
		dst[0] = X + pairMa/M*r
	case "a.velocity":
		dst[0] = -pairMb / M * rd
	case "b.velocity":
		dst[0] = pairMa / M * rd
	}
}

// TestCustomMethodMonolithicOrder drives a graph monolithically with a
// method defined outside package integrators (ssp3) and checks its
// declared order 3 with the MMS harness (MonolithicStudy): the observed
// order of the joint max-norm error at T = 2 s over 100…800 steps (ω·Δt
// from 0.16 to 0.02) must be within node.DefaultOrderTol of 3. Reference:
// the closed-form separation of the undamped two-mass spring (see
// springPair). For a linear autonomous system any three-stage
// third-order Runge–Kutta method has the stability polynomial
// 1 + z + z²/2 + z³/6, so the leading global error is (ωΔt)³·ωT/24
// relative, exactly third order.
func TestCustomMethodMonolithicOrder(t *testing.T) {
	study := MonolithicStudy{
		Build:  springPair,
		Method: ssp3{},
		Fields: []string{"a.position", "b.position", "a.velocity", "b.velocity"},
		Exact:  springPairExact,
		T:      2,
	}
	res, err := study.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ssp-rk3: steps %v, joint errors %.3g, observed order %.4f", res.Steps, res.Errors[len(res.Errors)-1], res.Joint())
	if err := res.Check(study.Declared()); err != nil {
		t.Error(err)
	}
	// The same study with rk4 observes 4: the harness tells the orders
	// apart (and the ssp3 result above is not the graph's own method).
	study.Method, _ = integrators.ByName("rk4")
	res4, err := study.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("rk4: joint errors %.3g, observed order %.4f", res4.Errors[len(res4.Errors)-1], res4.Joint())
	if err := res4.Check(study.Declared()); err != nil {
		t.Errorf("rk4: %v", err)
	}
	if math.Abs(res4.Joint()-res.Joint()) < 0.5 {
		t.Errorf("rk4 order %.3f and ssp-rk3 order %.3f are not told apart", res4.Joint(), res.Joint())
	}
}

// TestCustomMethodRegistry registers ssp3 and finds it by name, in any
// case, as scene files and the cosim command line do, and resumes a
// monolithic run with it bit for bit from a kept stepper.
func TestCustomMethodRegistry(t *testing.T) {
	// Registration is for the life of the process: a repeated run of
	// this test (-count) finds it registered already.
	if _, err := integrators.ByName("SSP-RK3"); err != nil {
		if !errors.Is(err, integrators.ErrUnknownMethod) {
			t.Fatal(err)
		}
		if err := integrators.Register(ssp3{}); err != nil {
			t.Fatal(err)
		}
	}
	m, err := integrators.ByName("SSP-RK3")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.(ssp3); !ok || m.Name() != "ssp-rk3" || m.Order() != 3 {
		t.Fatalf("ByName(SSP-RK3) = %+v", m)
	}
	if err := integrators.Register(ssp3{}); err == nil || !strings.Contains(err.Error(), "already registered") {
		t.Errorf("second Register: %v, want already registered", err)
	}
	if _, err := integrators.ByName("ssp-rk4"); !errors.Is(err, integrators.ErrUnknownMethod) || !strings.Contains(err.Error(), "ssp-rk3") {
		t.Errorf("unknown name: %v, want ErrUnknownMethod listing ssp-rk3", err)
	}
	// Two runs of 50 steps continue the kept stepper: the same bits as
	// one run of 100.
	one, err := springPair()
	if err != nil {
		t.Fatal(err)
	}
	two, _ := springPair()
	ctx := context.Background()
	if _, err := one.RunMonolithic(ctx, m, nil, graph.Settings{Dt: 0.01, Steps: 100}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := two.RunMonolithic(ctx, ssp3{}, nil, graph.Settings{Dt: 0.01, Steps: 50}); err != nil {
			t.Fatal(err)
		}
	}
	x1, _ := one.Value("b.position[0]")
	x2, _ := two.Value("b.position[0]")
	if x1[0] != x2[0] {
		t.Errorf("100 steps: %v, 2×50 steps: %v; want the same bits", x1[0], x2[0])
	}
	// An adaptive-driver option is an error for the custom method, not
	// ignored.
	three, _ := springPair()
	if _, err := three.RunMonolithic(ctx, m, &integrators.DriverOptions{MaxSteps: 10}, graph.Settings{Dt: 0.01, Steps: 1}); !errors.Is(err, integrators.ErrNotApplicable) {
		t.Errorf("MaxSteps with ssp-rk3: %v, want ErrNotApplicable", err)
	}
}
