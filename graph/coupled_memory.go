package graph

import (
	"fmt"
	"math"
	"strings"

	"github.com/cosimgo/cosim/coupling"
)

// This file keeps a coupled Run's cross-step memory — each group's
// interface values at the start of the last step (the linear predictor's
// u_{n−1}) and its accelerator's memory (Aitken's factor, IQN-ILS's
// reused columns) — in the Sim between Runs and in checkpoints, so that
// Run(N) then Run(M), or Run(N), Checkpoint, Restore, Run(M), is bit for
// bit Run(N+M). Jacobi, Gauss–Seidel and multirate carry nothing across
// macro steps (every substep of a step is taken within it); their
// checkpoints hold only the strategy.

// clockStamp is the Sim's clock and state a plan's memory belongs to.
type clockStamp struct {
	t0, dt   float64
	n, steps int
	x        []float64
}

// stampPlan records the Sim's current clock and state in p.
func (s *Sim) stampPlan(p *coupledPlan) {
	st := &p.stamp
	st.t0, st.dt, st.n, st.steps = s.t0, s.dt, s.n, s.steps
	st.x = append(st.x[:0], s.state...)
}

// memoryStale says why the kept memory does not describe the Sim's
// current state: "" when it does, "dt" when only the step differs, and
// "state" when something stepped or set the state since.
func (s *Sim) memoryStale(p *coupledPlan) string {
	st := &p.stamp
	if st.steps != s.steps || len(st.x) != len(s.state) {
		return "state"
	}
	for i, v := range st.x {
		if math.Float64bits(v) != math.Float64bits(s.state[i]) {
			return "state"
		}
	}
	if st.t0+float64(st.n)*st.dt != s.Time() {
		return "state"
	}
	if st.dt != s.dt {
		return "dt"
	}
	if st.t0 != s.t0 || st.n != s.n {
		return "state"
	}
	return ""
}

// strategyKey is the identity of a Run's strategy: its text, with nil
// (the default path) as Jacobi, which it equals bit for bit.
func strategyKey(st *coupling.Strategy) string {
	if st == nil {
		return coupling.Strategy{}.String()
	}
	return st.String()
}

// beginCoupling sets up CoSimulation.Coupling for a Run (after prepareRun):
// the kept plan when its strategy is the same and its memory describes
// the current state, a freshly compiled one otherwise. Memory restored
// from a checkpoint must be continued with the same strategy and step.
func (s *Sim) beginCoupling(st *coupling.Strategy) error {
	key := strategyKey(st)
	kept := s.lastPlan
	s.lastPlan = nil
	if kept != nil {
		why := s.memoryStale(kept)
		switch {
		case why == "state":
			kept = nil // the state moved on: the memory is for another one
		case kept.restored && (kept.key != key || why == "dt"):
			err := fmt.Errorf("graph: the checkpoint restored carries coupling memory for the step dt = %v; Settings.Dt is %v: continue with the same step, or call Sim.ResetCoupling to drop the memory", kept.stamp.dt, s.dt)
			if kept.key != key {
				err = fmt.Errorf("graph: the checkpoint restored carries the coupling memory of strategy %q; CoSimulation.Coupling is %q (%s): continue with the same strategy, or call Sim.ResetCoupling to drop the memory", kept.key, key, strategyDiff(kept.key, key))
			}
			// Undo prepareRun's rebase (to the same time), so that the
			// rejected Run changes nothing.
			s.t0, s.dt, s.n = kept.stamp.t0, kept.stamp.dt, kept.stamp.n
			s.lastPlan = kept
			return err
		case kept.key != key || why != "":
			kept = nil
		}
	}
	if st == nil {
		return nil
	}
	p := kept
	if p == nil {
		var err error
		if p, err = s.compileCoupling(st); err != nil {
			return err
		}
	}
	if err := s.allowRestep(st, p); err != nil {
		return err
	}
	p.failed, p.restored = false, false
	for i := range p.updates {
		p.updates[i] = 0
	}
	for _, g := range p.groups {
		g.stats = GroupStats{Name: g.name, Interface: len(g.u)}
		g.fallback0 = g.acc.Stats().Fallbacks
	}
	s.plan = p
	s.engine.unpacked = true
	return nil
}

// strategyDiff names the parts of two strategy texts that differ.
func strategyDiff(a, b string) string {
	pa, pb := strings.Split(a, ","), strings.Split(b, ",")
	var d []string
	if pa[0] != pb[0] {
		d = append(d, fmt.Sprintf("scheme %s ≠ %s", pa[0], pb[0]))
	}
	kv := func(parts []string) map[string]string {
		m := map[string]string{}
		for _, p := range parts[1:] {
			k, v, _ := strings.Cut(p, "=")
			m[k] = v
		}
		return m
	}
	ma, mb := kv(pa), kv(pb)
	var keys []string
	for _, p := range append(pa[1:], pb[1:]...) {
		k, _, _ := strings.Cut(p, "=")
		if !containsString(keys, k) {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		va, ina := ma[k]
		vb, inb := mb[k]
		switch {
		case !inb:
			d = append(d, fmt.Sprintf("%s=%s only in the checkpoint", k, va))
		case !ina:
			d = append(d, fmt.Sprintf("%s=%s only in the run", k, vb))
		case va != vb:
			d = append(d, fmt.Sprintf("%s %s ≠ %s", k, va, vb))
		}
	}
	return strings.Join(d, "; ")
}

func containsString(xs []string, v string) bool {
	for _, x := range xs {
		if x == v {
			return true
		}
	}
	return false
}

// endCoupling fills the Run's coupling statistics and keeps the plan, with
// its memory, for the next Run (unless a step failed half-way).
func (s *Sim) endCoupling(res *Result) {
	p := s.plan
	s.plan = nil
	s.engine.unpacked = false
	cs := &CouplingStats{Strategy: p.name, Updates: map[string]int64{}}
	for _, i := range s.stateful {
		cs.Updates[s.nodes[i].name] = p.updates[i]
	}
	for _, g := range p.groups {
		cs.Groups = append(cs.Groups, g.stats)
	}
	res.Coupling = cs
	if !p.failed {
		s.stampPlan(p)
		s.lastPlan = p
	}
}

// ResetCoupling drops the coupling memory the Sim keeps between Runs (the
// linear predictor's history, Aitken's factor, IQN-ILS's reused columns),
// also one restored from a checkpoint: the next coupled Run starts fresh,
// with any strategy.
func (s *Sim) ResetCoupling() { s.lastPlan = nil }

// CouplingCheckpoint is the cross-step memory of a coupled run in a
// Checkpoint: the strategy it belongs to and, for the Iterative scheme,
// each group's predictor history and accelerator memory. It is plain data.
type CouplingCheckpoint struct {
	// Strategy is the strategy's text (coupling.Strategy.String); a
	// restored checkpoint continues only under the same one.
	Strategy string
	// Groups are the iterated groups, in strategy order.
	Groups []GroupCheckpoint
}

// GroupCheckpoint is one iterated group's memory.
type GroupCheckpoint struct {
	Name string
	// Prev is the interface at the start of the last step, the linear
	// predictor's u_{n−1} for the next one; nil before the first step.
	Prev []float64
	// Accel is the accelerator's memory.
	Accel coupling.AccelState
}

// couplingCheckpoint exports the kept memory when it describes the
// current state, nil otherwise.
func (s *Sim) couplingCheckpoint() *CouplingCheckpoint {
	p := s.lastPlan
	if p == nil || s.memoryStale(p) != "" {
		return nil
	}
	c := &CouplingCheckpoint{Strategy: p.key}
	for _, g := range p.groups {
		gc := GroupCheckpoint{Name: g.name}
		if g.havePrev {
			gc.Prev = append([]float64{}, g.prev...)
		}
		if ss, ok := g.acc.(coupling.StateSaver); ok {
			gc.Accel = ss.SaveState()
		}
		c.Groups = append(c.Groups, gc)
	}
	return c
}

// restoreCoupling compiles the checkpoint's strategy for this graph and
// loads the memory into the plan, or lists why it cannot.
func (s *Sim) restoreCoupling(c *CouplingCheckpoint) (*coupledPlan, []string) {
	st, err := coupling.ParseStrategy(c.Strategy)
	if err != nil {
		return nil, []string{fmt.Sprintf("coupling strategy %q: %v", c.Strategy, err)}
	}
	p, err := s.compileCoupling(&st)
	if err != nil {
		return nil, []string{fmt.Sprintf("coupling strategy %q: %v", c.Strategy, err)}
	}
	if len(c.Groups) != len(p.groups) {
		return nil, []string{fmt.Sprintf("coupling: %d groups in the checkpoint, strategy %q has %d in this graph", len(c.Groups), c.Strategy, len(p.groups))}
	}
	var diffs []string
	for i, gc := range c.Groups {
		g := p.groups[i]
		where := fmt.Sprintf("coupling group %q", g.name)
		if gc.Name != g.name {
			diffs = append(diffs, fmt.Sprintf("coupling group %d is %q in the checkpoint, %q in the strategy", i, gc.Name, g.name))
			continue
		}
		if gc.Prev != nil {
			if len(gc.Prev) != len(g.prev) {
				diffs = append(diffs, fmt.Sprintf("%s: %d interface values in the checkpoint, %d in this graph", where, len(gc.Prev), len(g.prev)))
				continue
			}
			if j := nonFinite(gc.Prev); j >= 0 {
				diffs = append(diffs, fmt.Sprintf("%s: interface value %d is not finite", where, j))
				continue
			}
			copy(g.prev, gc.Prev)
			g.havePrev = true
		}
		ss, ok := g.acc.(coupling.StateSaver)
		if !ok {
			diffs = append(diffs, where+": the accelerator cannot restore its memory")
			continue
		}
		if err := ss.RestoreState(gc.Accel); err != nil {
			diffs = append(diffs, fmt.Sprintf("%s: %v", where, err))
		}
	}
	if len(diffs) > 0 {
		return nil, diffs
	}
	p.key, p.restored = st.String(), true
	return p, nil
}
