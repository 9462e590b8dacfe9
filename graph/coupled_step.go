package graph

// This file executes a compiled coupledPlan, one macro step at a time:
// coupledStep dispatches to the Gauss–Seidel, multirate and iterative
// executors. Like the default step, a failing step leaves the state at t_n.

// coupledStep takes one step under the plan. As the default step, a
// failing step leaves the state at t_n.
func (s *Sim) coupledStep(t, dt float64, res *Result) error {
	p := s.plan
	if !s.outputsFresh {
		if !s.engine.on() || !s.engine.outputs(t) {
			if err := s.outputsPerNode(t); err != nil {
				return err
			}
		}
		res.OutputEvals += int64(s.numOutputNodes())
	}
	xn := s.state
	copy(p.xv, xn)
	var err error
	switch p.kind {
	case planGaussSeidel:
		err = s.stepGS(p, t, dt, res)
	case planIterative:
		err = s.stepIterative(p, t, dt, res)
	default:
		err = s.stepMultirate(p, p.classes, t, dt, res)
	}
	s.state = xn
	s.outputsFresh = false
	if err != nil {
		// The step may have changed the groups' memory half-way.
		p.failed = true
		return err
	}
	s.state, s.nextState = s.nextState, s.state
	return nil
}

// endTime is t_n+dt, from the step count when dt is the current base.
func (s *Sim) endTime(t, dt float64) float64 {
	if s.dt == dt {
		return s.t0 + float64(s.n+1)*s.dt
	}
	return t + dt
}

func (s *Sim) count(p *coupledPlan, nodes []int32, res *Result) {
	for _, i := range nodes {
		p.updates[i]++
	}
	res.NodeUpdates += int64(len(nodes))
}

func (s *Sim) reevaluate(levels [][]int32, units []*unitList, t float64, res *Result) error {
	for k, l := range levels {
		var u *unitList // nil: the per-node path (inside iterated groups)
		if units != nil {
			u = units[k]
		}
		if err := s.runStage(phaseOutputs, l, u, t, 0); err != nil {
			return err
		}
		res.OutputEvals += int64(len(l))
	}
	return nil
}

// copyState copies the state slots of nodes from src to dst.
func (s *Sim) copyState(dst, src []float64, nodes []int32) {
	for _, i := range nodes {
		c := &s.nodes[i]
		copy(dst[c.x0:c.x1], src[c.x0:c.x1])
	}
}

func (s *Sim) stepGS(p *coupledPlan, t, dt float64, res *Result) error {
	s.state = p.xv
	t1 := s.endTime(t, dt)
	for _, g := range p.stages {
		for _, b := range g.reeval {
			at := t
			if b.end {
				at = t1
			}
			if err := s.runStage(phaseOutputs, b.nodes, b.units, at, 0); err != nil {
				return err
			}
			res.OutputEvals += int64(len(b.nodes))
		}
		if err := s.runStage(phaseUpdate, g.nodes, g.units, t, dt); err != nil {
			return err
		}
		s.count(p, g.nodes, res)
		s.copyState(p.xv, s.nextState, g.nodes)
	}
	return nil
}

// stepMultirate advances classes as a multirate Jacobi step: each class
// from t_n, slowest first, a subcycling class reading slower nodes held or
// interpolated (from their new state in s.nextState) and faster ones at t_n.
func (s *Sim) stepMultirate(p *coupledPlan, classes []rateClass, t, dt float64, res *Result) error {
	xn := s.state
	for _, rc := range classes {
		if rc.rate == 1 {
			if err := s.runStage(phaseUpdate, rc.nodes, rc.units, t, dt); err != nil {
				return err
			}
			s.count(p, rc.nodes, res)
			continue
		}
		h := dt / float64(rc.rate)
		for j := 0; j < rc.rate; j++ {
			if err := s.cancelled(); err != nil {
				return err
			}
			tj := t + float64(j)*h
			if p.linear && j > 0 {
				th := float64(j) / float64(rc.rate)
				for _, i := range rc.slower {
					c := &s.nodes[i]
					for k := c.x0; k < c.x1; k++ {
						p.xv[k] = xn[k] + th*(s.nextState[k]-xn[k])
					}
				}
			}
			s.state = p.xv
			err := s.reevaluate(rc.reeval, rc.reevalUnits, tj, res)
			if err == nil {
				err = s.runStage(phaseUpdate, rc.nodes, rc.units, tj, h)
			}
			s.state = xn
			if err != nil {
				return err
			}
			s.count(p, rc.nodes, res)
			s.copyState(p.xv, s.nextState, rc.nodes)
		}
		// Later (faster) classes see this class as slower: restart its
		// view at t_n.
		s.copyState(p.xv, xn, rc.nodes)
		s.copyState(p.xv, xn, rc.slower)
	}
	return nil
}

func (s *Sim) stepIterative(p *coupledPlan, t, dt float64, res *Result) error {
	pre, post := p.classes, p.classes[len(p.classes):]
	if len(pre) > 0 && pre[0].rate == 1 {
		pre, post = pre[:1], pre[1:]
	} else {
		pre, post = nil, pre
	}
	if err := s.stepMultirate(p, pre, t, dt, res); err != nil {
		return err
	}
	t1 := s.endTime(t, dt)
	for _, g := range p.groups {
		if err := s.iterateGroup(p, g, t, t1, dt, res); err != nil {
			return err
		}
	}
	return s.stepMultirate(p, post, t, dt, res)
}

// runStage runs phase ph on a stage of a coupling strategy: batched when
// the engine is on and the stage was compiled (ul), replayed on the
// per-node path when the batched attempt fails (the stage's nodes write
// only their own slots, so the replay starts from the same values), and
// on the per-node path when ul is nil.
func (s *Sim) runStage(ph phase, nodes []int32, ul *unitList, t, dt float64) error {
	if ul != nil && s.engine.on() {
		if s.engine.stage(ph, ul, t, dt) {
			return nil
		}
		s.replays++
	}
	return s.runNodes(ph, nodes, t, dt)
}
