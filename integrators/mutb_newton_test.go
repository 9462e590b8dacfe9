package integrators

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
)

// Behaviour of the Newton solve of the implicit methods (backward Euler,
// the trapezoid rule, the ESDIRK and BDF stage solver) as a user meets
// it: the solution of a linear system against its closed form, the
// errors a faulty Jacobian or a failed solve produce (status, component,
// counted rejection), the Jacobian-reuse rule and the work counters.

// linRowsB is y' = J·y with J dense (row-major n×n), offering its
// Jacobian as rows (JacobianRows). fault selects a mistake of the rows:
// "row-n" (a row index n), "col-n" (a column n), "twice" (row 0 given
// twice), "nan0" (NaN in row 0), "nan1" (NaN in the first entry of row
// 1), "omit" (rows 1 and 2, zero rows of J,
// not given: JacobianRows allows it).
type linRowsB struct {
	n     int
	J     []float64
	fault string
	calls int
}

func (s *linRowsB) Dim() int { return s.n }
func (s *linRowsB) Func(_ float64, y, d []float64) error {
	for i := 0; i < s.n; i++ {
		v := 0.0
		for j := 0; j < s.n; j++ {
			v += s.J[i*s.n+j] * y[j]
		}
		d[i] = v
	}
	return nil
}

func (s *linRowsB) JacobianRows(_ float64, _ []float64, emit func(int, []int32, []float64)) error {
	s.calls++
	n := s.n
	for i := 0; i < n; i++ {
		if s.fault == "omit" && (i == 1 || i == 2) {
			continue
		}
		var cols []int32
		var vals []float64
		for j := 0; j < n; j++ {
			if v := s.J[i*n+j]; v != 0 || i == j {
				cols, vals = append(cols, int32(j)), append(vals, v)
			}
		}
		switch {
		case s.fault == "nan0" && i == 0:
			vals[0] = math.NaN()
		case s.fault == "nan1" && i == 1:
			vals[0] = math.NaN()
		case s.fault == "col-n" && i == n-1:
			cols, vals = append(cols, int32(n)), append(vals, 1)
		}
		emit(i, cols, vals)
		if s.fault == "twice" && i == 0 {
			emit(0, cols, vals)
		}
	}
	if s.fault == "row-n" {
		emit(n, []int32{0}, []float64{1})
	}
	return nil
}

// linRowsBlockedB is linRowsB with a partition into blocks (Blocked).
type linRowsBlockedB struct {
	*linRowsB
	starts []int
}

func (s linRowsBlockedB) Blocks() []int { return s.starts }

// linDenseB is y' = J·y offering a dense Jacobian (Jacobian) and no
// rows; nan0 makes J[0][0] NaN, fail makes the Jacobian return an error.
type linDenseB struct {
	n          int
	J          []float64
	nan0, fail bool
	nanAt      int // 1 + the index of a NaN entry of J (row-major), 0 for none
	calls      int
}

func (s *linDenseB) Dim() int { return s.n }
func (s *linDenseB) Func(t float64, y, d []float64) error {
	r := linRowsB{n: s.n, J: s.J}
	return r.Func(t, y, d)
}

func (s *linDenseB) Jacobian(_ float64, _, d []float64) error {
	s.calls++
	if s.fail {
		return errors.New("jacobian unavailable")
	}
	copy(d, s.J)
	if s.nan0 {
		d[0] = math.NaN()
	}
	if s.nanAt > 0 {
		d[s.nanAt-1] = math.NaN()
	}
	return nil
}

// linFuncB is y' = J·y with no Jacobian capability: finite differences.
type linFuncB struct{ r linRowsB }

func (s *linFuncB) Dim() int                             { return s.r.n }
func (s *linFuncB) Func(t float64, y, d []float64) error { return s.r.Func(t, y, d) }
func (s *linFuncB) asSystem() System                     { return s }
func newLinFuncB(n int, J []float64) *linFuncB           { return &linFuncB{r: linRowsB{n: n, J: J}} }
func newLinRowsB(n int, J []float64, fault string) *linRowsB {
	return &linRowsB{n: n, J: J, fault: fault}
}

// tridiagB is the n×n matrix with d on the diagonal, l below and u above.
func tridiagB(n int, l, d, u float64) []float64 {
	J := make([]float64, n*n)
	for i := 0; i < n; i++ {
		J[i*n+i] = d
		if i > 0 {
			J[i*n+i-1] = l
		}
		if i+1 < n {
			J[i*n+i+1] = u
		}
	}
	return J
}

// beExactB is backward Euler's step of y' = J·y in closed form:
// (I − dt·J)·y1 = y0, solved by gonum's dense LU.
func beExactB(t *testing.T, J []float64, n int, dt float64, y0 []float64) []float64 {
	t.Helper()
	A := make([]float64, n*n)
	for k, v := range J {
		A[k] = -dt * v
	}
	for i := 0; i < n; i++ {
		A[i*n+i]++
	}
	return denseSolveB(t, A, n, y0)
}

func rampB(n int, scale float64) []float64 {
	y := make([]float64, n)
	for i := range y {
		y[i] = scale * (1 + 0.1*float64(i))
	}
	return y
}

// stepErrB takes one step of dt from y0 and returns its *StepError and
// the stepper's work; it fails the test unless the step fails so.
func stepErrB(t *testing.T, m Method, sys System, s *settings, y0 []float64, dt float64) (*StepError, Work) {
	t.Helper()
	st, err := newS(m, sys, s)
	if err != nil {
		t.Fatalf("%s: %v", m.Name(), err)
	}
	if err := st.Init(0, y0); err != nil {
		t.Fatalf("%s: %v", m.Name(), err)
	}
	err = st.Step(dt)
	var se *StepError
	if !errors.As(err, &se) {
		t.Fatalf("%s: step error %v, want a *StepError", m.Name(), err)
	}
	return se, st.Work()
}

// TestBackwardEulerLinearSolversExactB: on y' = J·y every linear solver
// (dense LU; banded LU; GMRES with each preconditioner, from Jacobian
// rows, from a dense Jacobian, and from finite differences) gives
// backward Euler's step (I − dt·J)⁻¹·y0 to the Newton tolerance: 1e-9
// relative (NewtonTol 1e-10 stops the iteration at max|Δx| ≤
// 1e-10·(1+max|x|); the linear problem is solved once more to confirm).
// J is a non-symmetric tridiagonal with dt·‖J‖ ≈ 30 (stiff), so
// every solver's mistake shows. Rows 1 and 2 left out by the rows
// variant ("omit") are zero rows of its J, as JacobianRows documents.
func TestBackwardEulerLinearSolversExactB(t *testing.T) {
	n, dt := 30, 0.1
	J := tridiagB(n, 40, -100, 60)
	Jomit := append([]float64(nil), J...)
	for _, i := range []int{1, 2} {
		clear(Jomit[i*n : (i+1)*n])
	}
	y0 := rampB(n, 1)
	for _, c := range []struct {
		name string
		sys  System
		J    []float64
		s    *settings
	}{
		{"dense", &linDenseB{n: n, J: J}, J, &settings{LinearSolver: LinearDense}},
		{"gmres dense J", &linDenseB{n: n, J: J}, J, &settings{LinearSolver: LinearGMRES}},
		{"gmres dense J ilu0", &linDenseB{n: n, J: J}, J, &settings{LinearSolver: LinearGMRES, Preconditioner: PrecondILU0}},
		{"gmres fd", newLinFuncB(n, J).asSystem(), J, &settings{LinearSolver: LinearGMRES}},
		{"gmres rows", newLinRowsB(n, J, ""), J, &settings{LinearSolver: LinearGMRES}},
		{"gmres rows omitted", newLinRowsB(n, Jomit, "omit"), Jomit, &settings{LinearSolver: LinearGMRES, Preconditioner: PrecondILU0}},
		{"banded rows omitted", newLinRowsB(n, Jomit, "omit"), Jomit, &settings{LinearSolver: LinearBanded}},
	} {
		want := beExactB(t, c.J, n, dt, y0)
		for k := 0; k < 2; k++ { // the second step reuses the matrix
			if k == 1 {
				want = beExactB(t, c.J, n, dt, want)
			}
		}
		y, _ := runSteps(t, catalog[5], c.sys, c.s, y0, dt, 2)
		closeToB(t, c.name, y, want, 1e-9)
	}
}

// TestImplicitTinyScaleB: a linear problem is solved the same at any
// scale: y0 = 1e-200·ramp gives 1e-200 times the unit-scale step. At
// that scale Σ R_i² underflows to zero, so the residual norm must come
// from the scaled sum (as BLAS dnrm2 forms it), not √Σ R_i²; a zero norm
// would make GMRES return a zero correction and the step would keep
// y0. Backward Euler and the trapezoid rule, GMRES solving to 1e-12
// relative at every iteration (ForcingConstant: the Newton test
// max|Δx| ≤ Tol·(1+max|x|) is absolute at this scale and stops after one
// iteration, so the one solve must be accurate); tolerance 1e-9 relative.
func TestImplicitTinyScaleB(t *testing.T) {
	n, dt := 8, 0.1
	J := tridiagB(n, 1, -3, 2)
	for _, m := range []Method{catalog[5], catalog[6]} {
		s := &settings{LinearSolver: LinearGMRES, Forcing: ForcingConstant, KrylovTol: 1e-12}
		unit, _ := runSteps(t, m, newLinRowsB(n, J, ""), s, rampB(n, 1), dt, 1)
		tiny, _ := runSteps(t, m, newLinRowsB(n, J, ""), s, rampB(n, 1e-200), dt, 1)
		for i := range tiny {
			if !numtest.Within(tiny[i]*1e200, unit[i], 1e-9*(1+math.Abs(unit[i]))) {
				t.Fatalf("%s: y[%d] = %v at scale 1e-200, %v at scale 1", m.Name(), i, tiny[i], unit[i])
			}
		}
	}
}

// TestJacobianRowsMistakesB: a JacobianRows that breaks its contract
// fails the step with Status Failure (NonFinite for a NaN), an error
// naming the row (or, for NaN, the component), no other component
// (Index −1 where none applies), and the failed trial counted as
// rejected; for backward Euler (GMRES and banded) and the stage solver
// of ESDIRK43 and BDF.
func TestJacobianRowsMistakesB(t *testing.T) {
	n := 3
	J := tridiagB(n, 1, -2, 1)
	for _, c := range []struct {
		fault, want string
		status      Termination
		index       int
	}{
		{"row-n", "row 3 out of [0, 3)", Failure, -1},
		{"col-n", "columns must be in [0, 3)", Failure, -1},
		{"twice", "row 0 given twice", Failure, -1},
		{"nan0", "", NonFinite, 0},
		{"nan1", "", NonFinite, 1},
	} {
		for _, m := range []Method{catalog[5], ESDIRK43{}, BDF{}} {
			for _, lin := range []LinearSolver{LinearGMRES, LinearBanded} {
				se, w := stepErrB(t, m, newLinRowsB(n, J, c.fault), &settings{LinearSolver: lin}, rampB(n, 1), 0.1)
				name := fmt.Sprintf("%s %v %s", m.Name(), lin, c.fault)
				if se.Status != c.status || se.Index != c.index || !strings.Contains(se.Error(), c.want) {
					t.Errorf("%s: %v (status %v, index %d); want status %v, index %d, %q", name, se, se.Status, se.Index, c.status, c.index, c.want)
				}
				if w.Rejected != 1 && m.Name() == catalog[5].Name() {
					t.Errorf("%s: Rejected %d, want 1", name, w.Rejected)
				}
			}
		}
	}
}

// TestNonFiniteJacobianFirstEntryB: a NaN in a dense Jacobian (J[0][0]
// or J[2][1], also from finite differences: f_0 or f_2 is NaN once y_0
// is perturbed) is reported as NonFinite in the component of its row, by
// backward Euler with dense LU and GMRES and by the stage solver.
func TestNonFiniteJacobianFirstEntryB(t *testing.T) {
	n := 3
	J := tridiagB(n, 1, -2, 1)
	for _, m := range []Method{catalog[5], ESDIRK43{}} {
		for _, lin := range []LinearSolver{LinearDense, LinearGMRES} {
			se, _ := stepErrB(t, m, &linDenseB{n: n, J: J, nan0: true}, &settings{LinearSolver: lin}, rampB(n, 1), 0.1)
			if se.Status != NonFinite || se.Index != 0 {
				t.Errorf("%s %v: %v (status %v, index %d); want NonFinite in component 0", m.Name(), lin, se, se.Status, se.Index)
			}
			se, _ = stepErrB(t, m, &edgeFuncB{n: n}, &settings{LinearSolver: lin}, []float64{1, 1, 1}, 0.1)
			if se.Status != NonFinite || se.Index != 0 {
				t.Errorf("%s %v differenced: %v (status %v, index %d); want NonFinite in component 0", m.Name(), lin, se, se.Status, se.Index)
			}
			// A NaN in row 2 (J[2][1], and ∂f_2/∂y_0 differenced) is
			// reported in component 2, the row.
			se, _ = stepErrB(t, m, &linDenseB{n: n, J: J, nanAt: 2*n + 1 + 1}, &settings{LinearSolver: lin}, rampB(n, 1), 0.1)
			if se.Status != NonFinite || se.Index != 2 {
				t.Errorf("%s %v J[2][1]: %v (status %v, index %d); want NonFinite in component 2", m.Name(), lin, se, se.Status, se.Index)
			}
			se, _ = stepErrB(t, m, &edgeFuncB{n: n, row: 2}, &settings{LinearSolver: lin}, []float64{1, 1, 1}, 0.1)
			if se.Status != NonFinite || se.Index != 2 {
				t.Errorf("%s %v differenced row 2: %v (status %v, index %d); want NonFinite in component 2", m.Name(), lin, se, se.Status, se.Index)
			}
		}
	}
}

// edgeFuncB is y' = −(y − 1) except that f is NaN wherever y_0 > 1:
// y_0 = 1 is an equilibrium, so the iterates stay there, but the
// forward difference that perturbs y_0 upwards meets the NaN.
// row is the component of f that turns NaN.
type edgeFuncB struct{ n, row int }

func (s *edgeFuncB) Dim() int { return s.n }
func (s *edgeFuncB) Func(_ float64, y, d []float64) error {
	for i := range d {
		d[i] = -(y[i] - 1)
	}
	if y[0] > 1 {
		d[s.row] = math.NaN()
	}
	return nil
}

// TestImplicitFailuresB: each way backward Euler's Newton solve fails
// gives its documented status, names no component (Index −1: the
// failure is not one component's), and counts the trial as rejected:
//   - a Jacobian that points the wrong way (−J): the iterates grow by
//     1.5× per iteration and the residual with them (NewtonFailure,
//     "diverged");
//   - one Newton iteration allowed on a nonlinear problem
//     (NewtonFailure, "no convergence");
//   - the Jacobian returns an error (Failure, the error wrapped);
//   - the Jacobian rows' assembly fails (Failure);
//   - GMRES limited to one iteration on a Newton matrix that is a
//     rotation, on which GMRES makes no progress (LinearFailure);
//   - a singular block of the block-Jacobi preconditioner
//     (LinearFailure naming the block's first unknown).
func TestImplicitFailuresB(t *testing.T) {
	be := catalog[5]
	// R(x) = x − y − dt·λ·x with dt·λ = 3; the Jacobian says −λ.
	wrong := &wrongJacB{lambda: 30}
	se, w := stepErrB(t, be, wrong, &settings{LinearSolver: LinearDense}, []float64{1}, 0.1)
	checkFailB(t, "diverging", se, w, NewtonFailure, -1, "diverged")

	se, w = stepErrB(t, be, &cubicB{}, &settings{LinearSolver: LinearDense, NewtonMaxIter: 1}, []float64{1}, 0.5)
	checkFailB(t, "one iteration", se, w, NewtonFailure, -1, "no convergence within 1")

	J := tridiagB(3, 1, -2, 1)
	se, w = stepErrB(t, be, &linDenseB{n: 3, J: J, fail: true}, &settings{LinearSolver: LinearDense}, rampB(3, 1), 0.1)
	checkFailB(t, "jacobian error", se, w, Failure, -1, "jacobian unavailable")

	se, w = stepErrB(t, be, newLinRowsB(3, J, "row-n"), &settings{LinearSolver: LinearGMRES}, rampB(3, 1), 0.1)
	checkFailB(t, "rows", se, w, Failure, -1, "out of")

	// I − dt·J = [[0, 1], [−1, 0]] at dt = 1.
	rot := []float64{1, -1, 1, 1}
	se, w = stepErrB(t, be, newLinRowsB(2, rot, ""), &settings{LinearSolver: LinearGMRES, Preconditioner: PrecondNone, KrylovMaxIter: 1,
		Forcing: ForcingConstant, KrylovTol: 1e-8}, []float64{1, 0}, 1)
	checkFailB(t, "gmres", se, w, LinearFailure, -1, "GMRES")

	// I − dt·J = [[0, 1], [1, 0]] at dt = 1: its 1×1 diagonal blocks are
	// zero, the matrix is not singular.
	swap := []float64{1, -1, -1, 1}
	sys := linRowsBlockedB{newLinRowsB(2, swap, ""), []int{0, 1, 2}}
	se, w = stepErrB(t, be, sys, &settings{LinearSolver: LinearGMRES}, []float64{1, 0}, 1)
	checkFailB(t, "block", se, w, LinearFailure, 0, "block 0 (unknowns 0..0) is singular")
	// The same matrix as one block of two unknowns factors, and the step
	// is the exact solution of [[0, 1], [1, 0]]·y1 = y0.
	y, _ := runSteps(t, be, linRowsBlockedB{newLinRowsB(2, swap, ""), []int{0, 2}}, &settings{LinearSolver: LinearGMRES}, []float64{1, 0}, 1, 1)
	if !numtest.Within(y[0], 0, 1e-9) || !numtest.Within(y[1], 1, 1e-9) {
		t.Errorf("one block: y1 = %v, want [0 1]", y)
	}
}

func checkFailB(t *testing.T, name string, se *StepError, w Work, st Termination, index int, detail string) {
	t.Helper()
	if se.Status != st || se.Index != index || !strings.Contains(se.Error(), detail) {
		t.Errorf("%s: %v (status %v, index %d); want status %v, index %d, %q", name, se, se.Status, se.Index, st, index, detail)
	}
	if w.Rejected != 1 {
		t.Errorf("%s: Rejected %d, want 1", name, w.Rejected)
	}
}

// wrongJacB is y' = λ·y whose Jacobian claims −λ.
type wrongJacB struct{ lambda float64 }

func (s *wrongJacB) Dim() int                                 { return 1 }
func (s *wrongJacB) Func(_ float64, y, d []float64) error     { d[0] = s.lambda * y[0]; return nil }
func (s *wrongJacB) Jacobian(_ float64, _, d []float64) error { d[0] = -s.lambda; return nil }

// cubicB is y' = −y³ with its Jacobian.
type cubicB struct{}

func (cubicB) Dim() int                                 { return 1 }
func (cubicB) Func(_ float64, y, d []float64) error     { d[0] = -y[0] * y[0] * y[0]; return nil }
func (cubicB) Jacobian(_ float64, y, d []float64) error { d[0] = -3 * y[0] * y[0]; return nil }

// TestBlocksCheckedB: a partition (Blocked) must be strictly increasing
// from 0 to Dim: an empty block is refused at construction.
func TestBlocksCheckedB(t *testing.T) {
	J := tridiagB(4, 1, -2, 1)
	for _, starts := range [][]int{{0, 2, 2, 4}, {0, 3, 1, 4}} {
		_, err := newS(catalog[5], linRowsBlockedB{newLinRowsB(4, J, ""), starts}, &settings{LinearSolver: LinearGMRES})
		if err == nil || !strings.Contains(err.Error(), "strictly increasing") {
			t.Errorf("Blocks %v: err %v, want strictly increasing", starts, err)
		}
	}
}

// TestInexactNewtonAcceptsShortGMRESB: a GMRES solve that stops at its
// iteration limit but reduced the residual by at least 0.9 is still an
// inexact Newton step (newtonLinear.solve): with one GMRES iteration per
// Newton iteration on a well-conditioned linear problem, the Newton
// iteration converges (each iteration cuts the residual by about
// (κ−1)/(κ+1) ≈ 0.3, κ ≈ 2), and the step is backward Euler's exact step
// to 1e-8 relative (NewtonTol 1e-10 over up to 60 contractions).
func TestInexactNewtonAcceptsShortGMRESB(t *testing.T) {
	n, dt := 6, 0.1
	J := make([]float64, n*n)
	for i := 0; i < n; i++ {
		J[i*n+i] = -10 * float64(i) / float64(n-1) // I − dt·J has eigenvalues 1 … 2
	}
	y0 := rampB(n, 1)
	s := &settings{LinearSolver: LinearGMRES, Preconditioner: PrecondNone, KrylovMaxIter: 1, Forcing: ForcingConstant, KrylovTol: 1e-10, NewtonMaxIter: 60}
	y, _ := runSteps(t, catalog[5], newLinRowsB(n, J, ""), s, y0, dt, 1)
	want := beExactB(t, J, n, dt, y0)
	closeToB(t, "", y, want, 1e-8)
}

// TestAutoLinearSolverThresholdB: LinearAuto solves with dense LU up to
// AutoDenseMax unknowns and with GMRES above (LinearOptions.Solver):
// GMRES iterations are counted in Work.LinearIters, dense LU has none.
func TestAutoLinearSolverThresholdB(t *testing.T) {
	for _, n := range []int{AutoDenseMax, AutoDenseMax + 1} {
		_, w := runSteps(t, catalog[5], newLinRowsB(n, tridiagB(n, 1, -3, 1), ""), nil, rampB(n, 1), 0.1, 1)
		if gmres := w.LinearIters > 0; gmres != (n > AutoDenseMax) {
			t.Errorf("n = %d: LinearIters %d; want GMRES only above %d unknowns", n, w.LinearIters, AutoDenseMax)
		}
	}
}

// TestKrylovTolRangeB: KrylovTol must be in (0, 1): 1 is refused.
func TestKrylovTolRangeB(t *testing.T) {
	_, err := newS(catalog[5], newLinRowsB(2, tridiagB(2, 0, -1, 0), ""), &settings{LinearSolver: LinearGMRES, KrylovTol: 1})
	if err == nil || !strings.Contains(err.Error(), "KrylovTol") {
		t.Errorf("KrylovTol 1: err %v, want it refused", err)
	}
}

// TestJacobianReuseCountB: with GMRES or banded LU the Newton matrix of
// a linear problem at a constant step size is exact whatever its age, so
// and with an exact linear solve (banded LU; GMRES with ILU(0), exact on
// a tridiagonal matrix) Newton converges at once, so the matrix is
// re-assembled only when it is JacobianMaxAge steps old (never for slow
// convergence): over 10 steps with JacobianMaxAge 3 it is assembled
// at steps 1, 4, 7 and 10, so the System's Jacobian is called 4 times,
// and Work.JacEvals counts exactly those calls. Each assembly sets up the
// preconditioner or the band factorization once (Work.Factorize), and
// each Newton iteration is one linear solve. With ILU(0) of a
// tridiagonal matrix (exact: no fill) every GMRES solve takes one
// iteration. A change of step size re-assembles at once.
func TestJacobianReuseCountB(t *testing.T) {
	n := 10
	J := tridiagB(n, 30, -100, 50)
	for _, s := range []*settings{
		{LinearSolver: LinearGMRES, Preconditioner: PrecondILU0, JacobianMaxAge: 3},
		{LinearSolver: LinearBanded, JacobianMaxAge: 3},
	} {
		sys := newLinRowsB(n, J, "")
		_, w := runSteps(t, catalog[5], sys, s, rampB(n, 1), 0.01, 10)
		name := fmt.Sprintf("%v/%v", s.LinearSolver, s.Preconditioner)
		if sys.calls != 4 || w.JacEvals != 4 {
			t.Errorf("%s: %d Jacobian calls, JacEvals %d; want 4", name, sys.calls, w.JacEvals)
		}
		if w.Factorize != 4 {
			t.Errorf("%s: Factorize %d, want 4", name, w.Factorize)
		}
		if w.LinearSolves != w.NewtonIters {
			t.Errorf("%s: LinearSolves %d, NewtonIters %d; want equal", name, w.LinearSolves, w.NewtonIters)
		}
		if s.Preconditioner == PrecondILU0 && w.LinearIters != w.LinearSolves {
			t.Errorf("%s: LinearIters %d over %d solves; want one each", name, w.LinearIters, w.LinearSolves)
		}
		// A new step size: assembled at the first step of each size.
		sys = newLinRowsB(n, J, "")
		st, _ := newS(catalog[5], sys, s)
		st.Init(0, rampB(n, 1))
		for _, dt := range []float64{0.01, 0.01, 0.02, 0.02} {
			if err := st.Step(dt); err != nil {
				t.Fatal(err)
			}
		}
		if sys.calls != 2 {
			t.Errorf("%s: %d Jacobian calls over steps 0.01, 0.01, 0.02, 0.02; want 2", name, sys.calls)
		}
	}
}

// TestMatrixFreeJacobianUseB: matrix-free GMRES assembles the Jacobian
// only for a preconditioner (LinearOptions.MatrixFree): from the
// System's rows with block-Jacobi, never with PrecondNone. Both give
// backward Euler's step to 1e-7 relative (the directional difference's
// error, √ε-sized, is within the Newton tolerance once iterated).
func TestMatrixFreeJacobianUseB(t *testing.T) {
	n, dt := 6, 0.05
	J := tridiagB(n, 2, -10, 3)
	y0 := rampB(n, 1)
	want := beExactB(t, J, n, dt, y0)
	for _, c := range []struct {
		pc    Preconditioner
		calls bool
	}{{PrecondBlockJacobi, true}, {PrecondNone, false}} {
		sys := newLinRowsB(n, J, "")
		y, _ := runSteps(t, catalog[5], sys, &settings{LinearSolver: LinearGMRES, MatrixFree: true, Preconditioner: c.pc}, y0, dt, 1)
		if (sys.calls > 0) != c.calls {
			t.Errorf("%v: %d Jacobian calls", c.pc, sys.calls)
		}
		closeToB(t, fmt.Sprintf("%v", c.pc), y, want, 1e-7)
	}
}

// TestStageSolverOmittedRowsB: rows that JacobianRows does not give are
// zero rows of J, for the stage solver too (ESDIRK43, BDF): leaving out
// J's zero rows 1 and 2 gives the run that emits them, to the Newton
// tolerance (1e-9 relative: the same equations, solved to NewtonTol
// 1e-10 twice).
func TestStageSolverOmittedRowsB(t *testing.T) {
	n, dt := 12, 0.05
	J := tridiagB(n, 3, -20, 5)
	for _, i := range []int{1, 2} {
		clear(J[i*n : (i+1)*n])
	}
	for _, m := range []Method{ESDIRK43{}, BDF{}} {
		for _, lin := range []LinearSolver{LinearGMRES, LinearBanded} {
			s := &settings{LinearSolver: lin, Preconditioner: PrecondILU0}
			full, _ := runSteps(t, m, newLinRowsB(n, J, ""), s, rampB(n, 1), dt, 4)
			omit, _ := runSteps(t, m, newLinRowsB(n, J, "omit"), s, rampB(n, 1), dt, 4)
			closeToB(t, fmt.Sprintf("%s %v", m.Name(), lin), omit, full, 1e-9)
		}
	}
}

// TestBandedOverflowIsLinearFailureB: a banded solve whose result
// overflows (here y' = λ·y with 1 − dt·λ = 1e-12, a pivot well above the
// singularity threshold, and a state of 1e300, so the correction is
// about 1e312) fails the step as a linear-solver failure (LinearFailure,
// no component), not as a non-finite state (backward Euler).
func TestBandedOverflowIsLinearFailureB(t *testing.T) {
	dt := 0.1
	J := []float64{(1 - 1e-12) / dt}
	for _, m := range []Method{catalog[5]} {
		se, _ := stepErrB(t, m, newLinRowsB(1, J, ""), &settings{LinearSolver: LinearBanded}, []float64{1e300}, dt)
		if se.Status != LinearFailure || se.Index != -1 {
			t.Errorf("%s: %v (status %v, index %d); want LinearFailure, no component", m.Name(), se, se.Status, se.Index)
		}
	}
}

// TestZeroDimensionalBlockedB: a System with no state may declare its
// (empty) partition, Blocks() = [0]: accepted, and it steps.
func TestZeroDimensionalBlockedB(t *testing.T) {
	for _, m := range []Method{catalog[5], ESDIRK43{}} {
		st, err := newS(m, linRowsBlockedB{newLinRowsB(0, nil, ""), []int{0}}, &settings{LinearSolver: LinearGMRES})
		if err != nil {
			t.Fatalf("%s: %v", m.Name(), err)
		}
		if err := st.Init(0, nil); err != nil {
			t.Fatal(err)
		}
		if err := st.Step(0.1); err != nil {
			t.Fatalf("%s: %v", m.Name(), err)
		}
	}
}

// partRowsB is a first-order system with positions, velocities and an
// extra quantity (Partitioned): q' = v, v0' = −4·q0 − 0.1·v0 + z,
// v1' = cos t, z' = sin t. The rows of v1 and z in ∂f/∂y are zero; omit
// leaves them out of JacobianRows (allowed: rows not given are zero),
// otherwise they are given with a zero diagonal value. colN gives row 2
// a column 5, out of range.
type partRowsB struct{ omit, colN bool }

func (partRowsB) Dim() int                { return 5 }
func (partRowsB) Pairs() (pos, vel []int) { return []int{0, 1}, []int{2, 3} }
func (partRowsB) Func(t float64, y, d []float64) error {
	d[0], d[1] = y[2], y[3]
	d[2] = -4*y[0] - 0.1*y[2] + y[4]
	d[3] = math.Cos(t)
	d[4] = math.Sin(t)
	return nil
}

func (s partRowsB) JacobianRows(_ float64, _ []float64, emit func(int, []int32, []float64)) error {
	emit(0, []int32{2}, []float64{1})
	emit(1, []int32{3}, []float64{1})
	if s.colN {
		emit(2, []int32{0, 2, 4, 5}, []float64{-4, -0.1, 1, 1})
	} else {
		emit(2, []int32{0, 2, 4}, []float64{-4, -0.1, 1})
	}
	if !s.omit {
		emit(3, []int32{3}, []float64{0})
		emit(4, []int32{4}, []float64{0})
	}
	return nil
}

// TestAlphaOmittedZeroRowsB: leaving the zero rows of a velocity and of
// an extra quantity out of JacobianRows is the same as giving them: the
// generalized-α and Newmark runs (GMRES and banded LU, which assemble the
// Newton matrix from the rows) are bit-identical and do the same work.
// (The Newton matrix's rows for them are (1 − α_m)·e_i for the
// acceleration and e_i for the extra quantity either way.)
func TestAlphaOmittedZeroRowsB(t *testing.T) {
	y0 := []float64{1, 0.5, 0, 0.2, 0.3}
	for _, m := range []Method{GeneralizedAlpha{RhoInf: 0}, GeneralizedAlpha{RhoInf: 0.5}, Newmark{}} {
		for _, lin := range []LinearSolver{LinearGMRES, LinearBanded} {
			s := &settings{LinearSolver: lin, Preconditioner: PrecondILU0}
			given, wg := runSteps(t, m, partRowsB{}, s, y0, 0.05, 6)
			omitted, wo := runSteps(t, m, partRowsB{omit: true}, s, y0, 0.05, 6)
			for i := range given {
				if math.Float64bits(given[i]) != math.Float64bits(omitted[i]) {
					t.Fatalf("%s %v: y[%d] = %v with the zero rows given, %v left out", m.Name(), lin, i, given[i], omitted[i])
				}
			}
			if wg != wo {
				t.Errorf("%s %v: work %+v given, %+v left out", m.Name(), lin, wg, wo)
			}
		}
	}
}

// TestAlphaRowsColumnOutOfRangeB: a Jacobian row with a column equal to
// Dim is refused by the generalized-α and Newmark assembly, naming the
// row and the valid range.
func TestAlphaRowsColumnOutOfRangeB(t *testing.T) {
	for _, m := range []Method{GeneralizedAlpha{RhoInf: 0.5}, Newmark{}} {
		se, _ := stepErrB(t, m, partRowsB{colN: true}, &settings{LinearSolver: LinearGMRES}, []float64{1, 0.5, 0, 0.2, 0.3}, 0.05)
		if se.Status != Failure || !strings.Contains(se.Error(), "row 2: columns must be in [0, 5)") {
			t.Errorf("%s: %v (status %v); want Failure naming row 2 and [0, 5)", m.Name(), se, se.Status)
		}
	}
}

// TestFixedStepNewtonTestIsRelativeB: the fixed-step Newton test
// max|Δz| ≤ Tol·(1 + max|z|) is relative to the state, so a linear
// problem at the scale 1e6 is solved as at the scale 1: the states are
// 1e6 times those of the unit run, to 1e-9 relative (the Newton
// tolerance). At that scale an update cannot fall below the rounding of
// the state (about 1e-10), so a test tighter than relative could not be
// met (ESDIRK43 and BDF, fixed steps, dense LU).
func TestFixedStepNewtonTestIsRelativeB(t *testing.T) {
	n := 5
	J := tridiagB(n, 1.3, -7.1, 2.9)
	for _, m := range []Method{ESDIRK43{}, BDF{}} {
		s := &settings{LinearSolver: LinearDense}
		unit, _ := runSteps(t, m, &linDenseB{n: n, J: J}, s, rampB(n, 1.37), 0.1, 3)
		big, _ := runSteps(t, m, &linDenseB{n: n, J: J}, s, rampB(n, 1.37e6), 0.1, 3)
		for i := range unit {
			if !numtest.Within(big[i]/1e6, unit[i], 1e-9*(1+math.Abs(unit[i]))) {
				t.Fatalf("%s: y[%d] = %v at scale 1e6, %v at scale 1", m.Name(), i, big[i], unit[i])
			}
		}
	}
}

// TestEquilibriumStaysB: a state at an equilibrium (y0 = 0 of y' = J·y)
// stays there exactly: the first Newton residual is zero, GMRES returns
// the zero correction, and the step is y1 = 0 (backward Euler and the
// trapezoid rule, GMRES with and without a preconditioner).
func TestEquilibriumStaysB(t *testing.T) {
	n := 5
	J := tridiagB(n, 1, -4, 2)
	for _, m := range []Method{catalog[5], catalog[6]} {
		for _, pc := range []Preconditioner{PrecondBlockJacobi, PrecondNone} {
			y, _ := runSteps(t, m, newLinRowsB(n, J, ""), &settings{LinearSolver: LinearGMRES, Preconditioner: pc}, make([]float64, n), 0.1, 2)
			for i, v := range y {
				if v != 0 {
					t.Fatalf("%s %v: y[%d] = %v, want 0", m.Name(), pc, i, v)
				}
			}
		}
	}
}

// closeToB fails the test at the first i where got[i] differs from
// want[i] by more than rel·(1 + |want[i]|).
func closeToB(t *testing.T, name string, got, want []float64, rel float64) {
	t.Helper()
	for i := range want {
		if !numtest.Within(got[i], want[i], rel*(1+math.Abs(want[i]))) {
			t.Fatalf("%s: y[%d] = %v, want %v (within %g relative)", name, i, got[i], want[i], rel)
		}
	}
}
