package graph_test

import (
	"context"
	"math"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
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
	scale := numtest.FiniteScale(t, "the assembled Jacobian", J)
	fp, fm := make([]float64, n), make([]float64, n)
	for j := 0; j < n; j++ {
		yp := append([]float64(nil), y...)
		ym := append([]float64(nil), y...)
		h := 1e-6 * math.Max(1, math.Abs(y[j]))
		yp[j] += h
		ym[j] -= h
		mustFunc(t, sys, 0.3, yp, fp)
		mustFunc(t, sys, 0.3, ym, fm)
		for i := 0; i < n; i++ {
			fd := (fp[i] - fm[i]) / (2 * h)
			if !numtest.Within(fd, J[i*n+j], 1e-5*scale) {
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
		if !numtest.Within(got[i], want[i], 1e-9*math.Max(1, math.Abs(want[i]))) {
			t.Fatalf("%s: %v with the assembled Jacobian, %v with finite differences", sys.Component(i), got[i], want[i])
		}
	}
}

// feedChain is a graph whose Jacobian needs output rows computed from
// other output rows, with nodes added out of state order: masses m3, m1,
// m2 (so state order differs from the order of names), springs s12 and
// s23 between them and a wall, and a spring "relay" whose end a is
// s12's force on m1 turned into a length (a feedthrough node reading a
// feedthrough node), pulling m3 against its position.
func feedChain(t *testing.T) *graph.Sim {
	g := graph.New()
	g.Add("m3", newMass(1.5, 3.2))
	g.Add("wall", newSource("m", 0))
	g.Add("m1", newMass(1, 0.9))
	g.Add("m2", newMass(2, 2.1))
	g.Add("s12", newSpring(100))
	g.Add("s23", newSpring(300))
	g.Add("s01", newSpring(50))
	g.Add("relay", newSpring(7))
	toLength := graph.TransformFunc{Label: "compliance", In: node.Scalar, Out: node.Scalar, From: "N", To: "m", F: func(dst, src []float64) { dst[0] = 0.01 * src[0] * (1 + 0.2*src[0]) }}
	for _, e := range [][2]string{
		{"wall.value", "s01.a"}, {"m1.x", "s01.b"}, {"s01.fb", "m1.force"},
		{"m1.x", "s12.a"}, {"m2.x", "s12.b"}, {"s12.fa", "m1.force"}, {"s12.fb", "m2.force"},
		{"m2.x", "s23.a"}, {"m3.x", "s23.b"}, {"s23.fa", "m2.force"}, {"s23.fb", "m3.force"},
		{"m3.x", "relay.b"}, {"relay.fb", "m3.force"},
	} {
		g.Connect(e[0], e[1])
	}
	g.Connect("s12.fa", "relay.a", graph.Via(toLength))
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestJacobianRowsContract: JacobianRows gives every row of a state once,
// in increasing order, with strictly increasing columns, and the values
// SparseJacobian lays out (which TestSparseJacobianMatchesDifferences
// checks against differences); on a graph whose output rows feed other
// output rows and whose nodes were added out of state order, the
// assembly still matches central differences of the whole system. After
// the plan is built, an evaluation allocates nothing of its own (the
// test nodes allocate nothing; the rigid body's and springdamper's
// general Jacobians of jacGraph do).
func TestJacobianRowsContract(t *testing.T) {
	for gi, s := range []*graph.Sim{jacGraph(t), feedChain(t)} {
		sys, _ := s.System()
		y := s.State(nil)
		fdCheck(t, sys, y)
		rp, col := sys.JacobianPattern()
		val := make([]float64, len(col))
		if err := sys.SparseJacobian(0.3, y, val); err != nil {
			t.Fatal(err)
		}
		next := 0
		err := sys.JacobianRows(0.3, y, func(r int, cols []int32, vals []float64) {
			if r != next {
				t.Fatalf("row %d after row %d", r, next-1)
			}
			next++
			if len(cols) != rp[r+1]-rp[r] || len(vals) != len(cols) {
				t.Fatalf("row %d: %d columns, %d values; the pattern has %d", r, len(cols), len(vals), rp[r+1]-rp[r])
			}
			for k, c := range cols {
				if int(c) != col[rp[r]+k] || k > 0 && c <= cols[k-1] {
					t.Fatalf("row %d: columns %v, pattern %v", r, cols, col[rp[r]:rp[r+1]])
				}
				if math.Float64bits(vals[k]) != math.Float64bits(val[rp[r]+k]) {
					t.Fatalf("row %d: values %v, SparseJacobian %v", r, vals, val[rp[r]:rp[r+1]])
				}
			}
		})
		if err != nil || next != sys.Dim() {
			t.Fatalf("rows %d of %d, err %v", next, sys.Dim(), err)
		}
		emit := func(int, []int32, []float64) {}
		if a := numtest.AllocsPerRun(10, func() { sys.JacobianRows(0.3, y, emit) }); gi == 1 && a != 0 && !raceEnabled {
			t.Errorf("%v allocations per JacobianRows", a)
		}
	}
}

// mustFunc evaluates the System's right-hand side, failing the test on
// an error (finite differences of a failed evaluation are garbage).
func mustFunc(t testing.TB, sys *graph.System, tm float64, y, dst []float64) {
	t.Helper()
	if err := sys.Func(tm, y, dst); err != nil {
		t.Fatal(err)
	}
}
