package graph

import (
	"fmt"

	"github.com/cosimgo/cosim/node"
)

// edgeTake is what an edge takes from its source into its input: the
// source field (by offset in Sim.x or Sim.y) and the part a Component or
// Embed transform selects. Two edges into one additive input with the
// same take add the same value twice; a Scale or a user transform does
// not change what is taken (a scale-1 edge beside a plain one doubles the
// value just as two plain edges do).
type edgeTake struct {
	off   int
	fromY bool
	part  int // component index (Component), axis (Embed), or -1
	embed bool
}

func takeOf(r *resolved, tr Transform) edgeTake {
	k := edgeTake{off: r.srcOff, fromY: r.fromY, part: -1}
	switch t := tr.(type) {
	case Component:
		k.part = t.Index
	case Embed:
		k.part, k.embed = t.Axis, true
	}
	return k
}

// checkRepeats reports, per additive input in node order, an edge that
// takes the same value as an earlier edge into the input, unless it was
// connected with Repeat. (A replacing input takes one edge at all;
// checkCombine reports more.)
func (b *builder) checkRepeats() {
	g, s, edges := b.g, b.s, b.edges
	var seen map[edgeTake]int32
	for ni := range s.nodes {
		c := &s.nodes[ni]
		for ii := range c.spec.Inputs {
			list := b.inputEdges(int(c.p0) + ii)
			if len(list) < 2 || c.spec.Inputs[ii].Combine != node.Additive {
				continue
			}
			clear(seen)
			if seen == nil {
				seen = map[edgeTake]int32{}
			}
			for _, ri := range list {
				r := &edges[ri]
				e := &g.edges[r.edge]
				k := takeOf(r, g.edgeTransform(r.edge))
				first, dup := seen[k]
				if !dup {
					seen[k] = r.edge
					continue
				}
				if e.repeat {
					continue
				}
				from, to := g.edgeFrom(r.edge), g.edgeTo(r.edge)
				b.probs = append(b.probs, &EdgeError{Edge: from + " -> " + to, Err: ErrDuplicateEdge,
					Detail: fmt.Sprintf("it adds the value of %s into the additive input %s a second time (edge %d repeats edge %d, counting from 0 in connection order%s): the value would count twice; remove one, or connect it with graph.Repeat() if it is meant to",
						from, to, r.edge, first, transformNote(g.edgeTransform(first), g.edgeTransform(r.edge)))})
			}
		}
	}
}

// transformNote explains, for a repeated edge, that transforms do not make
// two edges different.
func transformNote(a, b Transform) string {
	switch {
	case a == nil && b == nil:
		return ""
	case a == nil:
		return ", through " + b.Name()
	case b == nil:
		return ", which goes through " + a.Name()
	}
	return ", both through transforms"
}
