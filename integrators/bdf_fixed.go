package integrators

import (
	"fmt"
	"math"
)

// New implements Method: BDF of order MaxOrder (5 when zero) with the
// caller's step, its Newton iteration stopped by the fixed-step test of
// NewtonOptions.Tol. The history of a multistep method needs MaxOrder
// past values: the first MaxOrder − 1 steps are taken by ESDIRK43
// (fourth order, so the starting values' errors, O(dt⁵) per step, stay
// below the BDF's own O(dt^q) global error for q ≤ 5), and the Nordsieck
// array of order MaxOrder is then built from the values they computed
// and f at the last of them. A change of step rescales the history (the
// variable-step formula). The step-control options must be zero.
func (m BDF) New(sys System, o *DriverOptions) (Stepper, error) {
	if err := m.validate(); err != nil {
		return nil, err
	}
	p := m.opts()
	if f := p.controlField(); f != "" {
		return nil, fmt.Errorf("%w: a fixed-step %s Stepper does not use %s (the caller chooses the step; it is an option of the adaptive driver: NewDriver, Integrate, adaptive graph runs); leave it zero",
			ErrNotApplicable, MethodBDF, f)
	}
	if err := checkFixedStep(o, MethodBDF); err != nil {
		return nil, err
	}
	c, coef, err := p.conf(MethodBDF, o, true)
	if err != nil {
		return nil, err
	}
	d, err := newBDFDriver(m.info(), m.Order(), c, coef, sys)
	if err != nil {
		return nil, err
	}
	d.evs = nil // withEvents handles the events of a fixed-step Stepper
	d.ss.fixedTol = c.newtonTol
	st := &bdfStepper{d: d, y0: make([]float64, len(d.z[0]))}
	if d.qmax > 1 {
		// The starting steps share BDF's Newton solver (one Jacobian).
		if st.start, err = newESDIRK(esdirk43, methodInfo{Name: MethodESDIRK43, Order: 4}, c, coef, sys, d.ss); err != nil {
			return nil, err
		}
		st.start.evs = nil
		n := sys.Dim()
		for k := 0; k < d.qmax; k++ {
			st.hist[k] = make([]float64, n)
		}
	}
	return withEvents(st, sys, c)
}

// bdfStepper is BDF's fixed-step Stepper.
type bdfStepper struct {
	d     *bdfDriver
	start *esdirkDriver // the starting steps (nil at order 1)
	clk   Clock
	k     int // steps taken since Init (the history is complete from k = qmax − 1)
	hist  [bdfMaxOrder][]float64
	histT [bdfMaxOrder]float64
	init  bool
	y0    []float64 // the state before a BDF step's prediction, for retract
}

// retract undoes a refused BDF step's prediction: the history by
// nordsieckRetract (to rounding) and the state exactly, from y0 — the
// retraction cannot give back a prediction that overflowed.
func (s *bdfStepper) retract() {
	nordsieckRetract(&s.d.z, s.d.q)
	copy(s.d.z[0], s.y0)
}

func (s *bdfStepper) Method() string { return s.d.mi.Name }
func (s *bdfStepper) Order() int     { return s.d.mi.Order }

// Work implements Stepper, the starting steps included.
func (s *bdfStepper) Work() Work {
	w := s.d.stats
	if s.start != nil {
		w.add(s.start.stats)
	}
	return w
}

// State implements Stepper.
func (s *bdfStepper) State() (float64, []float64) {
	if s.starting() {
		return s.clk.Now(), s.start.y
	}
	return s.clk.Now(), s.d.z[0]
}

// starting reports whether the next step is a starting step.
func (s *bdfStepper) starting() bool { return s.k < s.d.qmax-1 }

// Init implements Stepper.
func (s *bdfStepper) Init(t0 float64, y0 []float64) error {
	s.init = false
	if err := s.d.Init(t0, y0); err != nil {
		return err
	}
	if s.start != nil {
		if err := s.start.Init(t0, y0); err != nil {
			return err
		}
		copy(s.hist[0], y0)
		s.histT[0] = t0
	}
	s.clk = Clock{Base: t0}
	s.k = 0
	s.init = true
	return nil
}

// Step implements Stepper.
func (s *bdfStepper) Step(dt float64) error {
	if !s.init {
		panic("integrators: Step before Init")
	}
	checkStep(dt)
	nc := s.clk.next(dt)
	t, t1 := s.clk.Now(), nc.Now()
	var err error
	if s.starting() {
		err = s.startStep(t, t1, dt)
	} else {
		err = s.bdfStep(t, t1, dt)
	}
	if err != nil {
		return stepNumbered(err, s.k+1)
	}
	s.clk = nc
	s.k++
	return nil
}

// startStep takes a starting step with ESDIRK43 and, after the last of
// them, builds the Nordsieck array of order qmax from the values.
func (s *bdfStepper) startStep(t, t1, dt float64) error {
	e := s.start
	if !e.fOK {
		if err := e.ss.eval(t, e.y, e.k[0]); err != nil {
			return err
		}
		e.fOK = true
	}
	for try := 0; ; try++ {
		ok, err := e.stages(t, dt, t1)
		if err != nil {
			e.stats.Rejected++
			return err
		}
		if ok {
			break
		}
		e.stats.Rejected++
		if try > 0 || e.ss.jCur || e.ss.mfOnly {
			return e.ss.failure(t1, dt, "the Newton iteration of a starting step (ESDIRK43) failed with a fresh Jacobian")
		}
		e.forceJ = true
	}
	if i := firstNonFinite(e.yn); i >= 0 {
		return &StepError{Method: MethodBDF, Status: NonFinite, T: t1, Dt: dt, Index: i}
	}
	e.ss.accepted()
	s1 := e.tab.s - 1
	e.y, e.yn = e.yn, e.y
	e.k[0], e.k[s1] = e.k[s1], e.k[0]
	e.t = t1
	e.stats.Steps++
	j := s.k + 1
	copy(s.hist[j], e.y)
	s.histT[j] = t1
	if j == s.d.qmax-1 {
		return s.buildHistory(dt)
	}
	return nil
}

// buildHistory sets the Nordsieck array of order q = qmax at the last
// starting value y_{q−1} (time t_{q−1}) with scale h: the polynomial of
// degree q through the q values and with slope f(t_{q−1}, y_{q−1}),
// z_0 = y_{q−1}, z_1 = h·f, and z_2..z_q from
// Σ_{j≥2} z_j·s_i^j = y_i − y_{q−1} − s_i·z_1, s_i = (t_i − t_{q−1})/h,
// for the q − 1 older values (one small Vandermonde-like system shared
// by every component).
func (s *bdfStepper) buildHistory(h float64) error {
	d, q := s.d, s.d.qmax
	last := q - 1
	tl, yl := s.histT[last], s.hist[last]
	copy(d.z[0], yl)
	if err := d.ss.eval(tl, yl, d.z[1]); err != nil {
		return err
	}
	for i := range d.z[1] {
		d.z[1][i] *= h
	}
	m := q - 1 // unknowns z_2..z_q
	var a [bdfMaxOrder * bdfMaxOrder]float64
	var piv [bdfMaxOrder]int
	var sv [bdfMaxOrder]float64
	for i := 0; i < m; i++ {
		sv[i] = (s.histT[i] - tl) / h
		p := sv[i]
		for j := 0; j < m; j++ {
			p *= sv[i]
			a[i*m+j] = p // s_i^(j+2)
		}
	}
	if !denseLU(a[:m*m], piv[:m], m) {
		return &StepError{Method: MethodBDF, Status: Failure, T: tl, Dt: h, Index: -1, Detail: "the starting values do not determine the BDF history (coincident times)"}
	}
	var b [bdfMaxOrder]float64
	for c := range yl {
		for i := 0; i < m; i++ {
			b[i] = s.hist[i][c] - yl[c] - sv[i]*d.z[1][c]
		}
		denseLUSolve(a[:m*m], piv[:m], m, b[:m])
		for j := 0; j < m; j++ {
			d.z[j+2][c] = b[j]
		}
	}
	d.q, d.qprime, d.qwait = q, q, q+2 // the order is fixed
	d.h, d.hprime, d.etamax = h, h, 1  // and so is the step (the caller's)
	d.tau = [bdfMaxOrder + 2]float64{}
	for i := 1; i <= last; i++ {
		d.tau[i] = s.histT[last-i+1] - s.histT[last-i]
	}
	d.t = tl
	d.restart = false
	return nil
}

// bdfStep takes one BDF step of dt at order qmax.
func (s *bdfStepper) bdfStep(t, t1, dt float64) error {
	d := s.d
	if d.restart {
		// Order 1 (no history needed): z_1 = h·f.
		if err := d.ss.eval(t, d.z[0], d.z[1]); err != nil {
			return err
		}
		for i := range d.z[1] {
			d.z[1][i] *= dt
		}
		d.h, d.hprime, d.q, d.qprime, d.qwait, d.etamax = dt, dt, 1, 1, 3, 1
		d.tau = [bdfMaxOrder + 2]float64{}
		d.restart = false
	}
	if dt != d.h {
		d.rescale(dt / d.h)
	}
	errorWeights(d.z[0], d.ewt, d.c.rtol, d.c.atol)
	copy(s.y0, d.z[0])
	nordsieckPredict(&d.z, d.q)
	bdfCoefficients(d.q, dt, &d.tau, false, &d.l, &d.tq)
	gamma := dt / d.l[1]
	for i, z1 := range d.z[1] {
		d.psi[i] = -z1 / d.l[1]
	}
	forceJ := false
	for try := 0; ; try++ {
		clear(d.acor)
		ok, err := d.ss.newton(t1, dt, gamma, d.z[0], d.psi, d.acor, d.ewt, d.coef/d.tq[2], &d.rate, forceJ, false)
		if err != nil {
			s.retract()
			d.stats.Rejected++
			return err
		}
		if ok {
			break
		}
		d.stats.Rejected++
		if try > 0 || d.ss.jCur || d.ss.mfOnly {
			s.retract()
			return d.ss.failure(t1, dt, "the fixed-step Newton iteration failed with a fresh Jacobian")
		}
		forceJ = true
	}
	// The new state is z[0] + l[0]·acor (complete adds it so): a finite
	// correction of a prediction that overflowed, or near the largest
	// float64, is still a non-finite state, which the step must refuse
	// before it is committed.
	l0, z0 := d.l[0], d.z[0]
	for i, a := range d.acor {
		if y := z0[i] + l0*a; math.IsNaN(y) || math.IsInf(y, 0) {
			s.retract()
			return &StepError{Method: MethodBDF, Status: NonFinite, T: t1, Dt: dt, Index: i}
		}
	}
	d.complete(dt)
	d.qwait = d.q + 2 // never consider an order change
	d.t = t1
	d.ss.accepted()
	d.stats.Steps++
	return nil
}

// Checkpoint implements Checkpointer: the driver's memory, the step
// clock and, while the Stepper starts, the starting values and the
// starter's slope.
func (s *bdfStepper) Checkpoint() StepperState {
	c := s.d.Checkpoint()
	c.Clock, c.T, c.H = s.clk, s.clk.Now(), 0
	c.Work = s.Work()
	h := c.Implicit
	h.Started = s.k
	if s.starting() {
		h.Rate = s.start.rate
		c.Y = cloneF(s.start.y)
		for j := 0; j <= s.k; j++ {
			h.StartT = append(h.StartT, s.histT[j])
			h.StartY = append(h.StartY, cloneF(s.hist[j]))
		}
		if s.start.fOK {
			c.F = cloneF(s.start.k[0])
		}
	}
	return c
}

// Restore implements Checkpointer.
func (s *bdfStepper) Restore(c StepperState) error {
	d := s.d
	if err := c.check(d.mi.Name, d.n, true); err != nil {
		return err
	}
	h := c.Implicit
	if h == nil || h.Started < 0 {
		return &StateMismatchError{Field: "history", Want: "the BDF history", Got: "none"}
	}
	s.init = false
	starting := h.Started < d.qmax-1
	if starting {
		if len(h.StartY) != h.Started+1 || len(h.StartT) != h.Started+1 {
			return &StateMismatchError{Field: "starting values", Want: fmt.Sprint(h.Started + 1), Got: fmt.Sprint(len(h.StartY))}
		}
		for j, y := range h.StartY {
			if len(y) != d.n {
				return &StateMismatchError{Field: "starting values", Want: fmt.Sprint(d.n), Got: fmt.Sprint(len(y))}
			}
			copy(s.hist[j], y)
			s.histT[j] = h.StartT[j]
		}
		e := s.start
		copy(e.y, c.Y)
		e.t = c.T
		e.fOK = len(c.F) == d.n
		if e.fOK {
			copy(e.k[0], c.F)
		}
		e.rate, e.forceJ, e.init = h.Rate, false, true
		e.stats = Work{Steps: h.Started}
		d.restart, d.t = true, c.T
		copy(d.z[0], c.Y)
		d.stats = c.Work.Sub(e.stats)
		if err := d.ss.restore(c, h); err != nil {
			return err
		}
	} else {
		if err := d.setHistory(h); err != nil {
			return err
		}
		copy(d.z[0], c.Y)
		d.t = c.T
		d.stats = c.Work
		if s.start != nil {
			s.start.stats = Work{}
		}
		if err := d.ss.restore(c, h); err != nil {
			return err
		}
	}
	s.k = h.Started
	s.clk = c.Clock
	d.init = true
	s.init = true
	return nil
}

// LocalError implements ErrorEstimator: the estimate of the last BDF
// step (it panics after starting steps only).
func (s *bdfStepper) LocalError(dst []float64) { s.d.LocalError(dst) }
