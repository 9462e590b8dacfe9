package integrators

import "testing"

// ILU(0) updates row i only at the columns row i holds: with the
// structurally unsymmetric pattern
//
//	row 0: (0,0) = 4, (0,2) = 1
//	row 1: (1,0) = 1, (1,1) = 4
//	row 2: (2,2) = 4
//
// eliminating (1,0) would update (1,2), which row 1 does not hold
// (dropped fill), so by hand the factors are l10 = 1/4 and the three
// pivots 4, 4 and 4 (stored inverted: 0.25). Row 1's merge walks past its
// last column looking for column 2; the next stored entry is row 2's
// (2,2), which must not be updated (a test "p ≤ end" instead of "p <
// end" would make it 4 − 1/4·1 = 3.75). Exact in binary: every value is
// a power of two or a sum of two.
func TestILU0UnsymmetricPatternEndOfRow(t *testing.T) {
	A := testMatrix(3, func(i int, row []float64) {
		switch i {
		case 0:
			row[0], row[2] = 4, 1
		case 1:
			row[0], row[1] = 1, 4
		case 2:
			row[2] = 4
		}
	})
	f := newILU0(3)
	if err := f.setup(A); err != nil {
		t.Fatal(err)
	}
	want := []float64{0.25, 1, 0.25, 0.25, 0.25} // row 0: 1/u00, u02; row 1: l10, 1/u11; row 2: 1/u22
	if len(f.val) != len(want) {
		t.Fatalf("%d factor values, want %d", len(f.val), len(want))
	}
	for k := range want {
		if f.val[k] != want[k] {
			t.Errorf("factor values %v, want %v", f.val, want)
			break
		}
	}
}
