package graph_test

import (
	"context"
	"github.com/cosimgo/cosim/internal/numtest"
	"math"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/ball"
	"github.com/cosimgo/cosim/nodes/control"
	srcnodes "github.com/cosimgo/cosim/nodes/source"
)

// Events and resets that read an algebraic loop, under Sensitivities.

// loopEventGraph is cubicLoopCap (ẋ = −y, y + c·y³ = x, x(0) = x0) with
// two events reading the loop's output y:
//   - an integrator rst (ṙ = 1) whose reset input is th − y, th a
//     constant (a sine source of amplitude 0 and offset θ + 0.5): its
//     reset event, g = θ − y, fires when y falls through θ. The
//     integrator has no EventJacobian, so ∂g/∂y, ∂g/∂t and ∂g/∂p are
//     differenced through the graph;
//   - a ball dropped from h0 = 3 (gravity −9.81, elasticity 0.8) onto a
//     table at height y: its contact event g = x_b − y and its reset
//     x_b⁺ = y, v⁺ = −e·v⁻ read y as an input, whose ∂/∂y, ∂/∂t and
//     ∂/∂p are differenced through the graph.
func loopEventGraph(t testing.TB, c, theta, x0 float64, ls graph.LoopSettings) *graph.Graph {
	g := cubicLoopCapFrom(t, c, x0, ls)
	rst, err := control.NewIntegrator(control.IntegratorParams{})
	if err != nil {
		t.Fatal(err)
	}
	th, err := srcnodes.NewSine(srcnodes.SineParams{Amplitude: []float64{0}, Offset: []float64{theta + 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	g.Add("rst", rst)
	g.Add("th", th)
	g.Add("one", lconst(t, []float64{1}, "1"))
	g.Add("rsum", lsum(t, "+-", 1, "1"))
	g.Connect("one.value", "rst.in")
	g.Connect("th.value", "rsum.in1")
	g.Connect("sum.out", "rsum.in2")
	g.Connect("rsum.out", "rst.reset")
	p := ball.DefaultParams()
	p.InitialPosition = 3
	b, err := ball.New(p)
	if err != nil {
		t.Fatal(err)
	}
	g.Add("ball", b)
	g.Connect("sum.out", "ball.table_position", graph.Via(graph.Scale{Factor: 1, From: "1", To: "m"}))
	return g
}

// loopEventReference is the independent computation of loopEventGraph's
// trajectory from the closed form of the loop-driven capacitor: with
// x = y + c·y³, ẋ = −y gives (1 + 3c·y²)·ẏ = −y, so t(y) = ln(y0/y) +
// (3c/2)·(y0² − y²), y0 + c·y0³ = x0. Along it, ∂y/∂c at fixed t is
// (y0²/2 − 3y²/2)·y/(1 + 3c·y²) and ∂x/∂c = y·(y0² − y²)/2.
type loopEventReference struct {
	c, theta, y0 float64
}

func newLoopEventReference(c, theta, x0 float64) loopEventReference {
	y := x0
	for range 100 {
		y -= (y + c*y*y*y - x0) / (1 + 3*c*y*y)
	}
	return loopEventReference{c: c, theta: theta, y0: y}
}

// tOf is t(y).
func (r loopEventReference) tOf(y float64) float64 {
	return math.Log(r.y0/y) + 1.5*r.c*(r.y0*r.y0-y*y)
}

// yOf inverts tOf by Newton's method to machine precision.
func (r loopEventReference) yOf(t float64) float64 {
	y := r.y0
	for range 200 {
		d := (r.tOf(y) - t) / (-(1 + 3*r.c*y*y) / y)
		y -= d
		if math.Abs(d) <= 4e-16*y {
			break
		}
	}
	return y
}

// dydc is ∂y/∂c at fixed t, and ydot is ẏ, at y.
func (r loopEventReference) dydc(y float64) float64 {
	return (0.5*r.y0*r.y0 - 1.5*y*y) * y / (1 + 3*r.c*y*y)
}
func (r loopEventReference) ydot(y float64) float64 { return -y / (1 + 3*r.c*y*y) }

// The reset event of rst (differenced, no EventJacobian) and the ball's
// contact event and reset (their input from the loop differenced) under
// Sensitivities, with respect to the loop's gain c, the threshold θ and
// the ball's elasticity e, against loopEventReference:
//   - rst fires at t1 = t(θ): ∂t1/∂c = y0²/2 − 3θ²/2, ∂t1/∂θ =
//     −(1 + 3c·θ²)/θ (the derivative of t(y) above), ∂t1/∂e = 0;
//   - the ball meets the table at t2, h0 − G·t2²/2 = y(t2) (G = 9.81,
//     solved here by Newton to machine precision): ∂t2/∂c = ∂y/∂c /
//     (−G·t2 − ẏ); after it x_b = y2 + v⁺·τ − G·τ²/2, τ = t − t2, y2 =
//     y(t2), v⁺ = e·G·t2, so ∂x_b/∂c = (∂y/∂c + ẏ·∂t2/∂c) + e·G·τ·∂t2/∂c
//     − (v⁺ − G·τ)·∂t2/∂c and ∂x_b/∂e = G·t2·τ;
//   - the capacitor's ∂x/∂c = y·(y0² − y²)/2 throughout.
//
// The event gradients go through the loop frozen at its solution
// (loop_sensitivity.go) along each direction: the state's, the time's and
// the parameters'. Tolerance 1e-8 absolute on quantities of order 1
// (measured 8.4e-10): the events are located within the driver's
// EventTol and the flow integrated to rtol 1e-10.
func TestLoopEventSensitivities(t *testing.T) {
	const c, theta, x0, G, e, h0 = 0.5, 1.1, 2.0, 9.81, 0.8, 3.0
	params := []string{"c.gain[0]", "th.offset[0]", "ball.elasticity"}
	times := []float64{0.2, 0.5, 0.8, 1.0}
	s := mustBuild(t, loopEventGraph(t, c, theta, x0, graph.LoopSettings{}))
	res, err := s.Sensitivities(context.Background(), params, &graph.SensitivityOptions{End: 1, Output: times,
		Record: []string{"cap.state", "ball.position", "ball.velocity"}, Mode: graph.MonolithicAdaptive{Method: integrators.DormandPrince{RTol: 1e-10, ATol: 1e-12}}})
	if err != nil {
		t.Fatal(err)
	}
	ref := newLoopEventReference(c, theta, x0)
	t1 := ref.tOf(theta)
	t2 := 0.5
	for range 100 {
		y := ref.yOf(t2)
		t2 -= (h0 - G*t2*t2/2 - y) / (-G*t2 - ref.ydot(y))
	}
	y2 := ref.yOf(t2)
	dt2dc := ref.dydc(y2) / (-G*t2 - ref.ydot(y2))
	if len(res.Events) != 2 || res.Events[0].Name != "rst.reset" || res.Events[1].Name != "ball.contact" {
		t.Fatalf("events %+v, want rst.reset then ball.contact", res.Events)
	}
	worst := 0.0
	check := func(what string, got, want float64) {
		t.Helper()
		worst = math.Max(worst, math.Abs(got-want))
		if !numtest.Within(got, want, 1e-8) {
			t.Errorf("%s = %.12g, reference %.12g", what, got, want)
		}
	}
	check("t1", res.Events[0].T, t1)
	check("∂t1/∂c", res.Events[0].DT[0], 0.5*ref.y0*ref.y0-1.5*theta*theta)
	check("∂t1/∂θ", res.Events[0].DT[1], -(1+3*c*theta*theta)/theta)
	check("∂t1/∂e", res.Events[0].DT[2], 0)
	check("t2", res.Events[1].T, t2)
	check("∂t2/∂c", res.Events[1].DT[0], dt2dc)
	check("∂t2/∂θ", res.Events[1].DT[1], 0)
	for i, tm := range times {
		y := ref.yOf(tm)
		dx, _ := res.At(i, "cap.state", "c.gain[0]")
		check("∂x/∂c", dx, 0.5*y*(ref.y0*ref.y0-y*y))
		db, _ := res.At(i, "ball.position", "c.gain[0]")
		dbe, _ := res.At(i, "ball.position", "ball.elasticity")
		dbt, _ := res.At(i, "ball.position", "th.offset[0]")
		want, wante := 0.0, 0.0
		if tau := tm - t2; tau > 0 {
			vp := e * G * t2
			want = ref.dydc(y2) + ref.ydot(y2)*dt2dc + e*G*dt2dc*tau - (vp-G*tau)*dt2dc
			wante = G * t2 * tau
		}
		check("∂x_b/∂c", db, want)
		check("∂x_b/∂e", dbe, wante)
		check("∂x_b/∂θ", dbt, 0)
	}
	t.Logf("largest difference from the reference: %.3g", worst)
}

// latchNode takes its input at its event: state s (ṡ = 0), event
// "take" (g = −1, never crossing: the test calls its reset directly),
// reset s ← u. It has no ResetJacobian, so ∂R/∂y is differenced through
// the graph.
type latchNode struct{ spec *node.Spec }

func newLatchNode() *latchNode {
	return &latchNode{spec: node.NewSpec(node.Spec{
		Type:   "testlatch",
		State:  []node.Field{{Name: "s", Shape: node.Scalar, Units: "1", Description: "the latched value"}},
		Inputs: []node.Input{{Name: "u", Shape: node.Scalar, Units: "1", Description: "the value latched"}},
		Events: []node.Event{{Name: "take", Direction: 1, Description: "latch the input"}},
	})}
}

func (l *latchNode) Spec() *node.Spec           { return l.spec }
func (l *latchNode) InitialState(dst []float64) { dst[0] = 0 }
func (l *latchNode) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = x[0]
	return nil
}
func (l *latchNode) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = 0
	return nil
}
func (l *latchNode) EventValues(t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = -1
	return nil
}
func (l *latchNode) Reset(event int, t float64, x []float64, in node.Inputs, dst []float64) error {
	dst[0] = in.Values[0]
	return nil
}

// The event gradient of rst's reset, g = θ − y with y + c·y³ = x, at a
// capacitor voltage x where the loop's Newton iteration count changes
// between x − h and x + h (h = 1e-6·max(1, |x|), the state's difference
// step; found by bisection on the count of one solve, to 1e-12 in x).
// Differencing through the loop solve divides the difference of two
// iterates, one a Newton step further than the other, by 2h; with the
// loop frozen at its solution and moved along dz/dx = (I − ∂F/∂z)⁻¹·∂F/∂x
// the difference contains no solve. Closed forms (y by scalar Newton to
// machine precision): ∂g/∂x = −1/(1 + 3c·y²), ∂g/∂c = y³/(1 + 3c·y²),
// ∂g/∂θ = 1, ∂g/∂t = 0. Tolerances: the rounding over h of the
// differences, 1e-9 relative (measured 6e-11), with the default loop
// tolerances; with RelTol 1e-6 also the loop's residual at its solution
// times its second derivatives, 1e-8 (measured 4e-10). The re-solving
// differences erred by 3.5e-6 (∂g/∂x) and 5e-5 (∂g/∂c) with the default
// tolerances, 0.11 and 0.51 with the loose ones; the test requires them
// to be worse at this point by at least 10× on ∂g/∂x. The same holds,
// with the same numbers, for a reset map that reads the loop (latchNode,
// s⁺ = y, no ResetJacobian): ∂s⁺/∂x = −∂g/∂x and ∂s⁺/∂c = −∂g/∂c.
func TestLoopEventGradientIterationBoundary(t *testing.T) {
	const c, theta = 0.5, 1.1
	params := []string{"c.gain[0]", "th.offset[0]"}
	for _, tc := range []struct {
		name string
		ls   graph.LoopSettings
		tol  float64
	}{
		{"default tolerances", graph.LoopSettings{}, 1e-9},
		{"loose tolerances", graph.LoopSettings{RelTol: 1e-6, AbsTol: 1e-8}, 1e-8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			iters := func(x float64) int64 {
				s := mustBuild(t, cubicLoopCapFrom(t, c, x, tc.ls))
				value(t, s, "sum.out")
				return s.Loops()[0].Iterations
			}
			x := iterationBoundary(t, 0.5, 3, 1e-12, func(x float64) float64 { return 1e-6 * math.Max(1, x) }, iters)
			y := newLoopEventReference(c, theta, x).y0
			den := 1 + 3*c*y*y
			wantY, wantC := -1/den, y*y*y/den
			s := mustBuild(t, loopEventGraph(t, c, theta, x, tc.ls))
			state := s.State(nil)
			if state[0] != x {
				t.Fatalf("state %v: want the capacitor first", state)
			}
			var errs [2][3]float64
			for k, solve := range []bool{false, true} {
				gy, gt, gp, err := s.EventGradient("rst.reset", params, 0, state, solve)
				if err != nil {
					t.Fatal(err)
				}
				errs[k] = [3]float64{math.Abs(gy[0]-wantY) / math.Abs(wantY), math.Abs(gp[0]-wantC) / math.Abs(wantC), math.Abs(gp[1] - 1)}
				for q := 1; q < len(gy); q++ {
					if !solve && gy[q] != 0 {
						t.Errorf("∂g/∂y[%d] = %v, want 0", q, gy[q])
					}
				}
				if !solve && gt != 0 {
					t.Errorf("∂g/∂t = %v, want 0", gt)
				}
			}
			t.Logf("x = %.17g: frozen loop: ∂g/∂x %.3g, ∂g/∂c %.3g, ∂g/∂θ %.3g relative; through the solve: %.3g, %.3g, %.3g",
				x, errs[0][0], errs[0][1], errs[0][2], errs[1][0], errs[1][1], errs[1][2])
			for q, what := range []string{"∂g/∂x", "∂g/∂c", "∂g/∂θ"} {
				if errs[0][q] > tc.tol {
					t.Errorf("%s: relative error %.3g, tolerance %.3g", what, errs[0][q], tc.tol)
				}
			}
			if !(errs[1][0] > 10*errs[0][0]) {
				t.Errorf("∂g/∂x through the solve erred by %.3g, frozen by %.3g: the boundary shows no difference", errs[1][0], errs[0][0])
			}

			// A reset map reading the loop: the latch's s⁺ = y, ∂s⁺/∂x =
			// 1/(1 + 3c·y²), ∂s⁺/∂c = −y³/(1 + 3c·y²), differenced.
			lg := cubicLoopCapFrom(t, c, x, tc.ls)
			lg.Add("latch", newLatchNode())
			lg.Connect("sum.out", "latch.u")
			ls := mustBuild(t, lg)
			lstate := ls.State(nil)
			var rerr [2][2]float64
			for k, solve := range []bool{false, true} {
				Ry, Rp, Rt, err := ls.ResetJacobian("latch.take", []string{"c.gain[0]"}, 0, lstate, solve)
				if err != nil {
					t.Fatal(err)
				}
				// State order: cap, latch.
				rerr[k] = [2]float64{math.Abs(Ry[1*2+0]-(-wantY)) / -wantY, math.Abs(Rp[1]-(-wantC)) / wantC}
				// The capacitor's row is the identity, differenced: its
				// rounding over h, 1e-9.
				if !solve && (!numtest.Within(Ry[0], 1, 1e-9) || Ry[1] != 0 || Ry[3] != 0 || Rt[0] != 0 || Rt[1] != 0 || Rp[0] != 0) {
					t.Errorf("∂R/∂y = %v, ∂R/∂t = %v, ∂R/∂c = %v: want the identity on the capacitor, no other entry", Ry, Rt, Rp)
				}
			}
			t.Logf("reset: frozen loop: ∂s⁺/∂x %.3g, ∂s⁺/∂c %.3g relative; through the solve: %.3g, %.3g", rerr[0][0], rerr[0][1], rerr[1][0], rerr[1][1])
			for q, what := range []string{"∂s⁺/∂x", "∂s⁺/∂c"} {
				if rerr[0][q] > tc.tol {
					t.Errorf("%s: relative error %.3g, tolerance %.3g", what, rerr[0][q], tc.tol)
				}
			}
			if !(rerr[1][0] > 10*rerr[0][0]) {
				t.Errorf("∂s⁺/∂x through the solve erred by %.3g, frozen by %.3g: the boundary shows no difference", rerr[1][0], rerr[0][0])
			}
		})
	}
}
