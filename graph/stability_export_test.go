package graph

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/integrators"
)

// StartGrowthWatch starts the growth watch of a Jacobi run with step dt
// from the current state, for tests of its sampling.
func (s *Sim) StartGrowthWatch(dt float64) {
	set := Settings{Dt: dt}
	var res Result
	s.startStability(CoSimulation{}, set, 0, &res)
}

// GrowthSample samples the growth watch after step `step`.
func (s *Sim) GrowthSample(step int) error { return s.stab.watch.sample(s, step) }

// StabilityForced is CheckStability (a run without an end) with the dense (dense true) or the
// matrix-free radius, whatever the size.
func (s *Sim) StabilityForced(st *coupling.Strategy, dt float64, dense bool) (*StabilityAnalysis, error) {
	how := forceKrylov
	if dense {
		how = forceDense
	}
	return s.stabilityBy(st, dt, false, 0, how)
}

// MonolithicStabilityForced is MonolithicStability with the dense or the
// matrix-free radius.
func (s *Sim) MonolithicStabilityForced(m integrators.Method, dt float64, dense bool) (*StabilityAnalysis, error) {
	how := forceKrylov
	if dense {
		how = forceDense
	}
	return s.monolithicStability(m, nil, dt, true, 0, how)
}

// RadiusTrials computes the radius of st at dt as the start-of-run
// check does (dense or matrix-free by size) and returns the trial steps
// it took and the iterations of its iterated groups in them.
func (s *Sim) RadiusTrials(st *coupling.Strategy, dt float64) (sc SchemeStability, trials int, iters int64, err error) {
	return s.RadiusTrialsWith(st, dt, true)
}

// RadiusTrialsWith is RadiusTrials with the analysis's Newton iteration
// of iterated groups (newton true) or the strategy's own accelerator
// (IQN-ILS at the analysis's tolerance).
func (s *Sim) RadiusTrialsWith(st *coupling.Strategy, dt float64, newton bool) (sc SchemeStability, trials int, iters int64, err error) {
	cands, err := s.stabilityCandidates(st)
	if err != nil {
		return sc, 0, 0, err
	}
	a := newAmplifier(s)
	a.noNewton = !newton
	defer a.restore()
	f, err := a.schemeStep(cands[0].st)
	if err != nil {
		return sc, 0, 0, err
	}
	err = a.radius(f, dt, &sc)
	return sc, a.trials, a.iters, err
}

// StartPlan is the plan of the check at the start of a run of steps
// steps of a graph of n values and its cost in passes over the state.
func StartPlan(n, steps int) (dense bool, dim, cycles, passes int, ok bool) {
	p, ok := startPlan(n, steps, bySize)
	return p.dense, p.dim, p.cycles, p.passes(n), ok
}

// StartAnalysis is the start-of-run analysis (cached per strategy and
// step) a Jacobi run of steps steps with step dt gets.
func (s *Sim) StartAnalysis(dt float64, steps int) *StabilityAnalysis {
	var res Result
	s.startStability(CoSimulation{AllowGrowth: true}, Settings{Dt: dt}, steps, &res)
	return res.Stability
}

// DecidedRadius is the start-of-run decision for the chosen strategy st
// in a run without an end (the full plan: dense, or matrix-free with the
// dense escalation): the chosen scheme's analysis, without the
// alternatives or the largest stable step, and the bound it was judged
// under.
func (s *Sim) DecidedRadius(st *coupling.Strategy, dt float64) (sc SchemeStability, bound float64, err error) {
	cands, err := s.stabilityCandidates(st)
	if err != nil {
		return sc, 0, err
	}
	a := newAmplifier(s)
	defer a.restore()
	a.growth()
	f, err := a.schemeStep(cands[0].st)
	if err != nil {
		return sc, 0, err
	}
	err = a.decide(f, dt, &sc)
	return sc, a.bound(dt), err
}

// IteratedMatrices computes the dense amplification matrix of the
// iterated strategy st at dt twice: with the analysis's Newton iteration
// (newtonAccel) and with the strategy's own accelerator at the
// analysis's tolerance (IQN-ILS), with the group iterations each took
// (the Newton one including the 2m evaluations that form its Jacobian).
func (s *Sim) IteratedMatrices(st *coupling.Strategy, dt float64) (newton, iqn *mat.Dense, newtonIters, iqnIters int64, err error) {
	cands, err := s.stabilityCandidates(st)
	if err != nil {
		return nil, nil, 0, 0, err
	}
	for k, noNewton := range []bool{false, true} {
		a := newAmplifier(s)
		a.noNewton = noNewton
		f, err := a.schemeStep(cands[0].st)
		if err == nil {
			var nc bool
			if nc, err = a.matrix(f, dt); nc {
				err = fmt.Errorf("not converged")
			}
		}
		a.restore()
		if err != nil {
			return nil, nil, 0, 0, err
		}
		m := mat.NewDense(a.n, a.n, a.g)
		if k == 0 {
			newton, newtonIters = m, a.iters
		} else {
			iqn, iqnIters = m, a.iters
		}
	}
	return newton, iqn, newtonIters, iqnIters, nil
}
