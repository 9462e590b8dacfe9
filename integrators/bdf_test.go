package integrators

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
)

// For constant steps the fixed-leading-coefficient formulas are the
// classical BDF: l holds the coefficients of Π_{i≤q}(1 + x/i), tq[2] is
// 1/((q+1)·l_1), BDF-q's error constant C_{q+1} = 1/2, 2/9, 3/22,
// 12/125, 10/137, and
// tq[1], the estimate of order q − 1, is (q−1)!/Σ_{j<q}1/j relative to
// z_q (BDF-(q−1)'s error constant over z_q = h^q·y^(q)/q!). Tolerance
// 1e-14 relative: a few roundings of short sums.
func TestBDFCoefficientsConstantStep(t *testing.T) {
	errConst := []float64{0, 1.0 / 2, 2.0 / 9, 3.0 / 22, 12.0 / 125, 10.0 / 137}
	for q := 1; q <= bdfMaxOrder; q++ {
		var tau [bdfMaxOrder + 2]float64
		for i := range tau {
			tau[i] = 0.1
		}
		var l [bdfMaxOrder + 1]float64
		var tq [6]float64
		bdfCoefficients(q, 0.1, &tau, true, &l, &tq)
		// Π_{i≤q}(1 + x/i)
		want := []float64{1}
		for i := 1; i <= q; i++ {
			next := make([]float64, len(want)+1)
			for j, c := range want {
				next[j] += c
				next[j+1] += c / float64(i)
			}
			want = next
		}
		for j, w := range want {
			if !numtest.Within(l[j], w, 1e-14*math.Abs(w)) {
				t.Errorf("q = %d: l[%d] = %v, want %v", q, j, l[j], w)
			}
		}
		if !numtest.Within(tq[2], errConst[q], 1e-14) || !numtest.Within(tq[2]*float64(q+1)*l[1], 1, 1e-14) {
			t.Errorf("q = %d: tq2 = %v, want the BDF error constant %v = 1/((q+1)·l1)", q, tq[2], errConst[q])
		}
		if q > 1 {
			s, fact := 0.0, 1.0
			for j := 1; j < q; j++ {
				s += 1 / float64(j)
				fact *= float64(j)
			}
			if w := fact / s; !numtest.Within(tq[1], w, 1e-14*w) {
				t.Errorf("q = %d: tq1 = %v, want %v", q, tq[1], w)
			}
		}
	}
}

// The prediction (a Taylor shift of the Nordsieck polynomial) and its
// retraction are inverse to rounding, and the predicted array is the
// polynomial's scaled derivatives one step later: checked on the
// polynomial p(s) = Σ c_j·s^j, whose shift is computed independently by
// the binomial theorem. Tolerance 1e-13 relative to the largest entry.
func TestNordsieckPredictRetract(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for q := 1; q <= bdfMaxOrder; q++ {
		var z [bdfMaxOrder + 1][]float64
		orig := make([]float64, q+1)
		for j := 0; j <= q; j++ {
			orig[j] = rng.Float64()*2 - 1
			z[j] = []float64{orig[j]}
		}
		nordsieckPredict(&z, q)
		// p(s+1) = Σ_j c_j (s+1)^j: the coefficient of s^k is Σ_{j≥k} C(j,k)·c_j.
		for k := 0; k <= q; k++ {
			w := 0.0
			for j := k; j <= q; j++ {
				w += binom(j, k) * orig[j]
			}
			if !numtest.Within(z[k][0], w, 1e-13*(1+math.Abs(w))) {
				t.Errorf("q = %d: predicted z[%d] = %v, want %v", q, k, z[k][0], w)
			}
		}
		nordsieckRetract(&z, q)
		for j := 0; j <= q; j++ {
			if !numtest.Within(z[j][0], orig[j], 1e-13) {
				t.Errorf("q = %d: retracted z[%d] = %v, want %v", q, j, z[j][0], orig[j])
			}
		}
	}
}

func binom(n, k int) float64 {
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return r
}

// An order decrease keeps the polynomial's values at the q − 1 most
// recent points and its slope at t_n and drops its degree: checked on a
// random polynomial of degree q and random past steps. Tolerance 1e-12.
func TestNordsieckDecrease(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for q := 2; q <= bdfMaxOrder; q++ {
		h := 0.1
		var tau [bdfMaxOrder + 2]float64
		for i := 1; i < len(tau); i++ {
			tau[i] = 0.05 + 0.1*rng.Float64()
		}
		var z [bdfMaxOrder + 1][]float64
		for j := 0; j <= q; j++ {
			z[j] = []float64{rng.Float64()*2 - 1}
		}
		eval := func(z *[bdfMaxOrder + 1][]float64, q int, s float64) float64 {
			d := []float64{0}
			nordsieckEval(z, q, s, d)
			return d[0]
		}
		var before []float64
		sum := 0.0
		for j := 1; j <= q-2; j++ {
			sum += tau[j]
			before = append(before, eval(&z, q, -sum/h))
		}
		slope := z[1][0]
		nordsieckDecrease(&z, q, h, &tau)
		sum = 0
		for j := 1; j <= q-2; j++ {
			sum += tau[j]
			if got := eval(&z, q-1, -sum/h); !numtest.Within(got, before[j-1], 1e-12) {
				t.Errorf("q = %d: value at t_{n−%d} moved from %v to %v", q, j, before[j-1], got)
			}
		}
		if z[1][0] != slope {
			t.Errorf("q = %d: slope moved", q)
		}
	}
}

// BDF on the stiff problems against CVODE (SUNDIALS 6.4, the same
// algorithm, run through benchmarks/peers/cvode_stiff.c with these
// tolerances): the step and work counts agree within a few per cent
// (they are not identical: the order choice after the first steps
// compares corrections at the rounding level, where two codes' roundings
// differ), and the end states agree to the tolerance.
func TestBDFMatchesCVODE(t *testing.T) {
	for _, c := range []struct {
		name          string
		sys           System
		y0            []float64
		end           float64
		rtol, atol    float64
		steps, rhs    int // CVODE's nst and nfe
		ref           []float64
		stepTolerance float64 // relative difference allowed in steps and RHS
	}{
		// cvode_stiff vdpol 1e-6 1e-6: {"steps":1352,"rhs":2030,"jac":28}
		{"van der Pol μ = 1e6", vanDerPol{1e6}, []float64{2, 0}, 2, 1e-6, 1e-6, 1352, 2030, []float64{1.706167732170469, -0.8928097010248125}, 0.15},
		// cvode_stiff rober 1e-6 1e-12: {"steps":1073,"rhs":1455,"jac":20}
		{"Robertson", robertson{}, []float64{1, 0, 0}, 1e11, 1e-6, 1e-12, 1073, 1455, []float64{0.2083340149701255e-7, 0.8333360770334713e-13, 0.9999999791665050}, 0.15},
	} {
		res, err := Integrate(BDF{RTol: c.rtol, ATol: c.atol}, c.sys, 0, c.y0, c.end, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		w := res.Work
		t.Logf("%s: steps %d (CVODE %d), RHS %d (CVODE %d), Jacobians %d, y %v", c.name, w.Steps, c.steps, w.FuncEvals, c.rhs, w.JacEvals, res.Y)
		if r := float64(w.Steps) / float64(c.steps); !numtest.Within(r, 1, c.stepTolerance) {
			t.Errorf("%s: %d steps, CVODE %d", c.name, w.Steps, c.steps)
		}
		if r := float64(w.FuncEvals) / float64(c.rhs); !numtest.Within(r, 1, c.stepTolerance) {
			t.Errorf("%s: %d RHS evaluations, CVODE %d", c.name, w.FuncEvals, c.rhs)
		}
		for i, r := range c.ref {
			// Global error of an error-per-step method: a few hundred
			// times the tolerance over these long stiff runs.
			if e := math.Abs(res.Y[i] - r); !numtest.AtMost(e, 1e3*(c.rtol*math.Abs(r)+c.atol)) {
				t.Errorf("%s: y[%d] = %v, reference %v", c.name, i, res.Y[i], r)
			}
		}
	}
}

// The fixed-step BDF of every order converges at its order on a smooth
// stiff problem (λ = 1e4, so explicit methods would need dt < 2e-4):
// the error at t = 1 drops by 2^q when dt halves, within 0.15. The
// first q − 1 steps are ESDIRK43's.
func TestBDFFixedStepOrders(t *testing.T) {
	sys := linearDecay{lambda: []float64{1, 1e4}}
	y0 := []float64{1, 1} // on the slow manifold: no transient
	for q := 1; q <= bdfMaxOrder; q++ {
		var errs []float64
		for _, n := range []int{40, 80, 160} {
			st, err := NewStepper(BDF{MaxOrder: q}, sys, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := st.Init(0, y0); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < n; i++ {
				if err := st.Step(1.0 / float64(n)); err != nil {
					t.Fatal(err)
				}
			}
			tt, y := st.State()
			want := make([]float64, 2)
			sys.exact(tt, y0, want)
			errs = append(errs, math.Max(math.Abs(y[0]-want[0]), math.Abs(y[1]-want[1])))
		}
		p := math.Log2(errs[1] / errs[2])
		if !numtest.Within(p, float64(q), 0.15) {
			t.Errorf("BDF-%d: observed order %.3f (errors %.3e)", q, p, errs)
		}
	}
}
