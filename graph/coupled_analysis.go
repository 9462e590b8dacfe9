package graph

// This file holds the data-flow analysis the coupled plans are compiled
// from: which output nodes a node reads, through feedthrough, and which
// outputs a change of state affects.

// analysis holds the data-flow facts the plans are built from.
type analysis struct {
	s      *Sim
	level  []int     // feedthrough level of output nodes
	readsY [][]int32 // output nodes each node gathers from
	readsX [][]int32 // nodes whose state each node gathers
}

func (s *Sim) analyse() *analysis {
	a := &analysis{s: s, level: make([]int, len(s.nodes)), readsY: make([][]int32, len(s.nodes)), readsX: make([][]int32, len(s.nodes))}
	xOwner := make([]int32, len(s.state))
	yOwner := make([]int32, len(s.outputs))
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
				a.readsY[i] = add(a.readsY[i], yOwner[g.src()])
			} else {
				a.readsX[i] = add(a.readsX[i], xOwner[g.src()])
			}
		}
	}
	return a
}

// sourceNode is the node a gather reads.
func (s *Sim) sourceNode(g *gather) int32 {
	for i := range s.nodes {
		c := &s.nodes[i]
		if g.fromY && g.src() >= int(c.y0) && g.src() < int(c.y1) || !g.fromY && g.src() >= int(c.x0) && g.src() < int(c.x1) {
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
	a.s.closeLoops(set)
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
