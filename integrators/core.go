package integrators

import "fmt"

// core is what every fixed-step first-order stepper keeps: its method and
// system, the state and its clock, and the work counts.
type core struct {
	m     methodInfo
	sys   System
	n     int
	init  bool
	clk   Clock
	y     []float64
	stats Work
}

func newCore(m methodInfo, sys System) core {
	n := sys.Dim()
	return core{m: m, sys: sys, n: n, y: make([]float64, n)}
}

// Method, Order, Work and State implement Stepper.
func (s *core) Method() string              { return s.m.Name }
func (s *core) Order() int                  { return s.m.Order }
func (s *core) Work() Work                  { return s.stats }
func (s *core) State() (float64, []float64) { return s.clk.Now(), s.y }

// init0 sets the state to (t0, y0) and resets the clock and counts.
func (s *core) init0(t0 float64, y0 []float64) error {
	if len(y0) != s.n {
		panic(fmt.Sprintf("integrators: Init: len(y0) = %d, Dim = %d", len(y0), s.n))
	}
	if i := firstNonFinite(y0); i >= 0 {
		return &StepError{Method: s.m.Name, Status: NonFinite, T: t0, Index: i}
	}
	copy(s.y, y0)
	s.clk = Clock{Base: t0}
	s.stats = Work{}
	s.init = true
	return nil
}

// eval evaluates the system, counting it and wrapping its error.
func (s *core) eval(t, dt float64, y, dst []float64) error {
	s.stats.FuncEvals++
	if err := s.sys.Func(t, y, dst); err != nil {
		return &StepError{Method: s.m.Name, Status: Failure, T: t, Dt: dt, Index: -1, Err: err}
	}
	return nil
}
