package integrators

import (
	"fmt"
	"slices"
)

// The Newmark family as a Stepper of a Partitioned first-order System:
// partAdapter presents the System as SecondOrder, alphaFirst keeps the
// state and the carried acceleration between steps.

// partAdapter presents a Partitioned first-order System as SecondOrder:
// q = y[pos], v = y[vel], z = the other components.
type partAdapter struct {
	sys             System
	n               int
	pos, vel, other []int
	y, f, jd        []float64
	jac             Jacobian
}

func (p *partAdapter) Dims() (int, int) { return len(p.pos), len(p.other) }

func (p *partAdapter) scatter(q, v, z []float64) {
	for i, k := range p.pos {
		p.y[k] = q[i]
	}
	for i, k := range p.vel {
		p.y[k] = v[i]
	}
	for i, k := range p.other {
		p.y[k] = z[i]
	}
}

func (p *partAdapter) Accel(t float64, q, v, z, a, zdot []float64) error {
	p.scatter(q, v, z)
	if err := p.sys.Func(t, p.y, p.f); err != nil {
		return err
	}
	for i, k := range p.pos {
		if !rateMatches(p.f[k], v[i]) {
			return &StepError{Status: NotPartitioned, T: t, Index: i}
		}
	}
	for i, k := range p.vel {
		a[i] = p.f[k]
	}
	for i, k := range p.other {
		zdot[i] = p.f[k]
	}
	return nil
}

func (p *partAdapter) accelJac(t float64, q, v, z, dadq, dadv []float64) error {
	p.scatter(q, v, z)
	if err := p.jac.Jacobian(t, p.y, p.jd); err != nil {
		return err
	}
	nq, n := len(p.pos), p.n
	for i, vi := range p.vel {
		for j := 0; j < nq; j++ {
			dadq[i*nq+j] = p.jd[vi*n+p.pos[j]]
			dadv[i*nq+j] = p.jd[vi*n+p.vel[j]]
		}
	}
	return nil
}

// alphaFirst runs a Newmark-family method on a Partitioned first-order
// System through the Stepper interface.
type alphaFirst struct {
	m    methodInfo
	ad   *partAdapter
	core *alphaCore
	n    int
	ids  []int64

	init          bool
	haveA         bool
	clk           Clock
	y             []float64
	q, v, z, a, g []float64
	stats         Work
}

func newAlphaFirstOrder(m methodInfo, sys System, c conf) (*alphaFirst, error) {
	p, err := pairsOf(sys, c, m.Name)
	if err != nil {
		return nil, err
	}
	n := sys.Dim()
	pos, vel, other, err := checkPairs(p, n)
	if err != nil {
		return nil, err
	}
	ad := &partAdapter{sys: sys, n: n, pos: pos, vel: vel, other: other, y: make([]float64, n), f: make([]float64, n)}
	s := &alphaFirst{m: m, ad: ad, n: n, ids: c.ids, y: make([]float64, n)}
	s.core = newAlphaCore(m, ad, c, &s.stats)
	// A StepError names the System's component, not a position in the
	// core's lists: an acceleration is the rate of its velocity.
	s.core.comp = func(list, i int) int {
		switch list {
		case listQ:
			return pos[i]
		case listV, listA:
			return vel[i]
		}
		return other[i]
	}
	nq, nz := len(pos), len(other)
	var blockOf []int
	krylov := c.useKrylov(nq + nz)
	if krylov {
		if !c.matrixFree || c.pc != PrecondNone {
			src, err := newJacRows(sys, n)
			if err != nil {
				return nil, err
			}
			if src != nil {
				s.core.sp = newAlphaSparse(ad, src)
			}
		}
		of, err := blocksOf(sys, n, c.pc == PrecondBlockJacobi)
		if err != nil {
			return nil, err
		}
		if of != nil {
			blockOf = make([]int, nq+nz)
			for i, k := range vel {
				blockOf[i] = of[k]
			}
			for i, k := range other {
				blockOf[nq+i] = of[k]
			}
		}
	}
	// The dense acceleration Jacobian is only for the dense solver (or
	// GMRES on a System without SparseJacobian): n² memory.
	if j, ok := sys.(Jacobian); ok && (!krylov || s.core.sp == nil && (!c.matrixFree || c.pc != PrecondNone)) {
		ad.jac = j
		ad.jd = make([]float64, n*n)
		s.core.jacFn = ad.accelJac
		s.core.dadq = make([]float64, len(pos)*len(pos))
		s.core.dadv = make([]float64, len(pos)*len(pos))
	}
	var name func(int) string
	if cn, ok := sys.(componentNamer); ok {
		name = func(i int) string {
			if i < nq {
				return cn.Component(vel[i])
			}
			return cn.Component(other[i-nq])
		}
	}
	s.core.initLinear(s.core.sp != nil, blockOf, name)
	s.core.nl.crossStep = s.core.sp != nil
	s.q, s.v, s.a = make([]float64, nq), make([]float64, nq), make([]float64, nq)
	s.z, s.g = make([]float64, nz), make([]float64, nz)
	return s, nil
}

// Method, Order, Work and State implement Stepper.
func (s *alphaFirst) Method() string              { return s.m.Name }
func (s *alphaFirst) Order() int                  { return s.m.Order }
func (s *alphaFirst) Work() Work                  { return s.stats }
func (s *alphaFirst) State() (float64, []float64) { return s.clk.Now(), s.y }

func (s *alphaFirst) gather() {
	for i, k := range s.ad.pos {
		s.q[i] = s.y[k]
	}
	for i, k := range s.ad.vel {
		s.v[i] = s.y[k]
	}
	for i, k := range s.ad.other {
		s.z[i] = s.y[k]
	}
}

// Init implements Stepper.
func (s *alphaFirst) Init(t0 float64, y0 []float64) error {
	if len(y0) != s.n {
		panic(fmt.Sprintf("integrators: Init: len(y0) = %d, Dim = %d", len(y0), s.n))
	}
	if i := firstNonFinite(y0); i >= 0 {
		return &StepError{Method: s.m.Name, Status: NonFinite, T: t0, Index: i}
	}
	copy(s.y, y0)
	s.gather()
	s.clk = Clock{Base: t0}
	s.haveA = false
	s.core.nl.valid = false
	s.stats = Work{}
	s.init = true
	return nil
}

// Step implements Stepper.
func (s *alphaFirst) Step(dt float64) error {
	if !s.init {
		panic("integrators: Step before Init")
	}
	checkStep(dt)
	err := s.step(dt)
	if se, ok := err.(*StepError); ok && se.Step == 0 {
		se.Step = s.stats.Steps + 1
	}
	return err
}

func (s *alphaFirst) step(dt float64) error {
	t := s.clk.Now()
	if !s.haveA {
		if err := s.core.physical(t, s.q, s.v, s.z, s.a, s.g); err != nil {
			s.stats.Rejected++
			return err
		}
		s.haveA = true
	}
	nc := s.clk.next(dt)
	if err := s.core.step(t, nc.Now(), dt, s.q, s.v, s.z, s.a, s.g); err != nil {
		s.stats.Rejected++
		return err
	}
	c := s.core
	copy(s.q, c.q1)
	copy(s.v, c.v1)
	copy(s.z, c.z1)
	copy(s.a, c.a1)
	copy(s.g, c.g1)
	s.ad.scatter(s.q, s.v, s.z)
	copy(s.y, s.ad.y)
	s.clk = nc
	s.stats.Steps++
	return nil
}

// Checkpoint implements Checkpointer.
func (s *alphaFirst) Checkpoint() StepperState {
	c := StepperState{Method: s.m.Name, Alpha: s.m.Alpha, IDs: slices.Clone(s.ids), Dim: s.n, Clock: s.clk,
		T: s.clk.Now(), Y: cloneF(s.y), Work: s.stats}
	if s.haveA {
		c.A, c.ZDot = cloneF(s.a), cloneF(s.g)
	}
	if nl := s.core.nl; nl.crossStep && nl.valid {
		p := s.core.sp.pt
		p.Y, p.YE, p.Age = cloneF(p.Y), cloneF(p.YE), nl.age
		c.Jac = &p
	}
	return c
}

// Restore implements Checkpointer.
func (s *alphaFirst) Restore(c StepperState) error {
	if err := c.check(s.m.Name, s.n, true); err != nil {
		return err
	}
	if c.Alpha != s.m.Alpha {
		return &StateMismatchError{Field: "parameters", Want: fmt.Sprintf("%+v", s.m.Alpha), Got: fmt.Sprintf("%+v", c.Alpha)}
	}
	if !slices.Equal(c.IDs, s.ids) {
		return &StateMismatchError{Field: "ids", Want: fmt.Sprint(s.ids), Got: fmt.Sprint(c.IDs)}
	}
	if c.A != nil && (len(c.A) != len(s.a) || len(c.ZDot) != len(s.g)) {
		return &StateMismatchError{Field: "nq", Want: fmt.Sprint(len(s.a)), Got: fmt.Sprint(len(c.A))}
	}
	copy(s.y, c.Y)
	s.gather()
	s.clk = c.Clock
	s.stats = c.Work
	s.haveA = c.A != nil
	if s.haveA {
		copy(s.a, c.A)
		copy(s.g, c.ZDot)
	}
	nl := s.core.nl
	nl.valid = false
	if p := c.Jac; p != nil && nl.crossStep {
		// Re-assemble the reused matrix where it was (not counted as
		// work: it restores memory).
		m := s.core.sp
		if len(p.Y) != s.n || len(p.YE) != len(m.pt.YE) {
			return &StateMismatchError{Field: "jacobian point", Want: fmt.Sprint(s.n), Got: fmt.Sprint(len(p.Y))}
		}
		copy(m.pt.Y, p.Y)
		copy(m.pt.YE, p.YE)
		m.pt.T, m.pt.TE, m.pt.Dt = p.T, p.TE, p.Dt
		st := s.stats
		err := s.core.sparseAt()
		if err == nil {
			err = nl.setupPC(&st)
		}
		if err != nil {
			return fmt.Errorf("integrators: restoring the Newton matrix: %w", err)
		}
		nl.matrixDone(p.Dt)
		nl.fresh, nl.age = false, p.Age
	}
	s.init = true
	return nil
}
