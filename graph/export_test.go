package graph

// Replays reports how many batched steps or evaluations were replayed on
// the per-node path: tests use it to check that the batched path ran.
func (s *Sim) Replays() int { return s.replays }

// CompactLen is the length of Sim.z, the compact output columns.
func (s *Sim) CompactLen() int { return len(s.z) }

// Fused reports whether a batched step and a batched derivatives
// evaluation of s run fused (fused.go).
func (s *Sim) Fused() (step, derivs bool) { return s.fuseStep != nil, s.fuseDerivs != nil }

// SetFusion turns fused steps off (false) or back on, for comparisons.
func (s *Sim) SetFusion(on bool) {
	if on {
		s.compileFused()
	} else {
		s.fuseStep, s.fuseDerivs = nil, nil
	}
}
