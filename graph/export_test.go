package graph

import "fmt"

// Replays reports how many batched steps or evaluations were replayed on
// the per-node path: tests use it to check that the batched path ran.
func (s *Sim) Replays() int { return s.replays }

// CompactLen is the length of engine.packed, the compact output columns.
func (s *Sim) CompactLen() int { return len(s.engine.packed) }

// Fused reports whether a batched step and a batched derivatives
// evaluation of s run fused (fused.go).
func (s *Sim) Fused() (step, derivs bool) {
	return s.engine.fuseStep != nil, s.engine.fuseDerivs != nil
}

// SetFusion turns fused steps off (false) or back on, for comparisons.
func (s *Sim) SetFusion(on bool) {
	if on {
		s.engine.compileFused()
	} else {
		s.engine.fuseStep, s.engine.fuseDerivs = nil, nil
	}
}

// Windowed reports whether the fused step and derivatives evaluation of
// s keep their producers' outputs in per-part windows (fused.go).
func (s *Sim) Windowed() (step, derivs bool) {
	e := s.engine
	return e.fuseStep != nil && e.fuseStep.window, e.fuseDerivs != nil && e.fuseDerivs.window
}

// SetWindows forces window mode on or off for s's fused plans, whatever
// the size of engine.packed, for comparisons.
func (s *Sim) SetWindows(on bool) {
	e := s.engine
	e.windows = windowsNever
	if on {
		e.windows = windowsAlways
	}
	if e.fuseStep != nil || e.fuseDerivs != nil {
		e.compileFused()
	}
}

// BoundFamilies is the number of families whose kernel bounds their
// rows' stable steps in one call in StepWarnings (stablestep.go).
func (s *Sim) BoundFamilies() int {
	s.limiters()
	return len(s.limFams)
}

// RecordBytes is the memory estimate of a recording kept in memory
// (recordBytes).
func RecordBytes(rows, width int) float64 { return recordBytes(rows, width) }

// PrefixFactor exposes prefixFactor to the tests.
func PrefixFactor(from, to string) (float64, bool) { return prefixFactor(from, to) }

// StepLayers returns one fused step of s taken apart, for
// BenchmarkStepLayers: kernels runs the step's compiled kernel calls
// alone, with the arguments the last step left in place; calls runs them
// through engine.run (the views bound to the buffers, the inputs and what the
// kernels wrote checked); step runs engine.step (the dispatch added).
// None swaps the state buffers, so each repeats the same step. s must
// have run a step on one goroutine, which compiles the calls; all three
// are nil when its step is not fused.
func StepLayers(s *Sim, dt float64) (kernels, calls, step func() bool) {
	e := s.engine
	p := e.fuseStep
	if p == nil || p.split1 == nil {
		return nil, nil, nil
	}
	cs := p.split1[0].first
	j := job{kind: jobFused, fuse: p, split: p.split1, t: s.Time(), dt: dt}
	kernels = func() bool {
		for i := range cs {
			c := cs[i].args
			if c == nil {
				continue
			}
			if c.kernel() != nil {
				return false
			}
		}
		return true
	}
	calls = func() bool {
		for i := range cs {
			if cs[i].args != nil && !e.run(cs[i].args, &j) {
				return false
			}
		}
		return true
	}
	step = func() bool { return e.step(j.t, dt, false) }
	return kernels, calls, step
}

// ParamDerivs returns ∂f/∂p of the named parameters at (t, y) as
// Sensitivities computes them (column j at [j·n, (j+1)·n)), with the
// loops frozen (solveLoops false) or solved on each side of the
// differences (true, the method the frozen loops replace).
func (s *Sim) ParamDerivs(params []string, t float64, y []float64, solveLoops bool) ([]float64, error) {
	m, err := s.System()
	if err != nil {
		return nil, err
	}
	a, err := newSensSys(s, m, params)
	if err != nil {
		return nil, err
	}
	a.useJacobian(m)
	a.solveLoops = solveLoops
	defer a.restoreParams()
	if err := a.paramDerivs(t, y); err != nil {
		return nil, err
	}
	return append([]float64(nil), a.fp...), nil
}

// EventGradient returns ∂g/∂y, ∂g/∂t and ∂g/∂p (the named parameters)
// of the event "node.event" at (t, y) as the saltation map computes
// them, with the loops frozen (solveLoops false) or solved on each side
// of the differences (true, the method the frozen loops replace).
func (s *Sim) EventGradient(event string, params []string, t float64, y []float64, solveLoops bool) (gy []float64, gt float64, gp []float64, err error) {
	m, err := s.System()
	if err != nil {
		return nil, 0, nil, err
	}
	a, err := newSensSys(s, m, params)
	if err != nil {
		return nil, 0, nil, err
	}
	a.useJacobian(m)
	a.solveLoops = solveLoops
	defer a.restoreParams()
	for i := range m.EventCount() {
		if m.EventName(i) == event {
			gy, gp = make([]float64, len(y)), make([]float64, len(params))
			gt, err = a.eventGrad(i, t, y, gy, gp)
			return gy, gt, gp, err
		}
	}
	return nil, 0, nil, fmt.Errorf("no event %q", event)
}

// ResetJacobian returns ∂R/∂y (n×n), ∂R/∂p (n×np) and ∂R/∂t of the reset
// of the event "node.event" at (t, y) as the saltation map computes
// them, with the loops frozen (solveLoops false) or solved on each side
// of the differences.
func (s *Sim) ResetJacobian(event string, params []string, t float64, y []float64, solveLoops bool) (Ry, Rp, Rt []float64, err error) {
	m, err := s.System()
	if err != nil {
		return nil, nil, nil, err
	}
	a, err := newSensSys(s, m, params)
	if err != nil {
		return nil, nil, nil, err
	}
	a.useJacobian(m)
	a.solveLoops = solveLoops
	defer a.restoreParams()
	n := len(y)
	for i := range m.EventCount() {
		if m.EventName(i) == event {
			Ry, Rp, Rt = make([]float64, n*n), make([]float64, n*len(params)), make([]float64, n)
			err = a.resetJac(i, t, y, Ry, Rp, Rt)
			return Ry, Rp, Rt, err
		}
	}
	return nil, nil, nil, fmt.Errorf("no event %q", event)
}
