package integrators

import (
	"errors"
	"fmt"
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
func (l *linSolver) solve(st *Work) bool {
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

// maxAbs is max|x_i|, NaN if any x_i is NaN (math.Max's semantics,
// without its cost on vectors of 10⁶ entries).
func maxAbs(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		if a := math.Abs(v); a > m || a != a {
			m = a
			if a != a {
				return a
			}
		}
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
//
// Its Newton matrix is A = I − dt·θ·∂f/∂y, solved by dense LU or by GMRES
// or the banded LU (newtonLinear); with those and Jacobian rows
// (JacobianRows or SparseJacobian) it is assembled from the rows, storing
// the non-zero entries and the diagonal.
type implicitStepper struct {
	core
	jac   Jacobian
	theta float64
	c     conf

	yn   []float64
	f0   []float64 // f(t_n, y_n), trapezoid only (nil for backward Euler)
	f0OK bool
	f1   []float64
	xp   []float64 // work of the matrix-free product and of differenced Jacobians, or nil
	fp   []float64
	ls   *linSolver // dense LU, or the staging of a dense matrix for GMRES; nil otherwise
	nl   *newtonLinear
	sp   *sparseRows // A from Jacobian rows (GMRES, banded), or nil
	div  divergence

	// the iterate and time of the matrix-free operator
	cur         []float64
	tCur, dtCur float64
}

// sparseRows assembles the Newton matrix A = I − dt·θ·J from the rows of
// J, each row handed to add as the System produces it.
type sparseRows struct {
	pt   JacobianPoint // where A was last assembled
	src  *jacRows
	a    *spMatrix
	c    float64 // −dt·θ of the assembly under way
	err  error   // the first error of the assembly under way
	emit func(int, []int32, []float64)
}

func (r *sparseRows) add(i int, cols []int32, vals []float64) {
	if r.err != nil {
		return
	}
	if r.err = checkRow(r.a.n, i, cols, vals, i >= 0 && i < r.a.n && r.a.wasSeen(i)); r.err == nil {
		r.err = r.a.addScaled(i, cols, vals, r.c, 1)
	}
}

// blocksOf returns the block of every component from sys's Blocked
// capability, or nil. It checks the blocks either way, but builds the
// table (n ints) only when want says the preconditioner reads it.
func blocksOf(sys System, n int, want bool) ([]int, error) {
	b, ok := sys.(Blocked)
	if !ok {
		return nil, nil
	}
	starts := b.Blocks()
	if len(starts) < 1 || starts[0] != 0 || starts[len(starts)-1] != n {
		return nil, fmt.Errorf("integrators: Blocks must start at 0 and end at Dim = %d", n)
	}
	var of []int
	if want {
		of = make([]int, n)
	}
	for k := 0; k+1 < len(starts); k++ {
		if starts[k+1] <= starts[k] {
			return nil, fmt.Errorf("integrators: Blocks must be strictly increasing (block %d)", k)
		}
		if want {
			for i := starts[k]; i < starts[k+1]; i++ {
				of[i] = k
			}
		}
	}
	return of, nil
}

// componentNamer is implemented by Systems that name their components
// (graph.System): error messages use it.
type componentNamer interface{ Component(j int) string }

func newImplicit(m methodInfo, theta float64, sys System, c conf) (*implicitStepper, error) {
	n := sys.Dim()
	s := &implicitStepper{core: newCore(m, sys), c: c, theta: theta, yn: make([]float64, n)}
	if theta != 1 {
		s.f0 = make([]float64, n)
	}
	s.jac, _ = sys.(Jacobian)
	var blockOf []int
	krylov := c.useKrylov(n)
	if krylov {
		if !c.matrixFree || c.pc != PrecondNone {
			src, err := newJacRows(sys, n)
			if err != nil {
				return nil, err
			}
			if src != nil {
				s.sp = &sparseRows{src: src, pt: JacobianPoint{Y: make([]float64, n)}}
				s.sp.emit = s.sp.add
			}
		}
		var err error
		if blockOf, err = blocksOf(sys, n, c.pc == PrecondBlockJacobi); err != nil {
			return nil, err
		}
	}
	if c.matrixFree || s.jac == nil && (!krylov || s.sp == nil) {
		s.xp, s.fp = make([]float64, n), make([]float64, n)
	}
	s.nl = newNewtonLinear(&s.c, n, s.sp != nil, blockOf, s.jv)
	s.ls = s.nl.dense
	if theta == 1 && s.xp == nil {
		// Backward Euler keeps f(x) only to form the residual, which is
		// written over it in place (residualBE): f is evaluated into the
		// residual's buffer. The matrix-free product and differenced
		// Jacobians (xp allocated) need f kept.
		if s.nl.krylv {
			s.f1 = s.nl.b
		} else {
			s.f1 = s.ls.r
		}
	} else {
		s.f1 = make([]float64, n)
	}
	if s.sp != nil {
		s.sp.a = s.nl.A
	}
	s.nl.crossStep = s.sp != nil
	if cn, ok := sys.(componentNamer); ok {
		s.nl.name = cn.Component
	}
	return s, nil
}

// jv is the matrix-free product A·v ≈ v − dt·θ·(f(x + h·v) − f(x))/h at
// the current iterate (LinearOptions.MatrixFree).
func (s *implicitStepper) jv(v, dst []float64) error {
	h := fdDirection(s.cur, v)
	if h == 0 {
		clear(dst)
		return nil
	}
	for i, x := range s.cur {
		s.xp[i] = x + h*v[i]
	}
	if err := s.eval(s.tCur, s.dtCur, s.xp, s.fp); err != nil {
		return err
	}
	c := s.dtCur * s.theta / h
	for i := range dst {
		dst[i] = v[i] - c*(s.fp[i]-s.f1[i])
	}
	return nil
}

// Init implements Stepper.
func (s *implicitStepper) Init(t0 float64, y0 []float64) error {
	s.f0OK = false
	s.nl.valid = false
	return s.core.init0(t0, y0)
}

// Step implements Stepper.
func (s *implicitStepper) Step(dt float64) error {
	if !s.init {
		panic("integrators: Step before Init")
	}
	checkStep(dt)
	err := s.step(dt)
	if se, ok := err.(*StepError); ok && se.Step == 0 {
		se.Step = s.stats.Steps + 1
	}
	return err
}

// denseMatrix writes A = I − dt·θ·∂f/∂y at (t1, x) into ls.jd, from the
// Jacobian capability or forward differences of f.
func (s *implicitStepper) denseMatrix(t1, dt float64, x []float64, it int) error {
	n, th, ls := s.n, s.theta, s.ls
	if s.jac != nil {
		if err := s.jac.Jacobian(t1, x, ls.jd); err != nil {
			return &StepError{Method: s.m.Name, Status: Failure, T: t1, Dt: dt, Index: -1, Err: err}
		}
	} else {
		copy(s.xp, x)
		for j := 0; j < n; j++ {
			h := fdStep(x[j])
			s.xp[j] = x[j] + h
			h = s.xp[j] - x[j]
			if err := s.eval(t1, dt, s.xp, s.fp); err != nil {
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
		return &StepError{Method: s.m.Name, Status: NonFinite, T: t1, Dt: dt, Index: k / n, Iter: it}
	}
	return nil
}

// sparseMatrix assembles A = I − dt·θ·∂f/∂y at (t1, x) into nl.A.
func (s *implicitStepper) sparseMatrix(t1, dt float64, x []float64, it int) error {
	sp := s.sp
	sp.pt.T, sp.pt.Dt = t1, dt
	copy(sp.pt.Y, x)
	sp.a.reset()
	sp.c, sp.err = -dt*s.theta, nil
	if err := sp.src.eval(t1, x, sp.emit); err != nil {
		return &StepError{Method: s.m.Name, Status: Failure, T: t1, Dt: dt, Index: -1, Err: err}
	}
	if sp.err == nil {
		sp.err = sp.a.finish(1, s.n)
	}
	if sp.err != nil {
		return &StepError{Method: s.m.Name, Status: Failure, T: t1, Dt: dt, Index: -1, Err: sp.err}
	}
	if i := sp.a.nonFiniteRow(); i >= 0 {
		return &StepError{Method: s.m.Name, Status: NonFinite, T: t1, Dt: dt, Index: i, Iter: it}
	}
	return nil
}

func (s *implicitStepper) step(dt float64) error {
	nc := s.clk.next(dt)
	t, t1 := s.clk.Now(), nc.Now()
	th := s.theta
	if th != 1 && !s.f0OK {
		if err := s.eval(t, dt, s.y, s.f0); err != nil {
			return err
		}
		s.f0OK = true
	}
	// The predictor is the old state: the iterate is s.y itself until
	// the first update writes x = y + dx (no copy).
	x, cur := s.yn, s.y
	ls, nl := s.ls, s.nl
	// The residual R = x − y_n − dt·(θ·f(x) + (1−θ)·f_n): for GMRES and
	// the banded solver it is written negated, as their right-hand side.
	r, sign := nl.b, -1.0
	if !nl.krylv {
		r, sign = ls.r, 1
	}
	nl.beginStep()
	s.div.reset()
	converged := false
	it := 0
	dxNorm := 0.0
	var dx []float64
	dxScale := 1.0
	for it < s.c.newtonMaxIter {
		it++
		if err := s.eval(t1, dt, cur, s.f1); err != nil {
			s.stats.Rejected++
			return err
		}
		var ss, rmax float64 // Σ R_i², max |R_i|, in the same pass
		if th == 1 {
			ss, rmax = residualBE(r, cur, s.y, s.f1, dt, sign)
		} else {
			ss, rmax = residualTheta(r, cur, s.y, s.f1, s.f0, dt, th, sign)
		}
		rn, ok := normOf(r, ss, rmax)
		if !ok {
			// An iterate or f overflowed: say which component, not
			// "Newton did not converge".
			s.stats.Rejected++
			return &StepError{Method: s.m.Name, Status: NonFinite, T: t1, Dt: dt, Index: firstNonFinite(r), Iter: it}
		}
		nl.lastRes = rn
		if d := s.div.check(rn); d != "" {
			if nl.krylv && nl.stale() {
				// Diverging with an old matrix: assemble a fresh one.
				nl.valid = false
				s.div.reset()
			} else {
				s.stats.Rejected++
				return &StepError{Method: s.m.Name, Status: NewtonFailure, T: t1, Dt: dt, Index: -1, Iter: it, Residual: rn, Detail: d}
			}
		}
		if !nl.krylv {
			// J = I − dt·θ·∂f/∂y, dense LU.
			s.stats.JacEvals++
			if err := s.denseMatrix(t1, dt, cur, it); err != nil {
				s.stats.Rejected++
				return err
			}
			s.stats.NewtonIters++
			if !ls.solve(&s.stats) {
				if i := firstNonFinite(ls.dx); i >= 0 && !ls.singular {
					s.stats.Rejected++
					return &StepError{Method: s.m.Name, Status: NonFinite, T: t1, Dt: dt, Index: i, Iter: it}
				}
				break
			}
			dx = ls.dx
		} else {
			if nl.needMatrix(dt, it, dxNorm) {
				s.stats.JacEvals++
				var err error
				if s.sp != nil {
					err = s.sparseMatrix(t1, dt, cur, it)
				} else if err = s.denseMatrix(t1, dt, cur, it); err == nil {
					if err = nl.fromDense(); err != nil {
						err = &StepError{Method: s.m.Name, Status: Failure, T: t1, Dt: dt, Index: -1, Err: err}
					}
				}
				if err != nil {
					s.stats.Rejected++
					return err
				}
				nl.valid = false
				if err := nl.setupPC(&s.stats); err != nil {
					s.stats.Rejected++
					return nl.linearError(s.m.Name, t1, dt, it, err)
				}
				nl.matrixDone(dt)
			}
			s.stats.NewtonIters++
			s.cur, s.tCur, s.dtCur = cur, t1, dt
			if err := nl.solve(rn, &s.stats); err != nil {
				if nl.stale() {
					// An old matrix or preconditioner: retry the
					// iteration with a fresh one.
					nl.valid = false
					continue
				}
				s.stats.Rejected++
				return nl.linearError(s.m.Name, t1, dt, it, err)
			}
			dxScale, dx = nl.step()
		}
		dmax, xmax := update(x, cur, dxScale, dx)
		cur = x
		if !(dmax-dmax == 0 && xmax-xmax == 0) {
			s.stats.Rejected++
			return &StepError{Method: s.m.Name, Status: NonFinite, T: t1, Dt: dt, Index: firstNonFinite(x), Iter: it}
		}
		nl.prevDx, dxNorm = dxNorm, dmax
		if dmax <= s.c.newtonTol*(1+xmax) {
			converged = true
			break
		}
	}
	if !converged {
		s.stats.Rejected++
		return &StepError{Method: s.m.Name, Status: NewtonFailure, T: t1, Dt: dt, Index: -1, Iter: it, Residual: nl.lastRes,
			Detail: fmt.Sprintf("no convergence within %d iterations (NewtonTol %g)", s.c.newtonMaxIter, s.c.newtonTol)}
	}
	// x is finite: update checked it.
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
	nl.endStep()
	return nil
}

// Checkpoint implements Checkpointer.
func (s *implicitStepper) Checkpoint() StepperState {
	c := StepperState{Method: s.m.Name, Dim: s.n, Clock: s.clk, T: s.clk.Now(), Y: cloneF(s.y), Work: s.stats}
	if s.theta != 1 && s.f0OK {
		c.F = cloneF(s.f0)
	}
	if nl := s.nl; nl.crossStep && nl.valid {
		p := s.sp.pt
		p.Y, p.Age = cloneF(p.Y), nl.age
		c.Jac = &p
	}
	return c
}

// Restore implements Checkpointer.
func (s *implicitStepper) Restore(c StepperState) error {
	if err := c.check(s.m.Name, s.n, true); err != nil {
		return err
	}
	copy(s.y, c.Y)
	s.clk = c.Clock
	s.stats = c.Work
	s.f0OK = false
	if s.theta != 1 && len(c.F) == s.n {
		copy(s.f0, c.F)
		s.f0OK = true
	}
	s.nl.valid = false
	if p := c.Jac; p != nil && s.nl.crossStep {
		// Re-assemble the reused matrix where it was (work not counted:
		// it restores memory, as the uninterrupted run did it earlier).
		if len(p.Y) != s.n {
			return &StateMismatchError{Field: "jacobian point", Want: fmt.Sprint(s.n), Got: fmt.Sprint(len(p.Y))}
		}
		st := s.stats
		err := s.sparseMatrix(p.T, p.Dt, p.Y, 0)
		if err == nil {
			err = s.nl.setupPC(&st)
		}
		if err != nil {
			return fmt.Errorf("integrators: restoring the Newton matrix: %w", err)
		}
		s.nl.matrixDone(p.Dt)
		s.nl.fresh, s.nl.age = false, p.Age
	}
	s.init = true
	return nil
}
