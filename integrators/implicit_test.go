package integrators

import (
	"errors"
	"math"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
)

// spring is ẍ = −k·x as y = [x, v] with an analytic Jacobian.
type spring struct{ k float64 }

func (s spring) Dim() int { return 2 }
func (s spring) Func(t float64, y, dst []float64) error {
	dst[0], dst[1] = y[1], -s.k*y[0]
	return nil
}
func (s spring) Pairs() (pos, vel []int) { return []int{0}, []int{1} }
func (s spring) Jacobian(t float64, y, dst []float64) error {
	dst[0], dst[1], dst[2], dst[3] = 0, 1, -s.k, 0
	return nil
}
func (s spring) energy(y []float64) float64 { return 0.5*y[1]*y[1] + 0.5*s.k*y[0]*y[0] }

// TestStiffSpring: k = 1e4 (ω = 100) at dt = 0.1 (ω·dt = 10) for 1000
// steps. Backward Euler is L-stable, so the energy decays monotonically;
// the trapezoid rule is A-stable with |R(iω dt)| = 1, so the energy is
// kept to rounding (1e-12 relative, 1000 steps of ~1e-16 each), and so
// does Newmark; generalized-alpha (ρ∞ = ½) damps it. RK4 is
// the negative control: its stability interval on the imaginary axis is
// 2√2 < 10, so it blows up.
func TestStiffSpring(t *testing.T) {
	sp := spring{k: 1e4}
	e0 := sp.energy([]float64{1, 0})
	for _, name := range []string{MethodBackwardEuler, MethodImplicitTrapezoid, MethodNewmark, MethodGeneralizedAlpha, MethodRK4} {
		m, _ := ByName(name)
		st, _ := m.New(sp, nil)
		st.Init(0, []float64{1, 0})
		prev := e0
		for i := 0; i < 1000; i++ {
			if err := st.Step(0.1); err != nil {
				if name == MethodRK4 && errors.Is(err, ErrNonFinite) {
					t.Logf("rk4 negative control: %v", err)
					break
				}
				t.Fatal(err)
			}
			_, y := st.State()
			e := sp.energy(y)
			switch name {
			case MethodGeneralizedAlpha:
				// (q, v) energy is not monotone (the carried acceleration is
				// part of the state) but stays bounded.
				if e > 2*e0 {
					t.Fatalf("%s: energy %v at step %d", name, e, i)
				}
			case MethodBackwardEuler:
				if e > prev*(1+1e-12) {
					t.Fatalf("%s: energy grew at step %d: %v > %v", name, i, e, prev)
				}
			case MethodImplicitTrapezoid, MethodNewmark:
				numtest.ExpectWithin(t, name+" relative energy", e/e0, 1, 1e-12)
			}
			prev = e
		}
		_, y := st.State()
		ratio := sp.energy(y) / e0
		t.Logf("%-20s energy ratio after 1000 steps: %.3g (stats %+v)", name, ratio, st.Work())
		if (name == MethodBackwardEuler || name == MethodGeneralizedAlpha) && ratio > 1e-3 {
			t.Errorf("%s: high frequency not damped, energy ratio %v", name, ratio)
		}
		if name == MethodRK4 && !(ratio > 1e100) {
			t.Errorf("rk4 at ω·dt = 10 should blow up, energy ratio %v", ratio)
		}
	}
}

// TestStiffSpringOrder measures the order on the same stiff spring where
// the step resolves the motion (ω·dt from 0.0625 down), the regime in
// which an order statement applies; x(T) = cos(100·T).
func TestStiffSpringOrder(t *testing.T) {
	sp := spring{k: 1e4}
	const T = 0.1
	for _, c := range []struct {
		name string
		n    int
	}{{MethodBackwardEuler, 3200}, {MethodImplicitTrapezoid, 160}} {
		m, _ := ByName(c.name)
		var errs []float64
		for k := 0; k < 3; k++ {
			y := runFixed(t, m, sp, []float64{1, 0}, T, c.n<<k)
			errs = append(errs, math.Hypot(y[0]-math.Cos(100*T), (y[1]+100*math.Sin(100*T))/100))
		}
		p := observedOrder(errs)
		t.Logf("%s errors %.3e → order %.3f", c.name, errs, p)
		numtest.ExpectWithin(t, c.name+" stiff order", p, float64(m.Order()), 0.1)
	}
}

// TestNewtonFailure: with one Newton iteration allowed the convergence
// test (which needs a second, small increment) cannot pass; the step
// fails with NewtonFailure and the accepted state, time and carried
// derivative are untouched.
func TestNewtonFailure(t *testing.T) {
	for _, name := range []string{MethodBackwardEuler, MethodImplicitTrapezoid, MethodNewmark, MethodGeneralizedAlpha} {
		m, _ := ByName(name)
		st, _ := newS(m, spring{k: 4}, &settings{NewtonMaxIter: 1})
		ok, _ := m.New(spring{k: 4}, nil)
		st.Init(0, []float64{1, 0})
		ok.Init(0, []float64{1, 0})
		err := st.Step(0.1)
		var se *StepError
		if !errors.Is(err, ErrNewton) || !errors.As(err, &se) || se.Status != NewtonFailure || se.Iter != 1 || se.T != 0.1 {
			t.Fatalf("%s: err %v", name, err)
		}
		if tt, y := st.State(); tt != 0 || y[0] != 1 || y[1] != 0 {
			t.Errorf("%s: state changed by a failed trial: %v %v", name, tt, y)
		}
		if st.Work().Rejected != 1 || st.Work().Steps != 0 {
			t.Errorf("%s: stats %+v", name, st.Work())
		}
		// The same stepper recovers with a smaller problem? Restore the
		// checkpoint into a default stepper: it continues exactly like one
		// that never failed.
		cp := st.(Checkpointer).Checkpoint()
		fresh, _ := m.New(spring{k: 4}, nil)
		fresh.(Checkpointer).Restore(cp)
		fresh.Step(0.1)
		ok.Step(0.1)
		_, y1 := fresh.State()
		_, y2 := ok.State()
		if y1[0] != y2[0] || y1[1] != y2[1] {
			t.Errorf("%s: after a failed trial %v, never failed %v", name, y1, y2)
		}
	}
}

// TestFiniteDifferenceJacobian: without a Jacobian the implicit methods
// use forward differences and reach the same solution to the Newton
// tolerance, at the cost of Dim extra evaluations per iteration.
func TestFiniteDifferenceJacobian(t *testing.T) {
	cubic := func(jac bool) System {
		f := SystemFunc{N: 2, F: func(tt float64, y, dst []float64) error {
			dst[0] = y[1]
			dst[1] = -50*y[0] - 50*y[0]*y[0]*y[0] - 0.1*y[1]
			return nil
		}}
		if !jac {
			return f
		}
		return jacFunc{f, func(tt float64, y, dst []float64) error {
			dst[0], dst[1] = 0, 1
			dst[2], dst[3] = -50-150*y[0]*y[0], -0.1
			return nil
		}}
	}
	for _, name := range []string{MethodBackwardEuler, MethodImplicitTrapezoid} {
		m, _ := ByName(name)
		var ys [2][]float64
		var stats [2]Work
		for i, jac := range []bool{true, false} {
			st, _ := m.New(cubic(jac), nil)
			st.Init(0, []float64{1, 0})
			for k := 0; k < 50; k++ {
				if err := st.Step(0.02); err != nil {
					t.Fatal(err)
				}
			}
			_, y := st.State()
			ys[i] = append([]float64(nil), y...)
			stats[i] = st.Work()
		}
		// Both solve the same equations to NewtonTol = 1e-10 relative;
		// 50 steps accumulate at most ~1e-8.
		numtest.ExpectWithin(t, name+" x analytic vs FD Jacobian", ys[1][0], ys[0][0], 1e-8)
		numtest.ExpectWithin(t, name+" v analytic vs FD Jacobian", ys[1][1], ys[0][1], 1e-8)
		if stats[0].NewtonIters < 2*stats[0].Steps || stats[1].FuncEvals <= stats[0].FuncEvals {
			t.Errorf("%s: stats analytic %+v, FD %+v", name, stats[0], stats[1])
		}
		t.Logf("%s: analytic %+v", name, stats[0])
		t.Logf("%s: FD       %+v", name, stats[1])
	}
}

// jacFunc adds a Jacobian to a Func. (Func cannot be embedded: its
// field name would shadow its Func method.)
type jacFunc struct {
	f SystemFunc
	J func(t float64, y, dst []float64) error
}

func (j jacFunc) Dim() int                               { return j.f.N }
func (j jacFunc) Func(t float64, y, dst []float64) error { return j.f.F(t, y, dst) }

func (j jacFunc) Jacobian(t float64, y, dst []float64) error { return j.J(t, y, dst) }
