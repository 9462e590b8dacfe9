package graph_test

import (
	"context"
	"math"
	"testing"

	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
)

// These tests isolate the error that multirate interpolation makes in the
// fast subsystem. The slow node "a" follows a prescribed trajectory
// p(t) = sin(3t) exactly, whatever its step (its Update writes p(t+dt)),
// so it contributes no error of its own. The fast node "b" integrates
// y' = u with forward Euler, u = a.p. Against the single-rate run at the
// fast step h = H/R, where b reads a exactly at every substep, b performs
// the very same forward-Euler updates, so |y_b(multirate, H) −
// y_b(single rate, H/R)| is exactly h·Σ (ũ_j − p(t_j)) over all substeps:
// the error of the values ũ_j b is given for the slow node.
//
// Holding a at one end of the macro step makes ũ_j − p(t_j) = O(H), a
// global error O(H), order 1. Linear interpolation of a between t_n and
// t_n+H makes it the interpolation remainder p''(ξ)/2·(s−t_n)(s−t_n−H) =
// O(H²), a global error O(H²), order 2 (standard linear-interpolation
// error bound, e.g. Burden & Faires, Numerical Analysis, Thm 3.3; the
// multirate analysis of Gear & Wells, BIT 24 (1984), §3 gives the same
// orders for slowest-first multirate schemes). The tests assert the
// observed orders within ±0.15 and that Linear is at least 10× more
// accurate than Hold at the finest H.

// trajNode is a stateful node whose state follows p(t) exactly.
type trajNode struct {
	spec *node.Spec
	p    func(t float64) float64
}

func newTrajNode(p func(float64) float64) *trajNode {
	return &trajNode{p: p, spec: node.NewSpec(node.Spec{
		Type:  "trajectory",
		State: []node.Field{{Name: "p", Units: "1", Description: "prescribed value p(t)"}},
	})}
}

func (n *trajNode) Spec() *node.Spec           { return n.spec }
func (n *trajNode) InitialState(dst []float64) { dst[0] = n.p(0) }
func (n *trajNode) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = n.p(t + dt)
	return nil
}

// quadNode integrates y' = u with forward Euler.
type quadNode struct{ spec *node.Spec }

func newQuadNode() *quadNode {
	return &quadNode{spec: node.NewSpec(node.Spec{
		Type:   "quadrature",
		State:  []node.Field{{Name: "y", Units: "1", Description: "∫u dt"}},
		Inputs: []node.Input{{Name: "u", Units: "1", Description: "integrand", Combine: node.Replacing, Default: []float64{0}}},
	})}
}

func (n *quadNode) Spec() *node.Spec           { return n.spec }
func (n *quadNode) InitialState(dst []float64) { dst[0] = 0 }
func (n *quadNode) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = x[0] + dt*in.Values[0]
	return nil
}

// interpGraph is a (slow, prescribed p = sin 3t) → b (fast, ∫p).
func interpGraph() *graph.Graph {
	g := graph.New()
	g.Add("a", newTrajNode(func(t float64) float64 { return math.Sin(3 * t) }))
	g.Add("b", newQuadNode())
	g.Connect("a.p", "b.u")
	return g
}

// fastError runs st at macro step H and ref at H/rate to T and returns
// |y_b − y_b,ref|; it checks that a's state agrees.
func fastError(t *testing.T, st, ref *coupling.Strategy, H float64, rate int) float64 {
	t.Helper()
	const T = 1.2
	run := func(st *coupling.Strategy, dt float64) []float64 {
		s, err := interpGraph().Build()
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Coupling: st}, Dt: dt, End: T})
		if err != nil {
			t.Fatalf("%v: %v", st, err)
		}
		if res.Steps != int(math.Round(T/dt)) {
			t.Fatalf("dt %v: %d steps", dt, res.Steps)
		}
		return s.State(nil)
	}
	y, yref := run(st, H), run(ref, H/float64(rate))
	if !numtest.Within(y[0], yref[0], 1e-12) {
		t.Fatalf("slow node a: %v vs %v; its prescribed trajectory should be step-independent", y[0], yref[0])
	}
	return math.Abs(y[1] - yref[1])
}

func checkInterpOrders(t *testing.T, what string, errs map[coupling.Interpolation][]float64) {
	t.Helper()
	want := map[coupling.Interpolation]float64{coupling.Hold: 1, coupling.Linear: 2}
	for _, interp := range []coupling.Interpolation{coupling.Hold, coupling.Linear} {
		e := errs[interp]
		for i := 1; i < len(e); i++ {
			o := math.Log2(e[i-1] / e[i])
			t.Logf("%s %s: fast-node error %.3e → %.3e: order %.2f", what, interp, e[i-1], e[i], o)
			if !(math.Abs(o-want[interp]) <= 0.15) {
				t.Errorf("%s %s: observed order %.2f, want %.0f ± 0.15 (errors %.3e)", what, interp, o, want[interp], e)
			}
		}
	}
	h, l := errs[coupling.Hold], errs[coupling.Linear]
	if n := len(h) - 1; !(l[n] < h[n]/10) {
		t.Errorf("%s: at the finest H linear interpolation (%.3e) is not 10× more accurate than hold (%.3e)", what, l[n], h[n])
	}
}

// TestMultirateInterpolationFastError: multirate Jacobi, b at rate 8
// reading the slow node a held at t_n or linearly interpolated between
// t_n and t_n+H. Hold converges at order 1, Linear at order 2 (measured
// 0.96, 0.98 and 2.00, 2.00 on H = 0.02, 0.01, 0.005).
func TestMultirateInterpolationFastError(t *testing.T) {
	const rate = 8
	ref := &coupling.Strategy{Scheme: coupling.Jacobi}
	errs := map[coupling.Interpolation][]float64{}
	for _, interp := range []coupling.Interpolation{coupling.Hold, coupling.Linear} {
		st := &coupling.Strategy{Scheme: coupling.Jacobi, Rates: map[string]int{"b": rate}, Interpolation: interp}
		for _, H := range []float64{0.02, 0.01, 0.005} {
			errs[interp] = append(errs[interp], fastError(t, st, ref, H, rate))
		}
	}
	checkInterpOrders(t, "jacobi", errs)
}

// TestMultirateInGroupInterpolationFastError: the same inside an
// iterative group, where b (rate 8) is a faster member of the group and
// reads a at its trial end-of-step state held (at t_n+H) or linearly
// interpolated between t_n and t_n+H to the end of each substep. The
// reference is the single-rate group at H/8, where b reads a at the end
// of every step. Hold converges at order 1, Linear at order 2 (measured
// 1.03, 1.02 and 2.00, 2.00 on H = 0.02, 0.01, 0.005).
func TestMultirateInGroupInterpolationFastError(t *testing.T) {
	const rate = 8
	it := coupling.Iteration{Acceleration: coupling.Acceleration{Accel: coupling.IQNILS}, ATol: 1e-13, RTol: 1e-13, MaxIter: 50}
	ref := &coupling.Strategy{Scheme: coupling.Iterative, Iteration: it}
	errs := map[coupling.Interpolation][]float64{}
	for _, interp := range []coupling.Interpolation{coupling.Hold, coupling.Linear} {
		st := &coupling.Strategy{Scheme: coupling.Iterative, Iteration: it, Rates: map[string]int{"b": rate}, Interpolation: interp}
		for _, H := range []float64{0.02, 0.01, 0.005} {
			errs[interp] = append(errs[interp], fastError(t, st, ref, H, rate))
		}
	}
	checkInterpOrders(t, "iterative group", errs)
}
