package main

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"math"
	"strings"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/scene"
)

// writeGraphSVG draws the same graph as writeDOT into a standalone SVG,
// for users without Graphviz: nodes in layers from left to right (a node
// one layer right of every node feeding it, cycles through connectors
// broken where a depth-first walk in node order first closes them), a
// rounded box per stateful node and an ellipse per stateless one, one
// curved arrow per pair of nodes labelled with the fields it carries,
// "(+)" marking additive inputs, and the ground markers of connectors as
// dashed lines to a ground symbol; the nodes of each subsystem framed,
// column by column, by a dashed box labelled with its path.
func writeGraphSVG(w io.Writer, sc *scene.Scene, g *graph.Graph, ld loopDrawing) error {
	names := g.Names()
	idx := map[string]int{}
	for i, n := range names {
		idx[n] = i
	}
	type gnode struct {
		name, typ string
		stateful  bool
		layer     int
		row       int
		x, y      float64
	}
	ns := make([]gnode, len(names))
	for i, n := range names {
		nd, _ := g.Node(n)
		s := nd.Spec()
		ns[i] = gnode{name: n, typ: s.Type, stateful: s.StateLayout.Size() > 0}
	}
	type pair struct{ from, to int }
	var order []pair
	labels := map[pair][]string{}
	marks := map[pair]loopMark{}
	adj := make([][]int, len(names))
	for _, e := range g.Edges() {
		fn, ff := splitNodeField(e.From)
		tn, tf := splitNodeField(e.To)
		a, okA := idx[fn]
		b, okB := idx[tn]
		if !okA || !okB {
			continue
		}
		l := ff + " → " + tf
		nd, _ := g.Node(tn)
		for _, in := range nd.Spec().Inputs {
			if in.Name == tf && in.Combine == node.Additive {
				l += " (+)"
			}
		}
		if e.Transform != nil {
			l += " [" + transformText(e.Transform) + "]"
		}
		p := pair{a, b}
		if _, ok := labels[p]; !ok {
			order = append(order, p)
			adj[a] = append(adj[a], b)
			marks[p] = loopMark{loop: -1}
		}
		m := marks[p]
		ld.mark(&m, g, e.From, e.To, &l)
		marks[p] = m
		labels[p] = append(labels[p], l)
	}
	// Break cycles: a depth-first walk in node order drops back edges.
	state := make([]int, len(names)) // 0 new, 1 on the stack, 2 done
	forward := make([][]int, len(names))
	var visit func(int)
	visit = func(u int) {
		state[u] = 1
		for _, v := range adj[u] {
			if state[v] == 1 {
				continue // a back edge
			}
			forward[u] = append(forward[u], v)
			if state[v] == 0 {
				visit(v)
			}
		}
		state[u] = 2
	}
	for i := range names {
		if state[i] == 0 {
			visit(i)
		}
	}
	// Longest-path layers over the acyclic forward edges (at most n
	// relaxation rounds).
	for range names {
		changed := false
		for u := range names {
			for _, v := range forward[u] {
				if ns[v].layer < ns[u].layer+1 {
					ns[v].layer, changed = ns[u].layer+1, true
				}
			}
		}
		if !changed {
			break
		}
	}
	const colW, rowH, boxW, boxH, margin = 260.0, 90.0, 150.0, 44.0, 40.0
	rows := map[int]int{}
	maxLayer, maxRow := 0, 0
	for i := range ns {
		ns[i].row = rows[ns[i].layer]
		rows[ns[i].layer]++
		maxLayer, maxRow = max(maxLayer, ns[i].layer), max(maxRow, ns[i].row)
	}
	// Ground markers: one ground symbol left of everything.
	type groundLink struct {
		to    int
		label string
	}
	var grounds []groundLink
	for _, ge := range groundEnds(g) {
		if i, ok := idx[ge.connector]; ok {
			grounds = append(grounds, groundLink{i, fmt.Sprintf("marker %d at %s", ge.marker, node.FormatValue(ge.at[:]))})
		}
	}
	// Algebraic loops: a legend line each under the title, the nodes
	// below them.
	var legend []string
	if len(ld.loops) > 0 {
		legend = append(legend, "algebraic loops: members and the edges closing them in the loop's colour, edges carrying a tear variable dashed")
		for k, l := range ld.loops {
			legend = append(legend, l.legend(k))
		}
	}
	top := margin + 40 + 14*float64(len(legend))
	x0 := margin + boxW/2
	if len(grounds) > 0 {
		x0 += 120
	}
	for i := range ns {
		ns[i].x = x0 + float64(ns[i].layer)*colW
		ns[i].y = top + boxH/2 + float64(ns[i].row)*rowH
	}
	width := x0 + float64(maxLayer)*colW + boxW/2 + margin + 60
	height := top + float64(maxRow+1)*rowH + margin
	title := sc.Name
	if title == "" {
		title = "scene"
	}
	esc := html.EscapeString
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="Helvetica, Arial, sans-serif">`+"\n", width, height, width, height)
	fmt.Fprintf(bw, "<title>%s</title>\n", esc(title))
	fmt.Fprintln(bw, `<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#444"/></marker></defs>`)
	fmt.Fprintf(bw, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(bw, `<text x="%.0f" y="%.0f" font-size="15" font-weight="bold">%s</text>`+"\n", margin, margin, esc(title))
	fmt.Fprintf(bw, `<text x="%.0f" y="%.0f" font-size="11" fill="#555">(+) additive input: edges into it are summed; boxes hold state, ellipses do not</text>`+"\n", margin, margin+18)
	for k, line := range legend {
		fill := "#555"
		if k > 0 {
			fill = ld.loops[k-1].colour
		}
		fmt.Fprintf(bw, `<text x="%.0f" y="%.0f" font-size="11" fill="%s">%s</text>`+"\n", margin, margin+32+14*float64(k), fill, esc(line))
	}
	if ld.reason != "" {
		fmt.Fprintf(bw, "<!-- algebraic loops not analysed, the graph does not build: %s -->\n", esc(strings.ReplaceAll(ld.reason, "--", "- -")))
	}
	// Subsystems first, under everything: the nodes of one subsystem are
	// contiguous in node order, so in each column they take consecutive
	// rows, framed by a dashed box labelled with the subsystem's path
	// (nested subsystems inside, with less padding).
	type frameKey struct {
		path  string
		layer int
	}
	type frameSpan struct{ r0, r1, depth int }
	var frames []frameKey
	spans := map[frameKey]frameSpan{}
	for _, n := range ns {
		path, _ := splitNodeField(n.name)
		for depth := strings.Count(path, ".") + 1; strings.Contains(n.name, "."); depth-- {
			k := frameKey{path, n.layer}
			sp, seen := spans[k]
			if !seen {
				frames = append(frames, k)
				sp = frameSpan{n.row, n.row, depth}
			}
			sp.r0, sp.r1 = min(sp.r0, n.row), max(sp.r1, n.row)
			spans[k] = sp
			if !strings.Contains(path, ".") {
				break
			}
			path, _ = splitNodeField(path)
		}
	}
	for _, k := range frames {
		sp := spans[k]
		pad := math.Max(10-3*float64(sp.depth-1), 3) // rows are 46 px apart: frames of adjacent subsystems stay apart
		x := x0 + float64(k.layer)*colW - boxW/2 - pad
		y := top + float64(sp.r0)*rowH - pad - 12
		h := float64(sp.r1-sp.r0)*rowH + boxH + 2*pad + 12
		fmt.Fprintf(bw, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" rx="8" fill="none" stroke="#777" stroke-dasharray="5,3"/>`+"\n", x, y, boxW+2*pad, h)
		fmt.Fprintf(bw, `<text x="%.1f" y="%.1f" font-size="10" fill="#555">%s</text>`+"\n", x+6, y+11, esc(k.path))
	}
	// Edges next, under the nodes.
	border := func(n gnode, dx, dy float64) (float64, float64) {
		// Where the ray from the centre along (dx, dy) leaves the node.
		l := math.Hypot(dx, dy)
		if l == 0 {
			return n.x, n.y
		}
		ux, uy := dx/l, dy/l
		t := math.Min(boxW/2/math.Max(math.Abs(ux), 1e-9), boxH/2/math.Max(math.Abs(uy), 1e-9))
		return n.x + ux*t, n.y + uy*t
	}
	for _, p := range order {
		a, b := ns[p.from], ns[p.to]
		dx, dy := b.x-a.x, b.y-a.y
		// Bend every arrow to its left, so that a→b and b→a stay apart.
		l := math.Max(math.Hypot(dx, dy), 1)
		bend := 28.0
		if p.from == p.to {
			continue
		}
		cx, cy := (a.x+b.x)/2-dy/l*bend, (a.y+b.y)/2+dx/l*bend
		sx, sy := border(a, cx-a.x, cy-a.y)
		ex, ey := border(b, cx-b.x, cy-b.y)
		stroke, width, dash, fill := "#444", 1.2, "", "#333"
		if m := marks[p]; m.loop >= 0 {
			stroke, width, fill = ld.loops[m.loop].colour, 2.2, ld.loops[m.loop].colour
			if m.tear {
				dash = ` stroke-dasharray="7,4"`
			}
		}
		fmt.Fprintf(bw, `<path d="M%.1f,%.1f Q%.1f,%.1f %.1f,%.1f" fill="none" stroke="%s" stroke-width="%.1f"%s marker-end="url(#arrow)"/>`+"\n", sx, sy, cx, cy, ex, ey, stroke, width, dash)
		mx, my := 0.25*sx+0.5*cx+0.25*ex, 0.25*sy+0.5*cy+0.25*ey
		for k, text := range labels[p] {
			fmt.Fprintf(bw, `<text x="%.1f" y="%.1f" font-size="10" text-anchor="middle" fill="%s">%s</text>`+"\n", mx, my-4+float64(k-len(labels[p])/2)*12, fill, esc(text))
		}
	}
	if len(grounds) > 0 {
		gx, gy := margin+30, top+boxH/2
		fmt.Fprintf(bw, `<path d="M%.1f,%.1f l-18,-16 h36 z" fill="#e5e5e5" stroke="#444"/><text x="%.1f" y="%.1f" font-size="11" text-anchor="middle">ground</text>`+"\n", gx, gy+8, gx, gy+24)
		for _, gl := range grounds {
			n := ns[gl.to]
			ex, ey := border(n, gx-n.x, gy-n.y)
			fmt.Fprintf(bw, `<path d="M%.1f,%.1f L%.1f,%.1f" stroke="#444" stroke-dasharray="5,4"/>`+"\n", gx, gy, ex, ey)
			fmt.Fprintf(bw, `<text x="%.1f" y="%.1f" font-size="10" text-anchor="middle" fill="#333">%s</text>`+"\n", (gx+ex)/2, (gy+ey)/2-4, esc(gl.label))
		}
	}
	for _, n := range ns {
		box, ell, width := "#335", "#553", 1.0
		if i := ld.loopOf(n.name); i >= 0 {
			box, ell, width = ld.loops[i].colour, ld.loops[i].colour, 2.5
		}
		if n.stateful {
			fmt.Fprintf(bw, `<rect x="%.1f" y="%.1f" width="%.0f" height="%.0f" rx="8" fill="#eef3fb" stroke="%s" stroke-width="%.1f"/>`+"\n", n.x-boxW/2, n.y-boxH/2, boxW, boxH, box, width)
		} else {
			fmt.Fprintf(bw, `<ellipse cx="%.1f" cy="%.1f" rx="%.0f" ry="%.0f" fill="#fbf5e8" stroke="%s" stroke-width="%.1f"/>`+"\n", n.x, n.y, boxW/2, boxH/2, ell, width)
		}
		fmt.Fprintf(bw, `<text x="%.1f" y="%.1f" font-size="12" text-anchor="middle" font-weight="bold">%s</text>`+"\n", n.x, n.y-2, esc(n.name))
		fmt.Fprintf(bw, `<text x="%.1f" y="%.1f" font-size="10" text-anchor="middle" fill="#555">%s</text>`+"\n", n.x, n.y+12, esc(n.typ))
	}
	fmt.Fprintln(bw, "</svg>")
	return bw.Flush()
}
