package integrators

import "fmt"

// jacRows is where a stepper gets ∂f/∂y row by row: the System's
// JacobianRows, or its SparseJacobian read through its fixed pattern.
type jacRows struct {
	n    int
	rows JacobianRows
	sj   SparseJacobian
	rp   []int
	col  []int32
	val  []float64
}

// newJacRows returns the source of sys, or nil when it has neither
// capability.
func newJacRows(sys System, n int) (*jacRows, error) {
	if jr, ok := sys.(JacobianRows); ok {
		return &jacRows{n: n, rows: jr}, nil
	}
	sj, ok := sys.(SparseJacobian)
	if !ok {
		return nil, nil
	}
	rp, col := sj.JacobianPattern()
	if err := checkPattern(n, rp, col); err != nil {
		return nil, err
	}
	j := &jacRows{n: n, sj: sj, rp: rp, col: make([]int32, len(col)), val: make([]float64, len(col))}
	for k, c := range col {
		j.col[k] = int32(c)
	}
	return j, nil
}

// eval hands the rows of ∂f/∂y at (t, y) to emit.
func (j *jacRows) eval(t float64, y []float64, emit func(int, []int32, []float64)) error {
	if j.rows != nil {
		return j.rows.JacobianRows(t, y, emit)
	}
	if err := j.sj.SparseJacobian(t, y, j.val); err != nil {
		return err
	}
	for i := 0; i < j.n; i++ {
		a, b := j.rp[i], j.rp[i+1]
		emit(i, j.col[a:b], j.val[a:b])
	}
	return nil
}

// checkRow validates row i of an n×n Jacobian given to emit: in range,
// as many values as columns, not given before in this evaluation (twice).
// The columns are checked as they are read (checkCols, or addScaled).
func checkRow(n, i int, cols []int32, vals []float64, twice bool) error {
	if i < 0 || i >= n {
		return fmt.Errorf("integrators: JacobianRows: row %d out of [0, %d)", i, n)
	}
	if twice {
		return fmt.Errorf("integrators: JacobianRows: row %d given twice", i)
	}
	if len(vals) != len(cols) {
		return fmt.Errorf("integrators: JacobianRows: row %d has %d columns and %d values", i, len(cols), len(vals))
	}
	return nil
}

// errCols is the error of a row whose columns are not strictly
// increasing in [0, n).
func errCols(i, n int) error {
	return fmt.Errorf("integrators: JacobianRows: row %d: columns must be in [0, %d) and strictly increasing", i, n)
}

// checkCols reports whether cols are strictly increasing in [0, n).
func checkCols(cols []int32, n int) bool {
	prev := int32(-1)
	for _, c := range cols {
		if c <= prev {
			return false
		}
		prev = c
	}
	return int(prev) < n
}
