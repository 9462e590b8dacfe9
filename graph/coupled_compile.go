package graph

import (
	"fmt"
	"sort"

	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/node"
)

// This file compiles a coupling.Strategy into a coupledPlan: every node
// name resolved to an index, every buffer allocated. One compiler per
// scheme: compileGS (Gauss–Seidel), compileMultirate (Jacobi, with or
// without subcycling) and compileIterative (iterated groups).

// lookup resolves a node name of a strategy.
func (s *Sim) lookup(what, name string) (int32, error) {
	i, ok := s.indexOf(name)
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
	p := &coupledPlan{name: st.Name(), key: st.String(), xv: make([]float64, len(s.state)), updates: make([]int64, len(s.nodes))}
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
	s.engine.compilePlan(p)
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
		cg.outLevels = saveLevels(save, a.byLevel(in))
		nSave := 0
		for i := range s.nodes {
			if save[i] {
				cg.saveNodes = append(cg.saveNodes, int32(i))
				nSave += int(s.nodes[i].y1) - int(s.nodes[i].y0)
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
			for gi0 := int(c.g0); gi0 < int(c.g1); {
				gi1 := gi0
				inGroup := false
				for gi1 < int(c.g1) && s.gathers[gi1].dst() == s.gathers[gi0].dst() {
					if src := s.sourceNode(&s.gathers[gi1]); src >= 0 && in[src] {
						inGroup = true
					}
					gi1++
				}
				if inGroup {
					g := &s.gathers[gi0]
					cg.spans = append(cg.spans, ispan{node: i, u0: g.dst(), u1: g.dst() + g.n(), g0: gi0, g1: gi1})
					m += g.n()
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

// saveLevels marks every node of levels in save and returns levels. A
// group's output levels (byLevel of its members) hold, besides the
// members, the other members of an algebraic loop that holds a member:
// G re-evaluates them at the trial state too, so their outputs are saved
// before the iteration and restored after it with the members', for the
// other groups read them at t_n.
func saveLevels(save []bool, levels [][]int32) [][]int32 {
	for _, l := range levels {
		for _, o := range l {
			save[o] = true
		}
	}
	return levels
}
