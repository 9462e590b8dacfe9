package integrators

import (
	"context"
	"fmt"
	"math"
)

// ESDIRK43 is the L-stable, stiffly accurate ESDIRK4(3)6L[2]SA pair of
// Kennedy & Carpenter (Applied Numerical Mathematics 44, 2003): fourth
// order with an embedded third-order error estimate, six stages of which
// five are implicit, all with the same Newton matrix I − h/4·J.
//
// Its adaptive driver (NewDriver, Integrate, adaptive graph runs) controls
// the step with the embedded estimate (a PI controller), has a cubic
// Hermite dense output (third order) and locates events on it; as a
// fixed-step Method (NewStepper, graph.Sim.RunMonolithic) it takes the
// fourth-order solution with the caller's step. Zero values mean the
// documented defaults.
type ESDIRK43 struct {
	// RTol, ATol, InitialStep, MinStep and MaxStep are the step control
	// of the adaptive driver (StepControl; defaults RTol = 1e-6,
	// ATol = 1e-9, the automatic first step, no bounds).
	RTol, ATol                    float64
	InitialStep, MinStep, MaxStep float64
	// NewtonCoef is the adaptive driver's Newton tolerance relative to
	// the error test: a stage's iteration stops when its estimated error
	// (the last update times the convergence rate, in the weighted RMS
	// norm of the error test) is at most NewtonCoef. Zero means 0.1.
	NewtonCoef float64
	// Newton: MaxIter bounds the iterations of one stage (zero: 3 in the
	// adaptive driver, which retries with a fresh Jacobian or a smaller
	// step instead; 10 in the fixed-step Stepper); Tol is the fixed-step
	// Stepper's test max|Δz| ≤ Tol·(1 + max|z|) (zero: 1e-10).
	Newton NewtonOptions
	// Linear chooses the linear solver (LinearOptions); JacobianMaxAge
	// zero means 50 steps here.
	Linear LinearOptions
}

// ESDIRK32 is the L-stable, stiffly accurate ESDIRK3(2)4L[2]SA pair of
// Kennedy & Carpenter (2003): third order with an embedded second-order
// estimate, four stages of which three are implicit. It is cheaper per
// step than ESDIRK43 and suits loose tolerances. Its options are those
// of ESDIRK43.
type ESDIRK32 struct {
	RTol, ATol                    float64
	InitialStep, MinStep, MaxStep float64
	NewtonCoef                    float64
	Newton                        NewtonOptions
	Linear                        LinearOptions
}

func (m ESDIRK43) opts() implicitOptions {
	return implicitOptions{StepControl{m.RTol, m.ATol, m.InitialStep, m.MinStep, m.MaxStep}, m.NewtonCoef, m.Newton, m.Linear}
}
func (m ESDIRK32) opts() implicitOptions {
	return implicitOptions{StepControl{m.RTol, m.ATol, m.InitialStep, m.MinStep, m.MaxStep}, m.NewtonCoef, m.Newton, m.Linear}
}

func (m ESDIRK43) with(p implicitOptions) ESDIRK43 {
	return ESDIRK43{p.ctl.RTol, p.ctl.ATol, p.ctl.InitialStep, p.ctl.MinStep, p.ctl.MaxStep, p.coef, p.newton, p.linear}
}
func (m ESDIRK32) with(p implicitOptions) ESDIRK32 {
	return ESDIRK32{p.ctl.RTol, p.ctl.ATol, p.ctl.InitialStep, p.ctl.MinStep, p.ctl.MaxStep, p.coef, p.newton, p.linear}
}

// Name, Order and the other Method, NewtonMethod and AdaptiveMethod
// methods.

func (ESDIRK43) Name() string { return MethodESDIRK43 }
func (ESDIRK32) Name() string { return MethodESDIRK32 }
func (ESDIRK43) Order() int   { return 4 }
func (ESDIRK32) Order() int   { return 3 }

func (m ESDIRK43) info() methodInfo     { return methodInfo{Name: m.Name(), Order: m.Order()} }
func (m ESDIRK32) info() methodInfo     { return methodInfo{Name: m.Name(), Order: m.Order()} }
func (m ESDIRK43) canonical() Method    { return m.with(m.opts().canonical()) }
func (m ESDIRK32) canonical() Method    { return m.with(m.opts().canonical()) }
func (m ESDIRK43) Control() StepControl { return m.opts().ctl }
func (m ESDIRK32) Control() StepControl { return m.opts().ctl }

func (m ESDIRK43) WithControl(c StepControl) AdaptiveMethod {
	p := m.opts()
	p.ctl = c
	return m.with(p)
}
func (m ESDIRK32) WithControl(c StepControl) AdaptiveMethod {
	p := m.opts()
	p.ctl = c
	return m.with(p)
}

func (m ESDIRK43) Solver() (NewtonOptions, LinearOptions) { return m.Newton, m.Linear }
func (m ESDIRK32) Solver() (NewtonOptions, LinearOptions) { return m.Newton, m.Linear }

func (m ESDIRK43) WithSolver(n NewtonOptions, l LinearOptions) NewtonMethod {
	m.Newton, m.Linear = n, l
	return m
}
func (m ESDIRK32) WithSolver(n NewtonOptions, l LinearOptions) NewtonMethod {
	m.Newton, m.Linear = n, l
	return m
}

// NewDriver implements AdaptiveMethod: the error-controlled driver.
func (m ESDIRK43) NewDriver(sys System, o *DriverOptions) (Driver, error) {
	return newESDIRKDriver(esdirk43, m.info(), m.opts(), sys, o)
}

// NewDriver implements AdaptiveMethod: the error-controlled driver.
func (m ESDIRK32) NewDriver(sys System, o *DriverOptions) (Driver, error) {
	return newESDIRKDriver(esdirk32, m.info(), m.opts(), sys, o)
}

// New implements Method: the fixed-step method with the caller's step
// (the step-control options must be zero).
func (m ESDIRK43) New(sys System, o *DriverOptions) (Stepper, error) {
	return newESDIRKStepper(esdirk43, m.info(), m.opts(), sys, o)
}

// New implements Method: the fixed-step method with the caller's step
// (the step-control options must be zero).
func (m ESDIRK32) New(sys System, o *DriverOptions) (Stepper, error) {
	return newESDIRKStepper(esdirk32, m.info(), m.opts(), sys, o)
}

// controlField names the first non-zero step-control option, or "".
func (p implicitOptions) controlField() string {
	for _, f := range []struct {
		name string
		v    float64
	}{{"RTol", p.ctl.RTol}, {"ATol", p.ctl.ATol}, {"InitialStep", p.ctl.InitialStep}, {"MinStep", p.ctl.MinStep},
		{"MaxStep", p.ctl.MaxStep}, {"NewtonCoef", p.coef}} {
		if f.v != 0 {
			return f.name
		}
	}
	return ""
}

// esdirkDriver is the adaptive driver of an ESDIRK pair (and, with
// fixed set, the engine of its fixed-step Stepper).
type esdirkDriver struct {
	tab  *esdirkTableau
	mi   methodInfo
	sys  System
	n    int
	c    conf
	coef float64
	ss   *stageSolver
	evs  *denseEvents
	tev  TimeEventSystem

	init bool
	fOK  bool // k[0] holds f(t, y)
	t    float64
	y    []float64 // accepted state
	yn   []float64 // trial end (stage s)
	yr   []float64 // state after an event's reset
	k    [6][]float64
	psi  []float64 // the stage's ψ − predictor
	pred []float64 // the stage's predictor
	e    []float64 // the stage's correction to it
	w    []float64 // error weights of the step start
	tmp  []float64

	h            float64 // proposed next step
	errOld       float64
	lastRejected bool
	rate         float64 // Newton convergence-rate estimate
	rateC        float64 // the γh it was measured at
	lastH        float64 // the last accepted step (LocalError; 0 before the first)
	unswapped    bool    // the last step ended at an event: k[0] and k[s−1] are in stage order
	forceJ       bool    // re-evaluate J before the next attempt

	// dense output (cubic Hermite) of the last accepted step: on
	// [dT0, dT0 + dH], valid up to dEnd (an event time may end it early)
	dT0, dH, dEnd      float64
	dy0, dy1, df0, df1 []float64
	dEvent             bool

	stats Work
}

func newESDIRKDriver(tab *esdirkTableau, mi methodInfo, p implicitOptions, sys System, o *DriverOptions) (*esdirkDriver, error) {
	if err := p.driverOnly(mi.Name); err != nil {
		return nil, err
	}
	c, coef, err := p.conf(mi.Name, o, false)
	if err != nil {
		return nil, err
	}
	return newESDIRK(tab, mi, c, coef, sys, nil)
}

// newESDIRK returns the driver of tab for sys; ss is its Newton solver,
// or nil for a new one (BDF's starting steps share BDF's).
func newESDIRK(tab *esdirkTableau, mi methodInfo, c conf, coef float64, sys System, ss *stageSolver) (*esdirkDriver, error) {
	n := sys.Dim()
	d := &esdirkDriver{tab: tab, mi: mi, sys: sys, n: n, c: c, coef: coef, errOld: 1, rate: 1}
	mk := func() []float64 { return make([]float64, n) }
	d.y, d.yn, d.psi, d.pred, d.e, d.w, d.tmp = mk(), mk(), mk(), mk(), mk(), mk(), mk()
	for i := 0; i < tab.s; i++ {
		d.k[i] = mk()
	}
	var err error
	if d.ss = ss; ss == nil {
		if d.ss, err = newStageSolver(mi.Name, sys, &d.c, &d.stats); err != nil {
			return nil, err
		}
	}
	if d.evs, err = newDenseEvents(sys, n, &d.c, mi.Name, &d.stats); err != nil {
		return nil, err
	}
	if d.evs != nil {
		d.yr = mk()
	}
	d.tev, _ = sys.(TimeEventSystem)
	return d, nil
}

func (d *esdirkDriver) Method() string              { return d.mi.Name }
func (d *esdirkDriver) Order() int                  { return d.mi.Order }
func (d *esdirkDriver) Work() Work                  { return d.stats }
func (d *esdirkDriver) State() (float64, []float64) { return d.t, d.y }
func (d *esdirkDriver) NextStep() float64           { return d.h }

// Run implements Driver.
func (d *esdirkDriver) Run(ctx context.Context, tEnd float64, output []float64) (*Outcome, error) {
	if !d.init {
		panic("integrators: Run before Init")
	}
	return runDriver(ctx, d, d.c.maxSteps, tEnd, output)
}

// Init implements Driver.
func (d *esdirkDriver) Init(t0 float64, y0 []float64) error {
	d.init = false
	if err := checkInit(d.mi.Name, d.n, t0, y0); err != nil {
		return err
	}
	copy(d.y, y0)
	d.t = t0
	d.stats = Work{}
	d.fOK = false
	d.h = d.c.h0
	d.errOld, d.lastRejected, d.rate, d.forceJ = 1, false, 1, false
	d.dH, d.lastH = 0, 0
	d.ss.haveJ, d.ss.haveM = false, false
	if d.evs != nil {
		if err := d.evs.init(t0, d.y); err != nil {
			return err
		}
	}
	d.init = true
	return nil
}

// stages computes the stages of a step of size h from (t, y) with
// k[0] = f(t, y), into yn and k; ts is the time of the stages with
// c_i = 1 (t + h, or its left limit when the step lands on a time
// event). fixedTol > 0 selects the fixed-step Newton test. It reports
// whether every stage's Newton iteration converged.
func (d *esdirkDriver) stages(t, h, ts float64) (bool, error) {
	tab, ss := d.tab, d.ss
	c := tab.gamma * h
	if c != d.rateC {
		// The rate was measured with another γh: a stage's first update
		// is large (its predictor is only the previous stage's slope),
		// and an old matrix contracts it less, so it is confirmed by a
		// second iteration rather than by the old rate.
		d.rate, d.rateC = 1, c
	}
	errorWeights(d.y, d.w, d.c.rtol, d.c.atol)
	forceJ := d.forceJ
	d.forceJ = false
	for i := 1; i < tab.s; i++ {
		ti := t + tab.c[i]*h
		if tab.c[i] == 1 {
			ti = ts
		}
		a := &tab.a[i]
		kp := d.k[i-1]
		for q := range d.psi {
			sum := 0.0
			for j := 0; j < i; j++ {
				sum += a[j] * d.k[j][q]
			}
			// ψ = y_n + h·Σ_{j<i} a_ij·k_j; predictor ψ + c·k_{i−1} (the
			// previous stage's slope); the Newton iteration solves for
			// the correction e to it, with ψ − predictor = −c·k_{i−1}.
			d.pred[q] = d.y[q] + h*sum + c*kp[q]
			d.psi[q] = -c * kp[q]
		}
		clear(d.e)
		// The first implicit stage prepares J and M (at its predictor).
		ok, err := ss.newton(ti, h, c, d.pred, d.psi, d.e, d.w, d.coef, &d.rate, i == 1 && forceJ, i == 1 && forceJ)
		if err != nil || !ok {
			return false, err
		}
		ki := d.k[i]
		for q := range ki {
			ki[q] = kp[q] + d.e[q]/c // the stage's slope (z − ψ)/c
		}
		if i == tab.s-1 {
			copy(d.yn, ss.z) // stiffly accurate: the last stage is the solution
		}
	}
	return true, nil
}

// errorNorm is the RMS norm of h·Σ d_i·k_i scaled by ATol + RTol·max(|y|, |y_new|).
func (d *esdirkDriver) errorNorm(h float64) float64 {
	tab := d.tab
	var s float64
	for q := range d.y {
		e := 0.0
		for i := 0; i < tab.s; i++ {
			e += tab.d[i] * d.k[i][q]
		}
		e *= h
		sc := d.c.atol + d.c.rtol*math.Max(math.Abs(d.y[q]), math.Abs(d.yn[q]))
		s += (e / sc) * (e / sc)
	}
	return math.Sqrt(s / float64(max(d.n, 1)))
}

// PI step-size controller of the ESDIRK driver (Gustafsson; Hairer &
// Wanner, Solving ODEs II, §IV.8, with exponents 0.7/k and 0.4/k for an
// estimate of order k − 1): h_new = h·0.9·err^(−0.7/k)·err_old^(0.4/k),
// the factor within [0.2, 5] (no growth after a rejection), and the
// step kept when the factor is within [1, 1.2], which saves a
// factorization of the Newton matrix.
const (
	esSafe   = 0.9
	esFacMin = 0.2
	esFacMax = 5.0
	esKeep   = 1.2
)

// Step implements Driver.
func (d *esdirkDriver) Step(tMax float64) (StepReport, error) {
	if !d.init {
		panic("integrators: Step before Init")
	}
	if !(tMax > d.t) {
		panic(fmt.Sprintf("integrators: Step: tMax %v not after t %v", tMax, d.t))
	}
	c := &d.c
	t := d.t
	if d.evs != nil {
		d.evs.begin()
	}
	if !d.fOK {
		if err := d.ss.eval(t, d.y, d.k[0]); err != nil {
			return StepReport{}, err
		}
		d.fOK = true
	}
	if e := d.evs; e != nil && !e.started {
		fired, stop, err := e.start(t, d.y, func(dst []float64) error { copy(dst, d.k[0]); return nil })
		if err != nil {
			return StepReport{}, err
		}
		if fired {
			copy(d.y, e.final())
			d.fOK = false
			rep := StepReport{T0: t, T1: t, Fired: e.fire}
			rep.Event, rep.Action = e.outcome(stop)
			return rep, nil
		}
	}
	if d.h == 0 {
		h, err := hinitHNW(d.ss.eval, t, d.y, d.k[0], d.k[1], d.tmp, d.tab.order, c.rtol, c.atol, c.hmax, tMax)
		if err != nil {
			return StepReport{}, err
		}
		d.h = h
	}
	onTimeEvent := false
	if d.tev != nil {
		if te := d.tev.NextTimeEvent(t); te > t && te <= tMax {
			tMax, onTimeEvent = te, true
		}
	}
	k := float64(d.tab.embOrder + 1)
	convFails, retried, newtonShrunk := 0, false, false
	for trials := 0; ; trials++ {
		if trials >= c.maxSteps {
			return StepReport{}, &StepError{Method: d.mi.Name, Status: MaxStepsReached, T: t, Dt: d.h, Index: -1}
		}
		h := math.Min(d.h, c.hmax)
		last := false
		var t1 float64
		if t+h*(1+1e-10) >= tMax {
			last = true
			h, t1 = tMax-t, tMax
		} else {
			t1 = t + h
			if hmin := minStep(c, t); h < hmin {
				if newtonShrunk {
					return StepReport{}, d.ss.failure(t+h, h, fmt.Sprintf("Newton failed at %d consecutive trials, down to the smallest step allowed, %g", convFails, hmin))
				}
				return StepReport{}, &StepError{Method: d.mi.Name, Status: StepTooSmall, T: t, Dt: h, Index: -1,
					Detail: fmt.Sprintf("the error control needs a step below the smallest allowed, %g", hmin)}
			}
		}
		landing := onTimeEvent && last
		ts := t1
		if landing {
			ts = math.Nextafter(t1, math.Inf(-1))
		}
		ok, err := d.stages(t, h, ts)
		if err != nil {
			return StepReport{}, err
		}
		if !ok {
			d.stats.Rejected++
			d.lastRejected = true
			if !retried && !d.ss.jCur && !d.ss.mfOnly {
				// An old Jacobian or matrix: retry once with fresh ones.
				d.forceJ, retried = true, true
				continue
			}
			retried = false
			convFails++
			if convFails >= 10 || h <= minStep(c, t) {
				return StepReport{}, d.ss.failure(t+h, h, fmt.Sprintf("Newton failed at %d consecutive trials, the last with step %g", convFails, h))
			}
			d.h, newtonShrunk = h/4, true
			continue
		}
		newtonShrunk = false
		errNorm := d.errorNorm(h)
		if math.IsNaN(errNorm) || math.IsInf(errNorm, 0) {
			d.stats.Rejected++
			d.lastRejected = true
			d.h = h * esFacMin
			continue
		}
		if errNorm > 1 {
			d.stats.Rejected++
			d.lastRejected = true
			d.h = h * math.Max(esFacMin, esSafe*math.Pow(errNorm, -1/k))
			continue
		}
		if i := firstNonFinite(d.yn); i >= 0 {
			return StepReport{}, &StepError{Method: d.mi.Name, Status: NonFinite, T: t1, Dt: h, Index: i}
		}
		fac := esSafe * math.Pow(math.Max(errNorm, 1e-10), -0.7/k) * math.Pow(d.errOld, 0.4/k)
		fac = math.Max(esFacMin, math.Min(esFacMax, fac))
		if d.lastRejected {
			fac = math.Min(fac, 1)
		}
		if fac >= 1 && fac <= esKeep {
			fac = 1
		}
		if hnew := h * fac; !last || hnew > d.h {
			d.h = hnew
		}
		d.errOld = math.Max(errNorm, 1e-4)
		d.lastRejected = false
		d.ss.accepted()
		s1 := d.tab.s - 1
		d.dT0, d.dH, d.dEnd, d.dEvent = t, h, t1, false
		d.dy0, d.dy1, d.df0, d.df1 = d.y, d.yn, d.k[0], d.k[s1]
		rep := StepReport{T0: t, T1: t1, H: h, Event: -1}
		if d.evs != nil {
			fired, err := d.handleEvents(&rep, h)
			if err != nil {
				return StepReport{}, err
			}
			if fired {
				return rep, nil
			}
			d.evs.accept()
		}
		d.t, d.lastH, d.unswapped = t1, h, false
		d.y, d.yn = d.yn, d.y
		d.k[0], d.k[s1] = d.k[s1], d.k[0] // FSAL: the last stage's slope is f at the new state
		if landing {
			d.fOK = false // k[0] is the left limit: evaluate f again at t1
		}
		d.stats.Steps++
		return rep, nil
	}
}

// handleEvents locates events over the step just computed on the dense
// output and, when some fired, ends the step at their instant with the
// state after every reset due there.
func (d *esdirkDriver) handleEvents(rep *StepReport, h float64) (bool, error) {
	e := d.evs
	found, te, err := e.find(rep.T0, rep.T1, d.yn, d.dense)
	if err != nil || !found {
		return false, err
	}
	stop, err := e.instant(te, h)
	if err != nil {
		return false, err
	}
	copy(d.yr, e.final())
	// The dense output keeps the step's own ends (y, yn, k[0], k[s−1])
	// and ends at te; the state is the one after the instant, and f is
	// evaluated there at the next step.
	d.t, d.lastH, d.unswapped = te, h, true
	d.y, d.yr = d.yr, d.y
	d.dEnd, d.dEvent = te, true
	d.fOK = false
	d.stats.Steps++
	// A step that an instant truncated bounds the next one (see the
	// Dormand–Prince driver).
	if te < rep.T1 {
		d.h = math.Min(d.h, esFacMax*(te-rep.T0))
	}
	rep.T1, rep.Fired = te, e.fire
	rep.Event, rep.Action = e.outcome(stop)
	return true, nil
}

// Dense implements Driver: the cubic Hermite interpolant of the step's
// end values and slopes (third order).
func (d *esdirkDriver) Dense(t float64, dst []float64) {
	if d.evs.atInstant(t) {
		copy(dst, d.evs.before())
		return
	}
	checkDense(d.dH != 0, t, d.dT0, d.dEnd)
	if t == d.dEnd && !d.dEvent {
		copy(dst, d.y)
		return
	}
	d.dense(t, dst)
}

func (d *esdirkDriver) dense(t float64, dst []float64) {
	hermite(t, d.dT0, d.dH, d.dy0, d.dy1, d.df0, d.df1, dst)
}

// hermite writes the cubic Hermite interpolant at t of (y0, f0) at t0 and
// (y1, f1) at t0 + h.
func hermite(t, t0, h float64, y0, y1, f0, f1, dst []float64) {
	th := (t - t0) / h
	th2 := th * th
	th3 := th2 * th
	h00 := 2*th3 - 3*th2 + 1
	h10 := (th3 - 2*th2 + th) * h
	h01 := -2*th3 + 3*th2
	h11 := (th3 - th2) * h
	for i := range dst {
		dst[i] = h00*y0[i] + h10*f0[i] + h01*y1[i] + h11*f1[i]
	}
}

// Checkpoint implements Checkpointer: the state, the FSAL slope, the
// controller, the events, the Work and the Newton solver's memory
// (where its Jacobian was evaluated, the factored matrix, the
// convergence rate), so that a restored driver steps on bit for bit.
func (d *esdirkDriver) Checkpoint() StepperState {
	c := StepperState{Method: d.mi.Name, Dim: d.n, T: d.t, Clock: Clock{Base: d.t}, Y: cloneF(d.y),
		H: d.h, ErrPrev: d.errOld, LastRejected: d.lastRejected, Work: d.stats}
	if d.fOK {
		c.F = cloneF(d.k[0])
	}
	if d.evs != nil {
		d.evs.checkpoint(&c)
	}
	h := &ImplicitState{Rate: d.rate, RateStep: d.rateC}
	d.ss.checkpoint(&c, h)
	c.Implicit = h
	return c
}

// Restore implements Checkpointer.
func (d *esdirkDriver) Restore(c StepperState) error {
	if err := c.check(d.mi.Name, d.n, false); err != nil {
		return err
	}
	if err := d.evs.restore(c); err != nil {
		return err
	}
	copy(d.y, c.Y)
	d.t = c.T
	d.h, d.errOld, d.lastRejected = c.H, c.ErrPrev, c.LastRejected
	d.stats = c.Work
	d.fOK = len(c.F) == d.n
	if d.fOK {
		copy(d.k[0], c.F)
	}
	d.rate, d.forceJ = 1, false
	if c.Implicit != nil {
		d.rate, d.rateC = c.Implicit.Rate, c.Implicit.RateStep
	}
	d.init = false
	if err := d.ss.restore(c, c.Implicit); err != nil {
		return err
	}
	d.dH = 0
	d.init = true
	return nil
}

// esdirkStepper is the fixed-step Stepper of an ESDIRK pair: its
// higher-order solution with the caller's step, Newton iterated to the
// fixed-step test of NewtonOptions.Tol.
type esdirkStepper struct {
	d   *esdirkDriver
	clk Clock
}

func newESDIRKStepper(tab *esdirkTableau, mi methodInfo, p implicitOptions, sys System, o *DriverOptions) (Stepper, error) {
	if f := p.controlField(); f != "" {
		return nil, fmt.Errorf("%w: a fixed-step %s Stepper does not use %s (the caller chooses the step; it is an option of the adaptive driver: NewDriver, Integrate, adaptive graph runs); leave it zero",
			ErrNotApplicable, mi.Name, f)
	}
	if err := checkFixedStep(o, mi.Name); err != nil {
		return nil, err
	}
	c, coef, err := p.conf(mi.Name, o, true)
	if err != nil {
		return nil, err
	}
	d, err := newESDIRK(tab, mi, c, coef, sys, nil)
	if err != nil {
		return nil, err
	}
	d.evs = nil // withEvents handles the events of a fixed-step Stepper
	d.ss.fixedTol = c.newtonTol
	return withEvents(&esdirkStepper{d: d}, sys, c)
}

func (s *esdirkStepper) Method() string              { return s.d.mi.Name }
func (s *esdirkStepper) Order() int                  { return s.d.mi.Order }
func (s *esdirkStepper) Work() Work                  { return s.d.stats }
func (s *esdirkStepper) State() (float64, []float64) { return s.clk.Now(), s.d.y }

// Init implements Stepper.
func (s *esdirkStepper) Init(t0 float64, y0 []float64) error {
	if err := s.d.Init(t0, y0); err != nil {
		return err
	}
	s.clk = Clock{Base: t0}
	return nil
}

// Step implements Stepper: one step of dt; a Newton failure (after one
// retry with a fresh Jacobian) is a *StepError with Status NewtonFailure
// or LinearFailure.
func (s *esdirkStepper) Step(dt float64) error {
	d := s.d
	if !d.init {
		panic("integrators: Step before Init")
	}
	checkStep(dt)
	nc := s.clk.next(dt)
	t, t1 := s.clk.Now(), nc.Now()
	if !d.fOK {
		if err := d.ss.eval(t, d.y, d.k[0]); err != nil {
			return stepNumbered(err, d.stats.Steps+1)
		}
		d.fOK = true
	}
	for try := 0; ; try++ {
		ok, err := d.stages(t, dt, t1)
		if err != nil {
			d.stats.Rejected++
			return stepNumbered(err, d.stats.Steps+1)
		}
		if ok {
			break
		}
		d.stats.Rejected++
		if try > 0 || d.ss.jCur || d.ss.mfOnly {
			return stepNumbered(d.ss.failure(t1, dt, "the fixed-step Newton iteration failed with a fresh Jacobian"), d.stats.Steps+1)
		}
		d.forceJ = true
	}
	if i := firstNonFinite(d.yn); i >= 0 {
		return &StepError{Method: d.mi.Name, Status: NonFinite, T: t1, Dt: dt, Index: i, Step: d.stats.Steps + 1}
	}
	d.ss.accepted()
	s1 := d.tab.s - 1
	d.y, d.yn = d.yn, d.y
	d.k[0], d.k[s1] = d.k[s1], d.k[0]
	d.t, d.lastH, d.unswapped = t1, dt, false
	s.clk = nc
	d.stats.Steps++
	return nil
}

// stepNumbered sets the step number of a *StepError that has none.
func stepNumbered(err error, step int) error {
	if se, ok := err.(*StepError); ok && se.Step == 0 {
		se.Step = step
	}
	return err
}

// Checkpoint implements Checkpointer.
func (s *esdirkStepper) Checkpoint() StepperState {
	c := s.d.Checkpoint()
	c.Clock, c.T = s.clk, s.clk.Now()
	c.H, c.ErrPrev = 0, 0
	return c
}

// Restore implements Checkpointer.
func (s *esdirkStepper) Restore(c StepperState) error {
	if err := c.check(s.d.mi.Name, s.d.n, true); err != nil {
		return err
	}
	// The event state belongs to the wrapper that locates events for a
	// fixed-step Stepper (withEvents), not to the method.
	c.G, c.Disarmed, c.ZenoCount, c.LastEventT = nil, nil, 0, 0
	if err := s.d.Restore(c); err != nil {
		return err
	}
	s.clk = c.Clock
	return nil
}

// LocalError implements ErrorEstimator: h·Σ d_i·k_i of the last step
// (after a step k[0] and k[s−1] have traded places, the FSAL slope;
// after an event they have not).
func (d *esdirkDriver) LocalError(dst []float64) {
	if d.lastH == 0 {
		panic("integrators: LocalError before the first step")
	}
	tab, s1 := d.tab, d.tab.s-1
	first, last := d.k[s1], d.k[0]
	if d.unswapped {
		first, last = last, first
	}
	for q := range dst {
		e := tab.d[0]*first[q] + tab.d[s1]*last[q]
		for i := 1; i < s1; i++ {
			e += tab.d[i] * d.k[i][q]
		}
		dst[q] = d.lastH * e
	}
}

// LocalError implements ErrorEstimator.
func (s *esdirkStepper) LocalError(dst []float64) { s.d.LocalError(dst) }
