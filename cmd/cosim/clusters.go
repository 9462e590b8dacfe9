package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
)

// This file holds what cosim graph's two drawings share about a built
// scene: fields split from their node paths, connector ends on the
// ground, and the subsystems nodes belong to.

// splitNodeField splits "node.field" at its last '.': nodes of
// subsystems are named by their paths ("leg2.knee.spring.x").
func splitNodeField(p string) (nodeName, field string) {
	i := strings.LastIndexByte(p, '.')
	if i < 0 {
		return p, ""
	}
	return p[:i], p[i+1:]
}

// groundEnd is one end of a connector on the ground.
type groundEnd struct {
	connector string
	marker    int
	at        [3]float64 // the world point
}

// groundEnds lists the ends on the ground of every connector of g (a
// built scene's graph: subsystems' connectors included), in node order.
func groundEnds(g *graph.Graph) []groundEnd {
	var out []groundEnd
	for _, name := range g.Names() {
		n, _ := g.Node(name)
		a, ok := node.As[node.Attached](n)
		if !ok {
			continue
		}
		ends, _ := a.Attachments()
		for k, e := range ends {
			if e.Body == nil {
				out = append(out, groundEnd{name, k, e.Local})
			}
		}
	}
	return out
}

// cluster is a subsystem in a drawing: its path, the nodes directly in
// it and its own subsystems, in the order of the graph's nodes.
type cluster struct {
	path  string
	nodes []string
	subs  []*cluster
}

// clusters groups the node names of a flattened graph by the subsystems
// their paths name ("front_left.wheel" is in front_left): the root holds
// the top-level nodes.
func clusters(names []string) *cluster {
	root := &cluster{}
	byPath := map[string]*cluster{"": root}
	var get func(path string) *cluster
	get = func(path string) *cluster {
		if c, ok := byPath[path]; ok {
			return c
		}
		parent, _ := splitNodeField(path)
		if !strings.Contains(path, ".") {
			parent = ""
		}
		c := &cluster{path: path}
		byPath[path] = c
		p := get(parent)
		p.subs = append(p.subs, c)
		return c
	}
	for _, n := range names {
		parent := ""
		if strings.Contains(n, ".") {
			parent, _ = splitNodeField(n)
		}
		c := get(parent)
		c.nodes = append(c.nodes, n)
	}
	return root
}

// writeDOTClusters writes c's subsystems as nested Graphviz clusters,
// each labelled with its path, its nodes drawn by line.
func writeDOTClusters(w io.Writer, c *cluster, indent string, line func(w io.Writer, indent, name string)) {
	for _, n := range c.nodes {
		line(w, indent, n)
	}
	for _, s := range c.subs {
		fmt.Fprintf(w, "%ssubgraph %s {\n", indent, strconv.Quote("cluster_"+s.path))
		fmt.Fprintf(w, "%s\tlabel=%s; style=\"rounded,dashed\"; color=gray40;\n", indent, strconv.Quote(s.path+" (subsystem)"))
		writeDOTClusters(w, s, indent+"\t", line)
		fmt.Fprintf(w, "%s}\n", indent)
	}
}
