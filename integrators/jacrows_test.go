package integrators

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
)

// rowsChain is chain1D seen only through JacobianRows (no SparseJacobian,
// no dense Jacobian): the same rows as chain1D's pattern, each with its
// values, every entry given (zeros included when pad is set: a System
// declaring a coarser pattern than its true non-zeros, as a graph does).
type rowsChain struct {
	ch  *chain1D
	pad bool
	val []float64
	buf []int32
	vb  []float64
}

func newRowsChain(ch *chain1D, pad bool) *rowsChain {
	return &rowsChain{ch: ch, pad: pad, val: make([]float64, len(ch.col))}
}

func (r *rowsChain) Dim() int                               { return r.ch.Dim() }
func (r *rowsChain) Func(t float64, y, dst []float64) error { return r.ch.Func(t, y, dst) }
func (r *rowsChain) Pairs() (pos, vel []int)                { return r.ch.Pairs() }
func (r *rowsChain) Blocks() []int                          { return r.ch.Blocks() }
func (r *rowsChain) JacobianRows(t float64, y []float64, emit func(int, []int32, []float64)) error {
	if err := r.ch.SparseJacobian(t, y, r.val); err != nil {
		return err
	}
	n := r.ch.Dim()
	for i := 0; i < n; i++ {
		r.buf, r.vb = r.buf[:0], r.vb[:0]
		a, b := r.ch.rp[i], r.ch.rp[i+1]
		if r.pad {
			// Every column of the row's two masses and their neighbours,
			// zeros where the chain has no entry.
			lo, hi := max(0, i/2*2-2), min(n, i/2*2+4)
			k := a
			for c := lo; c < hi; c++ {
				v := 0.0
				if k < b && r.ch.col[k] == c {
					v = r.val[k]
					k++
				}
				r.buf, r.vb = append(r.buf, int32(c)), append(r.vb, v)
			}
		} else {
			for k := a; k < b; k++ {
				r.buf, r.vb = append(r.buf, int32(r.ch.col[k])), append(r.vb, r.val[k])
			}
		}
		emit(i, r.buf, r.vb)
	}
	return nil
}

// TestJacobianRowsLikeSparseJacobian: a System giving its Jacobian row by
// row (JacobianRows) is integrated exactly as the same System giving it
// through a fixed pattern (SparseJacobian), bit for bit, by every
// implicit method (the fixed-step Steppers of ESDIRK and BDF included)
// with every sparse solver: both hand the same rows to the same assembly. Padding the rows with explicit zeros changes
// nothing either: the Newton matrix stores only the non-zeros (and its
// diagonal), which the test checks by counting them.
func TestJacobianRowsLikeSparseJacobian(t *testing.T) {
	ch := newChain1D(12, 1e7, 10, 1e9)
	y0 := ch.initial(0.01)
	methods := []Method{catalog[5], catalog[6], Newmark{Beta: 0.25, Gamma: 0.5}, GeneralizedAlpha{RhoInf: 0.5}, ESDIRK43{}, ESDIRK32{}, BDF{}}
	solvers := []*settings{
		{LinearSolver: LinearGMRES, Preconditioner: PrecondILU0},
		{LinearSolver: LinearGMRES, Preconditioner: PrecondBlockJacobi},
		{LinearSolver: LinearGMRES, Preconditioner: PrecondNone},
		{LinearSolver: LinearBanded},
	}
	for _, m := range methods {
		for _, s := range solvers {
			want, _ := runSteps(t, m, ch, s, y0, 1e-3, 6)
			for _, pad := range []bool{false, true} {
				got, _ := runSteps(t, m, newRowsChain(ch, pad), s, y0, 1e-3, 6)
				for i := range want {
					if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
						t.Fatalf("%s %v/%v pad=%v: y[%d] = %v with JacobianRows, %v with SparseJacobian", m.Name(), s.LinearSolver, s.Preconditioner, pad, i, got[i], want[i])
					}
				}
			}
		}
	}
	// The stored entries: 2 per position row (diagonal and velocity),
	// 6 per velocity row of an inner mass, 4 at the two ends.
	st, err := newS(catalog[5], newRowsChain(ch, true), &settings{LinearSolver: LinearGMRES, Preconditioner: PrecondILU0})
	if err != nil {
		t.Fatal(err)
	}
	st.Init(0, y0)
	if err := st.Step(1e-3); err != nil {
		t.Fatal(err)
	}
	if got, want := st.(*implicitStepper).nl.A.nnz(), 2*12+6*12-4; got != want {
		t.Errorf("the Newton matrix stores %d entries, want the %d non-zeros", got, want)
	}
}

// extraChain is chain1D with one extra first-order component z (an
// "other" component for the Newmark family): z' = −z + x_0, which adds
// nothing to the masses. Its rows come through JacobianRows.
type extraChain struct{ r *rowsChain }

func (e extraChain) Dim() int { return e.r.Dim() + 1 }
func (e extraChain) Func(t float64, y, dst []float64) error {
	n := e.r.Dim()
	if err := e.r.Func(t, y[:n], dst[:n]); err != nil {
		return err
	}
	dst[n] = -y[n] + y[0]
	return nil
}
func (e extraChain) Pairs() (pos, vel []int) { return e.r.Pairs() }
func (e extraChain) JacobianRows(t float64, y []float64, emit func(int, []int32, []float64)) error {
	n := e.r.Dim()
	if err := e.r.JacobianRows(t, y[:n], emit); err != nil {
		return err
	}
	emit(n, []int32{0, int32(n)}, []float64{1, -1})
	return nil
}
func (e extraChain) Jacobian(t float64, y, dst []float64) error {
	n := e.r.Dim()
	clear(dst)
	d := make([]float64, n*n)
	if err := e.r.ch.Jacobian(t, y[:n], d); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		copy(dst[i*(n+1):i*(n+1)+n], d[i*n:(i+1)*n])
	}
	dst[n*(n+1)], dst[n*(n+1)+n] = 1, -1
	return nil
}

// TestJacobianRowsExtraComponents: the Newmark family assembles its
// Newton matrix over [a, z] from two evaluations of the rows (a rows at
// the weighted state, z rows at the endpoint) and reaches dense LU's
// states to the Newton tolerance (the reference of TestKrylovAgreesWithDense:
// 10 steps, 10·NewtonTol relative to the amplitude plus the extra
// component's size).
func TestJacobianRowsExtraComponents(t *testing.T) {
	ch := newChain1D(8, 1e7, 10, 1e9)
	sys := extraChain{newRowsChain(ch, true)}
	y0 := append(ch.initial(0.01), 0.002)
	for _, m := range []Method{Newmark{Beta: 0.25, Gamma: 0.5}, GeneralizedAlpha{RhoInf: 0.5}} {
		ref, _ := runSteps(t, m, sys, &settings{LinearSolver: LinearDense, NewtonTol: 1e-12}, y0, 1e-3, 10)
		for _, s := range []*settings{
			{LinearSolver: LinearGMRES, Preconditioner: PrecondILU0, NewtonTol: 1e-12},
			{LinearSolver: LinearGMRES, Preconditioner: PrecondBlockJacobi, NewtonTol: 1e-12},
			{LinearSolver: LinearBanded, NewtonTol: 1e-12},
		} {
			got, st := runSteps(t, m, sys, s, y0, 1e-3, 10)
			for i := range ref {
				if !numtest.Within(got[i], ref[i], 10*1e-12*(1+0.01)) {
					t.Fatalf("%s %v/%v: y[%d] = %v, dense %v", m.Name(), s.LinearSolver, s.Preconditioner, i, got[i], ref[i])
				}
			}
			if st.JacEvals == 0 {
				t.Errorf("%s %v: no Jacobian assembled", m.Name(), s.LinearSolver)
			}
		}
	}
}

// badRows gives rows that break the JacobianRows contract.
type badRows struct {
	*rowsChain
	how string
}

func (b badRows) JacobianRows(t float64, y []float64, emit func(int, []int32, []float64)) error {
	switch b.how {
	case "twice":
		emit(1, []int32{0, 1}, []float64{1, 2})
		emit(1, []int32{0, 1}, []float64{1, 2})
	case "order":
		emit(1, []int32{1, 0}, []float64{1, 2})
	case "range":
		emit(1, []int32{0, 99}, []float64{1, 2})
	case "negative":
		emit(1, []int32{-1, 0}, []float64{1, 2})
	case "row":
		emit(99, []int32{0}, []float64{1})
	case "values":
		emit(1, []int32{0, 1}, []float64{1})
	}
	return nil
}

// TestJacobianRowsContract: rows that break the contract (a row given
// twice, columns not strictly increasing or out of range, a row out of
// range, fewer values than columns) fail the step with a Failure naming
// the row, for the implicit methods, the Newmark family and the ESDIRK
// and BDF steppers alike; they never reach the matrix.
func TestJacobianRowsContract(t *testing.T) {
	ch := newChain1D(4, 1e7, 10, 0)
	for _, m := range []Method{catalog[5], GeneralizedAlpha{RhoInf: 0.5}, ESDIRK43{}, BDF{}} {
		for how, want := range map[string]string{
			"twice": "row 1 given twice", "order": "row 1: columns must be", "range": "row 1: columns must be",
			"negative": "row 1: columns must be", "row": "row 99 out of", "values": "row 1 has 2 columns and 1 values",
		} {
			st, err := newS(m, badRows{newRowsChain(ch, false), how}, &settings{LinearSolver: LinearGMRES, Preconditioner: PrecondILU0})
			if err != nil {
				t.Fatal(err)
			}
			st.Init(0, ch.initial(0.01))
			err = st.Step(1e-3)
			var se *StepError
			if !errors.As(err, &se) || se.Status != Failure || !strings.Contains(err.Error(), "JacobianRows: "+want) {
				t.Errorf("%s %s: %v", m.Name(), how, err)
			}
		}
	}
}

// denseChain is chain1D seen through its dense Jacobian only (and its
// blocks): the sparse solvers take the Jacobian's non-zeros from it.
type denseChain struct{ ch *chain1D }

func (d denseChain) Dim() int                                   { return d.ch.Dim() }
func (d denseChain) Func(t float64, y, dst []float64) error     { return d.ch.Func(t, y, dst) }
func (d denseChain) Blocks() []int                              { return d.ch.Blocks() }
func (d denseChain) Jacobian(t float64, y, dst []float64) error { return d.ch.Jacobian(t, y, dst) }

// stageOf returns the stage solver of an adaptive implicit driver.
func stageOf(t *testing.T, d Driver) *stageSolver {
	switch d := d.(type) {
	case *bdfDriver:
		return d.ss
	case *esdirkDriver:
		return d.ss
	}
	t.Fatalf("%T is not an adaptive implicit driver", d)
	return nil
}

// TestAdaptiveImplicitJacobianSources: the adaptive implicit drivers
// (BDF, ESDIRK43, ESDIRK32) assemble their sparse Newton matrix from
// whichever source of J a System has — JacobianRows (with or without
// explicit zeros), SparseJacobian, a dense Jacobian — and integrate the
// stiff chain bit for bit alike, with the same work, with every solver
// that assembles a matrix: each stores J's non-zeros and the diagonal and
// forms I − γh·J over them. The stored entries are counted: 2 per
// position row, 6 per velocity row of an inner mass, 4 at the two ends.
func TestAdaptiveImplicitJacobianSources(t *testing.T) {
	ch := newChain1D(12, 1e7, 10, 1e9)
	y0 := ch.initial(0.01)
	const tEnd = 2e-3 // about 40 steps of BDF at these tolerances
	for _, ls := range linearSolvers {
		if ls.name == "dense" || ls.lin.MatrixFree && ls.lin.Preconditioner == PrecondNone {
			continue // no sparse matrix
		}
		for _, m := range adaptiveImplicit(1e-6, 1e-9, ls.lin) {
			want, err := Integrate(m, ch, 0, y0, tEnd, nil)
			if err != nil {
				t.Fatalf("%s %s: %v", m.Name(), ls.name, err)
			}
			for k, sys := range []System{newRowsChain(ch, false), newRowsChain(ch, true), denseChain{ch}} {
				got, err := Integrate(m, sys, 0, y0, tEnd, nil)
				if err != nil {
					t.Fatalf("%s %s source %d: %v", m.Name(), ls.name, k, err)
				}
				if got.T != want.T || got.Work != want.Work {
					t.Fatalf("%s %s source %d: t = %v, work %+v; with SparseJacobian t = %v, work %+v", m.Name(), ls.name, k, got.T, got.Work, want.T, want.Work)
				}
				for i := range want.Y {
					if math.Float64bits(got.Y[i]) != math.Float64bits(want.Y[i]) {
						t.Fatalf("%s %s source %d: y[%d] = %v, with SparseJacobian %v", m.Name(), ls.name, k, i, got.Y[i], want.Y[i])
					}
				}
			}
		}
	}
	for _, sys := range []System{newRowsChain(ch, true), denseChain{ch}} {
		d, err := BDF{Linear: LinearOptions{Solver: LinearGMRES, Preconditioner: PrecondILU0}}.NewDriver(sys, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Init(0, y0); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Step(tEnd); err != nil {
			t.Fatal(err)
		}
		if got, want := stageOf(t, d).nl.A.nnz(), 2*12+6*12-4; got != want {
			t.Errorf("%T: the Newton matrix stores %d entries, want the %d non-zeros", sys, got, want)
		}
	}
}

// TestAdaptiveImplicitJacobianRowsContract: Jacobian rows that break the
// contract end an adaptive implicit run with a Failure naming the row
// (not a Newton failure retried at smaller steps: the System is wrong).
func TestAdaptiveImplicitJacobianRowsContract(t *testing.T) {
	ch := newChain1D(4, 1e7, 10, 0)
	for _, m := range adaptiveImplicit(1e-6, 1e-9, LinearOptions{Solver: LinearBanded}) {
		_, err := Integrate(m, badRows{newRowsChain(ch, false), "twice"}, 0, ch.initial(0.01), 1e-3, nil)
		var se *StepError
		if !errors.As(err, &se) || se.Status != Failure || !strings.Contains(err.Error(), "JacobianRows: row 1 given twice") {
			t.Errorf("%s: %v", m.Name(), err)
		}
	}
}
