package graph_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
)

// A positive LoopSettings.Memory is the Anderson depth the fallback uses:
// on y = u − y³ (cubicLoop), whose plain fixed-point map diverges
// (TestLoopAndersonFallback), a depth of 3 converges to the root y = 1
// within the loop tolerance (1e-10 relative; 1e-9 asserted).
func TestMutLoopExplicitMemory(t *testing.T) {
	s := mustBuild(t, cubicLoop(t, graph.LoopSettings{MaxIter: 1, Memory: 3}))
	if got := value(t, s, "sum.out"); !numtest.Within(got, 1, 1e-9) {
		t.Errorf("y = %.17g with Memory 3, want 1", got)
	}
}

// The message of a LoopSolveError gives the time in full, so that a user
// can find the step.
func TestMutLoopSolveErrorTime(t *testing.T) {
	e := &graph.LoopSolveError{Members: []string{"a", "b"}, Time: 0.125, Residual: 1, Worst: "a.out", Iterations: 3, Detail: "d", Tear: []string{"a.out"}}
	if msg := e.Error(); !strings.Contains(msg, "at t=0.125:") {
		t.Errorf("%q does not give the time 0.125", msg)
	}
}

// addGainLoop adds the loop y = u + a·y (p+"sum", p+"gain"), whose u comes
// from a constant u through a gain of 1 (p+"buf"): the loop reads a node
// one level above the sources.
func addGainLoop(t *testing.T, g *graph.Graph, p string, u, a float64) {
	g.Add(p+"ref", lconst(t, []float64{u}, "1"))
	g.Add(p+"buf", lgain(t, 1, 1, "1", "1"))
	g.Add(p+"sum", lsum(t, "++", 1, "1"))
	g.Add(p+"gain", lgain(t, a, 1, "1", "1"))
	g.Connect(p+"ref.value", p+"buf.in")
	g.Connect(p+"buf.out", p+"sum.in1")
	g.Connect(p+"sum.out", p+"gain.in")
	g.Connect(p+"gain.out", p+"sum.in2")
}

// Two loops, each reading a node outside it: each is solved after the
// node it reads (its closed form y = u/(1−a), to a few ulps: Newton is
// exact on a linear loop), and Sim.Loops lists them in the order of
// their first members.
func TestMutTwoLoops(t *testing.T) {
	g := graph.New()
	addGainLoop(t, g, "a", 2, 0.5)
	addGainLoop(t, g, "b", 3, -1)
	s := mustBuild(t, g)
	for _, c := range []struct {
		f    string
		want float64
	}{{"asum.out", 2 / (1 - 0.5)}, {"bsum.out", 3 / (1 + 1.0)}} {
		if got := value(t, s, c.f); !numtest.Within(got, c.want, 1e-15*c.want) {
			t.Errorf("%s = %.17g, want %.17g", c.f, got, c.want)
		}
	}
	ls := s.Loops()
	if len(ls) != 2 || ls[0].Members[0] != "asum" || ls[1].Members[0] != "bsum" {
		t.Errorf("Loops() = %+v, want the loop through asum first", ls)
	}
}

// Tearing takes the member with the largest product of in-degree and
// out-degree inside the loop (loop.go's file comment). Here C = A + X1
// and A = u + X1 + X2 + X3, Xi = 0.1·C: C has in-degree 2 and out-degree
// 3 (product 6), A 3 and 1 (3), X1 1 and 2 (2), X2 and X3 1 and 1; C
// alone cuts every cycle, so it is the only tear node. The solution is
// C = u + 0.4·C, C = u/0.6 (Newton, exact on the linear loop up to
// rounding: 1e-14 relative).
func TestMutLoopTearDegreeProduct(t *testing.T) {
	g := graph.New()
	g.Add("ref", lconst(t, []float64{3}, "1"))
	g.Add("A", lsum(t, "++++", 1, "1"))
	g.Add("C", lsum(t, "++", 1, "1"))
	for _, x := range []string{"X1", "X2", "X3"} {
		g.Add(x, lgain(t, 0.1, 1, "1", "1"))
		g.Connect("C.out", x+".in")
	}
	g.Connect("ref.value", "A.in1")
	g.Connect("X1.out", "A.in2")
	g.Connect("X2.out", "A.in3")
	g.Connect("X3.out", "A.in4")
	g.Connect("A.out", "C.in1")
	g.Connect("X1.out", "C.in2")
	s := mustBuild(t, g)
	if l := s.Loops(); len(l) != 1 || !slices.Equal(l[0].TearNodes, []string{"C"}) {
		t.Errorf("Loops() = %+v, want C the only tear node", l)
	}
	if got := value(t, s, "C.out"); !numtest.Within(got, 3/0.6, 1e-14*5) {
		t.Errorf("C = %.17g, want u/0.6 = 5", got)
	}
}

// vectorLoop is y = u + a·y on two components (sum.out[0], sum.out[1]),
// with the loop settings ls.
func vectorLoop(t *testing.T, u []float64, a float64, ls graph.LoopSettings, opts ...graph.Option) *graph.Graph {
	g := graph.New()
	g.Add("ref", lconst(t, u, "1"))
	g.Add("sum", lsum(t, "++", 2, "1"))
	g.Add("gain", lgain(t, a, 2, "1", "1"))
	g.Connect("ref.value", "sum.in1")
	g.Connect("sum.out", "gain.in")
	g.Connect("gain.out", "sum.in2", opts...)
	g.SetLoopSettings(ls)
	return g
}

// y = u + y has no solution. Newton meets the singular matrix I − I in
// its first iteration, the fixed-point fallback (which Anderson cannot
// help: every residual r = f − z is u) runs its MaxFallbackIter = 3
// iterations, so the loop counts 1 + 3 iterations, and the error names
// the tear variable of the largest residual |u_k| (the first of equal
// ones), sum.out[k]. The tear variables are named per component of the
// vector output, though sum's outputs follow ref's in the Sim.
func TestMutLoopVectorNotConverged(t *testing.T) {
	for _, c := range []struct {
		u     []float64
		worst string
	}{{[]float64{3, 1}, "sum.out[0]"}, {[]float64{1, 3}, "sum.out[1]"}, {[]float64{2, 2}, "sum.out[0]"}} {
		s := mustBuild(t, vectorLoop(t, c.u, 1, graph.LoopSettings{MaxFallbackIter: 3}))
		_, err := s.Value("sum.out")
		var le *graph.LoopSolveError
		if !errors.As(err, &le) || le.Worst != c.worst || le.Residual != max(c.u[0], c.u[1]) {
			t.Errorf("u = %v: %v, want the residual %v in %s", c.u, err, max(c.u[0], c.u[1]), c.worst)
		}
		l := s.Loops()[0]
		if !slices.Equal(l.Tear, []string{"sum.out[0]", "sum.out[1]"}) || l.Iterations != 4 || le.Iterations != 4 {
			t.Errorf("u = %v: tear %v, %d iterations (error: %d), want sum.out[0], sum.out[1] and 4", c.u, l.Tear, l.Iterations, le.Iterations)
		}
	}
}

// LoopSettings.MaxIter Newton iterations are allowed: Newton is exact on
// the linear loop y = u + 0.5·y in one, so MaxIter 1 solves it without
// the fallback.
func TestMutLoopNewtonMaxIterOne(t *testing.T) {
	g := gainLoop(t, 2, 0.5)
	g.SetLoopSettings(graph.LoopSettings{MaxIter: 1})
	s := mustBuild(t, g)
	if got := value(t, s, "sum.out"); !numtest.Within(got, 4, 1e-15*4) {
		t.Errorf("y = %.17g, want 4", got)
	}
	if l := s.Loops()[0]; l.Fallbacks != 0 || l.Iterations != 1 {
		t.Errorf("%+v: want one Newton iteration, no fallback", l)
	}
}

// The differenced Newton matrix (a transform inside the loop) scales its
// step with the tear value: on y = u + 0.5·y with u = 1e12 the first
// matrix, at z = 0, differences below the rounding of F(z) ≈ 1e12 and is
// 0, so the first iterate is F(0) = u; the second, at z = 1e12, takes a
// step of √ε·1e12 and is exact, and Newton converges there (y = 2e12,
// within the loop's RelTol) without the fallback.
func TestMutLoopDifferencedNewtonLargeValues(t *testing.T) {
	g := graph.New()
	g.Add("ref", lconst(t, []float64{1e12}, "1"))
	g.Add("sum", lsum(t, "++", 1, "1"))
	g.Add("gain", lgain(t, 1, 1, "1", "1"))
	g.Connect("ref.value", "sum.in1")
	g.Connect("sum.out", "gain.in")
	g.Connect("gain.out", "sum.in2", graph.Via(graph.Scale{Factor: 0.5}))
	s := mustBuild(t, g)
	if got := value(t, s, "sum.out"); !numtest.Within(got, 2e12, graph.DefaultLoopRelTol*2e12) {
		t.Errorf("y = %.17g, want 2e12", got)
	}
	if l := s.Loops()[0]; l.ChainRule || l.Fallbacks != 0 {
		t.Errorf("%+v: want the differenced Newton matrix and no fallback", l)
	}
}

// The nonlinear loop y = u − y³ (root 1) with a transform inside, so the
// Newton matrix is differenced: Newton converges (as with the analytic
// matrix, TestLoopNonlinearClosedForm) within the default 20 iterations,
// without the fallback — the plain fixed point diverges there (|g'(1)| =
// 3), so only a right matrix gets there.
func TestMutLoopDifferencedNewtonNonlinear(t *testing.T) {
	g := graph.New()
	g.Add("ref", lconst(t, []float64{2}, "1"))
	g.Add("sum", lsum(t, "+-", 1, "1"))
	g.Add("cube", newCubic())
	g.Connect("ref.value", "sum.in1")
	g.Connect("cube.out", "sum.in2", graph.Via(graph.Scale{Factor: 1}))
	g.Connect("sum.out", "cube.in")
	s := mustBuild(t, g)
	if got := value(t, s, "sum.out"); !numtest.Within(got, 1, 1e-9) {
		t.Errorf("y = %.17g, want 1", got)
	}
	if l := s.Loops()[0]; l.ChainRule || l.Fallbacks != 0 {
		t.Errorf("%+v: want the differenced Newton matrix and no fallback", l)
	}
}

// The differenced Newton matrix of a loop of two tear variables: on the
// linear y = u + 0.5·0.5·y (a Scale transform inside) the differences are
// exact up to rounding, so Newton converges in one iteration, to
// y_k = u_k/0.75 within the loop's RelTol.
func TestMutLoopDifferencedNewtonTwoTears(t *testing.T) {
	s := mustBuild(t, vectorLoop(t, []float64{1, 3}, 0.5, graph.LoopSettings{}, graph.Via(graph.Scale{Factor: 0.5})))
	y, err := s.Value("sum.out")
	if err != nil {
		t.Fatal(err)
	}
	for k, u := range []float64{1, 3} {
		if !numtest.Within(y[k], u/0.75, 1e-9*u) {
			t.Errorf("y[%d] = %.17g, want %.17g", k, y[k], u/0.75)
		}
	}
	if l := s.Loops()[0]; l.ChainRule || l.Iterations != l.Solves || l.Fallbacks != 0 {
		t.Errorf("%+v: want the differenced matrix, one Newton iteration per solve", l)
	}
}

// mix2 is the feedthrough y = M·u on two components, M = [[0.2, 0.1],
// [0.3, 0.4]], without OutputsJacobian: the loop's chain rule differences
// it (central differences, exact up to rounding on a linear map).
type mix2 struct {
	node.Stateless
	spec *node.Spec
}

func newMix2() *mix2 {
	return &mix2{spec: node.NewSpec(node.Spec{Type: "mix2",
		Inputs:      []node.Input{{Name: "in", Shape: node.Vec(2), Units: "1", Description: "u", Combine: node.Replacing, Default: []float64{0, 0}}},
		Outputs:     []node.Field{{Name: "out", Shape: node.Vec(2), Units: "1", Description: "M·u"}},
		Feedthrough: true})}
}

func (m *mix2) Spec() *node.Spec { return m.spec }
func (m *mix2) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	u := in.Values
	dst[0] = 0.2*u[0] + 0.1*u[1]
	dst[1] = 0.3*u[0] + 0.4*u[1]
	return nil
}

// y = u + M·y through a differenced member of two inputs and two outputs:
// its ∂y/∂u, differenced column by column, enters the chain rule, and
// Newton converges in one iteration to y = (I − M)⁻¹u (closed form with
// det(I − M) = 0.8·0.6 − 0.1·0.3 = 0.45; 1e-12 relative: the central
// differences of a linear map are exact up to rounding).
func TestMutLoopDifferencedMemberTwoByTwo(t *testing.T) {
	g := graph.New()
	g.Add("ref", lconst(t, []float64{1, 2}, "1"))
	g.Add("sum", lsum(t, "++", 2, "1"))
	g.Add("mix", newMix2())
	g.Connect("ref.value", "sum.in1")
	g.Connect("sum.out", "mix.in")
	g.Connect("mix.out", "sum.in2")
	s := mustBuild(t, g)
	y, err := s.Value("sum.out")
	if err != nil {
		t.Fatal(err)
	}
	// (I − M)⁻¹ = [[0.6, 0.1], [0.3, 0.8]]/0.45.
	want := []float64{(0.6*1 + 0.1*2) / 0.45, (0.3*1 + 0.8*2) / 0.45}
	for k := range want {
		if !numtest.Within(y[k], want[k], 1e-12*want[k]) {
			t.Errorf("y[%d] = %.17g, want %.17g", k, y[k], want[k])
		}
	}
	if l := s.Loops()[0]; !l.ChainRule || !slices.Equal(l.Differenced, []string{"mix"}) || l.Iterations != l.Solves || l.Fallbacks != 0 {
		t.Errorf("%+v: want the chain rule with mix differenced, one Newton iteration per solve", l)
	}
}
