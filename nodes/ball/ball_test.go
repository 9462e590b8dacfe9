package ball_test

import (
	"errors"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"gonum.org/v1/gonum/floats/scalar"

	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/ball"
	"github.com/cosimgo/cosim/nodes/table"
)

// within reports whether got and want agree to tol relative to the larger
// of their magnitudes (gonum's scalar.EqualWithinAbsOrRel), with tol also
// as the absolute floor for values near zero. It is the one tolerance
// helper of these tests.
func within(got, want, tol float64) bool {
	return scalar.EqualWithinAbsOrRel(got, want, tol, tol)
}

func newBall(t testing.TB, p ball.Params) *ball.Node {
	t.Helper()
	n, err := ball.New(p)
	if err != nil {
		t.Fatalf("New(%+v): %v", p, err)
	}
	return n
}

// onTable returns inputs with table_position connected at h.
func onTable(h float64) node.Inputs {
	return node.Inputs{Values: []float64{h, 0}, Present: []bool{true, true}}
}

// noTable returns inputs with table_position unconnected, as a graph builds
// them (zeros, not present).
func noTable() node.Inputs {
	return node.Inputs{Values: []float64{0, 0}, Present: []bool{false, true}}
}

func step(t *testing.T, n *ball.Node, tm, dt float64, x []float64, in node.Inputs) []float64 {
	t.Helper()
	dst := make([]float64, 2)
	if err := n.Update(tm, dt, x, in, dst); err != nil {
		t.Fatalf("Update(t=%v, dt=%v, x=%v): %v", tm, dt, x, err)
	}
	return dst
}

// TestSeedContactStep reproduces the numbers of the MADDENING BallNode guide (Known
// Limitations, derivatives()): from 0.001 above the table at −1 m/s, one
// 0.01 s step of Update bounces to exactly 0.0, where one forward-Euler
// step of Derivatives lands at −0.009. Update's values are asserted
// exactly: the clamp writes the table height itself and the rebound is one
// rounded product, −e·(v + g·dt).
func TestSeedContactStep(t *testing.T) {
	n := newBall(t, ball.DefaultParams())
	x := []float64{0.001, -1}
	const dt = 0.01

	got := step(t, n, 0, dt, x, onTable(0))
	vImpact := -1 + float64(-9.81*dt) // −1.0981; x' = 0.001 − 0.010981 < 0
	if got[0] != 0.0 {
		t.Errorf("Update position = %v, want exactly 0.0 (clamped to the table)", got[0])
	}
	if want := -0.8 * vImpact; got[1] != want {
		t.Errorf("Update velocity = %v, want −e·v' = %v", got[1], want)
	}
	if !within(got[1], 0.87848, 1e-15) {
		t.Errorf("Update velocity = %v, want 0.87848 = 0.8·1.0981 to 1e-15", got[1])
	}

	// Forward Euler on Derivatives: x + dt·f(x).
	f := make([]float64, 2)
	if err := n.Derivatives(0, x, onTable(0), f); err != nil {
		t.Fatal(err)
	}
	fe := x[0] + float64(dt*f[0])
	if want := 0.001 + float64(dt*-1); fe != want {
		t.Errorf("forward Euler position = %v, want %v", fe, want)
	}
	// −0.009 in decimal; the binary sum is one ulp away (−0.009000000000000001).
	if !within(fe, -0.009, 1e-15) {
		t.Errorf("forward Euler position = %v, want −0.009 (the MADDENING BallNode guide) to 1e-15", fe)
	}
	if fe >= 0 {
		t.Errorf("Derivatives should pass through the table (COSIM-ANO-001), got %v", fe)
	}
}

// TestFreeFallClosedForm checks Update without contact against the closed
// form of the discrete scheme, v_n = v0 + n·g·dt and
// x_n = x0 + n·dt·v0 + g·dt²·n(n+1)/2 (sum the semi-implicit Euler
// recursion). The only difference is round-off: n steps accumulate at most
// about n·ε ≈ 1000 · 2.2e-16 ≈ 2e-13 relative, so 1e-12 is the tolerance.
func TestFreeFallClosedForm(t *testing.T) {
	for _, tc := range []struct {
		name   string
		p      ball.Params
		dt     float64
		steps  int
		inputs node.Inputs
	}{
		{"defaults, no table", ball.Params{InitialPosition: 10, InitialVelocity: 0, Elasticity: 0.8, Gravity: -9.81, Mass: 1}, 1e-3, 1000, noTable()},
		{"thrown up, table far below", ball.Params{InitialPosition: 2, InitialVelocity: 3.5, Elasticity: 0.5, Gravity: -9.81, Mass: 1}, 1e-2, 1000, onTable(-1e9)},
		{"moon gravity", ball.Params{InitialPosition: -4, InitialVelocity: -0.25, Elasticity: 1, Gravity: -1.62, Mass: 1}, 0.05, 400, noTable()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := newBall(t, tc.p)
			x := make([]float64, 2)
			n.InitialState(x)
			x0, v0, g, dt := tc.p.InitialPosition, tc.p.InitialVelocity, tc.p.Gravity, tc.dt
			for i := 1; i <= tc.steps; i++ {
				x = step(t, n, float64(i-1)*dt, dt, x, tc.inputs)
				k := float64(i)
				wantX := x0 + k*dt*v0 + g*dt*dt*k*(k+1)/2
				wantV := v0 + k*g*dt
				if !within(x[0], wantX, 1e-12) || !within(x[1], wantV, 1e-12) {
					t.Fatalf("step %d: (x, v) = (%v, %v), want (%v, %v) to 1e-12", i, x[0], x[1], wantX, wantV)
				}
			}
		})
	}
}

// apexes drops a ball from h0 onto a table at 0 with step dt and returns
// the first k apex heights after bounces (the maximum height between two
// contacts, detected as the velocity turning from up to down).
func apexes(t *testing.T, e, h0, dt float64, k int) []float64 {
	n := newBall(t, ball.Params{InitialPosition: h0, Elasticity: e, Gravity: -9.81, Mass: 1})
	x := make([]float64, 2)
	n.InitialState(x)
	in := onTable(0)
	var out []float64
	for i := 0; len(out) < k; i++ {
		if i > 10_000_000 {
			t.Fatalf("only %d apexes after %d steps", len(out), i)
		}
		prev := x
		x = step(t, n, float64(i)*dt, dt, x, in)
		if prev[1] > 0 && x[1] <= 0 {
			out = append(out, max(prev[0], x[0]))
		}
	}
	return out
}

// TestBounceApexRatio checks the restitution law through its observable
// effect: each bounce scales the rebound speed by e, so the apex height
// (v²/2|g|) by e². With dt = 1e-5 each bounce carries three step errors:
// the late contact (impact speed off by up to |g|dt, so the ratio of
// squared speeds by up to 2|g|dt/V), the discarded penetration (the ball
// is raised by up to V·dt, relative V·dt/h of the next apex) and the
// sampled apex (|g|dt²/h, negligible). The worst case here is e = 0.5's
// third bounce (V ≈ 1.1 m/s, h ≈ 0.0156 m): 1.8e-4 + 7e-4 ≈ 9e-4, so the
// tolerance is 1e-3 relative. Observed deviations are at most 2.7e-4.
func TestBounceApexRatio(t *testing.T) {
	for _, e := range []float64{0.8, 0.5, 1} {
		const h0, dt = 1.0, 1e-5
		h := append([]float64{h0}, apexes(t, e, h0, dt, 3)...)
		for i := 1; i < len(h); i++ {
			ratio := h[i] / h[i-1]
			t.Logf("e = %v: apex %d / apex %d = %v, relative deviation from e² %.2g", e, i, i-1, ratio, ratio/(e*e)-1)
			if !within(ratio, e*e, 1e-3) {
				t.Errorf("e = %v: apex %d / apex %d = %v / %v = %v, want e² = %v to 1e-3", e, i, i-1, h[i], h[i-1], ratio, e*e)
			}
		}
	}
}

// TestComesToRest drops a ball from 1 cm with dt = 1e-5, so that
// e·|g|·dt = 0.8·9.81e-5 ≈ 7.8e-5 < RestSpeed: once its bounces have
// decayed, a ball on the table falls below it in one step, rebounds slower
// than 1e-4 m/s and is stopped. From then on it must stay exactly on the
// table with velocity exactly 0 (bit-for-bit, not approximately).
func TestComesToRest(t *testing.T) {
	const dt, tbl = 1e-5, 0.25e-3 // any table height: the clamp writes it exactly
	n := newBall(t, ball.Params{InitialPosition: tbl + 0.01, Elasticity: 0.8, Gravity: -9.81, Mass: 1})
	x := make([]float64, 2)
	n.InitialState(x)
	in := onTable(tbl)

	// The bounces take about 2V/|g|/(1−e) ≈ 0.45 s; allow 2 s.
	rested := -1
	for i := 0; i < 200_000; i++ {
		x = step(t, n, float64(i)*dt, dt, x, in)
		if x[1] == 0 && x[0] == tbl {
			rested = i
			break
		}
	}
	if rested < 0 {
		t.Fatalf("ball did not come to rest in 2 s: x = %v", x)
	}
	for i := rested + 1; i < rested+10_000; i++ {
		x = step(t, n, float64(i)*dt, dt, x, in)
		if x[0] != tbl || x[1] != 0 || math.Signbit(x[1]) {
			t.Fatalf("step %d (%d after rest): x = %v, want exactly [0.00025, +0]", i, i-rested, x)
		}
	}
}

// TestRestAtLargeStep: a ball at rest on the table stays exactly at
// rest, [table, +0], at any step (COSIM-ANO-004, resolved). Before the
// resting-contact branch, with dt = 0.01 a ball put at rest fell under
// the table each step, hit it at |g|·dt = 0.0981 m/s > RestSpeed and
// rebounded: v_{k+1} = e(|g|dt − v_k), whose fixed point e|g|dt/(1+e) =
// 0.0436 m/s (e = 0.8) it reached to 1e-12 within 300 steps. Also at rest
// on a raised or lowered table, and with a rebound
// slower than |g|·dt (a bounce shorter than the step: it rests at the
// next step); a rebound faster than that still flies, so bounces the
// step resolves are kept.
func TestRestAtLargeStep(t *testing.T) {
	const g = -9.81
	for _, dt := range []float64{1.05e-5, 1e-3, 0.01, 0.1} {
		for _, e := range []float64{0, 0.5, 0.8, 1} {
			for _, tbl := range []float64{0, 0.25e-3, -3} {
				n := newBall(t, ball.Params{Elasticity: e, Gravity: g, Mass: 1})
				x := []float64{tbl, 0}
				for i := 0; i < 1000; i++ {
					x = step(t, n, float64(i)*dt, dt, x, onTable(tbl))
					if x[0] != tbl || x[1] != 0 || math.Signbit(x[1]) {
						t.Fatalf("dt = %g, e = %v, table %v, step %d: x = %v, want exactly [%v, +0]", dt, e, tbl, i, x, tbl)
					}
				}
			}
		}
	}
	const dt, e = 0.01, 0.8
	n := newBall(t, ball.Params{Elasticity: e, Gravity: g, Mass: 1})
	// Leaving the table at 0.05 m/s < |g|·dt = 0.0981: below it after
	// one step, held there.
	if x := step(t, n, 0, dt, []float64{0, 0.05}, onTable(0)); x[0] != 0 || x[1] != 0 {
		t.Errorf("rebound 0.05 m/s at dt = 0.01: x = %v after one step, want [0, 0] (a bounce shorter than the step)", x)
	}
	// Leaving at 0.2 m/s: v' = 0.2 − 0.0981 > 0, it flies.
	if x := step(t, n, 0, dt, []float64{0, 0.2}, onTable(0)); !(x[0] > 0) || x[1] != 0.2+float64(g*dt) {
		t.Errorf("rebound 0.2 m/s at dt = 0.01: x = %v after one step, want in flight at v = %v", x, 0.2+float64(g*dt))
	}
	// An impact from above still bounces (TestSeedContactStep), and one on
	// the surface moving into it too: from [0, −1], −e·(−1 + g·dt).
	if x := step(t, n, 0, dt, []float64{0, -1}, onTable(0)); x[0] != 0 || x[1] != -e*(-1+float64(g*dt)) {
		t.Errorf("on the table at −1 m/s: x = %v, want a bounce to [0, %v]", x, -e*(-1+float64(g*dt)))
	}
}

// TestNoTableNoContact: without a table_position edge there is no contact
// even when the value slot holds a table above the ball or NaN (it is not
// read): the ball falls through height 0 as in free fall, and the contact
// event stays at +1.
func TestNoTableNoContact(t *testing.T) {
	n := newBall(t, ball.Params{InitialPosition: 0.001, InitialVelocity: -1, Elasticity: 0.8, Gravity: -9.81, Mass: 1})
	for _, v := range []float64{0, 5, math.NaN()} {
		in := node.Inputs{Values: []float64{v, 0}, Present: []bool{false, true}}
		got := step(t, n, 0, 0.01, []float64{0.001, -1}, in)
		vWant := -1 + float64(-9.81*0.01)
		want := []float64{0.001 + float64(0.01*vWant), vWant} // −0.009981, −1.0981
		if !cmp.Equal(got, want) {
			t.Errorf("slot %v: Update = %v, want free fall %v", v, got, want)
		}
		ev := make([]float64, 1)
		if err := n.EventValues(0, got, in, ev); err != nil || ev[0] != 1 {
			t.Errorf("slot %v: EventValues = %v, %v; want +1, nil", v, ev, err)
		}
	}
}

// TestReboundThreshold pins the choice that RestSpeed is compared with the
// impact speed |v|, before restitution, in both Update and Reset: a bounce
// needs |v| > RestSpeed, as in the MADDENING BallNode (MADD-NODE-001
// 1.0.0, "bounce only when |v| > 1e-4"). With g = 0 the impact velocity is
// exactly the input velocity. Each case is one side of the rule; the
// rebound values are exact products (or the literal e·|v| the code
// computes).
func TestReboundThreshold(t *testing.T) {
	for _, tc := range []struct {
		name  string
		e, v  float64
		wantV float64
	}{
		{"impact exactly RestSpeed rests", 1, -1e-4, 0},
		{"impact above RestSpeed bounces, rebound below it", 0.5, -1.5e-4, 0.5 * 1.5e-4},
		{"impact below threshold, e=1", 1, -0.99e-4, 0},
		{"impact just above RestSpeed, e=1", 1, -1.0001e-4, 1.0001e-4},
		{"fast impact bounces", 0.8, -2, 1.6}, // 0.8·2 is exact
		{"inelastic rests", 0, -3, 0},         // −0·v = +0
		{"small rebound of a slow impact", 0.01, -2.0001e-4, 0.01 * 2.0001e-4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := newBall(t, ball.Params{Elasticity: tc.e, Gravity: 0, Mass: 1})
			// From 1e-9 above the table, one step of dt = 1 crosses it.
			got := step(t, n, 0, 1, []float64{1e-9, tc.v}, onTable(0))
			if got[0] != 0 || got[1] != tc.wantV || math.Signbit(got[1]) {
				t.Errorf("Update = %v, want [0, %v]", got, tc.wantV)
			}
			dst := make([]float64, 2)
			if err := n.Reset(0, 0, []float64{-1e-12, tc.v}, onTable(0), dst); err != nil {
				t.Fatal(err)
			}
			if dst[0] != 0 || dst[1] != tc.wantV || math.Signbit(dst[1]) {
				t.Errorf("Reset = %v, want [0, %v]", dst, tc.wantV)
			}
		})
	}
}

// TestUpdateNoAliasNoRetain: Update reads x and in and writes only dst, and
// keeps no reference to any of them: scribbling on them afterwards does not
// change a later step.
func TestUpdateNoAliasNoRetain(t *testing.T) {
	n := newBall(t, ball.DefaultParams())
	x := []float64{0.5, -2}
	in := onTable(0.1)
	dst := []float64{7, 7}
	if err := n.Update(0, 0.01, x, in, dst); err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(x, []float64{0.5, -2}) || !cmp.Equal(in, onTable(0.1)) {
		t.Errorf("Update modified its inputs: x = %v, in = %+v", x, in)
	}
	first := append([]float64(nil), dst...)
	for _, s := range [][]float64{x, in.Values, dst} {
		for i := range s {
			s[i] = math.NaN()
		}
	}
	in.Present[0] = false
	again := step(t, n, 0, 0.01, []float64{0.5, -2}, onTable(0.1))
	if !cmp.Equal(again, first) {
		t.Errorf("Update after scribbling on old slices = %v, want %v", again, first)
	}
	dx := make([]float64, 2)
	if err := n.Derivatives(0, []float64{0.5, -2}, onTable(0.1), dx); err != nil || !cmp.Equal(dx, []float64{-2, -9.81}) {
		t.Errorf("Derivatives = %v, %v; want [-2, -9.81]", dx, err)
	}
}

// TestUpdateErrors: a non-finite or non-positive timestep, and a
// non-finite state, table or result, are returned as errors (never a
// panic), naming the quantity, and dst is left as it was.
func TestUpdateErrors(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, tc := range []struct {
		name      string
		dt        float64
		x         []float64
		in        node.Inputs
		nonFinite bool
		mention   string
	}{
		{"dt zero", 0, []float64{1, 0}, onTable(0), false, "dt = 0"},
		{"dt negative", -0.01, []float64{1, 0}, onTable(0), false, "dt = -0.01"},
		{"dt NaN", nan, []float64{1, 0}, onTable(0), true, "dt = NaN"},
		{"dt +Inf", inf, []float64{1, 0}, onTable(0), true, "dt = +Inf"},
		{"dt -Inf", -inf, []float64{1, 0}, onTable(0), true, "dt = -Inf"},
		{"position NaN", 0.01, []float64{nan, 0}, onTable(0), true, "position = NaN"},
		{"velocity -Inf", 0.01, []float64{1, -inf}, onTable(0), true, "velocity = -Inf"},
		{"table NaN", 0.01, []float64{1, 0}, onTable(nan), true, "table_position = NaN"},
		{"table +Inf", 0.01, []float64{1, 0}, onTable(inf), true, "table_position = +Inf"},
		{"position overflows", 1e10, []float64{1e300, 1e300}, noTable(), true, "new position = +Inf"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := newBall(t, ball.DefaultParams())
			dst := []float64{42, 43}
			err := n.Update(1.5, tc.dt, tc.x, tc.in, dst)
			if err == nil {
				t.Fatalf("Update succeeded with %v", dst)
			}
			if got := errors.Is(err, node.ErrNonFinite); got != tc.nonFinite {
				t.Errorf("errors.Is(err, ErrNonFinite) = %v, want %v (%v)", got, tc.nonFinite, err)
			}
			if msg := err.Error(); !strings.Contains(msg, tc.mention) || !strings.Contains(msg, "ball") || !strings.Contains(msg, "t=1.5") {
				t.Errorf("error %q should name the node, the time and %q", msg, tc.mention)
			}
			if !cmp.Equal(dst, []float64{42, 43}) {
				t.Errorf("dst changed on error: %v", dst)
			}
		})
	}
	// The other methods reject non-finite state too.
	n := newBall(t, ball.DefaultParams())
	dst := make([]float64, 2)
	if err := n.Derivatives(0, []float64{nan, 0}, noTable(), dst); !errors.Is(err, node.ErrNonFinite) {
		t.Errorf("Derivatives(NaN) = %v", err)
	}
	if err := n.EventValues(0, []float64{1, 0}, onTable(inf), dst[:1]); !errors.Is(err, node.ErrNonFinite) {
		t.Errorf("EventValues(table +Inf) = %v", err)
	}
	if err := n.Reset(0, 0, []float64{0, nan}, onTable(0), dst); !errors.Is(err, node.ErrNonFinite) {
		t.Errorf("Reset(NaN) = %v", err)
	}
}

// TestWrongLengthsPanic: slices of the wrong length are programmer errors.
func TestWrongLengthsPanic(t *testing.T) {
	n := newBall(t, ball.DefaultParams())
	for name, f := range map[string]func(){
		"Update x":       func() { n.Update(0, 0.1, []float64{1}, onTable(0), make([]float64, 2)) },
		"Update dst":     func() { n.Update(0, 0.1, []float64{1, 0}, onTable(0), make([]float64, 3)) },
		"Derivatives":    func() { n.Derivatives(0, []float64{1, 0}, onTable(0), nil) },
		"EventValues":    func() { n.EventValues(0, []float64{1, 0}, onTable(0), make([]float64, 2)) },
		"Reset event 1":  func() { n.Reset(1, 0, []float64{1, 0}, onTable(0), make([]float64, 2)) },
		"InitialState":   func() { n.InitialState(make([]float64, 1)) },
		"MarkerJacobian": func() { n.MarkerJacobian([]float64{1, 0}, [3]float64{0, 0, 1}, make([]float64, 3)) },
	} {
		func() {
			defer func() {
				if r := recover(); r == nil {
					t.Errorf("%s did not panic", name)
				} else if !strings.HasPrefix(r.(string), "ball: ") {
					t.Errorf("%s panicked with %v, want a \"ball: \" message", name, r)
				}
			}()
			f()
		}()
	}
}

// TestUpdateIsSemiImplicitEulerOfDerivatives ties Metadata.Discretization
// to the code: without contact, Update is exactly v' = v + dt·f_v,
// x' = x + dt·v' with f = Derivatives (the semi-implicit-euler step), bit
// for bit, for several states and gravities.
func TestUpdateIsSemiImplicitEulerOfDerivatives(t *testing.T) {
	n := newBall(t, ball.DefaultParams())
	if got := n.Spec().Meta.Discretization; got != "semi-implicit-euler" {
		t.Fatalf("Discretization = %q, want semi-implicit-euler", got)
	}
	for _, g := range []float64{-9.81, 3.7, 0} {
		if err := n.SetParams(map[string]any{"gravity": g}); err != nil {
			t.Fatal(err)
		}
		for _, x := range [][]float64{{1, 0}, {-3, 2.5}, {0.125, -7}} {
			for _, dt := range []float64{1e-4, 0.01, 0.1} {
				f := make([]float64, 2)
				if err := n.Derivatives(0, x, noTable(), f); err != nil {
					t.Fatal(err)
				}
				v := x[1] + float64(dt*f[1])
				want := []float64{x[0] + float64(dt*v), v}
				if got := step(t, n, 0, dt, x, noTable()); !cmp.Equal(got, want) {
					t.Errorf("g=%v x=%v dt=%v: Update = %v, semi-implicit Euler of Derivatives = %v", g, x, dt, got, want)
				}
			}
		}
	}
}

// TestDerivativesHonourSetParams: Derivatives returns [v, g] with the
// overridden gravity, ignores the table and elasticity, and Update uses the
// same gravity.
func TestDerivativesHonourSetParams(t *testing.T) {
	n := newBall(t, ball.DefaultParams())
	dst := make([]float64, 2)
	if err := n.Derivatives(0, []float64{0.5, -1}, onTable(1), dst); err != nil || !cmp.Equal(dst, []float64{-1, -9.81}) {
		t.Fatalf("Derivatives = %v, %v; want [-1, -9.81] (below the table: no contact)", dst, err)
	}
	if err := n.SetParams(map[string]any{"gravity": -1.62, "elasticity": 0.1}); err != nil {
		t.Fatal(err)
	}
	if err := n.Derivatives(0, []float64{0.5, -1}, onTable(1), dst); err != nil || !cmp.Equal(dst, []float64{-1, -1.62}) {
		t.Errorf("Derivatives after SetParams = %v, %v; want [-1, -1.62]", dst, err)
	}
	got := step(t, n, 0, 0.5, []float64{10, 0}, noTable())
	if want := []float64{10 + 0.5*(0.5*-1.62), 0.5 * -1.62}; !cmp.Equal(got, want) {
		t.Errorf("Update after SetParams = %v, want %v", got, want)
	}
}

// TestTimeVaryingGravity is the verification suite's use (MADD-VER-010):
// a manufactured solution x(t) = sin t, v(t) = cos t needs the
// acceleration g(t) = −sin t, injected with SetParams before each step.
// Update must equal the hand-written recursion v += dt·g(t_n),
// x += dt·v bit for bit, and its error at T = 1 must fall at order 1: over
// the 100/200/400/800-step ladder the observed order of the finest pair is
// log2(e_400/e_800), which for a first-order method with a smooth
// solution is 1 + O(dt); the MADDENING BallNode guide measured 1.002, and 0.02 is the
// tolerance (the O(dt) term is ~1e-3 at dt = 1/800).
func TestTimeVaryingGravity(t *testing.T) {
	const T = 1.0
	var errs []float64
	for _, steps := range []int{100, 200, 400, 800} {
		dt := T / float64(steps)
		n := newBall(t, ball.Params{InitialPosition: 0, InitialVelocity: 1, Elasticity: 0.8, Gravity: 0, Mass: 1})
		x := make([]float64, 2)
		n.InitialState(x)
		hx, hv := 0.0, 1.0
		for i := 0; i < steps; i++ {
			tn := float64(i) * dt
			g := -math.Sin(tn)
			if err := n.SetParams(map[string]any{"gravity": g}); err != nil {
				t.Fatal(err)
			}
			x = step(t, n, tn, dt, x, noTable())
			hv += float64(dt * g)
			hx += float64(dt * hv)
			if x[0] != hx || x[1] != hv {
				t.Fatalf("steps %d, step %d: Update = %v, recursion = [%v %v]", steps, i, x, hx, hv)
			}
		}
		errs = append(errs, math.Hypot(x[0]-math.Sin(T), x[1]-math.Cos(T)))
	}
	p := math.Log2(errs[2] / errs[3])
	t.Logf("errors %v; observed order over the finest pair %.4f", errs, p)
	if !numtest.Within(p, 1, 0.02) {
		t.Errorf("observed order %v, want 1 ± 0.02", p)
	}
}

// TestEventValuesAndReset: the contact event is position − table_position
// (the difference as float64 computes it), falling, +1 without a table; the
// reset puts the ball on the table and applies −e·v.
func TestEventValuesAndReset(t *testing.T) {
	n := newBall(t, ball.DefaultParams())
	ev := n.Spec().Events
	if want := []node.Event{{Name: "contact", Direction: -1}}; !cmp.Equal(ev, want, cmpopts.IgnoreFields(node.Event{}, "Description")) {
		t.Errorf("Events = %+v", ev)
	}
	dst := make([]float64, 1)
	for _, tc := range []struct {
		x, tbl float64
		in     node.Inputs
		want   float64
	}{
		{0.3, 0.1, onTable(0.1), 0.19999999999999998}, // 0.3 − 0.1 in float64
		{-0.25, 0.5, onTable(0.5), -0.75},
		{0.3, 0, noTable(), 1},
	} {
		if err := n.EventValues(0, []float64{tc.x, -1}, tc.in, dst); err != nil || dst[0] != tc.want {
			t.Errorf("EventValues(x=%v, table=%+v) = %v, %v; want %v", tc.x, tc.in, dst[0], err, tc.want)
		}
	}

	rs := []float64{9, 9}
	if err := n.Reset(0, 0.7, []float64{0.1 - 1e-12, -2}, onTable(0.1), rs); err != nil {
		t.Fatal(err)
	}
	if want := []float64{0.1, 1.6}; !cmp.Equal(rs, want) { // 0.8·2 = 1.6 exactly
		t.Errorf("Reset = %v, want %v", rs, want)
	}
	rs = []float64{9, 9}
	if err := n.Reset(0, 0.7, []float64{0, -2}, noTable(), rs); err == nil || !cmp.Equal(rs, []float64{9, 9}) {
		t.Errorf("Reset without a table = %v, %v; want an error and dst unchanged", rs, err)
	}
}

// TestMarker: the ball is a one-dimensional body along the unit world axis
// local: pos = x·local, vel = v·local, ∂pos/∂[x, v] = [local | 0], and a
// force at the marker loads the input force with its component f·local.
func TestMarker(t *testing.T) {
	n := newBall(t, ball.DefaultParams())
	var m node.Marker = n
	if got := m.MarkerFields(); !cmp.Equal(got, []string{"position", "velocity"}) {
		t.Errorf("MarkerFields = %v", got)
	}
	if got := m.MarkerLoads(); !cmp.Equal(got, []string{"force"}) {
		t.Errorf("MarkerLoads = %v, want [force]", got)
	}
	// The load is the force's component along the axis, f·local: exact
	// for the coordinate axes; for (0.6, 0, 0.8) the float64 products
	// 0.6 and 2.4000000000000004 sum to 3.0000000000000004 (f·local is 3
	// in exact arithmetic; the last bit is the rounding of 0.8·3).
	for _, c := range []struct {
		local [3]float64
		want  float64
	}{
		{[3]float64{0, 0, 1}, 3},
		{[3]float64{1, 0, 0}, 1},
		{[3]float64{0, -1, 0}, -2},
		{[3]float64{0.6, 0, 0.8}, 3.0000000000000004},
	} {
		dst := []float64{7}
		m.MarkerLoad([]float64{1, 2}, c.local, [3]float64{1, 2, 3}, dst)
		if dst[0] != c.want {
			t.Errorf("MarkerLoad(f = [1, 2, 3], local %v) = %v, want %v", c.local, dst[0], c.want)
		}
	}

	x := []float64{2, -3}
	for _, local := range [][3]float64{{0, 0, 1}, {1, 0, 0}, {0.6, 0, 0.8}} {
		var pos, vel [3]float64
		m.MarkerKinematics(x, local, &pos, &vel)
		wantPos := [3]float64{2 * local[0], 2 * local[1], 2 * local[2]}
		wantVel := [3]float64{-3 * local[0], -3 * local[1], -3 * local[2]}
		if pos != wantPos || vel != wantVel {
			t.Errorf("local %v: pos, vel = %v, %v; want %v, %v", local, pos, vel, wantPos, wantVel)
		}
		jac := make([]float64, 6)
		m.MarkerJacobian(x, local, jac)
		want := []float64{local[0], 0, local[1], 0, local[2], 0}
		if !cmp.Equal(jac, want) {
			t.Errorf("local %v: MarkerJacobian = %v, want %v", local, jac, want)
		}
		// The kinematics are linear in x, so a unit finite difference agrees
		// with the Jacobian up to the rounding of two products (1e-15).
		for j := 0; j < 2; j++ {
			xp := append([]float64(nil), x...)
			xp[j]++
			var pp, vp [3]float64
			m.MarkerKinematics(xp, local, &pp, &vp)
			for i := 0; i < 3; i++ {
				if d := pp[i] - pos[i]; !within(d, jac[2*i+j], 1e-15) {
					t.Errorf("local %v: ∂pos[%d]/∂x[%d] = %v by differences, Jacobian says %v", local, i, j, d, jac[2*i+j])
				}
			}
		}
	}
}

// TestParamErrors: every invalid value, from any constructor or from
// SetParams, is a *node.ParamError naming node "ball", the parameter, the
// value and the valid range.
func TestParamErrors(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	def := ball.DefaultParams()
	with := func(f func(*ball.Params)) ball.Params { p := def; f(&p); return p }
	const anyFinite = "any finite number"
	for _, tc := range []struct {
		name  string
		m     map[string]any // FromMap and SetParams
		p     *ball.Params   // New, when the value is expressible as a Params
		param string
		value any
		valid string
	}{
		{"elasticity above 1", map[string]any{"elasticity": 1.5}, ptr(with(func(p *ball.Params) { p.Elasticity = 1.5 })), "elasticity", 1.5, "[0, 1]"},
		{"elasticity negative", map[string]any{"elasticity": -0.1}, ptr(with(func(p *ball.Params) { p.Elasticity = -0.1 })), "elasticity", -0.1, "[0, 1]"},
		{"elasticity NaN", map[string]any{"elasticity": nan}, ptr(with(func(p *ball.Params) { p.Elasticity = nan })), "elasticity", nan, "[0, 1]"},
		{"gravity NaN", map[string]any{"gravity": nan}, ptr(with(func(p *ball.Params) { p.Gravity = nan })), "gravity", nan, anyFinite},
		{"gravity +Inf", map[string]any{"gravity": inf}, ptr(with(func(p *ball.Params) { p.Gravity = inf })), "gravity", inf, anyFinite},
		{"initial_position -Inf", map[string]any{"initial_position": -inf}, ptr(with(func(p *ball.Params) { p.InitialPosition = -inf })), "initial_position", -inf, anyFinite},
		{"initial_velocity NaN", map[string]any{"initial_velocity": nan}, ptr(with(func(p *ball.Params) { p.InitialVelocity = nan })), "initial_velocity", nan, anyFinite},
		{"wrong type", map[string]any{"gravity": "down"}, nil, "gravity", "down", anyFinite},
		{"unknown name", map[string]any{"elastcity": 0.5}, nil, "elastcity", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			check := func(how string, err error) {
				t.Helper()
				var pe *node.ParamError
				if !errors.As(err, &pe) {
					t.Fatalf("%s: error %v is not a *node.ParamError", how, err)
				}
				if pe.Node != "ball" || pe.Param != tc.param || !cmp.Equal(pe.Value, tc.value, cmpopts.EquateNaNs()) || pe.Valid != tc.valid {
					t.Errorf("%s: ParamError %+v, want node ball, param %s, value %v, valid %q", how, *pe, tc.param, tc.value, tc.valid)
				}
				if msg := err.Error(); !strings.Contains(msg, "ball") || !strings.Contains(msg, tc.param) || !strings.Contains(msg, tc.valid) {
					t.Errorf("%s: message %q", how, msg)
				}
			}
			n, err := ball.FromMap(tc.m)
			if n != nil {
				t.Errorf("FromMap returned a node (%v) with the error", n)
			}
			check("FromMap", err)
			if tc.p != nil {
				n, err := ball.New(*tc.p)
				if n != nil {
					t.Errorf("New returned a node with the error")
				}
				check("New", err)
			}
			b := newBall(t, def)
			before := b.Params()
			check("SetParams", b.SetParams(tc.m))
			if !cmp.Equal(b.Params(), before) {
				t.Errorf("SetParams changed the parameters on error: %v", b.Params())
			}
		})
	}
	if !strings.Contains(errString(ball.FromMap(map[string]any{"elastcity": 0.5})), `did you mean "elasticity"`) {
		t.Errorf("unknown-name error should suggest elasticity")
	}
}

func ptr[T any](v T) *T { return &v }

func errString(_ node.Node, err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestSetParamsAllOrNothing: with one valid and one invalid value nothing
// is applied, every problem is reported, and a valid override reaches
// Update, Derivatives and InitialState.
func TestSetParamsAllOrNothing(t *testing.T) {
	n := newBall(t, ball.DefaultParams())
	err := n.SetParams(map[string]any{"gravity": -1.0, "elasticity": 2.0, "initial_position": math.Inf(-1)})
	if err == nil {
		t.Fatal("SetParams accepted elasticity 2")
	}
	var params []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		params = append(params, e.(*node.ParamError).Param)
	}
	if want := []string{"initial_position", "elasticity"}; !cmp.Equal(params, want) {
		t.Errorf("errors for %v, want %v (spec order)", params, want)
	}
	if g := n.Params().Float("gravity"); g != -9.81 {
		t.Errorf("gravity = %v after a failed SetParams, want -9.81 unchanged", g)
	}
	if err := n.SetParams(map[string]any{"initial_position": 3, "initial_velocity": -0.5}); err != nil {
		t.Fatal(err)
	}
	x := make([]float64, 2)
	n.InitialState(x)
	if !cmp.Equal(x, []float64{3, -0.5}) {
		t.Errorf("InitialState after SetParams = %v, want [3 -0.5]", x)
	}
	if g := n.Params().Float("gravity"); g != -9.81 {
		t.Errorf("gravity = %v, want the previous value kept (overrides start from the current values)", g)
	}
}

// TestParamsIsACopy: the map Params returns cannot change the node.
func TestParamsIsACopy(t *testing.T) {
	n := newBall(t, ball.DefaultParams())
	p := n.Params()
	p["gravity"] = 100.0
	dst := make([]float64, 2)
	n.Derivatives(0, []float64{0, 0}, noTable(), dst)
	if dst[1] != -9.81 || n.Params().Float("gravity") != -9.81 {
		t.Errorf("writing to Params() changed the node: %v", dst)
	}
}

// TestDefaults: FromMap(nil) and New(DefaultParams()) build the same ball,
// with the defaults of the MADDENING BallNode guide (0, 0, 0.8, −9.81)
// and cosim's mass of 1 kg.
func TestDefaults(t *testing.T) {
	fromMap, err := ball.FromMap(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := node.Values{"initial_position": 0.0, "initial_velocity": 0.0, "elasticity": 0.8, "gravity": -9.81,
		"mass": 1.0, "show": true, "draw_size": -1.0, "color": []float64{-1, -1, -1, -1}}
	if got := fromMap.(*ball.Node).Params(); !cmp.Equal(got, want) {
		t.Errorf("FromMap(nil).Params() = %v, want %v", got, want)
	}
	if got := newBall(t, ball.DefaultParams()).Params(); !cmp.Equal(got, want) {
		t.Errorf("New(DefaultParams()).Params() = %v, want %v", got, want)
	}
	for _, p := range fromMap.Spec().Params {
		if !cmp.Equal(p.Default, want[p.Name]) {
			t.Errorf("spec default of %s = %v, want %v", p.Name, p.Default, want[p.Name])
		}
	}
	// Integers are accepted where JSON gives them.
	n, err := ball.FromMap(map[string]any{"initial_position": 2, "elasticity": 1})
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, 2)
	n.InitialState(x)
	if !cmp.Equal(x, []float64{2, 0}) {
		t.Errorf("InitialState = %v, want [2 0]", x)
	}
}

// TestSpec: the spec is built once and describes the state, input and
// event the code uses, in the MADDENING BallNode's names and units.
func TestSpec(t *testing.T) {
	n := newBall(t, ball.DefaultParams())
	s := n.Spec()
	if s != n.Spec() {
		t.Error("Spec() returns a different value on each call")
	}
	if s.Type != "ball" || s.Package != "github.com/cosimgo/cosim/nodes/ball" || s.Feedthrough || len(s.Outputs) != 0 {
		t.Errorf("Type %q, Package %q, Feedthrough %v, Outputs %v", s.Type, s.Package, s.Feedthrough, s.Outputs)
	}
	ignoreDesc := cmpopts.IgnoreFields(node.Field{}, "Description")
	wantState := []node.Field{
		{Name: "position", Shape: node.Scalar, Units: "m", Role: node.Position, Rate: "velocity"},
		{Name: "velocity", Shape: node.Scalar, Units: "m/s", Role: node.Velocity},
	}
	if d := cmp.Diff(wantState, s.State, ignoreDesc); d != "" {
		t.Errorf("State (-want +got):\n%s", d)
	}
	wantIn := []node.Input{
		{Name: "table_position", Shape: node.Scalar, Units: "m", Combine: node.Replacing, Absent: true},
		{Name: "force", Shape: node.Scalar, Units: "N", Combine: node.Additive, Default: []float64{0}},
	}
	if d := cmp.Diff(wantIn, s.Inputs, cmpopts.IgnoreFields(node.Input{}, "Description")); d != "" {
		t.Errorf("Inputs (-want +got):\n%s", d)
	}
	if got := s.ParamNames(); !cmp.Equal(got, []string{"initial_position", "initial_velocity", "elasticity", "gravity", "mass", "show", "draw_size", "color"}) {
		t.Errorf("ParamNames = %v", got)
	}
	if p, _ := s.Param("elasticity"); p.Valid() != "[0, 1]" {
		t.Errorf("elasticity valid range %q", p.Valid())
	}
	if s.StateLayout.Size() != 2 || s.StateFieldOffset("position") != 0 || s.StateFieldOffset("velocity") != 1 || s.InputLayout.Size() != 2 {
		t.Errorf("layouts: state %v, input size %d", s.StateLayout.Names(), s.InputLayout.Size())
	}
	if in := s.DefaultInputs(); in.Has(0) || !in.Has(1) || in.Values[1] != 0 {
		t.Errorf("default inputs %+v: want table_position absent (no contact), force present at 0", in)
	}
	if s2 := newBall(t, ball.DefaultParams()).Spec(); !cmp.Equal(s, s2, cmp.AllowUnexported(node.Layout{})) {
		t.Error("two balls have different specs")
	}
}

// TestRegistry: the Type registers, and New(nil) builds a default ball.
func TestRegistry(t *testing.T) {
	r, err := node.NewRegistry(ball.Type())
	if err != nil {
		t.Fatal(err)
	}
	n, err := r.New("ball", map[string]any{"gravity": -1})
	if err != nil {
		t.Fatal(err)
	}
	if g := n.(node.Tunable).Params().Float("gravity"); g != -1 {
		t.Errorf("gravity = %v", g)
	}
	for _, ok := range []bool{
		isA[node.Deriver](n), isA[node.Tunable](n), isA[node.Eventer](n), isA[node.Marker](n),
		!isA[node.Outputter](n), isA[node.DerivativesJacobian](n),
	} {
		if !ok {
			t.Errorf("capabilities of the ball are not as documented")
		}
	}
}

func isA[T any](n node.Node) bool { _, ok := node.As[T](n); return ok }

// TestConcurrentUse runs Update, Derivatives, EventValues and the marker
// methods from several goroutines on one node (run with -race): they must
// agree with a serial run, as the node contract requires.
func TestConcurrentUse(t *testing.T) {
	n := newBall(t, ball.DefaultParams())
	serial := func(h float64) []float64 {
		x := []float64{h, 0}
		dst := make([]float64, 2)
		for i := 0; i < 500; i++ {
			if err := n.Update(float64(i)*1e-3, 1e-3, x, onTable(0), dst); err != nil {
				panic(err)
			}
			x, dst = dst, x
		}
		return x
	}
	want := make([][]float64, 8)
	for i := range want {
		want[i] = serial(float64(i + 1))
	}
	got := make([][]float64, len(want))
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() {
			got[i] = serial(float64(i + 1))
			d := make([]float64, 2)
			n.Derivatives(0, got[i], onTable(0), d)
			n.EventValues(0, got[i], onTable(0), d[:1])
			var p, v [3]float64
			n.MarkerKinematics(got[i], [3]float64{0, 0, 1}, &p, &v)
		})
	}
	wg.Wait()
	if !cmp.Equal(got, want) {
		t.Errorf("concurrent results differ from serial:\n%v\n%v", got, want)
	}
}

// TestZeroAllocs: the per-step methods allocate nothing.
func TestZeroAllocs(t *testing.T) {
	n := newBall(t, ball.DefaultParams())
	x, dst, in := []float64{0.001, -1}, make([]float64, 2), onTable(0)
	for name, f := range map[string]func(){
		"Update":      func() { n.Update(0, 0.01, x, in, dst) },
		"Derivatives": func() { n.Derivatives(0, x, in, dst) },
		"EventValues": func() { n.EventValues(0, x, in, dst[:1]) },
		"Reset":       func() { n.Reset(0, 0, x, in, dst) },
	} {
		if a := testing.AllocsPerRun(100, f); a != 0 {
			t.Errorf("%s allocates %v times per call", name, a)
		}
	}
}

func BenchmarkUpdate(b *testing.B) {
	n := newBall(b, ball.DefaultParams())
	x, dst, in := []float64{1, 0}, make([]float64, 2), onTable(0)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := n.Update(float64(i)*1e-3, 1e-3, x, in, dst); err != nil {
			b.Fatal(err)
		}
		x, dst = dst, x
	}
}

// TestDrivenByTable wires a table node's output into table_position by
// hand, as a graph would, and checks the ball lands on the table's height
// (0.5 m) exactly and never ends a step below it. Both types register
// together (distinct names and algorithm IDs).
func TestDrivenByTable(t *testing.T) {
	if _, err := node.NewRegistry(ball.Type(), table.Type()); err != nil {
		t.Fatal(err)
	}
	tbl, err := table.New(table.Params{Position: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	b := newBall(t, ball.Params{InitialPosition: 2, Elasticity: 0.5, Gravity: -9.81, Mass: 1})
	in := b.Spec().DefaultInputs()
	in.Present[0] = true
	x, next := make([]float64, 2), make([]float64, 2)
	b.InitialState(x)
	const dt = 1e-3
	landed := false
	for i := 0; i < 3000; i++ {
		if err := tbl.Outputs(float64(i)*dt, nil, node.Inputs{}, in.Values[b.Spec().InputOffset("table_position"):][:1]); err != nil {
			t.Fatal(err)
		}
		if err := b.Update(float64(i)*dt, dt, x, in, next); err != nil {
			t.Fatal(err)
		}
		x, next = next, x
		if x[0] < 0.5 {
			t.Fatalf("step %d: ball at %v, below the table at 0.5", i, x[0])
		}
		landed = landed || x[0] == 0.5
	}
	if !landed {
		t.Error("the ball never touched the table")
	}
}

// Resting contact: at rest on the table under gravity, Derivatives is
// zero (the normal force balances gravity), so an event-localizing
// integrator keeps a ball that came to rest on the table; any motion, or
// no table, gives the free right-hand side.
func TestDerivativesRestingContact(t *testing.T) {
	b, err := ball.New(ball.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	in := b.Spec().DefaultInputs()
	in.Present[0], in.Values[0] = true, 0.5
	dst := make([]float64, 2)
	for _, c := range []struct {
		x, v, wantX, wantV float64
	}{
		{0.5, 0, 0, 0},             // resting on the table
		{0.5, 1e-12, 1e-12, -9.81}, // moving: free
		{0.6, 0, 0, -9.81},         // above: free fall starts
	} {
		if err := b.Derivatives(0, []float64{c.x, c.v}, in, dst); err != nil {
			t.Fatal(err)
		}
		if dst[0] != c.wantX || dst[1] != c.wantV {
			t.Errorf("x=%v v=%v: Derivatives = %v, want [%v %v]", c.x, c.v, dst, c.wantX, c.wantV)
		}
	}
	in.Present[0] = false
	b.Derivatives(0, []float64{0.5, 0}, in, dst)
	if dst[1] != -9.81 {
		t.Errorf("no table: Derivatives = %v, want free fall", dst)
	}
}

// withForce returns inputs with table_position as in base and the force
// input at f.
func withForce(base node.Inputs, f float64) node.Inputs {
	return node.Inputs{Values: []float64{base.Values[0], f}, Present: []bool{base.Present[0], true}}
}

// TestForceInput: the additive input force accelerates the ball by F/m on
// top of gravity, in Update (semi-implicit Euler, force held over the
// step) and Derivatives, and a zero force changes no bit. The expected
// values are the scheme's formulas evaluated here with the same rounded
// products, so they are exact.
func TestForceInput(t *testing.T) {
	p := ball.DefaultParams()
	p.Mass = 2
	n := newBall(t, p)
	const dt = 0.01
	x := []float64{1, 0.5}
	for _, f := range []float64{0, 3, -7.5, 40} {
		got := step(t, n, 0, dt, x, withForce(noTable(), f))
		a := -9.81 + f/2
		v := 0.5 + float64(a*dt)
		want := []float64{1 + float64(dt*v), v}
		if !cmp.Equal(got, want) {
			t.Errorf("F = %v: Update = %v, want %v", f, got, want)
		}
		d := make([]float64, 2)
		if err := n.Derivatives(0, x, withForce(noTable(), f), d); err != nil {
			t.Fatal(err)
		}
		if d[0] != 0.5 || d[1] != a {
			t.Errorf("F = %v: Derivatives = %v, want [0.5, %v]", f, d, a)
		}
	}
	if got, want := step(t, n, 0, dt, x, withForce(noTable(), 0)), step(t, n, 0, dt, x, noTable()); !cmp.Equal(got, want) {
		t.Errorf("zero force %v differs from the default input %v", got, want)
	}
	// Resting contact holds while the net acceleration points down and
	// ends when the force lifts the ball (F/m > |g|).
	rest := []float64{0, 0}
	for _, c := range []struct {
		f    float64
		want []float64
	}{{10, []float64{0, 0}}, {19.62, []float64{0, 0}}, {20, []float64{0, 0.1899999999999995}}} { // 10 − 9.81 in float64
		d := make([]float64, 2)
		if err := n.Derivatives(0, rest, withForce(onTable(0), c.f), d); err != nil {
			t.Fatal(err)
		}
		if !cmp.Equal(d, c.want) {
			t.Errorf("at rest on the table, F = %v: Derivatives = %v, want %v", c.f, d, c.want)
		}
	}
	// A non-finite force is an error naming the input.
	dst := []float64{7, 7}
	err := n.Update(0, dt, x, withForce(noTable(), math.NaN()), dst)
	var fe *node.FieldError
	if !errors.As(err, &fe) || fe.Field != "input force" || !errors.Is(err, node.ErrNonFinite) || dst[0] != 7 {
		t.Errorf("NaN force: Update = %v (dst %v), want a FieldError for \"input force\" wrapping ErrNonFinite, dst unchanged", err, dst)
	}
	// The inverse mass at a marker is local_i²/m along each world axis.
	var inv [3]float64
	n.MarkerInverseMass(x, [3]float64{0.6, 0, 0.8}, &inv)
	if want := [3]float64{0.18, 0, 0.32000000000000006}; inv != want { // float64 0.6², 0.8², halved
		t.Errorf("MarkerInverseMass = %v, want %v", inv, want)
	}
}

// The largest finite step, dt = math.MaxFloat64, is finite and positive,
// inside Update's domain: it is accepted and written, by the node and by
// the batch kernel alike. A ball without gravity, force or table and at
// rest has zero acceleration, so it stays where it is for any step:
// v' = 0 + 0·dt = 0 and x' = x + dt·0 = x, exactly (no rounding). The
// destination starts with sentinels, so a step that returned without
// writing shows.
func TestUpdateLargestFiniteStep(t *testing.T) {
	p := ball.DefaultParams()
	p.Gravity = 0
	n := newBall(t, p)
	dst := []float64{42, 43}
	if err := n.Update(0, math.MaxFloat64, []float64{1.5, 0}, noTable(), dst); err != nil || dst[0] != 1.5 || dst[1] != 0 {
		t.Errorf("Update(dt = MaxFloat64) = %v, %v; want [1.5 0], nil", dst, err)
	}
	members := []node.Node{n, newBall(t, p)}
	b := n.NewBatch(members).(node.BatchUpdater)
	x, bd := []float64{1.5, 0, -2, 0}, []float64{42, 43, 44, 45}
	a := &node.BatchArgs{Dt: math.MaxFloat64, Lo: 0, Hi: 2,
		X: node.Strided{Buf: x, Stride: 2}, Dst: node.Strided{Buf: bd, Stride: 2},
		In:      []node.Strided{{Buf: []float64{0, 0}, Stride: 1}, {Buf: []float64{0, 0}, Stride: 1}},
		Present: []bool{false, true}}
	if err := b.Update(a); err != nil || !cmp.Equal(bd, []float64{1.5, 0, -2, 0}) {
		t.Errorf("batch Update(dt = MaxFloat64) = %v, %v; want [1.5 0 -2 0], nil", bd, err)
	}
}

// Update's contact rule is x' < table_position (doc comment of Update): a
// step that ends exactly on the surface is not yet an impact, and the
// ball keeps its velocity; the next step, which would carry it below,
// bounces it. Without gravity or force, from x = 1 m at −1 m/s with
// dt = 1 s and the table at 0: x₁ = 1 + 1·(−1) = 0 exactly, v₁ = −1; then
// x₂ would be −1 < 0, so x₂ = 0 and v₂ = −e·(−1) = 0.8 (e = 0.8, one
// rounded product: exact as written).
func TestContactIsBelowTheSurface(t *testing.T) {
	p := ball.DefaultParams()
	p.Gravity = 0
	n := newBall(t, p)
	x := step(t, n, 0, 1, []float64{1, -1}, onTable(0))
	if x[0] != 0 || x[1] != -1 {
		t.Fatalf("step ending on the surface: %v, want [0 -1] (no impact yet)", x)
	}
	x = step(t, n, 1, 1, x, onTable(0))
	if x[0] != 0 || x[1] != 0.8 {
		t.Errorf("next step: %v, want [0 0.8] (the bounce)", x)
	}
}
