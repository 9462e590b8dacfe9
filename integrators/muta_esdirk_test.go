package integrators

import (
	"math"
	"testing"
)

// The ESDIRK driver's step-size controller is the PI controller its
// documentation states (Gustafsson; Hairer & Wanner II, §IV.8): after an
// accepted step of size h with error norm err (the RMS over components
// of LocalError/(ATol + RTol·max(|y_n|, |y_{n+1}|))),
// h_new = h·0.9·err^(−0.7/k)·err_old^(0.4/k), k = embedded order + 1,
// the factor clamped to [0.2, 5], at most 1 after a rejection, and 1
// when within [1, 1.2]; err_old = max(err, 1e-4), 1 before the first
// step; a step that landed on tMax does not shrink the next one. This
// test recomputes that from what the driver reports (LocalError, the
// states, Work.Rejected) on a damped oscillator with three components
// of different scales, and checks NextStep after every step to 1e-9
// relative: the recomputation sums the estimate Σ dᵢ·kᵢ, which cancels
// to about 1e-4 of its terms, in another order (measured: 3e-12).
func TestESDIRKControllerA(t *testing.T) {
	sys := jacSysA{n: 3,
		f: func(_ float64, y, d []float64) {
			d[0], d[1], d[2] = y[1], -y[0]-0.1*y[1], -5*(y[2]-y[0])
		},
		jac: func(_ float64, _, d []float64) {
			copy(d, []float64{0, 1, 0, -1, -0.1, 0, 5, 0, -5})
		}}
	const rtol, atol, tEnd = 1e-5, 1e-7, 7.3
	for _, m := range []AdaptiveMethod{ESDIRK43{RTol: rtol, ATol: atol}, ESDIRK32{RTol: rtol, ATol: atol}} {
		k := 4.0
		if m.Name() == MethodESDIRK32 {
			k = 3
		}
		d, err := m.NewDriver(sys, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Init(0, []float64{1, 0, 3}); err != nil {
			t.Fatal(err)
		}
		est := d.(ErrorEstimator)
		errOld := 1.0
		y0, e := make([]float64, 3), make([]float64, 3)
		checked := 0
		for tc := 0.0; tc < tEnd; {
			_, y := d.State()
			copy(y0, y)
			hBefore, rejBefore := d.NextStep(), d.Work().Rejected
			rep, err := d.Step(tEnd)
			if err != nil {
				t.Fatal(err)
			}
			tc = rep.T1
			est.LocalError(e)
			_, y1 := d.State()
			s := 0.0
			for i := range e {
				v := e[i] / (atol + rtol*math.Max(math.Abs(y0[i]), math.Abs(y1[i])))
				s += v * v
			}
			en := math.Sqrt(s / 3)
			rejected := d.Work().Rejected > rejBefore
			fac := 0.9 * math.Pow(math.Max(en, 1e-10), -0.7/k) * math.Pow(errOld, 0.4/k)
			fac = math.Max(0.2, math.Min(5, fac))
			if rejected {
				fac = math.Min(fac, 1)
			}
			if fac >= 1 && fac <= 1.2 {
				fac = 1
			}
			want := rep.H * fac
			last := rep.T1 == tEnd
			if last {
				if rejected {
					break // the step it would keep is the rejected trial's
				}
				want = math.Max(want, hBefore)
			}
			if got := d.NextStep(); math.Abs(got-want) > 1e-9*want {
				t.Errorf("%s: after the step [%.6g, %.6g] (h %.6g, err %.4g, rejected %v, last %v): next step %.17g, want %.17g",
					m.Name(), rep.T0, rep.T1, rep.H, en, rejected, last, got, want)
			}
			checked++
			errOld = math.Max(en, 1e-4)
		}
		if checked < 10 {
			t.Errorf("%s: only %d steps checked", m.Name(), checked)
		}
	}
}
