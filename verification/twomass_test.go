package verification

import (
	"fmt"
	"math"
	"testing"

	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/internal/twomass"
)

// MADD-VER-030: the two-mass, two-mode consumer of MADDENING's generalized-alpha
// driver (MADDENING 0.4 documentation, "Two masses, two known modes"), measured through the
// package driver (integrators.SecondOrderStepper, history carried) by
// internal/twomass: unit masses, K = [[800.5, −799.5], [−799.5, 800.5]]
// (modes 1 and 40 rad/s, amplitudes 1 and 0.05, zero velocity),
// dt = 0.1 s, 120 steps to 12 s.
//
// The table's tolerances are half a unit in the last digit the MADDENING
// guide prints. The MADDENING two-mass guide prints 100% for Newmark and ρ∞ = 1: the average-
// acceleration rule conserves ½ż² + ½ω²z² of a linear undamped mode
// exactly, so there the change is bounded at round-off (1e-12 relative:
// 120 steps of a few ulps each). ρ∞ = 0's fast energy ("about 3e-29%")
// is suppression to the numerical floor, as the MADDENING two-mass guide says: bounded by
// 1e-20 %.
func TestTwoMassTable(t *testing.T) {
	published := map[string]struct{ slow, fast, lag float64 }{
		"Newmark": {100, 100, 0.0100},
		"rho=1":   {100, 100, 0.0100},
		"rho=0.8": {99.997, 0.458, 0.0105},
		"rho=0.5": {99.947, 1.53e-18, 0.0149},
		"rho=0":   {98.778, 3e-29, 0.0526},
	}
	rows, _, err := twomass.Table()
	if err != nil {
		t.Fatal(err)
	}
	const method = "internal/twomass.Table: package driver (integrators.Method.NewSecondOrder, Advance with each accepted History passed on), two-mass problem, dt = 0.1 s, 120 steps; modal energy ½ż² + ½ω²z² relative to its exact constant value; reference: the MADDENING two-mass guide's table"
	for _, r := range rows {
		w := published[r.Label]
		name := r.Label
		if name != "Newmark" {
			name = "ρ∞ = " + name[len("rho="):]
		}
		slow, fast := 100*r.SlowEnergy, 100*r.FastEnergy
		if w.slow == 100 {
			d := math.Max(math.Abs(r.SlowEnergy-1), math.Abs(r.FastEnergy-1))
			record(t, Measurement{ID: "MADD-VER-030", Subject: "generalized-alpha", Quantity: name + ": max |1 − energy retained| (slow and fast)",
				Value: ceil1(d), Reference: 0, Bound: bound1(1e-12), Method: method + " (100% for both modes); recorded rounded up to one significant digit", Pass: d <= 1e-12})
		} else {
			lost := 100 - slow
			record(t, Measurement{ID: "MADD-VER-030", Subject: "generalized-alpha", Quantity: name + ": slow energy lost (%)",
				Value: lost, Reference: sig4(100 - w.slow), Bound: "|Δ| ≤ 5e-4", Method: method + fmt.Sprintf(" (slow energy retained %v%%)", w.slow), Pass: math.Abs(lost-(100-w.slow)) <= 5e-4})
			switch r.Label {
			case "rho=0.8":
				record(t, Measurement{ID: "MADD-VER-030", Subject: "generalized-alpha", Quantity: name + ": fast energy retained (%)",
					Value: fast, Reference: w.fast, Bound: "|Δ| ≤ 5e-4", Method: method, Pass: math.Abs(fast-w.fast) <= 5e-4})
			case "rho=0.5":
				// Three digits, as the MADDENING two-mass guide prints: the fast mode is down to
				// 6e-12 m, where the fourth digit depends on round-off.
				v, _ := parseG(fast, 3)
				record(t, Measurement{ID: "MADD-VER-030", Subject: "generalized-alpha", Quantity: name + ": fast energy retained (%)",
					Value: v, Reference: w.fast, Bound: "|Δ| ≤ 5e-21", Method: method + "; recorded to the MADDENING two-mass guide's three digits", Pass: math.Abs(fast-w.fast) <= 5e-21})
			case "rho=0":
				record(t, Measurement{ID: "MADD-VER-030", Subject: "generalized-alpha", Quantity: name + ": fast energy retained (%)",
					Value: ceil1(fast), Reference: w.fast, Bound: bound1(1e-20), Method: method + "; the MADDENING two-mass guide's 'about 3e-29%' is the numerical floor, so only bounded; recorded rounded up to one significant digit", Pass: fast <= 1e-20})
			}
		}
		record(t, Measurement{ID: "MADD-VER-030", Subject: "generalized-alpha", Quantity: name + ": slow phase lag (rad)",
			Value: r.SlowPhaseLag, Reference: w.lag, Bound: "|Δ| ≤ 5e-5", Method: method + "; lag = ω₁·12 − atan2(−ż₁/ω₁, z₁) wrapped to (−π, π]", Pass: math.Abs(r.SlowPhaseLag-w.lag) <= 5e-5})
	}
}

// MADD-VER-030, driver validation: ρ∞ = 1 is Newmark (published: about 5e-14
// in displacement over the 120 steps); the driver agrees with the
// independent dense reference (internal/twomass.ReferenceRun: the exact
// recurrence in closed modal form, gonum LU, no package integrators)
// within 1e-13 in displacement over the 120-step run for every variant
// (published: 7e-14); the reference's own cross-check in physical coordinates
// (internal/twomass.DenseRun: the dense 6×6 system, LU once) agrees with
// the driver within 5e-13, looser because K·q cancels 800.5·q₀ against
// 799.5·q₁ (q₀ ≈ q₁) and loses about 1e-13 per evaluation, and powers of
// the computed map carry their rounding linearly over the 120 steps; the
// MADDENING two-mass guide's direct stepping loop (ten Advance calls of 0.1 s at ρ∞ = 0.5,
// each accepted history passed on) gives 10 accepted steps with ρ∞ = 0.5
// in the history; and the β = 1/16 negative control has amplification
// radius 5.83 at ω·dt = 4 (published digits, ±0.005).
func TestTwoMassDriver(t *testing.T) {
	p := twomass.Seed()
	vs := twomass.Variants()
	trs := map[string]*twomass.Trajectory{}
	worst, worstLabel := 0.0, ""
	worstDense, worstDenseLabel := 0.0, ""
	for _, v := range vs {
		tr, err := twomass.Run(p, v.Method, twomass.SeedDt, twomass.SeedSteps, false)
		if err != nil {
			t.Fatal(err)
		}
		trs[v.Label] = tr
		d := twomass.MaxDisplacementDiff(tr, twomass.ReferenceRun(p, twomass.ReferenceParams(v.Method), twomass.SeedDt, twomass.SeedSteps))
		dd := twomass.MaxDisplacementDiff(tr, twomass.DenseRun(p, twomass.ReferenceParams(v.Method), twomass.SeedDt, twomass.SeedSteps))
		t.Logf("%s: driver vs reference %.3g, vs dense 6×6 %.3g", v.Label, d, dd)
		if d > worst {
			worst, worstLabel = d, v.Label
		}
		if dd > worstDense {
			worstDense, worstDenseLabel = dd, v.Label
		}
	}
	var ref [][2]float64
	for _, st := range trs["Newmark"].States {
		ref = append(ref, [2]float64{st.Q[0], st.Q[1]})
	}
	dn := twomass.MaxDisplacementDiff(trs["rho=1"], ref)
	record(t, Measurement{ID: "MADD-VER-030", Subject: "generalized-alpha", Quantity: "max |q(ρ∞ = 1) − q(Newmark)| over 120 steps (m)",
		Value: ceil1(dn), Reference: 5e-14, Bound: bound1(5e-14),
		Method: "package driver, two-mass problem, dt = 0.1 s, both methods with carried history; reference: the MADDENING two-mass guide's 'about 5e-14'; recorded rounded up to one significant digit", Pass: dn <= 5e-14})
	record(t, Measurement{ID: "MADD-VER-030", Subject: "generalized-alpha", Quantity: "max |q(driver) − q(independent reference)| over 120 steps, every variant (m)",
		Value: ceil1(worst), Reference: 7e-14, Bound: bound1(1e-13),
		Method: "package driver vs internal/twomass.ReferenceRun (exact generalized-alpha recurrence of M·q̈ + K·q = 0 per mode, 3×3 L·x' = R·x solved by gonum LU every step, parameters from the classical formulas written independently) for Newmark and ρ∞ = 1, 0.8, 0.5, 0; largest at " + worstLabel + "; reference: the MADDENING two-mass guide's 7e-14; recorded rounded up to one significant digit",
		Pass:   worst <= 1e-13})
	record(t, Measurement{ID: "MADD-VER-030", Subject: "generalized-alpha", Quantity: "max |q(driver) − q(dense 6×6 cross-check)| over 120 steps, every variant (m)",
		Value: ceil1(worstDense), Reference: 0, Bound: bound1(5e-13),
		Method: "package driver vs internal/twomass.DenseRun (the same recurrence as the reference, as the dense 6×6 system L·x' = R·x in physical coordinates, LU once) for Newmark and ρ∞ = 1, 0.8, 0.5, 0; largest at " + worstDenseLabel + "; bound 5e-13: K·q cancels 800.5·q₀ against 799.5·q₁ and loses about 1e-13 per evaluation, carried linearly over 120 steps (the MADDENING two-mass guide publishes no figure for this cross-check); recorded rounded up to one significant digit",
		Pass:   worstDense <= 5e-13})
	// The MADDENING two-mass guide's direct stepping loop: GeneralizedAlpha(ρ∞ = 0.5), dt =
	// 0.1 s to 1 s, each accepted history passed into the next call.
	loop, err := twomass.Run(p, integrators.GeneralizedAlpha{RhoInf: 0.5}, 0.1, 10, false)
	if err != nil {
		t.Fatal(err)
	}
	if rho := loop.Memory.Latest.RhoInf; rho != 0.5 {
		t.Errorf("direct loop: history ρ∞ = %v, want 0.5", rho)
	}
	if tEnd := loop.Final().T; !numtest.Within(tEnd, 1, 1e-12) {
		t.Errorf("direct loop ends at t = %v, want 1", tEnd)
	}
	record(t, Measurement{ID: "MADD-VER-030", Subject: "generalized-alpha", Quantity: "direct stepping loop: accepted steps (ρ∞ = 0.5, dt = 0.1 s to 1 s)",
		Value: float64(loop.Stats.Steps), Reference: 10, Bound: "= 10",
		Method: fmt.Sprintf("internal/twomass.Run: ten Advance calls on the two-mass problem, each accepted History passed on; the last history records ρ∞ = %v at t = %v s; reference: the MADDENING two-mass guide's loop (accepted_steps == 10, history rho_inf == 0.5)", loop.Memory.Latest.RhoInf, loop.Final().T),
		Pass:   loop.Stats.Steps == 10 && loop.Memory.Latest.RhoInf == 0.5})
	D, err := twomass.DriverAmplification(twomass.BadBeta(), 4)
	if err != nil {
		t.Fatal(err)
	}
	r := twomass.Radius(D)
	record(t, Measurement{ID: "MADD-VER-030", Subject: "generalized-alpha", Quantity: "negative control: amplification radius with β = 1/16 at ω·dt = 4",
		Value: r, Reference: 5.83, Bound: "|Δ| ≤ 0.005",
		Method: "ρ∞ = 1 with the audited upstream source's cached β = 1/16 instead of ¼; 3×3 amplification matrix built by stepping the package driver from unit (q, v, a) states on q̈ = −16q, dt = 1; largest eigenvalue modulus (gonum Eigen); reference: the MADDENING two-mass guide", Pass: math.Abs(r-5.83) <= 0.005})
}

// MADD-VER-030, refinement: on the resolved two-mode problem (ω = 1 and
// 3 rad/s, T = 2 s, 160/320/640 steps, error hypot of the modal
// displacement errors at T) carrying the algorithmic acceleration gives
// order ≥ 1.98 for every variant and ≤ 2.1; resetting it every step (an
// empty History: the physical acceleration, as the audited upstream
// source does) drops the damped variants to first order, |p − 1| ≤ 0.1.
//
// Where our numbers differ from the MADDENING two-mass guide's, the evidence says so rather
// than hiding it behind the bound: the MADDENING two-mass guide publishes 1.987–2.000 for
// the carried orders, and here ρ∞ = 0 measures about 2.04 (above the
// MADDENING two-mass guide's range; the others are within a few 1e-3 of 2); the guide
// publishes 0.991 for the reset orders of the damped variants, and here
// they span about 1.00–1.06 (ρ∞ = 0.8 highest). The MADDENING two-mass guide does not state
// its refinement grid beyond "frequencies 1 and 3 rad/s on a separate
// grid", so the finest-pair values need not agree in the second decimal.
func TestTwoMassOrders(t *testing.T) {
	const method = "internal/twomass.Refine: package driver on K = [[5, −4], [−4, 5]], amplitudes 1 and 0.5, T = 2 s, steps 160/320/640, error hypot of the modal displacement errors at T, order over the finest pair"
	minCarried, minLabel := math.Inf(1), ""
	maxCarried, maxLabel := math.Inf(-1), ""
	type reset struct {
		rho, p float64
	}
	var resets []reset
	for _, v := range twomass.Variants() {
		r, err := twomass.Refine(v, []int{160, 320, 640})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: carried %.4f reset %.4f", v.Label, r.OrderCarried, r.OrderReset)
		if r.OrderCarried < minCarried {
			minCarried, minLabel = r.OrderCarried, v.Label
		}
		if r.OrderCarried > maxCarried {
			maxCarried, maxLabel = r.OrderCarried, v.Label
		}
		if v.Method.Name() == integrators.MethodGeneralizedAlpha && v.Method.Params().RhoInf < 1 {
			resets = append(resets, reset{v.Method.Params().RhoInf, r.OrderReset})
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range resets {
		lo, hi = math.Min(lo, r.p), math.Max(hi, r.p)
	}
	for _, r := range resets {
		record(t, Measurement{ID: "MADD-VER-030", Subject: "generalized-alpha", Quantity: fmt.Sprintf("observed order with acceleration reset every step (ρ∞ = %v)", r.rho),
			Value: r.p, Reference: 1, Bound: "|p − 1| ≤ 0.1",
			Method: method + fmt.Sprintf("; empty History every step (negative control); the MADDENING two-mass guide publishes 0.991 for the damped variants, this run measures %s–%s over ρ∞ = 0.8, 0.5, 0: not the MADDENING two-mass guide's value, within the first-order bound", fmtG(sig4(lo)), fmtG(sig4(hi))),
			Pass:   math.Abs(r.p-1) <= 0.1})
	}
	carried := fmt.Sprintf("; history carried; this run measures %s (%s) to %s (%s) over the variants; the MADDENING two-mass guide publishes 1.987–2.000", fmtG(sig4(minCarried)), minLabel, fmtG(sig4(maxCarried)), maxLabel)
	if maxCarried > 2.0005 || minCarried < 1.9865 {
		carried += fmt.Sprintf(", so %s lies outside the MADDENING two-mass guide's range", maxLabel)
	}
	record(t, Measurement{ID: "MADD-VER-030", Subject: "generalized-alpha", Quantity: "observed order with acceleration carried (min over Newmark and ρ∞ = 1, 0.8, 0.5, 0)",
		Value: minCarried, Reference: 2, Bound: "p ≥ 1.98", Method: method + carried + " (the bound is one-sided: a higher order is not a failure of the claim)", Pass: minCarried >= 1.98})
	record(t, Measurement{ID: "MADD-VER-030", Subject: "generalized-alpha", Quantity: "observed order with acceleration carried (max over Newmark and ρ∞ = 1, 0.8, 0.5, 0)",
		Value: maxCarried, Reference: 2, Bound: "p ≤ 2.1", Method: method + carried + " (upper bound 2.1, as internal/twomass.TestRefinementOrders asks)", Pass: maxCarried <= 2.1})
}
