package integrators

import (
	"errors"
	"fmt"
	"math"
)

// stageSolver solves the implicit equations of the adaptive implicit
// methods (an ESDIRK stage, the BDF corrector), all of the form
//
//	G(z) = z − ψ − c·f(t, z) = 0,   c = γ·h,
//
// by a simplified Newton iteration with the matrix M = I − c_M·J, where J
// is the Jacobian at a recent point and c_M the value of c when M was
// last factored. Like CVODE (Hindmarsh et al., ACM TOMS 31, 363–396,
// 2005, §3), it keeps J across steps and re-evaluates it only when asked
// (it is too old, or Newton failed with an old one), and keeps the
// factorization while c changes by at most 30 % (a dense or banded
// solve with the old c then scales its correction by 2/(1 + c/c_M), the
// factor that is exact for both very stiff and non-stiff components'
// mean). GMRES applies M at the current c (assembled from J, or matrix
// free) and only its preconditioner is kept.
//
// Every linear solver of the fixed-step implicit methods is available
// (LinearOptions): dense LU, banded LU, and GMRES with block-Jacobi,
// ILU(0) or no preconditioner, assembled or matrix-free. The banded LU
// and GMRES work on newtonLinear's sparse matrix A: a Jacobian
// evaluation assembles J into A (from the System's Jacobian rows, or
// from the dense J's non-zeros), storing its non-zeros and the diagonal,
// and keeps J's values (jval); M = I − c·J is then written over the same
// structure for any c (formA) without re-assembling.
// Everything is allocated at construction; a solve allocates nothing.
type stageSolver struct {
	method string
	sys    System
	n      int
	c      *conf
	stats  *Work
	name   func(int) string // component names for errors, or nil

	krylov bool      // banded LU or GMRES through newtonLinear; dense LU otherwise
	mfOnly bool      // matrix-free GMRES without a preconditioner: no Jacobian at all
	jac    Jacobian  // the System's dense Jacobian, or nil (finite differences)
	src    *jacRows  // the System's Jacobian rows (JacobianRows or SparseJacobian; krylov only), or nil
	jd     []float64 // dense J (dense solver; krylov path without Jacobian rows: staging of J)
	jval   []float64 // krylov: J's values over the stored entries of A (A = I − c·J shares its structure)
	jErr   error     // the first error of the row assembly under way
	emit   func(int, []int32, []float64)
	nl     *newtonLinear // banded LU or GMRES
	lu     []float64     // dense solver: M = I − c·J factored in place (row-major)
	piv    []int         // and its pivots
	fdY    []float64     // finite-difference and matrix-free scratch
	fdF    []float64     // f at the perturbed point
	mfX    []float64     // the current iterate (matrix-free product)
	mfF    []float64     // f at the current iterate
	mfT    float64       // its time
	mfC    float64       // c of the current iteration
	fy     []float64     // f at the Jacobian's point (finite differences)
	fz     []float64     // f at the current iterate
	z      []float64     // the current iterate p + e
	r      []float64     // residual
	dx     []float64     // Newton update
	banded bool          // the krylov path is banded LU (exact solves: stale c is scaled)
	// fixedTol > 0 replaces the error-weighted convergence test by the
	// fixed-step methods' max|Δz| ≤ fixedTol·(1 + max|z|).
	fixedTol float64

	// state of the Jacobian and of M
	jT    float64   // where J was evaluated: time
	jY    []float64 // and state
	haveJ bool      // J holds a Jacobian
	jCur  bool      // J was evaluated for the current step attempt
	jAge  int       // accepted steps since J was evaluated
	haveM bool      // M (dense/banded) or the preconditioner is set up
	cM    float64   // c of M or of the preconditioner
	cA    float64   // c of the assembled GMRES operator A
	mAge  int       // accepted steps since M was set up

	lastKrylov int // GMRES iterations of the last solve
	// the GMRES solve scaled by the error weights
	wsc, wtmp []float64
	sop       func(v, dst []float64) error
	spc       scaledPC

	// last iteration, for error messages
	lastRes  float64 // ‖G(z)‖₂ at the last iterate
	lastIter int
	lastFail string // why the last solve failed
	lastErr  error  // the linear solver's error, if that was the cause
}

// jacMaxAgeAdaptive is the default of LinearOptions.JacobianMaxAge for the
// adaptive implicit methods: CVODE's MSBJ (51), rounded. Evaluating a
// Jacobian is the most expensive operation on a graph, and J is only
// needed for Newton's convergence, never for accuracy.
const jacMaxAgeAdaptive = 50

// setupMaxAge bounds the accepted steps a factorization (or
// preconditioner) is kept: CVODE's MSBP.
const setupMaxAge = 20

// setupGammaRatio is the relative change of c that forces a new
// factorization: CVODE's DGMAX.
const setupGammaRatio = 0.3

func newStageSolver(method string, sys System, c *conf, stats *Work) (*stageSolver, error) {
	n := sys.Dim()
	s := &stageSolver{method: method, sys: sys, n: n, c: c, stats: stats,
		fdY: make([]float64, n), fdF: make([]float64, n), r: make([]float64, n), fz: make([]float64, n), z: make([]float64, n),
		jY: make([]float64, n)}
	s.jac, _ = sys.(Jacobian)
	if cn, ok := sys.(componentNamer); ok {
		s.name = cn.Component
	}
	if !c.useKrylov(n) {
		s.lu, s.piv = make([]float64, n*n), make([]int, n)
		s.jd = make([]float64, n*n)
		s.dx = make([]float64, n)
		if s.jac == nil {
			s.fy = make([]float64, n)
		}
		return s, nil
	}
	s.krylov = true
	s.banded = c.lin == LinearBanded
	s.mfOnly = !s.banded && c.matrixFree && c.pc == PrecondNone
	if !s.mfOnly {
		var err error
		if s.src, err = newJacRows(sys, n); err != nil {
			return nil, err
		}
		s.emit = s.addRow
	}
	blockOf, err := blocksOf(sys, n, c.pc == PrecondBlockJacobi)
	if err != nil {
		return nil, err
	}
	if s.src == nil && !s.mfOnly {
		s.jd = make([]float64, n*n)
		if s.jac == nil {
			s.fy = make([]float64, n)
		}
	}
	if c.matrixFree {
		s.mfX, s.mfF = make([]float64, n), s.fz
	}
	// The stage solver assembles A itself (formA, from J's rows or from
	// the dense J), so newtonLinear stages no dense matrix of its own.
	s.nl = newNewtonLinear(c, n, true, blockOf, s.jv)
	s.nl.name = s.name
	if s.banded {
		s.dx = s.nl.dx // the banded solve's result, in place
	} else {
		s.dx = make([]float64, n)
		s.wsc, s.wtmp = make([]float64, n), make([]float64, n)
		s.sop = s.scaledOp
		s.spc = scaledPC{s: s, tmp: make([]float64, n)}
	}
	return s, nil
}

// eval evaluates f, counting it.
func (s *stageSolver) eval(t float64, y, dst []float64) error {
	s.stats.FuncEvals++
	if err := s.sys.Func(t, y, dst); err != nil {
		return &StepError{Method: s.method, Status: Failure, T: t, Index: -1, Err: err}
	}
	return nil
}

// jv is the matrix-free product M·v ≈ v − c·(f(x + δ·v) − f(x))/δ at
// the current iterate (LinearOptions.MatrixFree).
func (s *stageSolver) jv(v, dst []float64) error {
	d := fdDirection(s.mfX, v)
	if d == 0 {
		clear(dst)
		return nil
	}
	for i, x := range s.mfX {
		s.fdY[i] = x + d*v[i]
	}
	if err := s.eval(s.mfT, s.fdY, s.fdF); err != nil {
		return err
	}
	k := s.mfC / d
	for i := range dst {
		dst[i] = v[i] - k*(s.fdF[i]-s.mfF[i])
	}
	return nil
}

// needJacobian reports whether the Jacobian should be evaluated before
// a solve with c: there is none, it is older than JacobianMaxAge steps,
// or force (Newton failed with an old one) — unless c moved by 20 % or
// more since M was factored, when the failure is put down to the old c
// and M is only factored again (CVODE's rule, DGMAX of its linear
// solver interface).
func (s *stageSolver) needJacobian(c float64, force bool) bool {
	if s.mfOnly {
		return false
	}
	if !s.haveJ || s.jAge >= s.c.jacMaxAge {
		return true
	}
	return force && !s.jCur && (!s.haveM || math.Abs(c/s.cM-1) < 0.2)
}

// needSetup reports whether M must be set up again for c: none yet, M
// is setupMaxAge steps old, force, or c changed by more than
// setupGammaRatio — for GMRES only when the last solve also needed more
// than krylovSlow iterations: GMRES applies M at the current c, so an
// old preconditioner costs iterations, not accuracy, and is kept while
// it costs few (a preconditioner set-up, an ILU(0) or block
// factorization, costs far more than an iteration).
func (s *stageSolver) needSetup(c float64, force bool) bool {
	if s.mfOnly {
		return false
	}
	if !s.haveM || force || s.mAge >= setupMaxAge {
		return true
	}
	moved := math.Abs(c/s.cM-1) > setupGammaRatio
	if s.krylov && !s.banded {
		return moved && s.lastKrylov > krylovSlow
	}
	return moved
}

// krylovSlow is the number of GMRES iterations of a solve above which an
// old preconditioner is set up again when c has moved.
const krylovSlow = 5

// evalJacobian evaluates J at (t, y), where f(t, y) = fy (used by finite
// differences); h is the step size, for errors.
func (s *stageSolver) evalJacobian(t, h float64, y, fy []float64) error {
	if s.mfOnly {
		return nil
	}
	s.stats.JacEvals++
	s.haveJ, s.jCur, s.jAge = false, true, 0
	s.haveM = false
	s.jT = t
	copy(s.jY, y)
	switch {
	case s.src != nil:
		// J's rows straight into A's structure: its non-zeros and the
		// diagonal (assembleJ).
		A := s.nl.A
		A.reset()
		s.jErr = nil
		if err := s.src.eval(t, y, s.emit); err != nil {
			return &StepError{Method: s.method, Status: Failure, T: t, Dt: h, Index: -1, Err: err, Detail: "evaluating the sparse Jacobian"}
		}
		if err := s.assembleJ(); err != nil {
			return &StepError{Method: s.method, Status: Failure, T: t, Dt: h, Index: -1, Err: err, Detail: "assembling the sparse Jacobian"}
		}
		if i := A.nonFiniteRow(); i >= 0 {
			return &StepError{Method: s.method, Status: NonFinite, T: t, Dt: h, Index: i, Detail: "in the Jacobian"}
		}
	case s.jac != nil:
		if err := s.jac.Jacobian(t, y, s.jd); err != nil {
			return &StepError{Method: s.method, Status: Failure, T: t, Dt: h, Index: -1, Err: err, Detail: "evaluating the Jacobian"}
		}
		if k := firstNonFinite(s.jd); k >= 0 {
			return &StepError{Method: s.method, Status: NonFinite, T: t, Dt: h, Index: k / s.n, Detail: "in the Jacobian"}
		}
	default:
		// Forward differences, one column per evaluation of f.
		n := s.n
		copy(s.fdY, y)
		for j := 0; j < n; j++ {
			h := fdStep(y[j])
			s.fdY[j] = y[j] + h
			h = s.fdY[j] - y[j]
			if err := s.eval(t, s.fdY, s.fdF); err != nil {
				return err
			}
			s.fdY[j] = y[j]
			for i := 0; i < n; i++ {
				s.jd[i*n+j] = (s.fdF[i] - fy[i]) / h
			}
		}
		if k := firstNonFinite(s.jd); k >= 0 {
			return &StepError{Method: s.method, Status: NonFinite, T: t, Dt: h, Index: k / n, Detail: "in the finite-difference Jacobian"}
		}
	}
	if s.krylov && s.src == nil {
		// A dense J (the System's or differenced) for GMRES or the band
		// solver: its non-zeros and the diagonal into A's structure.
		A, n := s.nl.A, s.n
		A.reset()
		for i := 0; i < n; i++ {
			if err := A.addDense(i, s.jd[i*n:(i+1)*n]); err != nil {
				return &StepError{Method: s.method, Status: Failure, T: t, Dt: h, Index: -1, Err: err, Detail: "assembling the Jacobian"}
			}
		}
		s.keepJ()
	}
	s.haveJ = true
	return nil
}

// addRow takes row i of J from the System (jacRows.eval): checked, its
// non-zero entries and the diagonal appended to A.
func (s *stageSolver) addRow(i int, cols []int32, vals []float64) {
	if s.jErr != nil {
		return
	}
	A := s.nl.A
	if s.jErr = checkRow(A.n, i, cols, vals, i >= 0 && i < A.n && A.wasSeen(i)); s.jErr == nil {
		s.jErr = A.addScaled(i, cols, vals, 1, 0)
	}
}

// assembleJ ends the row assembly of J into A (rows not given are zero)
// and keeps J's values.
func (s *stageSolver) assembleJ() error {
	if s.jErr != nil {
		return s.jErr
	}
	if err := s.nl.A.finish(0, s.n); err != nil {
		return err
	}
	s.keepJ()
	return nil
}

// keepJ copies J's values, assembled into A, into jval: A's structure
// is J's until the next evaluation, and formA writes A = I − c·J over it
// for any c.
func (s *stageSolver) keepJ() {
	A := s.nl.A
	if cap(s.jval) < len(A.val) {
		s.jval = make([]float64, len(A.val), cap(A.val))
	}
	s.jval = s.jval[:len(A.val)]
	copy(s.jval, A.val)
	s.cA = math.NaN() // A holds J, not M: formA before any use
}

// formA writes M = I − c·J into the sparse matrix of newtonLinear, over
// J's stored entries (its non-zeros and the diagonal): one pass over the
// values.
func (s *stageSolver) formA(c float64) {
	A := s.nl.A
	val := A.val[:len(s.jval)]
	for k, v := range s.jval {
		val[k] = -c * v
	}
	for _, d := range A.diag {
		val[d]++
	}
	s.cA = c
}

// setup forms M = I − c·J from the current Jacobian and factors it (or
// sets up GMRES's preconditioner). A singular factorization is a
// *StepError with Status LinearFailure.
func (s *stageSolver) setup(t, h, c float64) error {
	if s.mfOnly {
		return nil
	}
	s.haveM = false
	if !s.krylov {
		// Dense LU with partial pivoting, in place (denseLU: no
		// allocation, unlike gonum's LU, whose condition estimate takes
		// work space from a pool).
		n := s.n
		for k, v := range s.jd {
			s.lu[k] = -c * v
		}
		for i := 0; i < n; i++ {
			s.lu[i*n+i]++
		}
		if n > 0 {
			s.stats.Factorize++
			if !denseLU(s.lu, s.piv, n) {
				return &StepError{Method: s.method, Status: LinearFailure, T: t, Dt: h, Index: -1,
					Detail: "the Newton matrix I − γh·J is singular"}
			}
		}
	} else {
		s.formA(c)
		if err := s.nl.setupPC(s.stats); err != nil {
			return s.nl.linearError(s.method, t, h, 0, err)
		}
	}
	s.haveM, s.cM, s.mAge = true, c, 0
	return nil
}

// solve writes dx with M·dx = −r for the current c into s.dx; w and tol
// are the Newton iteration's weights and tolerance (GMRES's stopping
// test derives from them).
func (s *stageSolver) solve(t, h, c float64, r, w []float64, tol float64) error {
	if !s.krylov {
		for i, v := range r {
			s.dx[i] = -v
		}
		denseLUSolve(s.lu, s.piv, s.n, s.dx)
		s.stats.LinearSolves++
		s.scaleStale(c)
		return nil
	}
	nl := s.nl
	if s.banded {
		for i, v := range r {
			nl.b[i] = -v
		}
		if err := nl.solve(s.lastRes, s.stats); err != nil { // an exact banded solve into nl.dx = s.dx
			return nl.linearError(s.method, t, h, s.lastIter, err)
		}
		s.scaleStale(c)
		return nil
	}
	if !s.c.matrixFree && s.cA != c {
		s.formA(c) // GMRES applies M at the current c; only the preconditioner is old
	}
	s.mfC = c
	if err := s.gmres(r, w, tol); err != nil {
		return nl.linearError(s.method, t, h, s.lastIter, err)
	}
	return nil
}

// gmresLinTol is the linear solver's share of the Newton tolerance: a
// GMRES solve stops when its residual is at most 0.05 of it in the
// weighted RMS norm (CVODE's default, Hindmarsh et al. 2005, §2.1).
const gmresLinTol = 0.05

// gmres solves M·dx = −r with GMRES into s.dx. Like CVODE's scaled
// GMRES, it solves the system scaled by the error weights,
// (W·M·W⁻¹)·(W·dx) = −W·r with W = diag(w)/√n, so that the 2-norm GMRES
// minimizes is the weighted RMS norm of the error test; with
// Eisenstat–Walker forcing (the default) it stops when that residual is
// at most gmresLinTol·tol (the Newton iteration of an error-controlled
// method needs its corrections accurate relative to the tolerance, not
// to the residual), a relative tolerance bounded to [KrylovTol, 0.9];
// with ForcingConstant, or the fixed-step Newton test, the relative
// tolerance is KrylovTol. A solve that stops short of it but reduced
// the residual by at least a factor 0.9 is still an inexact Newton step
// and accepted; a breakdown is not.
func (s *stageSolver) gmres(r, w []float64, tol float64) error {
	nl := s.nl
	sc := s.wsc
	k := 1 / math.Sqrt(float64(max(s.n, 1)))
	for i, v := range r {
		sc[i] = w[i] * k
		nl.b[i] = -v * sc[i]
	}
	eta := s.c.krylovTol
	bn := -1.0 // ‖b‖₂ when computed here, for GMRES
	if s.c.forcing == ForcingEisenstatWalker && s.fixedTol == 0 {
		if bn = norm2(nl.b); bn > 0 {
			eta = math.Min(etaMax, math.Max(eta, gmresLinTol*tol/bn))
		}
	}
	var pc precond
	if nl.pc != nil {
		s.spc.pc = nl.pc
		pc = &s.spc
	}
	// Lazy: a solve that converges in one iteration leaves its solution
	// as a·z, unscaled below in the same pass.
	its, _, err := nl.kry.solve(s.sop, nil, pc, nl.b, s.dx, bn, eta, s.c.krylovMaxIter, true)
	dx := s.dx
	if err == nil && nl.kry.lazyDone {
		a, z := nl.kry.xScale, nl.kry.z[:len(dx)]
		for i := range dx {
			dx[i] = a * z[i] / sc[i]
		}
	} else {
		for i := range dx {
			dx[i] /= sc[i]
		}
	}
	s.stats.LinearIters += its
	s.stats.LinearSolves++
	s.lastKrylov = its
	if ke, ok := err.(*krylovError); ok && ke.Reason != "breakdown" && ke.Rel <= etaMax {
		return nil
	}
	return err
}

// scaledOp is v ↦ W·M·W⁻¹·v for the scaled GMRES solve.
func (s *stageSolver) scaledOp(v, dst []float64) error {
	for i, x := range v {
		s.wtmp[i] = x / s.wsc[i]
	}
	if err := s.nl.op(s.wtmp, dst); err != nil {
		return err
	}
	for i := range dst {
		dst[i] *= s.wsc[i]
	}
	return nil
}

// scaledPC is the preconditioner of the scaled system, W·P⁻¹·W⁻¹.
type scaledPC struct {
	pc  precond
	s   *stageSolver
	tmp []float64
}

func (p *scaledPC) setup(a *spMatrix) error { return p.pc.setup(a) }

func (p *scaledPC) apply(r, z []float64) {
	sc := p.s.wsc
	for i, x := range r {
		p.tmp[i] = x / sc[i]
	}
	p.pc.apply(p.tmp, z)
	for i := range z {
		z[i] *= sc[i]
	}
}

// scaleStale scales the correction of an exact solve with M for c_M
// when c differs: by 2/(1 + c/c_M) (CVODE's dense and band solvers).
func (s *stageSolver) scaleStale(c float64) {
	if c == s.cM {
		return
	}
	k := 2 / (1 + c/s.cM)
	for i := range s.dx {
		s.dx[i] *= k
	}
}

// accepted ages the Jacobian and M after an accepted step.
func (s *stageSolver) accepted() {
	s.jAge++
	s.mAge++
	s.jCur = false
}

// prepare makes J and M ready for a solve with c at (t, y): it
// re-evaluates J there when needJacobian(forceJ) (fy = f(t, y), or nil
// to have it evaluated when finite differences need it) and sets M up
// when needSetup(c, forceSetup). It reports whether M was set up (the
// caller's convergence-rate estimate then starts afresh). h is the step
// size, for errors.
func (s *stageSolver) prepare(t, h, c float64, y, fy []float64, forceJ, forceSetup bool) (bool, error) {
	newJ := s.needJacobian(c, forceJ)
	if newJ {
		if fy == nil && s.fy != nil {
			if err := s.eval(t, y, s.fy); err != nil {
				return false, err
			}
			fy = s.fy
		}
		if err := s.evalJacobian(t, h, y, fy); err != nil {
			return false, err
		}
	}
	if !newJ && !s.needSetup(c, forceSetup) {
		return false, nil
	}
	return true, s.setup(t, h, c)
}

// newton solves G(z) = z − ψ − c·f(t, z) = 0 by at most
// c.newtonMaxIter simplified Newton iterations with M, written for the
// correction e = z − p to a predictor p: with b = ψ − p it solves
//
//	e − b − c·f(t, p + e) = 0
//
// from the e given (usually 0), so that a correction far below the
// rounding of p (the first steps of a slow component) is computed to its
// own precision rather than as a difference of two nearly equal states.
// z = p + e is left in s.z. After the first residual it calls prepare
// at the first iterate (with f there, which finite differences reuse),
// re-evaluating J when forceJ or J is old and setting M up when
// forceSetup or c has moved; a new M resets the convergence-rate
// estimate to 1. w are the error weights of the WRMS norm. The iteration
// converges when ‖Δe‖·min(1, rate) ≤ tol, rate being the estimated
// convergence rate (max(0.3·rate, ‖Δe_m‖/‖Δe_{m−1}‖), carried by the
// caller between solves; CVODE's test, Hindmarsh et al. 2005, §2.1), or
// with fixedTol set when max|Δe| ≤ fixedTol·(1 + max|z|); it fails when
// an update grows by more than a factor 2 (divergence), the iteration
// limit is reached, a residual or update is not finite, or the linear
// solver fails. f at the solution is not evaluated. It returns whether
// it converged; an error is a user function's failure, which ends the
// step. h is the step size, for errors.
func (s *stageSolver) newton(t, h, c float64, p, b, e, w []float64, tol float64, rate *float64, forceJ, forceSetup bool) (bool, error) {
	delp := 0.0
	f, z := s.fz, s.z
	s.lastFail, s.lastErr = "", nil
	for m := 0; m < s.c.newtonMaxIter; m++ {
		s.lastIter = m + 1
		for i := range z {
			z[i] = p[i] + e[i]
		}
		if err := s.eval(t, z, f); err != nil {
			return false, err
		}
		r := s.r
		ss, rmax := stageResidual(r, e, b, f, c)
		rn, finite := normOf(r, ss, rmax)
		s.lastRes = rn
		if !finite {
			k := firstNonFinite(r)
			s.lastFail = fmt.Sprintf("non-finite residual in component %d%s", k, s.component(k))
			return false, nil
		}
		if m == 0 {
			newM, err := s.prepare(t, h, c, z, f, forceJ, forceSetup)
			if err != nil {
				var se *StepError
				if errors.As(err, &se) && se.Status == LinearFailure {
					s.lastFail, s.lastErr = "the Newton matrix could not be factored", err
					return false, nil
				}
				return false, err
			}
			if newM {
				*rate = 1
			}
		}
		s.stats.NewtonIters++
		if s.mfX != nil {
			copy(s.mfX, z)
			s.mfT = t
		}
		if err := s.solve(t, h, c, r, w, tol); err != nil {
			var se *StepError
			if errors.As(err, &se) && se.Status == Failure {
				return false, err // the System failed inside the matrix-free product
			}
			s.lastFail, s.lastErr = "the linear solve failed", err
			return false, nil
		}
		dx := s.dx
		// e += dx, with dx's weighted norm (and, for the fixed-step test,
		// z = p + e with max|dx| and max|z|) in the same pass.
		del, dmax, zmax, finite := stageUpdate(e, dx, w, p, z, s.fixedTol > 0)
		if !finite {
			k := firstNonFinite(dx)
			s.lastFail = fmt.Sprintf("non-finite Newton update in component %d%s", k, s.component(k))
			return false, nil
		}
		if m > 0 {
			*rate = math.Max(0.3**rate, del/delp)
		}
		conv := false
		if s.fixedTol > 0 {
			conv = dmax <= s.fixedTol*(1+zmax) // z = p + e is written
		} else if conv = del*math.Min(1, *rate) <= tol; conv {
			for i := range z {
				z[i] = p[i] + e[i]
			}
		}
		if conv {
			return true, nil
		}
		if m > 0 && del > 2*delp {
			s.lastFail = fmt.Sprintf("Newton diverged: the update norm grew from %.3g to %.3g", delp, del)
			return false, nil
		}
		delp = del
	}
	s.lastFail = fmt.Sprintf("no convergence within %d iterations", s.c.newtonMaxIter)
	return false, nil
}

func (s *stageSolver) component(k int) string {
	if s.name == nil {
		return ""
	}
	return " (" + s.name(k) + ")"
}

// failure returns the error of a step given up after Newton failed
// repeatedly (or with the smallest step): NewtonFailure, or
// LinearFailure when the linear solver failed, naming the method, the
// time, the step size, the last residual and why.
func (s *stageSolver) failure(t, h float64, why string) error {
	st := NewtonFailure
	if s.lastErr != nil {
		st = LinearFailure
	}
	d := why
	if s.lastFail != "" {
		d += "; last attempt: " + s.lastFail
	}
	return &StepError{Method: s.method, Status: st, T: t, Dt: h, Index: -1, Iter: s.lastIter, Residual: s.lastRes, Detail: d, Err: s.lastErr}
}

// stageResidual writes the residual r = e − b − c·f of the stage
// equation and returns Σ r_i² and max |r_i| (normOf's input), in one
// pass.
func stageResidual(r, e, b, f []float64, c float64) (ss, rmax float64) {
	e, b, f = e[:len(r)], b[:len(r)], f[:len(r)]
	for i := range r {
		v := e[i] - b[i] - c*f[i]
		r[i] = v
		ss += v * v
		if a := math.Abs(v); a > rmax {
			rmax = a
		}
	}
	return ss, rmax
}

// stageUpdate adds the Newton update dx to e and returns its weighted
// RMS norm (wrmsNorm), in one pass; with full set it also writes
// z = p + e and returns max|dx_i| and max|z_i|. finite is false (and e
// partly updated) when dx holds a value that is not finite.
func stageUpdate(e, dx, w, p, z []float64, full bool) (del, dmax, zmax float64, finite bool) {
	n := len(e)
	dx, w = dx[:n], w[:n]
	var bad float64 // stays 0 unless a value is infinite or NaN
	s := 0.0
	if full {
		p, z = p[:n], z[:n]
		for i, d := range dx {
			ei := e[i] + d
			e[i] = ei
			zi := p[i] + ei
			z[i] = zi
			x := d * w[i]
			s += x * x
			bad += d * 0
			if a := math.Abs(d); a > dmax {
				dmax = a
			}
			if a := math.Abs(zi); a > zmax || a != a {
				zmax = a // NaN (p not finite) stays: no convergence
			}
		}
	} else {
		for i, d := range dx {
			e[i] += d
			x := d * w[i]
			s += x * x
			bad += d * 0
		}
	}
	if bad != 0 {
		return 0, 0, 0, false
	}
	if n > 0 {
		del = math.Sqrt(s / float64(n))
	}
	return del, dmax, zmax, true
}

// wrmsNorm is √(Σ (v_i·w_i)² / n), the weighted RMS norm of the error
// tests (0 for n = 0).
func wrmsNorm(v, w []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := 0.0
	for i, x := range v {
		x *= w[i]
		s += x * x
	}
	return math.Sqrt(s / float64(len(v)))
}

// errorWeights writes w_i = 1/(rtol·|y_i| + atol).
func errorWeights(y, w []float64, rtol, atol float64) {
	for i, v := range y {
		w[i] = 1 / (rtol*math.Abs(v) + atol)
	}
}

// checkpoint writes the solver's memory (where J was evaluated, which
// factorization is in use) into c and h.
func (s *stageSolver) checkpoint(c *StepperState, h *ImplicitState) {
	if s.haveJ && !s.mfOnly {
		c.Jac = &JacobianPoint{T: s.jT, Y: cloneF(s.jY), Age: s.jAge}
	}
	if s.haveM {
		h.SetupC, h.SetupAge = s.cM, s.mAge
	}
}

// restore rebuilds the solver's memory from a checkpoint: J evaluated
// again where it was, M factored again for the recorded c, so that the
// next steps are those of the uninterrupted run, bit for bit. The work
// of rebuilding is not counted (the uninterrupted run counted it when it
// happened).
func (s *stageSolver) restore(c StepperState, h *ImplicitState) error {
	s.haveJ, s.haveM, s.jCur = false, false, false
	if s.mfOnly {
		return nil
	}
	p := c.Jac
	if p == nil {
		if h != nil && h.SetupC != 0 {
			return &StateMismatchError{Field: "jacobian point", Want: "the point of the factored Jacobian", Got: "none"}
		}
		return nil
	}
	if len(p.Y) != s.n {
		return &StateMismatchError{Field: "jacobian point", Want: fmt.Sprint(s.n), Got: fmt.Sprint(len(p.Y))}
	}
	saved := *s.stats
	defer func() { *s.stats = saved }()
	var fy []float64
	if s.fy != nil {
		if err := s.eval(p.T, p.Y, s.fy); err != nil {
			return err
		}
		fy = s.fy
	}
	if err := s.evalJacobian(p.T, 0, p.Y, fy); err != nil {
		return fmt.Errorf("integrators: restoring the Jacobian: %w", err)
	}
	s.jAge, s.jCur = p.Age, false
	if h != nil && h.SetupC != 0 {
		if err := s.setup(p.T, 0, h.SetupC); err != nil {
			return fmt.Errorf("integrators: restoring the Newton matrix: %w", err)
		}
		s.mAge = h.SetupAge
	}
	return nil
}
