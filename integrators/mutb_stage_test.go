package integrators

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// The stage solver of ESDIRK43/ESDIRK32 and BDF (stagesolve.go): its
// Jacobian and factorization reuse, its work counters, its matrix-free
// product, its iteration limit and its checkpoints, checked on linear
// problems whose Newton iteration is exact (one correction, then a
// confirming iteration), so that every count has a closed form.

// TestStageSolverReuseCountsB: on y' = J·y at a constant step size the
// stage solver's Newton iteration never fails, so J is re-evaluated only
// by age: over 21 fixed ESDIRK43 steps with JacobianMaxAge 3 it is
// evaluated at steps 1, 4, …, 19, 7 times (once per step at most: the
// age counts accepted steps); and the Newton matrix I − γh·J (the same
// γh at every stage and step) is factored again only when J is new or
// when it is setupMaxAge (20) steps old: with JacobianMaxAge 100, at
// steps 1 and 21, twice. Every Newton iteration is one linear solve. For
// each linear solver; with GMRES, ILU(0) of the tridiagonal matrix is
// exact, so each solve takes one GMRES iteration.
func TestStageSolverReuseCountsB(t *testing.T) {
	n := 10
	J := tridiagB(n, 30, -100, 50)
	for _, lin := range []LinearSolver{LinearDense, LinearBanded, LinearGMRES} {
		for _, c := range []struct {
			age, jac, fact int
		}{{3, 7, 7}, {100, 1, 2}} {
			s := &settings{LinearSolver: lin, Preconditioner: PrecondILU0, JacobianMaxAge: c.age}
			sys := &linDenseB{n: n, J: J}
			_, w := runSteps(t, ESDIRK43{}, sys, s, rampB(n, 1), 0.01, 21)
			name := fmt.Sprintf("%v age %d", lin, c.age)
			if w.JacEvals != c.jac || sys.calls != c.jac {
				t.Errorf("%s: JacEvals %d, Jacobian calls %d; want %d", name, w.JacEvals, sys.calls, c.jac)
			}
			if w.Factorize != c.fact {
				t.Errorf("%s: Factorize %d, want %d", name, w.Factorize, c.fact)
			}
			if w.LinearSolves != w.NewtonIters || w.NewtonIters < 21*2 {
				t.Errorf("%s: LinearSolves %d, NewtonIters %d; want equal, at least 2 per step", name, w.LinearSolves, w.NewtonIters)
			}
			if lin == LinearGMRES && w.LinearIters != w.LinearSolves {
				t.Errorf("%s: LinearIters %d over %d solves; want one each", name, w.LinearIters, w.LinearSolves)
			}
		}
	}
}

// TestStageSolverDifferencedJacobianCostB: a Jacobian formed by forward
// differences costs exactly n evaluations of f (one per column) and no
// other: the same run with the analytic Jacobian makes n·JacEvals fewer
// evaluations (the linear problem's iterations are the same either way:
// the differenced J is exact to √ε, and one correction solves each
// stage). Dense LU and GMRES (ESDIRK43, fixed steps).
func TestStageSolverDifferencedJacobianCostB(t *testing.T) {
	n := 6
	J := tridiagB(n, 3, -20, 5)
	for _, lin := range []LinearSolver{LinearDense, LinearGMRES} {
		s := &settings{LinearSolver: lin, JacobianMaxAge: 3}
		_, wa := runSteps(t, ESDIRK43{}, &linDenseB{n: n, J: J}, s, rampB(n, 1), 0.01, 7)
		_, wd := runSteps(t, ESDIRK43{}, newLinFuncB(n, J), s, rampB(n, 1), 0.01, 7)
		if wd.JacEvals != wa.JacEvals || wd.NewtonIters != wa.NewtonIters {
			t.Fatalf("%v: JacEvals %d/%d, NewtonIters %d/%d differenced/analytic; want equal", lin, wd.JacEvals, wa.JacEvals, wd.NewtonIters, wa.NewtonIters)
		}
		if d := wd.FuncEvals - wa.FuncEvals; d != n*wd.JacEvals {
			t.Errorf("%v: differencing cost %d evaluations for %d Jacobians of %d columns", lin, d, wd.JacEvals, n)
		}
	}
}

// TestStageSolverMatrixFreeB: ESDIRK43 with matrix-free GMRES (the
// directional difference (f(z + δ·v) − f(z))/δ for J·v) follows the run
// with the assembled matrix on a stiff linear problem (h·|λ| up to about
// 10): 1e-7 relative over 5 steps, the difference's √ε error iterated
// below the Newton tolerance. A wrong sign or scale of the product gives
// a Newton matrix like I + γh·J or I, with which the iteration diverges
// on this problem.
func TestStageSolverMatrixFreeB(t *testing.T) {
	n, dt := 8, 0.1
	J := tridiagB(n, 10, -100, 20)
	ref, _ := runSteps(t, ESDIRK43{}, &linDenseB{n: n, J: J}, &settings{LinearSolver: LinearDense}, rampB(n, 1), dt, 5)
	for _, pc := range []Preconditioner{PrecondNone, PrecondILU0} {
		y, _ := runSteps(t, ESDIRK43{}, newLinRowsB(n, J, ""), &settings{LinearSolver: LinearGMRES, MatrixFree: true, Preconditioner: pc,
			Forcing: ForcingConstant, KrylovTol: 1e-10}, rampB(n, 1), dt, 5)
		closeToB(t, fmt.Sprintf("%v", pc), y, ref, 1e-7)
	}
}

// TestStageSolverIterationLimitB: NewtonOptions.MaxIter bounds the
// iterations of a stage. A linear stage needs two (the exact correction,
// then one that confirms it below the tolerance), so with MaxIter 1 the
// fixed step fails with NewtonFailure after 1 iteration, naming no
// component; with MaxIter 2 it succeeds.
func TestStageSolverIterationLimitB(t *testing.T) {
	n := 4
	J := tridiagB(n, 1, -5, 2)
	for _, m := range []Method{ESDIRK43{}, BDF{}} {
		se, _ := stepErrB(t, m, &linDenseB{n: n, J: J}, &settings{LinearSolver: LinearDense, NewtonMaxIter: 1}, rampB(n, 1), 0.1)
		if se.Status != NewtonFailure || se.Iter != 1 || se.Index != -1 || !strings.Contains(se.Error(), "no convergence within 1") {
			t.Errorf("%s: %v (status %v, iter %d, index %d); want NewtonFailure after 1 iteration, no component", m.Name(), se, se.Status, se.Iter, se.Index)
		}
		runSteps(t, m, &linDenseB{n: n, J: J}, &settings{LinearSolver: LinearDense, NewtonMaxIter: 2}, rampB(n, 1), 0.1, 3)
	}
}

// TestStageSolverBlockPreconditionerB: block-Jacobi over the System's
// blocks (Blocked) in the stage solver: J is block-diagonal with two
// strongly coupled 2×2 blocks, so the preconditioner over those blocks is
// the exact inverse of I − γh·J and every GMRES solve takes at most one
// iteration (none when the right-hand side is already zero); over single unknowns (point Jacobi) it would not be exact.
func TestStageSolverBlockPreconditionerB(t *testing.T) {
	J := []float64{
		-10, 8, 0, 0,
		-8, -10, 0, 0,
		0, 0, -20, 15,
		0, 0, -15, -20,
	}
	sys := linRowsBlockedB{newLinRowsB(4, J, ""), []int{0, 2, 4}}
	_, w := runSteps(t, ESDIRK43{}, sys, &settings{LinearSolver: LinearGMRES, Preconditioner: PrecondBlockJacobi}, rampB(4, 1), 0.05, 3)
	if w.LinearIters > w.LinearSolves {
		t.Errorf("LinearIters %d over %d solves; want at most one each", w.LinearIters, w.LinearSolves)
	}
}

// TestStageSolverCheckpointB: a fixed-step ESDIRK43 stepper restored
// from a checkpoint continues bit for bit like the uninterrupted one
// (the Checkpointer promise), also when its Jacobian is differenced (the
// restore evaluates f at the recorded point for the differences) and
// for GMRES; and a checkpoint taken before any step (no Jacobian yet)
// restores without error.
func TestStageSolverCheckpointB(t *testing.T) {
	n, dt := 6, 0.02
	J := tridiagB(n, 3, -20, 5)
	for _, lin := range []LinearSolver{LinearDense, LinearGMRES, LinearBanded} {
		s := &settings{LinearSolver: lin, JacobianMaxAge: 5}
		a, err := newS(ESDIRK43{}, newLinFuncB(n, J), s)
		if err != nil {
			t.Fatal(err)
		}
		a.Init(0, rampB(n, 1))
		cp0 := a.(Checkpointer).Checkpoint()
		b0, _ := newS(ESDIRK43{}, newLinFuncB(n, J), s)
		if err := b0.(Checkpointer).Restore(cp0); err != nil {
			t.Fatalf("%v: restoring a checkpoint before any step: %v", lin, err)
		}
		for range 3 {
			if err := a.Step(dt); err != nil {
				t.Fatal(err)
			}
		}
		cp := a.(Checkpointer).Checkpoint()
		b, _ := newS(ESDIRK43{}, newLinFuncB(n, J), s)
		if err := b.(Checkpointer).Restore(cp); err != nil {
			t.Fatalf("%v: %v", lin, err)
		}
		wa0, wb0 := a.Work(), b.Work()
		for k := range 6 {
			if err := a.Step(dt); err != nil {
				t.Fatal(err)
			}
			if err := b.Step(dt); err != nil {
				t.Fatal(err)
			}
			_, ya := a.State()
			_, yb := b.State()
			for i := range ya {
				if math.Float64bits(ya[i]) != math.Float64bits(yb[i]) {
					t.Fatalf("%v: step %d y[%d] = %v uninterrupted, %v restored", lin, k, i, ya[i], yb[i])
				}
			}
		}
		if da, db := a.Work().Sub(wa0), b.Work().Sub(wb0); da.JacEvals != db.JacEvals || da.FuncEvals != db.FuncEvals {
			t.Errorf("%v: work after the checkpoint %+v uninterrupted, %+v restored", lin, da, db)
		}
	}
}

// TestScaleStaleB: an exact solve with M factored for c_M used at c ≠ c_M
// scales the correction by 2/(1 + c/c_M) (CVODE's dense and band
// solvers), and leaves it alone at c = c_M.
func TestScaleStaleB(t *testing.T) {
	s := &stageSolver{cM: 2, dx: []float64{3, -6}}
	s.scaleStale(2)
	if s.dx[0] != 3 || s.dx[1] != -6 {
		t.Errorf("c = c_M: dx = %v, want unchanged", s.dx)
	}
	s.scaleStale(3)
	k := 2 / (1 + 3.0/2)
	if s.dx[0] != 3*k || s.dx[1] != -6*k {
		t.Errorf("c/c_M = 1.5: dx = %v, want [3 −6]·%v", s.dx, k)
	}
}

// TestZeroDimensionalImplicitB: a System with no state (Dim 0) steps
// with every implicit method and solver; with dense LU it factors
// nothing (there is no matrix).
func TestZeroDimensionalImplicitB(t *testing.T) {
	for _, m := range []Method{catalog[5], catalog[6], ESDIRK43{}, BDF{}} {
		for _, lin := range []LinearSolver{LinearDense, LinearGMRES} {
			st, err := newS(m, &linDenseB{n: 0}, &settings{LinearSolver: lin})
			if err != nil {
				t.Fatalf("%s %v: %v", m.Name(), lin, err)
			}
			if err := st.Init(0, nil); err != nil {
				t.Fatalf("%s %v: %v", m.Name(), lin, err)
			}
			for range 2 {
				if err := st.Step(0.1); err != nil {
					t.Fatalf("%s %v: %v", m.Name(), lin, err)
				}
			}
			if f := st.Work().Factorize; f != 0 && lin == LinearDense {
				t.Errorf("%s %v: Factorize %d for no unknowns", m.Name(), lin, f)
			}
		}
	}
}

// TestStageSolverCheckpointMismatchB: a checkpoint that records a
// factored Newton matrix (Implicit.SetupC) but no Jacobian point is
// inconsistent, and Restore refuses it naming the field.
func TestStageSolverCheckpointMismatchB(t *testing.T) {
	n := 4
	J := tridiagB(n, 1, -5, 2)
	s := &settings{LinearSolver: LinearGMRES}
	a, _ := newS(ESDIRK43{}, newLinRowsB(n, J, ""), s)
	a.Init(0, rampB(n, 1))
	for range 2 {
		if err := a.Step(0.05); err != nil {
			t.Fatal(err)
		}
	}
	cp := a.(Checkpointer).Checkpoint()
	if cp.Jac == nil || cp.Implicit == nil || cp.Implicit.SetupC == 0 {
		t.Fatalf("test set-up: checkpoint without a factored matrix: %+v", cp)
	}
	cp.Jac = nil
	b, _ := newS(ESDIRK43{}, newLinRowsB(n, J, ""), s)
	err := b.(Checkpointer).Restore(cp)
	var sm *StateMismatchError
	if !errors.As(err, &sm) || sm.Field != "jacobian point" {
		t.Errorf("restore without the Jacobian point: err %v, want a StateMismatchError on the jacobian point", err)
	}
}

// TestStageSolverAcceptsShortGMRESB: in the stage solver too, a GMRES
// solve stopped by KrylovMaxIter that reduced the residual by at least
// 0.9 is an inexact Newton step: with one GMRES iteration per Newton
// iteration on a well-conditioned problem (I − γh·J with eigenvalues in
// [1, 2]) the fixed-step ESDIRK43 iteration converges, to the run with
// dense LU within 1e-8 relative (NewtonTol 1e-10 over up to 80
// contractions of about 1/3).
func TestStageSolverAcceptsShortGMRESB(t *testing.T) {
	n, dt := 6, 0.1
	J := make([]float64, n*n)
	for i := 0; i < n; i++ {
		J[i*n+i] = -4 * float64(i) / float64(n-1)
	}
	ref, _ := runSteps(t, ESDIRK43{}, &linDenseB{n: n, J: J}, &settings{LinearSolver: LinearDense}, rampB(n, 1), dt, 2)
	s := &settings{LinearSolver: LinearGMRES, Preconditioner: PrecondNone, KrylovMaxIter: 1, Forcing: ForcingConstant, KrylovTol: 1e-10, NewtonMaxIter: 80}
	y, _ := runSteps(t, ESDIRK43{}, newLinRowsB(n, J, ""), s, rampB(n, 1), dt, 2)
	closeToB(t, "", y, ref, 1e-8)
}
