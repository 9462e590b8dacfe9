package integrators

import "testing"

// patternSystem is y' = −y (n = 3) offering a SparseJacobian on a given
// pattern; only the pattern matters here.
type patternSystem struct{ rp, col []int }

func (patternSystem) Dim() int { return 3 }
func (patternSystem) Func(_ float64, y, d []float64) error {
	for i := range y {
		d[i] = -y[i]
	}
	return nil
}
func (p patternSystem) JacobianPattern() (rowPtr, col []int) { return p.rp, p.col }
func (p patternSystem) SparseJacobian(_ float64, _, val []float64) error {
	for k := range val {
		val[k] = -1
	}
	return nil
}

// TestSparsePatternChecked: a SparseJacobian's pattern is checked when a
// GMRES stepper is made (SparseJacobian's contract: rowPtr non-decreasing,
// the columns of each row strictly ascending in [0, Dim)). A valid
// pattern with an empty row is accepted; a decreasing rowPtr, a column
// equal to Dim, a repeated column and a descending pair are each refused
// with an error, not a panic or a wrong matrix.
func TestSparsePatternChecked(t *testing.T) {
	m := BackwardEuler{Linear: LinearOptions{Solver: LinearGMRES}}
	for _, c := range []struct {
		name    string
		rp, col []int
		ok      bool
	}{
		{"diagonal with an empty row", []int{0, 1, 1, 2}, []int{0, 2}, true},
		{"full", []int{0, 3, 6, 9}, []int{0, 1, 2, 0, 1, 2, 0, 1, 2}, true},
		{"rowPtr decreases", []int{0, 2, 1, 2}, []int{0, 1}, false},
		{"column = Dim", []int{0, 1, 2, 3}, []int{0, 1, 3}, false},
		{"repeated column", []int{0, 1, 3, 4}, []int{0, 1, 1, 2}, false},
		{"descending columns", []int{0, 1, 3, 4}, []int{0, 2, 1, 2}, false},
	} {
		_, err := m.New(patternSystem{c.rp, c.col}, nil)
		if (err == nil) != c.ok {
			t.Errorf("%s: error %v, want accepted = %v", c.name, err, c.ok)
		}
	}
}
