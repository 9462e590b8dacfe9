package graph

import (
	"fmt"
	"strings"
)

// This file keeps the identity of the run a checkpoint continues — its
// mode and its coupling strategy or integration method — so that a
// checkpoint is continued only by the same kind of run. Resuming a
// monolithic RK4 run's checkpoint as an IQN-ILS co-simulation of the same
// nodes (or a co-simulation's as a monolithic run, or under another
// strategy or method) starts a different computation from the
// checkpoint's state: its results are neither the checkpointed run's nor
// a fresh run's, so it is refused unless asked for.

// runIdentity is the mode and method of the run set describes:
// "co-simulation <strategy>", "monolithic <method>" or "adaptive
// <method>".
func runIdentity(mode Mode) string {
	switch m := mode.(type) {
	case MonolithicAdaptive:
		return "adaptive " + m.Method.Name()
	case Monolithic:
		return "monolithic " + m.Method.Name()
	case CoSimulation:
		return "co-simulation " + strategyKey(m.Coupling)
	}
	return mode.String()
}

// checkResume refuses a run that would continue a restored checkpoint
// in another mode, or with another strategy or method, than the run the
// checkpoint was taken from. A run that continues it passes, and so does
// any run once the Sim has run or the memory has been reset. Where the
// checkpoint carries memory the run would discard, the more precise
// checks of beginCoupling and keptMono speak instead.
func (s *Sim) checkResume(mode Mode) error {
	was := s.resumeRun
	if was == "" {
		return nil
	}
	now := runIdentity(mode)
	kind := func(id string) string { m, _, _ := strings.Cut(id, " "); return m }
	switch {
	case was == now:
		return nil
	case kind(was) == "co-simulation" && kind(now) == "co-simulation" && s.lastPlan != nil && s.lastPlan.restored:
		return nil // beginCoupling names the strategies' difference
	case kind(was) != "co-simulation" && kind(now) != "co-simulation" && s.mono != nil && s.mono.restored && s.monoCurrent():
		return nil // keptMono names the methods' difference
	}
	return fmt.Errorf("graph: the checkpoint restored was taken in the run %q; this run is %q: it would not continue the checkpointed run but start another computation from its state; continue with the same mode and %s, or call Sim.ResetCoupling or Sim.ResetIntegrator to start afresh from the checkpoint's state", was, now, what(was))
}

// what names the part of a run identity that must stay the same.
func what(id string) string {
	if strings.HasPrefix(id, "co-simulation ") {
		return "coupling strategy"
	}
	return "method"
}
