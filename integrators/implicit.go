package integrators

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"
)

// linSolver is a dense LU solve of J·dx = −r with work storage allocated
// once.
type linSolver struct {
	n   int
	jd  []float64
	J   *mat.Dense
	lu  mat.LU
	rv  *mat.VecDense
	dxv *mat.VecDense
	r   []float64
	dx  []float64
	// singular is set by solve when the matrix was singular (as opposed
	// to a non-finite update from finite-looking data).
	singular bool
}

func newLinSolver(n int) *linSolver {
	l := &linSolver{n: n, jd: make([]float64, n*n), r: make([]float64, n), dx: make([]float64, n)}
	if n > 0 {
		l.J = mat.NewDense(n, n, l.jd)
		l.rv = mat.NewVecDense(n, l.r)
		l.dxv = mat.NewVecDense(n, l.dx)
	}
	return l
}

// solve factorizes J (in jd) and writes dx = −J⁻¹·r. It reports false for
// a singular matrix.
func (l *linSolver) solve(st *Stats) bool {
	if l.n == 0 {
		return true
	}
	l.lu.Factorize(l.J)
	st.Factorize++
	for i := range l.r {
		l.r[i] = -l.r[i]
	}
	err := l.lu.SolveVecTo(l.dxv, false, l.rv)
	st.LinearSolves++
	var c mat.Condition
	l.singular = errors.As(err, &c) && math.IsInf(float64(c), 1)
	if l.singular {
		return false
	}
	return firstNonFinite(l.dx) < 0
}

func maxAbs(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	return m
}

// fdStep is the forward-difference increment for a component of size x.
func fdStep(x float64) float64 {
	return math.Sqrt(0x1p-52) * math.Max(1, math.Abs(x))
}

// implicitStepper implements backward Euler (θ = 1) and the implicit
// trapezoid rule (θ = ½):
//
//	y_{n+1} = y_n + dt·((1−θ)·f(t_n, y_n) + θ·f(t_{n+1}, y_{n+1}))
type implicitStepper struct {
	core
	jac   Jacobian
	theta float64
	c     conf

	yn   []float64
	f0   []float64 // f(t_n, y_n), trapezoid only
	f0OK bool
	f1   []float64
	xp   []float64
	fp   []float64
	ls   *linSolver
}

func newImplicit(m Method, sys System, c conf) *implicitStepper {
	n := sys.Dim()
	s := &implicitStepper{core: newCore(m, sys), c: c, theta: 1,
		yn: make([]float64, n), f0: make([]float64, n), f1: make([]float64, n),
		xp: make([]float64, n), fp: make([]float64, n), ls: newLinSolver(n)}
	if m.Name == MethodImplicitTrapezoid {
		s.theta = 0.5
	}
	s.jac, _ = sys.(Jacobian)
	return s
}

// Init implements Stepper.
func (s *implicitStepper) Init(t0 float64, y0 []float64) error {
	s.f0OK = false
	return s.core.init0(t0, y0)
}

// Step implements Stepper.
func (s *implicitStepper) Step(dt float64) error {
	if !s.init {
		panic("integrators: Step before Init")
	}
	checkStep(dt)
	nc := s.clk.next(dt)
	t, t1 := s.clk.Now(), nc.Now()
	n, th := s.n, s.theta
	if th != 1 && !s.f0OK {
		if err := s.eval(t, dt, s.y, s.f0); err != nil {
			return err
		}
		s.f0OK = true
	}
	x := s.yn
	copy(x, s.y) // predictor: the old state
	ls := s.ls
	converged := false
	it := 0
	for it < s.c.newtonMaxIter {
		it++
		if err := s.eval(t1, dt, x, s.f1); err != nil {
			s.stats.Rejected++
			return err
		}
		for i := range ls.r {
			r := x[i] - s.y[i] - dt*th*s.f1[i]
			if th != 1 {
				r -= dt * (1 - th) * s.f0[i]
			}
			ls.r[i] = r
		}
		if i := firstNonFinite(ls.r); i >= 0 {
			// An iterate or f overflowed: say which component, not
			// "Newton did not converge".
			s.stats.Rejected++
			return &StepError{Method: s.m.Name, Status: NonFinite, T: t1, Dt: dt, Index: i, Iter: it}
		}
		// J = I − dt·θ·∂f/∂y
		s.stats.JacEvals++
		if s.jac != nil {
			if err := s.jac.Jacobian(t1, x, ls.jd); err != nil {
				s.stats.Rejected++
				return &StepError{Method: s.m.Name, Status: Failure, T: t1, Dt: dt, Index: -1, Err: err}
			}
		} else {
			copy(s.xp, x)
			for j := 0; j < n; j++ {
				h := fdStep(x[j])
				s.xp[j] = x[j] + h
				h = s.xp[j] - x[j]
				if err := s.eval(t1, dt, s.xp, s.fp); err != nil {
					s.stats.Rejected++
					return err
				}
				s.xp[j] = x[j]
				for i := 0; i < n; i++ {
					ls.jd[i*n+j] = (s.fp[i] - s.f1[i]) / h
				}
			}
		}
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				ls.jd[i*n+j] *= -dt * th
			}
			ls.jd[i*n+i]++
		}
		if k := firstNonFinite(ls.jd); k >= 0 {
			s.stats.Rejected++
			return &StepError{Method: s.m.Name, Status: NonFinite, T: t1, Dt: dt, Index: k / n, Iter: it}
		}
		s.stats.NewtonIters++
		if !ls.solve(&s.stats) {
			if i := firstNonFinite(ls.dx); i >= 0 && !ls.singular {
				s.stats.Rejected++
				return &StepError{Method: s.m.Name, Status: NonFinite, T: t1, Dt: dt, Index: i, Iter: it}
			}
			break
		}
		for i := range x {
			x[i] += ls.dx[i]
		}
		if i := firstNonFinite(x); i >= 0 {
			s.stats.Rejected++
			return &StepError{Method: s.m.Name, Status: NonFinite, T: t1, Dt: dt, Index: i, Iter: it}
		}
		if maxAbs(ls.dx) <= s.c.newtonTol*(1+maxAbs(x)) {
			converged = true
			break
		}
	}
	if !converged {
		s.stats.Rejected++
		return &StepError{Method: s.m.Name, Status: NewtonFailure, T: t1, Dt: dt, Index: -1, Iter: it}
	}
	if i := firstNonFinite(x); i >= 0 {
		s.stats.Rejected++
		return &StepError{Method: s.m.Name, Status: NonFinite, T: t1, Dt: dt, Index: i}
	}
	if th != 1 {
		// f at the new state, carried to the next step.
		if err := s.eval(t1, dt, x, s.f1); err != nil {
			s.stats.Rejected++
			return err
		}
		s.f0, s.f1 = s.f1, s.f0
	}
	s.y, s.yn = x, s.y
	s.clk = nc
	s.stats.Steps++
	return nil
}

// Checkpoint implements Checkpointer.
func (s *implicitStepper) Checkpoint() Checkpoint {
	c := Checkpoint{Method: s.m.Name, Dim: s.n, Clock: s.clk, T: s.clk.Now(), Y: cloneF(s.y), Stats: s.stats}
	if s.theta != 1 && s.f0OK {
		c.F = cloneF(s.f0)
	}
	return c
}

// Restore implements Checkpointer.
func (s *implicitStepper) Restore(c Checkpoint) error {
	if err := c.check(s.m.Name, s.n, true); err != nil {
		return err
	}
	copy(s.y, c.Y)
	s.clk = c.Clock
	s.stats = c.Stats
	s.f0OK = false
	if s.theta != 1 && len(c.F) == s.n {
		copy(s.f0, c.F)
		s.f0OK = true
	}
	s.init = true
	return nil
}
