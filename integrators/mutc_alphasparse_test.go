package integrators

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// linZC is a linear damped oscillator coupled to an extra first-order
// quantity, y = [v, x, z] (the velocity first, so that the Jacobian's
// row 0 is an acceleration row):
//
//	v' = −x − 0.5·v + 0.3·z,  x' = v,  z' = x + 0.7·v − 2·z,
//
// whose Jacobian comes row by row (JacobianRows). badRow, when set,
// makes it also emit row Dim, which breaks the contract.
type linZC struct{ badRow bool }

func (linZC) Dim() int                { return 3 }
func (linZC) Pairs() (pos, vel []int) { return []int{1}, []int{0} }
func (linZC) Func(t float64, y, dst []float64) error {
	v, x, z := y[0], y[1], y[2]
	dst[0], dst[1], dst[2] = -x-0.5*v+0.3*z, v, x+0.7*v-2*z
	return nil
}
func (l linZC) JacobianRows(t float64, y []float64, emit func(int, []int32, []float64)) error {
	emit(0, []int32{0, 1, 2}, []float64{-0.5, -1, 0.3})
	emit(1, []int32{0}, []float64{1})
	emit(2, []int32{0, 1, 2}, []float64{0.7, 1, -2})
	if l.badRow {
		emit(3, []int32{0}, []float64{1})
	}
	return nil
}

// TestAlphaSparseNewtonMatrixC: generalized-alpha with an assembled
// sparse Newton matrix (JacobianRows, banded direct solver) on a linear
// problem: with the exact Newton matrix over [a, z] each step's Newton
// iteration is exact at its first update, and the second confirms it
// (|Δx| at rounding level): 2 iterations per step. Every coefficient of
// the matrix (the acceleration rows' and the extra rows' weights of
// ∂/∂q, ∂/∂v, ∂/∂z) enters: a wrong one leaves a linear convergence
// rate and more iterations. The states agree with the dense solver's
// (finite-difference Newton matrix) to 10·NewtonTol.
func TestAlphaSparseNewtonMatrixC(t *testing.T) {
	y0 := []float64{0.3, 1, -0.5}
	const steps = 10
	for _, m := range []Method{GeneralizedAlpha{RhoInf: 0.5}, Newmark{}} {
		got, w := runSteps(t, m, linZC{}, &settings{LinearSolver: LinearBanded, NewtonTol: 1e-12}, y0, 0.1, steps)
		if w.NewtonIters != 2*steps {
			t.Errorf("%s: %d Newton iterations in %d steps, want 2 per step (exact Newton matrix on a linear problem)", m.Name(), w.NewtonIters, steps)
		}
		if w.JacEvals == 0 {
			t.Errorf("%s: no Jacobian assembled", m.Name())
		}
		ref, _ := runSteps(t, m, linZC{}, &settings{LinearSolver: LinearDense, NewtonTol: 1e-12}, y0, 0.1, steps)
		for i := range ref {
			if d := got[i] - ref[i]; d > 1e-11 || d < -1e-11 {
				t.Errorf("%s: y[%d] = %v, dense %v", m.Name(), i, got[i], ref[i])
			}
		}
	}
}

// TestAlphaSparseBadRowC: a row index equal to Dim breaks the
// JacobianRows contract: the step fails with a Failure naming the row
// (no component index), and does not panic.
func TestAlphaSparseBadRowC(t *testing.T) {
	st, err := newS(GeneralizedAlpha{RhoInf: 0.5}, linZC{badRow: true}, &settings{LinearSolver: LinearBanded})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Init(0, []float64{0.3, 1, -0.5}); err != nil {
		t.Fatal(err)
	}
	err = st.Step(0.1)
	var se *StepError
	if !errors.As(err, &se) || se.Status != Failure || se.Index != -1 || !strings.Contains(err.Error(), "row 3 out of") {
		t.Errorf("err %v, want a Failure naming row 3, Index -1", err)
	}
}

// linZBlocksC is linZC as one block (Blocked): block-Jacobi is then the
// exact inverse of the Newton matrix.
type linZBlocksC struct{ linZC }

func (linZBlocksC) Blocks() []int { return []int{0, 3} }

// noJacC hides the oscillator's analytic Jacobian.
type noJacC struct{ o *oscillator }

func (n noJacC) Dim() int                               { return 2 }
func (n noJacC) Func(t float64, y, dst []float64) error { return n.o.Func(t, y, dst) }
func (n noJacC) Pairs() (pos, vel []int)                { return n.o.Pairs() }

// TestAlphaKrylovSetupC: how generalized-alpha sets up GMRES.
//   - Block-Jacobi takes the System's blocks over the unknowns [a, z]:
//     with one block it is the exact inverse of the Newton matrix, so
//     every GMRES solve takes one iteration.
//   - Matrix-free without a preconditioner assembles no Jacobian, even
//     from a System that gives its rows.
//   - With a preconditioner and no rows, the System's analytic Jacobian
//     is used where there is one: fewer evaluations of f than the same
//     run without it (finite differences).
func TestAlphaKrylovSetupC(t *testing.T) {
	m := GeneralizedAlpha{RhoInf: 0.5}
	y0 := []float64{0.3, 1, -0.5}
	_, w := runSteps(t, m, linZBlocksC{}, &settings{LinearSolver: LinearGMRES, Preconditioner: PrecondBlockJacobi}, y0, 0.1, 5)
	if w.LinearSolves == 0 || w.LinearIters != w.LinearSolves {
		t.Errorf("block-Jacobi over one block: %d GMRES iterations for %d solves, want one each", w.LinearIters, w.LinearSolves)
	}
	_, w = runSteps(t, m, linZC{}, &settings{LinearSolver: LinearGMRES, Preconditioner: PrecondNone, MatrixFree: true}, y0, 0.1, 5)
	if w.JacEvals != 0 || w.LinearIters == 0 {
		t.Errorf("matrix-free without preconditioner: %+v, want no Jacobian and some GMRES iterations", w)
	}
	for _, mf := range []bool{false, true} {
		s := &settings{LinearSolver: LinearGMRES, Preconditioner: PrecondILU0, MatrixFree: mf}
		_, with := runSteps(t, m, &oscillator{}, s, []float64{1, 0}, 0.1, 5)
		_, without := runSteps(t, m, noJacC{&oscillator{}}, s, []float64{1, 0}, 0.1, 5)
		if with.FuncEvals >= without.FuncEvals {
			t.Errorf("ILU(0), matrix-free %v: %d evaluations with the analytic Jacobian, %d without: want fewer with it", mf, with.FuncEvals, without.FuncEvals)
		}
	}
}

// decayPairsC has nq oscillators q” = −q and nz decays z' = −z.
func decayPairsC(nq, nz int) partFunc {
	pos, vel := make([]int, nq), make([]int, nq)
	for i := range nq {
		pos[i], vel[i] = 2*i, 2*i+1
	}
	return partFunc{n: 2*nq + nz, pos: pos, vel: vel, f: func(t float64, y, dst []float64) error {
		for i := range nq {
			dst[2*i], dst[2*i+1] = y[2*i+1], -y[2*i]
		}
		for k := 2 * nq; k < len(y); k++ {
			dst[k] = -y[k]
		}
		return nil
	}}
}

// TestAlphaAutoSolverSizeC: the automatic linear solver is dense LU up to
// AutoDenseMax (24) unknowns of the Newton iteration and GMRES above;
// generalized-alpha's unknowns are [a, z], nq + nz of them: 4 + 20 = 24
// is solved densely (no GMRES iteration), 5 + 20 = 25 with GMRES.
func TestAlphaAutoSolverSizeC(t *testing.T) {
	for _, tc := range []struct {
		nq, nz int
		gmres  bool
	}{{4, 20, false}, {5, 20, true}} {
		sys := decayPairsC(tc.nq, tc.nz)
		y0 := make([]float64, sys.n)
		for i := range y0 {
			y0[i] = 1
		}
		_, w := runSteps(t, GeneralizedAlpha{}, sys, nil, y0, 0.1, 3)
		if (w.LinearIters > 0) != tc.gmres {
			t.Errorf("nq %d, nz %d: %d GMRES iterations, want GMRES %v", tc.nq, tc.nz, w.LinearIters, tc.gmres)
		}
	}
}

// oscRowsC is the oscillator y = [v, x], v' = −x, x' = v, with its
// Jacobian row by row; nanRow0 puts a NaN into row 0.
type oscRowsC struct{ nanRow0 bool }

func (oscRowsC) Dim() int                { return 2 }
func (oscRowsC) Pairs() (pos, vel []int) { return []int{1}, []int{0} }
func (oscRowsC) Func(t float64, y, dst []float64) error {
	dst[0], dst[1] = -y[1], y[0]
	return nil
}
func (o oscRowsC) JacobianRows(t float64, y []float64, emit func(int, []int32, []float64)) error {
	v := -1.0
	if o.nanRow0 {
		v = math.NaN()
	}
	emit(0, []int32{1}, []float64{v})
	emit(1, []int32{0}, []float64{1})
	return nil
}

// TestAlphaSparseJacEvalsC: an assembled Newton matrix of the Newmark
// family evaluates the rows once without extra quantities, twice with
// them (acceleration rows at the weighted state, extra rows at the end
// point), each counted in Work.JacEvals: JacEvals = Factorize (one
// assembly and preconditioner setup each) without, 2·Factorize with.
func TestAlphaSparseJacEvalsC(t *testing.T) {
	s := &settings{LinearSolver: LinearBanded}
	_, w := runSteps(t, GeneralizedAlpha{RhoInf: 0.5}, oscRowsC{}, s, []float64{0, 1}, 0.1, 5)
	if w.Factorize == 0 || w.JacEvals != w.Factorize {
		t.Errorf("nz = 0: %d row evaluations for %d assemblies, want one each", w.JacEvals, w.Factorize)
	}
	_, w = runSteps(t, GeneralizedAlpha{RhoInf: 0.5}, linZC{}, s, []float64{0.3, 1, -0.5}, 0.1, 5)
	if w.Factorize == 0 || w.JacEvals != 2*w.Factorize {
		t.Errorf("nz = 1: %d row evaluations for %d assemblies, want two each", w.JacEvals, w.Factorize)
	}
}

// TestAlphaSparseNaNRowC: a NaN in the Jacobian's row 0 fails the step
// with NonFinite naming row 0.
func TestAlphaSparseNaNRowC(t *testing.T) {
	st, err := newS(GeneralizedAlpha{RhoInf: 0.5}, oscRowsC{nanRow0: true}, &settings{LinearSolver: LinearBanded})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Init(0, []float64{0, 1}); err != nil {
		t.Fatal(err)
	}
	err = st.Step(0.1)
	var se *StepError
	if !errors.As(err, &se) || se.Status != NonFinite || se.Index != 0 {
		t.Errorf("err %v, want NonFinite in row 0", err)
	}
}

// oneZC is z' = −z alone (no pairs), whose rows are right at the first
// evaluation of a step and name row 5 at the second (the extra rows at
// the end point): a contract breach must be a Failure, not a panic.
type oneZC struct{ calls *int }

func (oneZC) Dim() int                { return 1 }
func (oneZC) Pairs() (pos, vel []int) { return nil, nil }
func (oneZC) Func(t float64, y, dst []float64) error {
	dst[0] = -y[0]
	return nil
}
func (o oneZC) JacobianRows(t float64, y []float64, emit func(int, []int32, []float64)) error {
	*o.calls++
	r := 0
	if *o.calls%2 == 0 {
		r = 5
	}
	emit(r, []int32{0}, []float64{-1})
	return nil
}

func TestAlphaSparseBadSecondEvaluationC(t *testing.T) {
	n := 0
	st, err := newS(GeneralizedAlpha{RhoInf: 0.5}, oneZC{&n}, &settings{LinearSolver: LinearBanded})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Init(0, []float64{1}); err != nil {
		t.Fatal(err)
	}
	err = st.Step(0.1)
	var se *StepError
	if !errors.As(err, &se) || se.Status != Failure || !strings.Contains(err.Error(), "row 5 out of [0, 1)") {
		t.Errorf("err %v, want a Failure naming row 5", err)
	}
}

// TestAlphaSparseCheckpointJacobianPointC: the checkpoint of a stepper
// that reuses its assembled Newton matrix across steps records the point
// of the last Jacobian: the weighted state, and the end point only when
// there are extra quantities (none here: YE empty); restored into a
// fresh stepper, the run goes on bit for bit.
func TestAlphaSparseCheckpointJacobianPointC(t *testing.T) {
	s := &settings{LinearSolver: LinearBanded}
	m := GeneralizedAlpha{RhoInf: 0.5}
	a, err := newS(m, oscRowsC{}, s)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Init(0, []float64{0, 1}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := a.Step(0.1); err != nil {
			t.Fatal(err)
		}
	}
	cp := a.(Checkpointer).Checkpoint()
	if cp.Jac == nil || len(cp.Jac.Y) != 2 || len(cp.Jac.YE) != 0 {
		t.Fatalf("checkpoint Jacobian point %+v: want Y of 2 and no YE", cp.Jac)
	}
	b, _ := newS(m, oscRowsC{}, s)
	if err := b.(Checkpointer).Restore(cp); err != nil {
		t.Fatal(err)
	}
	stepBothC(t, a, b, 3, 0.1)
	_, ya := a.State()
	_, yb := b.State()
	if ya[0] != yb[0] || ya[1] != yb[1] {
		t.Errorf("restored %v, uninterrupted %v", yb, ya)
	}
}

// linZ2C is y = [v, x, z1, z2]: v' = −x + 0.3·z1, x' = v,
// z1' = x − 2·z1, z2' = −3·z2, in blocks {v, x, z1} and {z2}, with its
// rows. Over generalized-alpha's unknowns [a, z1, z2] the Newton matrix
// is block-diagonal with blocks {a, z1} and {z2}: block-Jacobi over the
// System's blocks is its exact inverse.
type linZ2C struct{}

func (linZ2C) Dim() int                { return 4 }
func (linZ2C) Pairs() (pos, vel []int) { return []int{1}, []int{0} }
func (linZ2C) Blocks() []int           { return []int{0, 3, 4} }
func (linZ2C) Func(t float64, y, dst []float64) error {
	v, x, z1, z2 := y[0], y[1], y[2], y[3]
	dst[0], dst[1], dst[2], dst[3] = -x+0.3*z1, v, x-2*z1, -3*z2
	return nil
}
func (linZ2C) JacobianRows(t float64, y []float64, emit func(int, []int32, []float64)) error {
	emit(0, []int32{1, 2}, []float64{-1, 0.3})
	emit(1, []int32{0}, []float64{1})
	emit(2, []int32{1, 2}, []float64{1, -2})
	emit(3, []int32{3}, []float64{-3})
	return nil
}

// TestAlphaBlocksOverExtraQuantitiesC: block-Jacobi maps each extra
// quantity to its own System block: with linZ2C it is exact, one GMRES
// iteration per solve.
func TestAlphaBlocksOverExtraQuantitiesC(t *testing.T) {
	_, w := runSteps(t, GeneralizedAlpha{RhoInf: 0.5}, linZ2C{}, &settings{LinearSolver: LinearGMRES, Preconditioner: PrecondBlockJacobi}, []float64{0.3, 1, -0.5, 2}, 0.1, 5)
	if w.LinearSolves == 0 || w.LinearIters != w.LinearSolves {
		t.Errorf("%d GMRES iterations for %d solves, want one each (exact block-Jacobi)", w.LinearIters, w.LinearSolves)
	}
}

// rowsDecayC is decayPairsC with its Jacobian row by row.
type rowsDecayC struct {
	partFunc
	nq int
}

func (r rowsDecayC) JacobianRows(t float64, y []float64, emit func(int, []int32, []float64)) error {
	for i := range r.nq {
		emit(2*i, []int32{int32(2*i + 1)}, []float64{1})
		emit(2*i+1, []int32{int32(2 * i)}, []float64{-1})
	}
	for k := 2 * r.nq; k < len(y); k++ {
		emit(k, []int32{int32(k)}, []float64{-1})
	}
	return nil
}

// TestAlphaRowsUsedC: where generalized-alpha solves with GMRES and
// assembles a matrix (for the products or the preconditioner), it
// assembles it from the System's rows when it gives them, which costs no
// evaluation of f, instead of finite differences (one evaluation per
// unknown): the run with rows evaluates f fewer times than the same run
// without. Cases: the automatic solver above AutoDenseMax unknowns
// (5 + 20 = 25 of [a, z]), and matrix-free products with an ILU(0)
// preconditioner.
func TestAlphaRowsUsedC(t *testing.T) {
	plain := decayPairsC(5, 20)
	y0 := make([]float64, plain.n)
	for i := range y0 {
		y0[i] = 1
	}
	for _, s := range []*settings{nil, {LinearSolver: LinearGMRES, Preconditioner: PrecondILU0, MatrixFree: true}} {
		_, with := runSteps(t, GeneralizedAlpha{}, rowsDecayC{plain, 5}, s, y0, 0.1, 3)
		_, without := runSteps(t, GeneralizedAlpha{}, plain, s, y0, 0.1, 3)
		if with.FuncEvals >= without.FuncEvals {
			t.Errorf("%+v: %d evaluations of f with rows, %d without: want fewer with them", s, with.FuncEvals, without.FuncEvals)
		}
	}
}
