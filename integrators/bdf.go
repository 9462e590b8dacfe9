package integrators

import (
	"context"
	"fmt"
	"math"
)

// bdfMaxOrder is the highest order of BDF: beyond 5 the formulas are not
// zero-stable enough to be useful (BDF-6 is zero-stable, BDF-7 is not,
// and BDF-6's stability region misses too much of the left half plane).
const bdfMaxOrder = 5

// BDF is the variable-order (1 to MaxOrder ≤ 5), variable-step backward
// differentiation formula method in Nordsieck form with fixed leading
// coefficient, the method of CVODE (Hindmarsh et al., ACM TOMS 31,
// 363–396, 2005), with its heuristics: the local error estimated from
// the corrector–predictor difference, step and order chosen together
// after each step from the estimates at orders q − 1, q and q + 1
// (Byrne & Hindmarsh 1975), the order raised by at most one after q + 1
// steps at the same order, and the Newton matrix I − h/l₁·J kept while
// h/l₁ changes by at most 30 % and the Jacobian for up to
// LinearOptions.JacobianMaxAge steps.
//
// BDF-1 and BDF-2 are L-stable and A-stable; orders 3–5 are A(α)-stable
// (α = 86°, 73°, 51°), so stiff problems with eigenvalues near the
// imaginary axis (undamped oscillations) make the controller lower the
// order. Its adaptive driver has the Nordsieck polynomial as dense
// output (of the order in use) and locates events on it; after an event
// reset or at a time event the history is invalid and the method
// restarts at order 1. As a fixed-step Method it runs order MaxOrder
// with the caller's step, its first MaxOrder − 1 steps taken by ESDIRK43
// (whose error, O(dt⁵) per step, keeps the global order).
//
// Zero values mean the documented defaults.
type BDF struct {
	// RTol, ATol, InitialStep, MinStep and MaxStep are the step control
	// of the adaptive driver (StepControl; defaults RTol = 1e-6,
	// ATol = 1e-9, CVODE's automatic first step, no bounds). The error
	// test is on the weighted RMS norm with weights 1/(RTol·|y_n| + ATol)
	// at the start of each step.
	RTol, ATol                    float64
	InitialStep, MinStep, MaxStep float64
	// MaxOrder is the highest order, 1 to 5; zero means 5.
	MaxOrder int
	// NewtonCoef is the Newton tolerance relative to the error test
	// (CVODE's nonlinear convergence coefficient). Zero means 0.1.
	NewtonCoef float64
	// Newton: MaxIter bounds the iterations of one step (zero: 3 in the
	// adaptive driver, 10 in the fixed-step Stepper); Tol is the
	// fixed-step Stepper's test max|Δz| ≤ Tol·(1 + max|z|) (zero: 1e-10).
	Newton NewtonOptions
	// Linear chooses the linear solver; JacobianMaxAge zero means 50
	// steps here.
	Linear LinearOptions
}

func (m BDF) opts() implicitOptions {
	return implicitOptions{StepControl{m.RTol, m.ATol, m.InitialStep, m.MinStep, m.MaxStep}, m.NewtonCoef, m.Newton, m.Linear}
}

func (m BDF) with(p implicitOptions) BDF {
	return BDF{p.ctl.RTol, p.ctl.ATol, p.ctl.InitialStep, p.ctl.MinStep, p.ctl.MaxStep, m.MaxOrder, p.coef, p.newton, p.linear}
}

// Name returns MethodBDF.
func (BDF) Name() string { return MethodBDF }

// Order returns MaxOrder (5 when zero): the highest order the method
// uses.
func (m BDF) Order() int {
	if m.MaxOrder == 0 {
		return bdfMaxOrder
	}
	return m.MaxOrder
}

func (m BDF) info() methodInfo { return methodInfo{Name: m.Name(), Order: m.Order()} }

func (m BDF) canonical() Method {
	c := m.with(m.opts().canonical())
	c.MaxOrder = m.Order()
	return c
}

// Control implements AdaptiveMethod.
func (m BDF) Control() StepControl { return m.opts().ctl }

// WithControl implements AdaptiveMethod.
func (m BDF) WithControl(c StepControl) AdaptiveMethod {
	p := m.opts()
	p.ctl = c
	return m.with(p)
}

// Solver implements NewtonMethod.
func (m BDF) Solver() (NewtonOptions, LinearOptions) { return m.Newton, m.Linear }

// WithSolver implements NewtonMethod.
func (m BDF) WithSolver(n NewtonOptions, l LinearOptions) NewtonMethod {
	m.Newton, m.Linear = n, l
	return m
}

func (m BDF) validate() error {
	if m.MaxOrder < 0 || m.MaxOrder > bdfMaxOrder {
		return fmt.Errorf("integrators: BDF.MaxOrder = %d: want 1 to %d (zero: %d)", m.MaxOrder, bdfMaxOrder, bdfMaxOrder)
	}
	return nil
}

// NewDriver implements AdaptiveMethod: the variable-order, error-
// controlled driver.
func (m BDF) NewDriver(sys System, o *DriverOptions) (Driver, error) {
	if err := m.validate(); err != nil {
		return nil, err
	}
	if err := m.opts().driverOnly(MethodBDF); err != nil {
		return nil, err
	}
	c, coef, err := m.opts().conf(MethodBDF, o, false)
	if err != nil {
		return nil, err
	}
	return newBDFDriver(m.info(), m.Order(), c, coef, sys)
}

// Constants of the step and order selection (CVODE's values: Hindmarsh
// et al. 2005 and the CVODE user guide, "Mathematical considerations").
const (
	bdfBias1   = 6.0   // safety of the order q − 1 estimate
	bdfBias2   = 6.0   // safety of the order q estimate
	bdfBias3   = 10.0  // safety of the order q + 1 estimate
	bdfAddon   = 1e-6  // keeps 1/(estimate^(1/k) + addon) finite
	bdfThresh  = 1.5   // a step increase smaller than this is not taken
	bdfEtaMax1 = 1e4   // largest growth after the first step
	bdfEtaMax  = 10.0  // largest growth after later steps
	bdfEtaMin  = 0.1   // smallest reduction after an error test failure
	bdfEtaMxF  = 0.2   // largest factor after two error test failures
	bdfEtaCF   = 0.25  // reduction after a Newton convergence failure
	bdfMaxNef  = 7     // error test failures of one step before giving up
	bdfMxNef1  = 3     // failures after which the order drops to 1
	bdfMaxNcf  = 10    // convergence failures of one step before giving up
	bdfLongWt  = 10    // steps to wait after a restart at order 1
	bdfHubFac  = 0.1   // initial step: bound by 0.1·|tEnd − t0| and …
	bdfHlbFac  = 100.0 // … at least 100 ulp of t
	bdfHBias   = 0.5   // initial step: half the estimate
	bdfHinIter = 4     // initial step: estimate iterations
	bdfRoundof = 0x1p-52
)

// bdfDriver is the adaptive driver of BDF.
type bdfDriver struct {
	mi   methodInfo
	sys  System
	n    int
	c    conf
	coef float64
	qmax int
	ss   *stageSolver
	evs  *denseEvents
	tev  TimeEventSystem

	init    bool
	restart bool // the history must be (re)built from the state: at Init, after an event or a time event
	t       float64
	z       [bdfMaxOrder + 1][]float64 // Nordsieck array, scaled by h
	acor    []float64                  // Δ of the last step
	saved   []float64                  // Δ kept for the order-increase estimate
	ewt     []float64
	psi     []float64
	ydd     []float64 // scratch of hin
	tmp     []float64

	q, qprime, qwait int
	h, hprime        float64
	hu               float64 // the last step taken
	etamax           float64
	tau              [bdfMaxOrder + 2]float64
	l                [bdfMaxOrder + 1]float64
	tq               [6]float64
	savedTq5         float64
	rate             float64
	lastTq2          float64 // tq[2] of the last step (LocalError; 0 before the first)

	// dense output: the Nordsieck polynomial of the last step, at
	// t (scale h, order q); after an event, a copy ending at the event
	dEvent             bool
	evZ                [bdfMaxOrder + 1][]float64
	evT, evH, evStart  float64
	evQ                int
	dStart             float64 // start of the last step
	stepHadDenseOutput bool

	stats Work
}

func newBDFDriver(mi methodInfo, qmax int, c conf, coef float64, sys System) (*bdfDriver, error) {
	n := sys.Dim()
	d := &bdfDriver{mi: mi, sys: sys, n: n, c: c, coef: coef, qmax: qmax}
	mk := func() []float64 { return make([]float64, n) }
	for j := 0; j <= qmax; j++ {
		d.z[j] = mk()
	}
	d.acor, d.saved, d.ewt, d.psi, d.ydd, d.tmp = mk(), mk(), mk(), mk(), mk(), mk()
	var err error
	if d.ss, err = newStageSolver(mi.Name, sys, &d.c, &d.stats); err != nil {
		return nil, err
	}
	if d.evs, err = newDenseEvents(sys, n, &d.c, mi.Name, &d.stats); err != nil {
		return nil, err
	}
	if d.evs != nil {
		for j := 0; j <= qmax; j++ {
			d.evZ[j] = mk()
		}
	}
	d.tev, _ = sys.(TimeEventSystem)
	return d, nil
}

func (d *bdfDriver) Method() string              { return d.mi.Name }
func (d *bdfDriver) Order() int                  { return d.mi.Order }
func (d *bdfDriver) Work() Work                  { return d.stats }
func (d *bdfDriver) State() (float64, []float64) { return d.t, d.z[0] }

// NextStep implements Driver: the step the next Step will try (the
// initial step is computed by the first Step: zero before it).
func (d *bdfDriver) NextStep() float64 {
	if d.restart {
		return d.c.h0
	}
	return d.hprime
}

// CurrentOrder returns the order the next step will use.
func (d *bdfDriver) CurrentOrder() int {
	if d.restart {
		return 1
	}
	return d.qprime
}

// Run implements Driver.
func (d *bdfDriver) Run(ctx context.Context, tEnd float64, output []float64) (*Outcome, error) {
	if !d.init {
		panic("integrators: Run before Init")
	}
	return runDriver(ctx, d, d.c.maxSteps, tEnd, output)
}

// Init implements Driver.
func (d *bdfDriver) Init(t0 float64, y0 []float64) error {
	d.init = false
	if err := checkInit(d.mi.Name, d.n, t0, y0); err != nil {
		return err
	}
	copy(d.z[0], y0)
	d.t = t0
	d.stats = Work{}
	d.restart = true
	d.hu, d.dStart, d.stepHadDenseOutput, d.lastTq2 = 0, t0, false, 0
	d.ss.haveJ, d.ss.haveM = false, false
	if d.evs != nil {
		if err := d.evs.init(t0, d.z[0]); err != nil {
			return err
		}
	}
	d.init = true
	return nil
}

// start builds the history at order 1 from the state: z_1 = h·f(t, y)
// with the initial step h (DriverOptions' InitialStep or hin), bounded so
// that the step does not pass tMax.
func (d *bdfDriver) start(tMax float64) error {
	t, y := d.t, d.z[0]
	f := d.z[1]
	if err := d.ss.eval(t, y, f); err != nil {
		return err
	}
	if k := firstNonFinite(f); k >= 0 {
		return &StepError{Method: d.mi.Name, Status: NonFinite, T: t, Index: k, Detail: "in f at the start"}
	}
	h := d.c.h0
	if h == 0 {
		var err error
		if math.IsInf(tMax, 1) {
			// No end to scale the first step by: Hairer, Nørsett &
			// Wanner's estimate for order 1.
			h, err = hinitHNW(d.ss.eval, t, y, f, d.ydd, d.tmp, 1, d.c.rtol, d.c.atol, d.c.hmax, tMax)
		} else {
			h, err = d.hin(tMax)
		}
		if err != nil {
			return err
		}
	}
	h = math.Min(math.Min(h, d.c.hmax), tMax-t)
	for i := range f {
		f[i] *= h
	}
	d.h, d.hprime = h, h
	d.q, d.qprime, d.qwait = 1, 1, 2
	d.etamax = bdfEtaMax1
	d.tau = [bdfMaxOrder + 2]float64{}
	d.savedTq5 = 0
	d.rate = 1
	d.restart = false
	return nil
}

// hin is the initial step of CVODE (Hindmarsh et al. 2005, §2.1; the
// CVODE user guide, "Initial step size"): the step whose local error
// ½h²·‖y″‖ would be about ½ in the weighted RMS norm, with ‖y″‖
// estimated by a difference of f along an explicit Euler step and the
// estimate iterated up to four times until it is consistent within a
// factor of 2; then halved and bounded below by 100 ulp of t and above
// by 0.1·|tMax − t| and by the step over which some component would
// move by more than 10 % of itself plus its tolerance. z[1] holds f(t, y).
func (d *bdfDriver) hin(tMax float64) (float64, error) {
	t, y, f := d.t, d.z[0], d.z[1]
	tdist := tMax - t
	tround := bdfRoundof * math.Max(math.Abs(t), math.Abs(tMax))
	hlb := bdfHlbFac * tround
	errorWeights(y, d.ewt, d.c.rtol, d.c.atol)
	hubInv := 0.0
	for i := range y {
		hubInv = math.Max(hubInv, math.Abs(f[i])/(bdfHubFac*math.Abs(y[i])+1/d.ewt[i]))
	}
	hub := bdfHubFac * tdist
	if hub*hubInv > 1 {
		hub = 1 / hubInv
	}
	hg := math.Sqrt(hlb * hub)
	if hub < hlb {
		return hg, nil
	}
	var hnew float64
	for count := 1; count <= bdfHinIter; count++ {
		// ‖y″‖ ≈ ‖f(t + hg, y + hg·f) − f‖/hg
		for i := range y {
			d.tmp[i] = y[i] + hg*f[i]
		}
		if err := d.ss.eval(t+hg, d.tmp, d.ydd); err != nil {
			return 0, err
		}
		for i := range y {
			d.ydd[i] = (d.ydd[i] - f[i]) / hg
		}
		ydd := wrmsNorm(d.ydd, d.ewt)
		if math.IsNaN(ydd) || math.IsInf(ydd, 0) {
			hnew = hlb
			break
		}
		if ydd*hub*hub > 2 {
			hnew = math.Sqrt(2 / ydd)
		} else {
			hnew = math.Sqrt(hg * hub)
		}
		if count == bdfHinIter {
			break
		}
		hrat := hnew / hg
		if hrat > 0.5 && hrat < 2 {
			break
		}
		if count > 1 && hrat > 2 {
			hnew = hg
			break
		}
		hg = hnew
	}
	h0 := bdfHBias * hnew
	return math.Max(hlb, math.Min(hub, h0)), nil
}

// rescale changes the step to h·eta (the Nordsieck array with it).
func (d *bdfDriver) rescale(eta float64) {
	nordsieckRescale(&d.z, d.q, eta)
	d.h *= eta
	d.hprime = d.h
}

// Step implements Driver.
func (d *bdfDriver) Step(tMax float64) (StepReport, error) {
	if !d.init {
		panic("integrators: Step before Init")
	}
	if !(tMax > d.t) {
		panic(fmt.Sprintf("integrators: Step: tMax %v not after t %v", tMax, d.t))
	}
	c := &d.c
	t := d.t
	if e := d.evs; e != nil {
		e.begin()
		if !e.started {
			fired, stop, err := e.start(t, d.z[0], func(dst []float64) error { return d.ss.eval(t, d.z[0], dst) })
			if err != nil {
				return StepReport{}, err
			}
			if fired {
				copy(d.z[0], e.final())
				d.restart = true
				d.dStart, d.stepHadDenseOutput, d.dEvent = t, false, false
				rep := StepReport{T0: t, T1: t, Fired: e.fire}
				rep.Event, rep.Action = e.outcome(stop)
				return rep, nil
			}
		}
	}
	onTimeEvent := false
	if d.tev != nil {
		if te := d.tev.NextTimeEvent(t); te > t && te <= tMax {
			tMax, onTimeEvent = te, true
		}
	}
	if d.restart {
		if err := d.start(tMax); err != nil {
			return StepReport{}, err
		}
	} else {
		// The order and step chosen after the last step.
		if d.qprime != d.q {
			if d.qprime < d.q {
				nordsieckDecrease(&d.z, d.q, d.h, &d.tau)
			} else {
				nordsieckIncrease(&d.z, d.q, d.h, &d.tau, d.saved)
			}
			d.q = d.qprime
			d.qwait = d.q + 1
		}
		if d.hprime != d.h {
			d.rescale(d.hprime / d.h)
		}
	}
	errorWeights(d.z[0], d.ewt, c.rtol, c.atol)
	ncf, nef := 0, 0
	forceJ, forceSetup := false, d.stats.Steps == 0
	for trials := 0; ; trials++ {
		if trials >= c.maxSteps {
			return StepReport{}, &StepError{Method: d.mi.Name, Status: MaxStepsReached, T: t, Dt: d.h, Index: -1}
		}
		// Land on tMax when the step would pass it (or nearly reach it).
		last := false
		if t+d.h*(1+1e-10) >= tMax {
			if h := tMax - t; h != d.h {
				d.rescale(h / d.h)
			}
			last = true
		}
		h := d.h
		t1 := t + h
		if last {
			t1 = tMax
		}
		ts := t1
		if onTimeEvent && last {
			ts = math.Nextafter(t1, math.Inf(-1)) // the left limit of f
		}
		nordsieckPredict(&d.z, d.q)
		bdfCoefficients(d.q, h, &d.tau, d.qwait == 1, &d.l, &d.tq)
		gamma := h / d.l[1]
		// The corrector for the correction e = y_n − y_n⁽⁰⁾:
		// e + z⁽⁰⁾_1/l_1 − γ·f(t_n, y_n⁽⁰⁾ + e) = 0.
		for i, z1 := range d.z[1] {
			d.psi[i] = -z1 / d.l[1]
		}
		clear(d.acor)
		ok, err := d.ss.newton(ts, h, gamma, d.z[0], d.psi, d.acor, d.ewt, d.coef/d.tq[2], &d.rate, forceJ, forceSetup)
		if err == nil && !ok && !d.ss.jCur && !d.ss.mfOnly {
			// An old Jacobian: retry the iteration with a fresh one.
			clear(d.acor)
			ok, err = d.ss.newton(ts, h, gamma, d.z[0], d.psi, d.acor, d.ewt, d.coef/d.tq[2], &d.rate, true, true)
		}
		if err != nil {
			nordsieckRetract(&d.z, d.q)
			return StepReport{}, err
		}
		if !ok {
			nordsieckRetract(&d.z, d.q)
			ncf++
			d.stats.Rejected++
			d.etamax = 1
			if ncf >= bdfMaxNcf || h <= minStep(c, t)*(1+1e-10) {
				return StepReport{}, d.ss.failure(t1, h, fmt.Sprintf("Newton failed at %d trials of this step, the last with step %g (order %d)", ncf, h, d.q))
			}
			d.rescale(math.Max(bdfEtaCF, minStep(c, t)/h))
			forceJ, forceSetup = true, true
			continue
		}
		dsm := wrmsNorm(d.acor, d.ewt) * d.tq[2]
		if !(dsm <= 1) {
			nordsieckRetract(&d.z, d.q)
			nef++
			d.stats.Rejected++
			d.etamax = 1
			if nef >= bdfMaxNef || h <= minStep(c, t)*(1+1e-10) {
				return StepReport{}, &StepError{Method: d.mi.Name, Status: StepTooSmall, T: t, Dt: h, Index: -1,
					Detail: fmt.Sprintf("the error test failed at %d trials of this step, the last with step %g (order %d, error norm %.3g)", nef, h, d.q, dsm)}
			}
			forceJ, forceSetup = false, true
			hminRatio := minStep(c, t) / h
			switch {
			case nef <= bdfMxNef1:
				eta := 1 / (math.Pow(bdfBias2*dsm, 1/float64(d.q+1)) + bdfAddon)
				if math.IsNaN(eta) {
					eta = bdfEtaMin
				}
				eta = math.Max(bdfEtaMin, math.Max(eta, hminRatio))
				if nef >= 2 {
					eta = math.Min(eta, bdfEtaMxF)
				}
				d.rescale(eta)
			case d.q > 1:
				// Repeated failures: drop to order 1.
				for d.q > 1 {
					nordsieckDecrease(&d.z, d.q, d.h, &d.tau)
					d.q--
				}
				d.qprime, d.qwait = d.q, d.q+1
				d.rescale(math.Max(bdfEtaMin, hminRatio))
			default:
				// At order 1: restart the history from f at the state.
				eta := math.Max(bdfEtaMin, hminRatio)
				d.h *= eta
				d.hprime = d.h
				d.qwait = bdfLongWt
				if err := d.ss.eval(t, d.z[0], d.z[1]); err != nil {
					return StepReport{}, err
				}
				for i := range d.z[1] {
					d.z[1][i] *= d.h
				}
			}
			continue
		}
		// Accepted.
		d.complete(h)
		d.prepareNext(dsm)
		d.etamax = bdfEtaMax
		d.dStart, d.stepHadDenseOutput, d.dEvent = t, true, false
		d.t = t1
		d.ss.accepted()
		d.stats.Steps++
		rep := StepReport{T0: t, T1: t1, H: h, Event: -1}
		if i := firstNonFinite(d.z[0]); i >= 0 {
			return rep, &StepError{Method: d.mi.Name, Status: NonFinite, T: t1, Dt: h, Index: i}
		}
		if d.evs != nil {
			fired, err := d.handleEvents(&rep)
			if err != nil {
				return StepReport{}, err
			}
			if fired {
				return rep, nil
			}
			d.evs.accept()
		}
		if onTimeEvent && last {
			d.restart = true // f jumps at t1: rebuild the history from f's right limit
		}
		return rep, nil
	}
}

// complete updates the history after an accepted step of size h: the
// past steps, the Nordsieck array (z += Δ·l), and the order-change
// countdown, keeping Δ when an order increase will be considered.
func (d *bdfDriver) complete(h float64) {
	q := d.q
	d.hu, d.lastTq2 = h, d.tq[2]
	for i := q; i >= 2; i-- {
		d.tau[i] = d.tau[i-1]
	}
	if q == 1 && d.stats.Steps > 0 {
		d.tau[2] = d.tau[1]
	}
	d.tau[1] = h
	for j := 0; j <= q; j++ {
		lj, zj := d.l[j], d.z[j]
		for i, a := range d.acor {
			zj[i] += lj * a
		}
	}
	d.qwait--
	if d.qwait == 1 && q != d.qmax {
		copy(d.saved, d.acor)
		d.savedTq5 = d.tq[5]
	}
}

// prepareNext chooses the order and step of the next step from the
// error norm dsm of this one: the step factors that would make the
// estimated error at orders q − 1, q and q + 1 about 1/6, 1/6 and 1/10
// of the tolerance (η = 1/((bias·est)^(1/(k+1)) + 10⁻⁶)); order changes
// are considered only after q + 1 steps at the same order, the largest
// factor wins, and an increase below 1.5 is not taken.
func (d *bdfDriver) prepareNext(dsm float64) {
	q, h := d.q, d.h
	if d.etamax == 1 {
		d.qwait = max(d.qwait, 2)
		d.qprime, d.hprime = q, h
		return
	}
	etaq := 1 / (math.Pow(bdfBias2*dsm, 1/float64(q+1)) + bdfAddon)
	eta, qp := etaq, q
	if d.qwait == 0 {
		d.qwait = 2
		etaqm1, etaqp1 := 0.0, 0.0
		if q > 1 {
			ddn := wrmsNorm(d.z[q], d.ewt) * d.tq[1]
			etaqm1 = 1 / (math.Pow(bdfBias1*ddn, 1/float64(q)) + bdfAddon)
		}
		if q != d.qmax && d.savedTq5 != 0 {
			cquot := d.tq[5] / d.savedTq5 * math.Pow(h/d.tau[2], float64(q+1))
			for i, a := range d.acor {
				d.tmp[i] = a - cquot*d.saved[i]
			}
			dup := wrmsNorm(d.tmp, d.ewt) * d.tq[3]
			etaqp1 = 1 / (math.Pow(bdfBias3*dup, 1/float64(q+2)) + bdfAddon)
		}
		etam := math.Max(etaqm1, math.Max(etaq, etaqp1))
		switch {
		case etam < bdfThresh:
			eta, qp = 1, q
		case etam == etaq:
			eta, qp = etaq, q
		case etam == etaqm1:
			eta, qp = etaqm1, q-1
		default:
			eta, qp = etaqp1, q+1
			copy(d.saved, d.acor) // Δ of this step builds z_{q+1}
		}
	}
	d.qprime = qp
	if eta < bdfThresh {
		d.qprime, d.hprime = q, h
		return
	}
	eta = math.Min(eta, d.etamax)
	eta /= math.Max(1, h*eta/d.c.hmax)
	d.hprime = h * eta
}

// handleEvents locates events on the Nordsieck polynomial of the step
// just taken and, when some fired, ends the step at their instant with
// the state after every reset due there; the history restarts from it.
func (d *bdfDriver) handleEvents(rep *StepReport) (bool, error) {
	e := d.evs
	found, te, err := e.find(rep.T0, rep.T1, d.z[0], d.dense)
	if err != nil || !found {
		return false, err
	}
	stop, err := e.instant(te, rep.H)
	if err != nil {
		// The end of the step, which is accepted, stays the state.
		return false, err
	}
	for j := 0; j <= d.q; j++ {
		copy(d.evZ[j], d.z[j])
	}
	d.evT, d.evH, d.evQ, d.evStart = rep.T1, d.h, d.q, rep.T0
	copy(d.z[0], e.final())
	d.t = te
	d.dEvent = true
	d.restart = true // at the step that hin chooses from the new state
	rep.T1, rep.Fired = te, e.fire
	rep.Event, rep.Action = e.outcome(stop)
	return true, nil
}

// dense writes the state at t in the last step (before an event there).
func (d *bdfDriver) dense(t float64, dst []float64) {
	if d.dEvent {
		nordsieckEval(&d.evZ, d.evQ, (t-d.evT)/d.evH, dst)
		return
	}
	nordsieckEval(&d.z, d.q, (t-d.t)/d.h, dst)
}

// Dense implements Driver: the Nordsieck polynomial of the last step
// (of the order it used).
func (d *bdfDriver) Dense(t float64, dst []float64) {
	if d.evs.atInstant(t) {
		copy(dst, d.evs.before())
		return
	}
	checkDense(d.stepHadDenseOutput, t, d.dStart, d.t)
	if t == d.t && !d.dEvent {
		copy(dst, d.z[0])
		return
	}
	d.dense(t, dst)
}

// Checkpoint implements Checkpointer: the state, the Work, the events,
// the multistep history (order, Nordsieck array, past steps, the
// step-size controller) and the Newton solver's memory, so that a
// restored driver steps on bit for bit.
func (d *bdfDriver) Checkpoint() StepperState {
	c := StepperState{Method: d.mi.Name, Dim: d.n, T: d.t, Clock: Clock{Base: d.t}, Y: cloneF(d.z[0]),
		H: d.NextStep(), Work: d.stats}
	if d.evs != nil {
		d.evs.checkpoint(&c)
	}
	c.Implicit = d.history()
	d.ss.checkpoint(&c, c.Implicit)
	return c
}

// history returns the multistep memory.
func (d *bdfDriver) history() *ImplicitState {
	h := &ImplicitState{Rate: d.rate, Restart: d.restart}
	if d.restart {
		return h
	}
	h.Order, h.NextOrder, h.Wait = d.q, d.qprime, d.qwait
	h.Step, h.NextStep, h.EtaMax = d.h, d.hprime, d.etamax
	h.Tau = append([]float64(nil), d.tau[1:d.qmax+2]...)
	for j := 0; j <= d.q; j++ {
		h.Z = append(h.Z, cloneF(d.z[j]))
	}
	if d.savedTq5 != 0 {
		h.Saved, h.SavedTq5 = cloneF(d.saved), d.savedTq5
	}
	return h
}

// setHistory restores the multistep memory of h (checked).
func (d *bdfDriver) setHistory(h *ImplicitState) error {
	if h == nil {
		return &StateMismatchError{Field: "history", Want: "the BDF history", Got: "none"}
	}
	d.rate, d.restart = h.Rate, h.Restart
	if h.Restart {
		return nil
	}
	bad := func(field, want, got string) error { return &StateMismatchError{Field: field, Want: want, Got: got} }
	switch {
	case h.Order < 1 || h.Order > d.qmax || h.NextOrder < 1 || h.NextOrder > d.qmax || abs(h.NextOrder-h.Order) > 1:
		return bad("order", fmt.Sprintf("1 to %d", d.qmax), fmt.Sprintf("%d, next %d", h.Order, h.NextOrder))
	case len(h.Z) != h.Order+1:
		return bad("nordsieck", fmt.Sprint(h.Order+1, " vectors"), fmt.Sprint(len(h.Z)))
	case len(h.Tau) != d.qmax+1:
		return bad("tau", fmt.Sprint(d.qmax+1), fmt.Sprint(len(h.Tau)))
	case !(h.Step > 0) || !(h.NextStep > 0) || !(h.EtaMax > 0) || math.IsInf(h.Step, 0) || math.IsInf(h.NextStep, 0):
		return bad("step", "positive and finite", fmt.Sprintf("%v, next %v, growth %v", h.Step, h.NextStep, h.EtaMax))
	case h.SavedTq5 != 0 && len(h.Saved) != d.n:
		return bad("saved", fmt.Sprint(d.n), fmt.Sprint(len(h.Saved)))
	}
	for _, z := range h.Z {
		if len(z) != d.n {
			return bad("nordsieck", fmt.Sprint(d.n), fmt.Sprint(len(z)))
		}
	}
	d.q, d.qprime, d.qwait = h.Order, h.NextOrder, h.Wait
	d.h, d.hprime, d.etamax = h.Step, h.NextStep, h.EtaMax
	d.tau = [bdfMaxOrder + 2]float64{}
	copy(d.tau[1:], h.Tau)
	for j, z := range h.Z {
		copy(d.z[j], z)
	}
	d.savedTq5 = h.SavedTq5
	if d.savedTq5 != 0 {
		copy(d.saved, h.Saved)
	}
	return nil
}

func abs(k int) int {
	if k < 0 {
		return -k
	}
	return k
}

// Restore implements Checkpointer.
func (d *bdfDriver) Restore(c StepperState) error {
	if err := c.check(d.mi.Name, d.n, false); err != nil {
		return err
	}
	if err := d.evs.restore(c); err != nil {
		return err
	}
	d.init = false
	if err := d.setHistory(c.Implicit); err != nil {
		return err
	}
	copy(d.z[0], c.Y)
	d.t = c.T
	d.stats = c.Work
	if err := d.ss.restore(c, c.Implicit); err != nil {
		return err
	}
	d.stepHadDenseOutput = false
	d.init = true
	return nil
}

// LocalError implements ErrorEstimator: tq₂·Δ of the last step, Δ the
// corrector–predictor difference.
func (d *bdfDriver) LocalError(dst []float64) {
	if d.lastTq2 == 0 {
		panic("integrators: LocalError before the first step")
	}
	for i, a := range d.acor {
		dst[i] = d.lastTq2 * a
	}
}
