package graph

import (
	"fmt"
	"strings"
	"time"
)

// TraceSharing starts (on) or stops recording the decisions of s's
// sharing judge (pool.go, sharing.trace), kept from Run to Run like the
// judge itself; SharingLog returns them.
func (s *Sim) TraceSharing(on bool) {
	e := s.engine
	if e.sharing == nil {
		e.sharing = newSharing()
	}
	e.sharing.trace = nil
	if on {
		e.sharing.trace = new([]sharingEvent)
	}
}

// SharingSummary counts the decisions a SharingLog covers.
type SharingSummary struct {
	Runs, Won, Lost, LostEarly, Measured, Spells, Holds int
	// Rows judged in windows and run in spells, and the wall time of
	// each.
	SharedRows, SoloRows int64
	Shared, Solo         time.Duration
	// LongestSpell is the longest spell started.
	LongestSpell time.Duration
	// HeldJobs is the jobs run while the judging was held.
	HeldJobs int
}

// SharingLog returns the decisions recorded since the last call (one
// line each when lines is true) and their summary, and clears them.
func (s *Sim) SharingLog(lines bool) (string, SharingSummary) {
	var b strings.Builder
	var sum SharingSummary
	sh := s.engine.sharing
	if sh == nil || sh.trace == nil {
		return "", sum
	}
	var t0 time.Time
	held := 0
	for _, e := range *sh.trace {
		switch e.kind {
		case 'B':
			t0 = e.at
			sum.Runs++
		case 'W':
			sum.Won++
		case 'L':
			sum.Lost++
		case 'E':
			sum.LostEarly++
		case 'M':
			sum.Measured++
		case 'S':
			sum.Spells++
			sum.SoloRows += e.rows
			sum.Solo += e.span
		case 'H':
			sum.Holds++
			held = e.jobs
		case 'R':
			sum.HeldJobs += e.jobs - held
		}
		sum.LongestSpell = max(sum.LongestSpell, e.spell)
		switch e.kind {
		case 'W', 'L', 'E', 'M':
			sum.SharedRows += e.rows
			sum.Shared += e.span
		}
		if !lines {
			continue
		}
		fmt.Fprintf(&b, "%9.3f ms %c jobs %5d rows %9d span %8.3f ms", float64(e.at.Sub(t0))/1e6, e.kind, e.jobs, e.rows, float64(e.span)/1e6)
		switch e.kind {
		case 'W', 'L', 'E', 'M':
			fmt.Fprintf(&b, "  %.2f of alone", float64(e.span)/e.alone)
		case 'S':
			if e.rows > 0 {
				fmt.Fprintf(&b, "  %.2f ns/row", float64(e.span)/float64(e.rows))
			}
		}
		if e.spell > 0 {
			fmt.Fprintf(&b, "  spell %v", e.spell)
		}
		if e.stalled {
			b.WriteString("  slept")
		}
		fmt.Fprintf(&b, "  (alone %.2f ns/row)\n", e.perRow)
	}
	*sh.trace = (*sh.trace)[:0]
	return b.String(), sum
}
