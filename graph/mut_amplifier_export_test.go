package graph

import "github.com/cosimgo/cosim/integrators"

// MonolithicDenseTrials computes the dense radius of one step dt of the
// fixed-step monolithic method m (as MonolithicStability does up to
// DenseStabilityStates values) and returns it with the trial steps it
// took.
func (s *Sim) MonolithicDenseTrials(m integrators.Method, dt float64) (SchemeStability, int, error) {
	var sc SchemeStability
	a := newAmplifier(s)
	defer a.restore()
	f, err := a.monoStep(m, nil)
	if err != nil {
		return sc, 0, err
	}
	err = a.denseRadius(f, dt, &sc)
	return sc, a.trials, err
}
