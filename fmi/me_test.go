package fmi_test

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"testing"

	"github.com/cosimgo/cosim/fmi"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/internal/fmitest"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
)

// meNode loads a Reference FMU's model-exchange interface.
func meNode(t *testing.T, model string, v int, params map[string]any) node.Node {
	t.Helper()
	f := fmitest.Reference(t, model, v)
	n, err := fmi.Load(f.Zip, fmi.Options{Interface: fmi.InterfaceModelExchange, Params: params})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.(interface{ Close() error }).Close() })
	return n
}

func buildOne(t *testing.T, name string, n node.Node) *graph.Sim {
	t.Helper()
	g := graph.New()
	g.Add(name, n)
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestMEBouncingBallImpacts integrates the model-exchange BouncingBall
// with cosim's adaptive Dormand–Prince and event location, and compares
// the located impacts with the closed form of the model (h0 = 1, g =
// 9.81, e = 0.7, v_min = 0.1 from its model description and model.c):
// the first impact at t1 = √(2h0/g), the j-th at t1(1 + 2(e + … +
// e^(j−1))), the ball stopped at the first impact whose rebound speed
// e^j·g·t1 is below v_min (the 11th). Between impacts the motion is a
// parabola, which Dormand–Prince integrates exactly up to rounding, and
// events are located to EventTol = 1e-12; the FMU resets the height to
// DBL_MIN rather than to the located point's −O(1e-12), so the times
// drift by about 1e-12 per bounce. Required: every impact within 1e-9 s.
func TestMEBouncingBallImpacts(t *testing.T) {
	const g, e, h0, vmin = 9.81, 0.7, 1.0, 0.1
	t1 := math.Sqrt(2 * h0 / g)
	var want []float64
	tj, v := t1, g*t1
	for {
		want = append(want, tj)
		v *= e
		if v < vmin {
			break
		}
		tj += 2 * v / g
	}
	for _, ver := range []int{2, 3} {
		t.Run(fmt.Sprintf("FMI%d", ver), func(t *testing.T) {
			s := buildOne(t, "bb", meNode(t, "BouncingBall", ver, nil))
			res, err := s.Run(context.Background(), graph.Settings{End: 3, Mode: graph.MonolithicAdaptive{
				Method:  integrators.DormandPrince{RTol: 1e-10, ATol: 1e-12},
				Options: &integrators.DriverOptions{EventTol: 1e-12}}})
			if err != nil {
				t.Fatal(err)
			}
			ev := res.Integrator.Events
			if len(ev) != len(want) {
				t.Fatalf("%d impacts located, the closed form has %d", len(ev), len(want))
			}
			worst := 0.0
			for j, w := range want {
				d := math.Abs(ev[j].T - w)
				worst = math.Max(worst, d)
				if !numtest.AtMost(d, 1e-9) {
					t.Errorf("impact %d at t=%.15g, closed form %.15g (|Δ| = %.2g s)", j+1, ev[j].T, w, d)
				}
			}
			h, _ := s.Value("bb.h")
			vv, _ := s.Value("bb.v")
			if h[0] < 0 || h[0] > 1e-300 || vv[0] != 0 {
				t.Errorf("at t=3 the ball should rest on the floor: h=%v v=%v", h[0], vv[0])
			}
			t.Logf("%d impacts, worst |Δt| = %.2g s", len(ev), worst)
		})
	}
}

// TestMEDahlquist integrates the model-exchange Dahlquist (x' = −k x,
// k = 1, x(0) = 1) adaptively with RTol = 1e-10, ATol = 1e-12 and
// compares x with exp(−k t) at t = 1, …, 10. Dormand–Prince controls the
// local error of each step to ATol + RTol·|x|; over the run's steps the
// global relative error of this decaying scalar accumulates to a few
// dozen tolerances (measured 3.2e-9, as x falls to 4.5e-5 and ATol takes
// over): required ≤ 1e-8, with the same bound scaled by 100 for RTol =
// 1e-8 to show the error follows the tolerance. Then the node's own
// integration in co-simulation (its Update runs the same method with
// the node's rtol 1e-8, atol 1e-10): x(10) within 1e-7 relative.
// Finally the fixed-step RK4 on a ladder of steps must show its declared
// order 4.
func TestMEDahlquist(t *testing.T) {
	for _, ver := range []int{2, 3} {
		t.Run(fmt.Sprintf("FMI%d", ver), func(t *testing.T) {
			times := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
			for _, tol := range []struct{ rtol, atol, bound float64 }{{1e-10, 1e-12, 1e-8}, {1e-8, 1e-10, 1e-6}} {
				s := buildOne(t, "d", meNode(t, "Dahlquist", ver, nil))
				res, err := s.Run(context.Background(), graph.Settings{End: 10, Mode: graph.MonolithicAdaptive{
					Method:  integrators.DormandPrince{RTol: tol.rtol, ATol: tol.atol},
					Options: &integrators.DriverOptions{Output: times}}})
				if err != nil {
					t.Fatal(err)
				}
				worst := 0.0
				for _, smp := range res.Integrator.Samples {
					rel := math.Abs(smp.Y[0]-math.Exp(-smp.T)) / math.Exp(-smp.T)
					worst = math.Max(worst, rel)
				}
				if len(res.Integrator.Samples) != len(times) || worst > tol.bound {
					t.Errorf("RTol %g: %d samples; worst relative error against exp(−t) %.2g, want ≤ %g", tol.rtol, len(res.Integrator.Samples), worst, tol.bound)
				}
				t.Logf("adaptive, RTol %g: worst relative error %.2g", tol.rtol, worst)
			}

			cs := buildOne(t, "d", meNode(t, "Dahlquist", ver, nil))
			if _, err := cs.Run(context.Background(), graph.Settings{Dt: 0.1, Steps: 100}); err != nil {
				t.Fatal(err)
			}
			x, _ := cs.Value("d.x")
			if rel := math.Abs(x[0]-math.Exp(-10)) / math.Exp(-10); rel > 1e-7 {
				t.Errorf("co-simulation (the node's own Dormand–Prince): x(10) = %v, exp(−10) = %v, relative error %.2g > 1e-7", x[0], math.Exp(-10), rel)
			} else {
				t.Logf("co-simulation: relative error at t=10 %.2g", rel)
			}

			var errs []float64
			dts := []float64{0.2, 0.1, 0.05}
			for _, dt := range dts {
				rs := buildOne(t, "d", meNode(t, "Dahlquist", ver, nil))
				if _, err := rs.Run(context.Background(), graph.Settings{Mode: graph.Monolithic{Method: integrators.RK4{}}, Dt: dt, End: 2}); err != nil {
					t.Fatal(err)
				}
				x, _ := rs.Value("d.x")
				errs = append(errs, math.Abs(x[0]-math.Exp(-2)))
			}
			p := math.Log2(errs[1] / errs[2])
			if !numtest.Within(p, 4, 0.1) {
				t.Errorf("RK4 on the imported Dahlquist: observed order %.3f over dt = %v, want 4 ± 0.1 (errors %v)", p, dts, errs)
			}
		})
	}
}

// vanDerPolReference reads testdata/vanderpol_ref.csv: SciPy's DOP853 at
// rtol 1e-13 (vanderpol_ref.py; it agrees with Radau at rtol 1e-12 to
// 3e-13).
func vanDerPolReference(t *testing.T) (ts []float64, x0, x1 []float64) {
	tab := readCSV(t, "testdata/vanderpol_ref.csv")
	for _, r := range tab.rows {
		a, _ := strconv.ParseFloat(r[0], 64)
		b, _ := strconv.ParseFloat(r[1], 64)
		c, _ := strconv.ParseFloat(r[2], 64)
		ts, x0, x1 = append(ts, a), append(x0, b), append(x1, c)
	}
	return ts, x0, x1
}

// TestMEVanDerPol integrates the model-exchange VanDerPol (μ = 1) and
// compares it with the independent SciPy reference on [0, 20]:
//   - adaptive Dormand–Prince at RTol = 1e-11, ATol = 1e-13: within
//     1e-8 (the limit cycle amplifies local errors by a few hundred);
//   - implicit trapezoid with the FMU's directional derivatives as the
//     Newton Jacobian (the node is a node.DerivativesJacobian), Δt = 1e-3:
//     second order, error ≈ C·Δt² with C of order 1: within 1e-4, and
//     the same states as with the Jacobian differenced by the graph up
//     to the Newton tolerance;
//   - the node's Jacobian against central differences of Derivatives.
func TestMEVanDerPol(t *testing.T) {
	ts, r0, r1 := vanDerPolReference(t)
	for _, ver := range []int{2, 3} {
		t.Run(fmt.Sprintf("FMI%d", ver), func(t *testing.T) {
			n := meNode(t, "VanDerPol", ver, nil)
			if _, ok := n.(node.DerivativesJacobian); !ok {
				t.Fatal("VanDerPol provides directional derivatives: the node should be a node.DerivativesJacobian")
			}
			s := buildOne(t, "vdp", n)
			res, err := s.Run(context.Background(), graph.Settings{End: 20, Mode: graph.MonolithicAdaptive{
				Method:  integrators.DormandPrince{RTol: 1e-11, ATol: 1e-13},
				Options: &integrators.DriverOptions{Output: ts}}})
			if err != nil {
				t.Fatal(err)
			}
			worst := 0.0
			for i, smp := range res.Integrator.Samples {
				worst = math.Max(worst, math.Max(math.Abs(smp.Y[0]-r0[i]), math.Abs(smp.Y[1]-r1[i])))
			}
			if len(res.Integrator.Samples) != len(ts) || worst > 1e-8 {
				t.Errorf("adaptive: %d samples, worst |Δ| %.2g > 1e-8", len(res.Integrator.Samples), worst)
			}
			t.Logf("adaptive: worst |Δ| against SciPy DOP853 %.2g", worst)

			// The Jacobian against central differences (step 1e-6: the
			// truncation error of the quadratic terms, 1e-12, and the
			// rounding, 1e-10, are far below the 1e-7 required).
			jn := n.(node.DerivativesJacobian)
			x := []float64{1.3, -0.7}
			in := n.Spec().DefaultInputs()
			jac := make([]float64, 4)
			if err := jn.DerivativesJacobian(0.5, x, in, jac, nil); err != nil {
				t.Fatal(err)
			}
			d := n.(node.Deriver)
			for c := 0; c < 2; c++ {
				xp, xm := append([]float64(nil), x...), append([]float64(nil), x...)
				xp[c] += 1e-6
				xm[c] -= 1e-6
				fp, fm := make([]float64, 2), make([]float64, 2)
				d.Derivatives(0.5, xp, in, fp)
				d.Derivatives(0.5, xm, in, fm)
				for r := 0; r < 2; r++ {
					if fd := (fp[r] - fm[r]) / 2e-6; !numtest.Within(fd, jac[r*2+c], 1e-7) {
						t.Errorf("∂f%d/∂x%d = %v from fmi%dGetDirectionalDerivative, %v by central differences", r, c, jac[r*2+c], ver, fd)
					}
				}
			}

			implicit := func(n node.Node) ([]float64, *counting) {
				c := &counting{Node: n}
				var wrapped node.Node = c
				if jn, ok := n.(node.DerivativesJacobian); ok {
					wrapped = countingJacobian{c, jn}
				}
				s := buildOne(t, "vdp", wrapped)
				if _, err := s.Run(context.Background(), graph.Settings{Mode: graph.Monolithic{Method: integrators.ImplicitTrapezoid{Newton: integrators.NewtonOptions{Tol: 1e-12}}}, Dt: 1e-3, End: 20}); err != nil {
					t.Fatal(err)
				}
				return s.State(nil), c
			}
			yj, cj := implicit(meNode(t, "VanDerPol", ver, nil))
			yf, cf := implicit(noJacobian{meNode(t, "VanDerPol", ver, nil)})
			last := len(ts) - 1
			if e := math.Max(math.Abs(yj[0]-r0[last]), math.Abs(yj[1]-r1[last])); !numtest.AtMost(e, 1e-4) {
				t.Errorf("implicit trapezoid with the FMU's Jacobian: |Δ| at t=20 is %.2g > 1e-4", e)
			}
			if e := math.Max(math.Abs(yj[0]-yf[0]), math.Abs(yj[1]-yf[1])); !numtest.AtMost(e, 1e-9) {
				t.Errorf("the FMU's Jacobian and differences give states %v and %v (|Δ| %.2g)", yj, yf, e)
			}
			if cj.jacobians == 0 || cj.derivs >= cf.derivs {
				t.Errorf("with the FMU's Jacobian: %d Jacobians, %d Derivatives calls; differencing: %d Derivatives calls", cj.jacobians, cj.derivs, cf.derivs)
			}
			t.Logf("implicit trapezoid: %d Jacobians from the FMU and %d Derivatives calls; %d Derivatives calls differencing", cj.jacobians, cj.derivs, cf.derivs)
		})
	}
}

// counting counts the Derivatives and DerivativesJacobian calls a graph
// makes of a node.
type counting struct {
	node.Node
	derivs, jacobians int
}

func (c *counting) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	c.derivs++
	return c.Node.(node.Deriver).Derivatives(t, x, in, dst)
}

type countingJacobian struct {
	*counting
	jn node.DerivativesJacobian
}

func (c countingJacobian) DerivativesJacobian(t float64, x []float64, in node.Inputs, dx, du []float64) error {
	c.jacobians++
	return c.jn.DerivativesJacobian(t, x, in, dx, du)
}

// noJacobian hides a node's Jacobian, so that the graph differences it.
type noJacobian struct{ node.Node }

func (n noJacobian) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	return n.Node.(node.Deriver).Derivatives(t, x, in, dst)
}
func (n noJacobian) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	return n.Node.(node.Outputter).Outputs(t, x, in, dst)
}

// TestMEStairTimeEvents integrates the model-exchange Stair: a counter
// that the FMU's time events raise at t = 1, 2, …, 9, announcing each
// next one at its event update, and that asks to terminate at 9. The
// adaptive driver must land on every time event exactly (no tolerance:
// the located times are the integers, bit for bit), the counter must be
// right-continuous there, and the run must stop at t = 9 as the FMU
// asks.
func TestMEStairTimeEvents(t *testing.T) {
	for _, ver := range []int{2, 3} {
		t.Run(fmt.Sprintf("FMI%d", ver), func(t *testing.T) {
			n := meNode(t, "Stair", ver, nil)
			if _, ok := n.(node.TimeEventer); !ok {
				t.Fatal("not a node.TimeEventer")
			}
			s := buildOne(t, "stair", n)
			res, err := s.Run(context.Background(), graph.Settings{Mode: graph.MonolithicAdaptive{}, End: 10, Dt: 0.5, Record: []string{"stair.counter"}})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != graph.StoppedByEvent {
				t.Errorf("status %v, want %v (the FMU asks to terminate at t=9)", res.Status, graph.StoppedByEvent)
			}
			ev := res.Integrator.Events
			if len(ev) != 9 {
				t.Fatalf("%d events, want 9", len(ev))
			}
			for j, e := range ev {
				if e.T != float64(j+1) {
					t.Errorf("time event %d located at %.17g, want exactly %d", j+1, e.T, j+1)
				}
			}
			h := res.History
			for i, tt := range h.Times {
				want := math.Floor(tt) + 1 // right-continuous: 2 from t = 1 on
				if got := h.Rows[i][0]; got != want {
					t.Errorf("t=%v counter %v, want %v", tt, got, want)
				}
			}
			if s.Time() != 9 {
				t.Errorf("the run ended at t=%v, want 9", s.Time())
			}
		})
	}
}

// TestMEInCoSimulation steps model-exchange FMUs in co-simulation, where
// each node integrates itself over every Update: the Stair's counter on
// the reference's communication points must equal Stair_out.csv exactly
// (integers, time events landed on exactly), and BouncingBall must
// follow the closed-form flight to its first impact to the node's
// tolerance (1e-7).
func TestMEInCoSimulation(t *testing.T) {
	for _, ver := range []int{2, 3} {
		t.Run(fmt.Sprintf("FMI%d", ver), func(t *testing.T) {
			f := fmitest.Reference(t, "Stair", ver)
			tab := readCSV(t, f.Out)
			fields, h := runReference(t, meNode(t, "Stair", ver, nil), tab, 1)
			if c := compareReference(t, fields, h, tab); c != len(tab.rows) {
				t.Errorf("%d values compared", c)
			}
			s := buildOne(t, "bb", meNode(t, "BouncingBall", ver, nil))
			if _, err := s.Run(context.Background(), graph.Settings{Dt: 0.01, Steps: 40}); err != nil {
				t.Fatal(err)
			}
			hh, _ := s.Value("bb.h")
			if want := 1 - 9.81*0.4*0.4/2; !numtest.Within(hh[0], want, 1e-7) {
				t.Errorf("h(0.4) = %v, closed form %v", hh[0], want)
			}
		})
	}
}
