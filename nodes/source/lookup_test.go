package source_test

import (
	"errors"
	"math"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/source"
)

// Hold and linear against their definitions, and the three behaviours
// outside the table.
func TestLookupHoldLinearOutside(t *testing.T) {
	times := []float64{1, 2, 4}
	vals := []float64{10, -1, 20, 0, 30, 5} // two components per row
	mk := func(interp, outside string) *source.Lookup {
		l, err := source.NewLookup(source.LookupParams{Times: times, Values: vals, Interpolation: interp, Outside: outside, Units: "N"})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	hold, lin := mk(source.InterpolationHold, source.OutsideHold), mk(source.InterpolationLinear, source.OutsideExtrapolate)
	if s := hold.Spec().Outputs[0]; s.Shape != node.Vec(2) || s.Units != "N" {
		t.Fatalf("output %+v", s)
	}
	for _, c := range []struct{ t, h0, h1, l0, l1 float64 }{
		{0, 10, -1, 0, -2},  // before: hold the first row; extrapolate with slope (10, 1)
		{1, 10, -1, 10, -1}, // on a breakpoint
		{1.5, 10, -1, 15, -0.5},
		{2, 20, 0, 20, 0}, // right-continuous hold
		{3, 20, 0, 25, 2.5},
		{4, 30, 5, 30, 5},  // last breakpoint
		{6, 30, 5, 40, 10}, // after: slope (5, 2.5)
	} {
		if y := out(t, hold, c.t); y[0] != c.h0 || y[1] != c.h1 {
			t.Errorf("hold(%v) = %v, want [%v %v]", c.t, y, c.h0, c.h1)
		}
		if y := out(t, lin, c.t); y[0] != c.l0 || y[1] != c.l1 {
			t.Errorf("linear(%v) = %v, want [%v %v]", c.t, y, c.l0, c.l1)
		}
	}
	strict := mk(source.InterpolationLinear, source.OutsideError)
	dst := make([]float64, 2)
	for _, tm := range []float64{0.999, 4.001} {
		err := strict.Outputs(tm, nil, node.Inputs{}, dst)
		var fe *node.FieldError
		if !errors.Is(err, source.ErrOutsideTable) || !errors.As(err, &fe) || fe.Field != "value" {
			t.Errorf("outside = error at t = %v: %v", tm, err)
		}
	}
	if err := strict.Outputs(4, nil, node.Inputs{}, dst); err != nil {
		t.Errorf("the last breakpoint is inside: %v", err)
	}
}

// PCHIP against values computed independently by hand from the
// Fritsch–Butland formulas (the same definition as SciPy's
// PchipInterpolator), data x = [0, 1, 2, 4], y = [0, 1, 4, 4]:
//
//	δ = [1, 3, 0]; d₁ = 3·1·3/(… ) harmonic: w1 = 2·1+1 = 3, w2 = 1+2 = 3,
//	d₁ = 6/(3/1 + 3/3) = 1.5; d₂ = 0 (δ₂ = 0);
//	d₀ = ((2·1+1)·1 − 1·3)/2 = 0 (sign differs from δ₀? 0: kept 0);
//	d₃ = ((2·2+1)·0 − 2·3)/3 = −2, sign differs from δ₂ = 0 → 0.
//
// At t = 0.5 (h = 1, s = ½): h00 = ½, h10 = ⅛, h01 = ½, h11 = −⅛:
// y = ½·0 + ⅛·0 + ½·1 − ⅛·1.5 = 0.3125. At t = 1.5: y = ½·1 + ⅛·1.5 +
// ½·4 − ⅛·0 = 2.6875. At t = 3 (h = 2, s = ½): y = ½·4 + ½·4 = 4 (flat:
// monotone data never overshoots). Tolerance: a few ulps of the values
// (the Hermite form is evaluated in a different order here).
func TestLookupPCHIP(t *testing.T) {
	l, err := source.NewLookup(source.LookupParams{Times: []float64{0, 1, 2, 4}, Values: []float64{0, 1, 4, 4}, Interpolation: source.InterpolationPCHIP})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ t, want float64 }{{0, 0}, {0.5, 0.3125}, {1, 1}, {1.5, 2.6875}, {2, 4}, {3, 4}, {4, 4}} {
		if y := out(t, l, c.t)[0]; !numtest.Within(y, c.want, 4e-16*math.Max(1, math.Abs(c.want))) {
			t.Errorf("pchip(%v) = %v, want %v", c.t, y, c.want)
		}
	}
	// Monotone data: the interpolant is monotone (sampled finely).
	prev := math.Inf(-1)
	for i := 0; i <= 4000; i++ {
		y := out(t, l, float64(i)*1e-3)[0]
		if y < prev-1e-15 || y > 4+1e-15 {
			t.Fatalf("pchip not monotone at %v: %v after %v", float64(i)*1e-3, y, prev)
		}
		prev = y
	}
	// A cubic-exact check: PCHIP reproduces a straight line exactly
	// (all δ equal, so every d = δ), to rounding.
	line, _ := source.NewLookup(source.LookupParams{Times: []float64{0, 0.5, 2, 3}, Values: []float64{1, 2, 5, 7}, Interpolation: source.InterpolationPCHIP, Outside: source.OutsideExtrapolate})
	for _, tm := range []float64{-1, 0.25, 1.3, 2.9, 5} {
		if y, want := out(t, line, tm)[0], 1+2*tm; !numtest.Within(y, want, 1e-14) {
			t.Errorf("pchip on a line at %v: %v, want %v", tm, y, want)
		}
	}
}

// Convergence orders declared in the metadata: sampling f on [0, 1] at
// spacing h, the max error of hold falls as h, of linear as h², and of
// PCHIP as h³ for monotone data (f = exp) but only as h² across an
// extremum of the data (f = sin 3t, extremum at π/6), where PCHIP sets the
// slope to zero. The observed order over h = 1/16 → 1/64 must be within
// 0.3 of the declared one.
func TestLookupConvergence(t *testing.T) {
	sin3 := func(x float64) float64 { return math.Sin(3 * x) }
	maxErr := func(interp string, f func(float64) float64, m int) float64 {
		ts, vs := make([]float64, m+1), make([]float64, m+1)
		for j := range ts {
			ts[j] = float64(j) / float64(m)
			vs[j] = f(ts[j])
		}
		l, err := source.NewLookup(source.LookupParams{Times: ts, Values: vs, Interpolation: interp})
		if err != nil {
			t.Fatal(err)
		}
		var e float64
		for i := 0; i <= 10000; i++ {
			tm := float64(i) / 10000
			e = math.Max(e, math.Abs(out(t, l, tm)[0]-f(tm)))
		}
		return e
	}
	for _, c := range []struct {
		interp string
		f      func(float64) float64
		min    float64
	}{{source.InterpolationHold, sin3, 0.7}, {source.InterpolationLinear, sin3, 1.7}, {source.InterpolationPCHIP, sin3, 1.7}, {source.InterpolationPCHIP, math.Exp, 2.7}} {
		p := math.Log2(maxErr(c.interp, c.f, 16)/maxErr(c.interp, c.f, 64)) / 2
		t.Logf("%s: observed order %.3f", c.interp, p)
		if p < c.min {
			t.Errorf("%s: observed order %.3f < %v", c.interp, p, c.min)
		}
	}
}
