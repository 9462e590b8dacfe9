package coupling

import (
	"fmt"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/google/go-cmp/cmp"
)

// The IQN-ILS filter drops a column with no part orthogonal to the newer
// columns (|R_jj| ≤ filter·‖V_j‖): a zero difference, which a repeated
// iterate produces (r and G(u) unchanged), has R_jj = 0 = filter·0 and is
// dropped, whether it is the newest column or one in the middle, and the
// step is the quasi-Newton step of the columns left, in their order,
// with their own W columns.
//
// The columns are set through RestoreState (a checkpoint) so that the
// test knows them exactly. With the columns left the unit vectors e1 and
// e2 of a 3-value interface, α = argmin ‖V·α + r‖ is (−r_1, −r_2) and the
// next iterate is g − r_1·W_{e1} − r_2·W_{e2}: closed form. QR of unit
// columns is exact (Householder reflectors of a column already along its
// axis are the identity), so the tolerance 1e-15 covers the few
// roundings of the solve and the sum.
func TestIQNILSDropsZeroColumn(t *testing.T) {
	e1, e2, zero := []float64{1, 0, 0}, []float64{0, 1, 0}, []float64{0, 0, 0}
	w1, w2, wz := []float64{0.5, -1, 2}, []float64{-0.25, 3, 1}, []float64{7, 7, 7}
	u, g := []float64{1, 2, 3}, []float64{1.5, 1, 4} // r = g − u = (0.5, −1, 1)
	// g − r_1·W_{e1} − r_2·W_{e2}, with r_1 = 0.5, r_2 = −1.
	want := make([]float64, 3)
	for i := range want {
		want[i] = g[i] - 0.5*w1[i] + 1*w2[i]
	}
	for _, c := range []struct {
		name         string
		v, w         [][]float64
		keptV, keptW [][]float64
	}{
		{name: "middle", v: [][]float64{e1, zero, e2}, w: [][]float64{w1, wz, w2},
			keptV: [][]float64{e1, e2}, keptW: [][]float64{w1, w2}},
		{name: "newest", v: [][]float64{zero, e1, e2}, w: [][]float64{wz, w1, w2},
			keptV: [][]float64{e1, e2}, keptW: [][]float64{w1, w2}},
	} {
		t.Run(c.name, func(t *testing.T) {
			acc, _ := NewAccelerator(Acceleration{Accel: IQNILS, Reuse: 1}, 3)
			st := AccelState{Accel: IQNILS, Step: 1, V: c.v, W: c.w, Tags: []int{1, 1, 1}}
			if err := acc.(StateSaver).RestoreState(st); err != nil {
				t.Fatal(err)
			}
			acc.Begin() // step 2: columns of step 1 are kept (Reuse 1)
			dst := make([]float64, 3)
			acc.Next(dst, u, g)
			for i := range dst {
				numtest.ExpectWithin(t, fmt.Sprintf("next iterate[%d]", i), dst[i], want[i], 1e-15)
			}
			if s := acc.Stats(); s.Dropped != 1 || s.Columns != 2 || s.Fallbacks != 0 {
				t.Errorf("stats %+v, want 1 dropped, 2 columns, no fallback", s)
			}
			got := acc.(StateSaver).SaveState()
			if diff := cmp.Diff(c.keptV, got.V); diff != "" {
				t.Errorf("V after the drop (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.keptW, got.W); diff != "" {
				t.Errorf("W after the drop (-want +got):\n%s", diff)
			}
		})
	}
}
