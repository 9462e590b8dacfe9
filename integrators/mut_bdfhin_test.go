package integrators

import (
	"math"
	"testing"
)

// TestBDFInitialStepTiesMatchCVODEI: BDF's initial step is CVODE's
// (bdfDriver.hin) also where the estimate's comparisons are ties. The
// problems are y' = 1 + c(t)·t from y(0) = 0 to tout = 40.96, ATol 1:
// the step bound is hub = 1/|f(0)| = 1, the lower bound
// hlb = 100·2⁻⁵²·40.96 = 2⁻⁴⁰, the first trial step √(hlb·hub) = 2⁻²⁰,
// and the estimate ‖y″‖ ≈ (f(hg, hg·f(0)) − f(0))/hg at a trial step hg
// is exactly c(hg) (powers of two: exact arithmetic). c is piecewise
// constant, chosen so that
//   - case 0 (c = 2): ‖y″‖·hub² = 2 at every trial, where CVODE takes
//     √(hg·hub) rather than √(2/‖y″‖);
//   - case 1: the second trial 2⁻⁶ proposes 2⁻⁵, a ratio of exactly 2,
//     which CVODE neither accepts (ratio < 2) nor takes as a bad
//     estimate (ratio > 2): it tries 2⁻⁵ a third time;
//   - case 2: the second trial 2⁻⁶ proposes 2⁻⁷, a ratio of exactly
//     1/2, which CVODE does not accept either.
//
// The reference values are CVODE's own, SUNDIALS 6.4.1
// (testdata/cvode_hin_ties.c), and by hand: 2⁻¹¹; √(2/2¹⁰)/2 = 2^−5.5;
// √(2/2¹⁴)/2 = 2^−7.5. The step is read from the driver's start, as in
// TestBDFInitialStepMatchesCVODEMoreA; the comparison is exact but for
// a relative 1e-15 (the square root's rounding).
func TestBDFInitialStepTiesMatchCVODEI(t *testing.T) {
	for k, c := range []struct {
		c     func(t float64) float64
		cvode float64
	}{
		{func(float64) float64 { return 2 }, 0.00048828125},
		{func(t float64) float64 {
			switch {
			case t < 0x1p-10:
				return 0x1p13
			case t < 0.02:
				return 0x1p11
			}
			return 0x1p10
		}, 0.022097086912079612},
		{func(t float64) float64 {
			switch {
			case t < 0x1p-10:
				return 0x1p13
			case t < 0.01:
				return 0x1p14
			}
			return 0x1p15
		}, 0.0055242717280199029},
	} {
		sys := SystemFunc{N: 1, F: func(t float64, _, d []float64) error {
			d[0] = 1 + c.c(t)*t
			return nil
		}}
		d, err := BDF{RTol: 1e-6, ATol: 1}.NewDriver(sys, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Init(0, []float64{0}); err != nil {
			t.Fatal(err)
		}
		bd := d.(*bdfDriver)
		if err := bd.start(40.96); err != nil {
			t.Fatal(err)
		}
		if math.Abs(bd.h-c.cvode) > 1e-15*c.cvode {
			t.Errorf("case %d: initial step %.17g, CVODE's %.17g", k, bd.h, c.cvode)
		}
	}
}
