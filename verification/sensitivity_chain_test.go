package verification

import (
	"context"
	"fmt"
	"math"
	"math/cmplx"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// The spring-damper chain: N unit masses along x, the first tied to the
// ground at the origin and each to the next by a spring-damper of
// stiffness k and damping c along x (zero rest length), released from
// rest at x(0) = chainX0. With M = m·I, K = k·L and C = c·L for the
// fixed-free chain Laplacian L (tridiagonal 2, −1; last diagonal entry
// 1), the damping is stiffness-proportional, so the modes decouple:
//
//	λ_j = 4·sin²((2j−1)π / (2(2N+1))),  φ_j(n) = sin((2j−1)·n·π/(2N+1)),
//	ω_j = √(k·λ_j/m),  ζ_j = c·ω_j/(2k),  ω_dj = ω_j·√(1−ζ_j²),
//	q_j(t) = q_j(0)·e^{−ζ_j ω_j t}·(cos ω_dj t + ζ_j ω_j/ω_dj · sin ω_dj t),
//	x(t) = Σ_j φ_j·q_j(t),  q_j(0) = φ_j·x(0)/|φ_j|²
//
// (Meirovitch, Fundamentals of Vibrations, ch. 7 and 8.)
const (
	chainN = 3
	chainM = 1.0
)

var chainX0 = [chainN]float64{0.1, 0.25, 0.3}

// chainModal returns x_n(T) and v_n(T) of the chain for stiffness k and
// damping c.
func chainModal(k, c, T float64) (x, v [chainN]float64) {
	for j := 1; j <= chainN; j++ {
		a := float64(2*j-1) * math.Pi / float64(2*chainN+1)
		lam := 4 * math.Pow(math.Sin(a/2), 2)
		var phi [chainN]float64
		var nn, q0 float64
		for n := range chainN {
			phi[n] = math.Sin(a * float64(n+1))
			nn += phi[n] * phi[n]
			q0 += phi[n] * chainX0[n]
		}
		q0 /= nn
		w := math.Sqrt(k * lam / chainM)
		z := c * w / (2 * k)
		wd := w * math.Sqrt(1-z*z)
		e := math.Exp(-z * w * T)
		q := q0 * e * (math.Cos(wd*T) + z*w/wd*math.Sin(wd*T))
		qd := -q0 * e * (w * w / wd) * math.Sin(wd*T)
		for n := range chainN {
			x[n] += phi[n] * q
			v[n] += phi[n] * qd
		}
	}
	return x, v
}

// chainCS is ∂x(T)/∂k of the modal solution by the complex step,
// Im x(k + iη)/η with η = 1e-30: chainModal's arithmetic in complex128,
// exact to rounding (no subtraction), the reference of the order check.
func chainCS(k, c, T float64) (dx [chainN]float64) {
	const eta = 1e-30
	kc := complex(k, eta)
	for j := 1; j <= chainN; j++ {
		a := float64(2*j-1) * math.Pi / float64(2*chainN+1)
		lam := 4 * math.Pow(math.Sin(a/2), 2)
		var phi [chainN]float64
		var nn, q0 float64
		for n := range chainN {
			phi[n] = math.Sin(a * float64(n+1))
			nn += phi[n] * phi[n]
			q0 += phi[n] * chainX0[n]
		}
		q0 /= nn
		w := cmplx.Sqrt(kc * complex(lam/chainM, 0))
		z := complex(c, 0) * w / (2 * kc)
		wd := w * cmplx.Sqrt(1-z*z)
		e := cmplx.Exp(-z * w * complex(T, 0))
		q := complex(q0, 0) * e * (cmplx.Cos(wd*complex(T, 0)) + z*w/wd*cmplx.Sin(wd*complex(T, 0)))
		for n := range chainN {
			dx[n] += phi[n] * imag(q) / eta
		}
	}
	return dx
}

// chainGraph builds the chain with the given k and c.
func chainGraph(t *testing.T, k, c float64) *graph.Sim {
	t.Helper()
	g := graph.New()
	for n := range chainN {
		p := masspoint.DefaultParams()
		p.Mass = chainM
		p.InitialPosition = [3]float64{chainX0[n], 0, 0}
		mp, err := masspoint.New(p)
		if err != nil {
			t.Fatal(err)
		}
		g.Add(fmt.Sprintf("m%d", n), mp)
	}
	for n := range chainN {
		p := springdamper.DefaultParams()
		p.Stiffness = [3]float64{k, 0, 0}
		p.Damping = [3]float64{c, 0, 0}
		prev := ""
		if n > 0 {
			prev = fmt.Sprintf("m%d", n-1)
		}
		if _, err := springdamper.Connect(g, fmt.Sprintf("s%d", n), p, node.BodyAt(prev, [3]float64{}), node.Body(fmt.Sprintf("m%d", n))); err != nil {
			t.Fatal(err)
		}
	}
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// chainStiffnessParams are the x stiffnesses of every connector: the
// modal solution's k is all of them at once, so ∂x/∂k is their sum.
func chainStiffnessParams() []string {
	ps := make([]string, chainN)
	for n := range ps {
		ps[n] = fmt.Sprintf("s%d.stiffness[0]", n)
	}
	return ps
}

// chainStiffnessSens sums ∂/∂s_n.stiffness[0] over the connectors at row
// i for mass n's position and velocity x components.
func chainStiffnessSens(res *graph.Sensitivity, i int) (dx, dv [chainN]float64) {
	for n := range chainN {
		for _, p := range res.Params {
			a, _ := res.At(i, fmt.Sprintf("m%d.position[0]", n), p)
			b, _ := res.At(i, fmt.Sprintf("m%d.velocity[0]", n), p)
			dx[n] += a
			dv[n] += b
		}
	}
	return dx, dv
}

// chainFD is ∂x(T)/∂k and ∂v(T)/∂k of the modal solution by central
// differences with step 1e-4·k: truncation ~1e-8 relative, rounding
// ~1e-12.
func chainFD(k, c, T float64) (dx, dv [chainN]float64) {
	h := 1e-4 * k
	xp, vp := chainModal(k+h, c, T)
	xm, vm := chainModal(k-h, c, T)
	for n := range chainN {
		dx[n] = (xp[n] - xm[n]) / (2 * h)
		dv[n] = (vp[n] - vm[n]) / (2 * h)
	}
	return dx, dv
}

// TestChainStiffnessSensitivity: ∂x(T)/∂k and ∂v(T)/∂k of the damped
// chain from Sim.Sensitivities (adaptive Dormand–Prince, RTol = ATol =
// 1e-11; the stiffness enters through the connectors' outputs, so ∂f/∂p
// is differenced over SetParams) against differences of the modal
// solution. Tolerance 1e-6 of the largest derivative: the modal
// differences are good to ~1e-8, the integration to ~1e-9, the SetParams
// differences to ~1e-10.
func TestChainStiffnessSensitivity(t *testing.T) {
	const k, c, T = 40.0, 0.4, 1.7
	s := chainGraph(t, k, c)
	res, err := s.Sensitivities(context.Background(), chainStiffnessParams(), &graph.SensitivityOptions{
		End: T, Output: []float64{T},
		Mode: graph.MonolithicAdaptive{Method: integrators.DormandPrince{RTol: 1e-11, ATol: 1e-11}},
	})
	if err != nil {
		t.Fatal(err)
	}
	gx, gv := chainStiffnessSens(res, 0)
	wx, wv := chainFD(k, c, T)
	scale := numtest.FiniteScale(t, "the modal differences", wx[:], wv[:])
	for n := range chainN {
		if !numtest.Within(gx[n], wx[n], 1e-6*scale) || !numtest.Within(gv[n], wv[n], 1e-6*scale) {
			t.Errorf("mass %d: ∂x/∂k = %.10g, ∂v/∂k = %.10g; modal %.10g, %.10g", n, gx[n], gv[n], wx[n], wv[n])
		}
	}
	// The state itself is the modal solution.
	mx, _ := chainModal(k, c, T)
	for n := range chainN {
		x, _ := res.Value(0, fmt.Sprintf("m%d.position[0]", n))
		if !numtest.Within(x, mx[n], 1e-8) {
			t.Errorf("mass %d: x = %.12g, modal %.12g", n, x, mx[n])
		}
	}
	t.Logf("∂x/∂k = %.9g (modal %.9g), scale %.3g", gx, wx, scale)
}

// TestSensitivityOrder: a convergence check in the manner of the method
// of manufactured solutions, with the modal solution as the exact one:
// the largest error of the fixed-step sensitivities ∂x(t)/∂k over t =
// 0.2, 0.4, …, 2 with steps dt, dt/2, dt/4 must fall at the method's
// order (observed order log2(e(dt)/e(dt/2)) within 0.3 of the declared
// one): RK4 (4), Heun (2), implicit trapezoid (2, Newton with the block
// Jacobian), and Dormand–Prince 5 at a fixed step through the adaptive
// driver (5; its dense output at the sample times coincides with step
// ends). The maximum over times keeps a lucky zero of the error at
// one instant from faking a higher order. The reference is the
// complex-step derivative of the modal solution (exact to rounding), far
// below the smallest measured error (> 1e-8).
func TestSensitivityOrder(t *testing.T) {
	const k, c, T, every = 40.0, 0.4, 2.0, 0.2
	var ref [][chainN]float64
	for i := 0; i <= 10; i++ {
		ref = append(ref, chainCS(k, c, float64(i)*every))
	}
	if fx, _ := chainFD(k, c, T); !numtest.Within(fx[0], ref[10][0], 1e-6*math.Abs(ref[10][0])) { // the differences' truncation, ~1e-8 of the scale
		t.Fatalf("complex step %v and central differences %v of the modal solution disagree", ref[10][0], fx[0])
	}
	for _, tc := range []struct {
		method string
		dt     float64
	}{
		{integrators.MethodRK4, 0.1},
		{integrators.MethodHeun, 0.02},
		{integrators.MethodImplicitTrapezoid, 0.04},
		{"adaptive dormand-prince, FixedStep", 0.1},
	} {
		m, err := integrators.ByName(tc.method)
		fixedDP := err != nil
		if fixedDP {
			m, _ = integrators.ByName(integrators.MethodDormandPrince)
		}
		var errs []float64
		for _, dt := range []float64{tc.dt, tc.dt / 2, tc.dt / 4} {
			s := chainGraph(t, k, c)
			opts := &graph.SensitivityOptions{End: T, Mode: graph.Monolithic{Method: m}, Dt: dt, RecordEvery: int(math.Round(every / dt))}
			if fixedDP {
				// The adaptive driver at a fixed step (it would locate
				// events, were there any), sampled on its dense output.
				opts = &graph.SensitivityOptions{End: T, Mode: graph.MonolithicAdaptive{Method: integrators.DormandPrince{FixedStep: dt}}}
				for i := range ref {
					opts.Output = append(opts.Output, float64(i)*every)
				}
			}
			res, err := s.Sensitivities(context.Background(), chainStiffnessParams(), opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Times) != len(ref) {
				t.Fatalf("%s dt=%v: %d rows, want %d", tc.method, dt, len(res.Times), len(ref))
			}
			var e float64
			for i := range res.Times {
				if !numtest.Within(res.Times[i], float64(i)*every, 1e-12) {
					t.Fatalf("%s: row %d at %v", tc.method, i, res.Times[i])
				}
				gx, _ := chainStiffnessSens(res, i)
				for n := range chainN {
					e = math.Max(e, math.Abs(gx[n]-ref[i][n])) // NaN if either is: the order check below then fails
				}
			}
			errs = append(errs, e)
		}
		for i := 0; i+1 < len(errs); i++ {
			p := math.Log2(errs[i] / errs[i+1])
			if !numtest.Within(p, float64(m.Order()), 0.3) {
				t.Errorf("%s: observed order %.3f (errors %.3g), declared %d", tc.method, p, errs, m.Order())
			}
		}
		t.Logf("%s: max errors %.3g, observed orders %.2f, %.2f", tc.method, errs, math.Log2(errs[0]/errs[1]), math.Log2(errs[1]/errs[2]))
	}
}
