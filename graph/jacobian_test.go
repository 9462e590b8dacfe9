package graph_test

import (
	"context"
	"github.com/cosimgo/cosim/node"
	"math"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/rigidbody"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// bodies: two point masses and a rigid body joined by damped
// spring-dampers (one to the ground, one to the body's off-centre point),
// with a scaled edge: every path of the chain rule.
func jacGraph(t *testing.T) *graph.Sim {
	g := graph.New()
	mp := masspoint.DefaultParams()
	mp.Mass, mp.InitialPosition, mp.InitialVelocity = 2, [3]float64{1, 0.5, 0}, [3]float64{0.1, -0.2, 0.3}
	a, _ := masspoint.New(mp)
	mp.InitialPosition = [3]float64{2, 0, 0.2}
	b, _ := masspoint.New(mp)
	rp := rigidbody.DefaultParams()
	rp.Inertia, rp.InitialPosition = [3]float64{1, 2, 3}, [3]float64{3, 0, 0}
	rp.InitialOrientation = [4]float64{0.9, 0.1, -0.2, 0.3}
	rp.InitialAngularVelocity = [3]float64{0.3, -0.5, 0.7}
	r, _ := rigidbody.New(rp)
	g.Add("a", a)
	g.Add("b", b)
	g.Add("r", r)
	p := springdamper.DefaultParams()
	p.Stiffness, p.Damping = [3]float64{100, 200, 300}, [3]float64{1, 2, 3}
	for _, c := range []struct{ name, b0, b1 string }{{"s0", "ground", "a"}, {"s1", "a", "b"}, {"s2", "b", "r"}} {
		if _, err := springdamper.Connect(g, c.name, p, node.BodyAt(c.b0, [3]float64{0.1, 0.2, 0}), node.BodyAt(c.b1, [3]float64{0.3, -0.1, 0.2})); err != nil {
			t.Fatal(err)
		}
	}
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The assembled Jacobian matches central finite differences of the whole
// system's right-hand side. Tolerance 1e-5 of the Jacobian's largest
// entry: FD truncation O(h²·f”') at h = 1e-6 plus round-off ε·|f|/h.
func TestSystemJacobian(t *testing.T) {
	s := jacGraph(t)
	sys, _ := s.System()
	n := sys.Dim()
	y := s.State(nil)
	J := make([]float64, n*n)
	if err := sys.Jacobian(0.3, y, J); err != nil {
		t.Fatal(err)
	}
	scale := 0.0
	for _, v := range J {
		scale = math.Max(scale, math.Abs(v))
	}
	fp, fm := make([]float64, n), make([]float64, n)
	for j := 0; j < n; j++ {
		yp := append([]float64(nil), y...)
		ym := append([]float64(nil), y...)
		h := 1e-6 * math.Max(1, math.Abs(y[j]))
		yp[j] += h
		ym[j] -= h
		sys.Func(0.3, yp, fp)
		sys.Func(0.3, ym, fm)
		for i := 0; i < n; i++ {
			fd := (fp[i] - fm[i]) / (2 * h)
			if math.Abs(fd-J[i*n+j]) > 1e-5*scale {
				t.Errorf("∂f[%s]/∂y[%s] = %v assembled, %v by finite differences", sys.Component(i), sys.Component(j), J[i*n+j], fd)
			}
		}
	}
}

// Backward Euler through the graph uses the assembled Jacobian: one
// Jacobian per Newton iteration instead of Dim extra evaluations, and the
// same trajectory as differencing the whole system (to the Newton
// tolerance, 1e-9 here).
func TestImplicitUsesGraphJacobian(t *testing.T) {
	m, _ := integrators.ByName(integrators.MethodBackwardEuler)
	s := jacGraph(t)
	res, err := s.RunMonolithic(context.Background(), m, nil, graph.Settings{Dt: 0.01, Steps: 50})
	if err != nil {
		t.Fatal(err)
	}
	got := s.State(nil)
	if res.Integrator.JacEvals == 0 || res.Integrator.FuncEvals > 4*res.Integrator.NewtonIters+100 {
		t.Errorf("work %+v: the assembled Jacobian was not used", res.Integrator)
	}
	// Reference: the same system hidden behind a plain Func, so the
	// integrator differences it.
	ref := jacGraph(t)
	sys, _ := ref.System()
	plain := integrators.SystemFunc{N: sys.Dim(), F: sys.Func}
	st, _ := m.New(plain, nil)
	st.Init(0, ref.State(nil))
	for k := 0; k < 50; k++ {
		if err := st.Step(0.01); err != nil {
			t.Fatal(err)
		}
	}
	_, want := st.State()
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-9*math.Max(1, math.Abs(want[i])) {
			t.Fatalf("%s: %v with the assembled Jacobian, %v with finite differences", sys.Component(i), got[i], want[i])
		}
	}
}
