package integrators

import (
	"math"
	"testing"
)

// TestBDFInitialStepMatchesCVODEMoreA: more of CVODE's initial steps
// (see TestBDFInitialStepMatchesCVODE), on problems that reach what
// those do not: y' = (1, 2) from y = (100, 100), where the bound
// 0.1·|tout − t0| decides, from t0 = 5 and t0 = −7; and a forcing
// switched on right after t0 (y₀' = A for t > t0, 0 at t0; y₁' = −y₁),
// whose difference-quotient estimate of ‖y″‖ is A/hg, growing as the
// trial step hg shrinks, so that the estimate takes all four
// iterations. The reference values are CVODE's own, SUNDIALS 6.4.1
// (testdata/cvode_hin_more.c). The step is read from the driver's start
// (bdfDriver.start, which the first Step calls), since a first step over
// the jump of the forcing is rejected by the error test. Measured: equal
// to the last bit; the tolerance, 1e-13 relative, only allows for a
// different rounding order.
func TestBDFInitialStepMatchesCVODEMoreA(t *testing.T) {
	for k, c := range []struct {
		p                            int
		amp                          float64
		y0, y1, t0, tout, rtol, atol float64
		cvode                        float64
	}{
		{1, 0, 100, 100, 5, 6, 1e-6, 1e-8, 5.3717757372643639e-05},
		{1, 0, 100, 100, -7, -6, 1e-6, 1e-8, 5.582832148612637e-05},
		{3, 1e4, 1, 1, 0, 10, 1e-6, 1e-8, 2.1118891441988329e-10},
		{3, 1e4, 1, 1, 2, 12, 1e-6, 1e-8, 2.1239560786709059e-10},
		{3, 1e2, 1, 1, 0, 1, 1e-4, 1e-6, 1.8344811110190404e-07},
		{3, 1e6, 1, 1, 1, 3, 1e-8, 1e-10, 6.6613381477509392e-14},
	} {
		sys := SystemFunc{N: 2, F: func(t float64, y, d []float64) error {
			if c.p == 1 {
				d[0], d[1] = 1, 2
				return nil
			}
			d[0] = 0
			if t > c.t0 {
				d[0] = c.amp
			}
			d[1] = -y[1]
			return nil
		}}
		d, err := BDF{RTol: c.rtol, ATol: c.atol}.NewDriver(sys, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Init(c.t0, []float64{c.y0, c.y1}); err != nil {
			t.Fatal(err)
		}
		bd := d.(*bdfDriver)
		if err := bd.start(c.tout); err != nil {
			t.Fatal(err)
		}
		if math.Abs(bd.h-c.cvode) > 1e-13*c.cvode {
			t.Errorf("case %d: initial step %.17g, CVODE's %.17g", k, bd.h, c.cvode)
		}
	}
}
