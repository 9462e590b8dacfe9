package graph

// Replays reports how many batched steps or evaluations were replayed on
// the per-node path: tests use it to check that the batched path ran.
func (s *Sim) Replays() int { return s.replays }

// CompactLen is the length of Sim.z, the compact output columns.
func (s *Sim) CompactLen() int { return len(s.z) }
