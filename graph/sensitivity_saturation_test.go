package graph_test

import (
	"context"
	"errors"
	"github.com/cosimgo/cosim/internal/numtest"
	"math"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/control"
	srcnodes "github.com/cosimgo/cosim/nodes/source"
)

// satDP integrates the saturation tests: Dormand–Prince 5(4), rtol 1e-10,
// atol 1e-12.
var satDP = integrators.DormandPrince{RTol: 1e-10, ATol: 1e-12}

// saturating is a limited integrator ẋ = u, x(0) = 0, limits [a, b],
// driven by u = A·cos t (a sine source at phase π/2).
func saturating(t testing.TB, A, a, b float64) *graph.Sim {
	g := graph.New()
	src, err := srcnodes.NewSine(srcnodes.SineParams{Amplitude: []float64{A}, Phase: []float64{math.Pi / 2}})
	if err != nil {
		t.Fatal(err)
	}
	in, err := control.NewIntegrator(control.IntegratorParams{Limit: true, Lower: []float64{a}, Upper: []float64{b}})
	if err != nil {
		t.Fatal(err)
	}
	g.Add("src", src)
	g.Add("int", in)
	g.Connect("src.value", "int.in")
	return mustBuild(t, g)
}

// saturationClosedForm is x and ∂x/∂(A, b, a) of saturating(A = 2,
// a = −1, b = 1) at time t in [0, 2π): x = A·sin t until it reaches b at
// t1 = asin(b/A); held at b while u > 0, until π/2; then x = b +
// A·(sin t − 1), down to a at t2 = π − asin(1 + (a − b)/A) = π; held at
// a until 3π/2; then x = a + A·(sin t + 1), up to b again at 2π.
func saturationClosedForm(A, a, b, t float64) (x float64, d [3]float64) {
	t1, t2 := math.Asin(b/A), math.Pi-math.Asin(1+(a-b)/A)
	switch {
	case t < t1:
		return A * math.Sin(t), [3]float64{math.Sin(t), 0, 0}
	case t < math.Pi/2:
		return b, [3]float64{0, 1, 0}
	case t < t2:
		return b + A*(math.Sin(t)-1), [3]float64{math.Sin(t) - 1, 1, 0}
	case t < 3*math.Pi/2:
		return a, [3]float64{0, 0, 1}
	}
	return a + A*(math.Sin(t)+1), [3]float64{math.Sin(t) + 1, 0, 1}
}

// checkSaturation holds the recorded x and ∂x/∂params (A, b, a) of res
// to saturationClosedForm within tol, at every row.
func checkSaturation(t *testing.T, res *graph.Sensitivity, params []string, A, a, b, tol float64) {
	t.Helper()
	worst := 0.0
	for i, tm := range res.Times {
		x, d := saturationClosedForm(A, a, b, tm)
		got, _ := res.Value(i, "int.state")
		worst = math.Max(worst, math.Abs(got-x))
		for j, p := range params {
			g, _ := res.At(i, "int.state", p)
			worst = math.Max(worst, math.Abs(g-d[j]))
			if !numtest.Within(g, d[j], tol) {
				t.Errorf("t = %v: ∂x/∂%s = %.12g, closed form %.12g", tm, p, g, d[j])
			}
		}
	}
	t.Logf("largest difference from the closed form: %.3g", worst)
}

// A limited integrator reaching its limits under Sensitivities: it
// enters saturation twice (the input drives the state through the limit
// transversally: ∂t*/∂p from the saltation map, with the flow before the
// event taken on the near side of the limit, where the integrator is
// free), is held there (∂x/∂p = ∂limit/∂p: the limit's own parameter is
// differenced on the side where the held mode extends, not across the
// switch), and leaves when the input changes sign (no jump in S: the flow
// is continuous there). Before, the run failed with "grazes its surface":
// the located state lies on the limit, where the held flow is zero.
//
// References: the closed form of saturationClosedForm, and the event
// times t1 = asin(b/A), ∂t1/∂A = −b/(A·√(A² − b²)), ∂t1/∂b = 1/√(A² −
// b²); t2 = π, ∂t2/∂A = (a − b)/A², ∂t2/∂b = 1/A, ∂t2/∂a = −1/A.
// Tolerance 1e-8 absolute (the values are of order 1; measured 1.6e-10):
// the event times are located within the driver's EventTol and the flow
// integrated to rtol 1e-10; leaving the limit is a kink of x and S that
// the error control resolves (no event is located there). And against
// central finite differences of whole runs (plain Runs, every run
// locating its own events) with the step 1e-2 in each parameter: x is
// linear in A, a and b on each arc, so the differences have no
// truncation error except through the event times, and a plain Run's
// own error after leaving a limit (2e-9 at rtol 1e-10: its error control
// covers x only) divided by the step is 1e-7; tolerance 1e-6.
func TestSensitivitiesThroughSaturation(t *testing.T) {
	const A, a, b = 2.0, -1.0, 1.0
	params := []string{"src.amplitude[0]", "int.upper[0]", "int.lower[0]"}
	times := []float64{0.3, 0.5, 0.6, 1.0, 1.5, 1.6, 2.5, 3.0, 3.2, 4.0, 4.6, 4.8, 5.5, 6.0}
	res, err := saturating(t, A, a, b).Sensitivities(context.Background(), params, &graph.SensitivityOptions{
		End: 6, Output: times, Record: []string{"int.state"}, Mode: graph.MonolithicAdaptive{Method: satDP}})
	if err != nil {
		t.Fatal(err)
	}
	checkSaturation(t, res, params, A, a, b, 1e-8)
	if len(res.Events) != 2 {
		t.Fatalf("events %v, want the upper then the lower limit", res.Events)
	}
	wantDT := [2][3]float64{
		{-b / (A * math.Sqrt(A*A-b*b)), 1 / math.Sqrt(A*A-b*b), 0},
		{(a - b) / (A * A), 1 / A, -1 / A},
	}
	for k, ev := range res.Events {
		for j, p := range params {
			if !numtest.Within(ev.DT[j], wantDT[k][j], 1e-8) {
				t.Errorf("event %s at %v: ∂t/∂%s = %.12g, closed form %.12g", ev.Name, ev.T, p, ev.DT[j], wantDT[k][j])
			}
		}
	}
	// Finite differences of whole runs.
	run := func(name string, v float64) []float64 {
		s := saturating(t, A, a, b)
		nn, pn := name[:len("src")], "amplitude"
		if name != params[0] {
			nn, pn = "int", name[len("int."):len(name)-3]
		}
		n, _ := s.Node(nn)
		if err := n.(node.Tunable).SetParams(map[string]any{pn: []float64{v}}); err != nil {
			t.Fatal(err)
		}
		out, err := s.Run(context.Background(), graph.Settings{Mode: graph.MonolithicAdaptive{Method: satDP, Options: &integrators.DriverOptions{Output: times}}, End: 6, Record: []string{"int.state"}})
		if err != nil {
			t.Fatal(err)
		}
		var xs []float64
		for _, r := range out.History.Rows {
			xs = append(xs, r[0])
		}
		return xs
	}
	const h = 1e-2
	worst := 0.0
	for j, p := range params {
		v := [3]float64{A, b, a}[j]
		up, down := run(p, v+h), run(p, v-h)
		got := res.Series("int.state", p)
		for i, tm := range times {
			fd := (up[i] - down[i]) / (2 * h)
			worst = math.Max(worst, math.Abs(got[i]-fd))
			if !numtest.Within(got[i], fd, 1e-6) {
				t.Errorf("t = %v: ∂x/∂%s = %.12g, finite differences of runs %.12g", tm, p, got[i], fd)
			}
		}
	}
	t.Logf("largest difference from finite differences of runs: %.3g", worst)
}

// kinkNode is ẋ = |x − p|, x(0) = 1, with the exact ∂f/∂x = sign(x − p)
// (+1 at x = p) and no ∂f/∂p: p is differenced.
type kinkNode struct {
	spec *node.Spec
	p    float64
}

func newKinkNode() *kinkNode {
	return &kinkNode{p: 1, spec: node.NewSpec(node.Spec{
		Type:   "testkink",
		State:  []node.Field{{Name: "x", Shape: node.Scalar, Units: "1", Description: "state"}},
		Params: []node.Param{{Name: "p", Kind: node.Real, Default: 1.0, Units: "1", Description: "kink", Range: node.Finite()}},
	})}
}

func (k *kinkNode) Spec() *node.Spec           { return k.spec }
func (k *kinkNode) InitialState(dst []float64) { dst[0] = 1 }
func (k *kinkNode) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	return nil
}
func (k *kinkNode) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = math.Abs(x[0] - k.p)
	return nil
}
func (k *kinkNode) DerivativesJacobian(t float64, x []float64, in node.Inputs, dstX, dstU []float64) error {
	if dstX != nil {
		dstX[0] = 1
		if x[0] < k.p {
			dstX[0] = -1
		}
	}
	return nil
}
func (k *kinkNode) Params() node.Values { return node.Values{"p": k.p} }
func (k *kinkNode) SetParams(p map[string]any) error {
	k.p = p["p"].(float64)
	return nil
}

// A parameter whose difference meets a kink of f exactly at the state
// (ẋ = |x − p| at x = p: one-sided derivatives −1 and +1, both converging
// as the step shrinks, so f alone cannot tell which mode is in force) is
// refused with a *SwitchError naming the node, the parameter and the
// time, wrapping ErrNotDifferentiable: never the central difference 0,
// which is the derivative of neither side.
func TestSensitivitiesParameterKinkRefused(t *testing.T) {
	g := graph.New()
	g.Add("k", newKinkNode())
	s := mustBuild(t, g)
	_, err := s.Sensitivities(context.Background(), []string{"k.p"}, &graph.SensitivityOptions{End: 1})
	var se *graph.SwitchError
	if !errors.As(err, &se) || !errors.Is(err, graph.ErrNotDifferentiable) {
		t.Fatalf("err = %v, want a *SwitchError wrapping ErrNotDifferentiable", err)
	}
	if se.Node != "k" || se.Wrt != "parameter k.p" || se.Time != 0 {
		t.Errorf("SwitchError %+v: want node k, parameter k.p, time 0", se)
	}
	t.Log(err)
}

// The same saturation with a fixed-step method (RK4, dt = 1e-3, events
// located by re-stepping), to t = 2: the upper limit entered at π/6 and
// left at π/2. Against the closed form: x and S to 1e-7 (measured 2.6e-8, the
// kink of S when the input turns, inside a step), the event-time
// derivatives to 1e-4 (measured 2e-5): the located time itself is 1.2e-4
// late, as the plain run's is, because the RK4 stages that land past the
// limit see the held flow, so the re-stepped trajectory reaches the
// limit late — a property of the integrator's hold rule under a fixed
// step, not of the sensitivities.
func TestSensitivitiesThroughSaturationFixedStep(t *testing.T) {
	const A, a, b = 2.0, -1.0, 1.0
	params := []string{"src.amplitude[0]", "int.upper[0]", "int.lower[0]"}
	res, err := saturating(t, A, a, b).Sensitivities(context.Background(), params, &graph.SensitivityOptions{
		End: 2, Dt: 1e-3, RecordEvery: 100, Record: []string{"int.state"}, Mode: graph.Monolithic{Method: integrators.RK4{}}})
	if err != nil {
		t.Fatal(err)
	}
	checkSaturation(t, res, params, A, a, b, 1e-7)
	if len(res.Events) != 1 {
		t.Fatalf("events %v, want the upper limit", res.Events)
	}
	want := []float64{-b / (A * math.Sqrt(A*A-b*b)), 1 / math.Sqrt(A*A-b*b), 0}
	for j, p := range params {
		if d := res.Events[0].DT[j]; !numtest.Within(d, want[j], 1e-4) {
			t.Errorf("∂t1/∂%s = %.12g, closed form %.12g", p, d, want[j])
		}
	}
}
