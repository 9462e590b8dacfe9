package graph

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/cosimgo/cosim/node"
)

// This file evaluates the stable steps nodes state (node.StepLimiter) and
// turns them into warnings before a run and hints after a failed one. It
// runs off the per-step path: once, before stepping.

// StepLimit is the stable step one node states in this graph, evaluated
// at the state the Sim holds.
type StepLimit struct {
	Node string  // the node's name
	Dt   float64 // the largest stable step, s (finite)
	Why  string  // the bound with its numbers, from the node
}

// StepWarning says that a step exceeds a node's stated stable step.
type StepWarning struct {
	StepLimit
	Step float64 // the step that exceeds it, s
}

// String is the warning as cosim run prints it: node, limit, step and
// what to do.
func (w StepWarning) String() string {
	return fmt.Sprintf("node %s: dt = %s s exceeds its explicit stable step %s s (%s): fixed-step co-simulation "+
		"will likely grow without bound; use dt < %s s",
		w.Node, fmtNum(w.Step), fmtNum(w.Dt), w.Why, fmtNum(w.Dt))
}

// fmtNum formats a step or a limit in messages, to 3 significant digits.
func fmtNum(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) }

// StableSteps evaluates, at the current state and time, the stable step
// of every node that states one ([node.StepLimiter], found through
// wrappers with node.As), in node order; nodes whose limit is +Inf are
// left out. Outputs are evaluated first so that every node sees its
// inputs, exactly as the next step will. A node that panics is reported
// as an error naming it; a NaN limit, and a limit of zero or below (a
// step no run could take), is ignored: the node could not tell.
func (s *Sim) StableSteps() (limits []StepLimit, err error) {
	t := s.Time()
	lims := s.limiters()
	if len(lims) == 0 {
		return nil, nil
	}
	if !s.outputsFresh {
		if err := s.outputsPerNode(t); err != nil {
			return nil, err
		}
		s.outputsFresh = true
	}
	for _, lr := range lims {
		c := &s.nodes[lr.i]
		l, err := s.stableStep(c, lr.sl, t)
		if err != nil {
			return limits, err
		}
		if l.Dt > 0 && !math.IsInf(l.Dt, 1) && !math.IsNaN(l.Dt) {
			limits = append(limits, StepLimit{Node: c.name, Dt: l.Dt, Why: l.Why})
		}
	}
	return limits, nil
}

// stableStep gathers c's inputs and asks it for its limit, turning a
// panic into an error naming the node.
func (s *Sim) stableStep(c *cnode, sl node.StepLimiter, t float64) (l node.StepLimit, err error) {
	defer s.recoverNode(c.name, t, &err)
	s.applyGathers(int(c.g0), int(c.g1))
	return sl.StableStepAt(t, s.state[c.x0:c.x1], s.inputsOf(c)), nil
}

// StepWarnings returns a warning for every node whose stated stable step
// (StableSteps, at the current state) is smaller than dt, in node order;
// nil when dt is within every limit. Call it before Run with the run's
// step: cosim run prints them. An error evaluating the limits is
// returned with the warnings found so far.
//
// It is StableSteps filtered by dt, but a node.StepBounder is asked for
// its bound first and for its message (StableStepAt) only when dt
// exceeds the bound, since Run calls StepWarnings at every start.
func (s *Sim) StepWarnings(dt float64) ([]StepWarning, error) {
	t := s.Time()
	var ws []StepWarning
	lims := s.limiters()
	if len(lims) > 0 && !s.outputsFresh {
		// Only the outputs the limiters read (the bodies' marker
		// fields), not every output of the graph.
		for _, l := range s.limiterSources() {
			if err := s.runNodes(phaseOutputs, l, t, 0); err != nil {
				return nil, err
			}
		}
	}
	// A family whose kernel bounds its rows (node.BatchStepBounder) is
	// asked once; its rows are asked one by one only when that bound is
	// below dt. A row's bound is at least the family's, so none of the
	// skipped rows would have warned.
	for k := range s.limFams {
		lf := &s.limFams[k]
		b, ok := s.familyBound(lf, t)
		lf.skip = ok && !(dt > b)
	}
	for _, lr := range lims {
		if lr.fam >= 0 && s.limFams[lr.fam].skip {
			continue
		}
		c := &s.nodes[lr.i]
		if lr.sb != nil {
			d, err := s.stableDt(c, lr.sb, t)
			if err != nil {
				return ws, err
			}
			if !(dt > d) {
				continue
			}
		}
		l, err := s.stableStep(c, lr.sl, t)
		if err != nil {
			return ws, err
		}
		if l.Dt > 0 && !math.IsInf(l.Dt, 1) && !math.IsNaN(l.Dt) && dt > l.Dt {
			ws = append(ws, StepWarning{StepLimit: StepLimit{Node: c.name, Dt: l.Dt, Why: l.Why}, Step: dt})
		}
	}
	return ws, nil
}

// limRef is a node that states a stable step: its index, its
// node.StepLimiter, its node.StepBounder (nil: none) and the index in
// Sim.limFams of its family (−1: none).
type limRef struct {
	i   int32
	sl  node.StepLimiter
	sb  node.StepBounder
	fam int32
}

// limFam is a family of limiters whose kernel bounds them all in one
// call (node.BatchStepBounder). args and in are its call's arguments,
// kept so that StepWarnings allocates nothing for it; skip is whether
// the last StepWarnings found its bound within the step.
type limFam struct {
	f    *family
	sb   node.BatchStepBounder
	ins  []famInput
	args node.BatchArgs
	in   []node.Strided
	skip bool
}

// limiters returns the nodes that state a stable step, in node order,
// found once (node.As through wrappers for every node is most of what a
// large graph's StepWarnings would otherwise cost at every Run), and
// sets Sim.limFams.
func (s *Sim) limiters() []limRef {
	if s.lims != nil {
		return s.lims
	}
	s.lims = []limRef{}
	var at []int32 // node index → index in s.lims + 1 (0: not a limiter), for the families' rows
	for i := range s.nodes {
		n := s.nodes[i].n
		if sl, ok := node.As[node.StepLimiter](n); ok {
			sb, _ := node.As[node.StepBounder](n)
			s.lims = append(s.lims, limRef{i: int32(i), sl: sl, sb: sb, fam: -1})
		}
	}
	for _, f := range s.engine.families {
		fb, ok := f.batch.(node.BatchStepBounder)
		if !ok {
			continue
		}
		if at == nil {
			at = make([]int32, len(s.nodes))
			for k, lr := range s.lims {
				at[lr.i] = int32(k) + 1
			}
		}
		// The kernel reads each input as one view, as the per-node
		// gathers leave it in Sim.state, Sim.outputs or a default: not summed,
		// not in engine.packed (written only during steps).
		ins := f.in
		if f.inFull != nil {
			ins = f.inFull
		}
		ok = true
		for _, fi := range ins {
			ok = ok && len(fi.terms) == 1 && fi.terms[0].buf != bufPacked
		}
		for _, r := range f.rows {
			ok = ok && at[r] > 0 && s.lims[at[r]-1].sb != nil
		}
		if !ok {
			continue
		}
		for _, r := range f.rows {
			s.lims[at[r]-1].fam = int32(len(s.limFams))
		}
		s.limFams = append(s.limFams, limFam{f: f, sb: fb, ins: ins, in: make([]node.Strided, len(ins))})
	}
	return s.lims
}

// familyBound is the bound lf's kernel states for all its rows at the
// current state and time. It reports false when the kernel panicked: the
// rows are then asked one by one, which names the node.
func (s *Sim) familyBound(lf *limFam, t float64) (b float64, ok bool) {
	defer func() {
		if recover() != nil {
			b, ok = 0, false
		}
	}()
	f := lf.f
	for k := range lf.ins {
		lf.in[k] = s.engine.termView(&lf.ins[k].terms[0])
	}
	lf.args = node.BatchArgs{T: t, Lo: 0, Hi: len(f.rows), X: node.Strided{Buf: s.state, Off: f.x0, Stride: f.xs}, In: lf.in, Present: f.present}
	return lf.sb.StableDt(&lf.args), true
}

// stableDt is stableStep for a node.StepBounder's bound alone.
func (s *Sim) stableDt(c *cnode, sb node.StepBounder, t float64) (dt float64, err error) {
	defer s.recoverNode(c.name, t, &err)
	s.applyGathers(int(c.g0), int(c.g1))
	return sb.StableDtAt(t, s.state[c.x0:c.x1], s.inputsOf(c)), nil
}

// StepHintError is a run error (a non-finite value, typically) that came
// with steps exceeding stated stable limits: Error adds the hint to the
// cause's message, and Unwrap returns the cause, so errors.Is and
// errors.As see through it (a *node.StateError stays reachable).
type StepHintError struct {
	Err      error
	Warnings []StepWarning
}

func (e *StepHintError) Error() string {
	var b strings.Builder
	b.WriteString(e.Err.Error())
	for i, w := range e.Warnings {
		if i == 0 {
			b.WriteString(" (likely explicit instability: ")
		} else {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "dt = %s s exceeds the stable step %s s of node %s, %s",
			fmtNum(w.Step), fmtNum(w.Dt), w.Node, w.Why)
	}
	if len(e.Warnings) > 0 {
		b.WriteString(")")
	}
	return b.String()
}

func (e *StepHintError) Unwrap() error { return e.Err }

// WithStepHint returns err with the hint of ws when err reports a
// non-finite value (wraps node.ErrNonFinite) and ws is not empty: the
// value most likely blew up because the step exceeds those limits.
// Otherwise it returns err unchanged.
func WithStepHint(err error, ws []StepWarning) error {
	var hinted *StepHintError
	if err == nil || len(ws) == 0 || !errors.Is(err, node.ErrNonFinite) || errors.As(err, &hinted) {
		return err
	}
	return &StepHintError{Err: err, Warnings: ws}
}

// limiterSources returns, per output level, the nodes whose outputs the
// step limiters read, directly or through other outputs (computed once
// per Sim: the wiring does not change after Build).
func (s *Sim) limiterSources() [][]int32 {
	if s.limSrc != nil {
		return s.limSrc
	}
	owner := func(off int) int { // the node whose outputs hold Sim.outputs[off]
		return sort.Search(len(s.nodes), func(i int) bool { return int(s.nodes[i].y1) > off })
	}
	need := make([]bool, len(s.nodes))
	var stack []int
	push := func(i int) {
		c := &s.nodes[i]
		for gi := c.g0; gi < c.g1; gi++ {
			if g := &s.gathers[gi]; g.fromY {
				stack = append(stack, owner(g.src()))
			}
		}
	}
	for _, lr := range s.limiters() {
		push(int(lr.i))
	}
	for len(stack) > 0 {
		j := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !need[j] {
			need[j] = true
			push(j)
		}
	}
	s.limSrc = make([][]int32, len(s.levels))
	for l, ns := range s.levels {
		s.limSrc[l] = []int32{}
		for _, i := range ns {
			if need[i] {
				s.limSrc[l] = append(s.limSrc[l], i)
			}
		}
	}
	return s.limSrc
}
