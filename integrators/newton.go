package integrators

import (
	"errors"
	"fmt"
	"math"
)

// newtonLinear is the linear-solver side of the Newton iteration of an
// implicit or structural stepper: dense LU (today's path, through
// linSolver) or GMRES with a preconditioner on a sparse Newton matrix A
// (or on the stepper's matrix-free operator), with the forcing terms of
// an inexact Newton method. Everything is allocated at construction.
type newtonLinear struct {
	c     *conf
	n     int
	krylv bool // GMRES; otherwise dense LU in dense

	// dense is the dense LU solver, or (GMRES without a sparse Jacobian)
	// the staging area of a dense Newton matrix copied into A.
	dense *linSolver
	// A is the sparse Newton matrix, assembled when assemble is set.
	A        *spMatrix
	assemble bool
	pc       precond
	band     *bandLU // LinearBanded: exact solves instead of GMRES
	kry      *gmres
	op       func(v, dst []float64) error
	opDot    func(v, dst, b []float64) float64 // the sparse product fused with a dot product, or nil
	b, dx    []float64

	// forcing state of the current step
	k                  int
	eta, rPrev, linRes float64
	lastRes            float64 // last Newton residual norm ‖R‖₂
	name               func(i int) string

	// Reuse of the assembled matrix and its preconditioner (GMRES only):
	// valid once assembled, for step size dtA, age accepted steps ago;
	// fresh when assembled during the current step.
	valid, fresh bool
	crossStep    bool // reuse across steps (the stepper can re-assemble at a recorded point)
	dtA          float64
	age          int
	prevDx       float64
}

// useKrylov resolves LinearAuto for n unknowns.
func (c *conf) useKrylov(n int) bool {
	switch c.lin {
	case LinearGMRES, LinearBanded:
		return true
	case LinearDense:
		return false
	}
	return n > AutoDenseMax
}

// checkLinear validates the linear-solver settings.
func (c *conf) checkLinear() error {
	switch {
	case c.lin < LinearAuto || c.lin > LinearBanded:
		return fmt.Errorf("integrators: unknown LinearSolver %d; valid: %v", int(c.lin), LinearSolverNames())
	case c.pc < PrecondBlockJacobi || c.pc > PrecondNone:
		return fmt.Errorf("integrators: unknown Preconditioner %d; valid: %v", int(c.pc), PreconditionerNames())
	case c.forcing < ForcingEisenstatWalker || c.forcing > ForcingConstant:
		return fmt.Errorf("integrators: unknown Forcing %d; valid: %v", int(c.forcing), ForcingNames())
	case !(c.krylovTol > 0 && c.krylovTol < 1):
		return fmt.Errorf("integrators: KrylovTol %v must be in (0, 1)", c.krylovTol)
	case c.restart < 1 || c.krylovMaxIter < 1:
		return fmt.Errorf("integrators: KrylovRestart (%d) and KrylovMaxIter (%d) must be positive", c.restart, c.krylovMaxIter)
	}
	return nil
}

// newNewtonLinear sets up the solver for n unknowns. sparse says whether
// the stepper assembles the Newton matrix from Jacobian rows (a System's
// JacobianRows or SparseJacobian); otherwise a dense Newton matrix is
// staged and its non-zeros copied into A. blockOf gives the block of
// every unknown (nil: one block per unknown). fd is the stepper's
// matrix-free operator.
func newNewtonLinear(c *conf, n int, sparse bool, blockOf []int, fd func(v, dst []float64) error) *newtonLinear {
	l := &newtonLinear{c: c, n: n, krylv: c.useKrylov(n)}
	if !l.krylv {
		l.dense = newLinSolver(n)
		return l
	}
	l.b = make([]float64, n)
	if c.lin == LinearBanded {
		l.dx = make([]float64, n)
		if !sparse {
			l.dense = newLinSolver(n)
		}
		l.A, l.assemble = newSpMatrix(n), true
		l.band = newBandLU(n)
		return l
	}
	l.kry = newGMRES(n, c.restart)
	l.assemble = !c.matrixFree || c.pc != PrecondNone
	if l.assemble {
		if !sparse {
			l.dense = newLinSolver(n)
		}
		l.A = newSpMatrix(n)
		switch c.pc {
		case PrecondBlockJacobi:
			if blockOf == nil {
				blockOf = make([]int, n)
				for i := range blockOf {
					blockOf[i] = i
				}
			}
			l.pc = newBlockJacobi(blockOf)
		case PrecondILU0:
			l.pc = newILU0(n)
		}
	}
	if c.matrixFree {
		l.op = fd
	} else {
		A := l.A
		l.op = func(v, dst []float64) error { A.MulVec(v, dst); return nil }
		l.opDot = A.mulVecDot
	}
	return l
}

// fromDense copies the staged dense Newton matrix's non-zeros (and its
// diagonal) into A.
func (l *newtonLinear) fromDense() error {
	a, n := l.A, l.n
	a.reset()
	for i := 0; i < n; i++ {
		if err := a.addDense(i, l.dense.jd[i*n:(i+1)*n]); err != nil {
			return err
		}
	}
	return nil
}

// beginStep resets the forcing sequence and the per-step reuse state.
func (l *newtonLinear) beginStep() { l.k, l.fresh, l.prevDx = 0, false, 0 }

// endStep ages the assembled matrix after an accepted step.
func (l *newtonLinear) endStep() { l.age++ }

// needMatrix reports whether GMRES's matrix (and preconditioner) must be
// assembled before Newton iteration it of a step of size dt, given the
// last two Newton update norms. A matrix is reused across iterations and
// steps (a chord iteration with an inexact, preconditioned solve, as
// CVODE reuses its Newton matrix) while the iteration converges fast;
// it is assembled afresh when the step size changes, when it is
// JacobianMaxAge steps old, when an update does not shrink the previous
// one by max(½, 2η) with an old matrix or by 0.9 with this step's (then
// at every such iteration: Newton's method proper), and when a matrix
// from an earlier step has needed more than 5 iterations.
func (l *newtonLinear) needMatrix(dt float64, it int, dxNorm float64) bool {
	if !l.assemble {
		return false
	}
	// The update should shrink at least like the forcing term allows; a
	// fresh matrix is only replaced when the iteration hardly contracts.
	lim := math.Max(0.5, math.Min(0.9, 2*l.eta))
	if l.fresh {
		lim = 0.9
	}
	slow := (it > 1 && l.prevDx > 0 && dxNorm > lim*l.prevDx) || (it > 5 && !l.fresh)
	return !l.valid || l.dtA != dt || l.age >= l.c.jacMaxAge || slow || !l.crossStep && !l.fresh
}

// matrixDone records a matrix assembled for step size dt.
func (l *newtonLinear) matrixDone(dt float64) { l.valid, l.fresh, l.dtA, l.age = true, true, dt, 0 }

// stale reports whether the iteration uses a matrix from an earlier step,
// so a failure may be cured by assembling a fresh one.
func (l *newtonLinear) stale() bool { return l.assemble && !l.fresh }

// phi is the golden ratio, the safeguard exponent of Eisenstat–Walker
// choice 1.
var phi = (1 + math.Sqrt(5)) / 2

// forcingTerm returns η_k for the residual norm rnorm of iteration k.
func (l *newtonLinear) forcingTerm(rnorm float64) float64 {
	c := l.c
	if c.forcing == ForcingConstant {
		return c.krylovTol
	}
	eta := etaZero
	if l.k > 0 && l.rPrev > 0 {
		eta = math.Abs(rnorm-l.linRes) / l.rPrev
		if s := math.Pow(l.eta, phi); s > 0.1 {
			eta = math.Max(eta, s)
		}
	}
	eta = math.Min(math.Max(eta, c.krylovTol), etaMax)
	l.eta = eta
	return eta
}

// setupPC factors the preconditioner from A.
func (l *newtonLinear) setupPC(st *Work) error {
	if l.band != nil {
		st.Factorize++
		return l.band.setup(l.A)
	}
	if l.pc == nil {
		return nil
	}
	st.Factorize++
	return l.pc.setup(l.A)
}

// solve solves A·dx = b, where l.b holds b = −R, the negated Newton
// residual of norm rnorm: by the banded LU, or by GMRES to the forcing
// term's relative residual. step returns dx.
func (l *newtonLinear) solve(rnorm float64, st *Work) error {
	if l.band != nil {
		copy(l.dx, l.b)
		l.band.solve(l.dx)
		st.LinearSolves++
		l.k++
		if i := firstNonFinite(l.dx); i >= 0 {
			return &krylovError{Reason: "breakdown", Rel: math.NaN()}
		}
		return nil
	}
	eta := l.forcingTerm(rnorm)
	var pc precond
	if l.pc != nil {
		pc = l.pc
	}
	its, res, err := l.kry.solve(l.op, l.opDot, pc, l.b, nil, rnorm, eta, l.c.krylovMaxIter, true)
	st.LinearIters += its
	st.LinearSolves++
	l.k++
	l.rPrev, l.linRes = rnorm, res
	if err == nil {
		return nil
	}
	if ke, ok := err.(*krylovError); ok && ke.Reason != "breakdown" && ke.Rel <= etaMax {
		// GMRES stopped short of η but reduced the residual by at least
		// the largest forcing term: still an inexact Newton step (η_k =
		// ke.Rel ≤ 0.9). This happens near convergence, where the
		// matrix-free product's differencing noise is the size of the
		// residual itself. No progress at all remains a failure.
		return nil
	}
	return err
}

// step returns the update of the last solve as dx = scale·vec: GMRES may
// leave it in that form (gmres.solve, lazy), which update applies
// without writing dx.
func (l *newtonLinear) step() (scale float64, vec []float64) {
	if l.kry != nil {
		return l.kry.solution()
	}
	return 1, l.dx
}

// residualBE writes sign·(x − y − dt·f) into r (backward Euler's Newton
// residual, negated for GMRES) and returns Σ r_i² and max |r_i|, in one
// pass over the vectors.
func residualBE(r, x, y, f []float64, dt, sign float64) (ss, rmax float64) {
	y, f, r = y[:len(x)], f[:len(x)], r[:len(x)]
	for i, xi := range x {
		v := xi - y[i] - dt*f[i]
		ss += v * v
		if a := math.Abs(v); a > rmax {
			rmax = a
		}
		r[i] = sign * v
	}
	return ss, rmax
}

// residualTheta is residualBE for the θ-method:
// x − y − dt·θ·f − dt·(1−θ)·f0.
func residualTheta(r, x, y, f, f0 []float64, dt, th, sign float64) (ss, rmax float64) {
	y, f, f0, r = y[:len(x)], f[:len(x)], f0[:len(x)], r[:len(x)]
	for i, xi := range x {
		v := xi - y[i] - dt*th*f[i]
		v -= dt * (1 - th) * f0[i]
		ss += v * v
		if a := math.Abs(v); a > rmax {
			rmax = a
		}
		r[i] = sign * v
	}
	return ss, rmax
}

// normOf returns ‖r‖₂ from the Σ r_i² and max |r_i| of one pass, and
// false when r holds a value that is not finite. Σ r_i² is used as it is
// when no square can overflow or underflow; otherwise the norm is
// recomputed scaled (resNorm).
func normOf(r []float64, ss, rmax float64) (float64, bool) {
	if ss-ss != 0 || rmax-rmax != 0 {
		if firstNonFinite(r) >= 0 {
			return math.NaN(), false
		}
		return resNorm(r), true
	}
	if rmax == 0 || rmax > 0x1p-450 && rmax < 0x1p450 {
		return math.Sqrt(ss), true
	}
	return resNorm(r), true
}

// sumSqMax returns Σ r_i² and max |r_i| in one pass.
func sumSqMax(r []float64) (ss, rmax float64) {
	for _, v := range r {
		ss += v * v
		if a := math.Abs(v); a > rmax {
			rmax = a
		}
	}
	return ss, rmax
}

// update writes x = base + a·d (base may be x) and returns max |a·d_i|
// and max |x_i|, in one pass; either is NaN when a value is not finite.
// a·d_i is rounded before the addition, as if dx = a·d had been formed
// (a = 1: x = base + d).
func update(x, base []float64, a float64, d []float64) (dmax, xmax float64) {
	d, base = d[:len(x)], base[:len(x)]
	var bad float64 // stays 0 unless a value is infinite or NaN
	for i, di := range d {
		u := a * di
		v := base[i] + u
		x[i] = v
		bad += u*0 + v*0
		if au := math.Abs(u); au > dmax {
			dmax = au
		}
		if av := math.Abs(v); av > xmax {
			xmax = av
		}
	}
	if bad != 0 {
		return math.NaN(), math.NaN()
	}
	return dmax, xmax
}

// etaMax is the largest forcing term.
const etaMax = 0.9

// linearError wraps a failure of the linear solver (GMRES, a
// preconditioner block) as a LinearFailure StepError naming the unknown
// where it applies; other errors (from the System, through the
// matrix-free operator) pass unchanged.
func (l *newtonLinear) linearError(method string, t, dt float64, it int, err error) error {
	var se *StepError
	if errors.As(err, &se) {
		return err
	}
	e := &StepError{Method: method, Status: LinearFailure, T: t, Dt: dt, Index: -1, Iter: it, Residual: l.lastRes, Err: err}
	var sb *singularBlockError
	if errors.As(err, &sb) {
		e.Index = sb.First
		if l.name != nil {
			e.Detail = "first unknown " + l.name(sb.First)
		}
	}
	return e
}

// JacobianPoint is where the Newton matrix a stepper reuses across steps
// (GMRES, LinearOptions.JacobianMaxAge) was assembled: Restore re-assembles it
// there, so that a resumed run is bit-identical to an uninterrupted one.
type JacobianPoint struct {
	T, Dt float64   // time of the Jacobian, step size of the matrix
	Y     []float64 // first-order state of the Jacobian
	TE    float64   // Newmark family with extra quantities: endpoint time
	YE    []float64 // and state of the second Jacobian
	Age   int       // accepted steps since assembly
}

// divergence watches the Newton residual norms of one step: the
// iteration has diverged when the norm is non-finite, has grown at three
// consecutive iterations, or exceeds 1e8 times its first value.
type divergence struct {
	first, prev float64
	grew, k     int
}

func (d *divergence) reset() { *d = divergence{} }

// check records rnorm and returns a description when it diverges.
func (d *divergence) check(rnorm float64) string {
	d.k++
	if d.k == 1 {
		d.first, d.prev = rnorm, rnorm
		return ""
	}
	if rnorm > d.prev {
		d.grew++
	} else {
		d.grew = 0
	}
	d.prev = rnorm
	switch {
	case math.IsNaN(rnorm) || math.IsInf(rnorm, 0):
		return "Newton diverged: the residual norm is not finite"
	case d.grew >= 3:
		return fmt.Sprintf("Newton diverged: the residual norm grew at %d consecutive iterations, from %.3g to %.3g", d.grew, d.first, rnorm)
	case d.first > 0 && rnorm > 1e8*d.first:
		return fmt.Sprintf("Newton diverged: the residual norm grew from %.3g to %.3g", d.first, rnorm)
	}
	return ""
}

// resNorm is ‖r‖₂ computed without overflow for finite entries (scaled
// by the largest magnitude, as BLAS dnrm2 does): a residual with huge but
// finite entries is a large number, not +Inf.
func resNorm(r []float64) float64 {
	m := maxAbs(r)
	if m == 0 || math.IsInf(m, 0) || math.IsNaN(m) {
		return m
	}
	s := 0.0
	for _, v := range r {
		v /= m
		s += v * v
	}
	return m * math.Sqrt(s)
}

// fdDirection returns the increment h of the directional difference
// R(x + h·v): √(ε·(1 + ‖x‖₂))/‖v‖₂ (LinearOptions.MatrixFree), and 0 for
// v = 0.
func fdDirection(x, v []float64) float64 {
	nv := norm2(v)
	if nv == 0 {
		return 0
	}
	return math.Sqrt(0x1p-52*(1+norm2(x))) / nv
}

// etaZero is η_0, Eisenstat and Walker's choice.
const etaZero = 0.5
