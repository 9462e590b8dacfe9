package integrators

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// extraSystem is a linear second-order system with two extra first-order
// quantities z (the Newmark family's z, integrated by the trapezoidal
// rule), every block coupled to every other:
//
//	q' = v
//	v' = −K·q − Cv·v − Cz·z
//	z' =  P·q +  R·v +  S·z
//
// As a first-order System its state is y = [q0, q1, v0, v1, z0, z1] with
// Pairs (0, 2), (1, 3), and it offers Jacobian and SparseJacobian; as a
// SecondOrder it has Dims (2, 2). Its exact solution is exp(A·t)·y0
// (gonum's mat.Exp, independent of the integrators).
type extraSystem struct{}

var extraA = func() [36]float64 {
	K := [4]float64{4, -1, -1, 3}
	Cv := [4]float64{0.1, 0, 0, 0.2}
	Cz := [4]float64{0.5, 0.2, 0, 0.3}
	P := [4]float64{0.3, 0, 0.1, 0.2}
	R := [4]float64{1, 0.2, 0, 0.5}
	S := [4]float64{-1, 0.3, 0.2, -2}
	var a [36]float64
	for i := 0; i < 2; i++ {
		a[i*6+2+i] = 1
		for j := 0; j < 2; j++ {
			a[(2+i)*6+j] = -K[2*i+j]
			a[(2+i)*6+2+j] = -Cv[2*i+j]
			a[(2+i)*6+4+j] = -Cz[2*i+j]
			a[(4+i)*6+j] = P[2*i+j]
			a[(4+i)*6+2+j] = R[2*i+j]
			a[(4+i)*6+4+j] = S[2*i+j]
		}
	}
	return a
}()

func (extraSystem) Dim() int                { return 6 }
func (extraSystem) Pairs() (pos, vel []int) { return []int{0, 1}, []int{2, 3} }
func (extraSystem) Dims() (int, int)        { return 2, 2 }
func (extraSystem) JacobianPattern() (rp, col []int) {
	rp = []int{0}
	for i := 0; i < 6; i++ {
		for j := 0; j < 6; j++ {
			if extraA[i*6+j] != 0 {
				col = append(col, j)
			}
		}
		rp = append(rp, len(col))
	}
	return rp, col
}
func (s extraSystem) SparseJacobian(_ float64, _, val []float64) error {
	k := 0
	for _, v := range extraA {
		if v != 0 {
			val[k] = v
			k++
		}
	}
	return nil
}
func (extraSystem) Func(_ float64, y, d []float64) error {
	for i := 0; i < 6; i++ {
		s := 0.0
		for j := 0; j < 6; j++ {
			s += extraA[i*6+j] * y[j]
		}
		d[i] = s
	}
	return nil
}
func (extraSystem) Jacobian(_ float64, _, d []float64) error {
	copy(d, extraA[:])
	return nil
}
func (s extraSystem) Accel(t float64, q, v, z, a, zdot []float64) error {
	y := []float64{q[0], q[1], v[0], v[1], z[0], z[1]}
	d := make([]float64, 6)
	s.Func(t, y, d)
	copy(a, d[2:4])
	copy(zdot, d[4:6])
	return nil
}

var extraY0 = []float64{1, -0.5, 0, 0.3, 0.7, -0.2}

// extraExact returns exp(A·t)·y0.
func extraExact(t float64) []float64 {
	a := extraA
	m := mat.NewDense(6, 6, a[:])
	m.Scale(t, m)
	var e mat.Dense
	e.Exp(m)
	var y mat.VecDense
	y.MulVec(&e, mat.NewVecDense(6, append([]float64(nil), extraY0...)))
	return y.RawVector().Data
}

// extraMethods are the Newmark-family methods the tests below run: the
// average-acceleration Newmark (β = ¼, γ = ½, second order) and
// generalized-alpha with ρ∞ = 0.8 (αm, αf ≠ 0, second order).
var extraMethods = []Method{Newmark{Beta: 0.25, Gamma: 0.5}, GeneralizedAlpha{RhoInf: 0.8}}

// TestAlphaExtraQuantitiesConverge: the Newmark family with extra
// first-order quantities z (a first-order System whose state is more than
// its position/velocity pairs) converges to the exact solution exp(A·t)·y0
// at its declared order 2: over [0, 1] with 25, 50, 100 steps the error
// falls by 4 per halving (observed order within [1.8, 2.2]) and is below
// 2e-4 at 100 steps (measured 1.25e-4 for Newmark, 1.31e-4 for
// generalized-alpha: the bound catches a lost order or a wrong constant). Every linear solver (dense LU; GMRES with block-Jacobi, ILU(0),
// none, and matrix-free; banded LU) solves the same Newton system to the
// Newton tolerance, so all agree with dense LU to 1e-8 at every step
// count: a wrong entry in the assembled Newton matrix of any of them (the
// z rows, the coupling between z and q, v) slows or breaks convergence, or
// moves the result.
func TestAlphaExtraQuantitiesConverge(t *testing.T) {
	exact := extraExact(1)
	solvers := []LinearOptions{
		{Solver: LinearDense},
		{Solver: LinearGMRES, KrylovTol: 1e-12, Forcing: ForcingConstant},
		{Solver: LinearGMRES, Preconditioner: PrecondILU0, KrylovTol: 1e-12, Forcing: ForcingConstant},
		{Solver: LinearGMRES, Preconditioner: PrecondNone, KrylovTol: 1e-12, Forcing: ForcingConstant},
		{Solver: LinearGMRES, Preconditioner: PrecondNone, MatrixFree: true, KrylovTol: 1e-12, Forcing: ForcingConstant},
		{Solver: LinearGMRES, MatrixFree: true, KrylovTol: 1e-12, Forcing: ForcingConstant},
		{Solver: LinearBanded},
	}
	newton := NewtonOptions{Tol: 1e-12}
	for _, m0 := range extraMethods {
		var errs []float64
		for _, n := range []int{25, 50, 100} {
			var ref []float64
			for k, l := range solvers {
				m := m0.(NewtonMethod).WithSolver(newton, l).(Method)
				y := runFixed(t, m, extraSystem{}, extraY0, 1, n)
				if k == 0 {
					ref = y
					errs = append(errs, maxDiff(y, exact))
					continue
				}
				if d := maxDiff(y, ref); d > 1e-8 {
					t.Errorf("%s n=%d, solver %+v: differs from dense LU by %.3g", label(m0), n, l, d)
				}
			}
		}
		p := observedOrder(errs)
		t.Logf("%s: errors %.3g, observed order %.3f", label(m0), errs, p)
		if p < 1.8 || p > 2.2 {
			t.Errorf("%s: observed order %.3f, want 2", label(m0), p)
		}
		if errs[2] > 2e-4 {
			t.Errorf("%s: error %.3g at 100 steps", label(m0), errs[2])
		}
	}
}

// TestAlphaSecondOrderExtraQuantities: the same system stepped as a
// SecondOrder (Dims (2, 2), Advance with the carried memory) converges to
// exp(A·t)·y0 at order 2, and gives what the first-order adapter gives
// (the same method on the same unknowns, to the Newton tolerance: 1e-8).
func TestAlphaSecondOrderExtraQuantities(t *testing.T) {
	exact := extraExact(1)
	for _, m := range extraMethods {
		var errs []float64
		for _, n := range []int{25, 50, 100} {
			r, err := m.(SecondOrderMethod).NewSecondOrder(extraSystem{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			st := State{Q: extraY0[0:2], V: extraY0[2:4], Z: extraY0[4:6]}
			var h Memory
			dt := 1 / float64(n)
			for i := 0; i < n; i++ {
				res, err := r.Advance(st, h, dt)
				if err != nil {
					t.Fatal(err)
				}
				h = res.Memory
				st = h.Latest.State
			}
			y := append(append(append([]float64(nil), st.Q...), st.V...), st.Z...)
			errs = append(errs, maxDiff(y, exact))
			fo := runFixed(t, m, extraSystem{}, extraY0, 1, n)
			if d := maxDiff(y, fo); d > 1e-8 {
				t.Errorf("%s n=%d: SecondOrder %v differs from the first-order adapter %v by %.3g", label(m), n, y, fo, d)
			}
		}
		p := observedOrder(errs)
		t.Logf("%s: errors %.3g, observed order %.3f", label(m), errs, p)
		if p < 1.8 || p > 2.2 {
			t.Errorf("%s: observed order %.3f, want 2", label(m), p)
		}
	}
}

// nanExtra is extraSystem whose acceleration (component 0) or extra rate
// (component 0) turns NaN once t ≥ tBad.
type nanExtra struct {
	extraSystem
	tBad float64
	inZ  bool
	comp int // the component made NaN
}

func (s *nanExtra) Accel(t float64, q, v, z, a, zdot []float64) error {
	s.extraSystem.Accel(t, q, v, z, a, zdot)
	if t >= s.tBad {
		if s.inZ {
			zdot[s.comp] = math.NaN()
		} else {
			a[s.comp] = math.NaN()
		}
	}
	return nil
}

// TestAlphaSecondOrderNonFiniteStart: a NaN acceleration or extra rate at
// the initial state (no Memory yet, so Advance evaluates it) is a
// *StepError NonFinite naming the component — i for a[i], nq + i for
// z'[i] (nq = 2), its index among the unknowns [a, z] — and the step
// it happened in, counted from 1 across Advance calls (here the 2nd step:
// the first, from t = 0, starts from a finite state).
func TestAlphaSecondOrderNonFiniteStart(t *testing.T) {
	for _, c := range []struct {
		inZ        bool
		comp, want int
	}{{false, 0, 0}, {false, 1, 1}, {true, 0, 2}, {true, 1, 3}} {
		for _, m := range extraMethods {
			sys := &nanExtra{tBad: 0.05, inZ: c.inZ, comp: c.comp}
			r, err := m.(SecondOrderMethod).NewSecondOrder(sys, nil)
			if err != nil {
				t.Fatal(err)
			}
			st := State{Q: extraY0[0:2], V: extraY0[2:4], Z: extraY0[4:6]}
			res, err := r.Advance(st, Memory{}, 0.01)
			if err != nil {
				t.Fatal(err)
			}
			st = res.Memory.Latest.State
			st.T = 0.1 // restart past tBad without memory: Advance evaluates the start
			_, err = r.Advance(st, Memory{}, 0.01)
			var se *StepError
			if !errors.As(err, &se) || se.Status != NonFinite || se.Index != c.want || se.Step != 2 {
				t.Errorf("%s, NaN in component %d of z' (%v) or a: %v (%+v), want NonFinite at index %d in step 2", label(m), c.comp, c.inZ, err, se, c.want)
			}
		}
	}
}

// TestAlphaSecondOrderClockTime: carrying the Memory, the stepper counts
// time as t0 + N·dt (Clock) instead of summing dt: ten steps of 0.1 from
// 0 end at exactly 1 (10·0.1 rounds to 1), where the running sum
// 0.1 + 0.1 + … is 0.9999999999999999.
func TestAlphaSecondOrderClockTime(t *testing.T) {
	for _, m := range extraMethods {
		st, _, _ := runAlpha(t, m, extraSystem{}, State{Q: extraY0[0:2], V: extraY0[2:4], Z: extraY0[4:6]}, 0.1, 10, false)
		if st.T != 1 {
			t.Errorf("%s: ten steps of 0.1 end at t = %v, want exactly 1", label(m), st.T)
		}
	}
}

// damped2 is q̈ = −K·q − C·v for two coupled masses with a full damping
// matrix C (so ∂a_1/∂v_0 ≠ 0), as a first-order System with a Jacobian:
// y = [q0, q1, v0, v1], Pairs (0, 2), (1, 3), no extra quantities.
type damped2 struct{}

var damped2A = [16]float64{
	0, 0, 1, 0,
	0, 0, 0, 1,
	-4, 1, -0.3, 0.1,
	1, -3, 0.2, -0.4,
}

func (damped2) Dim() int                { return 4 }
func (damped2) Pairs() (pos, vel []int) { return []int{0, 1}, []int{2, 3} }
func (damped2) Func(_ float64, y, d []float64) error {
	for i := 0; i < 4; i++ {
		d[i] = 0
		for j := 0; j < 4; j++ {
			d[i] += damped2A[i*4+j] * y[j]
		}
	}
	return nil
}
func (damped2) Jacobian(_ float64, _, d []float64) error {
	copy(d, damped2A[:])
	return nil
}

// TestAlphaFirstOrderExactNewton: with dense LU and the System's analytic
// Jacobian, the Newton matrix of a linear system is exact, so each step
// converges in one correction: 2 Newton iterations per step (the second
// sees the update below NewtonTol), one Jacobian and one factorization
// per iteration (LinearDense re-forms the matrix at every iteration). A
// wrong entry of the acceleration Jacobian taken from the first-order
// one (∂a/∂q, ∂a/∂v) costs more iterations.
func TestAlphaFirstOrderExactNewton(t *testing.T) {
	for _, m0 := range extraMethods {
		m := m0.(NewtonMethod).WithSolver(NewtonOptions{}, LinearOptions{Solver: LinearDense}).(Method)
		st, err := m.New(damped2{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Init(0, []float64{1, -0.5, 0, 0.3}); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 20; i++ {
			if err := st.Step(0.05); err != nil {
				t.Fatal(err)
			}
		}
		w := st.Work()
		if w.Steps != 20 || w.NewtonIters != 40 || w.JacEvals != 40 || w.Rejected != 0 {
			t.Errorf("%s: %+v, want 20 steps, 40 Newton iterations and 40 Jacobians", label(m0), w)
		}
	}
}

// nanFirst is damped2 whose Func is NaN in component 0 from t ≥ tBad.
type nanFirst struct {
	damped2
	tBad float64
}

func (s nanFirst) Func(t float64, y, d []float64) error {
	s.damped2.Func(t, y, d)
	if t >= s.tBad {
		d[2] = math.NaN()
	}
	return nil
}

// TestAlphaFirstOrderFailures: the first-order Newmark-family stepper
// refuses a NaN in y0[0] at Init (NonFinite, index 0); a step that fails
// is numbered from 1 since Init (StepError.Step) and counted in
// Work.Rejected, the accepted ones in Work.Steps — both when the failure
// is in the first evaluation of the start (tBad = 0: step 1) and inside a
// later step (tBad = 0.12, steps of 0.05: steps 1 and 2 accepted, step 3
// fails).
func TestAlphaFirstOrderFailures(t *testing.T) {
	for _, m := range extraMethods {
		st, err := m.New(damped2{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		err = st.Init(0, []float64{math.NaN(), 0, 0, 0})
		var se *StepError
		if !errors.As(err, &se) || se.Status != NonFinite || se.Index != 0 {
			t.Errorf("%s: Init with y0[0] = NaN: %v, want NonFinite at index 0", label(m), err)
		}
		for _, c := range []struct {
			tBad           float64
			step, accepted int
		}{{0, 1, 0}, {0.12, 3, 2}} {
			st, err := m.New(nanFirst{tBad: c.tBad}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := st.Init(0, []float64{1, -0.5, 0, 0.3}); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 5 && err == nil; i++ {
				err = st.Step(0.05)
			}
			if !errors.As(err, &se) || se.Step != c.step {
				t.Errorf("%s tBad=%v: %v (%+v), want a StepError in step %d", label(m), c.tBad, err, se, c.step)
			}
			if w := st.Work(); w.Steps != c.accepted || w.Rejected != 1 {
				t.Errorf("%s tBad=%v: work %+v, want %d accepted and 1 rejected", label(m), c.tBad, w, c.accepted)
			}
		}
	}
}
