package graph

import (
	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/node"
)

// This file iterates one coupling group within a step: the fixed-point
// iteration u^{k+1} = acc(u^k, G(u^k)) over the group's interface inputs,
// the evaluation of G, and the reads and writes of the interface spans.

// iterateGroup iterates u^{k+1} = acc(u^k, G(u^k)) where G advances the
// group's stateful members from x_n with the interface inputs held at u
// and returns the interface inputs gathered at the resulting state (the
// members' outputs evaluated there at t_n+dt). Members of higher rates
// subcycle inside G (evalG).
func (s *Sim) iterateGroup(p *coupledPlan, g *cgroup, t, t1, dt float64, res *Result) error {
	xn := s.state
	var base []int32
	if len(g.classes) > 0 {
		base = g.classes[0].nodes
	}
	// Inputs at t_n (non-interface inputs keep them through the step).
	for _, i := range base {
		if err := s.gatherSafe(&s.nodes[i], t); err != nil {
			return err
		}
	}
	k := 0
	for _, i := range g.saveNodes {
		c := &s.nodes[i]
		k += copy(g.ysave[k:], s.outputs[c.y0:c.y1])
	}
	s.readSpans(g, g.now)
	var prev []float64
	if g.havePrev {
		prev = g.prev
	}
	g.it.Predictor.Predict(g.u, g.now, prev)
	g.prev, g.now = g.now, g.prev // g.prev: the interface at t_n from here on
	g.havePrev = true

	g.acc.Begin()
	iters, resid, converged := 0, 0.0, false
	var err error
	for {
		if err = s.cancelled(); err != nil {
			break
		}
		iters++
		if err = s.evalG(p, g, xn, t, t1, dt, res); err != nil {
			break
		}
		s.readSpans(g, g.g)
		converged, resid = coupling.Converged(g.u, g.g, g.it.ATol, g.it.RTol)
		if converged || iters >= g.it.MaxIter {
			break
		}
		g.acc.Next(g.next, g.u, g.g)
		g.u, g.next = g.next, g.u
	}
	g.acc.End()
	// Restore the view and the outputs other groups read.
	s.copyState(p.xv, xn, g.stateful)
	k = 0
	for _, i := range g.saveNodes {
		c := &s.nodes[i]
		k += copy(s.outputs[c.y0:c.y1], g.ysave[k:])
	}
	if err != nil {
		return err
	}
	st := &g.stats
	st.Steps++
	st.Iterations += int64(iters)
	st.MaxIterations = max(st.MaxIterations, iters)
	st.LastIterations = iters
	st.LastResidual = resid
	st.Fallbacks = g.acc.Stats().Fallbacks - g.fallback0
	if s.onGroupStep != nil {
		s.onGroupStep(GroupStep{Group: g.name, Step: s.steps, Time: t, Iterations: iters, Residual: resid, Converged: converged})
	}
	if !converged {
		if g.it.OnFail != coupling.Accept {
			return &ConvergenceError{Group: g.name, Step: s.steps, Time: t, Iterations: iters, Residual: resid}
		}
		st.NonConverged++
	}
	return nil
}

// evalG evaluates G(u^k): the group's classes advance from x_n, slowest
// first, into s.nextState; the first class with the interface inputs held at
// u^k (or, subcycling under Linear, interpolated between u_n and u^k to
// the end of each substep), each later class in substeps reading its
// upstream outputs re-evaluated from a view where the slower members are
// at their new (trial) state, held or interpolated likewise. Then the
// members' outputs are evaluated from the trial state at t_n+dt and the
// interface inputs gathered there, into Sim.inputs. s.state is xn on return.
func (s *Sim) evalG(p *coupledPlan, g *cgroup, xn []float64, t, t1, dt float64, res *Result) error {
	s.copyState(p.xv, xn, g.stateful)
	for k := range g.classes {
		gc := &g.classes[k]
		h := dt / float64(gc.rate)
		for j := 0; j < gc.rate; j++ {
			if j > 0 {
				if err := s.cancelled(); err != nil {
					return err
				}
			}
			tj := t + float64(j)*h
			theta := 1.0
			if g.linear {
				theta = float64(j+1) / float64(gc.rate)
			}
			var err error
			if k == 0 {
				if theta == 1 {
					s.writeSpans(g, g.u)
				} else {
					for i, un := range g.prev {
						g.ui[i] = un + theta*(g.u[i]-un)
					}
					s.writeSpans(g, g.ui)
				}
				s.state = p.xv
				err = s.runNodes(phaseHeld, gc.nodes, tj, h)
			} else {
				for _, i := range gc.slower {
					c := &s.nodes[i]
					if theta == 1 {
						copy(p.xv[c.x0:c.x1], s.nextState[c.x0:c.x1])
						continue
					}
					for q := c.x0; q < c.x1; q++ {
						p.xv[q] = xn[q] + theta*(s.nextState[q]-xn[q])
					}
				}
				s.state = p.xv
				err = s.reevaluate(gc.reeval, nil, tj, res)
				if err == nil {
					err = s.runNodes(phaseUpdate, gc.nodes, tj, h)
				}
			}
			s.state = xn
			if err != nil {
				return err
			}
			s.count(p, gc.nodes, res)
			s.copyState(p.xv, s.nextState, gc.nodes)
		}
	}
	s.copyState(p.xv, s.nextState, g.stateful)
	s.state = p.xv
	err := s.reevaluate(g.outLevels, nil, t1, res)
	if err == nil {
		err = s.gatherSpans(g, t1)
	}
	s.state = xn
	return err
}

func (s *Sim) readSpans(g *cgroup, dst []float64) {
	k := 0
	for _, sp := range g.spans {
		k += copy(dst[k:], s.inputs[sp.u0:sp.u1])
	}
}

func (s *Sim) writeSpans(g *cgroup, src []float64) {
	k := 0
	for _, sp := range g.spans {
		k += copy(s.inputs[sp.u0:sp.u1], src[k:])
	}
}

// gatherSpans gathers the group's interface inputs from the current
// state and outputs, as gather does for a whole node.
func (s *Sim) gatherSpans(g *cgroup, t float64) error {
	for k := range g.spans {
		sp := &g.spans[k]
		if err := s.gatherSpan(sp.node, sp.g0, sp.g1, t); err != nil {
			return err
		}
		if j := nonFinite(s.inputs[sp.u0:sp.u1]); j >= 0 {
			c := &s.nodes[sp.node]
			return stepError(c.name, "input "+c.spec.InputLayout.Component(sp.u0+j-int(c.u0)), s.steps, t, node.ErrNonFinite)
		}
	}
	return nil
}

// gatherSpan runs gathers [g0, g1) into node i's inputs, recovering a
// panic in a transform as an error naming node i.
func (s *Sim) gatherSpan(i int32, g0, g1 int, t float64) (err error) {
	defer s.recoverNode(s.nodes[i].name, t, &err)
	s.applyGathers(g0, g1)
	return nil
}
