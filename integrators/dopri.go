package integrators

import (
	"fmt"
	"math"
)

// PI step-size controller constants (Hairer, Nørsett & Wanner, DOPRI5).
const (
	dpSafe   = 0.9
	dpFacMin = 0.2  // smallest h_new/h
	dpFacMax = 10.0 // largest h_new/h (a float: 1/dpFacMax must not be integer division)
	dpBeta   = 0.04
	dpExpo1  = 0.2 - dpBeta*0.75
)

// Adaptive is the Dormand–Prince 5(4) integrator with error control (or a
// fixed step, DormandPrince.FixedStep), FSAL, dense output and event
// localization. Step takes one accepted step; Integrate drives it to an
// end time.
//
// An Adaptive is not safe for concurrent use; distinct ones are.
type Adaptive struct {
	sys System
	evs *denseEvents    // nil unless sys has events
	tev TimeEventSystem // nil unless sys has time events
	n   int
	c   conf

	init bool
	fOK  bool
	t    float64
	clk  Clock // fixed-step mode only
	y    []float64
	yn   []float64
	tmp  []float64
	k    [7][]float64

	// dense output of the last accepted step
	dT0, dT1, dH float64
	dEvent       bool
	rc           [5][]float64
	// dLazy: rc is not computed yet. Without events nothing needs the
	// dense output during a step, so its coefficients are computed on the
	// first Dense call after the step (from the swapped buffers: see
	// denseLazy) instead of at every step.
	dLazy bool

	h            float64
	errOld       float64
	lastRejected bool

	stats Work
}

// NewAdaptive returns the adaptive driver of Dormand–Prince method m
// (its tolerances and step bounds) for sys. If sys implements EventSystem
// its events are located on every accepted step. An option of m that
// StepControl.Check refuses is a *ControlError naming it; a negative or
// NaN option of o is an error naming it.
func NewAdaptive(m DormandPrince, sys System, o *DriverOptions) (*Adaptive, error) {
	if err := checkControl(MethodDormandPrince, m.Control()); err != nil {
		return nil, err
	}
	if !(m.FixedStep >= 0) || math.IsInf(m.FixedStep, 1) {
		return nil, fmt.Errorf("integrators: DormandPrince.FixedStep = %v: want zero (adaptive) or finite and positive", m.FixedStep)
	}
	if o != nil && (!(o.EventTol >= 0) || !(o.ZenoSpacing >= 0) || o.ZenoLimit < 0 || o.MaxSteps < 0) {
		return nil, fmt.Errorf("integrators: DriverOptions: EventTol %v, ZenoSpacing %v, ZenoLimit %d and MaxSteps %d must not be negative", o.EventTol, o.ZenoSpacing, o.ZenoLimit, o.MaxSteps)
	}
	c := resolve(m.settings(o))
	n := sys.Dim()
	a := &Adaptive{sys: sys, n: n, c: c, errOld: 1e-4}
	mk := func(k int) []float64 { return make([]float64, k) }
	a.y, a.yn, a.tmp = mk(n), mk(n), mk(n)
	for i := range a.k {
		a.k[i] = mk(n)
	}
	for i := range a.rc {
		a.rc[i] = mk(n)
	}
	a.tev, _ = sys.(TimeEventSystem)
	var err error
	if a.evs, err = newDenseEvents(sys, n, &a.c, MethodDormandPrince, &a.stats); err != nil {
		return nil, err
	}
	return a, nil
}

// Method returns MethodDormandPrince.
func (a *Adaptive) Method() string { return MethodDormandPrince }

// Order returns 5.
func (a *Adaptive) Order() int { return 5 }

// Work returns the work done since Init.
func (a *Adaptive) Work() Work { return a.stats }

// State returns the current time and state; y is owned by a (see
// Stepper.State).
func (a *Adaptive) State() (float64, []float64) { return a.t, a.y }

// NextStep returns the step size the controller proposes next (zero
// before the first step when DormandPrince.InitialStep is zero).
func (a *Adaptive) NextStep() float64 { return a.h }

// Init sets the state to (t0, y0) and resets the controller, the events
// and the Work. It evaluates the event functions at t0; the events due
// there (zero at t0, arriving from their near side: see "Events" in the
// package documentation) are applied by the first Step, which then
// reports them alone (T0 = T1 = t0); any other event function that is
// exactly zero at t0 is unarmed until it leaves zero.
func (a *Adaptive) Init(t0 float64, y0 []float64) error {
	if len(y0) != a.n {
		panic(fmt.Sprintf("integrators: Init: len(y0) = %d, Dim = %d", len(y0), a.n))
	}
	if i := firstNonFinite(y0); i >= 0 {
		return &StepError{Method: MethodDormandPrince, Status: NonFinite, T: t0, Index: i}
	}
	copy(a.y, y0)
	a.t = t0
	a.clk = Clock{Base: t0}
	a.stats = Work{}
	a.fOK = false
	a.h = a.c.h0
	a.errOld = 1e-4
	a.lastRejected = false
	a.dH, a.dLazy = 0, false
	a.init = false
	if a.evs != nil {
		if err := a.evs.init(t0, a.y); err != nil {
			return err
		}
	}
	a.init = true
	return nil
}

func (a *Adaptive) eval(t, h float64, y, dst []float64) error {
	a.stats.FuncEvals++
	if err := a.sys.Func(t, y, dst); err != nil {
		return &StepError{Method: MethodDormandPrince, Status: Failure, T: t, Dt: h, Index: -1, Err: err}
	}
	return nil
}

// initialStep is the starting step of Hairer, Nørsett & Wanner (II.4).
func (a *Adaptive) initialStep(tMax float64) (float64, error) {
	y, f0 := a.y, a.k[0]
	var d0, d1 float64
	for i := range y {
		sc := a.c.atol + a.c.rtol*math.Abs(y[i])
		d0 += (y[i] / sc) * (y[i] / sc)
		d1 += (f0[i] / sc) * (f0[i] / sc)
	}
	d0, d1 = math.Sqrt(d0/float64(a.n)), math.Sqrt(d1/float64(a.n))
	h0 := 1e-6
	if d0 >= 1e-5 && d1 >= 1e-5 {
		h0 = 0.01 * d0 / d1
	}
	h0 = math.Min(math.Min(h0, a.c.hmax), tMax-a.t)
	for i := range y {
		a.tmp[i] = y[i] + h0*f0[i]
	}
	if err := a.eval(a.t+h0, h0, a.tmp, a.k[1]); err != nil {
		return 0, err
	}
	var d2 float64
	for i := range y {
		sc := a.c.atol + a.c.rtol*math.Abs(y[i])
		d := (a.k[1][i] - f0[i]) / sc
		d2 += d * d
	}
	d2 = math.Sqrt(d2/float64(a.n)) / h0
	var h1 float64
	if m := math.Max(d1, d2); m <= 1e-15 {
		h1 = math.Max(1e-6, h0*1e-3)
	} else {
		h1 = math.Pow(0.01/m, 1.0/5)
	}
	return math.Min(math.Min(100*h0, h1), a.c.hmax), nil
}

// Dense writes the dense-output state at time t, which must lie in the
// last accepted step [T0, T1], into dst (len Dim). It uses the standard
// 4th-order continuous extension of Dormand–Prince (Hairer's CONTD5).
// At an event time T1 it gives the state before the reset.
func (a *Adaptive) Dense(t float64, dst []float64) {
	if a.evs.atInstant(t) {
		copy(dst, a.evs.before())
		return
	}
	checkDense(a.dH != 0, t, a.dT0, a.dT1)
	if t == a.dT1 && !a.dEvent {
		copy(dst, a.y)
		return
	}
	if a.dLazy {
		a.denseLazy()
	}
	a.dense(t, dst)
}

// denseLazy computes the dense-output coefficients of the last step
// after it was accepted: the step then swapped y with yn and k[0] with
// k[6] (FSAL), so the step's start is in yn, its end in y, its first
// stage in k[6] and its last in k[0]. The arithmetic is setDense's.
func (a *Adaptive) denseLazy() {
	k, r, y, yn, h := a.k, a.rc, a.yn, a.y, a.dH
	k0, k6 := k[6], k[0]
	for i := range y {
		d := yn[i] - y[i]
		b := h*k0[i] - d
		r[0][i] = y[i]
		r[1][i] = d
		r[2][i] = b
		r[3][i] = d - h*k6[i] - b
		r[4][i] = h * (dpD1*k0[i] + dpD3*k[2][i] + dpD4*k[3][i] + dpD5*k[4][i] + dpD6*k[5][i] + dpD7*k6[i])
	}
	a.dLazy = false
}

func (a *Adaptive) dense(t float64, dst []float64) {
	th := (t - a.dT0) / a.dH
	th1 := 1 - th
	r := a.rc
	for i := range dst {
		dst[i] = r[0][i] + th*(r[1][i]+th1*(r[2][i]+th*(r[3][i]+th1*r[4][i])))
	}
}

// Step takes one accepted step that ends no later than tMax > t,
// rejecting and retrying trials as the error control demands. If an
// event fires within the step, the step ends at the located event time,
// the reset is applied and the report names the event. On error the
// accepted state is unchanged.
func (a *Adaptive) Step(tMax float64) (StepReport, error) {
	if !a.init {
		panic("integrators: Step before Init")
	}
	if !(tMax > a.t) {
		panic(fmt.Sprintf("integrators: Step: tMax %v not after t %v", tMax, a.t))
	}
	c := &a.c
	t := a.t
	if a.evs != nil {
		a.evs.begin()
	}
	if !a.fOK {
		if err := a.eval(t, 0, a.y, a.k[0]); err != nil {
			return StepReport{}, err
		}
		a.fOK = true
	}
	if a.evs != nil && !a.evs.started {
		if rep, fired, err := a.startEvents(t); err != nil || fired {
			return rep, err
		}
	}
	if c.fixed == 0 && a.h == 0 {
		h, err := a.initialStep(tMax)
		if err != nil {
			return StepReport{}, err
		}
		a.h = h
	}
	// A time event before tMax ends the step that reaches it
	// (TimeEventSystem), in the fixed-step mode too.
	onTimeEvent := false
	if a.tev != nil {
		if te := a.tev.NextTimeEvent(t); te > t && te <= tMax {
			tMax, onTimeEvent = te, true
		}
	}
	for trials := 0; ; trials++ {
		if trials >= c.maxSteps {
			return StepReport{}, &StepError{Method: MethodDormandPrince, Status: MaxStepsReached, T: t, Dt: a.h, Index: -1}
		}
		var h, t1 float64
		var nc Clock
		last := false
		if c.fixed > 0 {
			h = c.fixed
			nc = a.clk.next(h)
			t1 = nc.Now()
			switch {
			case math.Abs(t1-tMax) <= 1e-9*h:
				// On the grid up to rounding: keep the fixed h.
				last = true
				t1 = tMax
				nc = Clock{Base: tMax}
			case t1 > tMax:
				last = true
				t1, h = tMax, tMax-t
				nc = Clock{Base: tMax}
			}
		} else {
			h = math.Min(a.h, c.hmax)
			if t+h*(1+1e-10) >= tMax {
				last = true
				h, t1 = tMax-t, tMax
			} else {
				t1 = t + h
				if hmin := math.Max(c.hmin, 16*0x1p-52*math.Abs(t)); h < hmin {
					return StepReport{}, &StepError{Method: MethodDormandPrince, Status: StepTooSmall, T: t, Dt: h, Index: -1}
				}
			}
		}
		landing := onTimeEvent && last
		ts := t1 // the time of the last two stages
		if landing {
			ts = math.Nextafter(t1, math.Inf(-1)) // the left limit
		}
		if err := dpStages(a.sys, t, ts, h, a.y, a.yn, a.tmp, &a.k, &a.stats); err != nil {
			se := err.(*StepError)
			se.Dt = h
			return StepReport{}, se
		}
		var errNorm float64
		if c.fixed == 0 {
			errNorm = a.errorNorm(h)
			if math.IsNaN(errNorm) || math.IsInf(errNorm, 0) {
				a.stats.Rejected++
				a.lastRejected = true
				a.h = h * dpFacMin
				continue
			}
			if errNorm > 1 {
				a.stats.Rejected++
				a.lastRejected = true
				fac := math.Pow(errNorm, dpExpo1) / dpSafe
				a.h = h / math.Min(1/dpFacMin, fac)
				continue
			}
			fac := math.Pow(errNorm, dpExpo1) / math.Pow(a.errOld, dpBeta) / dpSafe
			fac = math.Max(1/dpFacMax, math.Min(1/dpFacMin, fac))
			hnew := h / fac
			if a.lastRejected {
				hnew = math.Min(hnew, h)
			}
			if !last || hnew > a.h {
				a.h = hnew
			}
			a.errOld = math.Max(errNorm, 1e-4)
			a.lastRejected = false
		}
		if i := firstNonFinite(a.yn); i >= 0 {
			return StepReport{}, &StepError{Method: MethodDormandPrince, Status: NonFinite, T: t1, Dt: h, Index: i}
		}
		if a.evs != nil {
			a.setDense(t, t1, h)
		} else {
			a.dT0, a.dT1, a.dH, a.dEvent, a.dLazy = t, t1, h, false, true
		}
		rep := StepReport{T0: t, T1: t1, H: h, Event: -1}
		if a.evs != nil {
			fired, err := a.handleEvents(&rep, h)
			if err != nil {
				return StepReport{}, err
			}
			if fired {
				return rep, nil
			}
			a.evs.accept()
		}
		a.t = t1
		a.clk = nc
		a.y, a.yn = a.yn, a.y
		a.k[0], a.k[6] = a.k[6], a.k[0]
		if landing {
			a.fOK = false // k[0] is the left limit: evaluate f again at t1
		}
		a.stats.Steps++
		return rep, nil
	}
}

func (a *Adaptive) errorNorm(h float64) float64 {
	k := a.k
	var s float64
	for i := range a.y {
		e := h * (dpE1*k[0][i] + dpE3*k[2][i] + dpE4*k[3][i] + dpE5*k[4][i] + dpE6*k[5][i] + dpE7*k[6][i])
		sc := a.c.atol + a.c.rtol*math.Max(math.Abs(a.y[i]), math.Abs(a.yn[i]))
		s += (e / sc) * (e / sc)
	}
	return math.Sqrt(s / float64(a.n))
}

func (a *Adaptive) setDense(t, t1, h float64) {
	k, r, y, yn := a.k, a.rc, a.y, a.yn
	for i := range y {
		d := yn[i] - y[i]
		b := h*k[0][i] - d
		r[0][i] = y[i]
		r[1][i] = d
		r[2][i] = b
		r[3][i] = d - h*k[6][i] - b
		r[4][i] = h * (dpD1*k[0][i] + dpD3*k[2][i] + dpD4*k[3][i] + dpD5*k[4][i] + dpD6*k[5][i] + dpD7*k[6][i])
	}
	a.dT0, a.dT1, a.dH, a.dEvent, a.dLazy = t, t1, h, false, false
}

// Checkpoint returns the complete integrator state (state, FSAL stage,
// controller, events, Work).
func (a *Adaptive) Checkpoint() StepperState {
	c := StepperState{Method: MethodDormandPrince, Dim: a.n, Clock: a.clk, T: a.t, Y: cloneF(a.y),
		H: a.h, ErrPrev: a.errOld, LastRejected: a.lastRejected, Work: a.stats}
	if a.fOK {
		c.F = cloneF(a.k[0])
	}
	if a.evs != nil {
		a.evs.checkpoint(&c)
	}
	return c
}

// Restore sets the integrator state from a checkpoint of an Adaptive for
// the same system and settings. Dense output is unavailable until the
// next step.
func (a *Adaptive) Restore(c StepperState) error {
	if err := c.check(MethodDormandPrince, a.n, a.c.fixed > 0); err != nil {
		return err
	}
	if err := a.evs.restore(c); err != nil {
		return err
	}
	copy(a.y, c.Y)
	a.t, a.clk = c.T, c.Clock
	a.h, a.errOld, a.lastRejected = c.H, c.ErrPrev, c.LastRejected
	a.stats = c.Work
	a.fOK = len(c.F) == a.n
	if a.fOK {
		copy(a.k[0], c.F)
	}
	a.dH, a.dLazy = 0, false
	a.init = true
	return nil
}
