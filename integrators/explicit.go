package integrators

import (
	"fmt"
	"math"
)

// Dormand–Prince 5(4) tableau (Dormand & Prince 1980; Hairer, Nørsett &
// Wanner, Solving ODEs I, Table II.5.2).
const (
	dpC2, dpC3, dpC4, dpC5 = 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9

	dpA21 = 1.0 / 5

	dpA31, dpA32 = 3.0 / 40, 9.0 / 40

	dpA41, dpA42, dpA43 = 44.0 / 45, -56.0 / 15, 32.0 / 9

	dpA51, dpA52, dpA53, dpA54 = 19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729

	dpA61, dpA62, dpA63, dpA64, dpA65 = 9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656

	dpA71, dpA73, dpA74, dpA75, dpA76 = 35.0 / 384, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84

	// error coefficients b − b̂
	dpE1, dpE3, dpE4, dpE5, dpE6, dpE7 = 71.0 / 57600, -71.0 / 16695, 71.0 / 1920, -17253.0 / 339200, 22.0 / 525, -1.0 / 40

	// dense output (Hairer's DOPRI5 contd5)
	dpD1, dpD3, dpD4, dpD5, dpD6, dpD7 = -12715105075.0 / 11282082432, 87487479700.0 / 32700410799, -10690763975.0 / 1880347072,
		701980252875.0 / 199316789632, -1453857185.0 / 822651844, 69997945.0 / 29380423
)

type explicitStepper struct {
	core

	// semi-implicit Euler partition
	pos, vel []int
	isPos    []bool

	yn  []float64
	k   [7][]float64
	tmp []float64
	fOK bool // k[0] holds f(t, y) (Dormand–Prince FSAL)
	// rule is the method's update, resolved from its name once at
	// construction so that a step compares no strings.
	rule explicitRule
}

type explicitRule uint8

const (
	ruleForwardEuler explicitRule = iota
	ruleSemiImplicitEuler
	ruleHeun
	ruleRK4
	ruleDormandPrince
)

// explicitRules maps each explicit method to its update and stage count.
var explicitRules = map[string]struct {
	rule   explicitRule
	stages int
}{
	MethodForwardEuler:      {ruleForwardEuler, 1},
	MethodSemiImplicitEuler: {ruleSemiImplicitEuler, 1},
	MethodHeun:              {ruleHeun, 2},
	MethodRK4:               {ruleRK4, 4},
	MethodDormandPrince:     {ruleDormandPrince, 7},
}

func newExplicit(m methodInfo, sys System, c conf) (*explicitStepper, error) {
	n := sys.Dim()
	r, ok := explicitRules[m.Name]
	if !ok {
		panic("integrators: newExplicit of " + m.Name) // only the explicit methods construct one
	}
	s := &explicitStepper{core: newCore(m, sys), yn: make([]float64, n), tmp: make([]float64, n), rule: r.rule}
	for i := 0; i < r.stages; i++ {
		s.k[i] = make([]float64, n)
	}
	if s.rule == ruleSemiImplicitEuler {
		p, err := pairsOf(sys, c, m.Name)
		if err != nil {
			return nil, err
		}
		pos, vel, _, err := checkPairs(p, n)
		if err != nil {
			return nil, err
		}
		s.pos, s.vel = pos, vel
		s.isPos = make([]bool, n)
		for _, i := range pos {
			s.isPos[i] = true
		}
	}
	return s, nil
}

// checkPairs validates the partition and returns copies of pos and vel
// and the ascending list of other components.
func checkPairs(p Partitioned, n int) (pos, vel, other []int, err error) {
	pp, vv := p.Pairs()
	if len(pp) != len(vv) {
		return nil, nil, nil, fmt.Errorf("integrators: Pairs returned %d positions and %d velocities", len(pp), len(vv))
	}
	seen := make([]bool, n)
	for _, list := range [][]int{pp, vv} {
		for _, i := range list {
			if i < 0 || i >= n {
				return nil, nil, nil, fmt.Errorf("integrators: Pairs index %d out of range [0, %d)", i, n)
			}
			if seen[i] {
				return nil, nil, nil, fmt.Errorf("integrators: Pairs index %d repeated", i)
			}
			seen[i] = true
		}
	}
	for i := 0; i < n; i++ {
		if !seen[i] {
			other = append(other, i)
		}
	}
	return append([]int(nil), pp...), append([]int(nil), vv...), other, nil
}

// rateMatches reports whether a position rate equals its velocity to a
// relative 1e-12.
func rateMatches(rate, v float64) bool {
	return math.Abs(rate-v) <= 1e-12*math.Max(math.Abs(rate), math.Abs(v))
}

// Init implements Stepper.
func (s *explicitStepper) Init(t0 float64, y0 []float64) error {
	s.fOK = false
	return s.core.init0(t0, y0)
}

// Step implements Stepper.
func (s *explicitStepper) Step(dt float64) error {
	if !s.init {
		panic("integrators: Step before Init")
	}
	checkStep(dt)
	nc := s.clk.next(dt)
	t, t1 := s.clk.Now(), nc.Now()
	y, yn, k, tmp := s.y, s.yn, s.k, s.tmp
	var err error
	switch s.rule {
	case ruleForwardEuler:
		if err = s.eval(t, dt, y, k[0]); err != nil {
			return err
		}
		for i := range yn {
			yn[i] = y[i] + dt*k[0][i]
		}
	case ruleSemiImplicitEuler:
		if err = s.eval(t, dt, y, k[0]); err != nil {
			return err
		}
		for i, p := range s.pos {
			if !rateMatches(k[0][p], y[s.vel[i]]) {
				return &StepError{Method: s.m.Name, Status: NotPartitioned, T: t, Dt: dt, Index: i}
			}
		}
		for i := range yn {
			if !s.isPos[i] {
				yn[i] = y[i] + dt*k[0][i]
			}
		}
		for i, p := range s.pos {
			yn[p] = y[p] + dt*yn[s.vel[i]]
		}
	case ruleHeun:
		if err = s.eval(t, dt, y, k[0]); err != nil {
			return err
		}
		for i := range tmp {
			tmp[i] = y[i] + dt*k[0][i]
		}
		if err = s.eval(t1, dt, tmp, k[1]); err != nil {
			return err
		}
		for i := range yn {
			yn[i] = y[i] + 0.5*dt*(k[0][i]+k[1][i])
		}
	case ruleRK4:
		th := t + 0.5*dt
		if err = s.eval(t, dt, y, k[0]); err != nil {
			return err
		}
		for i := range tmp {
			tmp[i] = y[i] + 0.5*dt*k[0][i]
		}
		if err = s.eval(th, dt, tmp, k[1]); err != nil {
			return err
		}
		for i := range tmp {
			tmp[i] = y[i] + 0.5*dt*k[1][i]
		}
		if err = s.eval(th, dt, tmp, k[2]); err != nil {
			return err
		}
		for i := range tmp {
			tmp[i] = y[i] + dt*k[2][i]
		}
		if err = s.eval(t1, dt, tmp, k[3]); err != nil {
			return err
		}
		for i := range yn {
			yn[i] = y[i] + dt/6*(k[0][i]+2*k[1][i]+2*k[2][i]+k[3][i])
		}
	case ruleDormandPrince:
		if !s.fOK {
			if err = s.eval(t, dt, y, k[0]); err != nil {
				return err
			}
			s.fOK = true
		}
		if err = dpStages(s.sys, t, t1, dt, y, yn, tmp, &s.k, &s.stats); err != nil {
			return s.wrap(err, dt)
		}
	}
	if i := firstNonFinite(yn); i >= 0 {
		return &StepError{Method: s.m.Name, Status: NonFinite, T: t1, Dt: dt, Index: i}
	}
	s.y, s.yn = yn, y
	if s.rule == ruleDormandPrince {
		s.k[0], s.k[6] = s.k[6], s.k[0] // FSAL
	}
	s.clk = nc
	s.stats.Steps++
	return nil
}

func (s *explicitStepper) wrap(err error, dt float64) error {
	if se, ok := err.(*StepError); ok {
		se.Method = s.m.Name
		se.Dt = dt
		return se
	}
	return err
}

// dpStages computes the Dormand–Prince stages k[1..6] from k[0] = f(t, y)
// and the 5th-order solution yn; k[6] = f(t1, yn) (FSAL).
func dpStages(sys System, t, t1, h float64, y, yn, tmp []float64, kk *[7][]float64, st *Work) error {
	k := kk
	f := func(tt float64, x, dst []float64) error {
		st.FuncEvals++
		if err := sys.Func(tt, x, dst); err != nil {
			return &StepError{Method: MethodDormandPrince, Status: Failure, T: tt, Dt: h, Index: -1, Err: err}
		}
		return nil
	}
	k0, k1, k2, k3, k4, k5, k6 := k[0], k[1], k[2], k[3], k[4], k[5], k[6]
	for i := range tmp {
		tmp[i] = y[i] + h*dpA21*k0[i]
	}
	if err := f(t+dpC2*h, tmp, k1); err != nil {
		return err
	}
	for i := range tmp {
		tmp[i] = y[i] + h*(dpA31*k0[i]+dpA32*k1[i])
	}
	if err := f(t+dpC3*h, tmp, k2); err != nil {
		return err
	}
	for i := range tmp {
		tmp[i] = y[i] + h*(dpA41*k0[i]+dpA42*k1[i]+dpA43*k2[i])
	}
	if err := f(t+dpC4*h, tmp, k3); err != nil {
		return err
	}
	for i := range tmp {
		tmp[i] = y[i] + h*(dpA51*k0[i]+dpA52*k1[i]+dpA53*k2[i]+dpA54*k3[i])
	}
	if err := f(t+dpC5*h, tmp, k4); err != nil {
		return err
	}
	for i := range tmp {
		tmp[i] = y[i] + h*(dpA61*k0[i]+dpA62*k1[i]+dpA63*k2[i]+dpA64*k3[i]+dpA65*k4[i])
	}
	if err := f(t1, tmp, k5); err != nil {
		return err
	}
	for i := range yn {
		yn[i] = y[i] + h*(dpA71*k0[i]+dpA73*k2[i]+dpA74*k3[i]+dpA75*k4[i]+dpA76*k5[i])
	}
	return f(t1, yn, k6)
}

// Checkpoint implements Checkpointer.
func (s *explicitStepper) Checkpoint() StepperState {
	c := StepperState{Method: s.m.Name, Dim: s.n, Clock: s.clk, T: s.clk.Now(), Y: cloneF(s.y), Work: s.stats}
	if s.rule == ruleDormandPrince && s.fOK {
		c.F = cloneF(s.k[0])
	}
	return c
}

// Restore implements Checkpointer.
func (s *explicitStepper) Restore(c StepperState) error {
	if err := c.check(s.m.Name, s.n, true); err != nil {
		return err
	}
	copy(s.y, c.Y)
	s.clk = c.Clock
	s.stats = c.Work
	s.fOK = false
	if s.rule == ruleDormandPrince && len(c.F) == s.n {
		copy(s.k[0], c.F)
		s.fOK = true
	}
	s.init = true
	return nil
}
