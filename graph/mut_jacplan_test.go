package graph_test

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cosimgo/cosim/benchmarks"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
)

// Tests of the sparse Jacobian's plan (jacobian.go: which columns each
// row may reach, which output rows are needed, in which order they are
// computed, and the plan's memory) on graph shapes the other Jacobian
// tests do not have.

// jpFollower relaxes towards a target given as a one-component vector:
// y' = rate·(target[0] − y). The smallest node whose input is a (1,)
// vector, the shape Embed{Axis: 0, Len: 1} makes from a scalar.
type jpFollower struct {
	spec *node.Spec
	rate float64
}

func newJPFollower(rate float64) *jpFollower {
	return &jpFollower{rate: rate, spec: node.NewSpec(node.Spec{
		Type:   "follower",
		State:  []node.Field{{Name: "y", Units: "m", Description: "position relaxing towards the target"}},
		Inputs: []node.Input{{Name: "target", Shape: node.Vec(1), Units: "m", Description: "target position", Combine: node.Replacing}},
	})}
}

func (n *jpFollower) Spec() *node.Spec           { return n.spec }
func (n *jpFollower) InitialState(dst []float64) { dst[0] = 0.25 }
func (n *jpFollower) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = x[0] + dt*n.rate*(in.Values[0]-x[0])
	return nil
}
func (n *jpFollower) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = n.rate * (in.Values[0] - x[0])
	return nil
}

// denseJacobian returns ∂f/∂y of sys at its state y (row-major).
func denseJacobian(t *testing.T, sys *graph.System, y []float64) []float64 {
	t.Helper()
	n := sys.Dim()
	J := make([]float64, n*n)
	if err := sys.Jacobian(0.3, y, J); err != nil {
		t.Fatal(err)
	}
	return J
}

// TestJacobianEmbedIntoOneVector: a mass's position reaches a follower
// through Embed{Axis: 0, Len: 1}, a legal transform (a scalar placed in a
// vector of one component). The follower's row is, in closed form,
// ∂y'/∂y = −rate and ∂y'/∂x = rate (Embed copies x exactly), and the
// pattern holds x's column: the plan must see that row 0 of the Embed's
// Jacobian reaches the source. The entries are differenced locally
// (the test nodes give no analytic Jacobian) from an affine function:
// exact to rounding, checked to 1e-8 relative.
func TestJacobianEmbedIntoOneVector(t *testing.T) {
	g := graph.New()
	g.Add("m", newMass(2, 0.7))
	const rate = 3.0
	g.Add("f", newJPFollower(rate))
	g.Connect("m.x", "f.target", graph.Via(graph.Embed{Axis: 0, Len: 1}))
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	sys, _ := s.System()
	y := s.State(nil)
	x, fy := slices.Index(componentNames(sys), "m.x"), slices.Index(componentNames(sys), "f.y")
	if x < 0 || fy < 0 {
		t.Fatalf("components %v: want m.x and f.y", componentNames(sys))
	}
	n := sys.Dim()
	J := denseJacobian(t, sys, y)
	numtest.ExpectWithin(t, "∂f.y'/∂m.x", J[fy*n+x], rate, 1e-8*rate)
	numtest.ExpectWithin(t, "∂f.y'/∂f.y", J[fy*n+fy], -rate, 1e-8*rate)
	rp, col := sys.JacobianPattern()
	if row := col[rp[fy]:rp[fy+1]]; !slices.Contains(row, x) {
		t.Errorf("pattern of f.y's row %v lacks m.x (column %d)", row, x)
	}
	fdCheck(t, sys, y)
}

// componentNames lists the System's component names in state order.
func componentNames(sys *graph.System) []string {
	names := make([]string, sys.Dim())
	for i := range names {
		names[i] = sys.Component(i)
	}
	return names
}

// TestJacobianRingOf64Outputs: 32 unit masses on a ring, joined by 32
// springs of stiffness k: 64 output values, a whole word of the plan's
// per-row marks, the last of them (the last spring's force on the first
// mass) read. The Jacobian is, in closed form, ∂x_i'/∂v_i = 1 and
// ∂v_i'/∂x_j = k·L_ij with L the ring's Laplacian (−2 on the diagonal, 1
// for both neighbours, indices modulo 32). Its entries are central
// differences of affine functions (the test nodes give no analytic
// Jacobian), so exact to rounding: checked to 1e-8·k.
func TestJacobianRingOf64Outputs(t *testing.T) {
	const masses, k = 32, 1000.0
	g := graph.New()
	for i := range masses {
		g.Add(fmt.Sprintf("m%d", i), newMass(1, float64(i)+0.1*math.Sin(float64(i))))
	}
	for i := range masses {
		sp, a, b := fmt.Sprintf("s%d", i), fmt.Sprintf("m%d", i), fmt.Sprintf("m%d", (i+1)%masses)
		g.Add(sp, newSpring(k))
		g.Connect(a+".x", sp+".a")
		g.Connect(b+".x", sp+".b")
		g.Connect(sp+".fa", a+".force")
		g.Connect(sp+".fb", b+".force")
	}
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	sys, _ := s.System()
	n := sys.Dim()
	J := denseJacobian(t, sys, s.State(nil))
	for i := range masses {
		for j := range n {
			want := 0.0
			if j == 2*i+1 {
				want = 1 // ∂x_i'/∂v_i
			}
			numtest.ExpectWithin(t, fmt.Sprintf("∂%s'/∂%s", sys.Component(2*i), sys.Component(j)), J[2*i*n+j], want, 1e-8*k)
			want = 0
			switch j {
			case 2 * i:
				want = -2 * k
			case 2 * ((i + 1) % masses), 2 * ((i + masses - 1) % masses):
				want = k
			}
			numtest.ExpectWithin(t, fmt.Sprintf("∂%s'/∂%s", sys.Component(2*i+1), sys.Component(j)), J[(2*i+1)*n+j], want, 1e-8*k)
		}
	}
}

// TestJacobianPatternExactThroughTransformFunc: the pattern is exact at
// graph granularity (jacobian.go): a row holds its node's own state and
// the state components its inputs reach, no more. Three masses
// m1, m2, m3 (states x1 v1 x2 v2 x3 v3, columns 0–5); spring p reads m1's
// position through a TransformFunc and m2's plainly, spring q m2's
// plainly and m3's through a TransformFunc; each spring's forces drive
// its two masses. A position row is its velocity; a velocity row is its
// mass's state and the positions its springs read:
//
//	v1: x1 v1 x2 (p)   v2: x1 (p) x2 v2 x3 (q)   v3: x2 (q) x3 v3
//
// A differenced transform of a position says nothing of the velocity
// stored after it. The values are checked against differences of the
// whole system (fdCheck).
func TestJacobianPatternExactThroughTransformFunc(t *testing.T) {
	stretch := graph.TransformFunc{Label: "stretch", In: node.Scalar, Out: node.Scalar, From: "m", To: "m", F: func(dst, src []float64) { dst[0] = src[0] * (1 + 0.1*src[0]) }}
	g := graph.New()
	g.Add("m1", newMass(1, 0.9))
	g.Add("m2", newMass(2, 2.1))
	g.Add("m3", newMass(1.5, 3.2))
	g.Add("p", newSpring(100))
	g.Add("q", newSpring(300))
	g.Connect("m1.x", "p.a", graph.Via(stretch))
	g.Connect("m2.x", "p.b")
	g.Connect("m2.x", "q.a")
	g.Connect("m3.x", "q.b", graph.Via(stretch))
	for _, e := range [][2]string{{"p.fa", "m1.force"}, {"p.fb", "m2.force"}, {"q.fa", "m2.force"}, {"q.fb", "m3.force"}} {
		g.Connect(e[0], e[1])
	}
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	sys, _ := s.System()
	if got, want := componentNames(sys), []string{"m1.x", "m1.v", "m2.x", "m2.v", "m3.x", "m3.v"}; !slices.Equal(got, want) {
		t.Fatalf("components %v, want %v", got, want)
	}
	rp, col := sys.JacobianPattern()
	want := [][]int{{1}, {0, 1, 2}, {3}, {0, 2, 3, 4}, {5}, {2, 4, 5}}
	for r, w := range want {
		if got := col[rp[r]:rp[r+1]]; !slices.Equal(got, w) {
			t.Errorf("row %s: columns %v, want %v", sys.Component(r), got, w)
		}
	}
	fdCheck(t, sys, s.State(nil))
}

// TestJacobianConnectorsAddedFirst: feedChain's graph with its nodes
// added connectors first, the feedthrough "relay" (which reads s12's
// force through a transform) before everything: the first node of the
// Sim is then an output node a mass needs, and relay's rows, computed
// from s12's, come before s12 in node order. The plan must still compute
// every needed output node, each after the nodes it reads; the assembly
// must match central differences of the whole system (fdCheck).
func TestJacobianConnectorsAddedFirst(t *testing.T) {
	g := graph.New()
	g.Add("relay", newSpring(7))
	g.Add("s12", newSpring(100))
	g.Add("s23", newSpring(300))
	g.Add("s01", newSpring(50))
	g.Add("m3", newMass(1.5, 3.2))
	g.Add("wall", newSource("m", 0))
	g.Add("m1", newMass(1, 0.9))
	g.Add("m2", newMass(2, 2.1))
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
	sys, _ := s.System()
	fdCheck(t, sys, s.State(nil))
}

// TestJacobianPlanMemoryBounded: the plan keeps, besides a few bytes of
// records per node, only storage that does not grow with the graph
// (jacobian.go): the arena holds the rows of the output nodes alive at a
// time (two connectors' in a chain built in order), the work slices are
// sized for the largest node, and a chain's column sets are runs of
// consecutive columns, stored as their first column (no stored columns).
// On the W1 chain (masspoints and springdampers) of 20 and of 200 masses
// every one of these lengths must be the same, and no column stored. And
// building the plan of the 200-mass chain must allocate under 2 KB per
// state in all (measured: about 0.3 KB, most of it the first 256 KB chunk
// of the temporary column sets); storage that grew with the graph per
// node, or work sized by the whole graph, would be tens of kilobytes per
// state here and gigabytes at 10⁵ masses.
func TestJacobianPlanMemoryBounded(t *testing.T) {
	sizes := func(n int) (map[string]int, float64) {
		s, err := benchmarks.Mode1(n).Build()
		if err != nil {
			t.Fatal(err)
		}
		sys, err := s.System()
		if err != nil {
			t.Fatal(err)
		}
		var a, b runtime.MemStats
		runtime.ReadMemStats(&a)
		sz := sys.JacobianPlanSizes()
		runtime.ReadMemStats(&b)
		return sz, float64(b.TotalAlloc-a.TotalAlloc) / float64(sys.Dim())
	}
	small, _ := sizes(20)
	large, perState := sizes(200)
	if d := cmp.Diff(small, large); d != "" {
		t.Errorf("plan storage grows with the chain (20 → 200 masses, -20 +200):\n%s", d)
	}
	if large["cols"] != 0 {
		t.Errorf("%d columns stored for the chain's column sets, want none (every set a run)", large["cols"])
	}
	if perState > 2048 && !raceEnabled {
		t.Errorf("the plan of a 200-mass chain allocated %.0f B per state, want < 2048", perState)
	}
}
