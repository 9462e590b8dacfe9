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

// PCHIP of a three-component table against SciPy's PchipInterpolator,
// an independent implementation of the same definition (Fritsch–Butland
// interior slopes, the shape-preserving three-point end formula), at 69
// times 0.125 apart from −0.5 to 8: inside the table, at every
// breakpoint and, with outside = "extrapolate", on the end tangents
// (v_end + d_end·(t − t_end), SciPy's end derivatives). The values come
// from testdata/pchip_scipy.py (SciPy 1.10.1), which says how to
// regenerate them. The table is chosen to reach every case: breakpoints
// not starting at 0 and unevenly spaced; component 0 monotone (end
// derivatives from the three-point formula as they are), component 1
// with a flat segment and extrema (interior slopes 0), component 2 with
// extrema late in the table (at t = 3.5 and 4) and the end formula
// clamped to 3·δ at the start (d = 0.3) and set to 0 at the end. Each row holds three components, so a slope or value read
// from the wrong row or component shows. Tolerance 1e-13 relative to
// max(1, |value|) (values below 25): the two implementations evaluate
// the cubic in different forms (Hermite basis here, power basis in
// SciPy), which differ by a few ulps.
func TestLookupPCHIPAgainstSciPy(t *testing.T) {
	times := []float64{0.5, 1.25, 2, 3.5, 4, 6, 6.75}
	values := []float64{
		0, 1, 0,
		0.5, 3, 0.075,
		1.2, 3, -3.675,
		2.2, -2, -1,
		5, 0.5, -2,
		5.5, 4, 22,
		9, 1, 22.75,
	}
	l, err := source.NewLookup(source.LookupParams{Times: times, Values: values, Interpolation: source.InterpolationPCHIP, Outside: source.OutsideExtrapolate})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range [][4]float64{
		{-0.5, -0.5333333333333333, -3.0, -0.3},
		{-0.375, -0.4666666666666667, -2.5, -0.2625},
		{-0.25, -0.4, -2.0, -0.22499999999999998},
		{-0.125, -0.3333333333333333, -1.5, -0.1875},
		{0.0, -0.26666666666666666, -1.0, -0.15},
		{0.125, -0.2, -0.5, -0.11249999999999999},
		{0.25, -0.13333333333333333, 0.0, -0.075},
		{0.375, -0.06666666666666667, 0.5, -0.0375},
		{0.5, 0.0, 1.0, 0.0},
		{0.625, 0.06983024691358024, 1.4953703703703705, 0.03159722222222222},
		{0.75, 0.14567901234567904, 1.962962962962963, 0.05277777777777777},
		{0.875, 0.22708333333333333, 2.375, 0.06562499999999999},
		{1.0, 0.3135802469135802, 2.7037037037037037, 0.07222222222222222},
		{1.125, 0.40470679012345673, 2.9212962962962963, 0.07465277777777778},
		{1.25, 0.5, 3.0, 0.075},
		{1.375, 0.6056094223153972, 3.0, -0.20277777777777778},
		{1.5, 0.7238760773351968, 3.0, -0.8972222222222223},
		{1.625, 0.848624213836478, 3.0, -1.7999999999999998},
		{1.75, 0.9736780805963196, 3.0, -2.7027777777777775},
		{1.875, 1.0928619263918005, 3.0, -3.397222222222222},
		{2.0, 1.2, 3.0, -3.675},
		{2.125, 1.2898157507237695, 2.9016203703703707, -3.622366898148148},
		{2.25, 1.3640336428072277, 2.6296296296296298, -3.476851851851852},
		{2.375, 1.426979447439353, 2.21875, -3.25703125},
		{2.5, 1.4829789358091245, 1.7037037037037037, -2.9814814814814814},
		{2.625, 1.5363578791055206, 1.1192129629629628, -2.668778935185185},
		{2.75, 1.5914420485175202, 0.5000000000000002, -2.3375000000000004},
		{2.875, 1.652557215234102, -0.11921296296296302, -2.006221064814815},
		{3.0, 1.7240291504442449, -0.7037037037037037, -1.6935185185185186},
		{3.125, 1.8101836253369274, -1.21875, -1.4179687500000004},
		{3.25, 1.9153464111011285, -1.6296296296296306, -1.1981481481481486},
		{3.375, 2.0438432789258263, -1.9016203703703711, -1.0526331018518515},
		{3.5, 2.2, -2.0, -1.0},
		{3.625, 2.7201994919306633, -1.6766137295081969, -1.15625},
		{3.75, 3.6491034070531976, -0.9293032786885246, -1.5},
		{3.875, 4.553455618649133, -0.09234118852459017, -1.84375},
		{4.0, 5.0, 0.5, -2.0},
		{4.125, 5.065946764126082, 0.8544881851946721, -1.7424538352272727},
		{4.25, 5.118584010756894, 1.1995069159836065, -1.0134943181818183},
		{4.375, 5.1597724432378245, 1.5332071273053278, 0.1213600852272726},
		{4.5, 5.191372764914253, 1.8537397540983607, 1.5965909090909087},
		{4.625, 5.215245679131566, 2.1592557313012297, 3.346679687499999},
		{4.75, 5.233251889235145, 2.447905993852459, 5.306107954545454},
		{4.875, 5.2472520985703754, 2.7178414766905736, 7.40935724431818},
		{5.0, 5.259107010482639, 2.9672131147540983, 9.59090909090909},
		{5.125, 5.270677328317321, 3.1941718429815578, 11.785245028409088},
		{5.25, 5.283823755419803, 3.3968685963114758, 13.926846590909088},
		{5.375, 5.300406995135471, 3.5734543096823765, 15.950195312499993},
		{5.5, 5.322287750809704, 3.7220799180327875, 17.789772727272727},
		{5.625, 5.351326725787892, 3.84089635630123, 19.38006036931818},
		{5.75, 5.389384623415415, 3.928054559426229, 20.655539772727263},
		{5.875, 5.438322147037656, 3.9817054623463113, 21.550692471590907},
		{6.0, 5.5, 4.0, 22.0},
		{6.125, 5.705014779433255, 3.874447601010101, 22.19760101010101},
		{6.25, 6.14226740252305, 3.5315656565656566, 22.376262626262626},
		{6.375, 6.751075052697005, 3.0220170454545454, 22.52840909090909},
		{6.5, 7.470754913382737, 2.3964646464646466, 22.646464646464647},
		{6.625, 8.240624168007864, 1.705571338383839, 22.722853535353536},
		{6.75, 9.0, 1.0000000000000002, 22.75},
		{6.875, 9.733901515151516, 0.3039772727272727, 22.75},
		{7.0, 10.467803030303031, -0.3920454545454546, 22.75},
		{7.125, 11.201704545454547, -1.0880681818181817, 22.75},
		{7.25, 11.93560606060606, -1.7840909090909092, 22.75},
		{7.375, 12.669507575757576, -2.4801136363636367, 22.75},
		{7.5, 13.403409090909092, -3.1761363636363633, 22.75},
		{7.625, 14.137310606060606, -3.872159090909091, 22.75},
		{7.75, 14.871212121212121, -4.568181818181818, 22.75},
		{7.875, 15.605113636363637, -5.264204545454546, 22.75},
		{8.0, 16.339015151515152, -5.960227272727273, 22.75},
	} {
		y := out(t, l, c[0])
		for i := range 3 {
			if !numtest.Near(y[i], c[1+i], 1e-13) {
				t.Errorf("pchip(%v)[%d] = %v, SciPy %v", c[0], i, y[i], c[1+i])
			}
		}
	}
}

// PCHIP on two breakpoints is the straight line through them (the
// secant slope at both ends, as in SciPy), inside and, extrapolated,
// outside, for every component: t = 1.5 → 3.5, component 0 from 1 to 5
// (slope 2), component 1 from −2 to 4 (slope 3). Values on binary
// fractions: the tolerance 1e-14 covers the Hermite form's roundings.
func TestLookupPCHIPTwoPoints(t *testing.T) {
	l, err := source.NewLookup(source.LookupParams{Times: []float64{1.5, 3.5}, Values: []float64{1, -2, 5, 4},
		Interpolation: source.InterpolationPCHIP, Outside: source.OutsideExtrapolate})
	if err != nil {
		t.Fatal(err)
	}
	for _, tm := range []float64{0.5, 1.5, 2, 2.5, 3.25, 3.5, 4.5} {
		y := out(t, l, tm)
		if want := 1 + 2*(tm-1.5); !numtest.Near(y[0], want, 1e-14) {
			t.Errorf("pchip(%v)[0] = %v, want the line %v", tm, y[0], want)
		}
		if want := -2 + 3*(tm-1.5); !numtest.Near(y[1], want, 1e-14) {
			t.Errorf("pchip(%v)[1] = %v, want the line %v", tm, y[1], want)
		}
	}
}

// Linear extrapolation before the table uses the first segment's slope,
// (v_1 − v_0)/(t_1 − t_0): here (2 − 1)/0.5 = 2, so at t = −1 the value
// is 1 + 2·(−1) = −1 and at t = −0.25 it is 0.5 (exact in binary).
func TestLookupLinearExtrapolateBefore(t *testing.T) {
	l, err := source.NewLookup(source.LookupParams{Times: []float64{0, 0.5, 3}, Values: []float64{1, 2, 0}, Outside: source.OutsideExtrapolate})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ t, want float64 }{{-1, -1}, {-0.25, 0.5}} {
		if y := out(t, l, c.t)[0]; y != c.want {
			t.Errorf("linear(%v) = %v, want %v", c.t, y, c.want)
		}
	}
}

// A lookup holds up to MaxComponents values per breakpoint, as the other
// sources: exactly MaxComponents is accepted (and output), one more is
// refused with a ParamError naming "values".
func TestLookupMaxComponents(t *testing.T) {
	mk := func(n int) (*source.Lookup, error) {
		vs := make([]float64, 2*n)
		for i := range vs {
			vs[i] = float64(i)
		}
		return source.NewLookup(source.LookupParams{Times: []float64{0, 1}, Values: vs})
	}
	l, err := mk(source.MaxComponents)
	if err != nil {
		t.Fatalf("%d components: %v", source.MaxComponents, err)
	}
	if y := out(t, l, 0.5); len(y) != source.MaxComponents || y[source.MaxComponents-1] != float64(source.MaxComponents-1)+float64(source.MaxComponents)/2 {
		t.Errorf("%d components at t = 0.5: %d values, last %v", source.MaxComponents, len(y), y[len(y)-1])
	}
	_, err = mk(source.MaxComponents + 1)
	var pe *node.ParamError
	if !errors.As(err, &pe) || pe.Param != "values" {
		t.Errorf("%d components: err %v, want a ParamError for values", source.MaxComponents+1, err)
	}
}

// Data whose slopes overflow: values 1e10, 0, −1e10 at times 0, 1e-300,
// 2e-300 s have slopes −1e310 = −Inf. The three-point end formula is then
// Inf − Inf = NaN, which does not have the end slope's sign, so the end
// derivative is 0, as in SciPy (PchipInterpolator._find_derivatives
// gives [0, −inf, 0] for these data, SciPy 1.10.1): extrapolation
// outside the table continues with slope 0 and holds the end values,
// finite, instead of NaN.
func TestLookupPCHIPOverflowingSlopes(t *testing.T) {
	l, err := source.NewLookup(source.LookupParams{Times: []float64{0, 1e-300, 2e-300}, Values: []float64{1e10, 0, -1e10},
		Interpolation: source.InterpolationPCHIP, Outside: source.OutsideExtrapolate})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ t, want float64 }{{-1, 1e10}, {1, -1e10}} {
		if y := out(t, l, c.t)[0]; y != c.want {
			t.Errorf("pchip(%v) = %v, want the end value %v (end derivative 0)", c.t, y, c.want)
		}
	}
}
