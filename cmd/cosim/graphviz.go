package main

import (
	"bufio"
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
		fmt.Fprintf(stderr, "usage: cosim graph %s\n\nWrites the scene's graph in Graphviz DOT. Rendering DOT needs Graphviz (https://graphviz.org;\non Debian or Ubuntu: apt-get install graphviz):\n  cosim graph SCENE | dot -Tsvg > graph.svg\nWithout Graphviz, --format svg draws a simple SVG itself:\n  cosim graph --format svg SCENE > graph.svg\n\n", graphArgs)
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
	if err != nil {
		return err
	}
	g, err := sc.Build(nodes.Registry(), nil)
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	if *format == "svg" {
		return writeGraphSVG(stdout, sc, g)
	}
	return writeDOT(stdout, sc, g)
}

// writeDOT writes g as a Graphviz digraph: a box per stateful node, an
// ellipse per stateless one (sources, connectors), each labelled with its
// name and type; one edge per pair of nodes labelled with the fields it
// carries, "(+)" marking an additive input (its edges are summed), the
// transform in brackets; ground markers of connectors as dashed lines to
// a ground symbol.
func writeDOT(w io.Writer, sc *scene.Scene, g *graph.Graph) error {
	bw := bufio.NewWriter(w)
	q := strconv.Quote
	name := sc.Name
	if name == "" {
		name = "scene"
	}
	fmt.Fprintf(bw, "digraph %s {\n", q(name))
	fmt.Fprintf(bw, "\tgraph [rankdir=LR, label=%s, labelloc=t, fontname=Helvetica];\n", q(name+"\n(+) additive input: edges into it are summed"))
	fmt.Fprintln(bw, "\tnode [fontname=Helvetica, fontsize=11];")
	fmt.Fprintln(bw, "\tedge [fontname=Helvetica, fontsize=9];")
	specs := map[string]*node.Spec{}
	for _, n := range g.Names() {
		nd, _ := g.Node(n)
		s := nd.Spec()
		specs[n] = s
		shape := "box, style=rounded"
		if s.StateLayout.Size() == 0 {
			shape = "ellipse"
		}
		fmt.Fprintf(bw, "\t%s [label=%s, shape=%s];\n", q(n), q(n+"\n"+s.Type), shape)
	}
	groundUsed := false
	for _, c := range sc.Connectors {
		for k, b := range c.Bodies {
			if b != "" && b != node.Ground {
				continue
			}
			if !groundUsed {
				fmt.Fprintln(bw, "\t\"ground\" [label=\"ground\", shape=invtriangle, style=filled, fillcolor=gray90];")
				groundUsed = true
			}
			at := "[0, 0, 0]"
			if len(c.Local) == 2 {
				at = node.FormatValue(c.Local[k])
			}
			fmt.Fprintf(bw, "\t\"ground\" -> %s [style=dashed, arrowhead=none, label=%s];\n", q(c.Name), q(fmt.Sprintf("marker %d at %s", k, at)))
		}
	}
	type pair struct{ from, to string }
	var order []pair
	labels := map[pair][]string{}
	for _, e := range g.Edges() {
		fn, ff, _ := strings.Cut(e.From, ".")
		tn, tf, _ := strings.Cut(e.To, ".")
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
		}
		labels[p] = append(labels[p], l)
	}
	for _, p := range order {
		fmt.Fprintf(bw, "\t%s -> %s [label=%s];\n", q(p.from), q(p.to), q(strings.Join(labels[p], "\n")))
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
