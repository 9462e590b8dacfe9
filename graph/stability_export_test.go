package graph

// StartGrowthWatch starts the growth watch of a Jacobi run with step dt
// from the current state, for tests of its sampling.
func (s *Sim) StartGrowthWatch(dt float64) {
	set := Settings{Dt: dt}
	var res Result
	s.startStability(CoSimulation{}, set, &res)
}

// GrowthSample samples the growth watch after step `step`.
func (s *Sim) GrowthSample(step int) error { return s.stab.watch.sample(s, step) }
