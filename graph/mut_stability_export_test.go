package graph

// StartPlanEscalates reports whether the check at the start of a run of
// steps steps (0: without an end) of a graph of n values replaces an
// undecided matrix-free estimate by the dense radius (checkPlan.escalate),
// and whether the run is analysed at all.
func StartPlanEscalates(n, steps int) (escalate, ok bool) {
	p, ok := startPlan(n, steps, bySize)
	return p.escalate, ok
}
