package verification

import (
	"math"
	"strconv"
	"strings"
)

// ceil1 rounds a non-negative round-off-scale measurement (an agreement,
// a residual error) up to one significant digit before it is recorded:
// the last bits of such a number differ between platforms (fused
// multiply-add on arm64, libm), and four digits of it would make the
// evidence file platform-dependent. Rounding up keeps the recorded value
// an upper bound of the measured one, so a value that meets a bound of
// one significant digit (1e-13, 3e-11, 5e-14) is recorded as meeting it.
func ceil1(x float64) float64 {
	if x <= 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	e := math.Floor(math.Log10(x))
	m := math.Ceil(x / math.Pow(10, e) * (1 - 1e-12)) // tolerate x already on a digit
	v, _ := strconv.ParseFloat(strconv.FormatFloat(m*math.Pow(10, e), 'g', 1, 64), 64)
	if v < x*(1-1e-12) {
		v, _ = strconv.ParseFloat(strconv.FormatFloat((m+1)*math.Pow(10, e), 'g', 1, 64), 64)
	}
	return v
}

// bound1 formats "≤ b" for a bound of one significant digit.
func bound1(b float64) string { return "≤ " + sciG(b) }

// sciG formats x like fmtG with a short exponent: 1e-9, not 1e-09.
func sciG(x float64) string {
	s := fmtG(x)
	s = strings.Replace(s, "e-0", "e-", 1)
	return strings.Replace(s, "e+0", "e+", 1)
}

// parseG rounds x to d significant digits.
func parseG(x float64, d int) (float64, error) {
	return strconv.ParseFloat(strconv.FormatFloat(x, 'g', d, 64), 64)
}
