package main

import (
	"fmt"
	"strings"

	"github.com/cosimgo/cosim/graph"
)

// This file finds what cosim graph's two drawings mark about algebraic
// loops (cycles of direct feedthrough, which Build solves or, when the
// scene asks, refuses): each loop's members and tear variables, a colour
// per loop, and which edges close it.

// drawnLoop is one algebraic loop in a drawing.
type drawnLoop struct {
	members []string // node order
	tear    []string // tear variables, "node.output[i]"; nil when refused
	refused bool     // the scene refuses loops: its Build fails, nothing is torn
	colour  string   // "#rrggbb"
	name    string   // the colour's name, for the legend
}

// loopPalette are the loops' colours, cycled (none of them the gray of
// subsystem frames or the black of other edges).
var loopPalette = []struct{ hex, name string }{
	{"#d62728", "red"}, {"#1f77b4", "blue"}, {"#2ca02c", "green"},
	{"#9467bd", "purple"}, {"#ff7f0e", "orange"}, {"#8c564b", "brown"},
}

// loopDrawing is what the drawings need: the loops, each node's loop,
// and why loops could not be found (the graph does not build), if so.
type loopDrawing struct {
	loops  []drawnLoop
	of     map[string]int // node → index in loops
	reason string
}

// findLoops builds g to find its algebraic loops (Sim.Loops: members
// and tear variables); refused says the scene refuses them (g was built
// with them solved only to draw them): they are drawn without tear
// variables, and the legend says so. A graph that does not build is
// drawn without loop marks, the reason kept for a comment.
func findLoops(g *graph.Graph, refused bool) loopDrawing {
	d := loopDrawing{of: map[string]int{}}
	s, err := g.Build()
	if err != nil {
		d.reason = err.Error()
		return d
	}
	defer s.Close()
	for _, l := range s.Loops() {
		dl := drawnLoop{members: l.Members, tear: l.Tear, refused: refused}
		if refused {
			dl.tear = nil
		}
		d.loops = append(d.loops, dl)
	}
	for i := range d.loops {
		p := loopPalette[i%len(loopPalette)]
		d.loops[i].colour, d.loops[i].name = p.hex, p.name
		for _, m := range d.loops[i].members {
			d.of[m] = i
		}
	}
	return d
}

// loopOf returns the loop node n is a member of, or −1.
func (d *loopDrawing) loopOf(n string) int {
	if i, ok := d.of[n]; ok {
		return i
	}
	return -1
}

// edgeLoop returns the loop an edge closes — from an output of a member
// into a member of the same loop (an edge from a state field carries no
// feedthrough and closes nothing) — and whether it carries a tear
// variable; −1 when it closes no loop.
func (d *loopDrawing) edgeLoop(g *graph.Graph, from, to string) (int, bool) {
	fn, ff := splitNodeField(from)
	tn, _ := splitNodeField(to)
	i := d.loopOf(fn)
	if i < 0 || d.loopOf(tn) != i {
		return -1, false
	}
	nd, ok := g.Node(fn)
	if !ok || nd.Spec().OutputLayout.Index(ff) < 0 {
		return -1, false
	}
	prefix := fn + "." + ff
	for _, v := range d.loops[i].tear {
		if v == prefix || strings.HasPrefix(v, prefix+"[") {
			return i, true
		}
	}
	return i, false
}

// legend is one line per loop: "algebraic loop 1 (red): a, b, c; tear
// variables b.out[0]" (or "refused by the scene").
func (l drawnLoop) legend(k int) string {
	s := fmt.Sprintf("algebraic loop %d (%s): %s", k+1, l.name, strings.Join(l.members, ", "))
	if l.refused {
		return s + "; refused by the scene (loops.refuse)"
	}
	return s + "; tear variables " + strings.Join(l.tear, ", ")
}

// loopMark is what the drawings mark on an edge between two nodes (all
// the edges between them drawn as one): the loop it closes and whether
// it carries a tear variable.
type loopMark struct {
	loop int // −1: closes no loop
	tear bool
}

// mark adds the edge from → to, labelled *label, to m: when it closes a
// loop, m takes the loop, and a tear variable's edge is labelled
// "(tear)".
func (d *loopDrawing) mark(m *loopMark, g *graph.Graph, from, to string, label *string) {
	i, tear := d.edgeLoop(g, from, to)
	if i < 0 {
		return
	}
	m.loop, m.tear = i, m.tear || tear
	if tear {
		*label += " (tear)"
	}
}
