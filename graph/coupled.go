package graph

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/node"
)

// This file compiles a coupling.Strategy into an execution plan (names
// resolved to node indices, every buffer sized) and executes it. The
// default path (Settings.Coupling nil) never reaches it.

// phaseHeld updates a node with the inputs already in Sim.u (no gather):
// the group iteration writes the interface iterate there itself.
const phaseHeld = phaseUpdate + 1

// Errors of coupled runs, for errors.Is.
var (
	// ErrOverlap: a node is in two iterated groups.
	ErrOverlap = errors.New("coupling groups overlap")
	// ErrCouplingName: a strategy names a node the graph does not have,
	// or one that cannot take the role (a stateless node in an update
	// order or with a rate).
	ErrCouplingName = errors.New("bad node in coupling strategy")
)

// ConvergenceError reports a group iteration that did not converge
// within its limit under the coupling.Stop policy. The state is the one
// at the start of the failing step. errors.Is(err, coupling.ErrNotConverged)
// holds.
type ConvergenceError struct {
	Group      string
	Step       int     // the failing step
	Time       float64 // its start time
	Iterations int
	Residual   float64 // max |G(u)_i − u_i| of the last iterate
}

func (e *ConvergenceError) Error() string {
	return fmt.Sprintf("graph: coupling group %q: step %d at t=%v: not converged after %d iterations (residual %v)", e.Group, e.Step, e.Time, e.Iterations, e.Residual)
}

func (e *ConvergenceError) Unwrap() error { return coupling.ErrNotConverged }

// CouplingStats describes a Run with Settings.Coupling.
type CouplingStats struct {
	// Strategy is the strategy's name (coupling.Strategy.Name).
	Strategy string
	// Updates counts the calls of Update per node during the Run, by node
	// name (stateless nodes are absent). A subcycling node counts each
	// substep; a group member each iteration.
	Updates map[string]int64
	// Groups has the statistics of every iterated group, in strategy
	// order.
	Groups []GroupStats
}

// GroupStats describes the iteration of one group over a Run. An
// iteration is one evaluation of G (one update of every member).
type GroupStats struct {
	Name           string
	Steps          int     // steps iterated
	Iterations     int64   // total over the Run
	MaxIterations  int     // most in one step
	LastIterations int     // in the last step
	LastResidual   float64 // max |G(u)_i − u_i| of the last accepted iterate
	NonConverged   int     // steps accepted without convergence (coupling.Accept)
	Fallbacks      int     // IQN-ILS iterations that fell back to relaxation
	Interface      int     // number of interface values iterated
}

// Stage is one step of a Schedule: an operation on a list of nodes, or a
// loop (iterate, subcycle) over a Body of stages.
type Stage struct {
	Op    string   // "outputs", "update", "iterate" or "subcycle"
	Nodes []string // in evaluation order; nodes of one stage run concurrently
	At    string   // the time the stage evaluates at, e.g. "t_n", "t_n → t_n+dt"
	Note  string   // what the nodes read
	Body  []Stage  // the stages repeated by iterate and subcycle
}

// Schedule is what a step does under a coupling strategy, stage by stage,
// for printing.
type Schedule struct {
	Strategy string
	Stages   []Stage
}

// String renders the schedule, one numbered stage a line.
func (sc *Schedule) String() string {
	var b strings.Builder
	b.WriteString("step t_n → t_n+dt, " + sc.Strategy + "\n")
	var walk func(st []Stage, prefix, indent string)
	walk = func(st []Stage, prefix, indent string) {
		for i, s := range st {
			num := fmt.Sprintf("%s%d", prefix, i+1)
			fmt.Fprintf(&b, "%s%s. %s", indent, num, s.Op)
			if s.At != "" {
				fmt.Fprintf(&b, " at %s", s.At)
			}
			if len(s.Nodes) > 0 {
				fmt.Fprintf(&b, ": %s", strings.Join(s.Nodes, ", "))
			}
			if s.Note != "" {
				fmt.Fprintf(&b, " (%s)", s.Note)
			}
			b.WriteString("\n")
			walk(s.Body, num+".", indent+"   ")
		}
	}
	walk(sc.Stages, "", "  ")
	return b.String()
}

// Schedule describes what one step does under set.Coupling (Jacobi when
// nil), with node names: the same plan Run compiles, so it reports the
// order Run executes.
func (s *Sim) Schedule(set Settings) (*Schedule, error) {
	if set.Coupling == nil {
		return &Schedule{Strategy: "jacobi (default)", Stages: s.jacobiStages()}, nil
	}
	p, err := s.compileCoupling(set.Coupling)
	if err != nil {
		return nil, err
	}
	return &p.sched, nil
}

const (
	planMultirate = iota // Jacobi is multirate with one class of rate 1
	planGaussSeidel
	planIterative
)

type coupledPlan struct {
	kind    int
	name    string
	key     string    // the strategy's text (coupling.Strategy.String), its identity
	xv      []float64 // the state view nodes read within a step
	updates []int64   // Update calls per node
	sched   Schedule

	// Gauss–Seidel
	stages []gsStage

	// multirate / Jacobi; with iterative, the classes of the nodes outside
	// groups
	classes []rateClass
	linear  bool

	// iterative
	groups []*cgroup

	// Cross-step memory kept between Runs (coupled_memory.go).
	failed   bool // a step failed during the Run: the memory is not kept
	restored bool // restored from a checkpoint and not yet continued
	stamp    clockStamp
}

type gsStage struct {
	reeval []outBatch // output nodes to re-evaluate first, in order
	nodes  []int32
}

// outBatch is a set of independent output nodes evaluated together, at
// t_n or (end) at t_n+dt.
type outBatch struct {
	nodes []int32
	end   bool
}

type rateClass struct {
	rate   int
	nodes  []int32
	reeval [][]int32 // upstream output nodes, re-evaluated every substep
	slower []int32   // stateful nodes of slower classes (interpolated)
}

// ispan is one interface input of a group: a range of Sim.u and the
// gathers that fill it.
type ispan struct {
	node   int32
	u0, u1 int
	g0, g1 int
}

type cgroup struct {
	name      string
	members   []int32
	stateful  []int32
	classes   []gclass // stateful members by rate, ascending; classes[0] reads the interface
	linear    bool
	outLevels [][]int32
	saveNodes []int32 // output nodes the iteration overwrites: restored after it
	ysave     []float64
	spans     []ispan
	it        coupling.Iteration
	acc       coupling.Accelerator
	u, g      []float64 // iterate and its image
	next      []float64
	ui        []float64 // the interface interpolated for a substep of classes[0]
	now, prev []float64 // interface at t_n and t_{n−1}
	havePrev  bool
	stats     GroupStats
	fallback0 int // the accelerator's fallbacks when the Run started
}

// gclass is the members of one rate in a group. The first class reads
// the interface iterate; the others re-read their upstream outputs from
// the view of every substep.
type gclass struct {
	rate   int
	nodes  []int32
	slower []int32   // members of slower classes (seen at the iterate's end-of-step state)
	reeval [][]int32 // output nodes upstream of the class (not for classes[0])
}

// analysis holds the data-flow facts the plans are built from.
type analysis struct {
	s      *Sim
	level  []int     // feedthrough level of output nodes
	readsY [][]int32 // output nodes each node gathers from
	readsX [][]int32 // nodes whose state each node gathers
}

func (s *Sim) analyse() *analysis {
	a := &analysis{s: s, level: make([]int, len(s.nodes)), readsY: make([][]int32, len(s.nodes)), readsX: make([][]int32, len(s.nodes))}
	xOwner := make([]int32, len(s.x))
	yOwner := make([]int32, len(s.y))
	for i := range s.nodes {
		c := &s.nodes[i]
		for j := c.x0; j < c.x1; j++ {
			xOwner[j] = int32(i)
		}
		for j := c.y0; j < c.y1; j++ {
			yOwner[j] = int32(i)
		}
	}
	for l, lv := range s.levels {
		for _, i := range lv {
			a.level[i] = l
		}
	}
	add := func(list []int32, v int32) []int32 {
		for _, w := range list {
			if w == v {
				return list
			}
		}
		return append(list, v)
	}
	for i := range s.nodes {
		c := &s.nodes[i]
		for gi := c.g0; gi < c.g1; gi++ {
			g := &s.gathers[gi]
			if g.fromY {
				a.readsY[i] = add(a.readsY[i], yOwner[g.src])
			} else {
				a.readsX[i] = add(a.readsX[i], xOwner[g.src])
			}
		}
	}
	return a
}

// sourceNode is the node a gather reads.
func (s *Sim) sourceNode(g *gather) int32 {
	for i := range s.nodes {
		c := &s.nodes[i]
		if g.fromY && g.src >= c.y0 && g.src < c.y1 || !g.fromY && g.src >= c.x0 && g.src < c.x1 {
			return int32(i)
		}
	}
	return -1
}

// upstream returns the output nodes targets read, directly or through
// feedthrough nodes, as a set.
func (a *analysis) upstream(targets []int32) []bool {
	in := make([]bool, len(a.s.nodes))
	var visit func(d int32)
	visit = func(d int32) {
		for _, o := range a.readsY[d] {
			if !in[o] {
				in[o] = true
				if a.s.nodes[o].feedthrough {
					visit(o)
				}
			}
		}
	}
	for _, d := range targets {
		visit(d)
	}
	return in
}

// affected returns the output nodes whose values depend on the state of
// the changed nodes.
func (a *analysis) affected(changed []bool) []bool {
	s := a.s
	aff := make([]bool, len(s.nodes))
	for _, lv := range s.levels { // dependencies come first
		for _, o := range lv {
			if changed[o] {
				aff[o] = true
				continue
			}
			if !s.nodes[o].feedthrough {
				continue
			}
			for _, x := range a.readsX[o] {
				aff[o] = aff[o] || changed[x]
			}
			for _, y := range a.readsY[o] {
				aff[o] = aff[o] || aff[y]
			}
		}
	}
	return aff
}

// byLevel lists the output nodes in set in evaluation order, by level.
func (a *analysis) byLevel(set []bool) [][]int32 {
	var out [][]int32
	for _, lv := range a.s.levels {
		var l []int32
		for _, o := range lv {
			if set[o] {
				l = append(l, o)
			}
		}
		if len(l) > 0 {
			out = append(out, l)
		}
	}
	return out
}

func (s *Sim) names(idx []int32) []string {
	out := make([]string, len(idx))
	for k, i := range idx {
		out[k] = s.nodes[i].name
	}
	return out
}

func (s *Sim) jacobiStages() []Stage {
	var st []Stage
	for _, l := range s.levels {
		st = append(st, Stage{Op: "outputs", At: "t_n", Nodes: s.names(l)})
	}
	if len(s.stateful) > 0 {
		st = append(st, Stage{Op: "update", At: "t_n → t_n+dt", Nodes: s.names(s.stateful), Note: "inputs at t_n"})
	}
	return st
}

// lookup resolves a node name of a strategy.
func (s *Sim) lookup(what, name string) (int32, error) {
	i, ok := s.index[name]
	if !ok {
		return -1, fmt.Errorf("graph: %s: %w: no node %q%s", what, ErrCouplingName, name, node.DidYouMean(name, s.nodeNames()))
	}
	return int32(i), nil
}

func (s *Sim) lookupStateful(what, name string) (int32, error) {
	i, err := s.lookup(what, name)
	if err != nil {
		return -1, err
	}
	if c := &s.nodes[i]; c.x1 == c.x0 {
		return -1, fmt.Errorf("graph: %s: %w: node %q (%s) has no state", what, ErrCouplingName, name, c.spec.Type)
	}
	return i, nil
}

// compileCoupling turns a strategy into a plan: every name resolved,
// every buffer allocated.
func (s *Sim) compileCoupling(st *coupling.Strategy) (*coupledPlan, error) {
	if err := st.Validate(); err != nil {
		return nil, fmt.Errorf("graph: %w", err)
	}
	a := s.analyse()
	p := &coupledPlan{name: st.Name(), key: st.String(), xv: make([]float64, len(s.x)), updates: make([]int64, len(s.nodes))}
	p.sched.Strategy = st.String()
	var err error
	switch st.Scheme {
	case coupling.GaussSeidel:
		p.kind = planGaussSeidel
		err = s.compileGS(p, a, st)
	case coupling.Iterative:
		p.kind = planIterative
		err = s.compileIterative(p, a, st)
	default:
		p.kind = planMultirate
		err = s.compileMultirate(p, a, st)
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

func (s *Sim) compileGS(p *coupledPlan, a *analysis, st *coupling.Strategy) error {
	listed := make([]bool, len(s.nodes))
	var stages [][]int32
	for _, names := range st.Order {
		var stage []int32
		for _, n := range names {
			i, err := s.lookupStateful("gauss-seidel order", n)
			if err != nil {
				return err
			}
			if listed[i] {
				return fmt.Errorf("graph: gauss-seidel order: %w: node %q is listed twice", ErrCouplingName, n)
			}
			listed[i] = true
			stage = append(stage, i)
		}
		if len(stage) > 0 {
			stages = append(stages, stage)
		}
	}
	var rest []int32
	for _, i := range s.stateful {
		if !listed[i] {
			if st.Order == nil {
				stages = append(stages, []int32{i})
			} else {
				rest = append(rest, i)
			}
		}
	}
	if len(rest) > 0 {
		stages = append(stages, rest)
	}
	changed := make([]bool, len(s.nodes))
	sched := s.jacobiStages()
	sched = sched[:len(s.levels)]
	for k, nodes := range stages {
		var g gsStage
		g.nodes = nodes
		if k > 0 {
			up := a.upstream(nodes)
			aff := a.affected(changed)
			for i := range up {
				up[i] = up[i] && aff[i]
			}
			for _, l := range a.byLevel(up) {
				// An output node is evaluated at the time of its own
				// state: t_n+dt for a stateful node an earlier stage
				// updated, t_n for the others (connectors, whose readers
				// step from t_n).
				var now, end []int32
				for _, i := range l {
					if changed[i] {
						end = append(end, i)
					} else {
						now = append(now, i)
					}
				}
				if len(now) > 0 {
					g.reeval = append(g.reeval, outBatch{nodes: now})
					sched = append(sched, Stage{Op: "outputs", At: "t_n", Nodes: s.names(now), Note: fmt.Sprintf("re-evaluated from the state after stage %d", k)})
				}
				if len(end) > 0 {
					g.reeval = append(g.reeval, outBatch{nodes: end, end: true})
					sched = append(sched, Stage{Op: "outputs", At: "t_n+dt", Nodes: s.names(end), Note: fmt.Sprintf("re-evaluated from their own state updated by stages 1–%d", k)})
				}
			}
		}
		for _, i := range nodes {
			changed[i] = true
		}
		note := "reads t_n state"
		if k > 0 {
			note = fmt.Sprintf("stage %d, reads the state updated by stages 1–%d", k+1, k)
		} else {
			note = "stage 1, reads t_n state"
		}
		sched = append(sched, Stage{Op: "update", At: "t_n → t_n+dt", Nodes: s.names(nodes), Note: note})
		p.stages = append(p.stages, g)
	}
	p.sched.Stages = sched
	return nil
}

func (s *Sim) compileMultirate(p *coupledPlan, a *analysis, st *coupling.Strategy) error {
	rate, err := s.resolveRates(st)
	if err != nil {
		return err
	}
	p.linear = st.Interpolation == coupling.Linear
	var stages []Stage
	p.classes, stages = s.rateClasses(a, s.stateful, rate, p.linear, "inputs at t_n")
	p.sched.Stages = append(s.jacobiStages()[:len(s.levels)], stages...)
	return nil
}

// resolveRates returns the rate of every node: Strategy.Rates, 1 for the
// other stateful nodes, 0 for stateless ones.
func (s *Sim) resolveRates(st *coupling.Strategy) ([]int, error) {
	rate := make([]int, len(s.nodes))
	for _, i := range s.stateful {
		rate[i] = 1
	}
	names := make([]string, 0, len(st.Rates))
	for n := range st.Rates {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		i, err := s.lookupStateful("rates", n)
		if err != nil {
			return nil, err
		}
		rate[i] = st.Rates[n]
	}
	return rate, nil
}

// distinctRates returns the rates of nodes, each once, ascending.
func distinctRates(nodes []int32, rate []int) []int {
	var rates []int
	for _, i := range nodes {
		if !containsInt(rates, rate[i]) {
			rates = append(rates, rate[i])
		}
	}
	sort.Ints(rates)
	return rates
}

// ofRate returns the nodes whose rate satisfies keep, in node order.
func ofRate(nodes []int32, rate []int, keep func(int) bool) []int32 {
	var out []int32
	for _, i := range nodes {
		if keep(rate[i]) {
			out = append(out, i)
		}
	}
	return out
}

// rateClasses splits nodes into the classes of a multirate Jacobi step,
// slowest first: each with the stateful nodes of lower rate (of the whole
// graph, seen held or interpolated) and, above rate 1, the output nodes
// upstream of it. It also returns the stages a schedule shows.
func (s *Sim) rateClasses(a *analysis, nodes []int32, rate []int, linear bool, note string) ([]rateClass, []Stage) {
	var classes []rateClass
	var sched []Stage
	for _, r := range distinctRates(nodes, rate) {
		rc := rateClass{rate: r,
			nodes:  ofRate(nodes, rate, func(q int) bool { return q == r }),
			slower: ofRate(s.stateful, rate, func(q int) bool { return q < r })}
		if r == 1 {
			sched = append(sched, Stage{Op: "update", At: "t_n → t_n+dt", Nodes: s.names(rc.nodes), Note: note})
		} else {
			rc.reeval = a.byLevel(a.upstream(rc.nodes))
			seen := "held at t_n"
			if linear {
				seen = "linearly interpolated between t_n and t_n+dt"
			}
			var body []Stage
			for _, l := range rc.reeval {
				body = append(body, Stage{Op: "outputs", At: "t_n+j·h", Nodes: s.names(l)})
			}
			body = append(body, Stage{Op: "update", At: "t_n+j·h → t_n+(j+1)·h", Nodes: s.names(rc.nodes)})
			n := fmt.Sprintf("j = 0…%d, h = dt/%d; slower nodes %s, faster nodes at t_n", r-1, r, seen)
			if note != "inputs at t_n" {
				n = "outside groups; " + n
			}
			sched = append(sched, Stage{Op: "subcycle", Nodes: s.names(rc.nodes), Note: n, Body: body})
		}
		classes = append(classes, rc)
	}
	return classes, sched
}

func containsInt(xs []int, v int) bool {
	for _, x := range xs {
		if x == v {
			return true
		}
	}
	return false
}

func (s *Sim) compileIterative(p *coupledPlan, a *analysis, st *coupling.Strategy) error {
	groups := st.Groups
	if len(groups) == 0 {
		groups = []coupling.Group{{Name: "all", Nodes: s.nodeNames()}}
	}
	rate, err := s.resolveRates(st)
	if err != nil {
		return err
	}
	p.linear = st.Interpolation == coupling.Linear
	it := st.Iteration.Resolved()
	owner := make([]int, len(s.nodes))
	for i := range owner {
		owner[i] = -1
	}
	var iterate []Stage
	for gi, g := range groups {
		cg := &cgroup{name: g.Name, it: it, linear: p.linear, stats: GroupStats{Name: g.Name}}
		in := make([]bool, len(s.nodes))
		for _, n := range g.Nodes {
			i, err := s.lookup(fmt.Sprintf("group %q", g.Name), n)
			if err != nil {
				return err
			}
			if owner[i] >= 0 {
				if owner[i] == gi {
					return fmt.Errorf("graph: group %q: %w: node %q is listed twice", g.Name, ErrCouplingName, n)
				}
				return fmt.Errorf("graph: node %q is in coupling groups %q and %q: %w", n, groups[owner[i]].Name, g.Name, ErrOverlap)
			}
			owner[i] = gi
			in[i] = true
		}
		save := make([]bool, len(s.nodes))
		for i := range s.nodes {
			if !in[i] {
				continue
			}
			c := &s.nodes[i]
			cg.members = append(cg.members, int32(i))
			if c.x1 > c.x0 {
				cg.stateful = append(cg.stateful, int32(i))
			}
			save[i] = c.out != nil
		}
		for k, r := range distinctRates(cg.stateful, rate) {
			gc := gclass{rate: r, nodes: ofRate(cg.stateful, rate, func(q int) bool { return q == r })}
			if k > 0 {
				gc.slower = ofRate(cg.stateful, rate, func(q int) bool { return q < r })
				up := a.upstream(gc.nodes)
				gc.reeval = a.byLevel(up)
				for i, u := range up {
					save[i] = save[i] || u
				}
			}
			cg.classes = append(cg.classes, gc)
		}
		cg.outLevels = a.byLevel(in)
		nSave := 0
		for i := range s.nodes {
			if save[i] {
				cg.saveNodes = append(cg.saveNodes, int32(i))
				nSave += s.nodes[i].y1 - s.nodes[i].y0
			}
		}
		cg.ysave = make([]float64, nSave)
		// Interface: inputs of the slowest members with an edge from a
		// member (faster members gather theirs at every substep).
		var base []int32
		if len(cg.classes) > 0 {
			base = cg.classes[0].nodes
		}
		m := 0
		for _, i := range base {
			c := &s.nodes[i]
			for gi0 := c.g0; gi0 < c.g1; {
				gi1 := gi0
				inGroup := false
				for gi1 < c.g1 && s.gathers[gi1].dst == s.gathers[gi0].dst {
					if src := s.sourceNode(&s.gathers[gi1]); src >= 0 && in[src] {
						inGroup = true
					}
					gi1++
				}
				if inGroup {
					g := &s.gathers[gi0]
					cg.spans = append(cg.spans, ispan{node: i, u0: g.dst, u1: g.dst + g.n, g0: gi0, g1: gi1})
					m += g.n
				}
				gi0 = gi1
			}
		}
		cg.stats.Interface = m
		for _, v := range []*[]float64{&cg.u, &cg.g, &cg.next, &cg.ui, &cg.now, &cg.prev} {
			*v = make([]float64, m)
		}
		acc, err := coupling.NewAccelerator(it.Acceleration, m)
		if err != nil {
			return fmt.Errorf("graph: group %q: %w", g.Name, err)
		}
		cg.acc = acc
		p.groups = append(p.groups, cg)
		note := fmt.Sprintf("group %s, at most %d iterations, first iterate %s", g.Name, it.MaxIter, it.Predictor)
		iterate = append(iterate, Stage{Op: "iterate", Nodes: s.names(cg.members), Note: note, Body: s.groupStages(cg, it)})
	}
	var outside []int32
	for _, i := range s.stateful {
		if owner[i] < 0 {
			outside = append(outside, i)
		}
	}
	var outStages []Stage
	p.classes, outStages = s.rateClasses(a, outside, rate, p.linear, "outside groups: inputs at t_n")
	// Nodes outside groups of rate 1 update first (they read t_n values
	// only); subcycling ones after the groups, so that the outputs the
	// groups read at t_n are not overwritten by their substeps.
	sched := s.jacobiStages()[:len(s.levels)]
	if len(p.classes) > 0 && p.classes[0].rate == 1 {
		sched = append(sched, outStages[0])
		outStages = outStages[1:]
	}
	sched = append(sched, iterate...)
	p.sched.Stages = append(sched, outStages...)
	return nil
}

// groupStages is what one evaluation of a group's G does, for schedules.
func (s *Sim) groupStages(cg *cgroup, it coupling.Iteration) []Stage {
	var body []Stage
	for k, gc := range cg.classes {
		switch {
		case k == 0 && gc.rate == 1:
			body = append(body, Stage{Op: "update", At: "t_n → t_n+dt", Nodes: s.names(gc.nodes), Note: "from the t_n state; interface inputs held at the iterate u^k, other inputs at t_n"})
		case k == 0:
			seen := "held at the iterate u^k"
			if cg.linear {
				seen = "interpolated to t_n+(j+1)·h between u_n and the iterate u^k"
			}
			sub := []Stage{{Op: "update", At: "t_n+j·h → t_n+(j+1)·h", Nodes: s.names(gc.nodes)}}
			body = append(body, Stage{Op: "subcycle", Nodes: s.names(gc.nodes), Note: fmt.Sprintf("j = 0…%d, h = dt/%d, from the t_n state; interface inputs %s, other inputs at t_n", gc.rate-1, gc.rate, seen), Body: sub})
		default:
			seen := "at their trial end-of-step state"
			if cg.linear {
				seen = "interpolated to t_n+(j+1)·h between t_n and their trial end-of-step state"
			}
			var sub []Stage
			for _, l := range gc.reeval {
				sub = append(sub, Stage{Op: "outputs", At: "t_n+j·h", Nodes: s.names(l)})
			}
			sub = append(sub, Stage{Op: "update", At: "t_n+j·h → t_n+(j+1)·h", Nodes: s.names(gc.nodes)})
			body = append(body, Stage{Op: "subcycle", Nodes: s.names(gc.nodes), Note: fmt.Sprintf("j = 0…%d, h = dt/%d, from the t_n state; slower members %s, faster members and other nodes at t_n", gc.rate-1, gc.rate, seen), Body: sub})
		}
	}
	for _, l := range cg.outLevels {
		body = append(body, Stage{Op: "outputs", At: "t_n+dt", Nodes: s.names(l), Note: "from the trial state"})
	}
	var ifn []string
	for _, sp := range cg.spans {
		c := &s.nodes[sp.node]
		ifn = append(ifn, c.name+"."+c.spec.Inputs[inputIndex(c, sp.u0)].Name)
	}
	return append(body, Stage{Op: "gather", Nodes: ifn, Note: "G(u^k); stop when |G(u)−u| ≤ atol + rtol·|G(u)|, else u^{k+1} by " + it.Acceleration.Method.String()})
}

// inputIndex is the input of c whose slot starts at the absolute offset off.
func inputIndex(c *cnode, off int) int {
	for ii := range c.spec.Inputs {
		if c.u0+c.spec.InputLayout.Offset(ii) == off {
			return ii
		}
	}
	return -1
}

// coupledStep takes one step under the plan. As the default step, a
// failing step leaves the state at t_n.
func (s *Sim) coupledStep(t, dt float64, res *Result) error {
	p := s.cplan
	if !s.yFresh {
		if err := s.outputs(t); err != nil {
			return err
		}
		res.OutputEvals += int64(s.numOutputNodes())
	}
	xn := s.x
	copy(p.xv, xn)
	var err error
	switch p.kind {
	case planGaussSeidel:
		err = s.stepGS(p, t, dt, res)
	case planIterative:
		err = s.stepIterative(p, t, dt, res)
	default:
		err = s.stepMultirate(p, p.classes, t, dt, res)
	}
	s.x = xn
	s.yFresh = false
	if err != nil {
		// The step may have changed the groups' memory half-way.
		p.failed = true
		return err
	}
	s.x, s.xNext = s.xNext, s.x
	return nil
}

// endTime is t_n+dt, from the step count when dt is the current base.
func (s *Sim) endTime(t, dt float64) float64 {
	if s.dt == dt {
		return s.t0 + float64(s.n+1)*s.dt
	}
	return t + dt
}

func (s *Sim) count(p *coupledPlan, nodes []int32, res *Result) {
	for _, i := range nodes {
		p.updates[i]++
	}
	res.NodeUpdates += int64(len(nodes))
}

func (s *Sim) reevaluate(levels [][]int32, t float64, res *Result) error {
	for _, l := range levels {
		if err := s.run(phaseOutputs, l, t, 0); err != nil {
			return err
		}
		res.OutputEvals += int64(len(l))
	}
	return nil
}

// copyState copies the state slots of nodes from src to dst.
func (s *Sim) copyState(dst, src []float64, nodes []int32) {
	for _, i := range nodes {
		c := &s.nodes[i]
		copy(dst[c.x0:c.x1], src[c.x0:c.x1])
	}
}

func (s *Sim) stepGS(p *coupledPlan, t, dt float64, res *Result) error {
	s.x = p.xv
	t1 := s.endTime(t, dt)
	for _, g := range p.stages {
		for _, b := range g.reeval {
			at := t
			if b.end {
				at = t1
			}
			if err := s.run(phaseOutputs, b.nodes, at, 0); err != nil {
				return err
			}
			res.OutputEvals += int64(len(b.nodes))
		}
		if err := s.run(phaseUpdate, g.nodes, t, dt); err != nil {
			return err
		}
		s.count(p, g.nodes, res)
		s.copyState(p.xv, s.xNext, g.nodes)
	}
	return nil
}

// stepMultirate advances classes as a multirate Jacobi step: each class
// from t_n, slowest first, a subcycling class reading slower nodes held or
// interpolated (from their new state in s.xNext) and faster ones at t_n.
func (s *Sim) stepMultirate(p *coupledPlan, classes []rateClass, t, dt float64, res *Result) error {
	xn := s.x
	for _, rc := range classes {
		if rc.rate == 1 {
			if err := s.run(phaseUpdate, rc.nodes, t, dt); err != nil {
				return err
			}
			s.count(p, rc.nodes, res)
			continue
		}
		h := dt / float64(rc.rate)
		for j := 0; j < rc.rate; j++ {
			tj := t + float64(j)*h
			if p.linear && j > 0 {
				th := float64(j) / float64(rc.rate)
				for _, i := range rc.slower {
					c := &s.nodes[i]
					for k := c.x0; k < c.x1; k++ {
						p.xv[k] = xn[k] + th*(s.xNext[k]-xn[k])
					}
				}
			}
			s.x = p.xv
			err := s.reevaluate(rc.reeval, tj, res)
			if err == nil {
				err = s.run(phaseUpdate, rc.nodes, tj, h)
			}
			s.x = xn
			if err != nil {
				return err
			}
			s.count(p, rc.nodes, res)
			s.copyState(p.xv, s.xNext, rc.nodes)
		}
		// Later (faster) classes see this class as slower: restart its
		// view at t_n.
		s.copyState(p.xv, xn, rc.nodes)
		s.copyState(p.xv, xn, rc.slower)
	}
	return nil
}

func (s *Sim) stepIterative(p *coupledPlan, t, dt float64, res *Result) error {
	pre, post := p.classes, p.classes[len(p.classes):]
	if len(pre) > 0 && pre[0].rate == 1 {
		pre, post = pre[:1], pre[1:]
	} else {
		pre, post = nil, pre
	}
	if err := s.stepMultirate(p, pre, t, dt, res); err != nil {
		return err
	}
	t1 := s.endTime(t, dt)
	for _, g := range p.groups {
		if err := s.iterateGroup(p, g, t, t1, dt, res); err != nil {
			return err
		}
	}
	return s.stepMultirate(p, post, t, dt, res)
}

// iterateGroup iterates u^{k+1} = acc(u^k, G(u^k)) where G advances the
// group's stateful members from x_n with the interface inputs held at u
// and returns the interface inputs gathered at the resulting state (the
// members' outputs evaluated there at t_n+dt). Members of higher rates
// subcycle inside G (evalG).
func (s *Sim) iterateGroup(p *coupledPlan, g *cgroup, t, t1, dt float64, res *Result) error {
	xn := s.x
	var base []int32
	if len(g.classes) > 0 {
		base = g.classes[0].nodes
	}
	// Inputs at t_n (non-interface inputs keep them through the step).
	for _, i := range base {
		if err := s.gatherSafe(&s.nodes[i], t); err != nil {
			return err
		}
	}
	k := 0
	for _, i := range g.saveNodes {
		c := &s.nodes[i]
		k += copy(g.ysave[k:], s.y[c.y0:c.y1])
	}
	s.readSpans(g, g.now)
	var prev []float64
	if g.havePrev {
		prev = g.prev
	}
	g.it.Predictor.Predict(g.u, g.now, prev)
	g.prev, g.now = g.now, g.prev // g.prev: the interface at t_n from here on
	g.havePrev = true

	g.acc.Begin()
	iters, resid, converged := 0, 0.0, false
	var err error
	for {
		iters++
		if err = s.evalG(p, g, xn, t, t1, dt, res); err != nil {
			break
		}
		s.readSpans(g, g.g)
		converged, resid = coupling.Converged(g.u, g.g, g.it.ATol, g.it.RTol)
		if converged || iters >= g.it.MaxIter {
			break
		}
		g.acc.Next(g.next, g.u, g.g)
		g.u, g.next = g.next, g.u
	}
	g.acc.End()
	// Restore the view and the outputs other groups read.
	s.copyState(p.xv, xn, g.stateful)
	k = 0
	for _, i := range g.saveNodes {
		c := &s.nodes[i]
		k += copy(s.y[c.y0:c.y1], g.ysave[k:])
	}
	if err != nil {
		return err
	}
	st := &g.stats
	st.Steps++
	st.Iterations += int64(iters)
	st.MaxIterations = max(st.MaxIterations, iters)
	st.LastIterations = iters
	st.LastResidual = resid
	st.Fallbacks = g.acc.Stats().Fallbacks - g.fallback0
	if s.onGroupStep != nil {
		s.onGroupStep(GroupStep{Group: g.name, Step: s.steps, Time: t, Iterations: iters, Residual: resid, Converged: converged})
	}
	if !converged {
		if g.it.OnFail != coupling.Accept {
			return &ConvergenceError{Group: g.name, Step: s.steps, Time: t, Iterations: iters, Residual: resid}
		}
		st.NonConverged++
	}
	return nil
}

// evalG evaluates G(u^k): the group's classes advance from x_n, slowest
// first, into s.xNext; the first class with the interface inputs held at
// u^k (or, subcycling under Linear, interpolated between u_n and u^k to
// the end of each substep), each later class in substeps reading its
// upstream outputs re-evaluated from a view where the slower members are
// at their new (trial) state, held or interpolated likewise. Then the
// members' outputs are evaluated from the trial state at t_n+dt and the
// interface inputs gathered there, into Sim.u. s.x is xn on return.
func (s *Sim) evalG(p *coupledPlan, g *cgroup, xn []float64, t, t1, dt float64, res *Result) error {
	s.copyState(p.xv, xn, g.stateful)
	for k := range g.classes {
		gc := &g.classes[k]
		h := dt / float64(gc.rate)
		for j := 0; j < gc.rate; j++ {
			tj := t + float64(j)*h
			theta := 1.0
			if g.linear {
				theta = float64(j+1) / float64(gc.rate)
			}
			var err error
			if k == 0 {
				if theta == 1 {
					s.writeSpans(g, g.u)
				} else {
					for i, un := range g.prev {
						g.ui[i] = un + theta*(g.u[i]-un)
					}
					s.writeSpans(g, g.ui)
				}
				s.x = p.xv
				err = s.run(phaseHeld, gc.nodes, tj, h)
			} else {
				for _, i := range gc.slower {
					c := &s.nodes[i]
					if theta == 1 {
						copy(p.xv[c.x0:c.x1], s.xNext[c.x0:c.x1])
						continue
					}
					for q := c.x0; q < c.x1; q++ {
						p.xv[q] = xn[q] + theta*(s.xNext[q]-xn[q])
					}
				}
				s.x = p.xv
				err = s.reevaluate(gc.reeval, tj, res)
				if err == nil {
					err = s.run(phaseUpdate, gc.nodes, tj, h)
				}
			}
			s.x = xn
			if err != nil {
				return err
			}
			s.count(p, gc.nodes, res)
			s.copyState(p.xv, s.xNext, gc.nodes)
		}
	}
	s.copyState(p.xv, s.xNext, g.stateful)
	s.x = p.xv
	err := s.reevaluate(g.outLevels, t1, res)
	if err == nil {
		err = s.gatherSpans(g, t1)
	}
	s.x = xn
	return err
}

func (s *Sim) readSpans(g *cgroup, dst []float64) {
	k := 0
	for _, sp := range g.spans {
		k += copy(dst[k:], s.u[sp.u0:sp.u1])
	}
}

func (s *Sim) writeSpans(g *cgroup, src []float64) {
	k := 0
	for _, sp := range g.spans {
		k += copy(s.u[sp.u0:sp.u1], src[k:])
	}
}

// gatherSpans gathers the group's interface inputs from the current
// state and outputs, as gather does for a whole node.
func (s *Sim) gatherSpans(g *cgroup, t float64) error {
	for k := range g.spans {
		sp := &g.spans[k]
		if err := s.gatherSpan(sp.node, sp.g0, sp.g1, t); err != nil {
			return err
		}
		if j := nonFinite(s.u[sp.u0:sp.u1]); j >= 0 {
			c := &s.nodes[sp.node]
			return &node.StateError{Node: c.name, Field: "input " + c.spec.InputLayout.Component(sp.u0+j-c.u0), Step: s.steps, Time: t, Err: node.ErrNonFinite}
		}
	}
	return nil
}

// gatherSpan runs gathers [g0, g1) into node i's inputs, recovering a
// panic in a transform as an error naming node i.
func (s *Sim) gatherSpan(i int32, g0, g1 int, t float64) (err error) {
	defer s.recoverNode(s.nodes[i].name, t, &err)
	s.applyGathers(g0, g1)
	return nil
}

// updateHeld is update without gathering: the inputs in Sim.u are used
// as they are.
func (s *Sim) updateHeld(c *cnode, t, dt float64) error {
	dst := s.xNext[c.x0:c.x1]
	if err := c.n.Update(t, dt, s.x[c.x0:c.x1], s.inputs(c), dst); err != nil {
		return s.nodeError(c, t, err)
	}
	if j := nonFinite(dst); j >= 0 {
		return &node.StateError{Node: c.name, Field: c.spec.StateLayout.Component(j), Step: s.steps, Time: t, Err: node.ErrNonFinite}
	}
	return nil
}
