package ball_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/ball"
)

// TestCheckMarkerLocal: the marker axis must be finite, non-zero and of
// unit length to within ball.AxisTolerance (1e-9); the error gives the
// value (and the length for a non-unit axis).
func TestCheckMarkerLocal(t *testing.T) {
	b, err := ball.New(ball.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	s := 1 / math.Sqrt(3)
	for _, ok := range [][3]float64{
		{0, 0, 1}, {0, -1, 0}, {0.6, 0, 0.8}, {s, s, s},
		{0, 0, 1 + 0.9e-9}, {0, 0, 1 - 0.9e-9},
	} {
		if err := b.CheckMarkerLocal(ok); err != nil {
			t.Errorf("CheckMarkerLocal(%v) = %v, want nil", ok, err)
		}
	}
	for _, c := range []struct {
		local     [3]float64
		want      []string
		nonFinite bool
	}{
		{[3]float64{0, 0, 0}, []string{"ball", "[0, 0, 0]", "zero"}, false},
		{[3]float64{math.NaN(), 0, 1}, []string{"ball", "NaN", "not finite"}, true},
		{[3]float64{0, math.Inf(1), 0}, []string{"ball", "Inf", "not finite"}, true},
		{[3]float64{0, 0, 2}, []string{"ball", "[0, 0, 2]", "length 2", "unit"}, false},
		{[3]float64{0.7071, 0.7071, 0}, []string{"ball", "0.7071", "length", "unit"}, false},
		{[3]float64{0, 0, 1 + 1.1e-9}, []string{"ball", "length", "unit"}, false},
	} {
		err := b.CheckMarkerLocal(c.local)
		if err == nil {
			t.Errorf("CheckMarkerLocal(%v) = nil, want an error", c.local)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("CheckMarkerLocal(%v) = %q, want it to contain %q", c.local, err, w)
			}
		}
		if got := errors.Is(err, node.ErrNonFinite); got != c.nonFinite {
			t.Errorf("CheckMarkerLocal(%v): errors.Is(err, node.ErrNonFinite) = %v, want %v", c.local, got, c.nonFinite)
		}
	}
}
