package graph

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	gonumgraph "gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/graph/topo"

	"github.com/cosimgo/cosim/node"
)

// compiled node: every name resolved to offsets into the Sim's flat buffers.
type cnode struct {
	name string
	n    node.Node
	spec *node.Spec
	out  node.Outputter // nil when the node has no outputs

	// The ranges are 32-bit (Build refuses buffers of 2³¹ values or
	// more): a record is 112 bytes, not 160, in graphs of a million nodes.
	x0, x1 int32 // state range in Sim.state
	y0, y1 int32 // output range in Sim.outputs
	u0, u1 int32 // input range in Sim.inputs
	p0, p1 int32 // presence range in Sim.present
	g0, g1 int32 // gather range in Sim.gathers

	// loop is the algebraic loop the node is a member of (loop.go), nil
	// for most nodes; loopLead marks the member that solves it.
	loop     *loopSolver
	loopLead bool
	// feedthrough nodes gather their inputs before evaluating outputs;
	// every other node gathers just before Update.
	feedthrough bool
	// checkIn is false when every gather into the node is one plain copy
	// of a source that is itself checked (a state after its step, an
	// output after its evaluation): its inputs cannot be non-finite then,
	// and the per-step check is skipped. Sums and transforms are checked.
	checkIn bool
}

const (
	gatherSet = iota
	gatherAdd
)

// gather copies (or adds) one edge's source value into an input slot.
//
// A graph holds several gathers per node (six per mass in a chain of
// masses and connectors: 600 000 at 100 000 masses), so the record is
// kept small, 24 bytes: 32-bit offsets (Build refuses a graph whose
// buffers hold 2³¹ values or more) and the transform, which few edges
// have, as an index into the layout's table; the methods below read them
// as ints.
type gather struct {
	dst32, n32  int32 // absolute range in Sim.inputs
	src32, sn32 int32 // absolute range in Sim.state or Sim.outputs
	// tr32 is 1 + the index of the gather's transform in layout.trs, 0
	// without one (few edges have one: an index, not a pointer, keeps the
	// record at 24 bytes).
	tr32  int32
	fromY bool
	mode  uint8
}

// gatherTr is the transform of a gather that has one, and where an
// additive gather's transform writes before the sum.
type gatherTr struct {
	tr        Transform
	scratch32 int32 // absolute offset in Sim.transformScratch (add through a transform)
}

func (g *gather) dst() int { return int(g.dst32) }
func (g *gather) n() int   { return int(g.n32) }
func (g *gather) src() int { return int(g.src32) }
func (g *gather) sn() int  { return int(g.sn32) }

// hasTr reports whether the gather has a transform.
func (g *gather) hasTr() bool { return g.tr32 != 0 }

// tr is gather g's transform, nil for a plain copy or sum.
func (l *layout) tr(g *gather) Transform {
	if g.tr32 == 0 {
		return nil
	}
	return l.trs[g.tr32-1].tr
}

// scratch is the offset in Sim.transformScratch where additive gather g
// applies its transform.
func (l *layout) scratch(g *gather) int { return int(l.trs[g.tr32-1].scratch32) }

// fieldRef is a resolved "node.field": a range of Sim.state or Sim.outputs.
type fieldRef struct {
	node  int
	field node.Field
	off   int // absolute
	fromY bool
}

// splitPath splits "node.field" at its last '.': node names are full
// paths through subsystems ("leg2.knee.spring.x"), field names never hold
// a '.'.
func splitPath(p string) (nodeName, field string, ok bool) {
	i := strings.LastIndexByte(p, '.')
	if i <= 0 || i == len(p)-1 {
		return "", "", false
	}
	return p[:i], p[i+1:], true
}

// Build validates the graph and compiles it into a runnable Sim. Every
// problem found is reported at once in a *BuildError; wiring problems are
// *EdgeError (errors.Is with ErrUnknownNode, ErrShape, …) and algebraic
// loops *LoopError. A node whose InitialState gives a value that is not
// finite is a problem too (errors.Is with node.ErrNonFinite), reported
// once the wiring is sound.
//
// Build runs in phases, each a method of builder below: lay out the
// nodes, resolve the edges, index them by input, check the inputs'
// combine rules and required inputs, find algebraic loops; then, when
// nothing is wrong, order the output nodes by level, allocate the buffers
// and compile the gathers (taking the initial states, which are checked
// then), and hand the Sim to the engine's compilers.
func (g *Graph) Build() (*Sim, error) {
	if len(g.subs) > 0 {
		// Flatten, then check the flat graph too, so that port problems
		// and wiring problems are reported together.
		flat, probs := g.flatten()
		sim, err := flat.Build()
		if len(probs) == 0 {
			return sim, err
		}
		var be *BuildError
		if errors.As(err, &be) {
			probs = append(probs, be.Problems...)
		}
		return nil, &BuildError{Problems: probs}
	}
	b := &builder{g: g, s: &Sim{layout: layout{nodes: make([]cnode, 0, len(g.nodes))}}}
	b.layoutNodes()
	b.resolveEdges()
	b.indexByInput()
	b.checkCombine()
	b.checkRepeats()
	b.checkRequired()
	if b.loopSet, b.loopErr = g.loops.resolved(); b.loopErr != nil {
		b.probs = append(b.probs, b.loopErr)
	}
	order, deps := b.findLoops()
	if len(b.probs) > 0 {
		return nil, &BuildError{Problems: b.probs}
	}
	b.levelOutputs(order, deps)
	b.compileGathers()
	if probs := b.checkInitialStates(); len(probs) > 0 {
		return nil, &BuildError{Problems: probs}
	}
	b.compileLoops()
	s := b.s
	s.dt = 0
	s.engine = newEngine(s)
	s.indexNames()
	return s, nil
}

// builder is the state Build's phases share.
type builder struct {
	g     *Graph
	s     *Sim
	probs []error // every problem found, reported at once

	// Buffer sizes: state, outputs, inputs and input slots (presence).
	xs, ys, us, ps int

	// edges are the edges that passed their checks, in connection order.
	// The edges into input slot p are edges[byInput[first[p]:first[p+1]]]
	// (CSR, in connection order).
	edges   []resolved
	first   []int32
	byInput []int32

	// Algebraic loops to solve (loop.go): members per loop; the cyclic
	// components among them in the order of the topological order's nil
	// entries; the resolved LoopSettings.
	loops, comps [][]int
	loopSet      LoopSettings
	loopErr      error
}

// inputEdges lists the edges into input slot slot, as indices into
// b.edges.
func (b *builder) inputEdges(slot int) []int32 { return b.byInput[b.first[slot]:b.first[slot+1]] }

// layoutNodes checks the nodes' names and contracts and lays out their
// state, outputs, inputs and input slots in the Sim's flat buffers, in
// node order. When Add saw no duplicate name, the index is g.index:
// copied after the loop unless a node was left out.
func (b *builder) layoutNodes() {
	g, s := b.g, b.s
	unique := g.dups == 0
	if !unique {
		s.index = make(map[string]int, len(g.nodes))
	}
	xs, ys, us, ps := 0, 0, 0, 0
	for _, nn := range g.nodes {
		switch {
		case nn.name == "" || strings.ContainsAny(nn.name, " \t\n") || !g.flat && strings.ContainsRune(nn.name, '.'):
			b.probs = append(b.probs, fmt.Errorf("node %q: %w: names must be non-empty, without '.' or spaces", nn.name, ErrBadName))
			continue
		case nn.n == nil:
			b.probs = append(b.probs, fmt.Errorf("node %q: %w: the node is nil", nn.name, ErrBadName))
			continue
		}
		if !unique {
			if _, dup := s.index[nn.name]; dup {
				b.probs = append(b.probs, fmt.Errorf("node %q: %w", nn.name, ErrDuplicateName))
				continue
			}
		}
		spec := nn.n.Spec()
		c := cnode{name: nn.name, n: nn.n, spec: spec}
		if len(spec.Outputs) > 0 {
			out, ok := node.As[node.Outputter](nn.n)
			if !ok {
				b.probs = append(b.probs, fmt.Errorf("node %q (%s) declares outputs but does not implement node.Outputter", nn.name, spec.Type))
				continue
			}
			c.out = out
			c.feedthrough = spec.Feedthrough
		}
		c.x0, xs = int32(xs), xs+spec.StateLayout.Size()
		c.y0, ys = int32(ys), ys+spec.OutputLayout.Size()
		c.u0, us = int32(us), us+spec.InputLayout.Size()
		c.p0, ps = int32(ps), ps+len(spec.Inputs)
		c.x1, c.y1, c.u1, c.p1 = int32(xs), int32(ys), int32(us), int32(ps)
		if !unique {
			s.index[nn.name] = len(s.nodes)
		}
		s.nodes = append(s.nodes, c)
	}
	switch {
	case unique && len(s.nodes) == len(g.nodes):
		s.index = g.index // read during Build only, never written
	case unique:
		s.index = make(map[string]int, len(s.nodes))
		for i := range s.nodes {
			s.index[s.nodes[i].name] = i
		}
	}
	b.xs, b.ys, b.us, b.ps = xs, ys, us, ps
	if max(xs, ys, us, ps) > math.MaxInt32 {
		// The gathers and node records address the buffers with 32-bit offsets.
		b.probs = append(b.probs, fmt.Errorf("graph too large: %d state, %d output and %d input values; a graph holds at most 2^31-1 of each", xs, ys, us))
	}
}

// resolveEdges resolves the edges in connection order and checks their
// shapes and units; those that pass are b.edges, each keyed by its
// input's slot (cnode.p0 + input index: node order, then input order).
func (b *builder) resolveEdges() {
	g, s := b.g, b.s
	edges := make([]resolved, 0, len(g.edges))
	s.nameCache = &nameCache{}
	defer func() { s.nameCache = nil }()
	for i := range g.edges {
		e := &g.edges[i]
		bad := func(err error, format string, a ...any) {
			b.probs = append(b.probs, &EdgeError{Edge: g.edgeFrom(int32(i)) + " -> " + g.edgeTo(int32(i)), Err: err, Detail: fmt.Sprintf(format, a...)})
		}
		nn, fn, ok := g.parts(e.fromNode, e.fromField)
		src, ok := s.resolveSourceParts(nn, fn, ok, bad)
		if !ok {
			continue
		}
		nn, fn, ok = g.parts(e.toNode, e.toField)
		dn, di, ok := s.resolveInputParts(nn, fn, ok, bad)
		if !ok {
			continue
		}
		dc := &s.nodes[dn]
		tr := g.edgeTransform(int32(i))
		in := &dc.spec.Inputs[di]
		if src.node == dn {
			bad(ErrSelfEdge, "it wires node %q into its own input; a node's inputs come from other nodes (a self-wired input reads the node's own previous value, a loop the node must model itself)", dc.name)
			continue
		}
		shape := src.field.Shape
		if why := transformProblem(tr, src.field.Units, in.Units); why != "" {
			bad(ErrTransform, "%s", why)
			continue
		}
		if tr != nil {
			sh, err := tr.OutShape(shape)
			if err != nil {
				bad(ErrShape, "transform %s: %v", tr.Name(), err)
				continue
			}
			shape = sh
		}
		if shape != in.Shape {
			how := "the source"
			if tr != nil {
				how = "the transform " + tr.Name()
			}
			bad(ErrShape, "%s gives a %s value but input %q is %s", how, shape, in.Name, in.Shape)
			continue
		}
		from, to := src.field.Units, in.Units
		if uc, ok := tr.(UnitConverter); ok && tr != nil {
			if cf, ct := uc.Units(); cf != "" || ct != "" {
				if !sameUnits(cf, from) || !sameUnits(ct, to) {
					bad(ErrUnits, "transform %s converts %q to %q but the edge goes from %q to %q", tr.Name(), cf, ct, from, to)
					continue
				}
				from = to
			}
		}
		if !sameUnits(from, to) {
			bad(ErrUnits, "source is in %q but input %q is in %q; convert with a transform that declares the units: %s", src.field.Units, in.Name, in.Units, scaleSuggestion(src.field.Units, in.Units))
			continue
		}
		edges = append(edges, resolved{
			edge: int32(i), src: int32(src.node), dst: int32(dn), slot: int32(int(dc.p0) + di),
			srcOff: src.off, sn: int32(src.field.Shape.Len()), outLen: int32(in.Shape.Len()), fromY: src.fromY,
		})
	}
	b.edges = edges
}

// indexByInput lists the edges into each input slot by a counting sort
// (b.first, b.byInput), keeping connection order within a slot.
func (b *builder) indexByInput() {
	ps, edges := b.ps, b.edges
	first := make([]int32, ps+1) // CSR offsets by input slot
	for _, r := range edges {
		first[r.slot+1]++
	}
	for p := range ps {
		first[p+1] += first[p]
	}
	byInput := make([]int32, len(edges)) // edge indices into edges, by slot
	next := make([]int32, ps)
	copy(next, first[:ps])
	for ri, r := range edges {
		byInput[next[r.slot]] = int32(ri)
		next[r.slot]++
	}
	b.first, b.byInput = first, byInput
}

// checkCombine checks, per input in node order, that the edges into it
// agree with its combine rule (additive or replacing) and with each
// other, and that a replacing input has one edge.
func (b *builder) checkCombine() {
	g, s, edges := b.g, b.s, b.edges
	for ni := range s.nodes {
		c := &s.nodes[ni]
		for ii := range c.spec.Inputs {
			list := b.inputEdges(int(c.p0) + ii)
			if len(list) == 0 {
				continue
			}
			in := &c.spec.Inputs[ii]
			var declAdd, declRep bool
			var declBad node.Combine
			for _, ri := range list {
				if ei := edges[ri].edge; g.edges[ei].declared {
					c := g.edgeCombine(ei)
					declAdd = declAdd || c == node.Additive
					declRep = declRep || c == node.Replacing
					if c != node.Additive && c != node.Replacing {
						declBad = c
					}
				}
			}
			name := func() string { return c.name + "." + in.Name }
			switch {
			case declBad != node.Additive:
				b.probs = append(b.probs, &EdgeError{Edge: name(), Err: ErrMixedCombine, Detail: fmt.Sprintf("an edge into it is declared %v, which is neither additive nor replacing", declBad)})
			case declAdd && declRep:
				b.probs = append(b.probs, &EdgeError{Edge: name(), Err: ErrMixedCombine, Detail: "some edges into it are declared additive and others replacing"})
			case declAdd && in.Combine == node.Replacing || declRep && in.Combine == node.Additive:
				b.probs = append(b.probs, &EdgeError{Edge: name(), Err: ErrMixedCombine, Detail: fmt.Sprintf("the input is %s but an edge into it is declared otherwise", in.Combine)})
			case in.Combine == node.Replacing && len(list) > 1:
				var from []string
				for _, ri := range list {
					from = append(from, g.edgeFrom(edges[ri].edge))
				}
				b.probs = append(b.probs, &EdgeError{Edge: name(), Err: ErrReplacing, Detail: fmt.Sprintf("%d edges (from %s); a replacing input takes exactly one", len(list), strings.Join(from, ", "))})
			}
		}
	}
}

// checkRequired reports the inputs without a default that no edge feeds.
func (b *builder) checkRequired() {
	s := b.s
	for ni := range s.nodes {
		c := &s.nodes[ni]
		for ii, in := range c.spec.Inputs {
			if in.Required() && len(b.inputEdges(int(c.p0)+ii)) == 0 {
				b.probs = append(b.probs, &EdgeError{Edge: c.name + "." + in.Name, Err: ErrUnconnected, Detail: fmt.Sprintf("it has no default; connect a %s value in %q to it", in.Shape, in.Units)})
			}
		}
	}
}

// findLoops reports the algebraic loops among feedthrough nodes, sorted
// by message, and returns a topological order of the dependency graph and
// deps[d], the output nodes d reads through feedthrough. Only nodes joined
// by such an edge can be in a loop or above level 0, so only they enter
// the dependency graph.
func (b *builder) findLoops() ([]gonumgraph.Node, [][]int) {
	s := b.s
	deps := make([][]int, len(s.nodes)) // deps[d] = output nodes d reads through feedthrough
	dg := simple.NewDirectedGraph()
	selfLoop := map[int]bool{}
	for _, r := range b.edges {
		d, src := int(r.dst), int(r.src)
		if !r.fromY || !s.nodes[d].feedthrough {
			continue
		}
		if src == d {
			selfLoop[d] = true
			continue
		}
		deps[d] = append(deps[d], src)
		// SetEdge adds the nodes it joins.
		dg.SetEdge(simple.Edge{F: simple.Node(int64(src)), T: simple.Node(int64(d))})
	}
	order, err := topo.SortStabilized(dg, nil)
	if un, ok := err.(topo.Unorderable); (ok || err == nil) && !b.g.loops.Refuse {
		// Loops are solved (loop.go), not refused.
		for _, comp := range un {
			var m []int
			for _, n := range comp {
				m = append(m, int(n.ID()))
			}
			b.comps = append(b.comps, m)
		}
		b.loops = loopComponents(un, selfLoop)
		return order, deps
	}
	var loops []error
	if err != nil {
		if un, ok := err.(topo.Unorderable); ok {
			for _, comp := range un {
				var m []string
				for _, n := range comp {
					m = append(m, s.nodes[n.ID()].name)
				}
				sort.Strings(m)
				loops = append(loops, &LoopError{Members: m})
			}
		} else {
			loops = append(loops, err)
		}
	}
	for d := range selfLoop {
		loops = append(loops, &LoopError{Members: []string{s.nodes[d].name}})
	}
	sort.Slice(loops, func(a, b int) bool { return loops[a].Error() < loops[b].Error() })
	b.probs = append(b.probs, loops...)
	return order, deps
}

// levelOutputs groups the output nodes by evaluation level (one more than
// the highest level they read through feedthrough) into s.levels, and
// lists the stateful nodes in s.stateful, both in node order.
func (b *builder) levelOutputs(order []gonumgraph.Node, deps [][]int) {
	s := b.s
	level := loopLevels(len(s.nodes), order, b.comps, deps)
	for i := range s.nodes {
		c := &s.nodes[i]
		if c.out != nil {
			for len(s.levels) <= level[i] {
				s.levels = append(s.levels, nil)
			}
			s.levels[level[i]] = append(s.levels[level[i]], int32(i))
		}
		if c.x1 > c.x0 {
			s.stateful = append(s.stateful, int32(i))
		}
	}
}

// compileGathers allocates the buffers, writes the initial states and
// the defaults of unconnected inputs, and compiles the gathers (node
// order, then edge order).
func (b *builder) compileGathers() {
	g, s, edges := b.g, b.s, b.edges
	s.state, s.nextState = staggered(b.xs)
	s.outputs = make([]float64, b.ys)
	s.inputs = make([]float64, b.us)
	s.present = make([]bool, b.ps)
	s.gathers = make([]gather, 0, len(edges))
	scratch := 0
	for ni := range s.nodes {
		c := &s.nodes[ni]
		c.n.InitialState(s.state[c.x0:c.x1])
		c.g0 = int32(len(s.gathers))
		for ii, in := range c.spec.Inputs {
			off := int(c.u0) + c.spec.InputLayout.Offset(ii)
			list := b.inputEdges(int(c.p0) + ii)
			s.present[int(c.p0)+ii] = len(list) > 0 || !in.Absent
			if len(list) == 0 {
				copy(s.inputs[off:off+in.Shape.Len()], in.Default)
				continue
			}
			for j, ri := range list {
				r := &edges[ri]
				gt := gather{dst32: int32(off), n32: int32(r.outLen), src32: int32(r.srcOff), sn32: int32(r.sn), fromY: r.fromY}
				if tr := g.edgeTransform(r.edge); tr != nil {
					s.trs = append(s.trs, gatherTr{tr: tr})
					gt.tr32 = int32(len(s.trs))
				}
				if j > 0 && in.Combine == node.Additive {
					gt.mode = gatherAdd
					if gt.hasTr() {
						s.trs[gt.tr32-1].scratch32 = int32(scratch)
						scratch += gt.n()
					}
				}
				s.gathers = append(s.gathers, gt)
			}
		}
		c.g1 = int32(len(s.gathers))
		for gi := int(c.g0); gi < int(c.g1); gi++ {
			if g := &s.gathers[gi]; g.mode != gatherSet || g.hasTr() {
				c.checkIn = true
			}
		}
	}
	s.transformScratch = make([]float64, scratch)
}

// checkInitialStates reports each node whose InitialState gave a value
// that is not finite, naming its first such component: every step would
// start from it, and SetState refuses the same values.
func (b *builder) checkInitialStates() []error {
	s := b.s
	var probs []error
	for ni := range s.nodes {
		c := &s.nodes[ni]
		for j := int(c.x0); j < int(c.x1); j++ {
			if v := s.state[j]; math.IsNaN(v) || math.IsInf(v, 0) {
				probs = append(probs, fmt.Errorf("node %q: initial state %s is %v: %w", c.name, s.componentName(j), v, node.ErrNonFinite))
				break
			}
		}
	}
	return probs
}

// resolved is an edge that passed Build's checks, in the compact form the
// rest of Build reads (Graph.edges[edge] has the rest).
type resolved struct {
	edge     int32 // index in Graph.edges
	src, dst int32 // source and destination nodes
	slot     int32 // the destination input's slot (cnode.p0 + input index)
	sn       int32 // source components
	outLen   int32 // input components
	srcOff   int   // absolute source offset in Sim.state or Sim.outputs
	fromY    bool
}

func sameUnits(a, b string) bool {
	norm := func(u string) string {
		u = strings.TrimSpace(u)
		switch u {
		case "", "1", "—", "-":
			return ""
		}
		return u
	}
	return norm(a) == norm(b)
}

func (s *Sim) nodeNames() []string {
	out := make([]string, len(s.nodes))
	for i, c := range s.nodes {
		out[i] = c.name
	}
	return out
}

// nameCache remembers the last node names Build resolved. Consecutive
// edges mostly join the same few nodes (a connector and its bodies), or
// the nodes added after them (a chain, a grid), and comparing a short
// name costs less than hashing it into a map of a million names. Names
// are unique in s.nodes, so s.nodes[k].name == name means index k.
type nameCache struct {
	idx  [4]int
	next int
}

// indexNames replaces the name map Build used by byName: a map of 200 000
// names holds about 10 MB, the sorted indices 0.8 MB, and after Build
// names are looked up only by calls that are not per step (Node, the
// coupling and sensitivity compilers, observers' resolution).
func (s *Sim) indexNames() {
	s.byName = make([]int32, len(s.nodes))
	for i := range s.byName {
		s.byName[i] = int32(i)
	}
	slices.SortFunc(s.byName, func(a, b int32) int { return strings.Compare(s.nodes[a].name, s.nodes[b].name) })
	s.index = nil
}

// indexOf returns the index of the node named name: through the map
// during Build, by binary search in byName after it.
func (s *Sim) indexOf(name string) (int, bool) {
	if s.index != nil {
		i, ok := s.index[name]
		return i, ok
	}
	k, ok := slices.BinarySearchFunc(s.byName, name, func(i int32, name string) int { return strings.Compare(s.nodes[i].name, name) })
	if !ok {
		return 0, false
	}
	return int(s.byName[k]), true
}

// nodeIndex is s.indexOf(name), through s.nameCache while Build resolves
// edges: a remembered node, the node after one, or the map.
func (s *Sim) nodeIndex(name string) (int, bool) {
	nc := s.nameCache
	if nc == nil || len(s.nodes) == 0 {
		return s.indexOf(name)
	}
	for _, k := range nc.idx {
		if s.nodes[k].name == name {
			return k, true
		}
	}
	for _, k := range nc.idx {
		if k+1 < len(s.nodes) && s.nodes[k+1].name == name {
			nc.idx[nc.next] = k + 1
			nc.next = (nc.next + 1) % len(nc.idx)
			return k + 1, true
		}
	}
	i, ok := s.indexOf(name)
	if ok {
		nc.idx[nc.next] = i
		nc.next = (nc.next + 1) % len(nc.idx)
	}
	return i, ok
}

// resolveSource resolves "node.field" to a state field or an output.
func (s *Sim) resolveSource(p string, bad func(error, string, ...any)) (fieldRef, bool) {
	nn, fn, ok := splitPath(p)
	if !ok {
		nn = p
	}
	return s.resolveSourceParts(nn, fn, ok, bad)
}

// resolveSourceParts is resolveSource of a path already split (splitPath);
// ok false: the path, whole in nn, is not of the form node.field.
func (s *Sim) resolveSourceParts(nn, fn string, ok bool, bad func(error, string, ...any)) (fieldRef, bool) {
	if !ok {
		bad(ErrUnknownField, "%q is not of the form node.field", nn)
		return fieldRef{}, false
	}
	ni, ok := s.nodeIndex(nn)
	if !ok {
		bad(ErrUnknownNode, "no node %q%s", nn, node.DidYouMean(nn, s.nodeNames()))
		return fieldRef{}, false
	}
	c := &s.nodes[ni]
	if cur, ok := c.spec.Renamed(fn); ok { // a former field name (node.Field.Formerly)
		c.spec.WarnRenamed(nn, fn)
		fn = cur
	}
	si := c.spec.StateLayout.Index(fn)
	oi := c.spec.OutputLayout.Index(fn)
	switch {
	case si >= 0 && oi >= 0:
		bad(ErrAmbiguousField, "node %q (%s) has both a state field and an output named %q", nn, c.spec.Type, fn)
		return fieldRef{}, false
	case si >= 0:
		return fieldRef{node: ni, field: c.spec.State[si], off: int(c.x0) + c.spec.StateLayout.Offset(si)}, true
	case oi >= 0:
		return fieldRef{node: ni, field: c.spec.Outputs[oi], off: int(c.y0) + c.spec.OutputLayout.Offset(oi), fromY: true}, true
	}
	names := append(c.spec.StateLayout.Names(), c.spec.OutputLayout.Names()...)
	if mr, ok := c.n.(interface{ MissingFieldReason(string) string }); ok {
		if why := mr.MissingFieldReason(fn); why != "" {
			bad(ErrUnknownField, "node %q (%s) has no field %q: %s", nn, c.spec.Type, fn, why)
			return fieldRef{}, false
		}
	}
	if c.spec.InputLayout.Index(fn) >= 0 {
		bad(ErrUnknownField, "%q is an input of node %q (%s), not a state field or output; edges go from a state field or output to an input", fn, nn, c.spec.Type)
	} else {
		bad(ErrUnknownField, "node %q (%s) has no state field or output %q%s", nn, c.spec.Type, fn, node.DidYouMean(fn, names))
	}
	return fieldRef{}, false
}

// resolveInput resolves "node.input".
func (s *Sim) resolveInput(p string, bad func(error, string, ...any)) (int, int, bool) {
	nn, fn, ok := splitPath(p)
	if !ok {
		nn = p
	}
	return s.resolveInputParts(nn, fn, ok, bad)
}

// resolveInputParts is resolveInput of a path already split (splitPath);
// ok false: the path, whole in nn, is not of the form node.input.
func (s *Sim) resolveInputParts(nn, fn string, ok bool, bad func(error, string, ...any)) (int, int, bool) {
	if !ok {
		bad(ErrUnknownField, "%q is not of the form node.input", nn)
		return 0, 0, false
	}
	ni, ok := s.nodeIndex(nn)
	if !ok {
		bad(ErrUnknownNode, "no node %q%s", nn, node.DidYouMean(nn, s.nodeNames()))
		return 0, 0, false
	}
	c := &s.nodes[ni]
	ii := c.spec.InputLayout.Index(fn)
	if ii < 0 {
		if c.spec.StateLayout.Index(fn) >= 0 || c.spec.OutputLayout.Index(fn) >= 0 {
			bad(ErrUnknownField, "%q of node %q (%s) is a state field or output, not an input", fn, nn, c.spec.Type)
		} else {
			bad(ErrUnknownField, "node %q (%s) has no input %q%s", nn, c.spec.Type, fn, node.DidYouMean(fn, c.spec.InputLayout.Names()))
		}
		return 0, 0, false
	}
	return ni, ii, true
}
