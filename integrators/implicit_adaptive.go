package integrators

import (
	"fmt"
	"math"
)

// What the adaptive implicit methods (ESDIRK43, ESDIRK32, BDF) share:
// their options, resolved into a conf, and the checks of a driver's
// options. The Newton iteration and its linear algebra are stageSolver
// (stagesolve.go).

// defaultNewtonCoef is the Newton tolerance of the adaptive implicit
// drivers relative to the error test: CVODE's default nonlinear
// convergence coefficient (Hindmarsh et al. 2005, §2.1).
const defaultNewtonCoef = 0.1

// adaptiveMaxIter is the default Newton iteration limit of the adaptive
// drivers (CVODE's and ARKODE's 3): a step whose iteration converges
// slower is retried with a fresh Jacobian or a smaller step, which is
// cheaper than iterating on.
const adaptiveMaxIter = 3

// implicitOptions are the options every adaptive implicit method has.
type implicitOptions struct {
	ctl    StepControl
	coef   float64
	newton NewtonOptions
	linear LinearOptions
}

// conf resolves the options of method with the driver options o (a
// step-control option that StepControl.Check refuses is a *ControlError
// naming method): fixed is true for
// the fixed-step Stepper (Newton's own tolerance, iteration limit 10),
// false for the adaptive driver (iteration limit 3).
func (p implicitOptions) conf(method string, o *DriverOptions, fixed bool) (conf, float64, error) {
	if err := checkControl(method, p.ctl); err != nil {
		return conf{}, 0, err
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"NewtonCoef", p.coef}, {"Newton.Tol", p.newton.Tol}} {
		if !(f.v >= 0) || math.IsInf(f.v, 1) {
			return conf{}, 0, fmt.Errorf("integrators: %s = %v: want zero (the default) or finite and positive", f.name, f.v)
		}
	}
	if p.newton.MaxIter < 0 {
		return conf{}, 0, fmt.Errorf("integrators: Newton.MaxIter = %d is negative", p.newton.MaxIter)
	}
	if err := checkDriverOptions(o); err != nil {
		return conf{}, 0, err
	}
	s := o.settings()
	s.RTol, s.ATol, s.InitialStep, s.MinStep, s.MaxStep = p.ctl.RTol, p.ctl.ATol, p.ctl.InitialStep, p.ctl.MinStep, p.ctl.MaxStep
	n, l := p.newton, p.linear
	if l.JacobianMaxAge == 0 {
		l.JacobianMaxAge = jacMaxAgeAdaptive
	}
	if n.MaxIter == 0 && !fixed {
		n.MaxIter = adaptiveMaxIter
	}
	s.setSolver(n, l)
	c := resolve(s)
	if err := c.checkLinear(); err != nil {
		return conf{}, 0, err
	}
	if c.jacMaxAge < 1 {
		return conf{}, 0, fmt.Errorf("integrators: JacobianMaxAge = %d must be positive", c.jacMaxAge)
	}
	coef := p.coef
	if coef == 0 {
		coef = defaultNewtonCoef
	}
	if coef > 1 {
		return conf{}, 0, fmt.Errorf("integrators: NewtonCoef = %v: the Newton tolerance relative to the error test must be at most 1", coef)
	}
	return c, coef, nil
}

// canonical returns the options with every default filled in.
func (p implicitOptions) canonical() implicitOptions {
	c, coef, err := p.conf("", nil, false)
	if err != nil {
		return p // invalid options compare as given
	}
	p.ctl = StepControl{RTol: c.rtol, ATol: c.atol, InitialStep: c.h0, MinStep: c.hmin, MaxStep: c.hmax}
	p.coef = coef
	mi := p.newton.MaxIter // zero: 10 for the fixed-step Stepper, 3 for the driver
	l := p.linear
	if l.JacobianMaxAge == 0 {
		l.JacobianMaxAge = jacMaxAgeAdaptive
	}
	p.newton, p.linear = canonicalSolver(p.newton, l)
	p.newton.MaxIter = mi
	return p
}

// checkDriverOptions validates the options of an adaptive driver.
func checkDriverOptions(o *DriverOptions) error {
	if o != nil && (!(o.EventTol >= 0) || !(o.ZenoSpacing >= 0) || o.ZenoLimit < 0 || o.MaxSteps < 0) {
		return fmt.Errorf("integrators: DriverOptions: EventTol %v, ZenoSpacing %v, ZenoLimit %d and MaxSteps %d must not be negative", o.EventTol, o.ZenoSpacing, o.ZenoLimit, o.MaxSteps)
	}
	return nil
}

// hinitHNW is the starting step of Hairer, Nørsett & Wanner (Solving
// ODEs I, §II.4, algorithm HINIT) for a method of order p, in the RMS
// norms of the error test: h0 = 0.01·‖y0‖/‖f0‖ (1e-6 when either is
// tiny), one explicit Euler step to estimate ‖y″‖, and
// h1 = (0.01/max(‖f0‖, h0·‖y″‖))^(1/(p+1)); the step is min(100·h0, h1),
// bounded by hmax and tMax − t. f1 and tmp are scratch; f is evaluated
// once (counted by eval).
func hinitHNW(eval func(t float64, y, dst []float64) error, t float64, y, f0, f1, tmp []float64, p int, rtol, atol, hmax, tMax float64) (float64, error) {
	n := float64(max(len(y), 1))
	var d0, d1 float64
	for i := range y {
		sc := atol + rtol*math.Abs(y[i])
		d0 += (y[i] / sc) * (y[i] / sc)
		d1 += (f0[i] / sc) * (f0[i] / sc)
	}
	d0, d1 = math.Sqrt(d0/n), math.Sqrt(d1/n)
	h0 := 1e-6
	if d0 >= 1e-5 && d1 >= 1e-5 {
		h0 = 0.01 * d0 / d1
	}
	h0 = math.Min(math.Min(h0, hmax), tMax-t)
	for i := range y {
		tmp[i] = y[i] + h0*f0[i]
	}
	if err := eval(t+h0, tmp, f1); err != nil {
		return 0, err
	}
	var d2 float64
	for i := range y {
		sc := atol + rtol*math.Abs(y[i])
		d := (f1[i] - f0[i]) / sc
		d2 += d * d
	}
	d2 = math.Sqrt(d2/n) / h0
	var h1 float64
	if m := math.Max(d1, d2); m <= 1e-15 {
		h1 = math.Max(1e-6, h0*1e-3)
	} else {
		h1 = math.Pow(0.01/m, 1.0/float64(p+1))
	}
	return math.Min(math.Min(100*h0, h1), math.Min(hmax, tMax-t)), nil
}

// minStep is the smallest step allowed at t: MinStep, and at least 16
// ulp of t.
func minStep(c *conf, t float64) float64 {
	return math.Max(c.hmin, 16*0x1p-52*math.Abs(t))
}

// driverOnly returns an error wrapping ErrNotApplicable when an option
// the adaptive driver does not use is set: Newton.Tol is the fixed-step
// Stepper's test (the driver's Newton tolerance is NewtonCoef, relative
// to the error test).
func (p implicitOptions) driverOnly(method string) error {
	if p.newton.Tol != 0 {
		return fmt.Errorf("%w: the adaptive %s driver does not use Newton.Tol (the fixed-step Stepper's test max|Δz| ≤ Tol·(1 + max|z|)); its Newton tolerance is NewtonCoef, relative to the error test; leave Newton.Tol zero",
			ErrNotApplicable, method)
	}
	return nil
}
