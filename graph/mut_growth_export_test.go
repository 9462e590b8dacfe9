package graph

// MaxAnalyses is the number of stability analyses a Sim keeps at most.
const MaxAnalyses = maxAnalyses

// KeptAnalyses is the number of stability analyses the Sim keeps.
func (s *Sim) KeptAnalyses() int {
	if s.stab == nil {
		return 0
	}
	return len(s.stab.done)
}
