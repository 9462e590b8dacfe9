package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
)

const graphArgs = "SCENE [--format dot|svg] [--set NODE.PARAM=VALUE]…"

func cmdGraph(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("graph", graphArgs, stderr)
	var sets stringList
	fs.Var(&sets, "set", "override a parameter, `NODE.PARAM=VALUE` (repeatable)")
	format := fs.String("format", "dot", "dot (Graphviz DOT) or svg (an SVG drawn by cosim itself, without Graphviz)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: cosim graph %s\n\nWrites the scene's graph in Graphviz DOT. Rendering DOT needs Graphviz (https://graphviz.org;\non Debian or Ubuntu: apt-get install graphviz):\n  cosim graph SCENE | dot -Tsvg > graph.svg\nWithout Graphviz, --format svg draws a simple SVG itself:\n  cosim graph --format svg SCENE > graph.svg\nSubsystems are drawn as clusters; each algebraic loop in a colour of its own (its\nmembers and the edges closing it; edges carrying a tear variable dashed, labelled (tear)),\nwith a legend naming its members and tear variables.\n\n", graphArgs)
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("name exactly one scene file, got %d arguments", len(pos))
	}
	if *format != "dot" && *format != "svg" {
		return usagef("--format %q: dot or svg", *format)
	}
	sc, err := loadScene(pos[0], sets)
	refused := false
	if errors.Is(err, graph.ErrAlgebraicLoop) {
		// The scene refuses its loops (loops.refuse), so it does not
		// load: draw it as it would build with them solved, its loops
		// marked refused.
		sc, err = loadSolvingLoops(pos[0], sets)
		refused = true
	}
	if err != nil {
		return err
	}
	g, err := sc.Build(nodes.Registry(), nil)
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	ld := findLoops(g, refused) // graphloops.go
	if *format == "svg" {
		return writeGraphSVG(stdout, sc, g, ld)
	}
	return writeDOT(stdout, sc, g, ld)
}

// loadSolvingLoops is loadScene for a scene that refuses its algebraic
// loops, with loops.refuse turned off.
func loadSolvingLoops(path string, sets []string) (*scene.Scene, error) {
	sc, err := scene.DecodeFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(sets) > 0 {
		m, err := parseSets(sets)
		if err != nil {
			return nil, err
		}
		if sc, err = sc.With(m); err != nil {
			return nil, err
		}
	}
	if sc.Loops != nil {
		solve := *sc.Loops
		solve.Refuse = false
		sc.Loops = &solve
	}
	if _, err := sc.Compile(runRegistry(), nil); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return sc, nil
}

// writeDOT writes g as a Graphviz digraph: a box per stateful node, an
// ellipse per stateless one (sources, connectors), each labelled with its
// name and type; one edge per pair of nodes labelled with the fields it
// carries, "(+)" marking an additive input (its edges are summed), the
// transform in brackets; ground markers of connectors as dashed lines to
// a ground symbol. Algebraic loops (graphloops.go) are drawn in a colour
// each: their members' outlines and the edges that close them, the
// edges carrying a tear variable dashed and marked "(tear)"; the graph's
// label is their legend, and a comment per loop lists its members and
// tear variables.
func writeDOT(w io.Writer, sc *scene.Scene, g *graph.Graph, ld loopDrawing) error {
	bw := bufio.NewWriter(w)
	q := strconv.Quote
	name := sc.Name
	if name == "" {
		name = "scene"
	}
	label := name + "\n(+) additive input: edges into it are summed"
	if len(ld.loops) > 0 {
		label += "\nalgebraic loops: members and the edges closing them in the loop's colour, edges carrying a tear variable dashed"
		for k, l := range ld.loops {
			label += "\n" + l.legend(k)
		}
	}
	fmt.Fprintf(bw, "digraph %s {\n", q(name))
	for k, l := range ld.loops {
		fmt.Fprintf(bw, "\t// %s\n", l.legend(k))
	}
	if ld.reason != "" {
		fmt.Fprintf(bw, "\t// algebraic loops not analysed, the graph does not build: %s\n", strings.ReplaceAll(ld.reason, "\n", " "))
	}
	fmt.Fprintf(bw, "\tgraph [rankdir=LR, label=%s, labelloc=t, fontname=Helvetica];\n", q(label))
	fmt.Fprintln(bw, "\tnode [fontname=Helvetica, fontsize=11];")
	fmt.Fprintln(bw, "\tedge [fontname=Helvetica, fontsize=9];")
	specs := map[string]*node.Spec{}
	for _, n := range g.Names() {
		nd, _ := g.Node(n)
		specs[n] = nd.Spec()
	}
	// Nodes of subsystems are drawn inside a cluster per subsystem,
	// labelled with its path.
	writeDOTClusters(bw, clusters(g.Names()), "\t", func(w io.Writer, indent, n string) {
		s := specs[n]
		shape := "box, style=rounded"
		if s.StateLayout.Size() == 0 {
			shape = "ellipse"
		}
		if i := ld.loopOf(n); i >= 0 {
			shape += fmt.Sprintf(", color=%s, penwidth=2", q(ld.loops[i].colour))
		}
		fmt.Fprintf(w, "%s%s [label=%s, shape=%s];\n", indent, q(n), q(n+"\n"+s.Type), shape)
	})
	for i, ge := range groundEnds(g) {
		if i == 0 {
			fmt.Fprintln(bw, "\t\"ground\" [label=\"ground\", shape=invtriangle, style=filled, fillcolor=gray90];")
		}
		fmt.Fprintf(bw, "\t\"ground\" -> %s [style=dashed, arrowhead=none, label=%s];\n", q(ge.connector), q(fmt.Sprintf("marker %d at %s", ge.marker, node.FormatValue(ge.at[:]))))
	}
	type pair struct{ from, to string }
	var order []pair
	labels := map[pair][]string{}
	marks := map[pair]loopMark{}
	for _, e := range g.Edges() {
		fn, ff := splitNodeField(e.From)
		tn, tf := splitNodeField(e.To)
		l := ff + " → " + tf
		if s := specs[tn]; s != nil {
			for _, in := range s.Inputs {
				if in.Name == tf && in.Combine == node.Additive {
					l += " (+)"
				}
			}
		}
		if e.Transform != nil {
			l += " [" + transformText(e.Transform) + "]"
		}
		p := pair{fn, tn}
		if _, ok := labels[p]; !ok {
			order = append(order, p)
			marks[p] = loopMark{loop: -1}
		}
		m := marks[p]
		ld.mark(&m, g, e.From, e.To, &l)
		marks[p] = m
		labels[p] = append(labels[p], l)
	}
	for _, p := range order {
		attrs := ""
		if m := marks[p]; m.loop >= 0 {
			c := q(ld.loops[m.loop].colour)
			attrs = fmt.Sprintf(", color=%s, fontcolor=%s, penwidth=2", c, c)
			if m.tear {
				attrs += ", style=dashed"
			}
		}
		fmt.Fprintf(bw, "\t%s -> %s [label=%s%s];\n", q(p.from), q(p.to), q(strings.Join(labels[p], "\n")), attrs)
	}
	fmt.Fprintln(bw, "}")
	return bw.Flush()
}

func transformText(t graph.Transform) string {
	switch t := t.(type) {
	case graph.Scale:
		s := "scale ×" + fmtF(t.Factor)
		if t.From != "" || t.To != "" {
			s += ", " + t.From + " → " + t.To
		}
		return s
	case graph.Component:
		return fmt.Sprintf("component %d", t.Index)
	case graph.Embed:
		return fmt.Sprintf("embed on axis %d of %d", t.Axis, t.Len)
	}
	return t.Name()
}
