package control

import (
	"math"
	"testing"

	"github.com/cosimgo/cosim/node"
)

// sameBits is the equivalence of NewUniformRows: equal bits, so that 0
// and −0 (which a gain turns into results of different signs) differ,
// as do rows of different lengths or one differing entry anywhere.
func TestSameBits(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		a, b []float64
		want bool
	}{
		{[]float64{1, 2, 3}, []float64{1, 2, 3}, true},
		{[]float64{}, []float64{}, true},
		{[]float64{nan}, []float64{nan}, true}, // the same bits
		{[]float64{1, 2, 3}, []float64{1, 2, 4}, false},
		{[]float64{1, 2, 3}, []float64{0, 2, 3}, false},
		{[]float64{1, 2, 3}, []float64{0, 5, 6}, false},
		{[]float64{0}, []float64{math.Copysign(0, -1)}, false},
		{[]float64{1, 2}, []float64{1, 2, 3}, false},
		{[]float64{1, 2, 3}, []float64{1, 2}, false},
	} {
		if got := sameBits(&c.a, &c.b); got != c.want {
			t.Errorf("sameBits(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// A family of equal blocks reads one row (uniform rows); one that
// differs, or a SetParams that makes one differ, makes them per row, and
// the kernel's row of a member is then its own.
func TestRowsUniform(t *testing.T) {
	mk := func(kp float64) node.Node {
		c, err := NewPID(PIDParams{Kp: []float64{kp}})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	same := []node.Node{mk(2), mk(2), mk(2)}
	p := params{rowsOf(same)}
	if !p.rows.Uniform() {
		t.Fatal("equal members: rows not uniform")
	}
	if err := same[2].(*PID).SetParams(map[string]any{"kp": 3.0}); err != nil {
		t.Fatal(err)
	}
	if p.rows.Uniform() {
		t.Error("after SetParams on one member: rows still uniform")
	}
	if got := p.at(2)[pidKp]; got != 3 {
		t.Errorf("row 2's kp = %v after SetParams, want 3", got)
	}
	if got := p.at(1)[pidKp]; got != 2 {
		t.Errorf("row 1's kp = %v, want 2", got)
	}
	if differ := (params{rowsOf([]node.Node{mk(2), mk(5)})}); differ.rows.Uniform() || differ.at(1)[pidKp] != 5 {
		t.Errorf("members with kp 2 and 5: uniform %v, row 1's kp %v", differ.rows.Uniform(), differ.at(1)[pidKp])
	}
}
